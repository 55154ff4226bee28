"""What the figure tests of the chapters check on every figure: no two pieces of text overlap."""

from __future__ import annotations

from itertools import combinations

from matplotlib.figure import Figure
from matplotlib.text import Text


def _tick_labels(figure: Figure) -> tuple[list[Text], list[Text]]:
    """The tick labels of ``figure``: those drawn (their tick inside the axis' view) and all the others."""
    drawn, hidden = [], []
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1.0)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                inside = low - slack <= tick.get_loc() <= high + slack
                for label in (tick.label1, tick.label2):
                    (drawn if inside and label.get_visible() else hidden).append(label)
    return drawn, hidden


def texts(figure: Figure) -> list[Text]:
    """Every piece of text ``figure`` draws (titles, labels, drawn tick labels, legends, annotations)."""
    drawn, hidden = _tick_labels(figure)
    skipped = {id(label) for label in drawn + hidden}
    others = [t for t in figure.findobj(Text) if id(t) not in skipped and t.get_visible()]
    return [t for t in drawn + others if t.get_text().strip()]


def overlapping_texts(figure: Figure) -> list[tuple[str, str]]:
    """Pairs of drawn texts of ``figure`` whose boxes overlap (after the figure is drawn)."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts(figure)]
    return [(a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)]

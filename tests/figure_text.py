"""Text boxes of a matplotlib figure, for the figure tests of every chapter: no two of them may overlap."""

from __future__ import annotations

from itertools import combinations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from recbias.bookkit.plotting import use_theme


def _ticks_out_of_view(figure: Figure) -> set[int]:
    """The tick labels matplotlib keeps but does not draw, their ticks lying outside the axis's view."""
    hidden = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = high - low
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - 1e-9 * span <= tick.get_loc() <= high + 1e-9 * span or not np.isfinite(tick.get_loc()):
                    hidden.update((id(tick.label1), id(tick.label2)))
    return hidden


def drawn_texts(figure: Figure) -> list[Text]:
    """The text objects ``figure`` draws (tick labels out of view and empty or hidden texts left out)."""
    figure.canvas.draw()
    hidden = _ticks_out_of_view(figure)
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def texts(figure: Figure) -> list[str]:
    """Every text ``figure`` draws: titles, labels, tick labels in view, legend entries, annotations."""
    figure.canvas.draw()
    return [t.get_text() for t in drawn_texts(figure)]


def overlapping_texts(figure: Figure) -> list[tuple[str, str]]:
    """The pairs of drawn texts of ``figure`` whose boxes overlap."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in drawn_texts(figure)]
    return [(a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)]


@pytest.fixture
def figure_theme():
    """The book's figure theme for the test, every figure closed after it."""
    use_theme()
    yield
    plt.close("all")

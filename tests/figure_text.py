"""Text boxes of a matplotlib figure, for the figure tests of every chapter: no two of them may overlap, none may
reach beyond the canvas, and the figure must fit the text column."""

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


def texts_outside(figure: Figure) -> list[str]:
    """The drawn texts of ``figure`` that reach beyond its canvas, where a saved figure would cut them."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    canvas = figure.bbox
    return [t.get_text() for t in drawn_texts(figure)
            if not (canvas.x0 - 0.5 <= (box := t.get_window_extent(renderer)).x0 and box.x1 <= canvas.x1 + 0.5
                    and canvas.y0 - 0.5 <= box.y0 and box.y1 <= canvas.y1 + 0.5)]


def fits_the_column(figure: Figure) -> bool:
    """Whether ``figure`` is no wider than the theme's figures (:func:`recbias.bookkit.plotting.use_theme`), which the
    page shows at about 80% of their size in its text column: a wider one is shrunk further and its text with it."""
    return figure.get_figwidth() <= plt.rcParams["figure.figsize"][0]


@pytest.fixture
def figure_theme():
    """The book's figure theme for the test, every figure closed after it."""
    use_theme()
    yield
    plt.close("all")

"""Chapter 4's figures render on small studies, with their titles and labels, and no two pieces of text
overlap (recbias.chapters.c04_popularity_bias.figures)."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import matplotlib
import matplotlib.pyplot as plt
import pytest
from c04_fixtures import curves, grid, hand_sweep, mainstream, orderings, sweep
from matplotlib.text import Text

from recbias.bookkit.plotting import dataset_caption, palette, use_theme
from recbias.chapters.c04_popularity_bias import figures, study
from recbias.chapters.c04_popularity_bias.study import PERSONALISED

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def theme():
    use_theme()
    yield
    plt.close("all")


def colours() -> dict[str, str]:
    return palette([*orderings().summary()["system"].unique(), *study.sweep_systems(), "lastfm-2k",
                    "synthetic-small"])


def drawn_texts(fig: plt.Figure) -> list[Text]:
    """Every visible, non-empty text the figure draws (tick labels only within the axis limits)."""
    fig.canvas.draw()
    ticks, texts = set(), []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks():
                ticks.update({id(tick.label1), id(tick.label2)})
                if low - 1e-9 * abs(high - low) <= tick.get_loc() <= high + 1e-9 * abs(high - low):
                    texts.append(tick.label1)
    texts += [t for t in fig.findobj(Text) if id(t) not in ticks]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def assert_no_overlap(fig: plt.Figure) -> None:
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in drawn_texts(fig)]
    clashes = [(a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)]
    assert clashes == []


def titles(fig: plt.Figure) -> list[str]:
    return [ax.get_title(loc="left") for ax in fig.axes]


def test_orderings_figure() -> None:
    fig = figures.orderings_figure(orderings(), colours())
    dataset_caption(fig.axes[-1], "synthetic-small")
    assert titles(fig) == ["1R, $|T_u^r| = 40$", "AR (TI-AN)"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["P@10", "P@10"]
    ticks = {t.get_position()[1]: t.get_text() for t in fig.axes[0].get_yticklabels()}
    assert [ticks[y] for y in sorted(ticks, reverse=True)] == [*orderings().trained_orderings(), "Test-set oracle"]
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"closed-form bounds", "measured, 95% interval",
                                                                  "exact expectation", "random, $1/|T_u^r|$"}
    assert_no_overlap(fig)


def test_sweep_figures() -> None:
    fig = figures.sweep_figure(sweep(), colours())
    dataset_caption(fig.axes[-1], sweep().label)
    assert titles(fig) == ["Popularity of the worlds", "1R"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["items by popularity rank", r"skew $\alpha$"]
    assert fig.axes[1].get_ylabel() == "P@10"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(study.sweep_systems())
    assert_no_overlap(fig)
    check = figures.sweep_check_figure(sweep(), colours())
    dataset_caption(check.axes[0], sweep().label)
    assert titles(check) == ["AR", "Popularity, 1R"]
    assert check.axes[1].get_ylabel() == "popularity, 1R P@10"
    assert {t.get_text() for t in check.axes[1].get_legend().get_texts()} == {"exact expectation", "random",
                                                                              "measured", "counts in expectation"}
    assert_no_overlap(check)


def test_the_sweep_check_without_ar_has_one_panel() -> None:
    one = {s: {0.0: (0.01, 0.009, 0.011), 1.0: (0.02, 0.01, 0.03)} for s in study.sweep_systems()}
    hand = hand_sweep(one)
    hand = replace(hand, precision=hand.precision[hand.precision["design"] == hand.one_relevant])
    fig = figures.sweep_check_figure(hand, colours())
    assert titles(fig) == ["Popularity, 1R"]
    assert_no_overlap(fig)


def test_ratio_figure() -> None:
    fig = figures.ratio_figure(curves(), colours(), "synthetic-small")
    dataset_caption(fig.axes[0], "synthetic-small")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "items by popularity rank, most rated first"
    assert ax.get_ylabel() == r"$|PR(i)| \,/\, |R(i)|$"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["synthetic-small (this page)"]
    assert ax.get_lines()[0].get_linewidth() == 2.8
    assert_no_overlap(fig)


def test_truth_figure() -> None:
    fig = figures.truth_figure(grid())
    dataset_caption(fig.axes[0], "simulated, synthetic-small")
    assert [ax.get_ylabel() for ax in fig.axes] == ["popularity / random", f"popularity / {PERSONALISED}"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["observation bias"] * 2
    assert fig.axes[0].get_yscale() == "log"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [r"1R, $\alpha = 1$", r"AR, $\alpha = 1$",
                                                                  r"true, $\alpha = 1$"]
    line = fig.axes[1].get_lines()[0]  # 1R at alpha = 1: popularity over user-kNN at both selections
    share = study.truth.popularity_over(grid(), PERSONALISED).loc[1.0, "1R"]
    assert list(line.get_xdata()) == [0.0, 2.0] and list(line.get_ydata()) == pytest.approx(list(share))
    assert_no_overlap(fig)


def test_mainstream_figure_measured_and_true() -> None:
    fig = figures.mainstream_figure(mainstream(), colours())
    dataset_caption(fig.axes[-1], "synthetic-small")
    assert titles(fig) == ["Measured (AR)", "True"]
    assert fig.axes[0].get_ylabel() == "P@10 per user, mean"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Popularity", PERSONALISED]
    assert_no_overlap(fig)
    measured_only = figures.mainstream_figure(mainstream()[mainstream()["measure"] == "measured"], colours())
    assert titles(measured_only) == ["Measured (AR)"]
    assert_no_overlap(measured_only)


def test_the_overlap_check_sees_text_on_text() -> None:
    fig, ax = plt.subplots()
    ax.set_title("a title", loc="left")
    assert_no_overlap(fig)
    ax.text(0.0, 1.0, "over the title", transform=ax.transAxes, va="bottom")
    with pytest.raises(AssertionError):
        assert_no_overlap(fig)

"""Chapter 4's figures render on small studies, with their titles and labels, and no two pieces of text
overlap (recbias.chapters.c04_popularity_bias.figures)."""

from __future__ import annotations

from dataclasses import replace

import matplotlib
import matplotlib.pyplot as plt
import pytest
from figure_text import figure_theme, overlapping_texts  # noqa: F401
from c04_fixtures import curves, grid, hand_sweep, mainstream, orderings, sweep

from recbias.bookkit.plotting import dataset_caption, palette
from recbias.chapters.c04_popularity_bias import figures, study
from recbias.chapters.c04_popularity_bias.study import PERSONALISED

pytestmark = pytest.mark.usefixtures("figure_theme")

matplotlib.use("Agg")


def colours() -> dict[str, str]:
    return palette([*orderings().summary()["system"].unique(), *study.sweep_systems(), "lastfm-2k",
                    "synthetic-small"])


def titles(fig: plt.Figure) -> list[str]:
    return [ax.get_title(loc="left") for ax in fig.axes]


def test_orderings_figure() -> None:
    fig = figures.orderings_figure(orderings(), colours())
    dataset_caption(fig.axes[-1], "synthetic-small")
    assert titles(fig) == ["1R, $|T_u^r| = 40$", "AR (TI-AN)"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["P@10", "P@10"]
    ticks = {t.get_position()[1]: t.get_text() for t in fig.axes[0].get_yticklabels()}
    assert [ticks[y] for y in sorted(ticks, reverse=True)] == list(orderings().means(orderings().one_relevant).index)
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"closed-form bounds", "measured, 95% interval",
                                                                  "exact expectation", "random, $1/|T_u^r|$"}
    assert overlapping_texts(fig) == []


def test_sweep_figures() -> None:
    fig = figures.sweep_figure(sweep(), colours())
    dataset_caption(fig.axes[-1], sweep().label)
    assert titles(fig) == ["Popularity of the worlds", "1R"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["items by popularity rank", r"skew $\alpha$"]
    assert fig.axes[1].get_ylabel() == "P@10"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(study.sweep_systems())
    assert overlapping_texts(fig) == []
    check = figures.sweep_check_figure(sweep(), colours())
    dataset_caption(check.axes[0], sweep().label)
    assert titles(check) == ["AR", "Popularity, 1R"]
    assert check.axes[1].get_ylabel() == "popularity, 1R P@10"
    assert {t.get_text() for t in check.axes[1].get_legend().get_texts()} == {"exact expectation", "random",
                                                                              "measured", "counts in expectation"}
    assert overlapping_texts(check) == []


def test_the_sweep_check_without_ar_has_one_panel() -> None:
    one = {s: {0.0: (0.01, 0.009, 0.011), 1.0: (0.02, 0.01, 0.03)} for s in study.sweep_systems()}
    hand = hand_sweep(one)
    hand = replace(hand, precision=hand.precision[hand.precision["design"] == hand.one_relevant])
    fig = figures.sweep_check_figure(hand, colours())
    assert titles(fig) == ["Popularity, 1R"]
    assert overlapping_texts(fig) == []


def test_ratio_figure() -> None:
    fig = figures.ratio_figure(curves(), colours(), "synthetic-small")
    dataset_caption(fig.axes[0], "synthetic-small")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "items by popularity rank, most rated first"
    assert ax.get_ylabel() == r"$|PR(i)| \,/\, |R(i)|$"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["synthetic-small (this page)"]
    assert ax.get_lines()[0].get_linewidth() == 2.8
    assert overlapping_texts(fig) == []


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
    assert overlapping_texts(fig) == []


def test_mainstream_figure_measured_and_true() -> None:
    fig = figures.mainstream_figure(mainstream(), colours())
    dataset_caption(fig.axes[-1], "synthetic-small")
    assert titles(fig) == ["Measured (AR)", "True"]
    assert fig.axes[0].get_ylabel() == "P@10 per user, mean"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Popularity", PERSONALISED]
    assert overlapping_texts(fig) == []
    measured_only = figures.mainstream_figure(mainstream()[mainstream()["measure"] == "measured"], colours())
    assert titles(measured_only) == ["Measured (AR)"]
    assert overlapping_texts(measured_only) == []


def test_the_overlap_check_sees_text_on_text() -> None:
    fig, ax = plt.subplots()
    ax.set_title("a title", loc="left")
    assert overlapping_texts(fig) == []
    ax.text(0.0, 1.0, "over the title", transform=ax.transAxes, va="bottom")
    with pytest.raises(AssertionError):
        assert overlapping_texts(fig) == []

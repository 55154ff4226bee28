"""Chapter 4's figures render on small studies, with their titles and labels, draw the study's values (read back
from the matplotlib artists: line points, error-bar ends, the bounds' bars), and no two pieces of text overlap
(recbias.chapters.c04_popularity_bias.figures)."""

from __future__ import annotations

from dataclasses import fields, replace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from figure_text import figure_theme, overlapping_texts  # noqa: F401
from c04_fixtures import curves, grid, hand_sweep, mainstream, orderings, sweep

from recbias.bookkit.plotting import dataset_caption, palette
from recbias.chapters.c04_popularity_bias import figures, study
from recbias.chapters.c04_popularity_bias.study import PERSONALISED
from recbias.chapters.c04_popularity_bias.study.orderings import OrderingStudy
from recbias.chapters.c04_popularity_bias.study.setup import ALL_RELEVANT_DESIGN

pytestmark = pytest.mark.usefixtures("figure_theme")

matplotlib.use("Agg")


def colours() -> dict[str, str]:
    return palette([*orderings().summary()["system"].unique(), *study.sweep_systems(), "lastfm-2k",
                    "synthetic-small"])


def titles(fig: plt.Figure) -> list[str]:
    return [ax.get_title(loc="left") for ax in fig.axes]


def errorbars(ax: plt.Axes) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(label, x, y, ends) of every error bar set drawn in ``ax``: the points of its markers and, for each point,
    the two ends of its bar as ``[[x, y], [x, y]]``."""
    drawn = []
    for container in ax.containers:
        line, _, bars = container.lines
        drawn.append((container.get_label(), np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float),
                      np.array(bars[0].get_segments())))
    return drawn


def labelled(ax: plt.Axes, label: str):
    """The one line of ``ax`` with ``label``."""
    [line] = [line for line in ax.get_lines() if line.get_label() == label]
    return line


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


class LopsidedOrderings(OrderingStudy):
    """The small ordering study with the top of every interval moved up, so that an interval drawn upside down
    (its lower half above the mean) differs from the one summarised."""

    def summary(self):
        summary = super().summary()
        return summary.assign(ci_high=summary["ci_high"] + 0.002)


def test_the_orderings_figure_draws_each_orderings_mean_interval_and_bounds() -> None:
    ordering = LopsidedOrderings(**{f.name: getattr(orderings(), f.name) for f in fields(OrderingStudy)})
    fig = figures.orderings_figure(ordering, colours())
    summary = ordering.summary().set_index(["design", "system"])
    bounds = ordering.bounds.set_index("system")
    one = fig.axes[0]
    system_at = {t.get_position()[1]: t.get_text() for t in one.get_yticklabels()}  # the panels share their rows
    for ax, design in zip(fig.axes, (ordering.one_relevant, ALL_RELEVANT_DESIGN), strict=True):
        drawn = errorbars(ax)
        assert len(drawn) == len(system_at)
        for _, x, y, ends in drawn:  # a marker at the mean on the row of its system, the bar from ci_low to ci_high
            row = summary.loc[(design, system_at[y[0]])]
            assert list(x) == pytest.approx([row["mean"]])
            np.testing.assert_allclose(ends[0], [[row["ci_low"], y[0]], [row["ci_high"], y[0]]])
    bars = [line for line in one.get_lines() if line.get_linewidth() == 8]
    assert len(bars) == len(bounds)
    for line in bars:  # the closed-form bounds of each system, on its row
        b = bounds.loc[system_at[line.get_ydata()[0]]]
        assert list(line.get_xdata()) == pytest.approx([b["closed-form lower"], b["closed-form upper"]])
    star = labelled(one, "exact expectation")
    assert system_at[star.get_ydata()[0]] == "Popularity"
    assert list(star.get_xdata()) == pytest.approx([ordering.expected_popularity])
    assert list(labelled(one, r"random, $1/|T_u^r|$").get_xdata()) == pytest.approx([1 / ordering.target_size] * 2)


def hand_made_sweep():
    """A sweep over two skews with a chosen, different 1R precision for every system and skew (AR twice 1R), an
    interval not centred on the mean, an exact expectation apart from the measured mean, and a measured
    precision under counts in expectation apart from the exact-count one."""
    one = {s: {a: (0.01 * (k + 1) + 0.03 * a, 0.01 * (k + 1) + 0.03 * a - 0.002, 0.01 * (k + 1) + 0.03 * a + 0.005)
               for a in (0.0, 1.0)} for k, s in enumerate(study.sweep_systems())}
    hand = hand_sweep(one, ar_scale=2.0, uniform={study.IN_EXPECTATION: {"Popularity": 0.123}})
    expected = hand.expected.assign(**{"Popularity expected": hand.expected["Popularity"] + 0.004})
    return one, replace(hand, expected=expected)


def test_the_sweep_figures_draw_each_systems_precision_by_skew() -> None:
    one, hand = hand_made_sweep()
    fig = figures.sweep_figure(hand, colours())
    shares, one_panel = fig.axes
    for line, (alpha, curve) in zip(shares.get_lines(), hand.curves.groupby("alpha"), strict=True):
        assert line.get_label() == f"$\\alpha = {alpha:g}$"
        np.testing.assert_allclose(line.get_xdata(), curve["rank_share"])
        np.testing.assert_allclose(line.get_ydata(), curve["cumulative_share"])
    check = figures.sweep_check_figure(hand, colours())
    for ax, scale in ((one_panel, 1.0), (check.axes[0], 2.0)):  # 1R on the sweep figure, AR on the check
        assert {line.get_label() for line in ax.get_lines()} == set(one)
        for system, by_alpha in one.items():
            line = labelled(ax, system)
            assert list(line.get_xdata()) == [0.0, 1.0]
            assert list(line.get_ydata()) == pytest.approx([scale * by_alpha[a][0] for a in (0.0, 1.0)])
    ax = check.axes[1]
    [(_, x, y, ends)] = errorbars(ax)  # popularity measured, exact counts: mean and interval by skew
    exact = hand.expected[hand.expected["counts"] == study.EXACT].sort_values("alpha")
    assert list(x) == [0.0, 1.0] and list(y) == pytest.approx([one["Popularity"][a][0] for a in (0.0, 1.0)])
    np.testing.assert_allclose(ends, [[[a, one["Popularity"][a][1]], [a, one["Popularity"][a][2]]] for a in (0.0, 1.0)])
    line = labelled(ax, "exact expectation")
    assert list(line.get_xdata()) == [0.0, 1.0]
    assert list(line.get_ydata()) == pytest.approx(list(exact["Popularity expected"]))
    loose = labelled(ax, "counts in expectation")
    assert list(loose.get_xdata()) == [0.0] and list(loose.get_ydata()) == pytest.approx([0.123])
    assert list(labelled(ax, "random").get_ydata()) == pytest.approx([1 / hand.target_size] * 2)


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
    # the positive ratio of each popularity segment, along the popularity rank
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), curves()["rank_share"])
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), curves()["positive_ratio"])
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
    # every measure on both panels: popularity over random (left), over the personalised system (right)
    for ax, other in zip(fig.axes, ("Random", PERSONALISED), strict=True):
        ratio = study.truth.popularity_over(grid(), other)
        for measure in figures.MEASURE_STYLES:
            line = labelled(ax, f"{measure}, $\\alpha = 1$")
            assert list(line.get_xdata()) == [0.0, 2.0]
            assert list(line.get_ydata()) == pytest.approx(list(ratio.loc[1.0, measure]))
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


def test_the_mainstream_figure_draws_each_groups_mean_and_interval() -> None:
    table = mainstream().assign(ci_high=lambda t: t["ci_high"] + 0.002)  # intervals not centred on their means
    fig = figures.mainstream_figure(table, colours())
    for ax, measure in zip(fig.axes, ("measured", "true"), strict=True):
        drawn = errorbars(ax)
        assert [label for label, *_ in drawn] == ["Popularity", PERSONALISED]
        for system, x, y, ends in drawn:  # per fifth of users: the mean, the bar from ci_low to ci_high
            part = table[(table["measure"] == measure) & (table["system"] == system)]
            assert list(x) == list(part["group"]) and list(y) == pytest.approx(list(part["mean"]))
            np.testing.assert_allclose(ends, [[[g, lo], [g, hi]] for g, lo, hi in
                                              part[["group", "ci_low", "ci_high"]].itertuples(index=False)])


def test_the_overlap_check_sees_text_on_text() -> None:
    fig, ax = plt.subplots()
    ax.set_title("a title", loc="left")
    assert overlapping_texts(fig) == []
    ax.text(0.0, 1.0, "over the title", transform=ax.transAxes, va="bottom")
    with pytest.raises(AssertionError):
        assert overlapping_texts(fig) == []

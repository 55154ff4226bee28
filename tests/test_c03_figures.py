"""Chapter 3's figures render on a tiny input with their titles and labels, and no two texts collide."""

from __future__ import annotations


import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from figure_text import figure_theme, overlapping_texts  # noqa: F401
import pandas as pd
from c03_inputs import COLOURS, N, SIZES, SYSTEMS, check_frame, lift_frame, orders, statistics
from matplotlib.figure import Figure

from recbias.bookkit.plotting import dataset_caption
from recbias.chapters.c03_sparsity_bias import figures
from recbias.chapters.c03_sparsity_bias.study.sweeps import AR_REMOVAL, metric_names

pytestmark = pytest.mark.usefixtures("figure_theme")

matplotlib.use("Agg")


def legend_labels(fig: Figure) -> list[str]:
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [text.get_text() for legend in legends for text in legend.get_texts()]


def test_the_three_panels_of_fig_4() -> None:
    stats = statistics()
    ar = figures.ar_removal_figure(stats, SYSTEMS, COLOURS, N)
    dataset_caption(ar.axes[-1], "tiny")
    (ax,) = ar.axes
    assert ax.get_ylabel() == "AR P@10" and ax.get_xlabel().startswith("density of the test set")
    assert "10^{-2}" in ax.get_xlabel()  # densities up to 0.01 are shown in units of 10^-2
    assert legend_labels(ar) == SYSTEMS and overlapping_texts(ar) == []

    one_r = figures.one_r_removal_figure(stats, SYSTEMS, COLOURS, N)
    dataset_caption(one_r.axes[-1], "tiny")
    assert [ax.get_title(loc="left") for ax in one_r.axes] == ["TI-NN candidates", "AI-NN candidates"]
    assert one_r.axes[0].get_ylabel() == "1R P@10" and legend_labels(one_r) == SYSTEMS
    assert overlapping_texts(one_r) == []

    size = figures.size_figure(stats, SYSTEMS, COLOURS, N)
    dataset_caption(size.axes[-1], "tiny")
    (ax,) = size.axes
    assert ax.get_xlabel().startswith("size of the target sets") and ax.get_ylabel() == "1R P@10"
    assert list(ax.get_xticks()) == SIZES and sorted(legend_labels(size)) == sorted([*SYSTEMS, "$1/t$"])
    assert overlapping_texts(size) == []


def test_the_fitted_lines_of_the_ar_figure_follow_the_points() -> None:
    stats = statistics()
    (ax,) = figures.ar_removal_figure(stats, SYSTEMS, COLOURS, N).axes
    dotted = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert len(dotted) == len(SYSTEMS)
    # each system's metric is its quality (3, 2, 1) times the density: the dotted line has that slope
    slopes = sorted(np.polyfit(line.get_xdata(), line.get_ydata(), 1)[0] for line in dotted)
    assert slopes == pytest.approx([0.01, 0.02, 0.03], rel=0.05)  # x is in units of 10^-2


def test_metrics_figure_has_a_panel_per_metric() -> None:
    metrics = metric_names(N)
    fig = figures.metrics_figure(statistics(), SYSTEMS, metrics, COLOURS)
    dataset_caption(fig.axes[1], "tiny")
    assert [ax.get_title(loc="left") for ax in fig.axes] == metrics
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in fig.axes)
    assert [ax.get_xlabel() for ax in fig.axes[-2:]] == [r"$\delta_\mathrm{test}$ ($\times 10^{-2}$)"] * 2
    assert legend_labels(fig) == SYSTEMS and overlapping_texts(fig) == []
    five = figures.metrics_figure(statistics(), SYSTEMS, metrics[:5], COLOURS)
    assert [ax.get_visible() for ax in five.axes] == [True] * 5 + [False] and overlapping_texts(five) == []


@pytest.mark.parametrize("truth", [False, True])
def test_order_figure(truth: bool) -> None:
    fig = figures.order_figure(orders(truth))
    dataset_caption(fig.axes[0], "tiny")
    (ax,) = fig.axes
    assert ax.get_xlabel() == "test ratings removed" and ax.get_ylabel() == r"Kendall's $\tau$"
    assert [label.get_text() for label in ax.get_xticklabels()] == ["0%", "50%", "90%", "99%"]
    expected = ["AR, against the full test set", "1R, against the full test set"]
    if truth:
        expected = [expected[0], "AR, against the true order", expected[1], "1R, against the true order"]
    assert legend_labels(fig) == expected and overlapping_texts(fig) == []
    assert ax.get_ylim() == pytest.approx((-0.05, 1.05))  # zero is always shown
    wide = orders(truth)
    wide.at[2, "tau_ci"] = (-0.4, 1.0)
    assert figures.order_figure(wide).axes[0].get_ylim()[0] == pytest.approx(-0.45)  # the lowest interval shown


def test_check_figure() -> None:
    fig = figures.check_figure(check_frame(), N)
    dataset_caption(fig.axes[0], "tiny")
    (ax,) = fig.axes
    assert ax.get_xlabel() == "predicted random P@10 (closed form)" and ax.get_ylabel() == "measured random P@10"
    assert set(legend_labels(fig)) == {"AR, TI candidates", "AR, AI candidates", "1R, TI candidates",
                                       "1R, AI candidates", r"AR, closed form with all users in $|\mathcal{U}|$",
                                       "measured = predicted"}
    low, high = ax.get_xlim()
    # the axes run from the smallest value shown to the largest, with a margin; the zero measurement is left out
    assert low == pytest.approx(0.0015 / 1.5) and high == pytest.approx(0.011 * 1.5)
    assert overlapping_texts(fig) == []


def test_lift_figure() -> None:
    fig = figures.lift_figure(lift_frame(), COLOURS, N)
    top, bottom = fig.axes
    assert top.get_ylabel() == "P@10" and bottom.get_ylabel() == r"lift, P@10$\,/\,\rho$"
    assert [label.get_text() for label in bottom.get_xticklabels()] == ["a", "b", "a", "b"]  # AR first, then 1R
    assert {text.get_text().strip() for text in top.texts} == {"AR", "1R"}
    assert legend_labels(fig) == SYSTEMS and overlapping_texts(fig) == []


def test_plain_log_ticks_print_plain_numbers() -> None:
    fig, ax = plt.subplots()
    ax.set(yscale="log", ylim=(0.01, 1))
    figures.plain_log_ticks(ax.yaxis)
    fig.canvas.draw()
    labels = [label.get_text() for label in ax.get_yticklabels() if label.get_text()]
    assert {"0.01", "0.03", "0.1", "0.3", "1"} <= set(labels)  # 1-2-5 would be seven labels, more than five


def in_view(ax: plt.Axes) -> list[str]:
    low, high = ax.get_xlim()
    return [f"{tick:,.10g}" for tick in ax.get_xticks() if low <= tick <= high]


@pytest.mark.parametrize("low, expected", [(0.2, ["0.2", "0.5", "1"]), (0.05, ["0.05", "0.1", "0.2", "0.5", "1"]), (0.02, ["0.03", "0.1", "0.3", "1"]),
                                           (0.001, ["0.001", "0.01", "0.1", "1"]),
                                           (1e-7, ["1e-06", "0.0001", "0.01", "1"])])
def test_log_ticks_thin_out_to_at_most_five_as_the_range_grows(low: float, expected: list[str]) -> None:
    fig, ax = plt.subplots()
    ax.set(xscale="log", xlim=(low, 1))
    figures.plain_log_ticks(ax.xaxis)
    fig.canvas.draw()
    assert in_view(ax) == expected


def test_a_short_log_view_gets_every_integer_multiple_rather_than_no_label() -> None:
    fig, ax = plt.subplots()
    ax.set(xscale="log", xlim=(0.21, 0.45))  # neither 0.2 nor 0.5 in view
    figures.plain_log_ticks(ax.xaxis)
    fig.canvas.draw()
    shown = in_view(ax)
    assert {"0.3", "0.4"} <= set(shown) and len(shown) <= figures.MAX_LOG_TICKS


def test_metrics_figure_over_several_decades_has_no_crowded_labels() -> None:
    stats = statistics()
    ar = stats.levels.loc[stats.levels["sweep"] == AR_REMOVAL, "point"]
    decades = pd.Series(10.0 ** -np.arange(len(ar), dtype=float) * 0.05, index=ar.to_numpy())
    stats.density.loc[ar, :] = np.outer(decades, np.ones(stats.density.shape[1]))
    for frame in stats.metric.values():
        for system, quality in zip(SYSTEMS, (3.0, 2.0, 1.0), strict=True):
            frame.loc[[(p, system) for p in ar], :] = np.outer(quality * decades, np.ones(frame.shape[1]))
    fig = figures.metrics_figure(stats, SYSTEMS, metric_names(N), COLOURS)
    dataset_caption(fig.axes[1], "tiny")
    assert overlapping_texts(fig) == []
    assert all(len(in_view(ax)) <= figures.MAX_LOG_TICKS for ax in fig.axes)

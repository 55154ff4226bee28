"""Chapter 3's figures render on a tiny input with their titles and labels, and no two texts collide."""

from __future__ import annotations


import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from figure_text import figure_theme, overlapping_texts  # noqa: F401
import pandas as pd
from c03_inputs import COLOURS, N, SIZES, SYSTEMS, check_frame, lift_frame, orders, statistics
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from recbias.bookkit.plotting import dataset_caption
from recbias.chapters.c03_sparsity_bias import figures
from recbias.chapters.c03_sparsity_bias.study.fits import SweepStatistics
from recbias.chapters.c03_sparsity_bias.study.sweeps import (AR_REMOVAL, FIT_MAX_REMOVED, ONE_R_AI_REMOVAL,
                                                             ONE_R_REMOVAL, ONE_R_SIZE, metric_names)
from recbias.chapters.c03_sparsity_bias.study.theory_check import BAND
from recbias.evaluate import percentile_interval

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


# The plotted data: every mark is checked against the statistics it is drawn from.

def distinct(stats: SweepStatistics) -> SweepStatistics:
    """``stats`` with every metric scaled by its own factor and the AI-NN removal sweep halved, so that a panel
    that drew another metric or the other sweep would show other values."""
    ai = stats.levels.loc[stats.levels["sweep"] == ONE_R_AI_REMOVAL, "point"]
    for k, name in enumerate(list(stats.metric)):
        frame = stats.metric[name] * (k + 1)
        frame.loc[frame.index.get_level_values("point").isin(ai)] *= 0.5
        stats.metric[name] = frame
    return stats


def errorbars(ax: plt.Axes) -> dict[str, tuple[np.ndarray, ...]]:
    """x, y, bar bottoms and bar tops of every error-bar series of ``ax``, by label."""
    found = {}
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            line, _, (bars, *_) = container.lines
            segments = np.array(bars.get_segments())
            found[container.get_label()] = (np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float),
                                            segments[:, :, 1].min(axis=1), segments[:, :, 1].max(axis=1))
    return found


def expected_removal(stats: SweepStatistics, sweep: str, system: str, metric: str = f"P@{N}") -> pd.DataFrame:
    """Density, mean and 95% interval of ``metric`` for ``system`` at each level of ``sweep``, from the table."""
    part = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
    draws = stats.metric[metric].xs(system, level="system").loc[part["point"]].to_numpy()
    low, high = percentile_interval(draws[:, 1:], axis=1)
    return pd.DataFrame({"x": part["x"].to_numpy(), "density": stats.density.loc[part["point"], 0].to_numpy(),
                         "mean": draws[:, 0], "low": low, "high": high})


def assert_removal_panel(ax: plt.Axes, stats: SweepStatistics, sweep: str, unit: float) -> None:
    bars = errorbars(ax)
    assert list(bars) == SYSTEMS
    for system in SYSTEMS:
        want = expected_removal(stats, sweep, system)
        fitted = want[want["x"] <= FIT_MAX_REMOVED]
        x, y, low, high = bars[system]
        np.testing.assert_allclose(x, fitted["density"] / unit)
        np.testing.assert_allclose(y, fitted["mean"])
        np.testing.assert_allclose(low, fitted["low"])
        np.testing.assert_allclose(high, fitted["high"])
        beyond = want[want["x"] > FIT_MAX_REMOVED]
        hollow = [line for line in ax.get_lines() if line.get_markerfacecolor() == "white"
                  and line.get_color() == COLOURS[system]]
        assert len(hollow) == 1 and len(beyond) == 1
        np.testing.assert_allclose(hollow[0].get_xydata(), np.c_[beyond["density"] / unit, beyond["mean"]])


def test_the_ar_figure_plots_each_systems_means_and_intervals_against_the_density() -> None:
    stats = distinct(statistics())
    (ax,) = figures.ar_removal_figure(stats, SYSTEMS, COLOURS, N).axes
    assert_removal_panel(ax, stats, AR_REMOVAL, unit=0.01)


def test_the_one_r_figure_plots_the_ti_sweep_left_and_the_ai_sweep_right() -> None:
    stats = distinct(statistics())
    left, right = figures.one_r_removal_figure(stats, SYSTEMS, COLOURS, N).axes
    assert_removal_panel(left, stats, ONE_R_REMOVAL, unit=0.01)
    assert_removal_panel(right, stats, ONE_R_AI_REMOVAL, unit=0.01)


def test_the_size_figure_plots_each_systems_means_intervals_and_power_law_against_the_size() -> None:
    stats = distinct(statistics())
    (ax,) = figures.size_figure(stats, SYSTEMS, COLOURS, N).axes
    bars = errorbars(ax)
    assert list(bars) == SYSTEMS
    solid = [line for line in ax.get_lines() if line.get_linestyle() == "-" and line.get_label().startswith("_")]
    solid = [line for line in solid if len(line.get_xdata()) == len(SIZES) and line.get_marker() in ("None", "")]
    assert len(solid) == len(SYSTEMS)
    for system, fit in zip(SYSTEMS, solid, strict=True):
        want = expected_removal(stats, ONE_R_SIZE, system)
        x, y, low, high = bars[system]
        np.testing.assert_allclose(x, SIZES)
        np.testing.assert_allclose(y, want["mean"])
        np.testing.assert_allclose(low, want["low"])
        np.testing.assert_allclose(high, want["high"])
        assert fit.get_color() == COLOURS[system]
        np.testing.assert_allclose(fit.get_xdata(), SIZES)
        np.testing.assert_allclose(fit.get_ydata(), want["mean"], rtol=1e-6)  # the means follow t^-0.5 exactly
    (one_over_t,) = [line for line in ax.get_lines() if line.get_label() == "$1/t$"]
    np.testing.assert_allclose(one_over_t.get_xydata(), np.c_[SIZES, 1 / np.array(SIZES, float)])


def test_the_metrics_figure_plots_each_metric_in_its_own_panel() -> None:
    stats = distinct(statistics())
    metrics = metric_names(N)
    fig = figures.metrics_figure(stats, SYSTEMS, metrics, COLOURS)
    for ax, metric in zip(fig.axes, metrics, strict=True):
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert list(lines) == SYSTEMS
        for system in SYSTEMS:
            want = expected_removal(stats, AR_REMOVAL, system, metric)
            want = want[want["x"] <= FIT_MAX_REMOVED]
            np.testing.assert_allclose(lines[system].get_xdata(), want["density"] / 0.01)
            np.testing.assert_allclose(lines[system].get_ydata(), want["mean"])


@pytest.mark.parametrize("truth", [False, True])
def test_the_order_figure_plots_tau_and_its_band_at_each_level(truth: bool) -> None:
    table = orders(truth)
    (ax,) = figures.order_figure(table).axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    bands = ax.collections
    assert len(bands) == 2
    for sweep, band, shift in zip((AR_REMOVAL, ONE_R_REMOVAL), bands, (-0.06, 0.06), strict=True):
        part = table[table["sweep"] == sweep].sort_values("x")
        name = sweep.split(",")[0]
        xs = np.arange(len(part)) + shift
        np.testing.assert_allclose(lines[f"{name}, against the full test set"].get_xydata(), np.c_[xs, part["tau"]])
        if truth:
            np.testing.assert_allclose(lines[f"{name}, against the true order"].get_xydata(),
                                       np.c_[xs, part["tau_truth"]])
        vertices = band.get_paths()[0].vertices
        for x, (low, high) in zip(xs, part["tau_ci"], strict=True):
            at = vertices[np.isclose(vertices[:, 0], x), 1]
            assert (at.min(), at.max()) == pytest.approx((low, high))


def test_the_check_figure_plots_measured_against_predicted_with_simulation_bars() -> None:
    check = check_frame()
    check.loc[1, "sd"] = 0.0006  # AI-AN's bar reaches below the axis (0.0018 - 1.96 * 0.0006 < 0.001): it is cut
    (ax,) = figures.check_figure(check, N).axes
    bars = errorbars(ax)
    shown = check[check["measured"] > 0]
    low_limit = ax.get_xlim()[0]
    for label, design in (("AR, TI candidates", "TI-AN"), ("AR, AI candidates", "AI-AN"),
                          ("1R, TI candidates", "1R TI-NN(99)"), ("1R, AI candidates", "1R AI-NN(99)")):
        row = shown[shown["design"] == design]
        error = BAND * row["sd"].to_numpy()
        x, y, low, high = bars[label]
        np.testing.assert_allclose(x, row["theory"])
        np.testing.assert_allclose(y, row["measured"])
        np.testing.assert_allclose(high, row["measured"] + error)
        np.testing.assert_allclose(low, row["measured"] - np.minimum(error, row["measured"] - low_limit))
        if design == "AI-AN":
            assert low == pytest.approx(low_limit) and low_limit == pytest.approx(0.0015 / 1.5)
    (diamonds,) = ax.collections[-1:]
    ar = shown[shown["kind"] == "AR"]
    np.testing.assert_allclose(diamonds.get_offsets(), ar[["eq4_all_users", "measured"]].to_numpy())


def test_the_lift_figure_plots_p_on_top_and_the_lift_below_for_each_configuration() -> None:
    lift = lift_frame()
    fig = figures.lift_figure(lift, COLOURS, N)
    configurations = [("a", "TI-AN"), ("b", "TI-AN"), ("a", "1R TI-NN(99)"), ("b", "1R TI-NN(99)")]
    table = lift.set_index(["dataset", "design", "system"])
    for ax, column in zip(fig.axes, ("P", "lift"), strict=True):
        bars = errorbars(ax)
        assert list(bars) == SYSTEMS
        offsets = []
        for system in SYSTEMS:
            rows = table.xs(system, level="system").loc[configurations]
            x, y, low, high = bars[system]
            offsets.append(x - np.arange(len(configurations)))
            np.testing.assert_allclose(y, rows[column])
            np.testing.assert_allclose(low, [ci[0] for ci in rows[f"{column}_ci"]])
            np.testing.assert_allclose(high, [ci[1] for ci in rows[f"{column}_ci"]])
        assert np.allclose(offsets, np.linspace(-0.24, 0.24, len(SYSTEMS))[:, None])  # side by side at each one

"""The figures of chapter 3 in the book's theme, each sized for the page's text column (the page passes the colours
of the systems and stamps the dataset).  The papers' Fig. 4 becomes one figure per sweep (:func:`ar_removal_figure`,
:func:`one_r_removal_figure`, :func:`size_figure`); the theory check, the other metrics, the order of systems and
the lift over random have one each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from recbias.chapters.c03_sparsity_bias.study.fits import SweepStatistics, line_fit
from recbias.chapters.c03_sparsity_bias.study.lift import is_one_r, ordered
from recbias.chapters.c03_sparsity_bias.study.sweeps import (AR_REMOVAL, FIT_MAX_REMOVED, ONE_R_AI_REMOVAL,
                                                             ONE_R_REMOVAL, ONE_R_SIZE)
from recbias.chapters.c03_sparsity_bias.study.theory_check import BAND
from recbias.evaluate import percentile_interval
from recbias.text import fmt_pct

#: label of the density axis, before its power-of-ten unit
DENSITY_LABEL = r"density of the test set, $\delta_\mathrm{test}$"
#: the most labelled ticks a log axis of a small panel gets
MAX_LOG_TICKS = 5


class SparseLogLocator(LogLocator):
    """Ticks at 1, 2 and 5 times the powers of ten, thinned to 1 and 3, to the powers of ten, then to every other
    power until at most ``max_ticks`` lie in the view; on a view too short for two 1-2-5 ticks, every multiple."""

    def __init__(self, max_ticks: int = MAX_LOG_TICKS) -> None:
        super().__init__(subs=(1.0, 2.0, 5.0))
        self.max_ticks = max_ticks

    def tick_values(self, vmin: float, vmax: float) -> np.ndarray:
        low, high = sorted((vmin, vmax))
        for subs in ((1.0, 2.0, 5.0), (1.0, 3.0), (1.0,)):
            ticks = LogLocator(subs=subs, numticks=1000).tick_values(low, high)
            shown = np.count_nonzero((ticks >= low) & (ticks <= high))
            if shown < 2 and subs == (1.0, 2.0, 5.0):
                return LogLocator(subs=np.arange(1.0, 10.0), numticks=1000).tick_values(low, high)
            if shown <= self.max_ticks:
                return ticks
        return LogLocator(subs=(1.0,), numticks=self.max_ticks).tick_values(low, high)


def plain_log_ticks(axis: Axis, max_ticks: int = MAX_LOG_TICKS) -> None:
    """At most ``max_ticks`` ticks of a log-scaled ``axis`` (:class:`SparseLogLocator`), labelled as plain numbers
    (``0.02``, not ``2 × 10⁻²``)."""
    axis.set_major_locator(SparseLogLocator(max_ticks))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.10g}"))
    axis.set_minor_formatter(NullFormatter())


def _density_unit(ax: plt.Axes, densities: np.ndarray) -> float:
    """Label the x axis with the density in units of ``10^-k`` (k from the largest density), so that tick
    labels stay short; returns the unit to divide the densities by."""
    top = float(np.nanmax(densities)) if np.size(densities) else 1.0
    power = int(np.floor(np.log10(top))) if top > 0 else 0
    ax.set_xlabel(DENSITY_LABEL + (rf" ($\times 10^{{{power}}}$)" if power else ""))
    return 10.0**power


def _removal_series(stats: SweepStatistics, sweep: str, system: str, metric: str) -> tuple[np.ndarray, ...]:
    """Density, mean and 95% interval of ``metric`` for ``system`` at every level of a removal sweep, and
    whether the level is fitted (removed share up to :data:`FIT_MAX_REMOVED`)."""
    part = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
    density = stats.density.reindex(part["point"])[0].to_numpy()
    values = stats.metric[metric].xs(system, level="system").reindex(part["point"]).to_numpy()
    low, high = percentile_interval(values[:, 1:], axis=1)
    return density, values[:, 0], low, high, part["x"].to_numpy() <= FIT_MAX_REMOVED


def _removal_panel(ax: plt.Axes, stats: SweepStatistics, sweep: str, systems: Sequence[str],
                   colours: Mapping[str, str], metric: str, unit: float, fit_lines: bool) -> None:
    """``metric`` of every system along one removal sweep against the density, with bootstrap bars; hollow
    markers beyond :data:`FIT_MAX_REMOVED`; dotted fitted lines when asked."""
    for system in systems:
        density, mean, low, high, fitted = _removal_series(stats, sweep, system, metric)
        x = density / unit
        ax.errorbar(x[fitted], mean[fitted], yerr=[mean[fitted] - low[fitted], high[fitted] - mean[fitted]],
                    fmt="o-", ms=5, lw=1.5, capsize=2, color=colours[system], label=system)
        ax.plot(x[~fitted], mean[~fitted], "o", ms=6, mfc="white", color=colours[system])
        if fit_lines and fitted.sum() >= 3:
            slope, intercept, _ = line_fit(x[fitted], mean[fitted])
            xs = np.linspace(0, x[fitted].max(), 20)
            ax.plot(xs, intercept + slope * xs, color=colours[system], lw=1.1, ls=":")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)


def ar_removal_figure(stats: SweepStatistics, systems: Sequence[str], colours: Mapping[str, str], n: int) -> Figure:
    """The papers' Fig. 4 (left): AR P@n against the density of the thinned test set, with the fitted lines
    (dotted); hollow markers: levels beyond :data:`FIT_MAX_REMOVED`, not fitted; bars: 95% bootstrap intervals."""
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    unit = _density_unit(ax, stats.density.reindex(stats.levels.loc[stats.levels["sweep"] == AR_REMOVAL, "point"])[0])
    _removal_panel(ax, stats, AR_REMOVAL, systems, colours, f"P@{n}", unit, fit_lines=True)
    ax.set_ylabel(f"AR P@{n}")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def one_r_removal_figure(stats: SweepStatistics, systems: Sequence[str], colours: Mapping[str, str], n: int) -> Figure:
    """The papers' Fig. 4 (centre): 1R P@n over the same removals, with TI-NN candidates (left, the papers'
    design) and AI-NN candidates (right), on one scale."""
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 4.0), sharey=True)
    points = stats.levels.loc[stats.levels["sweep"].isin([ONE_R_REMOVAL, ONE_R_AI_REMOVAL]), "point"]
    densities = stats.density.reindex(points)[0].to_numpy()
    for ax, sweep, title in ((axes[0], ONE_R_REMOVAL, "TI-NN candidates"), (axes[1], ONE_R_AI_REMOVAL,
                                                                               "AI-NN candidates")):
        unit = _density_unit(ax, densities)
        ax.set_xlabel(ax.get_xlabel().replace("density of the test set, ", ""))
        _removal_panel(ax, stats, sweep, systems, colours, f"P@{n}", unit, fit_lines=False)
        ax.set_title(title, loc="left")
    axes[0].set_ylabel(f"1R P@{n}")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), handletextpad=0.3, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def size_figure(stats: SweepStatistics, systems: Sequence[str], colours: Mapping[str, str], n: int) -> Figure:
    """The papers' Fig. 4 (right): 1R P@n against the size t of the target sets, log-log, with fitted power
    laws and Eq. 5's ``1 / t`` (dashed); bars: 95% bootstrap intervals."""
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    part = stats.levels[stats.levels["sweep"] == ONE_R_SIZE].sort_values("x")
    sizes = part["x"].to_numpy()
    for system in systems if len(sizes) else []:
        values = stats.metric[f"P@{n}"].xs(system, level="system").reindex(part["point"]).to_numpy()
        low, high = percentile_interval(values[:, 1:], axis=1)
        ax.errorbar(sizes, values[:, 0], yerr=[values[:, 0] - low, high - values[:, 0]], fmt="o", ms=5, capsize=2,
                    color=colours[system], label=system)
        if len(sizes) >= 3 and np.all(values[:, 0] > 0):
            exponent, intercept, _ = line_fit(np.log(sizes), np.log(values[:, 0]))
            ax.plot(sizes, np.exp(intercept) * sizes**exponent, color=colours[system], lw=1.3)
    if len(sizes):
        ax.plot(sizes, 1.0 / sizes, color="#444444", lw=1.2, ls="--", label="$1/t$")
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.set(xscale="log", yscale="log", xlabel=r"size of the target sets, $t = |T_u|$", ylabel=f"1R P@{n}")
    plain_log_ticks(ax.yaxis)
    if len(sizes):
        ax.set_xticks(sizes)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    fig.tight_layout()
    return fig


def metrics_figure(stats: SweepStatistics, systems: Sequence[str], metrics: Sequence[str],
                   colours: Mapping[str, str]) -> Figure:
    """Every metric along the AR removal sweep against the density, log-log, one panel per metric."""
    rows = (len(metrics) + 1) // 2
    fig, axes = plt.subplots(rows, 2, figsize=(7.2, 2.5 * rows + 0.6), sharex=True)
    part = stats.levels[(stats.levels["sweep"] == AR_REMOVAL) & (stats.levels["x"] <= FIT_MAX_REMOVED)].sort_values("x")
    density = stats.density.reindex(part["point"])[0].to_numpy()
    unit = 10.0 ** int(np.floor(np.log10(density.max())))
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        for system in systems:
            values = stats.metric[metric].xs(system, level="system").reindex(part["point"])[0].to_numpy()
            ax.plot(density / unit, values, "o-", ms=4, lw=1.5, color=colours[system], label=system)
        ax.set(xscale="log", yscale="log")
        plain_log_ticks(ax.xaxis)
        plain_log_ticks(ax.yaxis)
        ax.set_title(metric, loc="left")
    for ax in axes[-1]:
        ax.set_xlabel(rf"$\delta_\mathrm{{test}}$ ($\times 10^{{{int(np.log10(unit))}}}$)")
    for ax in axes.ravel()[len(metrics):]:
        ax.set_visible(False)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), handletextpad=0.3, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / (2.5 * rows + 0.6)))
    return fig


def order_figure(orders: pd.DataFrame) -> Figure:
    """Kendall's tau against the full test set's order (solid) and the true order (dashed) at each removal level, AR
    and 1R (shifted a little to the right, so that equal values stay visible), with 95% bootstrap bands."""
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for (sweep, colour), shift in zip(((AR_REMOVAL, "#1f77b4"), (ONE_R_REMOVAL, "#d62728")), (-0.06, 0.06),
                                      strict=True):
        part = orders[orders["sweep"] == sweep].sort_values("x")
        if not len(part):
            continue
        label = sweep.split(",")[0]
        xs = np.arange(len(part)) + shift
        low, high = zip(*part["tau_ci"], strict=True)
        ax.fill_between(xs, low, high, color=colour, alpha=0.15, lw=0)
        ax.plot(xs, part["tau"], "o-", color=colour, label=f"{label}, against the full test set")
        if part["tau_truth"].notna().any():
            ax.plot(xs, part["tau_truth"], "s--", color=colour, ms=5, label=f"{label}, against the true order")
        ax.set_xticks(np.arange(len(part)), [fmt_pct(x, 0) for x in part["x"]])
    bottom = min(float(np.nanmin([low for low, _ in orders["tau_ci"]])), 0.0)
    ax.set(xlabel="test ratings removed", ylabel=r"Kendall's $\tau$", ylim=(bottom - 0.05, 1.05))
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


def check_figure(check: pd.DataFrame, n: int) -> Figure:
    """Measured random P@n against Eq. 4 (AR) and Eq. 5 (1R), log-log, with 95% simulation bars (cut at the axis)
    and the identity line; grey diamonds: Eq. 4 with every user who has a rating in place of those averaged."""
    fig, ax = plt.subplots(figsize=(7.2, 6.6))
    shown = check[check["measured"] > 0]
    ar = shown[shown["kind"] == "AR"]
    values = np.concatenate([shown["theory"], shown["measured"], ar["eq4_all_users"]])
    low, high = values[values > 0].min() / 1.5, values.max() * 1.5
    styles = {"AR": ("#1f77b4", "o"), "1R": ("#d62728", "s")}
    for (kind, candidates), part in shown.groupby([shown["kind"], shown["design"].str.contains("AI")], sort=False):
        colour, marker = styles[kind]
        error = BAND * part["sd"]
        below = np.minimum(error, part["measured"] - low)
        ax.errorbar(part["theory"], part["measured"], yerr=[below, error], fmt=marker, ms=6, color=colour,
                    mfc="white" if candidates else colour, elinewidth=1, alpha=0.85,
                    label=f"{kind}, {'AI' if candidates else 'TI'} candidates")
    if len(ar):
        ax.scatter(ar["eq4_all_users"], ar["measured"], marker="D", s=26, facecolors="none", edgecolors="#555555",
                   linewidths=0.9, label=r"AR, closed form with all users in $|\mathcal{U}|$")
    ax.plot([low, high], [low, high], color="#444444", lw=1, ls="--", label="measured = predicted")
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high),
           xlabel=f"predicted random P@{n} (closed form)", ylabel=f"measured random P@{n}")
    plain_log_ticks(ax.xaxis)
    plain_log_ticks(ax.yaxis)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, handletextpad=0.3, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    return fig


def lift_figure(lift: pd.DataFrame, colours: Mapping[str, str], n: int) -> Figure:
    """P@n (top) and lift over random (bottom) of each system on each dataset, AR left of the dotted line, 1R right."""
    rows = ordered(lift)
    configurations = list(dict.fromkeys(zip(rows["dataset"], rows["design"], strict=True)))
    fig, axes = plt.subplots(2, 1, figsize=(7.2, 6.8), sharex=True)
    xs = np.arange(len(configurations))
    offsets = np.linspace(-0.24, 0.24, lift["system"].nunique())
    for offset, (system, part) in zip(offsets, rows.groupby("system", sort=False), strict=True):
        part = part.set_index(["dataset", "design"]).reindex(configurations)
        for ax, column in zip(axes, ("P", "lift"), strict=True):
            low, high = np.array(part[f"{column}_ci"].tolist()).T
            ax.errorbar(xs + offset, part[column], yerr=[part[column] - low, high - part[column]], fmt="o",
                        color=colours[system], label=system, ms=5, elinewidth=1)
    split = int((~is_one_r(rows["design"])).sum() / lift["system"].nunique()) - 0.5
    for ax, label in zip(axes, (f"P@{n}", rf"lift, P@{n}$\,/\,\rho$"), strict=True):
        ax.set(yscale="log", ylabel=label)
        plain_log_ticks(ax.yaxis)
        ax.axvline(split, color="#888888", ls=":", lw=1.2)
    axes[0].text(split - 0.1, 1.0, "AR ", transform=axes[0].get_xaxis_transform(), ha="right", va="bottom")
    axes[0].text(split + 0.1, 1.0, " 1R", transform=axes[0].get_xaxis_transform(), ha="left", va="bottom")
    axes[1].set_xticks(xs, [d for d, _ in configurations], rotation=30, ha="right")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(labels), loc="upper center", handletextpad=0.3, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig

"""Chapter 4's figures: the orderings against their bounds, the preference-free sweep (IRJ 2017 Fig. 5), positive
ratings along popularity (Fig. 7), measured against true precision, and per-user precision by mainstream group."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import cm
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from recbias.chapters.c04_popularity_bias.study.orderings import OrderingStudy
from recbias.chapters.c04_popularity_bias.study.setup import ALL_RELEVANT_DESIGN, N, PERSONALISED
from recbias.chapters.c04_popularity_bias.study.skew import EXACT, IN_EXPECTATION, TOP_N_LEARNERS, SkewSweep
from recbias.chapters.c04_popularity_bias.study.truth import popularity_over

#: line style of each measure of the measured-vs-true grid
MEASURE_STYLES = {"1R": {"color": "#d62728", "marker": "o"}, "AR": {"color": "#ff9896", "marker": "s"},
                  "true": {"color": "#222222", "marker": "D"}}


def _orderings_panel(ax: plt.Axes, study: OrderingStudy, design: str, colours: Mapping[str, str]) -> None:
    """Mean P@10 with 95% intervals of every ordering; in 1R also the bounds, expectation and ``1 / |T_u^r|``."""
    summary = study.summary()
    rows = summary[summary["design"] == design].reset_index(drop=True)
    bounds = study.bounds.set_index("system")
    one_relevant = design == study.one_relevant
    y = np.arange(len(rows))[::-1]
    for k, row in rows.iterrows():
        colour = colours[row["system"]]
        if one_relevant:
            b = bounds.loc[row["system"]]
            ax.plot([b["closed-form lower"], b["closed-form upper"]], [y[k]] * 2, color=colour, lw=8, alpha=0.25,
                    solid_capstyle="butt", label="closed-form bounds" if k == 0 else None)
        ax.errorbar(row["mean"], y[k], xerr=[[row["mean"] - row["ci_low"]], [row["ci_high"] - row["mean"]]],
                    fmt="o", color=colour, ms=6, capsize=3, label="measured, 95% interval" if k == 0 else None)
    if one_relevant:
        ax.plot(study.expected_popularity, y[list(rows["system"]).index("Popularity")], marker="*", ms=13,
                color="black", ls="none", label="exact expectation")
        ax.axvline(1 / study.target_size, color="#999999", lw=1, ls=":", label=r"random, $1/|T_u^r|$")
    ax.set_yticks(y, rows["system"])
    ax.set_xlim(left=0)
    ax.xaxis.set_major_locator(MaxNLocator(4))
    ax.set_title(f"1R, $|T_u^r| = {study.target_size}$" if one_relevant else f"AR ({design})", loc="left")
    ax.set_xlabel(f"P@{N}")


def orderings_figure(study: OrderingStudy, colours: Mapping[str, str]) -> plt.Figure:
    """Mean P@10 with 95% intervals of every ordering in 1R (with bounds and expectations) and AR."""
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 4.2), sharey=True)
    for ax, design in zip(axes, (study.one_relevant, ALL_RELEVANT_DESIGN), strict=True):
        _orderings_panel(ax, study, design, colours)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=2, handletextpad=0.4)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


def _systems_panel(ax: plt.Axes, sweep: SkewSweep, design: str, colours: Mapping[str, str]) -> None:
    """P@n of every system against ``alpha``: the papers' set solid, top-N learners dotted, mean rating dashed."""
    for system in sweep.precision["system"].unique():
        mean = sweep.series(system, design=design)
        style = "--" if system == "Mean rating" else ":" if system in TOP_N_LEARNERS else "-"
        ax.plot(mean.index, mean.to_numpy(), marker="o", ms=5, lw=1.6, ls=style, color=colours[system],
                label=system)
    ax.set(xlabel=r"skew $\alpha$", ylabel=f"P@{N}")
    ax.set_ylim(bottom=0)


def sweep_figure(sweep: SkewSweep, colours: Mapping[str, str]) -> plt.Figure:
    """IRJ 2017 Fig. 5, left and centre: cumulative share of ratings by popularity rank, and 1R P@n against alpha."""
    fig, (shares, one) = plt.subplots(1, 2, figsize=(7.2, 4.4))
    shade = cm.viridis(np.linspace(0.0, 0.9, len(sweep.alphas)))
    for colour, (alpha, curve) in zip(shade, sweep.curves.groupby("alpha"), strict=True):
        shares.plot(curve["rank_share"], curve["cumulative_share"], color=colour, lw=1.8,
                    label=f"$\\alpha = {alpha:g}$")
    shares.set(xlabel="items by popularity rank", ylabel="share of all ratings", xlim=(0, 1), ylim=(0, 1.01))
    shares.legend(loc="lower right")
    shares.set_title("Popularity of the worlds", loc="left")
    _systems_panel(one, sweep, sweep.one_relevant, colours)
    one.set_title("1R", loc="left")
    fig.legend(*one.get_legend_handles_labels(), loc="lower center", ncol=3, handletextpad=0.4, columnspacing=1.2)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


def _expectation_panel(ax: plt.Axes, sweep: SkewSweep, colours: Mapping[str, str]) -> None:
    """Popularity's 1R precision with its interval against the exact expectation (hollow: counts in expectation)."""
    expected = sweep.expected
    exact = expected[expected["counts"] == EXACT].sort_values("alpha")
    ax.errorbar(exact["alpha"], exact["Popularity"], yerr=[exact["Popularity"] - exact["Popularity low"],
                exact["Popularity high"] - exact["Popularity"]], fmt="o", ms=6, color=colours["Popularity"],
                capsize=3, label="measured")
    ax.plot(exact["alpha"], exact["Popularity expected"], color="black", lw=1.2, label="exact expectation")
    loose = expected[expected["counts"] == IN_EXPECTATION]
    ax.plot(loose["alpha"], loose["Popularity"], marker="o", ms=7, mfc="white", color=colours["Popularity"],
            ls="none", label="counts in expectation")
    ax.axhline(1 / sweep.target_size, color=colours["Random"], lw=1.2, ls=":", label="random")
    ax.set(xlabel=r"skew $\alpha$", ylabel=f"popularity, 1R P@{N}")
    ax.set_ylim(bottom=0)
    ax.set_title("Popularity, 1R", loc="left")
    ax.legend(loc="upper left")


def sweep_check_figure(sweep: SkewSweep, colours: Mapping[str, str]) -> plt.Figure:
    """The sweep in AR (left, when it was run) and popularity's 1R precision against its expectation (right)."""
    panels = 2 if sweep.all_relevant is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(7.2 if panels == 2 else 4.8, 4.4), squeeze=False)
    if panels == 2:
        _systems_panel(axes[0, 0], sweep, sweep.all_relevant, colours)
        axes[0, 0].set_title("AR", loc="left")
    _expectation_panel(axes[0, -1], sweep, colours)
    fig.tight_layout()
    return fig


def ratio_figure(curves: pd.DataFrame, colours: Mapping[str, str], here: str) -> plt.Figure:
    """IRJ 2017 Fig. 7 on every dataset: positive ratio against popularity rank, 100 segments."""
    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    for name, curve in curves.groupby("dataset", sort=False):
        ax.plot(curve["rank_share"], curve["positive_ratio"], color=colours[name], lw=2.8 if name == here else 1.4,
                label=f"{name} (this page)" if name == here else name, zorder=3 if name == here else 2)
    ax.set(xlabel="items by popularity rank, most rated first", ylabel=r"$|PR(i)| \,/\, |R(i)|$", xlim=(0, 1),
           ylim=(0, 1.02))
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=3, handletextpad=0.4, columnspacing=1.2)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


def _log_ticks(ax: plt.Axes) -> None:
    """A log y axis with ticks at 1, 2 and 5 times powers of ten, printed plainly."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def truth_figure(grid: pd.DataFrame) -> plt.Figure:
    """Popularity over random (log scale) and over the personalised system, measured and true, by observation bias."""
    ratios = {"popularity / random": popularity_over(grid, "Random"),
              f"popularity / {PERSONALISED}": popularity_over(grid, PERSONALISED)}
    alphas = sorted(grid["alpha"].unique())
    dashes = dict(zip(alphas, ["-", "--", ":", "-."] * len(alphas)))
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 4.2 + 0.3 * len(dashes)))
    for ax, (label, ratio) in zip(axes, ratios.items(), strict=True):
        for measure, style in MEASURE_STYLES.items():  # legend columns by measure, rows by alpha
            for alpha, line in dashes.items():
                part = ratio.loc[alpha, measure]
                ax.plot(part.index, part.to_numpy(), ls=line, ms=5, lw=1.6, **style,
                        label=f"{measure}, $\\alpha = {alpha:g}$")
        ax.set(xlabel="observation bias", ylabel=label)
    _log_ticks(axes[0])
    axes[1].axhline(1, color="#999999", lw=1, ls=":")
    axes[1].set_ylim(bottom=0)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=len(MEASURE_STYLES), handletextpad=0.4,
               columnspacing=1.2)
    fig.tight_layout(rect=(0, 0.05 + 0.06 * len(dashes), 1, 1))
    return fig


def mainstream_figure(table: pd.DataFrame, colours: Mapping[str, str]) -> plt.Figure:
    """Per-user P@10 of popularity and the personalised system by mainstream group, measured (and true)."""
    measures = list(dict.fromkeys(table["measure"]))
    fig, axes = plt.subplots(1, len(measures), figsize=(7.2 if len(measures) > 1 else 4.8, 4.4), squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        for system, part in table[table["measure"] == measure].groupby("system", sort=False):
            spread = [part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]]
            ax.errorbar(part["group"], part["mean"], yerr=spread, marker="o", ms=5, lw=1.6, capsize=3,
                        color=colours[system], label=system)
        ax.set(xlabel="fifths of users, least to\nmost mainstream", ylabel=f"P@{N} per user, mean",
               xticks=sorted(table["group"].unique()))
        ax.set_ylim(bottom=0)
        ax.set_title("Measured (AR)" if measure == "measured" else "True", loc="left")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig

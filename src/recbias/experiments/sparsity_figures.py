"""Chapter 3 ("The test-sparsity bias"): the figures of the sweeps, drawn from their bootstrap statistics.

Each function returns a matplotlib Figure (imported lazily, so the evaluation core never needs
it); the page passes the book's colours of the systems and stamps the dataset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias.evaluate import percentile_interval
from recbias.experiments.sparsity_fits import SweepStatistics, line_fit
from recbias.experiments.sparsity_sweep import AR_REMOVAL, FIT_MAX_REMOVED, ONE_R_AI_REMOVAL, ONE_R_REMOVAL, ONE_R_SIZE
from recbias.text import fmt_pct

def _sweep_panel(ax, stats: SweepStatistics, sweep: str, systems: Sequence[str], colours: Mapping[str, str],
                 n: int, fit_lines: bool) -> None:
    """P@n of every system along one removal sweep against the density, with bootstrap bars; hollow markers
    beyond :data:`FIT_MAX_REMOVED`; dotted fitted lines when asked."""
    import matplotlib.pyplot as plt

    part = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
    density = stats.density.reindex(part["point"])[0].to_numpy()
    fitted = part["x"].to_numpy() <= FIT_MAX_REMOVED
    for system in systems:
        values = stats.metric[f"P@{n}"].xs(system, level="system").reindex(part["point"]).to_numpy()
        low, high = percentile_interval(values[:, 1:], axis=1)
        ax.errorbar(density[fitted], values[fitted, 0], yerr=[values[fitted, 0] - low[fitted],
                    high[fitted] - values[fitted, 0]], fmt="o-", ms=4, lw=1.3, color=colours[system], label=system)
        ax.plot(density[~fitted], values[~fitted, 0], "o", ms=5, mfc="white", color=colours[system])
        if fit_lines and fitted.sum() >= 3:
            slope, intercept, _ = line_fit(density[fitted], values[fitted, 0])
            xs = np.linspace(0, density[fitted].max(), 20)
            ax.plot(xs, intercept + slope * xs, color=colours[system], lw=0.9, ls=":")
    ax.set(xlabel=r"density of the test set, $\delta_{\mathrm{test}}$", ylabel=f"P@{n}", xlim=(0, None), ylim=(0, None))
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))


def fig4(stats: SweepStatistics, systems: Sequence[str], colours: Mapping[str, str], n: int):
    """The papers' Fig. 4 with fitted lines, in four panels: AR P@n against the density (a), 1R P@n over the
    same removals with TI-NN (b) and AI-NN (c) candidates, and 1R P@n against t, log-log (d).  Bars: 95%
    bootstrap intervals; hollow markers: levels beyond :data:`FIT_MAX_REMOVED`, not fitted."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10.5, 8.4))
    panels = ((axes[0, 0], AR_REMOVAL, "(a) AR, test ratings removed", True),
              (axes[0, 1], ONE_R_REMOVAL, "(b) 1R TI-NN, test ratings removed", False),
              (axes[1, 0], ONE_R_AI_REMOVAL, "(c) 1R AI-NN, test ratings removed", False))
    for ax, sweep, title, fit_lines in panels:
        _sweep_panel(ax, stats, sweep, systems, colours, n, fit_lines)
        ax.set_title(title, loc="left", fontsize=11)
    top = max(axes[0, 1].get_ylim()[1], axes[1, 0].get_ylim()[1])
    axes[0, 1].set_ylim(0, top)
    axes[1, 0].set_ylim(0, top)
    ax = axes[1, 1]
    part = stats.levels[stats.levels["sweep"] == ONE_R_SIZE].sort_values("x")
    sizes = part["x"].to_numpy()
    for system in systems if len(sizes) else []:
        values = stats.metric[f"P@{n}"].xs(system, level="system").reindex(part["point"]).to_numpy()
        low, high = percentile_interval(values[:, 1:], axis=1)
        ax.errorbar(sizes, values[:, 0], yerr=[values[:, 0] - low, high - values[:, 0]], fmt="o", ms=4,
                    color=colours[system])
        if len(sizes) >= 3 and np.all(values[:, 0] > 0):
            exponent, intercept, _ = line_fit(np.log(sizes), np.log(values[:, 0]))
            ax.plot(sizes, np.exp(intercept) * sizes**exponent, color=colours[system], lw=1.1)
    if len(sizes):
        ax.plot(sizes, 1.0 / sizes, color="#444444", lw=1, ls="--", label="$1/t$ (Eq. 5)")
        ax.legend(fontsize=9, loc="upper right")
    ax.set(xscale="log", yscale="log", xlabel=r"target set size $t = |T_u^r|$", ylabel=f"1R P@{n}")
    ax.set_title("(d) 1R, target sets grow", loc="left", fontsize=11)
    axes[0, 0].legend(fontsize=9, loc="upper left")
    fig.tight_layout()
    return fig


def metrics_figure(stats: SweepStatistics, systems: Sequence[str], metrics: Sequence[str], colours: Mapping[str, str]):
    """Every metric along the AR removal sweep against the density, log-log, one panel per metric
    (P@n and RR over all users of the full test set, the others over users with a relevant item)."""
    import matplotlib.pyplot as plt

    rows = (len(metrics) + 1) // 2
    fig, axes = plt.subplots(rows, 2, figsize=(10.5, 3.3 * rows), sharex=True)
    part = stats.levels[(stats.levels["sweep"] == AR_REMOVAL) & (stats.levels["x"] <= FIT_MAX_REMOVED)].sort_values("x")
    density = stats.density.reindex(part["point"])[0].to_numpy()
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        for system in systems:
            values = stats.metric[metric].xs(system, level="system").reindex(part["point"])[0].to_numpy()
            ax.plot(density, values, "o-", ms=3.5, lw=1.3, color=colours[system], label=system)
        ax.set(xscale="log", yscale="log")
        ax.set_title(metric, loc="left", fontsize=11)
    for ax in axes[-1]:
        ax.set_xlabel(r"$\delta_{\mathrm{test}}$ (log scale)")
    for ax in axes.ravel()[len(metrics):]:
        ax.set_visible(False)
    axes[0, 0].legend(fontsize=8.5, ncol=2)
    fig.tight_layout()
    return fig


def order_figure(orders: pd.DataFrame):
    """Kendall's tau against the full test set's order (solid) and against the true order (dashed) at each
    removal level, AR and 1R, with 95% bootstrap bands."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for sweep, colour in ((AR_REMOVAL, "#1f77b4"), (ONE_R_REMOVAL, "#d62728")):
        part = orders[orders["sweep"] == sweep].sort_values("x")
        if not len(part):
            continue
        label = sweep.split(",")[0]
        xs = np.arange(len(part))
        low, high = zip(*part["tau_ci"], strict=True)
        ax.fill_between(xs, low, high, color=colour, alpha=0.15, lw=0)
        ax.plot(xs, part["tau"], "o-", color=colour, label=f"{label}: against the full test set")
        if part["tau_truth"].notna().any():
            ax.plot(xs, part["tau_truth"], "s--", color=colour, ms=4, label=f"{label}: against the true order")
        ax.set_xticks(xs, [fmt_pct(x, 0) for x in part["x"]])
    bottom = min(float(np.nanmin([low for low, _ in orders["tau_ci"]])), 0.0)
    ax.set(xlabel="test ratings removed", ylabel="Kendall's τ of the order of systems", ylim=(bottom - 0.05, 1.05))
    ax.legend(fontsize=8.5, loc="lower left")
    fig.tight_layout()
    return fig

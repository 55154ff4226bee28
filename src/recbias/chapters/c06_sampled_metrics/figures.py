"""The chapter's figures, drawn from its study's data in the book's theme.

Each function returns a matplotlib Figure; the page stamps the dataset on it and glues it.
Colours of the systems come from the page (:func:`recbias.bookkit.plotting.palette`); the toy
recommenders, metrics, sample sizes and estimators have fixed colours here.  Every legend sits
below the panels, where it hides no curve.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
import pandas as pd

from recbias import sampled
from recbias.chapters.c06_sampled_metrics.study.real_data import SampledStudy
from recbias.chapters.c06_sampled_metrics.study.sweep import MSweep
from recbias.chapters.c06_sampled_metrics.study.toy import FIG4_M, TOY_METRICS, TOY_N, TOY_RANKS, ToyCorrections, ToyStudy

#: colours of the estimators of the corrections figure
METHOD_COLOURS = {
    "sampled": "#7f7f7f", "rank estimate": "#e377c2", "CLS": "#17becf",
    "BV 1": "#1f77b4", "BV 0.1": "#2ca02c", "BV 0.01": "#ff7f0e", "BV 0.001": "#d62728",
}
#: colours of the toy recommenders and of the four metrics
TOY_COLOURS = {"A": "#1b4f8a", "B": "#b5651d", "C": "#2e7d32"}
METRIC_COLOURS = dict(zip(TOY_METRICS, ("#0173b2", "#de8f05", "#029e73", "#cc78bc"), strict=True))
EXPECTED = r"$\mathbb{E}[M(\tilde{r})]$"
#: width of every figure of the chapter (inches): the text column at the book's resolution
WIDTH = 7.5
#: a log axis of sample sizes spanning fewer decades than this is ticked at 1, 2 and 5 times powers of ten
FEW_DECADES = 3
#: the title of the legend of Krichene and Rendle's three systems
KR_SYSTEMS = "Krichene and Rendle's systems"
#: space left between the panels and the legend below them (inches)
LEGEND_GAP = 0.08


def _grid(rows: int, columns: int, size: tuple[float, float]) -> tuple[plt.Figure, np.ndarray]:
    fig, axes = plt.subplots(rows, columns, figsize=size)
    return fig, np.atleast_1d(axes).ravel()


def _legend_below(fig: plt.Figure, ax: plt.Axes, *, ncol: int, title: str | None = None) -> None:
    """One legend for the figure, with the entries of ``ax``, centred under the panels, which shrink to
    leave it room (then the layout is final)."""
    legend = fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=ncol, title=title)
    height = legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi
    fig.tight_layout(rect=(0, (height + LEGEND_GAP) / fig.get_figheight(), 1, 1))


def _sample_size_axis(ax: plt.Axes, sizes: np.ndarray) -> None:
    """A log axis of sample sizes with plain-number labels: at powers of ten, and also at 2 and 5 times
    them when ``sizes`` span fewer than :data:`FEW_DECADES` decades (no crowded minor labels)."""
    decades = np.log10(sizes.max() / sizes.min()) if len(sizes) else 0.0
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades < FEW_DECADES else (1.0,)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def metric_shapes() -> plt.Figure:
    """The four metrics of Eq. sm-metrics as functions of the rank among 10,000 items: all ranks, and the top 100."""
    fig, axes = _grid(1, 2, (WIDTH, 3.4))
    ranks = np.arange(1, TOY_N + 1)
    for ax, top in zip(axes, (TOY_N, 100), strict=True):
        for metric in TOY_METRICS:
            values = sampled.metric_vector(metric, TOY_N)[:top]
            ax.plot(ranks[:top], values, label=metric, color=METRIC_COLOURS[metric], lw=1.8)
        ax.set(xlabel="rank $r$ of the relevant item", ylabel="$M(r)$")
        ax.set_title("all 10,000 ranks" if top == TOY_N else "top 100 ranks", loc="left")
    _legend_below(fig, axes[0], ncol=len(TOY_METRICS))
    return fig


def toy_m_curves(curves: pd.DataFrame, toy: ToyStudy) -> plt.Figure:
    """Expected sampled metric of A, B and C against the sample size; dotted: exact metrics (the paper's Fig. 2)."""
    fig, axes = _grid(2, 2, (WIDTH, 6.2))
    for ax, metric in zip(axes, TOY_METRICS, strict=True):
        for name in TOY_RANKS:
            curve = curves[(curves["metric"] == metric) & (curves["recommender"] == name)]
            ax.plot(curve["m"], curve["expected"], color=TOY_COLOURS[name], label=name, lw=1.8)
            ax.axhline(toy.exact.loc[name, metric], color=TOY_COLOURS[name], ls=":", lw=1.2)
        ax.set(xscale="log", xlabel="sample size $m$", ylabel=EXPECTED)
        ax.set_title(metric, loc="left")
    _legend_below(fig, axes[0], ncol=len(TOY_RANKS), title="toy recommender (dotted: exact metric)")
    return fig


def toy_shapes(curves: pd.DataFrame) -> plt.Figure:
    """``E[M(r~) | r]`` over the top 1,000 true ranks for several ``m``; black: the exact metric (the paper's Fig. 3)."""
    ms = sorted(m for m in curves["m"].unique() if m > 0)
    colours = dict(zip(ms, mpl.colormaps["viridis"](np.linspace(0, 0.9, len(ms))), strict=True))
    fig, axes = _grid(2, 2, (WIDTH, 6.2))
    for ax, metric in zip(axes, TOY_METRICS, strict=True):
        for m in [0, *ms]:
            curve = curves[(curves["metric"] == metric) & (curves["m"] == m)]
            ax.plot(curve["rank"], curve["value"], color="black" if m == 0 else colours[m], lw=1.4 if m == 0 else 1.6,
                    label="exact" if m == 0 else f"$m = {m}$")
        ax.set(xlabel="true rank $r$", ylabel=r"$\mathbb{E}[M(\tilde{r}) \mid r]$")
        ax.set_title(metric, loc="left")
    _legend_below(fig, axes[0], ncol=len(ms) + 1)
    return fig


def corrections(vectors: ToyCorrections) -> plt.Figure:
    """The paper's Fig. 4: corrected AP vectors over the sampled ranks, and their expectation by true rank."""
    fig, axes = _grid(1, 2, (WIDTH, 4.8))
    shown = ["rank estimate", "CLS", "BV 1", "BV 0.1", "BV 0.01", "BV 0.001"]
    ranks = np.arange(1, TOY_N + 1)
    for method in shown:
        axes[0].plot(np.arange(1, FIG4_M + 2), vectors.vector(method), color=METHOD_COLOURS[method], lw=1.4, label=method)
        axes[1].plot(ranks, vectors.moments[method].mean, color=METHOD_COLOURS[method], lw=1.4, label=method)
    axes[1].plot(ranks, vectors.moments["sampled"].mean, color=METHOD_COLOURS["sampled"], ls="--", lw=1.2,
                 label="uncorrected")
    axes[1].plot(ranks, sampled.metric_vector("AP", TOY_N), color="black", lw=1.6, label="exact AP")
    axes[0].set(xlabel=r"sampled rank $\tilde{r}$", ylabel=r"corrected value $\hat{M}_{\tilde{r}}$", ylim=(-0.02, 0.12))
    axes[0].set_title(f"a) vectors, $m = {FIG4_M}$", loc="left")
    axes[1].set(xscale="log", xlabel="true rank $r$ among 10,000 items", ylabel=r"$\mathbb{E}[\hat{M}_{\tilde{r}} \mid r]$",
                ylim=(-0.02, 1.02))
    axes[1].set_title("b) expectation", loc="left")
    _legend_below(fig, axes[1], ncol=4)
    return fig


def rank_histogram(study: SampledStudy, colours: Mapping[str, str]) -> plt.Figure:
    """Distribution of the exact ranks of the held-out items (log bins), one line per system (the paper's Fig. 5)."""
    fig, axes = _grid(1, 1, (WIDTH, 3.6))
    bins = np.geomspace(1, study.sizes.max() + 1, 31)
    for k, short in enumerate(study.names):
        label = study.labels[short]
        axes[0].hist(study.ranks[:, k], bins=bins, histtype="step", lw=1.8, color=colours[label], label=label)
    axes[0].set(xscale="log", xlabel="exact rank $r$ of the held-out item (log scale)", ylabel="users per bin")
    _legend_below(fig, axes[0], ncol=len(study.names), title=KR_SYSTEMS)
    return fig


def m_sweep(study: SampledStudy, sweep: MSweep, colours: Mapping[str, str]) -> plt.Figure:
    """Expected Recall@10 against ``m``, uncorrected and corrected by BV 0.1; dotted: exact (the paper's Fig. 6)."""
    fig, axes = _grid(1, 2, (WIDTH, 3.8))
    for k, short in enumerate(study.names):
        colour, label = colours[study.labels[short]], study.labels[short]
        axes[0].plot(sweep.uncorrected_m, 100 * sweep.uncorrected[:, k], color=colour, lw=1.8, label=label)
        axes[1].plot(sweep.corrected_m, 100 * sweep.corrected[:, k], color=colour, lw=1.8, marker="o", ms=3, label=label)
        for ax in axes:
            ax.axhline(100 * study.exact["Recall@10"][k], color=colour, ls=":", lw=1.2)
    for ax, title, sizes in zip(axes, ("uncorrected", "BV 0.1"), (sweep.uncorrected_m, sweep.corrected_m), strict=True):
        _sample_size_axis(ax, np.asarray(sizes, dtype=float))
        ax.set(xlabel="sample size $m$", ylabel=r"$\mathbb{E}[\mathrm{Recall@10}]$ (%)")
        ax.set_title(title, loc="left")
    _legend_below(fig, axes[0], ncol=len(study.names), title=f"{KR_SYSTEMS} (dotted: exact Recall@10)")
    return fig

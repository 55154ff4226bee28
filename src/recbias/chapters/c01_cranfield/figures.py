"""The chapter's figures: how positive judgments spread over documents, and what the threshold does to it.

Every collection keeps its style (:func:`recbias.bookkit.plotting.collection_styles`): blues for IR
collections and warm hues for rating datasets, each with a line style and a marker of its own, greys for
a simulated world (dashes for its complete relevance), and a thicker line for the page's own dataset.  The
legend stands to the right of the panels (:func:`recbias.bookkit.plotting.legend_outside`), never over a
line.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
from matplotlib.figure import Figure

from recbias.bookkit.plotting import collection_styles, dataset_caption, legend_outside
from recbias.chapters.c01_cranfield.study import TRUTH, SpreadStudy, kinds

#: the deepest rank the reach panel of :func:`spread_figure` draws
MAX_RANK = 1000
#: markers along the curves of :func:`spread_figure`, as a fraction of the panel's diagonal between two
MARK_EVERY = 0.08


def styles(study: SpreadStudy) -> dict[str, dict]:
    """Line style of every collection of the study."""
    return collection_styles(kinds(study), study.here, TRUTH)


def spread_figure(study: SpreadStudy) -> Figure:
    """Top: the cumulative share ``F(k)`` against ``k/m``, with the diagonal of an even spread.  Bottom: the
    reach of the ``k``-th most often judged-relevant document, up to rank :data:`MAX_RANK` (log scale)."""
    style = styles(study)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.4, 7.8))
    for name, curve in study.curves.groupby("collection", sort=False):
        top.plot(curve["rank_share"], curve["cumulative_share"], markevery=MARK_EVERY, ms=5, **style[name])
        bottom.plot(curve["rank"].where(curve["rank"] <= MAX_RANK), curve["reach"], markevery=MARK_EVERY, ms=5,
                    **style[name])
    top.plot([0, 1], [0, 1], color="#aaaaaa", lw=0.8, ls=":", label="equal spread")
    top.set(xlabel="top documents or items, $k/m$", ylabel="$F(k)$, share of positive judgments",
            xlim=(0, 1), ylim=(0, 1.01))
    bottom.set(xscale="log", xlabel="rank $k$ of the document or item (log scale)",
               ylabel="share of queries, $p(d_{(k)})\\,/\\,|Q|$")
    top.set_title("Cumulative share", loc="left")
    bottom.set_title("Reach of the $k$-th most-liked", loc="left")
    for ax, axes_in_percent in ((top, "xy"), (bottom, "y")):
        for axis in axes_in_percent:
            getattr(ax, f"{axis}axis").set_major_formatter(mticker.PercentFormatter(1.0))
        dataset_caption(ax, study.here)
    legend_outside(fig, *top.get_legend_handles_labels(), fontsize=10, handlelength=2.6, labelspacing=0.5)
    return fig


def threshold_figure(study: SpreadStudy) -> Figure:
    """The reach of the most-liked item (top) and the Gini coefficient of likes per item (bottom) against the
    share of ratings a threshold counts as positive, one line per rating dataset, a star at its own threshold."""
    style = styles(study)
    fig, axes = plt.subplots(2, 1, figsize=(8.4, 7.4), sharex=True)
    for ax, column, label in ((axes[0], "top reach", "reach$_1$, users who like the top item"),
                              (axes[1], "gini", "Gini coefficient $G$ of likes")):
        for name, sweep in study.sweeps.groupby("collection", sort=False):
            ax.plot(sweep["positive share of ratings"], sweep[column], ms=4, **style[name])
            own = sweep[sweep["default"]]
            ax.scatter(own["positive share of ratings"], own[column], marker="*", s=200, color=style[name]["color"],
                       edgecolor="black", linewidth=0.6, zorder=5)
        ax.set(ylabel=label, xlim=(0, 1.02))
        dataset_caption(ax, study.here)
    axes[0].yaxis.set_major_formatter(mticker.PercentFormatter(1.0))
    axes[1].set_xlabel("share of ratings counted as positive (looser threshold to the right)")
    axes[1].xaxis.set_major_formatter(mticker.PercentFormatter(1.0))
    legend_outside(fig, *axes[0].get_legend_handles_labels(), fontsize=10, handlelength=2.6, labelspacing=0.5)
    return fig

"""Chapter 7's figures, sized for the text column, in the book's theme.

Each function returns a matplotlib figure; ``stamp(ax)`` marks the figure's last panel with the
dataset (the page passes :func:`recbias.bookkit.plotting.dataset_caption`), clear of the panels'
titles.  A part the dataset lacks (None) is drawn as a one-line placeholder that points to the
page's note.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from recbias.chapters.c07_discounted_auc.report import list_name
from recbias.chapters.c07_discounted_auc.study import NewUserStudy, SensitivitySearch
from recbias.chapters.c07_discounted_auc.study import new_users
from recbias.metrics import continuation_probability

Stamp = Callable[[Axes], None]

#: width of every figure, in inches: the text column at 110 dpi
WIDTH = 7.5
#: the discounts of :func:`discount_figure` as its legend names them
DISCOUNT_LABELS = {"behavioural": r"behavioural AUC, $d_k/d_1$", "rbp": r"RBP, $p^{k-1}$",
                   "ndcg": r"nDCG, $1/\log_2(k+1)$"}
#: colour and line style of the global and the demographic list in the new-user figure
REFERENCE_STYLES = {new_users.GLOBAL: ("#555555", ":"), new_users.DEMOGRAPHIC: ("#e6550d", "--")}
#: what the placeholder of a part the dataset lacks says
PLACEHOLDER = "Not applicable to this dataset: see the note in the text."


def _finish(figure: Figure, stamp: Stamp) -> Figure:
    figure.tight_layout()
    stamp(figure.axes[-1])
    return figure


def _legend_below(figure: Figure, ax: Axes, stamp: Stamp, columns: int) -> Figure:
    """One legend for all panels under the figure, in ``columns`` columns, then the stamp."""
    handles, labels = ax.get_legend_handles_labels()
    rows = -(-len(labels) // columns)
    figure.legend(handles, labels, loc="lower center", ncol=columns, bbox_to_anchor=(0.5, 0.0))
    figure.tight_layout(rect=(0, 0.07 * rows, 1, 1))
    stamp(figure.axes[-1])
    return figure


def placeholder_figure(stamp: Stamp) -> Figure:
    """A small figure that stands where a part of the chapter has nothing to draw on this dataset."""
    figure, ax = plt.subplots(figsize=(WIDTH, 1.2))
    ax.axis("off")
    ax.text(0.0, 0.5, PLACEHOLDER, va="center")
    return _finish(figure, stamp)


def attention_figure(curves: pd.DataFrame, m: int, stamp: Stamp) -> Figure:
    """``w_N`` (left) and ``d_k`` (right, log scale) for every ``Q`` of
    :func:`recbias.chapters.c07_discounted_auc.study.attention_curves`."""
    figure, (left, right) = plt.subplots(1, 2, figsize=(WIDTH, 4.2))
    shades = plt.cm.viridis(np.linspace(0.0, 0.85, curves["Q"].nunique()))
    for colour, (Q, curve) in zip(shades, curves.groupby("Q"), strict=True):
        label = f"$Q$ = {Q:g} ($p$ = {continuation_probability(Q, m):.3f})"
        left.plot(curve["N"], curve["w"], color=colour, lw=2, label=label)
        right.plot(curve["N"], curve["d"], color=colour, lw=2)
    left.set(xlabel="items read, $N$", ylabel="$w_N$, who stops where")
    right.set(xlabel="rank $k$", ylabel="$d_k$, weight of rank $k$ (log scale)", yscale="log")
    for ax in (left, right):
        ax.axvline(m + 0.5, color="#999999", lw=1, ls=":")
    return _legend_below(figure, left, stamp, columns=2)


def discount_figure(discounts: pd.DataFrame, stamp: Stamp) -> Figure:
    """The three relative discounts of :func:`recbias.chapters.c07_discounted_auc.study.discount_curves`."""
    figure, ax = plt.subplots(figsize=(WIDTH, 4.0))
    for (name, curve), style in zip(discounts.groupby("discount", sort=False), ("-", "--", ":"), strict=True):
        ax.plot(curve["k"], curve["weight"], ls=style, lw=2.2, label=DISCOUNT_LABELS[name])
    ax.set(xlabel="rank $k$", ylabel="weight relative to rank 1", ylim=(0, 1.03))
    ax.legend(loc="upper right")
    return _finish(figure, stamp)


def q_figure(sweep: pd.DataFrame, colours: Mapping[str, str], stamp: Stamp) -> Figure:
    """Each system's metric against ``Q``: absolute (left, log scale) and relative to the best system (right,
    without Random, which lies far below)."""
    figure, (left, right) = plt.subplots(1, 2, figsize=(WIDTH, 4.6))
    relative = sweep.drop(index=["Random"], errors="ignore") / sweep.max(axis=0)
    for system in sweep.index:
        left.plot(sweep.columns, sweep.loc[system], marker="o", ms=4, lw=1.8, color=colours[system], label=system)
        if system in relative.index:
            right.plot(sweep.columns, relative.loc[system], marker="o", ms=4, lw=1.8, color=colours[system])
    left.set(xlabel="$Q$", ylabel="behavioural AUC (log scale)", yscale="log")
    right.set(xlabel="$Q$", ylabel="relative to the best system")
    return _legend_below(figure, left, stamp, columns=min(len(sweep.index), 5))


def search_figure(search: SensitivitySearch | None, n_items: int, stamp: Stamp) -> Figure:
    """Eq. 14 (top: mean relative increase) and the resampling-scaled increase (bottom) against the step ``s``."""
    if search is None:
        return placeholder_figure(stamp)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(WIDTH, 6.6), sharex=True)
    curve = search.curve[search.curve["s"] > 0]
    top.plot(curve["s"], curve["relative increase"], marker="o", color="#1f77b4", lw=2)
    top.set(yscale="log", ylabel="mean relative\nincrease (log scale)")
    for _, cells in search.cells[search.cells["s"] > 0].groupby("segmentation", sort=False):
        bottom.plot(cells["s"], cells["z"], color="#bbbbbb", lw=1)
    bottom.plot(curve["s"], curve["sensitivity"], marker="o", color="#1f77b4", lw=2.4, label="mean over segmentations")
    bottom.axhline(search.curve.loc[search.curve["s"] == 0, "sensitivity"].iloc[0], color="#d62728", ls="--", lw=1.5,
                   label="no step ($s$ = 0)")
    for ax in (top, bottom):
        ax.axvline(search.chosen, color="#2ca02c", lw=1.5, ls=":")
    bottom.annotate(f"chosen $s$ = {search.chosen}", xy=(search.chosen, 0.5), xycoords=("data", "axes fraction"),
                    xytext=(5, 0), textcoords="offset points", color="#2ca02c", rotation=90, va="center")
    bottom.set(xscale="log", xlabel=f"step position $s$ (of {n_items:,} items)", ylabel="increase / its\nresampling sd")
    bottom.legend(loc="upper right")
    return _finish(figure, stamp)


def instability_figure(search: SensitivitySearch | None, stamp: Stamp) -> Figure:
    """Each segmentation's relative increase with its 95% resampling interval, without and with the step."""
    if search is None:
        return placeholder_figure(stamp)
    table = search.cells[search.cells["s"].isin([0, search.chosen])]  # without the step and at the chosen one
    labels = list(dict.fromkeys(table["segmentation"]))
    panels = table.groupby("s", sort=True)
    figure, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 0.42 * len(labels) + 1.9), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, (s, rows) in zip(axes, panels, strict=True):
        y = [labels.index(label) for label in rows["segmentation"]]
        ax.errorbar(rows["relative increase"], y, xerr=[rows["relative increase"] - rows["low"],
                                                        rows["high"] - rows["relative increase"]],
                    fmt="o", color="#1f77b4", capsize=3)
        ax.axvline(0, color="#999999", lw=1)
        ax.set_title("no step" if s == 0 else f"step at $s$ = {s}", loc="left")
        ax.set_xlabel("increase over the global list")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(range(len(labels)), labels)
    axes[0].invert_yaxis()
    return _finish(figure, stamp)


def new_user_figure(study: NewUserStudy | None, colours: Mapping[str, str], stamp: Stamp) -> Figure:
    """The paper's Fig. 4: metric against known ratings, with the global and demographic lists as lines; one
    panel per metric (without and, when there is one, with the step)."""
    if study is None:
        return placeholder_figure(stamp)
    figure, axes = plt.subplots(1, len(study.metrics), figsize=(WIDTH, 4.6), squeeze=False)
    for ax, metric in zip(axes[0], study.metrics, strict=True):
        for system, curve in study.curves[study.curves["metric"] == metric].groupby("system", sort=False):
            ax.plot(curve["k"], curve["value"], marker="o", ms=4, lw=1.8, color=colours[system],
                    label=f"{system} from $k$ ratings")
        for row in study.lines[study.lines["metric"] == metric].itertuples():
            colour, style = REFERENCE_STYLES[row.list]
            ax.axhline(row.value, color=colour, ls=style, lw=2, label=list_name(study, row.list))
        ax.set(xlabel="known ratings, $k$", ylabel="behavioural AUC", ylim=(0, None))
        ax.set_title("no step" if metric == new_users.NO_STEP else f"step at $s$ = {study.step}", loc="left")
    entries = len(axes[0][0].get_legend_handles_labels()[1])
    return _legend_below(figure, axes[0][0], stamp, columns=min(entries, 3))

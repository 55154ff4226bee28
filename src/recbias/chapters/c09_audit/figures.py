"""The audit page's figures, in the book's theme (applied by the page): every system under every protocol, and the
agreement of the protocols' orders."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from recbias.bookkit.plotting import dataset_caption, palette


def scores_figure(summary: pd.DataFrame, dataset: str) -> Figure:
    """One panel per protocol: each system's mean with its 95% interval over users."""
    protocols = list(pd.unique(summary["protocol"]))
    systems = list(pd.unique(summary["system"]))
    colours = palette(systems)
    rows = -(-len(protocols) // 4)  # four panels a row
    figure, axes = plt.subplots(rows, 4, figsize=(11, 2.6 * rows), squeeze=False)
    for ax, protocol in zip(axes.flat, protocols, strict=False):
        part = summary[summary["protocol"] == protocol].set_index("system").reindex(systems)
        y = np.arange(len(systems))
        ax.errorbar(part["mean"], y, xerr=[part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]],
                    fmt="none", ecolor="#555", capsize=2)
        ax.scatter(part["mean"], y, c=[colours[s] for s in systems], zorder=3)
        ax.set_yticks(y, systems if ax in axes[:, 0] else [""] * len(systems))
        ax.invert_yaxis()
        ax.set_title(protocol, fontsize=10)
        ax.set_xlim(left=0)
    for ax in list(axes.flat)[len(protocols):]:
        ax.set_visible(False)
    figure.suptitle(f"dataset: {dataset}", x=0.99, ha="right", fontsize=8, color="#666")
    figure.tight_layout()
    return figure


def tau_figure(tau: pd.DataFrame, dataset: str) -> Figure:
    """Heat map of Kendall's τ between the orders of the systems under every two protocols."""
    figure, ax = plt.subplots(figsize=(7.5, 6))
    sns.heatmap(tau, vmin=-1, vmax=1, cmap="RdBu", annot=True, fmt=".2f", square=True, cbar_kws={"label": "τ"}, ax=ax)
    ax.set(xlabel="", ylabel="")
    dataset_caption(ax, dataset)
    figure.tight_layout()
    return figure

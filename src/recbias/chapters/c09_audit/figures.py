"""The audit page's figures, in the book's theme (applied by the page): every system under every protocol, and the
agreement of the protocols' orders."""

from __future__ import annotations

from textwrap import fill

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recbias.bookkit.plotting import dataset_caption, palette

#: characters of a protocol's label on one line of a panel title or a tick label
LABEL_WIDTH = 24


def scores_figure(summary: pd.DataFrame, dataset: str) -> Figure:
    """One panel per protocol, two a row: each system's mean with its 95% interval over users."""
    protocols = list(pd.unique(summary["protocol"]))
    systems = list(pd.unique(summary["system"]))
    colours = palette(systems)
    rows = -(-len(protocols) // 2)
    figure, axes = plt.subplots(rows, 2, figsize=(7.5, rows * (0.3 * len(systems) + 0.9) + 0.3), sharey=True,
                                squeeze=False)
    y = np.arange(len(systems))
    for ax, protocol in zip(axes.flat, protocols, strict=False):
        part = summary[summary["protocol"] == protocol].set_index("system").reindex(systems)
        ax.errorbar(part["mean"], y, xerr=[part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]],
                    fmt="none", ecolor="#555", capsize=2)
        ax.scatter(part["mean"], y, c=[colours[s] for s in systems], zorder=3)
        ax.set_yticks(y, systems)
        ax.set_ylim(len(systems) - 0.5, -0.5)  # first system on top (the axes share y: no toggling inversion)
        ax.set_title(fill(protocol, LABEL_WIDTH), fontsize=10)
        ax.set_xlim(left=0)
        ax.xaxis.set_major_locator(MaxNLocator(4))
    for ax in list(axes.flat)[len(protocols):]:
        ax.set_visible(False)
    figure.suptitle(f"dataset: {dataset}", x=0.99, ha="right", fontsize=8, color="#666")
    figure.tight_layout()
    return figure


def tau_figure(tau: pd.DataFrame, dataset: str, *, alike: bool = False) -> Figure:
    """Heat map of Kendall's τ between the orders of the systems under every two protocols, each pair once (the
    triangle below the diagonal); with ``alike``, of the share of pairs of systems they order alike
    (:func:`recbias.chapters.c09_audit.study.compare.alike_matrix`) instead."""
    labels = [fill(protocol, LABEL_WIDTH) for protocol in tau.index]
    below = tau.iloc[1:, :-1]
    figure, ax = plt.subplots(figsize=(7.5, 6.8))
    scale = {"vmin": 0, "vmax": 1, "fmt": ".0%", "cmap": "Blues"} if alike else {"vmin": -1, "vmax": 1, "fmt": ".2f",
                                                                                 "cmap": "RdBu"}
    sns.heatmap(below, mask=np.triu(np.ones(below.shape, dtype=bool), k=1), annot=True, annot_kws={"fontsize": 9},
                square=True, cbar_kws={"label": "pairs ordered alike" if alike else "τ", "shrink": 0.7},
                xticklabels=labels[:-1], yticklabels=labels[1:], ax=ax, **scale)
    ax.set(xlabel="", ylabel="")
    ax.grid(False)
    plt.setp(ax.get_xticklabels(), rotation=90)
    plt.setp(ax.get_yticklabels(), rotation=0)
    dataset_caption(ax, dataset)
    figure.tight_layout()
    return figure

"""Chapter 8's figures: the fidelity of every protocol on the build's truth, and on the grid of worlds, each
sized for the text column in the book's theme, with the dataset stamped by ``stamp(ax)``
(:func:`recbias.bookkit.plotting.dataset_caption` with the dataset filled in)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from recbias.chapters.c08_protocol_fidelity.study import families

Stamp = Callable[[Axes], None]

#: colour of each kind of protocol
FAMILY_COLOURS = {
    "standard": "#1f77b4",
    "sampled": "#ff7f0e",
    "neutralising": "#2ca02c",
    "incomplete judgments": "#9467bd",
    "propensity weighting": "#8c564b",
    "user behaviour": "#d62728",
}
#: width of every figure, in inches: the text column at 110 dpi
WIDTH = 7.5
#: the most cells of the grid whose labels fit side by side; more are written upwards
UPRIGHT_CELLS = 5


def fidelity_figure(main: pd.DataFrame, leading: Sequence[str], stamp: Stamp) -> Figure:
    """Kendall's tau-b of every protocol with its interval over users, most faithful first, coloured by kind;
    filled points for the protocols resampling cannot tell from the most faithful one."""
    family = families()
    figure, ax = plt.subplots(figsize=(WIDTH, 1.6 + 0.32 * len(main)))
    for y, row in enumerate(main.itertuples()):
        colour = FAMILY_COLOURS[family[row.protocol]]
        ax.plot([row.tau_low, row.tau_high], [y, y], color=colour, lw=2, alpha=0.55)
        ax.plot(row.tau, y, "o", ms=7, color=colour, mfc=colour if row.protocol in leading else "white", mew=1.8)
    ax.set_yticks(range(len(main)), main["protocol"])
    ax.invert_yaxis()
    ax.set(xlabel=r"Kendall's $\tau_b$ with the true order", ylim=(len(main) - 0.5, -0.5))
    kinds = list(dict.fromkeys(family[p] for p in main["protocol"]))
    handles = [Line2D([], [], color=FAMILY_COLOURS[k], marker="o", lw=2, label=k) for k in kinds]
    figure.legend(handles=handles, loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0.0))
    figure.tight_layout(rect=(0, 0.05 * -(-len(kinds) // 3), 1, 1))
    stamp(ax)
    return figure


def grid_figure(cells: pd.DataFrame, stamp: Stamp) -> Figure:
    """A heatmap of :func:`recbias.chapters.c08_protocol_fidelity.report.grid_table`: protocols by cells of
    the grid, annotated with their tau; the labels of more than :data:`UPRIGHT_CELLS` cells are written upwards."""
    figure, ax = plt.subplots(figsize=(WIDTH, 1.8 + 0.34 * len(cells)))
    sns.heatmap(cells, annot=True, fmt=".2f", cmap="viridis", vmin=0, vmax=1, ax=ax,
                cbar_kws={"label": r"Kendall's $\tau_b$", "shrink": 0.6})
    ax.set(xlabel=r"popularity skew $\alpha$ and strength of observation bias", ylabel="")
    ax.tick_params(axis="x", rotation=0 if len(cells.columns) <= UPRIGHT_CELLS else 90)
    figure.tight_layout()
    stamp(ax)
    return figure

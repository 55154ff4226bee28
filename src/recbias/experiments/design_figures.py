"""Chapter 2 ("Experimental design alternatives"): the comparison's and the lemma's figures.

Each function draws one figure from the data of the chapter's other modules and
returns it (matplotlib is imported lazily, so the evaluation core never needs it).
Colours of the systems come from the page (``recbias.bookkit.plotting.palette``);
each axes carries the name of its dataset as its label (``ax.get_label()``), for the
page to stamp.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from recbias.experiments.design_lemma import REMOVAL
from recbias.experiments.design_space import N, DesignStudy

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def precision_figure(study: DesignStudy, colours: Mapping[str, str]) -> Figure:
    """Mean P@10 of every system under every design, one panel per dataset, with the 95% intervals of
    :attr:`DesignStudy.summary` (users as the unit) as error bars."""
    import matplotlib.pyplot as plt

    by_dataset = list(study.summary.groupby("dataset", sort=False))
    figure, axes = plt.subplots(1, len(by_dataset), figsize=(7.0, 4.4), squeeze=False,
                                gridspec_kw={"width_ratios": [part["design"].nunique() for _, part in by_dataset]})
    width = 0.8 / len(study.systems)
    for ax, (name, part) in zip(axes[0], by_dataset, strict=True):
        designs = list(dict.fromkeys(part["design"]))
        for j, (system, rows) in enumerate(part.groupby("system", sort=False)):
            errors = [rows["mean"] - rows["ci_low"], rows["ci_high"] - rows["mean"]]
            ax.bar(np.arange(len(rows)) + (j - (len(study.systems) - 1) / 2) * width, rows["mean"], width,
                   color=colours[system], label=system, yerr=errors, capsize=2, error_kw={"elinewidth": 0.8})
        ax.set_xticks(range(len(designs)), [d.replace("1R ", "1R\n") for d in designs])
        ax.set(xlabel="design", ylabel=f"P@{N}")
        ax.set_label(str(name))
    figure.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=len(study.systems),
                  handlelength=1.2, columnspacing=1.0)
    figure.tight_layout(rect=(0, 0, 1, 0.91))
    return figure


def lemma_figure(sweep: pd.DataFrame, colours: Mapping[str, str], dataset: str) -> Figure:
    """1R P@10 between its AR bounds (IRJ 2017 Eq. 2) along the two sweeps of
    :func:`recbias.experiments.design_lemma.lemma_sweep`, one panel per sweep."""
    import matplotlib.pyplot as plt
    import matplotlib.ticker as mticker
    from matplotlib.lines import Line2D

    parts = list(sweep.groupby("sweep", sort=False))
    figure, axes = plt.subplots(1, len(parts), figsize=(7.0, 4.3), squeeze=False, sharey=True)
    for ax, (name, part) in zip(axes[0], parts, strict=True):
        for system, rows in part.groupby("system", sort=False):
            colour = colours[system]
            ax.fill_between(rows["x"], rows["lower"], rows["upper"], color=colour, alpha=0.18, linewidth=0)
            ax.plot(rows["x"], rows["value"], marker="o", color=colour, label=system)
            ax.plot(rows["x"], rows["lower"], color=colour, linestyle=":", linewidth=1.4)
            ax.plot(rows["x"], rows["upper"], color=colour, linestyle="--", linewidth=1.4)
        if name == REMOVAL:
            ax.set_xlabel("test ratings removed")
            ax.xaxis.set_major_formatter(mticker.PercentFormatter(1.0, decimals=0))
        else:
            ax.set_xlabel("target set size $|T_u^r|$")
        ax.set_label(dataset)
    axes[0][0].set(ylabel=f"1R P@{N}", ylim=(0, None))
    systems = list(dict.fromkeys(sweep["system"]))
    handles = [Line2D([], [], color=colours[s], marker="o", label=s) for s in systems] + [
        Line2D([], [], color="#444444", linestyle=":", linewidth=1.4, label="lower bound"),
        Line2D([], [], color="#444444", linestyle="--", linewidth=1.4, label="upper bound"),
    ]
    figure.legend(handles=handles, loc="lower center", ncol=len(handles), handlelength=1.8, columnspacing=1.0)
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    return figure

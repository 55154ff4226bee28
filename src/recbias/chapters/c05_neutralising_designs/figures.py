"""Chapter 5's figures: the two splits (the papers' Fig. 6), precision under each design (Fig. 8, the
papers' set of systems and today's top-N learners), the positive ratio (Fig. 7), the popularity index
of every design and metric against each set, and its sweep over the propensity exponent; each sized for
the page's text column, in the book's theme, the systems in the page's colours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from recbias.chapters.c05_neutralising_designs.study import (
    FAMILIES, FIG8, FIG9, PAPERS, TOP_N, TOP_N_LEARNERS, UniformPlan,
)

#: width of every figure of the chapter (inches): the text column at the book's resolution
WIDTH = 7.5
#: colour and line of each estimator family of the sweep
FAMILY_STYLES = {"PSR": ("#1f5f99", ":"), "IPS-P": ("#b42318", "--"), "SNIPS-P": ("#b42318", "-"),
                 "IPS-Recall": ("#1a7f37", "--"), "SNIPS-Recall": ("#1a7f37", "-")}
#: marker of each dataset, in the order the page lists them
MARKERS = ("o", "s", "^", "D")
#: colour of each set of systems the popularity index reads, and how far its markers are moved up or down
SET_STYLES = {PAPERS: ("#1f5f99", -0.14), TOP_N: ("#d4860b", 0.14)}
#: the hatch of today's top-N learners' bars, set apart from the papers' systems
TOP_N_HATCH = "////"


def splits_figure(profiles: pd.DataFrame, plan: UniformPlan) -> Figure:
    """The papers' Fig. 6: the random split's expected test ratings per item and the P1R percentiles
    (top), the uniform split's exact ones (bottom), over the popularity curve."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(WIDTH, 6.4), sharex=True, sharey=True)
    for ax in (top, bottom):
        ax.fill_between(profiles["rank"], profiles["ratings"], color="#c9d6e8", label="all ratings $|R(i)|$")
        ax.set(yscale="log", ylabel="ratings per item", ylim=(0.8, None))
    top.plot(profiles["rank"], profiles["random test"], color="#b42318", ls="--",
             label=r"$\mathbb{E}[|R_\mathrm{test}(i)|] = \sigma\,|R(i)|$")
    for edge in profiles.groupby("percentile")["rank"].min().iloc[1:]:
        top.axvline(edge, color="#555555", lw=0.7, ls=":")
    top.set_title("a) random split; dotted: the P1R percentiles", loc="left")
    in_t = profiles[profiles["uniform test"] > 0]
    bottom.plot(in_t["rank"], in_t["uniform test"], color="#b42318", lw=2.2,
                label=rf"$|R_\mathrm{{test}}(i)| = \eta = {plan.eta}$")
    bottom.axvline(plan.size, color="#555555", lw=0.9, ls=":")
    bottom.annotate(f"$|T| = {plan.size:,}$".replace(",", "{,}"), (plan.size, profiles["ratings"].max()),
                    xytext=(5, -2), textcoords="offset points", va="top")
    bottom.set_title("b) uniform split: test ratings of the items of $T$", loc="left")
    bottom.set_xlabel("item popularity rank $k$")
    for ax in (top, bottom):
        ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


def fig8_figure(summaries: Sequence[pd.DataFrame], colours: Mapping[str, str], metric: str = "P@10") -> Figure:
    """One metric of the papers' Fig. 8: one panel per dataset (titled with its name), designs on
    the x axis, the systems of ``colours`` as bars with their 95% intervals; today's top-N learners
    hatched, after the papers' set."""
    names = list(colours)
    fig, axes = plt.subplots(len(summaries), 1, figsize=(WIDTH, 1.0 + 2.9 * len(summaries)), squeeze=False)
    width = 0.8 / len(names)
    hatch = {s: TOP_N_HATCH if s in TOP_N_LEARNERS else None for s in names}
    for ax, summary in zip(axes[:, 0], summaries, strict=True):
        labels = [d for d in FIG8 if d in set(summary["label"])]
        part = summary[summary["metric"] == metric].set_index(["label", "system"])
        for j, system in enumerate(names):
            cells = part.loc[[(d, system) for d in labels]]
            x = np.arange(len(labels)) + (j - (len(names) - 1) / 2) * width
            ax.bar(x, cells["mean"], width, color=colours[system], hatch=hatch[system],
                   edgecolor="white", linewidth=0, capsize=1.5, error_kw={"elinewidth": 0.8},
                   yerr=[cells["mean"] - cells["ci_low"], cells["ci_high"] - cells["mean"]])
        ax.set_xticks(range(len(labels)), [d.replace("-head", "−10%\nhead") for d in labels])
        ax.set_ylabel(metric)
        ax.set_title(f"dataset: {summary['dataset'].iloc[0]}", loc="left")
    handles = [Patch(facecolor=colours[s], hatch=hatch[s], edgecolor="white", label=s) for s in names]
    fig.legend(handles=handles, loc="upper center", ncol=4, bbox_to_anchor=(0.5, 1.0), handlelength=1.6,
               columnspacing=1.2)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.75 / fig.get_figheight()))
    return fig


def ratio_figure(curves: Sequence[tuple[str, pd.DataFrame]]) -> Figure:
    """The papers' Fig. 7 on every dataset of the chapter: positive ratio against popularity rank."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
    for (name, curve), marker in zip(curves, MARKERS, strict=False):
        ax.plot(curve["rank"], curve["ratio"], marker=marker, ms=3, lw=1, label=name)
    ax.set(xscale="log", xlabel="item popularity rank (segment means, log scale)",
           ylabel=r"$|PR(i)| \,/\, |R(i)|$", ylim=(0, 1.05))
    ax.legend()
    fig.tight_layout()
    return fig


def index_figure(indices: pd.DataFrame) -> Figure:
    """The popularity index of every design and metric, one marker per dataset, coloured by the set of
    systems it reads (the papers' set, today's top-N learners); lines separate the designs under P@10, the
    papers' Fig. 9 metrics and the propensity estimators."""
    methods = list(dict.fromkeys(indices["method"]))
    fig, ax = plt.subplots(figsize=(WIDTH, 1.8 + 0.36 * len(methods)))
    datasets = list(dict.fromkeys(indices["dataset"]))
    for (dataset, system_set), part in indices.groupby(["dataset", "set"], sort=False):
        colour, shift = SET_STYLES[system_set]
        ax.scatter(part["index"], [methods.index(m) + shift for m in part["method"]],
                   marker=MARKERS[datasets.index(dataset)], s=36, color=colour, zorder=3)
    metric_of = indices.drop_duplicates("method").set_index("method")["metric"]
    kind = [0 if metric_of[m] == "P@10" else 1 if metric_of[m] in FIG9 else 2 for m in methods]
    for k in np.flatnonzero(np.diff(kind)):
        ax.axhline(k + 0.5, color="#999999", lw=0.8)
    ax.axvline(0, color="#555555", lw=0.9)
    ax.axvline(1, color="#555555", lw=0.9, ls="--")
    ax.set_yticks(range(len(methods)), [m.replace(" -10%", " −10%") for m in methods])
    ax.set_ylim(len(methods) - 0.5, -0.5)
    ax.set_xlabel("popularity index: 0 = Random, 1 = best personalised system of the set")
    handles = [Patch(color=SET_STYLES[name][0], label=name) for name in dict.fromkeys(indices["set"])]
    handles += [Line2D([], [], ls="", marker=MARKERS[k], color="#555555", label=name)
                for k, name in enumerate(datasets)]
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(len(handles), 4),
              handletextpad=0.3)
    fig.tight_layout()
    return fig


def _family_line(family: str, **style) -> dict:
    """How the sweep draws an estimator family: stratified recall as open squares on a heavier line."""
    colour, line = FAMILY_STYLES[family]
    strata = family == "PSR"
    return {"color": colour, "ls": line, "marker": "s" if strata else "o", "ms": 6 if strata else 4,
            "mfc": "none" if strata else colour} | style


def sweep_figure(sweeps: pd.DataFrame) -> Figure:
    """The popularity index over the weight exponent ``beta`` (stratified recall at
    ``beta = gamma / (gamma + 1)``), one panel per dataset, in AR."""
    datasets = list(dict.fromkeys(sweeps["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), figsize=(WIDTH, 4.4), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], datasets, strict=True):
        for family, part in sweeps[sweeps["dataset"] == name].groupby("family", sort=False):
            part = part.sort_values("beta")
            ax.plot(part["beta"], part["index"], **_family_line(family, lw=2 if family == "PSR" else 1.5,
                                                                zorder=3 if family == "PSR" else 2))
        ax.axhline(0, color="#555555", lw=0.9)
        ax.axhline(1, color="#555555", lw=0.9, ls="--")
        ax.set_xlabel(r"weight exponent $\beta$")
        ax.set_title(f"dataset: {name}", loc="left")
    axes[0][0].set_ylabel("popularity index")
    handles = [Line2D([], [], label=label, **_family_line(family)) for family, label in FAMILIES.items()]
    fig.legend(handles=handles, loc="lower center", ncol=3, handlelength=2.2)
    fig.tight_layout(rect=(0, 0.6 / fig.get_figheight(), 1, 1))
    return fig

"""The chapter's figures: the toy target sets (IRJ Fig. 1), the comparison's precision (IRJ Fig. 2) and the
lemma's band (IRJ Fig. 3), in the book's colours; today's top-N MF and kNN hatched (:data:`TOP_N_HATCH`), the
legend grouping the systems by set, every panel captioned with its dataset.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from recbias.bookkit.plotting import dataset_caption, legend_outside, palette
from recbias.chapters.c02_designs.study.comparison import N, SET_NAMES, TOP_N, DesignStudy, set_of
from recbias.chapters.c02_designs.study.lemma import REMOVAL
from recbias.chapters.c02_designs.study.toy import TOY_ITEMS, TOY_USERS, ToyTargetSet, fig1_toy

_RELEVANT, _NONRELEVANT, _TRAINED = "#1a7f37", "#8fb8de", "#dddddd"
#: the caption of the toy figure's panels
TOY_CAPTION = "hand-made toy"
#: hatching of the bars of the systems only today's top-N set has
TOP_N_HATCH = "///"


def set_legend(figure: Figure, handles: dict[str, Artist]) -> Legend:
    """One legend column at the right edge of the figure, the systems grouped under the set they belong to
    (both sets, the papers', today's top-N), each group under its heading in bold; the panels are laid out
    in the width the legend leaves."""
    entries, headings = [], []
    for group, heading in SET_NAMES.items():
        members = [s for s in handles if set_of(s) == group]
        if members:
            headings.append(len(entries))
            entries += [(Line2D([], [], linestyle="none"), heading)] + [(handles[s], s) for s in members]
    handles_in_order, labels = (list(column) for column in zip(*entries, strict=True))
    return legend_outside(figure, handles_in_order, labels, bold=tuple(headings), handlelength=1.4, frameon=False)


def _toy_ratings_panel(ax: plt.Axes) -> None:
    """The toy's stars: positive ones green and bold, test ones circled."""
    for frame, held_out in zip(fig1_toy(), (False, True), strict=True):
        for user, item, value in zip(frame.users, frame.items, frame.values, strict=True):
            positive = value >= frame.positive_threshold
            ax.text(item, user, f"{value:g}", ha="center", va="center", fontsize=14,
                    color=_RELEVANT if positive else "#b42318", fontweight="bold" if positive else "normal")
            if held_out:
                ax.scatter(item, user, s=520, facecolors="none", edgecolors="#333333", linewidths=1.2)
    ax.set_ylim(len(TOY_USERS) - 0.5, -0.5)
    ax.set_yticks(range(len(TOY_USERS)), [f"${u}$" for u in TOY_USERS])
    ax.set_title("stars of each user (circled: held out for test)", loc="left")


def _toy_sets_panel(ax: plt.Axes, target_sets: Sequence[ToyTargetSet]) -> None:
    """One row per target set of ``u``: its relevant and non-relevant items, and ``u``'s training items."""
    train, _ = fig1_toy()
    trained = set(train.items[train.users == TOY_USERS.index("u")].tolist())
    for row, target in enumerate(target_sets):
        for item in range(len(TOY_ITEMS)):
            colour, text = (
                (_RELEVANT, "rel") if item in target.relevant
                else (_NONRELEVANT, "non") if item in target.items
                else (_TRAINED, "train") if item in trained
                else ("white", "")
            )
            ax.add_patch(Rectangle((item - 0.46, row - 0.42), 0.92, 0.84, color=colour))
            ax.text(item, row, text, ha="center", va="center", fontsize=10.5,
                    color="white" if colour == _RELEVANT else "#222222")
    ax.set_ylim(len(target_sets) - 0.5, -0.5)
    labels = [f"{t.design}: $T_u^{t.index}$" if t.index else t.design for t in target_sets]  # 1R: which relevant item
    ax.set_yticks(range(len(target_sets)), labels)
    ax.set_title("target sets of user $u$", loc="left")
    ax.set_xlim(-0.5, len(TOY_ITEMS) - 0.5)
    ax.set_xticks(range(len(TOY_ITEMS)), [f"${i}$" for i in TOY_ITEMS])
    ax.set_xlabel("item")


def toy_figure(target_sets: Sequence[ToyTargetSet]) -> Figure:
    """The toy matrix (stars, positive ones green, test ones circled) above the target sets of ``u``."""
    fig, (ax_m, ax_t) = plt.subplots(2, 1, figsize=(6.4, 6.6), sharex=True,
                                     gridspec_kw={"height_ratios": [len(TOY_USERS) + 0.4, len(target_sets)]})
    _toy_ratings_panel(ax_m)
    _toy_sets_panel(ax_t, target_sets)
    ax_m.tick_params(labelbottom=False)
    for ax in (ax_m, ax_t):
        ax.grid(False)
    dataset_caption(ax_t, TOY_CAPTION)
    fig.legend(handles=[Patch(color=_RELEVANT, label="relevant"), Patch(color=_NONRELEVANT, label="non-relevant"),
                        Patch(color=_TRAINED, label="training item of $u$")],
               loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def precision_figure(study: DesignStudy) -> Figure:
    """Mean P@10 of every system under every design, one panel per dataset, with the 95% intervals of
    :attr:`~.study.comparison.DesignStudy.summary` (users as the unit) as error bars; the bars of today's
    top-N MF and kNN hatched, the legend grouped by set (:func:`set_legend`)."""
    colour = palette(list(study.systems))
    by_dataset = list(study.summary.groupby("dataset", sort=False))
    figure, axes = plt.subplots(1, len(by_dataset), figsize=(8.6, 4.4), squeeze=False,
                                gridspec_kw={"width_ratios": [part["design"].nunique() for _, part in by_dataset]})
    width = 0.84 / len(study.systems)
    handles = {}
    for ax, (name, part) in zip(axes[0], by_dataset, strict=True):
        designs = list(dict.fromkeys(part["design"]))
        for j, (system, rows) in enumerate(part.groupby("system", sort=False, observed=True)):
            errors = [rows["mean"] - rows["ci_low"], rows["ci_high"] - rows["mean"]]
            bars = ax.bar(np.arange(len(rows)) + (j - (len(study.systems) - 1) / 2) * width, rows["mean"], width,
                          color=colour[system], hatch=TOP_N_HATCH if set_of(system) == TOP_N else None,
                          edgecolor="white", linewidth=0.3, yerr=errors, capsize=1.5, error_kw={"elinewidth": 0.8})
            handles[system] = bars.patches[0]
        ax.set_xticks(range(len(designs)), [d.replace("1R ", "1R\n") for d in designs])
        ax.set(xlabel="design", ylabel=f"P@{N}")
        dataset_caption(ax, str(name))
    set_legend(figure, {s: handles[s] for s in study.systems})
    return figure


def lemma_figure(sweep: pd.DataFrame, dataset: str) -> Figure:
    """1R P@10 between its AR bounds (IRJ 2017 Eq. 2) along the two sweeps of
    :func:`~.study.lemma.lemma_sweep`, one panel per sweep."""
    systems = list(dict.fromkeys(sweep["system"]))
    colour = palette(list(systems))
    parts = list(sweep.groupby("sweep", sort=False))
    figure, axes = plt.subplots(1, len(parts), figsize=(7.0, 4.3), squeeze=False, sharey=True)
    for ax, (name, part) in zip(axes[0], parts, strict=True):
        for system, rows in part.groupby("system", sort=False):
            ax.fill_between(rows["x"], rows["lower"], rows["upper"], color=colour[system], alpha=0.18, linewidth=0)
            ax.plot(rows["x"], rows["value"], marker="o", color=colour[system], label=system)
            ax.plot(rows["x"], rows["lower"], color=colour[system], linestyle=":", linewidth=1.4)
            ax.plot(rows["x"], rows["upper"], color=colour[system], linestyle="--", linewidth=1.4)
        if name == REMOVAL:
            ax.set_xlabel("test ratings removed")
            ax.xaxis.set_major_formatter(mticker.PercentFormatter(1.0, decimals=0))
        else:
            ax.set_xlabel("target set size $|T_u^r|$")
        dataset_caption(ax, dataset)
    axes[0][0].set(ylabel=f"1R P@{N}", ylim=(0, None))
    handles = [Line2D([], [], color=colour[s], marker="o", label=s) for s in systems] + [
        Line2D([], [], color="#444444", linestyle=":", linewidth=1.4, label="lower bound"),
        Line2D([], [], color="#444444", linestyle="--", linewidth=1.4, label="upper bound"),
    ]
    figure.legend(handles=handles, loc="lower center", ncol=len(handles), handlelength=1.8, columnspacing=1.0)
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    return figure

"""Chapter 3 ("The test-sparsity bias"): P@n next to its lift over random, ``P@n / rho``, across datasets.

The five systems under the AR and the 1R design on the first split of every available dataset
(:func:`lift_study`), how far each system's values spread across datasets and designs
(:func:`spread_factors`), and the page's tables, sentences and figure of that comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.designs import build_runs
from recbias.evaluate import UserBootstrap
from recbias.evaluate.experiment import choose_designs, evaluate_fold, fit_systems
from recbias.splits import fold_seed, make_folds
from recbias.experiments.sparsity_figures import plain_log_ticks
from recbias.experiments.sparsity_fits import draw_interval
from recbias.experiments.sparsity_sweep import personalised, target_rows
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS
from recbias.text import fmt_span

def lift_datasets(here: Ratings, seed: int, compare_all: bool) -> list[Ratings]:
    """The page's dataset, then (``compare_all``) each other available real dataset and the ``synthetic`` world."""
    chosen = [here]
    if compare_all:
        for name in ("synthetic", *(n for n in datasets.names() if n not in PRESETS and n != "coat")):
            if name != here.name and datasets.available(name):
                chosen.append(datasets.load(name, **({"seed": seed} if name in PRESETS else {})))
    return chosen


def lift_study(
    collections: Sequence[Ratings],
    systems: Mapping[str, str],
    *,
    max_an_entries: int,
    an_nonrelevant: int,
    base_size: int = 100,
    test_ratio: float = 0.2,
    n: int = 10,
    n_boot: int = 200,
    seed: int = 0,
    cache: bool = True,
) -> pd.DataFrame:
    """P@n and its lift over random, ``P@n / rho``, of every system on every dataset and design.

    Fold 0 of each dataset (the split of the sweeps), the TI design of
    :func:`recbias.evaluate.experiment.choose_designs` (AN, or NN on large catalogues) and
    1R TI-NN(``base_size - 1``).  The lift is the ratio of the mean P@n to the mean ``rho`` of the
    same runs (both over runs, as IRJ Eq. 1); its interval comes from a bootstrap over users.
    Columns: ``dataset``, ``design``, ``system``, ``P``, ``P_ci``, ``rho``, ``lift``, ``lift_ci``.
    """
    rows = []
    for ratings in collections:
        (fold,) = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed, cache=cache)
        choice = choose_designs(ratings, target_size=base_size, max_an_entries=max_an_entries,
                                n_nonrelevant=an_nonrelevant)
        designs = [choice.main_ar, choice.one_r]
        runs = {d: build_runs(fold.train, fold.test, d, on_shortage="exclude", seed=fold_seed(seed, k))
                for k, d in enumerate(designs)}
        runs = {d: r for d, r in runs.items() if r.n_runs}
        table = evaluate_fold(fold, fitted, runs, [f"P@{n}"], seed=seed)
        targets = pd.concat([target_rows(fold, d, r) for d, r in runs.items()], ignore_index=True)
        boot = UserBootstrap(table["user"].to_numpy(), n_boot=n_boot, seed=seed)
        precision = boot.means(table, f"P@{n}", ("design", "system"))
        rho = boot.means(targets, "rho", ("point",))
        for (design, system), draws in precision.iterrows():
            lift = draws.to_numpy() / rho.loc[design].to_numpy()
            rows.append({"dataset": ratings.name, "design": design, "system": system, "P": draws[0],
                         "P_ci": draw_interval(draws.to_numpy()), "rho": rho.loc[design, 0], "lift": lift[0],
                         "lift_ci": draw_interval(lift)})
    return pd.DataFrame(rows)


def spread_factors(lift: pd.DataFrame) -> pd.DataFrame:
    """Per system, the largest over the smallest value of P@n and of the lift: across the datasets
    within each kind of design (AR, 1R), and across every dataset and design together."""
    kind = np.where(lift["design"].str.startswith("1R"), "1R", "AR")
    columns = {}
    for label, part in (("AR", lift[kind == "AR"]), ("1R", lift[kind == "1R"]), ("all", lift)):
        grouped = part.groupby("system", sort=False)
        for value in ("P", "lift"):
            columns[(label, value)] = grouped[value].max() / grouped[value].min()
    return pd.DataFrame(columns).reindex(list(dict.fromkeys(lift["system"])))


def _ordered(lift: pd.DataFrame) -> pd.DataFrame:
    """``lift`` with the AR configurations first and the 1R ones after, datasets in their order within each."""
    one_r = lift["design"].str.startswith("1R")
    return pd.concat([lift[~one_r], lift[one_r]], ignore_index=True)


def lift_table(lift: pd.DataFrame) -> pd.DataFrame:
    """P@n of every system per dataset and design over its lift (``12.0×``), with ``rho``; AR rows first."""
    ordered = _ordered(lift)
    cells = ordered.assign(cell=[f"{p:.4f}<br><small>{l:.1f}×</small>"
                                 for p, l in zip(ordered["P"], ordered["lift"], strict=True)],
                           where=[f"{d}<br><small>{g}</small>" for d, g in zip(ordered["dataset"], ordered["design"],
                                                                             strict=True)],
                           rho=ordered["rho"].map(lambda r: f"{r:.4f}"))
    wide = cells.pivot_table(index=["where", "rho"], columns="system", values="cell", aggfunc="first", sort=False)
    return wide[list(dict.fromkeys(lift["system"]))].rename_axis(columns=None).reset_index() \
        .rename(columns={"where": "dataset, design", "rho": "ρ"})


def spread_table(lift: pd.DataFrame, n: int) -> pd.DataFrame:
    """:func:`spread_factors` as a page table, one row per system."""
    spread = spread_factors(lift)
    labels = {("AR", "P"): f"AR P@{n}", ("AR", "lift"): "AR lift", ("1R", "P"): f"1R P@{n}", ("1R", "lift"): "1R lift",
              ("all", "P"): f"P@{n}, all designs", ("all", "lift"): "lift, all designs"}
    table = spread[list(labels)].set_axis(list(labels.values()), axis=1)
    return table.map(lambda v: f"{v:.1f}×").rename_axis("system").reset_index()


def lift_text(lift: pd.DataFrame, n: int) -> str:
    """What the lift over random does and does not put on one scale."""
    configurations = lift.groupby(["dataset", "design"], sort=False).ngroups
    if lift["dataset"].nunique() < 2:
        return (f"Only this page's dataset is available to this build ({configurations} designs), so the comparison "
                "across datasets is not made; build with `compare_all = True` on a machine with the other datasets.")
    spread = spread_factors(lift).loc[personalised(lift["system"].unique())]
    ar = lift[~lift["design"].str.startswith("1R")]
    rho = ar.groupby("dataset", sort=False)["rho"].first()
    t = round(1 / lift.loc[lift["design"].str.startswith("1R"), "rho"].iloc[0])

    def span(column: tuple[str, str]) -> str:
        return fmt_span(spread[column].min(), spread[column].max(), "{:.1f}")

    one_r_better = bool((spread[("1R", "P")] < spread[("AR", "P")]).all())
    lift_helps = bool((spread[("AR", "lift")] < spread[("AR", "P")]).all())
    return (
        f"Across the datasets, ρ under AR ranges from {rho.min():.4f} ({rho.idxmin()}) to {rho.max():.4f} "
        f"({rho.idxmax()}); under 1R it is 1/{t} everywhere. For the systems other than Random, AR P@{n} spreads by a "
        f"factor of {span(('AR', 'P'))} across the datasets and 1R P@{n} by {span(('1R', 'P'))}"
        + (": with t fixed by the design, 1R values are the more comparable, as the papers suggest. " if one_r_better
           else ": fixing t does not make 1R values more comparable than AR ones here. ")
        + (f"Dividing by ρ narrows the spread of AR values to {span(('AR', 'lift'))}" if lift_helps
           else f"Dividing by ρ does not help AR: the lift spreads by {span(('AR', 'lift'))}")
        + f"; across all datasets and designs together the lift spreads by {span(('all', 'lift'))} against "
        f"{span(('all', 'P'))} for P@{n} itself. Random precision falls as 1/t, a good system's more slowly (the size "
        "sweep above), so the lift of a good system grows as ρ shrinks: it says how far a system is above random "
        "*within* one experiment, and is not a scale on which experiments can be compared."
    )


def lift_figure(lift: pd.DataFrame, colours: Mapping[str, str], n: int):
    """P@n (top) and lift over random (bottom) of every system on every dataset, AR designs on the left of the
    dotted line and 1R on the right, log scales, with 95% bootstrap intervals."""
    import matplotlib.pyplot as plt

    ordered = _ordered(lift)
    configurations = list(dict.fromkeys(zip(ordered["dataset"], ordered["design"], strict=True)))
    fig, axes = plt.subplots(2, 1, figsize=(7.2, 6.8), sharex=True)
    xs = np.arange(len(configurations))
    offsets = np.linspace(-0.24, 0.24, lift["system"].nunique())
    for offset, (system, part) in zip(offsets, ordered.groupby("system", sort=False), strict=True):
        part = part.set_index(["dataset", "design"]).reindex(configurations)
        for ax, column in zip(axes, ("P", "lift"), strict=True):
            low, high = np.array(part[f"{column}_ci"].tolist()).T
            ax.errorbar(xs + offset, part[column], yerr=[part[column] - low, high - part[column]], fmt="o",
                        color=colours[system], label=system, ms=5, elinewidth=1)
    split = int((~ordered["design"].str.startswith("1R")).sum() / lift["system"].nunique()) - 0.5
    for ax, label in zip(axes, (f"P@{n}", rf"lift, P@{n}$\,/\,\rho$"), strict=True):
        ax.set(yscale="log", ylabel=label)
        plain_log_ticks(ax.yaxis)
        ax.axvline(split, color="#888888", ls=":", lw=1.2)
    axes[0].text(split - 0.1, 1.0, "AR ", transform=axes[0].get_xaxis_transform(), ha="right", va="bottom")
    axes[0].text(split + 0.1, 1.0, " 1R", transform=axes[0].get_xaxis_transform(), ha="left", va="bottom")
    axes[1].set_xticks(xs, [d for d, _ in configurations], rotation=30, ha="right")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(labels), loc="upper center", handletextpad=0.3, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig

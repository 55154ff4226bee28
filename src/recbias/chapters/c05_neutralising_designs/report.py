"""Chapter 5's tables: the uniform split of each dataset, the papers' Figs. 8 and 9 as numbers, the sizes of
the designs, popularity's index under P@10 with each set of systems as the scale, how popularity stands against
the rating predictors, popularity's advantage predicted and measured, and the ends of the exponent sweep."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from recbias.chapters.c05_neutralising_designs.study import (
    FAMILIES, FIG8, FIG9, PAPERS, PAPERS_SET, SYSTEMS, TOP_N, DatasetStudy, UniformPlan,
)
from recbias.text import fmt_pm

def plan_table(plans: Sequence[tuple[str, UniformPlan]]) -> pd.DataFrame:
    """One row per dataset: the test ratio asked, the largest a uniform split can hold and the one used,
    ``eps``, ``|T|`` and its share of the rated items, ``eta`` and the share held out under the paper's rule,
    and ``|T|``, ``eta`` under the floor rule (0 when it has no split)."""
    return pd.DataFrame([{
        "dataset": name, "rated items": p.n_items, "σ asked": p.requested, "largest σ": p.largest, "σ used": p.used,
        "ε": p.min_train_ratio, "|T|": p.size, "of the items": p.size / p.n_items, "η": p.eta,
        "held out": p.achieved, "|T| (floor)": p.floor_size, "η (floor)": p.floor_eta,
    } for name, p in plans])


def fig8_table(summaries: Sequence[pd.DataFrame], metric: str = "P@10") -> pd.DataFrame:
    """One row per (dataset, design) in the order of Fig. 8, one column per system (the papers' set, then
    today's top-N learners): the mean over the half-width of its 95% interval."""
    table = pd.concat(summaries, ignore_index=True)
    table = table[table["metric"] == metric]
    table = table.assign(cell=[fmt_pm(m, (h - l) / 2, 4) for m, l, h in
                               zip(table["mean"], table["ci_low"], table["ci_high"], strict=True)])
    wide = table.pivot_table(index=["dataset", "label"], columns="system", values="cell", aggfunc="first",
                             observed=True, sort=False)
    order = [(name, label) for name in dict.fromkeys(table["dataset"]) for label in FIG8
             if (name, label) in wide.index]
    wide = wide.reindex(index=order, columns=list(SYSTEMS))
    wide.index = wide.index.set_levels(wide.index.levels[1].str.replace("-head", "−10% head"), level=1)
    wide.index.names = [None, None]
    wide.columns = pd.MultiIndex.from_tuples([(PAPERS, s) if s in PAPERS_SET else (TOP_N, s.removesuffix(" (top-N)"))
                                              for s in wide.columns])
    return wide


def size_table(studies: Sequence[DatasetStudy]) -> pd.DataFrame:
    """Per dataset and design (rows, in the order of Fig. 8, then the Fig. 9 configuration): the design, the
    splits it was measured on, and the means over splits of the candidates, runs, target set size and runs
    left out."""
    reports = pd.concat([s.reports.assign(dataset=s.name) for s in studies], ignore_index=True)
    reports["target size"] = reports["candidates"] / reports["n_runs"].clip(lower=1)
    table = (reports.groupby(["dataset", "label", "design"], sort=False)
             .agg(splits=("fold", "nunique"), **{"|C|": ("n_candidates", "mean"), "runs": ("n_runs", "mean"),
                  "|T_u|": ("target size", "mean"), "left out": ("shortage_runs", "mean")})
             .reset_index())
    table["label"] = pd.Categorical(table["label"], [*FIG8, "AR TI-AN"])
    table["dataset"] = pd.Categorical(table["dataset"], list(dict.fromkeys(table["dataset"])))
    table = table.sort_values(["dataset", "label"], kind="stable").drop(columns="label")
    return table.set_index(["dataset", "design"]).rename_axis([None, None])


def p10_index_table(indices: pd.DataFrame) -> pd.DataFrame:
    """Popularity's index under P@10, one row per dataset and set of systems that sets the scale, one column
    per design in the order of the index figure."""
    rows = indices[indices["metric"] == "P@10"]
    table = rows.pivot_table(index=["dataset", "set"], columns="method", values="index", sort=False)
    table = table[list(dict.fromkeys(rows["method"]))]
    table.columns = [method.removesuffix(", P@10").replace(" -10%", " −10%") for method in table.columns]
    return table.rename_axis(index=[None, None], columns=None)


def predictors_table(summaries: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """How many of the papers' two rating predictors popularity's P@10 exceeds, one row per dataset and one
    column per design of Fig. 8 (``summaries``: :func:`.study.fig8_summary` of each dataset)."""
    rows = {}
    for summary in summaries:
        p10 = summary[summary["metric"] == "P@10"].set_index(["label", "system"])["mean"]
        rows[summary["dataset"].iloc[0]] = {
            label.replace("-head", "−10% head"): sum(p10[(label, "Popularity")] > p10[(label, system)]
                                                     for system in ("rating-MF", "rating-kNN"))
            for label in FIG8 if (label, "Popularity") in p10.index}
    return pd.DataFrame.from_dict(rows, orient="index")


def lift_table(studies: Sequence[DatasetStudy]) -> pd.DataFrame:
    """Popularity's P@10 over random's per dataset and split: the item weight of Eq. 3, its two
    predictions and the measured ratio."""
    table = pd.concat([s.lift.assign(dataset=s.name) for s in studies], ignore_index=True)
    table["design"] = table["design"].replace({"AR TI-AN": "AR"})
    return table.set_index(["dataset", "design"]).rename_axis([None, None])


def fig9_table(indices: pd.DataFrame) -> pd.DataFrame:
    """The papers' Fig. 9 metrics per dataset, metric and design: popularity, random, the best personalised
    system of the papers' set (named on a second line) and the popularity index."""
    rows = indices[indices["metric"].isin(FIG9) & (indices["set"] == PAPERS)]
    best = [f"{value:.4f}<br><small>{name}</small>"
            for value, name in zip(rows["best personalised"], rows["best system"], strict=True)]
    table = rows.assign(**{"best personalised": best, "metric": rows["metric"].map(
        {"bpref": "bpref", "infAP": "infAP", "PSR@10(gamma=1)": "stratified recall"}),
        "design": [method.split(",")[0] for method in rows["method"]]})
    table = table[["dataset", "metric", "design", "Popularity", "Random", "best personalised", "index"]]
    return table.set_index(["dataset", "metric", "design"]).rename_axis([None, None, None])


def sweep_ends_table(sweeps: pd.DataFrame) -> pd.DataFrame:
    """Popularity's index at the smallest and at the largest exponent of each estimator family of the sweep,
    and the change between them, one row per dataset and estimator."""
    ends = sweeps.sort_values("beta", kind="stable").groupby(["dataset", "family"], sort=False)["index"]
    table = pd.DataFrame({"smallest exponent": ends.first(), "largest exponent": ends.last()})
    table["change"] = table["largest exponent"] - table["smallest exponent"]
    order = [(name, family) for name in dict.fromkeys(sweeps["dataset"]) for family in FAMILIES
             if (name, family) in table.index]
    table = table.loc[order]
    table.index = pd.MultiIndex.from_tuples([(name, FAMILIES[family]) for name, family in order])
    return table

"""Chapter 2's display tables: the size and the precision of each evaluation, the paired tests, the support of
every system's lists and the papers' kNN beside its variant, the metrics beyond P@10, the lemma's points, the
orders of systems and the published numbers, each saying which set a system belongs to (the papers' set, today's
top-N set, or both); and the systems' settings in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from recbias.bookkit.scorecard import NUMBER, Claim
from recbias.cache import recommender_params
from recbias.chapters.c02_designs.study.comparison import (
    ALPHA,
    METRICS,
    N,
    SET_NAMES,
    SETS,
    SYSTEMS,
    DesignStudy,
    set_of,
)
from recbias.chapters.c02_designs.study.lemma import REMOVAL
from recbias.chapters.c02_designs.study.support import FEW, KNN_SYSTEMS, SupportStudy
from recbias.chapters.c02_designs.study.truth import TruthCheck
from recbias.recommenders import SUPPORTED_KNN, make
from recbias.text import (
    TARGET_SIZE_HTML,
    fmt_number,
    fmt_p_clause,
    fmt_p_html,
    fmt_pct,
    fmt_signed,
    fmt_yes,
    order_text,
)

#: parameter of a recommender -> how the settings table words it (parameters not listed are left out)
SETTING_WORDS = {
    "n_aspects": lambda v: f"{v} aspects",
    "factors": lambda v: f"{v} factors",
    "k": lambda v: f"{v} neighbours",
    "iterations": lambda v: f"{v} iterations",
    "regularization": lambda v: f"regularisation {v:g}",
    "alpha": lambda v: f"confidence weight {v:g}",
    "beta": lambda v: f"tempering {v:g}",
    "tol": lambda v: f"tolerance {v:g}",
    "feedback": lambda v: "rating values as input" if v == "values" else f"{v} input",
    "positive_only": lambda v: "positive ratings only" if v else "every rating counts",
}
#: columns of :func:`orders_table`
ORDER, TOP = "order, best first", f"P@{N} of the first"
#: columns of :func:`orders_table` that compare a design's order with the true one
AGREEMENT = ("τ", "pairs in true order", "truly best first")
#: how the tables name the set of the papers' kNN's variant, which belongs to neither set
VARIANT_SET = "beside the papers' set"
#: glue name -> system of :data:`KNN_SYSTEMS`, for :func:`support_numbers`
KNN_NAMES = dict(zip(("knn", "variant", "random"), KNN_SYSTEMS, strict=True))


def system_settings(systems: Mapping[str, str] = SYSTEMS, seed: int = 0) -> dict[str, str]:
    """The settings of each system's preset in words (:data:`SETTING_WORDS`), by preset; "–" for none."""
    params = {preset: recommender_params(make(preset, seed=seed)) for preset in systems.values()}
    return {preset: ", ".join(SETTING_WORDS[k](v) for k, v in mine.items() if k in SETTING_WORDS) or "–"
            for preset, mine in params.items()}


def size_table(study: DesignStudy) -> pd.DataFrame:
    """Size of the evaluation per dataset and design, means over splits: runs (users in AR, relevant test
    ratings in 1R), their users, the candidate items, the items ranked by each system in all (``items
    ranked``) and the runs left out over all splits because a user had too few candidates."""
    reports = pd.concat([e.reports for e in study.experiments], ignore_index=True)
    return (
        reports.groupby(["dataset", "design"], sort=False)
        .agg(splits=("fold", "nunique"), runs=("n_runs", "mean"), users=("n_users", "mean"),
             candidates=("n_candidates", "mean"), entries=("candidates", "mean"), excluded=("shortage_runs", "sum"))
        .reset_index()
        .rename(columns={"candidates": "candidate items", "entries": "items ranked", "excluded": "runs left out"})
    )


def pair_cell(pair: tuple[str, str], difference: float, p: float) -> str:
    """A pair of systems with its difference in P@10 (first minus second) and p-value below it (HTML)."""
    shown = fmt_p_html(p)
    p_clause = f"p {shown}" if shown.startswith("<") else f"p = {shown}"
    return f"{pair[0]} vs {pair[1]}<br><small>{fmt_signed(difference, 4).replace('-', '−')}, {p_clause}</small>"


def interval_cells(summary: pd.DataFrame) -> pd.DataFrame:
    """``summary`` with a column ``cell``: each mean with the half-width of its 95% interval below it (HTML)."""
    return summary.assign(cell=[f"{fmt_number(m, 4)}<br><small>± {fmt_number((h - lo) / 2, 4)}</small>" for m, lo, h
                                in zip(summary["mean"], summary["ci_low"], summary["ci_high"], strict=True)])


def precision_table(study: DesignStudy) -> pd.DataFrame:
    """Mean P@10 with the half-width of its 95% interval (cells as HTML): one row per system, under the set it
    belongs to, one column per (dataset, design)."""
    wide = interval_cells(study.summary).pivot_table(index="system", columns=["dataset", "design"], values="cell",
                                                     aggfunc="first", observed=True, sort=False)
    wide = wide.reindex(index=study.systems, columns=pd.MultiIndex.from_tuples(study.panels))
    wide.index = pd.MultiIndex.from_tuples([(SET_NAMES[set_of(s)], s) for s in study.systems],
                                           names=[("set", ""), ("system", "")])
    return wide.reset_index()


def significance_table(study: DesignStudy) -> pd.DataFrame:
    """The paired tests within each set of systems as the page shows them: per design and set, the
    significant pairs and the closest pair with its difference (first minus second system) and p-value
    below it (HTML)."""
    frames = [study.tests(which).assign(set=SET_NAMES[which]) for which in SETS]
    panels = {panel: k for k, panel in enumerate(study.panels)}
    tests = pd.concat(frames, ignore_index=True)
    tests = tests.iloc[sorted(range(len(tests)), key=lambda k: panels[(tests["dataset"][k], tests["design"][k])])]
    return pd.DataFrame({
        "dataset": tests["dataset"], "design": tests["design"], "set": tests["set"],
        f"pairs with p < {ALPHA:g}": [f"{k} of {n}" for k, n in zip(tests["significant"], tests["pairs"], strict=True)],
        "closest pair": [pair_cell(pair, d, p) for pair, d, p in zip(tests["closest pair"], tests["difference"],
                                                                      tests["p"], strict=True)],
    }).reset_index(drop=True)


def support_display(support: SupportStudy) -> pd.DataFrame:
    """The support of every system's top 10 on the first split: the set it belongs to, the median and the mean
    training ratings of its items and the share with at most :data:`FEW`."""
    table = support.support
    return pd.DataFrame({
        "set": [VARIANT_SET if s in SUPPORTED_KNN else SET_NAMES[set_of(s)] for s in table["system"]],
        "system": table["system"], "median": [f"{m:g}" for m in table["median"]],
        f"≤ {FEW} ratings": [fmt_pct(x) for x in table["few_share"]], "mean": [f"{m:.1f}" for m in table["mean"]],
    })


def knn_table(support: SupportStudy) -> pd.DataFrame:
    """Mean P@10 of :data:`KNN_SYSTEMS` with the half-width of its 95% interval, one column per design, and a
    last row with the Wilcoxon p-value of the variant against the papers' kNN (cells as HTML)."""
    wide = interval_cells(support.knn.summary(["P@10"])).pivot_table(
        index="system", columns="design", values="cell", aggfunc="first", observed=True, sort=False)
    designs = list(wide.columns)
    wide = wide.reindex(list(KNN_SYSTEMS)).rename_axis(index=None, columns=None)
    test = pd.DataFrame([[fmt_p_html(support.pvalue(d)) for d in designs]], columns=designs,
                        index=[f"p, {KNN_NAMES['variant']} vs {KNN_NAMES['knn']}"])
    return pd.concat([wide, test]).rename_axis("system").reset_index()


def support_numbers(support: SupportStudy, ar: str, one_r: str) -> dict[str, str]:
    """What the page quotes of :class:`SupportStudy`: the median support and the share with at most :data:`FEW`
    training ratings of each system of :data:`KNN_SYSTEMS` and of popularity, the share of such items in the
    catalogue, and the P@10 of :data:`KNN_SYSTEMS` under the AR design ``ar`` and the 1R design ``one_r`` with
    the p-value of the variant against the papers' kNN."""
    table = support.support.set_index("system")
    numbers = {"few": str(FEW), "catalogue_few": fmt_pct(support.catalogue_few),
               "support_popularity_median": f"{table.loc['Popularity', 'median']:g}"}
    for name, system in KNN_NAMES.items():
        numbers |= {f"support_{name}_median": f"{table.loc[system, 'median']:g}",
                    f"support_{name}_few": fmt_pct(table.loc[system, "few_share"])}
    for design, short in ((ar, "ar"), (one_r, "1r")):
        measured = support.measured(design)
        numbers |= {f"{name}_{short}": fmt_number(measured[system], 4) for name, system in KNN_NAMES.items()}
        numbers[f"variant_{short}_p"] = fmt_p_clause(support.pvalue(design))
    return numbers


def metric_table(study: DesignStudy) -> pd.DataFrame:
    """Mean of every metric per system under the main AR and the 1R design of the page's dataset, with the
    set each system belongs to."""
    designs = [study.choice.main_ar, study.choice.one_r]
    summary = study.main.summary(list(METRICS))
    summary = summary[summary["design"].isin(designs)]
    table = summary.pivot_table(index=["design", "system"], columns="metric", values="mean", observed=True, sort=False)
    table = table.reindex([(d, s) for d in designs for s in study.systems])[list(METRICS)]
    table = table.rename_axis(columns=None).reset_index()
    table.insert(2, "set", [SET_NAMES[set_of(s)] for s in table["system"]])
    return table


def lemma_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """One row per point of the sweeps: its ``setting``, ``runs`` and ``users``, and for each system the lower
    bound, 1R P@10 and the upper bound (columns ``(system, "lower" | "1R P@10" | "upper")``), as text."""
    points = sweep.assign(setting=[f"{x:.0%} removed" if s == REMOVAL else f"{TARGET_SIZE_HTML} = {x:,.0f}"
                                   for s, x in zip(sweep["sweep"], sweep["x"], strict=True)])
    for column in ("lower", "value", "upper"):
        points[column] = [fmt_number(v, 4) for v in points[column]]
    table = points.pivot_table(index=["setting", "runs", "users"], columns="system", values=["lower", "value", "upper"],
                               aggfunc="first", sort=False)
    systems = list(dict.fromkeys(sweep["system"]))
    table = table.swaplevel(axis=1).reindex(columns=[(s, c) for s in systems for c in ("lower", "value", "upper")])
    table = table.rename(columns={"value": f"1R P@{N}"}, level=1).reset_index()
    for column in ("runs", "users"):
        table[(column, "")] = [f"{k:,}" for k in table[(column, "")]]
    return table


def orders_table(study: DesignStudy, check: TruthCheck | None = None) -> pd.DataFrame:
    """Each set's systems from best to worst by P@10 and the P@10 of the first, one row per (set, dataset,
    design), set by set; with a :class:`~.study.truth.TruthCheck`, each set's block opens with its true order
    and gains the columns :data:`AGREEMENT`: for each design of the world, its agreement with the set's true
    order (Kendall's tau-b, pairs in the true order, truly best system first), "–" elsewhere."""
    rows = []
    for which in SETS:
        members = study.members(which)
        truth = None if check is None else check.among(members)
        orders = {} if truth is None else {(truth.dataset, f"true P@{N}"): truth.true.to_dict()}
        orders |= {(dataset, design): study.measured(dataset, design, which) for dataset, design in study.panels}
        pairs = len(members) * (len(members) - 1) // 2
        for (dataset, design), values in orders.items():
            row = {"set": SET_NAMES[which], "dataset": dataset, "design": design, ORDER: order_text(values),
                   TOP: fmt_number(max(values.values()), 4)}
            if truth is not None:
                compared = dataset == truth.dataset and design in truth.measured
                tau, share, best = truth.agreement(design) if compared else (None, None, None)
                row |= dict.fromkeys(AGREEMENT, "–") if not compared else dict(zip(AGREEMENT, (
                    fmt_number(tau, 2), f"{round(share * pairs)} of {pairs}", fmt_yes(best)), strict=True))
            rows.append(row)
    return pd.DataFrame(rows)


def numbers_table(checked: Sequence[Claim]) -> pd.DataFrame:
    """The published numbers among ``checked``: the paper's value and dataset, ours and the dataset it was
    computed on, and the verdict."""
    numbers = [c for c in checked if c.kind == NUMBER]
    return pd.DataFrame({"published number": [c.label for c in numbers], "paper": [f"{c.paper:.2f}" for c in numbers],
                         "paper's dataset": [c.paper_dataset for c in numbers],
                         "ours": [fmt_number(c.ours) for c in numbers], "our dataset": [c.dataset for c in numbers],
                         "verdict": [c.verdict for c in numbers]})

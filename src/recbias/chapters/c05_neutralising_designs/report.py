"""Chapter 5's tables, and the sentences whose structure depends on the data (one per dataset, or one
of a few forms), as short templates."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c05_neutralising_designs.study import (
    FAMILIES,
    FIG8,
    FIG9,
    PAPERS,
    PAPERS_SET,
    SYSTEMS,
    TOP_N,
    TOP_N_LEARNERS,
    DatasetStudy,
    UniformPlan,
    index_of,
    p1r_left_out,
)
from recbias.text import TARGET_SIZE_HTML, and_list, fmt_count, fmt_number, fmt_pct, fmt_pm

#: the rating predictors of the papers' set, set against popularity by :func:`rating_predictors_text`
RATING_PREDICTORS = ("rating-MF", "rating-kNN")

#: what the page says about its second dataset, by :func:`recbias.chapters.c05_neutralising_designs.study.second_status`
SECOND_NOTES = {
    "skipped": "No second dataset was requested (`second_dataset` is empty).",
    "same": "The second dataset, *{requested}*, is this page's own dataset: it is not repeated.",
    "unavailable": "The second dataset, *{requested}*, is not available on the machine that built this page.",
    "available": "The second dataset is {name}, reduced to its positive ratings so that every rating counts "
                 "as relevant, as in the papers' Last.fm setup.",
}
#: where a design puts popularity, by the outcome of the finding that it brings popularity to random's level
LEVEL = {"holds": "random's level", "fails": "above random's level",
         "inconclusive": "too close to the random level to tell beyond noise"}
#: what UAR does to popularity's index, by the outcome of the finding ``uar-reduces``
LOWERS = {"holds": "lowers", "fails": "does not lower", "inconclusive": "does not clearly lower"}

PLAN = ("On {name}, {lowered}$T$ holds the {size:,} most popular of the {items:,} rated items ({share}), "
        "each with $\\eta = {eta}$ test ratings; {floor}.")
LOWERED = ("a test ratio of {requested:g} is out of reach: the popularity curve holds at most "
           "$\\sigma = {largest:.3f}$, so the uniform split is drawn with $\\sigma = {used:g}$, and ")
FLOOR = {"same": "the floor rule draws the same split", "none": "the floor rule finds no split at this ratio",
         "fewer": "the floor rule keeps {fewer} fewer"}
HEAD = {"better": "Removing the head does better than both here, to {head}.",
        "between": "Removing the head, at {head}, falls between the two.",
        "worse": "Removing the head leaves more of it than either, {head}."}
RESIDUAL = ("On {name} the uniform split cuts popularity's P@10 from {ar} times random's (AR) to {uar} times (UAR). "
            "{closer} the prediction closer to the measurement{under}")
CLOSER = {2: "On both splits the training exclusion brings", 1: "Only on the {split} split does the training "
          "exclusion bring", 0: "On neither split does the training exclusion bring"}
UNDER = ("; under UAR both predictions stay below the measured ratio, so part of the residue has another "
         "source.")
SHORTAGE = {True: "{left:,.0f} of {total:,.0f} runs per split ({share}) on {name}", False: "none on {name}"}
BPREF = {True: "On this page such an item is ranked above the relevant one in {below:,} of the {scored:,} scored "
               "1R runs ({share}), which sets their bpref to 0.",
         False: "On this page no such item is ranked above the relevant one, so 1R bpref is 1 throughout."}
INCOMPLETE = ("On {name}, AR P@10 puts popularity at {p10}; {change}{missing}, and {who} as close to random as the "
              "better of P1R and U1R ({lowest}).")
PREDICTORS = "On {name}, popularity's P@10 is {parts}."
PREDICTOR_PART = {2: "above both rating predictors' under {designs}", 1: "between the two under {designs}",
                  0: "below both under {designs}"}
REFERENCE = ("On {name}, with today's top-N learners as the scale, popularity's index is {top_n} in 1R, P1R and U1R; "
             "with the papers' set it is {papers}.")
#: the designs :data:`REFERENCE` names, as rows of the popularity index
REFERENCE_ROWS = ("1R, P@10", "P1R, P@10", "U1R, P@10")
SWEEP = ("On {name}, {trend}; {most} moves it furthest, from {most_from} to {most_to}, and {least} least, from "
         "{least_from} to {least_to}.")


def second_note(status: str, requested: str, studies: Sequence[DatasetStudy]) -> str:
    """:data:`SECOND_NOTES` for ``status``, naming the ``requested`` dataset (and, when studied, its study)."""
    return SECOND_NOTES[status].format(requested=requested, name=studies[-1].name)


def plan_table(plans: Sequence[tuple[str, UniformPlan]]) -> pd.DataFrame:
    """One row per dataset: the test ratio asked and used, ``eps``, ``|T|``, ``eta`` and the
    share held out under the paper's rule, and ``|T|``, ``eta`` under the floor rule."""
    return pd.DataFrame([{
        "dataset": name, "rated items": p.n_items, "σ asked": p.requested, "σ used": p.used,
        "ε": p.min_train_ratio, "|T|": p.size, "η": p.eta, "held out": p.achieved,
        "|T| (floor)": p.floor_size, "η (floor)": p.floor_eta,
    } for name, p in plans])


def plan_text(plan: UniformPlan, dataset: str) -> str:
    """How the uniform split came out on a dataset, in Markdown with inline math."""
    lowered = LOWERED.format(requested=plan.requested, largest=plan.largest, used=plan.used)
    floor = ("same" if (plan.floor_size, plan.floor_eta) == (plan.size, plan.eta) else
             "none" if plan.floor_size == 0 else "fewer")
    return PLAN.format(name=dataset, lowered=lowered if plan.used < plan.requested else "", size=plan.size,
                       items=plan.n_items, share=fmt_pct(plan.size / plan.n_items), eta=plan.eta,
                       floor=FLOOR[floor].format(fewer=fmt_count(plan.size - plan.floor_size, "item", "items")))


def head_sentence(head: float, p1r: float, u1r: float) -> str:
    """Where removing the head puts popularity's index, against P1R and U1R."""
    where = "better" if head < min(p1r, u1r) else "between" if head < max(p1r, u1r) else "worse"
    return HEAD[where].format(head=fmt_number(head, 2))


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


def reference_text(indices: pd.DataFrame) -> str:
    """Popularity's index in 1R, P1R and U1R with each set of systems as the scale, one sentence per dataset."""
    sentences = []
    for name in dict.fromkeys(indices["dataset"]):
        values = {system_set: and_list([fmt_number(index_of(indices, name, row, system_set), 2)
                                        for row in REFERENCE_ROWS]) for system_set in (TOP_N, PAPERS)}
        sentences.append(REFERENCE.format(name=name, top_n=values[TOP_N], papers=values[PAPERS]))
    return " ".join(sentences)


def rating_predictors_text(summary: pd.DataFrame) -> str:
    """Where popularity's P@10 falls against the papers' two rating predictors under each design of Fig. 8
    (``summary``: :func:`recbias.chapters.c05_neutralising_designs.study.fig8_summary` of one dataset)."""
    p10 = summary[summary["metric"] == "P@10"].set_index(["label", "system"])["mean"]
    above = {label: sum(p10[(label, "Popularity")] > p10[(label, s)] for s in RATING_PREDICTORS)
             for label in FIG8 if (label, "Popularity") in p10.index}
    parts = [PREDICTOR_PART[k].format(designs=and_list([d.replace("-head", "−10% head") for d, n in above.items()
                                                         if n == k])) for k in (2, 1, 0) if k in above.values()]
    return PREDICTORS.format(name=summary["dataset"].iloc[0], parts="; ".join(parts))


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
    rank = {label: k for k, label in enumerate((*FIG8, "AR TI-AN"))}
    table = table.assign(rank=table["label"].map(rank), order=table["dataset"].map(
        {name: k for k, name in enumerate(dict.fromkeys(table["dataset"]))}))
    table = table.sort_values(["order", "rank"], kind="stable").drop(columns=["order", "rank", "label"])
    return table.set_index(["dataset", "design"]).rename_axis([None, None])


def shortage_text(studies: Sequence[DatasetStudy]) -> str:
    """How many runs P1R leaves out on each dataset (means per split)."""
    parts = []
    for study in studies:
        left, kept = p1r_left_out(study)
        parts.append(SHORTAGE[bool(round(left) > 0)].format(left=left, total=left + kept, name=study.name,
                                                            share=fmt_pct(left / (left + kept))))
    return "Here P1R leaves out " + ", and ".join(parts) + "."


def lift_table(studies: Sequence[DatasetStudy]) -> pd.DataFrame:
    """Popularity's P@10 over random's per dataset and split: the item weight of Eq. 3, its two
    predictions and the measured ratio."""
    table = pd.concat([s.lift.assign(dataset=s.name) for s in studies], ignore_index=True)
    table["design"] = table["design"].map({"AR TI-AN": "AR", "UAR": "UAR", "U1R": "U1R"})
    return table.set_index(["dataset", "design"]).rename_axis([None, None]).rename(columns={
        "weight of the paper": "item weight", "predicted (paper)": "predicted",
        "predicted (training excluded)": "predicted, training excluded"})


def residual_text(study: DatasetStudy) -> str:
    """What the two predictions of popularity's advantage explain on one dataset."""
    rows = study.lift.set_index("design")
    ar, uar = rows.loc["AR TI-AN"], rows.loc["UAR"]
    closer = [split for split, row in (("random", ar), ("uniform", uar))
              if abs(row["predicted (training excluded)"] - row["measured"])
              < abs(row["predicted (paper)"] - row["measured"])]
    under = uar["measured"] > max(uar["predicted (paper)"], uar["predicted (training excluded)"])
    return RESIDUAL.format(name=study.name, ar=fmt_number(ar["measured"], 1), uar=fmt_number(uar["measured"], 2),
                           closer=CLOSER[len(closer)].format(split=closer[0] if closer else ""),
                           under=UNDER if under else ".")


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


def bpref_text(below: int, scored: int) -> str:
    """How many scored 1R runs a judged non-relevant item pushes below bpref 1."""
    return BPREF[below > 0].format(below=below, scored=scored, share=fmt_pct(below / scored, 2) if scored else "")


def _incomplete_sentence(indices: pd.DataFrame, name: str) -> str:
    """:data:`INCOMPLETE` on one dataset; "" when neither bpref nor infAP gives an index there."""
    p10 = index_of(indices, name, "AR, P@10")
    lowest = min(index_of(indices, name, "P1R, P@10"), index_of(indices, name, "U1R, P@10"))
    measured = {m: v for m in ("bpref", "infAP") if np.isfinite(v := index_of(indices, name, f"AR, {m}"))}
    if not measured:
        return ""
    verbs = {m: "lowers" if v < p10 else "raises" for m, v in measured.items()}
    if len(measured) == 2 and len(set(verbs.values())) == 1:
        values = " and ".join(fmt_number(v, 2) for v in measured.values())
        change = f"bpref and infAP both {verbs['bpref'][:-1]} it, to {values}"
    else:
        change = ", while ".join(f"{m} {verbs[m]} it to {fmt_number(v, 2)}" for m, v in measured.items())
    close = [m for m, v in measured.items() if v <= lowest]
    who = (and_list(close) + (" come" if len(close) > 1 else " comes") if close
           else "neither comes" if len(measured) == 2 else "it does not come")
    missing = "" if "bpref" in measured else " (bpref scores every system alike here, so it gives no index)"
    return INCOMPLETE.format(name=name, p10=fmt_number(p10, 2), change=change, missing=missing, who=who,
                             lowest=fmt_number(lowest, 2))


def incomplete_text(indices: pd.DataFrame) -> str:
    """How bpref and infAP place popularity in AR against P@10, and against P1R and U1R, per dataset."""
    return " ".join(s for name in dict.fromkeys(indices["dataset"]) if (s := _incomplete_sentence(indices, name)))


def sweep_text(sweeps: pd.DataFrame) -> str:
    """How far each estimator family moves popularity's index from the smallest to the largest exponent."""
    sentences = []
    for name, part in sweeps.groupby("dataset", sort=False):
        ends = {FAMILIES[family]: rows.sort_values("beta")["index"].to_numpy()[[0, -1]]
                for family, rows in part.groupby("family", sort=False)}
        drop = {family: first - last for family, (first, last) in ends.items()}
        falling = sum(d > 0 for d in drop.values())
        trend = ("every estimator lowers popularity's index as its exponent grows" if falling == len(drop) else
                 f"{falling} of the {len(drop)} estimators lower popularity's index as their exponent grows")
        most, least = max(drop, key=drop.get), min(drop, key=drop.get)
        sentences.append(SWEEP.format(name=name, trend=trend, most=most, least=least,
                                      most_from=fmt_number(ends[most][0], 2), most_to=fmt_number(ends[most][1], 2),
                                      least_from=fmt_number(ends[least][0], 2),
                                      least_to=fmt_number(ends[least][1], 2)))
    return " ".join(sentences)


def _splits(study: DatasetStudy, label: str) -> int:
    """The number of splits the design ``label`` of ``study`` was measured on."""
    return int(study.reports.loc[study.reports["label"] == label, "fold"].nunique())


def settings_table(studies: Sequence[DatasetStudy], *, target_size: int, percentiles: int, head: float,
                   level: float, n_boot: int) -> pd.DataFrame:
    """The page's setting against the papers' (IRJ 2017 Sec. 3.3, 6 and 7), one row per setting, with the reason
    for every departure ("" where the page keeps the papers' setting)."""
    main, plan = studies[0], studies[0].plan
    designs, coin, uniform = main.designs, _splits(main, "1R"), _splits(main, "UAR")
    size = int(designs["1R"].split("NN(")[1].rstrip(")")) + 1
    rows = [
        ("dataset", main.name, "MovieLens 1M", "" if main.name == "ml-1m" else "the build's dataset (`dataset`)"),
        ("splits", f"{coin} coin-flip splits, σ = {plan.requested:g}; {uniform} uniform splits",
         "5 coin-flip splits, σ = 0.2; uniform splits likewise",
         "" if coin == 5 and plan.requested == 0.2 else "the page's `folds` and `test_ratio`"),
        ("uniform split", f"σ = {plan.used:g}, ε = {plan.min_train_ratio:g}", "σ = 0.2, ε = 0.2",
         "" if (plan.used, plan.min_train_ratio) == (0.2, 0.2) else
         "the popularity curve holds no larger σ" if plan.used < plan.requested else "the page's `min_train_ratio`"),
        ("1R target sets", f"{TARGET_SIZE_HTML} = {size}", f"{TARGET_SIZE_HTML} = 100", "" if size == 100 else
         f"a percentile holds fewer than 2 {TARGET_SIZE_HTML} items" if size < target_size else "the page's `target_size`"),
        ("P1R percentiles", f"m = {percentiles}", "m = 10", "" if percentiles == 10 else "the page's `percentiles`"),
        ("head removed", f"{head:.0%} most popular items", "10%", "" if head == 0.1 else "the page's `head`"),
        ("AR of Fig. 8", designs["AR"], "TI-NN(1,700), matched to UAR's random precision",
         "the same rule on this page's UAR target sets"),
        ("AR of Fig. 9", designs["AR TI-AN"], "TI-AN (MovieLens); TI-NN(2,500) (Last.fm)",
         "" if designs["AR TI-AN"] == "TI-AN" else "TI-AN would not fit in memory"),
        ("1R judgments", f"{designs['1R -NR']} (none) for bpref and infAP; our {designs['1R']} (the user's low "
         "ratings of sampled items judged) beside it", "none in 1R",
         "ours shows what the judgments would change"),
        ("systems", f"the papers' set: {and_list(list(PAPERS_SET))}; today's {and_list(list(TOP_N_LEARNERS))} beside it",
         "MF, kNN (both predicting ratings), pLSA, Popularity, Random",
         "today's learners show whether the readings carry over to them"),
        ("settings of the systems", "the presets of `recbias.recommenders.make`", "not given",
         "the papers do not state theirs"),
        ("comparisons", f"decided on {n_boot} resamples of users, two-sided p < {level:g}", "read from the bars",
         "a difference counts only where it stands out of noise"),
    ]
    if len(studies) > 1:
        second = studies[1]
        rows += [
            ("second dataset", f"{second.name}, its positive ratings (more than 2 plays)",
             "Last.fm (Celma), play counts mapped to ratings, more than 2 plays positive",
             "the papers' sample is not registered; the rating predictors read the play counts, the papers' "
             "mapping to ratings is not repeated"),
            ("its splits", f"{_splits(second, '1R')} coin-flip and {_splits(second, 'UAR')} uniform",
             "one temporal split", "HetRec's Last.fm has no timestamps"),
        ]
    return pd.DataFrame(rows, columns=["setting", "this page", "the papers", "why it differs"])

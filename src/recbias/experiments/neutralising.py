"""Chapter 5 ("Designs that neutralise popularity"): the designs of the papers' Fig. 8 measured on a dataset.

Bellogín, Castells and Cantador (IRJ 2017, Sec. 6; thesis Sec. 4.6) neutralise the
popularity bias with two designs: percentiles (P1R, non-relevant items drawn from the
popularity percentile of the held-out item, the ``m`` percentile values averaged) and
uniform test item profiles (U1R, UAR: the same number ``eta`` of test ratings for each
of the ``|T|`` most popular items, with ``C = T``).  :func:`study_dataset` measures the
papers' five systems under 1R, U1R, P1R, AR (TI-NN with ``|N_u|`` matched to UAR's random
precision), UAR, AI-UAR and "1R -10% head" (their Fig. 8) and, on the random split, the
metrics of their Fig. 9 and the later IPS and SNIPS estimators, which
:mod:`recbias.experiments.neutralising_index` reads; it also predicts popularity's
advantage over random from Eq. 3 (the residual bias).  :func:`fig8_summary`,
:func:`fig8_table`, :func:`size_table` and :func:`residual_text` show the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import Candidates, rank_positions, summarize
from recbias.experiments.neutralising_splits import UniformPlan, uniform_plan
from recbias.evaluate.experiment import PAPER_SYSTEMS, fit_systems, run_experiment
from recbias.splits import make_folds
from recbias.metrics._view import RankedView
from recbias.ratings import Ratings
from recbias.text import fmt_number, fmt_pct, fmt_pm

#: the section of the papers this chapter reproduces
SOURCE = "IRJ 2017 Sec. 6-7; thesis Sec. 4.6"
#: cut-off of every top-n metric, as in the papers
N = 10
PERSONALISED = ("pLSA", "MF", "user-kNN")
#: the designs of the papers' Fig. 8, in their order
FIG8 = ("1R", "U1R", "P1R", "AR", "UAR", "AI-UAR", "1R -head")
#: the designs of Fig. 8 that neutralise popularity
NEUTRALISING = ("U1R", "P1R", "UAR", "AI-UAR", "1R -head")


@dataclass
class DatasetStudy:
    """What :func:`neutralising_study` measured on one dataset.

    Attributes:
        name: the dataset.
        plan: its uniform split.
        designs: label (:data:`FIG8`, plus ``"AR TI-AN"`` and ``"1R"`` for Fig. 9) -> design name.
        runs: per-run table of both experiments, with a ``label`` column.
        reports: per (fold, design) sizes of both experiments.
        lift: predicted and measured advantage of popularity over random (P@10 ratio).
        seconds: wall time per stage.
        note: how the dataset was prepared (e.g. only positive ratings kept).
    """

    name: str
    plan: UniformPlan
    designs: dict[str, str]
    runs: pd.DataFrame
    reports: pd.DataFrame
    lift: pd.DataFrame
    seconds: dict[str, float]
    note: str = ""


def one_relevant_size(ratings: Ratings, target_size: int, percentiles: int) -> int:
    """``|T_u^r|`` of the 1R designs: ``target_size``, or half a percentile's items when a
    percentile has fewer than ``target_size`` items (P1R needs ``|T_u^r| <= |I| / m``)."""
    per_percentile = int(np.count_nonzero(ratings.item_counts())) // percentiles
    return target_size if per_percentile >= target_size else max(2, per_percentile // 2)


def _lift_prediction(fold, design: str, seed: int, weights: Sequence[np.ndarray]) -> list[float]:
    """Eq. 3 read as a ratio, for each item weight: the mean weight of popularity's top n over the
    mean weight of all candidates, averaged over runs."""
    runs = build_runs(fold.train, fold.test, design, seed=seed, on_shortage="exclude")
    popularity = fit_systems({"Popularity": "popularity"}, fold.train, key_extra=fold.key, seed=seed)["Popularity"]
    (scores,) = Candidates([runs]).score(popularity)
    items, run_of = RankedView(rank_positions(runs, scores, seed=seed)).top_items(N)
    listed = np.maximum(np.bincount(run_of, minlength=runs.n_runs), 1)
    lifts = []
    for weight in weights:
        top = np.bincount(run_of, weights=weight[items], minlength=runs.n_runs) / listed
        everything = np.bincount(runs.run_of_entry, weights=weight[runs.items], minlength=runs.n_runs) / runs.sizes
        lifts.append(float(top.mean() / everything.mean()))
    return lifts


def design_summary(runs: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Means and 95% intervals per (dataset, design, system), users as the units; P1R averages its
    percentiles and every other design its runs (``average="group"``, IRJ Eq. 1 and the P1R mean)."""
    return summarize(runs, list(metrics), ("dataset", "design", "system"), "group") if len(runs) else runs


def study_dataset(
    ratings: Ratings,
    *,
    folds: int = 5,
    test_ratio: float = 0.2,
    min_train_ratio: float = 0.2,
    target_size: int = 100,
    percentiles: int = 10,
    head: float = 0.1,
    gammas: Sequence[float] = (0.0, 0.5, 1.0, 2.0, 4.0, np.inf),
    powers: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
    max_entries: int = 25_000_000,
    nonrelevant: int = 2500,
    seed: int = 0,
    note: str = "",
) -> DatasetStudy:
    """The papers' Figs. 8 and 9 on one dataset, with IPS/SNIPS and stratified-recall sweeps.

    Uniform folds (:func:`make_folds` ``method="uniform"``) carry U1R, UAR (TI-AN) and AI-UAR;
    random (coin) folds carry 1R, P1R(m), "1R -x% head", AR TI-NN(k) with ``k`` the mean
    number of non-relevant items of the UAR target sets (so both have the same random
    precision, the papers' 1,700 on ML-1M) and AR TI-AN, on which the Fig. 9 metrics and
    the IPS/SNIPS estimators are computed.  AN designs whose target sets would exceed
    ``max_entries`` entries sample ``nonrelevant`` items instead (NN), as the papers did on Last.fm.
    """
    plan = uniform_plan(ratings, test_ratio, min_train_ratio)
    size = one_relevant_size(ratings, target_size, percentiles)
    one_r = f"1R TI-NN({size - 1})"
    users = int(np.count_nonzero(np.bincount(ratings.users[ratings.positive], minlength=ratings.n_users)))
    too_big = users * ratings.n_items > max_entries
    designs = {
        "U1R": f"U1R TI-NN({size - 1})",
        "UAR": "UAR TI-AN",
        "AI-UAR": f"UAR AI-NN({nonrelevant})" if too_big else "UAR AI-AN",
    }
    uniform = run_experiment(ratings, list(designs.values()), PAPER_SYSTEMS, seed=seed, on_shortage="exclude",
                             folds=make_folds(ratings, method="uniform", folds=folds, test_ratio=plan.used,
                                              min_train_ratio=min_train_ratio, seed=seed),
                             metrics=["P@10", "nDCG@10"])
    uar = uniform.reports[uniform.reports["design"] == designs["UAR"]]
    matched = max(1, int(round(((uar["candidates"] - uar["relevant"]) / uar["n_runs"]).mean())))
    coin_designs = {
        "1R": one_r, "P1R": f"P1R({percentiles}) TI-NN({size - 1})", "1R -head": f"{one_r} -{head * 100:g}% head",
        "AR": f"TI-NN({matched})", "AR TI-AN": f"TI-NN({nonrelevant})" if too_big else "TI-AN",
    }
    metrics = ["P@10", "nDCG@10", "bpref", "infAP", *(f"PSR@10(gamma={g:g})" for g in gammas),
               *(f"{e}-{m}@10(power={b:g})" for e in ("IPS", "SNIPS") for m in ("P", "Recall") for b in powers)]
    coin_folds = make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed)
    coin = run_experiment(ratings, list(dict.fromkeys(coin_designs.values())), PAPER_SYSTEMS, folds=coin_folds,
                          seed=seed, on_shortage="exclude", metrics=metrics)
    designs |= coin_designs
    label_of = {name: label for label, name in designs.items()}
    runs = pd.concat([uniform.runs.astype({"design": str}), coin.runs.astype({"design": str})], ignore_index=True)
    runs.insert(2, "label", runs["design"].map(label_of))
    reports = pd.concat([uniform.reports, coin.reports], ignore_index=True)
    reports.insert(2, "label", reports["design"].map(label_of))

    uniform_fold = make_folds(ratings, method="uniform", folds=1, test_ratio=plan.used,
                              min_train_ratio=min_train_ratio, seed=seed)[0]
    counts, positive = ratings.item_counts(), ratings.item_counts(positive_only=True)
    ratio = np.divide(positive, counts, out=np.zeros(len(counts)), where=counts > 0)
    predictions = {}
    for label, fold, expected in (("AR TI-AN", coin_folds[0], test_ratio * positive), ("UAR", uniform_fold, None),
                                  ("U1R", uniform_fold, None)):
        if expected is None:  # under U, E[|PR_test(i)|] = eta |PR(i)| / |R(i)| on T
            expected = plan.eta * ratio * np.isin(np.arange(ratings.n_items), np.flatnonzero(fold.test.item_counts()))
        paper = positive.astype(float) if label == "AR TI-AN" else ratio
        # a user can only hold a test rating of i if she has no training rating of i
        per_user = expected / np.maximum(ratings.n_users - fold.train.item_counts(), 1)
        predictions[label] = _lift_prediction(fold, designs[label], seed, [paper, per_user])
    p10 = design_summary(runs, ["P@10"]).set_index(["design", "system"])["mean"]
    lift = pd.DataFrame([{
        "design": label, "weight of the paper": "|PR(i)|" if label == "AR TI-AN" else "|PR(i)| / |R(i)|",
        "predicted (paper)": paper, "predicted (training excluded)": excluded,
        "measured": p10[(designs[label], "Popularity")] / p10[(designs[label], "Random")],
    } for label, (paper, excluded) in predictions.items()])
    seconds = {k: uniform.seconds[k] + coin.seconds[k] for k in uniform.seconds}
    return DatasetStudy(ratings.name, plan, designs, runs, reports, lift, seconds, note)


def positive_only(ratings: Ratings) -> Ratings:
    """The positive ratings alone: every rating left counts as relevant (the papers' Last.fm setup)."""
    return ratings.subset(ratings.positive)


def fig8_summary(study: DatasetStudy, metrics: Sequence[str] = ("P@10", "nDCG@10")) -> pd.DataFrame:
    """Means and 95% intervals of ``metrics`` per Fig. 8 design and system (P1R averages its percentiles)."""
    runs = study.runs[study.runs["label"].isin(FIG8)]
    table = design_summary(runs, metrics)
    table.insert(0, "label", table["design"].map({v: k for k, v in study.designs.items()}))
    table["dataset"] = study.name
    return table


def fig8_table(summaries: Sequence[pd.DataFrame], metric: str = "P@10") -> pd.DataFrame:
    """One row per (dataset, design) in the order of Fig. 8, one column per system: the mean over
    the half-width of its 95% interval."""
    table = pd.concat(summaries, ignore_index=True)
    table = table[table["metric"] == metric]
    table = table.assign(cell=[fmt_pm(m, (h - l) / 2, 4) for m, l, h in
                               zip(table["mean"], table["ci_low"], table["ci_high"], strict=True)])
    wide = table.pivot_table(index=["dataset", "label"], columns="system", values="cell", aggfunc="first",
                             observed=True, sort=False)
    order = [(name, label) for name in dict.fromkeys(table["dataset"]) for label in FIG8
             if (name, label) in wide.index]
    wide = wide.reindex(index=order, columns=list(PAPER_SYSTEMS))
    wide.index = wide.index.set_levels(wide.index.levels[1].str.replace("-head", "−10% head"), level=1)
    wide.index.names = [None, None]
    wide.columns.name = None
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
    rank = {label: k for k, label in enumerate((*FIG8, "AR TI-AN"))}
    table = table.assign(rank=table["label"].map(rank), order=table["dataset"].map(
        {name: k for k, name in enumerate(dict.fromkeys(table["dataset"]))}))
    table = table.sort_values(["order", "rank"], kind="stable").drop(columns=["order", "rank", "label"])
    return table.set_index(["dataset", "design"]).rename_axis([None, None])


def residual_text(study: DatasetStudy) -> str:
    """What the two predictions of popularity's advantage explain on one dataset (Markdown)."""
    rows = study.lift.set_index("design")
    ar, uar = rows.loc["AR TI-AN"], rows.loc["UAR"]
    text = (f"On {study.name} the uniform split cuts popularity's P@10 from {fmt_number(ar['measured'], 1)} "
            f"times random's (AR) to {fmt_number(uar['measured'], 2)} times (UAR). ")
    closer = [label for label, row in (("random", ar), ("uniform", uar))
              if abs(row["predicted (training excluded)"] - row["measured"]) < abs(row["predicted (paper)"] - row["measured"])]
    where = "On both splits" if len(closer) == 2 else f"Only on the {closer[0]} split" if closer else "On neither split"
    verb = "does the training exclusion bring" if len(closer) < 2 else "the training exclusion brings"
    text += f"{where} {verb} the prediction closer to the measurement"
    under = uar["measured"] > max(uar["predicted (paper)"], uar["predicted (training excluded)"])
    return text + ("; under UAR both predictions stay below the measured ratio, so part of the residue has "
                   "another source." if under else ".")


def lift_table(studies: Sequence[DatasetStudy]) -> pd.DataFrame:
    """Popularity's P@10 over random's per dataset and split: the item weight of Eq. 3, its two
    predictions and the measured ratio."""
    table = pd.concat([s.lift.assign(dataset=s.name) for s in studies], ignore_index=True)
    table["design"] = table["design"].map({"AR TI-AN": "AR", "UAR": "UAR", "U1R": "U1R"})
    return table.set_index(["dataset", "design"]).rename_axis([None, None]).rename(columns={
        "weight of the paper": "item weight", "predicted (paper)": "predicted",
        "predicted (training excluded)": "predicted, training excluded"})


def p1r_shortage_text(studies: Sequence[DatasetStudy]) -> str:
    """How many runs P1R leaves out on each dataset (means per split), as the prose quotes it."""
    parts = []
    for study in studies:
        rows = study.reports[study.reports["label"] == "P1R"]
        left, kept = rows["shortage_runs"].mean(), rows["n_runs"].mean()
        parts.append(f"{left:,.0f} of {left + kept:,.0f} runs per split ({fmt_pct(left / (left + kept))}) on {study.name}"
                     if round(left) > 0 else f"none on {study.name}")
    return "Here P1R leaves out " + ", and ".join(parts) + "."

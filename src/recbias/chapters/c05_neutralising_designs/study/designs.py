"""The designs of the papers' Figs. 8 and 9 (IRJ 2017 Sec. 6; thesis Sec. 4.6) and the two experiments that
measure them on the papers' five systems (:data:`recbias.recommenders.sets.PAPERS_SET`) and, beside them, today's
top-N learners (:data:`~recbias.recommenders.sets.TOP_N_LEARNERS`): :func:`uniform_experiment` U1R, UAR and AI-UAR
on uniform folds, :func:`coin_experiment` 1R, P1R, "1R -x% head", AR TI-NN (matched to UAR's random precision)
and AR TI-AN on coin-flip folds, with the papers' 1R beside ours: "1R -NR" has the same kind of target sets and
no non-relevance judgment (IRJ Sec. 7), where our "1R" keeps the low ratings of the user's sampled items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c05_neutralising_designs.study.plan import UniformPlan
from recbias.evaluate import summarize
from recbias.evaluate.experiment import Experiment, run_experiment
from recbias.evaluate.statistics import narrow
from recbias.ratings import Ratings
from recbias.recommenders import PAPERS_PERSONALISED, PAPERS_SET, TOP_N_LEARNERS
from recbias.splits import Fold

#: cut-off of every top-n metric, as in the papers
N = 10
#: every system the chapter measures, the papers' set first
SYSTEMS = PAPERS_SET | TOP_N_LEARNERS
#: the name of each set of systems, and its personalised systems (those a popularity index reads)
PAPERS, TOP_N = "the papers' set", "today's top-N set"
PERSONALISED = {PAPERS: PAPERS_PERSONALISED, TOP_N: tuple(TOP_N_LEARNERS)}
#: the designs of the papers' Fig. 8, in their order
FIG8 = ("1R", "U1R", "P1R", "AR", "UAR", "AI-UAR", "1R -head")
#: the exponents of stratified recall (``gamma``) and of the propensities (``beta``) the chapter sweeps
GAMMAS = (0.0, 0.5, 1.0, 2.0, 4.0, np.inf)
POWERS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass
class DatasetStudy:
    """What :func:`recbias.chapters.c05_neutralising_designs.study.study_dataset` measured on one dataset.

    Attributes:
        name: the dataset.
        plan: its uniform split.
        designs: label (:data:`FIG8`, plus ``"AR TI-AN"`` for Fig. 9 and ``"1R -NR"``, the papers' 1R
            without non-relevance judgments) -> design name.
        runs: per-run table of both experiments, with a ``label`` column.
        reports: per (fold, design) sizes of both experiments.
        lift: predicted and measured advantage of popularity over random (P@10 ratio).
    """

    name: str
    plan: UniformPlan
    designs: dict[str, str]
    runs: pd.DataFrame
    reports: pd.DataFrame
    lift: pd.DataFrame


def one_relevant_size(ratings: Ratings, target_size: int, percentiles: int) -> int:
    """``|T_u^r|`` of the 1R designs: ``target_size``, or half a percentile's items when a
    percentile has fewer than ``target_size`` items (P1R needs ``|T_u^r| <= |I| / m``)."""
    per_percentile = int(np.count_nonzero(ratings.item_counts())) // percentiles
    return target_size if per_percentile >= target_size else max(2, per_percentile // 2)


def too_big_for_all_items(ratings: Ratings, max_entries: int) -> bool:
    """Whether AN target sets (every item for every user with a positive rating) exceed ``max_entries``."""
    users = int(np.count_nonzero(np.bincount(ratings.users[ratings.positive], minlength=ratings.n_users)))
    return users * ratings.n_items > max_entries


def design_summary(runs: pd.DataFrame, metrics: Sequence[str], kept: pd.Series | None = None) -> pd.DataFrame:
    """Means and 95% intervals per (dataset, design, system), users as the units; P1R averages its
    percentiles and every other design its runs (``average="group"``, IRJ Eq. 1 and the P1R mean).
    ``kept``, a boolean mask of the runs, summarises those only; only the columns read are copied."""
    by = ("dataset", "design", "system")
    runs = narrow(runs, by, metrics)
    if kept is not None:
        runs = runs[kept]
    return summarize(runs, list(metrics), by, "group") if len(runs) else runs


#: bpref as IRJ Section 7 prints it, every judged non-relevant item above a relevant one counted (trec_eval's
#: bpref, the book's, counts at most R of them)
UNCAPPED_BPREF = "bpref(cap=none)"


def sweep_metrics(gammas: Sequence[float], powers: Sequence[float]) -> list[str]:
    """The metrics of AR TI-AN, the configuration of the papers' Fig. 9: P@10, nDCG@10, the Fig. 9 metrics at
    every ``gamma`` and the IPS and SNIPS precision and recall at every propensity ``power``."""
    return ["P@10", "nDCG@10", "bpref", UNCAPPED_BPREF, "infAP", *(f"PSR@10(gamma={g:g})" for g in gammas),
            *(f"{e}-{m}@10(power={b:g})" for e in ("IPS", "SNIPS") for m in ("P", "Recall") for b in powers)]


#: the metrics of the other designs of the random split: Fig. 8's, and Fig. 9's in 1R
FIG8_METRICS = ["P@10", "nDCG@10", "bpref", "infAP", "PSR@10(gamma=1)"]


def uniform_experiment(ratings: Ratings, folds: Sequence[Fold], size: int, *, too_big: bool, nonrelevant: int,
                       seed: int) -> tuple[dict[str, str], Experiment]:
    """U1R (``|T_u^r| = size``), UAR TI-AN and AI-UAR (AN, or NN(``nonrelevant``) when ``too_big``) on
    uniform ``folds``: label -> design, and the experiment (P@10 and nDCG@10)."""
    designs = {
        "U1R": f"U1R TI-NN({size - 1})",
        "UAR": "UAR TI-AN",
        "AI-UAR": f"UAR AI-NN({nonrelevant})" if too_big else "UAR AI-AN",
    }
    experiment = run_experiment(ratings, list(designs.values()), SYSTEMS, seed=seed, on_shortage="exclude",
                                folds=folds, metrics=["P@10", "nDCG@10"])
    return designs, experiment


def matched_nonrelevant(reports: pd.DataFrame, design: str) -> int:
    """The mean number of non-relevant items of the target sets of ``design`` (at least 1): the
    ``|N_u|`` that gives AR TI-NN the random precision of UAR."""
    rows = reports[reports["design"] == design]
    return max(1, int(round(((rows["candidates"] - rows["relevant"]) / rows["n_runs"]).mean())))


def coin_experiment(ratings: Ratings, folds: Sequence[Fold], size: int, *, percentiles: int, head: float,
                    matched: int, too_big: bool, nonrelevant: int, metrics: Sequence[str],
                    seed: int) -> tuple[dict[str, str], list[Experiment]]:
    """1R, P1R(``percentiles``), "1R -x% head", AR TI-NN(``matched``) and the papers' 1R without
    non-relevance judgments ("1R -NR"), read with :data:`FIG8_METRICS`, and AR TI-AN (NN(``nonrelevant``)
    when ``too_big``) read with ``metrics``, on coin-flip ``folds``: label -> design, and the two
    experiments (the fits are shared through the fit cache)."""
    sampled = f"TI-NN({size - 1})"
    one_r = f"1R {sampled}"
    designs = {
        "1R": one_r, "P1R": f"P1R({percentiles}) {sampled}", "1R -head": f"{one_r} -{head * 100:g}% head",
        "AR": f"TI-NN({matched})", "1R -NR": f"{one_r} -NR",
        "AR TI-AN": f"TI-NN({nonrelevant})" if too_big else "TI-AN",
    }
    fig8 = [d for label, d in designs.items() if label != "AR TI-AN"]
    return designs, [
        run_experiment(ratings, fig8, SYSTEMS, folds=folds, seed=seed, on_shortage="exclude", metrics=FIG8_METRICS),
        run_experiment(ratings, [designs["AR TI-AN"]], SYSTEMS, folds=folds, seed=seed, on_shortage="exclude",
                       metrics=list(metrics)),
    ]


def labelled(designs: dict[str, str], *experiments: Experiment) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs and the reports of ``experiments``, one after the other, with the ``label`` of each design."""
    label_of = {name: label for label, name in designs.items()}
    runs = pd.concat([e.runs.astype({"design": str}) for e in experiments], ignore_index=True)
    runs.insert(2, "label", runs["design"].map(label_of))
    reports = pd.concat([e.reports for e in experiments], ignore_index=True)
    reports.insert(2, "label", reports["design"].map(label_of))
    return runs, reports


def fig8_summary(study: DatasetStudy, metrics: Sequence[str] = ("P@10", "nDCG@10")) -> pd.DataFrame:
    """Means and 95% intervals of ``metrics`` per Fig. 8 design and system (P1R averages its percentiles)."""
    table = design_summary(study.runs, metrics, study.runs["label"].isin(FIG8))
    table.insert(0, "label", table["design"].map({v: k for k, v in study.designs.items()}))
    table["dataset"] = study.name
    return table


def p1r_left_out(study: DatasetStudy) -> tuple[float, float]:
    """The runs P1R leaves out for want of non-relevant items in the percentile, and the runs it keeps
    (means per split)."""
    rows = study.reports[study.reports["label"] == "P1R"]
    return float(rows["shortage_runs"].mean()), float(rows["n_runs"].mean())


def bpref_below_one(study: DatasetStudy, label: str = "1R") -> tuple[int, int]:
    """How many runs of the 1R design ``label`` (one per system and run) have bpref below 1, and how many
    were scored: in our "1R" a sampled item the user rated below the threshold is ranked above the relevant
    one; the papers' "1R -NR" judges no item non-relevant, so none should."""
    bpref = study.runs.loc[study.runs["label"] == label, "bpref"]
    return int((bpref < 1).sum()), len(bpref)


def bpref_caps(study: DatasetStudy, label: str = "AR TI-AN") -> tuple[float, float]:
    """Where trec_eval's cap matters in ``label``: the share of scored runs whose bpref changes without it, and
    the largest change of a system's mean bpref."""
    runs = study.runs[study.runs["label"] == label]
    means = runs.groupby("system", observed=True)[["bpref", UNCAPPED_BPREF]].mean()
    return float((runs["bpref"] != runs[UNCAPPED_BPREF]).mean()), float((means["bpref"] - means[UNCAPPED_BPREF]).max())

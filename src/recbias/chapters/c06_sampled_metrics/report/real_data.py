"""The real-data study's tables (Tables 3 and 4, ours and the paper's), the numbers its prose quotes, and
the sentences that read them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.claims import key, paper
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    LEAVE_LAST_OUT, LEAVE_ONE_RANDOM_OUT, METHODS, METRICS, PAIRS, SYSTEMS, TOP_HEAVY, SampledStudy, auc_expected_gaps,
    auc_gaps, grouping_error,
)
from recbias.recommenders.factory import PRESETS
from recbias.text import fmt_count, fmt_number, fmt_pct, fmt_pm, fmt_seconds, fmt_signed, order_text

#: the estimators of the paper's Table 3 (it has no BV 0.001)
TABLE3_METHODS = METHODS[:-1]

#: the estimators whose order of the systems the orders table shows, after the exact metric
ORDER_METHODS = ("exact", "sampled", "CLS", "BV 0.1")

SPLITS = {LEAVE_LAST_OUT: "leave-last-out: each user's most recent rating is held out",
          LEAVE_ONE_RANDOM_OUT: "one rating per user held out at random (this dataset has no timestamps)"}

DROPPED = " ({users} smaller than m, left out)"
SHRUNK = " (the size of the smallest pool; m = {asked} was asked for, more than almost every pool holds)"

AUC_EXCURSION = ("**On this build** the simulated gap exceeds three standard errors. Since the expectation has no gap, "
                 "it is an excursion of the {repetitions} repetitions drawn for this page, of the kind that a comparison "
                 "of three recommenders shows now and then; more repetitions shrink it.")

ALWAYS_RIGHT = ("**On this build**, the uncorrected sampled metric orders every pair as the exact metric does in all "
                "{reps} repetitions, on every top-heavy metric. The corrections can only lose here: their lowest "
                "counts are {lowest}.")
BEST_WORST_CASE = ("**On this build**, on a top-heavy metric, the uncorrected sampled metric orders its worst pair "
                   "correctly {how_often} {reps} repetitions. The estimator with the best worst case is *{best}*: "
                   "at least {best_worst} of {reps} for every pair and top-heavy metric.")
AUC_ALWAYS = " AUC, uncorrected, orders every pair correctly in all {reps} repetitions."
AUC_AT_LEAST = " AUC, uncorrected, orders every pair correctly in at least {worst} of {reps} repetitions."

#: whose the systems X, Y and Z are, as the systems table says
KR_SET = "Krichene and Rendle's own (top-N learners)"


def systems_table() -> pd.DataFrame:
    """X, Y and Z, Krichene and Rendle's own systems, with their algorithm and settings (the paper's appendix),
    read from the presets."""
    x, y, z = (PRESETS[SYSTEMS[s]][2] for s in "XYZ")

    def neighbours(params: dict) -> str:
        return "no neighbourhood limit" if params["k_prime"] is None else f"{params['k_prime']} neighbours per item"

    knn = "item-based kNN, cosine similarity to the power q"
    return pd.DataFrame([
        {"system": "X", "set": KR_SET, "algorithm": "implicit alternating least squares",
         "settings": f"{x['factors']} factors, λ = {x['regularization']:g}, α = {x['alpha']:g}"},
        {"system": "Y", "set": KR_SET, "algorithm": knn, "settings": f"q = {y['q']:g}, {neighbours(y)}"},
        {"system": "Z", "set": KR_SET, "algorithm": knn, "settings": f"q = {z['q']:g}, {neighbours(z)}"},
    ])


def study_numbers(study: SampledStudy) -> dict[str, str]:
    """The figures the prose quotes about the split, the pools, the sample and the grouping."""
    sizes, dropped = study.sizes, int((~study.keep).sum())
    return {
        "split_label": SPLITS[study.split],
        "n_targets": f"{len(sizes):,}",
        "n_min": f"{sizes.min():,}",
        "n_max": f"{sizes.max():,}",
        "n_median": f"{int(np.median(sizes)):,}",
        "dropped_note": DROPPED.format(users=fmt_count(dropped, "user whose pool is", "users whose pools are"))
        if dropped else "",
        "m_used": f"{study.m}",
        "m_note": SHRUNK.format(asked=study.m_requested) if study.m != study.m_requested else "",
        "sampling_law": "binomial (with replacement)" if study.replace else "hypergeometric (without replacement)",
        "repetitions": f"{study.repetitions:,}",
        "n_tolerance": fmt_pct(study.n_tolerance, 0),
        "n_bins": fmt_count(len(study.bin_sizes), "group", "groups"),
        "t_corrections": fmt_seconds(study.correction_seconds),
        "n_over_m": f"{np.median(sizes) / study.m:,.0f}",
    }


def grouping_numbers(study: SampledStudy) -> dict[str, str]:
    """How much grouping the catalogue sizes moves the rank estimate (percentage points), and how many
    distinct sizes there are."""
    error, distinct = grouping_error(study)
    return {"grouping_error": f"{100 * error:.3f}", "n_distinct": f"{distinct:,}"}


def _table3(names: tuple[str, ...], exact: Callable[[str, int], float],
            estimate: Callable[[str, str, int], tuple[float, float]]) -> pd.DataFrame:
    rows = []
    for metric in METRICS:
        for k, short in enumerate(names):
            rows.append({"metric": metric, "recommender": short, "exact": fmt_number(exact(metric, k), 2),
                         **{method: fmt_pm(*estimate(method, metric, k), digits=2) for method in TABLE3_METHODS}})
    return pd.DataFrame(rows).set_index(["metric", "recommender"]).rename_axis([None, None])


def table3(study: SampledStudy) -> pd.DataFrame:
    """Our Table 3: exact metrics and each estimator's mean ± sd over the repetitions, in percent."""
    def estimate(method: str, metric: str, k: int) -> tuple[float, float]:
        values = 100 * study.estimates[(method, metric)][:, k]
        return values.mean(), values.std(ddof=1)

    return _table3(study.names, lambda metric, k: 100 * study.exact[metric][k], estimate)


def paper_table3() -> pd.DataFrame:
    """The published Table 3 (ML-1M) in the same layout."""
    def estimate(method: str, metric: str, k: int) -> tuple[float, float]:
        return tuple(paper()[key(3, metric, recommender="XYZ"[k], estimator=method, statistic=s)]
                     for s in ("mean", "sd"))

    return _table3(tuple(SYSTEMS), lambda metric, k: paper()[key(3, metric, recommender="XYZ"[k], estimator="exact")],
                   estimate)


def _paper_means(metric: str, estimator: str) -> dict[str, float]:
    return {s: paper()[key(3, metric, recommender=s, estimator=estimator,
                           statistic="" if estimator == "exact" else "mean")] for s in SYSTEMS}


def orders_table(study: SampledStudy) -> pd.DataFrame:
    """Order of the systems by the exact metric and by three estimators (means over the repetitions), one row
    per metric on this build and in the paper."""
    rows = []
    for metric in METRICS:
        ours = {method: study.exact[metric] if method == "exact" else study.mean_estimates(method, metric)
                for method in ORDER_METHODS}
        rows.append({"source": "ours", "metric": metric,
                     **{method: order_text(dict(zip(study.names, values))) for method, values in ours.items()}})
    for metric in METRICS:
        rows.append({"source": "paper (ML-1M)", "metric": metric,
                     **{method: order_text(_paper_means(metric, method)) for method in ORDER_METHODS}})
    return pd.DataFrame(rows).set_index(["source", "metric"]).rename_axis([None, None])


def auc_numbers(study: SampledStudy) -> dict[str, str]:
    """The largest simulated gap of sampled AUC, and the gap in expectation, from each user's own law."""
    gaps, z = auc_gaps(study)
    widest = int(np.argmax(np.abs(gaps)))
    expected = float(np.abs(auc_expected_gaps(study)).max())
    return {"auc_gap": f"{abs(gaps[widest]):.3f}", "auc_gap_name": study.names[widest], "auc_gap_z": fmt_signed(z[widest]),
            "auc_expected_gap": f"{100 * expected:.0e}" if expected > 0 else "0"}


def paper_auc_gap(recommender: str = "Z") -> str:
    """Mean sampled AUC minus exact AUC of ``recommender`` in the paper's Table 3, in percentage points."""
    sampled_mean = paper()[key(3, "AUC", recommender=recommender, estimator="sampled", statistic="mean")]
    return f"{sampled_mean - paper()[key(3, 'AUC', recommender=recommender, estimator='exact')]:.2f}"


def auc_gap_note(study: SampledStudy) -> str:
    """What a simulated gap of more than three standard errors means, when there is one."""
    return "" if np.all(np.abs(auc_gaps(study)[1]) < 3) else AUC_EXCURSION.format(repetitions=study.repetitions)


def paper_table4() -> pd.DataFrame:
    """The published Table 4 (ML-1M); cells the text does not give are NaN."""
    rows = []
    for a, b in PAIRS:
        pair = f"{'XYZ'[a]} vs {'XYZ'[b]}"
        for metric in METRICS:
            rows.append({"pair": pair, "metric": metric, **{
                method: paper().get(key(4, metric, pair=pair, estimator=method), np.nan) for method in METHODS}})
    return pd.DataFrame(rows)


def table4_text(repetitions: int, ours: pd.DataFrame) -> str:
    """Which estimator has the best worst case on the top-heavy metrics of our Table 4, and how AUC fares."""
    top_heavy = ours["metric"].isin(TOP_HEAVY)
    worst = {method: int(np.nanmin(ours.loc[top_heavy, method])) for method in METHODS}
    auc_worst = int(np.nanmin(ours.loc[~top_heavy, "sampled"]))
    if worst["sampled"] == repetitions:
        lowest = ", ".join(f"{worst[method]} ({method})" for method in METHODS[1:])
        text = ALWAYS_RIGHT.format(reps=repetitions, lowest=lowest)
    else:
        best = max(METHODS[1:], key=lambda method: (worst[method], np.nansum(ours.loc[top_heavy, method])))
        how_often = "in none of the" if worst["sampled"] == 0 else f"in {worst['sampled']} of the"
        text = BEST_WORST_CASE.format(how_often=how_often, reps=repetitions, best=best, best_worst=worst[best])
    return text + (AUC_ALWAYS if auc_worst == repetitions else AUC_AT_LEAST).format(reps=repetitions, worst=auc_worst)

"""The paper's numbers and findings as data, and the values of this build they are checked on.

Every value of Tables 1-4 of Krichene and Rendle (KDD 2020) is a row of ``published.csv``, its
key built by :func:`key`; Tables 1-2 are set against the toy example (:func:`toy_measured`,
registered on the dataset ``"toy"``), Tables 3-4 and the :data:`FINDINGS` against the build's
dataset (:func:`measured`), comparable only on ML-1M.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import Finding, Number, at_least, between, published
from recbias.chapters.c06_sampled_metrics.study.cost import Cost, one_sample_z
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    METHODS, METRICS, SampledStudy, auc_expected_gaps, auc_gaps, reversals, right_counts,
)
from recbias.chapters.c06_sampled_metrics.study.toy import TOY_METRICS, TOY_RANKS, ToyStudy

PUBLISHED = Path(__file__).with_name("published.csv")

SOURCE = "KDD 2020 Sec. 4-6, Tables 3-4"

#: the dataset the toy example's numbers (Tables 1-2) are registered on
TOY_DATASET = "toy"

#: an expectation computed in floating point that is exact in theory may be off by this much (AUC units)
ROUNDING = 1e-10

#: how the keys of published.csv name each metric: the toy example (Tables 1-2) and ML-1M (Tables 3-4)
KEY_METRICS = {
    1: {"AUC": "AUC", "AP": "AP", "nDCG": "NDCG", "Recall@10": "Recall@10"},
    2: {"AUC": "AUC", "AP": "AP", "nDCG": "NDCG", "Recall@10": "Recall@10"},
    3: {"Recall@10": "Recall", "nDCG@10": "NDCG", "AP": "AP", "AUC": "AUC"},
    4: {"Recall@10": "Recall", "nDCG@10": "NDCG", "AP": "AP", "AUC": "AUC"},
}


def key(table: int, metric: str, *, recommender: str = "", pair: str = "", estimator: str = "",
        statistic: str = "") -> str:
    """The key of one printed value: ``table1/A/AUC``, ``table2/A/AP/mean``, ``table3/Recall/X/exact``,
    ``table3/Recall/X/CLS/sd``, ``table4/X vs Y/AP/BV 0.1`` (``metric`` in the package's grammar)."""
    name = KEY_METRICS[table][metric]
    parts = {1: (recommender, name), 2: (recommender, name, statistic),
             3: (name, recommender, estimator, statistic), 4: (pair, name, estimator)}[table]
    return "/".join((f"table{table}", *(part for part in parts if part)))


def numbers() -> list[Number]:
    """Every published value of Tables 1-4 (``published.csv``)."""
    return published(PUBLISHED)


@cache
def paper() -> dict[str, float]:
    """Published value by key."""
    return {number.key: number.value for number in numbers()}


FINDINGS = [
    Finding("sampled-reverses-order",
            "the uncorrected sampled metric reverses the exact order of some pair of recommenders "
            "(in the means over the repetitions)",
            SOURCE, "tbl-sm-orders", at_least("reversed_pairs", 1, what="pairs reversed"), "{reversed_list}",
            note="the paper's reversal rests on systems that spread their ranks differently; whether a dataset "
                 "shows it depends on how its systems' ranks are spread"),
    Finding("correction-helps",
            "the BV 0.1 correction gets no fewer top-heavy comparisons right than the uncorrected sampled metric",
            SOURCE, "tbl-sm-right",
            at_least("correction_gain", 0, what="BV 0.1's right top-heavy comparisons minus the uncorrected metric's"),
            "{bv_right} vs {sampled_right} of 9 right"),
    Finding("sampled-auc-keeps-order", "sampled AUC orders the recommenders as exact AUC does", SOURCE, "tbl-sm-right",
            at_least("sampled_auc_right", 3, what="AUC comparisons right"),
            "{sampled_auc_right} of 3 AUC comparisons right"),
    Finding("sampled-auc-unbiased",
            "sampled AUC is an unbiased estimate of exact AUC: the expectation of the sampled estimator, under "
            "each user's own sampling law, equals exact AUC to rounding",
            SOURCE, "tbl-sm-table3",
            between("auc_expected_gap", 0, ROUNDING, open_high=True, what="the largest gap of the expectation"),
            "largest gap of the expectation {auc_expected_gap:.0e}; for illustration, the mean of the {repetitions} "
            "simulated repetitions is off by z = {auc_z_x:+z.1f}, {auc_z_y:+z.1f}, {auc_z_z:+z.1f} (X, Y, Z)"),
    Finding("one-sample-matches-simulation",
            "one sampled evaluation lands within the spread of the simulated sampled metric",
            SOURCE, "tbl-sm-cost", between("one_sample_z", -3, 3, open_low=True, open_high=True, what="its z-score"),
            "z = {one_sample_z:+z.1f}"),
]


def toy_measured(toy: ToyStudy) -> dict[str, float]:
    """Our values of Tables 1-2: exact metrics, and the exact mean and standard deviation of the sampled
    five-instance average (``m = 99``, with replacement)."""
    values = {}
    for name in TOY_RANKS:
        for metric in TOY_METRICS:
            moments = toy.expected[(name, metric)]
            values[key(1, metric, recommender=name)] = float(toy.exact.loc[name, metric])
            values[key(2, metric, recommender=name, statistic="mean")] = moments.average
            values[key(2, metric, recommender=name, statistic="sd")] = moments.average_std
    return values


def _table3_values(study: SampledStudy) -> dict[str, float]:
    """Our Table 3 in percent: exact metrics, and each estimator's mean and sd over the repetitions."""
    values = {}
    for metric in METRICS:
        for k, name in enumerate(study.names):
            values[key(3, metric, recommender=name, estimator="exact")] = 100 * study.exact[metric][k]
            for method in METHODS:
                estimates = 100 * study.estimates[(method, metric)][:, k]
                values[key(3, metric, recommender=name, estimator=method, statistic="mean")] = estimates.mean()
                values[key(3, metric, recommender=name, estimator=method, statistic="sd")] = estimates.std(ddof=1)
    return values


def _table4_values(agreement: pd.DataFrame) -> dict[str, float]:
    """Our Table 4 (:func:`~recbias.chapters.c06_sampled_metrics.study.real_data.agreement_counts`), exact ties
    left out."""
    return {key(4, row["metric"], pair=row["pair"], estimator=method): row[method]
            for _, row in agreement.iterrows() for method in METHODS if not np.isnan(row[method])}


def _finding_values(study: SampledStudy, cost: Cost) -> dict[str, Any]:
    found = reversals(study)
    right = right_counts(study).set_index("estimator")
    top = "top-heavy comparisons right (of 9)"
    z = auc_gaps(study)[1]
    return {
        "reversed_pairs": len(found), "reversed_list": "; ".join(found) or "no pair reversed",
        "bv_right": int(right.loc["BV 0.1", top]), "sampled_right": int(right.loc["sampled", top]),
        "correction_gain": int(right.loc["BV 0.1", top] - right.loc["sampled", top]),
        "sampled_auc_right": int(right.loc["sampled", "AUC comparisons right (of 3)"]),
        "auc_expected_gap": float(np.abs(auc_expected_gaps(study)).max()), "repetitions": study.repetitions,
        **{f"auc_z_{name.lower()}": float(value) for name, value in zip(study.names, z, strict=True)},
        "one_sample_z": one_sample_z(study, cost),
    }


def measured(study: SampledStudy, agreement: pd.DataFrame, cost: Cost) -> dict[str, Any]:
    """Every value of this build the claims read: Tables 3-4 by key, and the findings' measurements."""
    return {**_table3_values(study), **_table4_values(agreement), **_finding_values(study, cost)}

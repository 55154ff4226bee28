"""The paper's numbers and findings as data, and the values of this build they are checked on.

Every value of Tables 1-4 of Krichene and Rendle (KDD 2020) is a row of ``published.csv``, its
key built by :func:`key`; Tables 1-2 are set against the toy example (:func:`toy_measured`,
registered on the dataset ``"toy"``), Tables 3-4 and the :data:`FINDINGS` against the build's
dataset (:func:`measured`), comparable only on ML-1M.  A finding that compares systems or
estimators is decided only beyond noise (:func:`~recbias.chapters.c06_sampled_metrics.study.real_data.decided`);
one that rests on the paper's protocol says how the build departs from it (:func:`findings`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import (
    BY_WORDS, CODE, FAILS, HOLDS, INCONCLUSIVE, LEVEL, Finding, Number, between, beyond_noise, none_of, published, some_of,
)
from recbias.chapters.c06_sampled_metrics.study.cost import Cost, one_sample_z
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    METHODS, METRICS, PAPER_PROTOCOL, TOP_HEAVY, SampledStudy, auc_expected_gaps, auc_gaps, auc_order_tests,
    comparisons, rank_summary, repetition_rights, reversal_tests,
)
from recbias.chapters.c06_sampled_metrics.study.sweep import MSweep, consistent_from
from recbias.chapters.c06_sampled_metrics.study.toy import TOY_METRICS, TOY_RANKS, ToyStudy
from recbias.text import fmt_p_clause

PUBLISHED = Path(__file__).with_name("published.csv")

SOURCE = "KDD 2020 Sec. 4-6, Tables 3-4"

#: the dataset the toy example's numbers (Tables 1-2) are registered on
TOY_DATASET = "toy"

#: an expectation computed in floating point that is exact in theory may be off by this much (AUC units)
ROUNDING = 1e-10
ROUNDING_ORIGIN = "the rounding of sums of about a million terms in double precision, with room to spare"
#: how far one real sample may lie from the simulated repetitions' mean, in their standard deviations
SAMPLE_Z = 3
SAMPLE_Z_ORIGIN = "three standard deviations: a normal draw lies further out about once in 370 times"

#: how the keys of published.csv name each metric: the toy example (Tables 1-2) and ML-1M (Tables 3-4)
KEY_METRICS = {**dict.fromkeys((1, 2), {"AUC": "AUC", "AP": "AP", "nDCG": "NDCG", "Recall@10": "Recall@10"}),
               **dict.fromkeys((3, 4), {"Recall@10": "Recall", "nDCG@10": "NDCG", "AP": "AP", "AUC": "AUC"})}


def key(table: int, metric: str, *, recommender: str = "", pair: str = "", estimator: str = "",
        statistic: str = "") -> str:
    """The key of one printed value: ``table1/A/AUC``, ``table2/A/AP/mean``, ``table3/Recall/X/exact``,
    ``table3/Recall/X/CLS/sd``, ``table4/X vs Y/AP/BV 0.1`` (``metric`` in the package's grammar)."""
    name = KEY_METRICS[table][metric]
    parts = {1: (recommender, name), 2: (recommender, name, statistic),
             3: (name, recommender, estimator, statistic), 4: (pair, name, estimator)}[table]
    return "/".join((f"table{table}", *(part for part in parts if part)))


#: the parts of the published numbers, by the first part of their keys, each registered on its own values: the
#: toy example's (Tables 1-2), the real data's (Tables 3-4 and Sec. 6.1's count) and the sample-size sweep's (Fig. 6)
PARTS = {"toy": ("table1", "table2"), "data": ("table3", "table4", "fig5"), "sweep": ("fig6",)}


def numbers(part: str | None = None) -> list[Number]:
    """Every published value of Tables 1-4, Sec. 6.1 and Fig. 6 (``published.csv``), or those of one of
    :data:`PARTS`."""
    every = published(PUBLISHED)
    if part is not None and part not in PARTS:
        raise ValueError(f"unknown part {part!r} of the published numbers; expected one of {', '.join(PARTS)}")
    return every if part is None else [number for number in every if number.key.split("/")[0] in PARTS[part]]


def fig6_values(study: SampledStudy, sweep: MSweep) -> dict[str, float]:
    """Fig. 6 on this build: the smallest sample sizes of the sweep from which the uncorrected and the BV
    0.1-corrected expected Recall@10 order X and Y as the exact one does (left out where they never do)."""
    uncorrected, corrected = consistent_from(study, sweep, 0, 1)
    found = {"uncorrected-m": uncorrected, "corrected-m": corrected}
    return {f"fig6/X vs Y/{name}": float(m) for name, m in found.items() if m is not None}


@cache
def paper() -> dict[str, float]:
    """Published value by key."""
    return {number.key: number.value for number in numbers()}


#: the BV 0.1 correction against the uncorrected metric: beyond noise over the repetitions, not the users
CORRECTION_GAIN = replace(
    beyond_noise("correction_gain", "correction_p"),
    words=("BV 0.1's mean right comparisons minus the uncorrected metric's above zero, p < {level:g} paired over "
           "the repetitions").format(level=LEVEL))

#: how the real-data findings state their level (Bonferroni over the comparisons they read)
BONFERRONI = "each comparison at p < {level:g} / {comparisons}"

FINDINGS = [
    Finding("sampled-reverses-order",
            "the uncorrected sampled metric reverses, in expectation, the exact order of some pair of recommenders "
            "on a top-heavy metric",
            SOURCE, "tbl-sm-reversals",
            some_of("reversed_pairs", "kept_pairs", "top_heavy_pairs", words=(
                "holds when at least one pair (exact and expected sampled differences, paired t-tests with the user "
                "as the unit, Bonferroni) is reversed beyond noise, fails when all are kept beyond noise")),
            "reversed beyond noise: {reversed_names}; of the {top_heavy_pairs} comparisons, {kept_pairs} kept and "
            "{within_pairs} within noise ({reversal_level})",
            note="the paper's reversal rests on systems that spread their ranks differently; whether a dataset "
                 "shows it depends on how its systems' ranks are spread",
            says={HOLDS: "**On this build**, the uncorrected sampled metric reverses the exact order in expectation, "
                         "beyond noise, in {reversed_pairs} of the {top_heavy_pairs} comparisons: {reversed_names}.",
                  FAILS: "**On this build**, the expected uncorrected sampled metric keeps the exact order of every "
                         "pair on every top-heavy metric, all {top_heavy_pairs} comparisons beyond noise: the three "
                         "recommenders differ in a way that the bias does not flip.",
                  INCONCLUSIVE: "**On this build**, no comparison is reversed beyond noise, and not every one is kept "
                                "beyond noise: of the {top_heavy_pairs} comparisons, {kept_pairs} are kept and "
                                "{within_pairs} are within noise. Reversed by the expected uncorrected sampled metric "
                                "in the means, though not beyond the noise of the {n_users} users: "
                                "{means_reversed_names}."}),
    Finding("correction-helps",
            "the BV 0.1 correction orders more top-heavy comparisons as the exact metric does than the uncorrected "
            "sampled metric, per repetition",
            SOURCE, "tbl-sm-right", CORRECTION_GAIN,
            "{bv_right:.2f} vs {sampled_right:.2f} of {right_total} comparisons right per repetition, "
            "{correction_p_clause}"),
    Finding("sampled-auc-keeps-order",
            "sampled AUC orders the recommenders as exact AUC does, in the means over the repetitions",
            SOURCE, "tbl-sm-right",
            none_of("auc_reversed", "auc_kept", "auc_pairs", words=(
                "holds when every pair (mean sampled difference paired over the repetitions, Bonferroni) is kept "
                "beyond noise, fails when one is reversed beyond noise")),
            "{auc_kept} of {auc_pairs} pairs kept beyond the noise of the {repetitions} repetitions, "
            "{auc_reversed} reversed ({auc_level})"),
    Finding("sampled-auc-unbiased",
            "sampled AUC is an unbiased estimate of exact AUC: the expectation of the sampled estimator, under "
            "each user's own sampling law, equals exact AUC to rounding",
            SOURCE, "tbl-sm-table3",
            between("auc_expected_gap", 0, ROUNDING, open_high=True, what="the largest gap of the expectation",
                    origin=(BY_WORDS, ROUNDING_ORIGIN)),
            "largest gap of the expectation {auc_expected_gap:.0e}; for illustration, the mean of the {repetitions} "
            "simulated repetitions is off by z = {auc_z_x:+z.1f}, {auc_z_y:+z.1f}, {auc_z_z:+z.1f} (X, Y, Z)",
            origin=CODE),
    Finding("one-sample-matches-simulation",
            "one sampled evaluation lands within the spread of the simulated sampled metric",
            SOURCE, "tbl-sm-cost", between("one_sample_z", -SAMPLE_Z, SAMPLE_Z, open_low=True, open_high=True,
                                           what="its z-score", origin=SAMPLE_Z_ORIGIN),
            "z = {one_sample_z:+z.1f}", origin=CODE),
]

#: the findings that rest on the paper's real-data protocol (its Sec. 6), which a build may depart from
ON_PROTOCOL = ("sampled-reverses-order", "correction-helps", "sampled-auc-keeps-order")

#: one departure from the paper's protocol, as ``departs`` states it
DEPARTURE = "{setting} {ours} instead of the paper's {paper}"


def departs_text(study: SampledStudy) -> str:
    """How the build departs from the paper's protocol (:data:`PAPER_PROTOCOL`, whose settings are fields of the
    study), ``""`` when it does not."""
    return "; ".join(DEPARTURE.format(setting=setting, ours=getattr(study, setting), paper=paper)
                     for setting, paper in PAPER_PROTOCOL.items() if getattr(study, setting) != paper)


def findings(study: SampledStudy) -> list[Finding]:
    """:data:`FINDINGS`, those of :data:`ON_PROTOCOL` with the build's departures from the paper's protocol."""
    departs = departs_text(study)
    return [replace(finding, departs=departs) if finding.key in ON_PROTOCOL else finding for finding in FINDINGS]


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


def table3_values(study: SampledStudy) -> dict[str, float]:
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


def _named(rows: pd.DataFrame) -> str:
    return "; ".join(f"{row.pair.replace(' vs ', ' and ')} on {row.metric}" for row in rows.itertuples()) or "none"


def _reversal_values(study: SampledStudy) -> dict[str, Any]:
    tests = reversal_tests(study)
    in_means = tests[tests["exact difference"] * tests["expected difference"] < 0]
    return {"reversed_pairs": int(tests["reversed"].sum()), "kept_pairs": int(tests["kept"].sum()),
            "within_pairs": int((~tests["kept"] & ~tests["reversed"]).sum()), "top_heavy_pairs": len(tests),
            "reversed_names": _named(tests[tests["reversed"]]), "means_reversed_names": _named(in_means),
            "n_users": f"{len(study.sizes):,}",
            "reversal_level": BONFERRONI.format(level=LEVEL, comparisons=len(tests))}


def _finding_values(study: SampledStudy, cost: Cost) -> dict[str, Any]:
    rights = repetition_rights(study).set_index("estimator")
    auc = auc_order_tests(study)
    z = auc_gaps(study)[1]
    return {
        **_reversal_values(study),
        "bv_right": float(rights.loc["BV 0.1", "top-heavy right"]),
        "sampled_right": float(rights.loc["sampled", "top-heavy right"]),
        "right_total": comparisons(study, TOP_HEAVY),
        "correction_gain": float(rights.loc["BV 0.1", "difference from uncorrected"]),
        "correction_p": float(rights.loc["BV 0.1", "p"]),
        "correction_p_clause": fmt_p_clause(float(rights.loc["BV 0.1", "p"])),
        "auc_kept": int(auc["kept"].sum()), "auc_reversed": int(auc["reversed"].sum()),
        "auc_pairs": len(auc), "auc_level": BONFERRONI.format(level=LEVEL, comparisons=len(auc)),
        "auc_expected_gap": float(np.abs(auc_expected_gaps(study)).max()), "repetitions": study.repetitions,
        **{f"auc_z_{name.lower()}": float(value) for name, value in zip(study.names, z, strict=True)},
        "one_sample_z": one_sample_z(study, cost),
    }


def measured(study: SampledStudy, agreement: pd.DataFrame, cost: Cost) -> dict[str, Any]:
    """Every value of this build the claims read: Tables 3-4 and Sec. 6.1's count by key, and the findings'
    measurements."""
    top_100 = rank_summary(study).set_index("recommender").loc[study.labels["X"], "top 100"]
    return {**table3_values(study), **_table4_values(agreement), "fig5/X/top-100": float(top_100),
            **_finding_values(study, cost)}

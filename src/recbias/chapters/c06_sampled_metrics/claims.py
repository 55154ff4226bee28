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
    BY_WORDS, CODE, FAILS, HOLDS, INCONCLUSIVE, LEVEL, NOT_CHECKED, Finding, Number, below, between, beyond_noise,
    every_beyond_noise, none_of, published, some_of,
)
from recbias.chapters.c06_sampled_metrics.study.cost import Cost, one_sample_z
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    METHODS, METRICS, PAPER_PROTOCOL, TOP_HEAVY, SampledStudy, auc_expected_gaps, auc_gaps, auc_order_tests,
    comparisons, in_region, rank_summary, region_comparison, repetition_rights, reversal_tests,
)
from recbias.chapters.c06_sampled_metrics.study.sweep import MSweep, consistent_from
from recbias.chapters.c06_sampled_metrics.study.toy import TOY_METRICS, TOY_RANKS, ToyStudy
from recbias.text import fmt_p_clause, fmt_signed

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

#: where the rank profiles come from
PROFILE_SOURCE = "KDD 2020 Sec. 6.1, Fig. 5"

#: Sec. 6.1's rank profiles of X, Y and Z on ML-1M (Fig. 5), each read as comparisons of shares of users: finding
#: key -> the region of the ranking, the pairs (system said to place more held-out items there, the other), what
#: the paper says and its contrary
PROFILES = {
    "z-most-often-in-top-10": (
        "top 10", (("Z", "X"), ("Z", "Y")),
        "Z ranks the held-out item in the top 10 for more users than X and than Y",
        "Z ranks it in the top 10 for fewer users than X or than Y"),
    "y-more-often-in-top-10-than-x": (
        "top 10", (("Y", "X"),),
        "Y ranks the held-out item in the top 10 for more users than X",
        "Y ranks it in the top 10 for fewer users than X"),
    "x-least-often-in-bottom-half": (
        "bottom half", (("Y", "X"), ("Z", "X")),
        "X puts the held-out item in the bottom half of the user's catalogue for fewer users than Y and than Z",
        "X puts it there for more users than Y or than Z"),
}

#: what a rank profile says of each outcome: the statement (or its contrary) and the shares of the three systems
PROFILE_SAYS = {
    HOLDS: "**On this build**, as in the paper, {statement}, beyond noise (share of users in the {region}: {shares}).",
    FAILS: "**On this build**, unlike in the paper, {contrary}, beyond noise (share of users in the {region}: "
           "{shares}).",
    INCONCLUSIVE: "**On this build**, the users do not tell beyond noise whether {statement} (share of users in the "
                  "{region}: {shares}).",
}
#: the evidence of a rank profile: the shares, then each comparison (``tests``, one :data:`PROFILE_TEST` each)
PROFILE_EVIDENCE = "share of users in the {region}: {shares}; {tests} ({level})"
PROFILE_TEST = "{more} − {fewer} {{{name}_points}} points, {{{name}_p_clause}}"


def share_name(region: str, system: str) -> str:
    """The value name of the share of users whose held-out item ``system`` ranks in ``region``: ``top_10_z``."""
    return f"{region.replace(' ', '_')}_{system.lower()}"


def difference_name(region: str, more: str, fewer: str) -> str:
    """The value name of ``more``'s share in ``region`` minus ``fewer``'s: ``top_10_z_minus_x`` (in percentage
    points as text ``..._points``, its p-value ``..._p`` and as a clause ``..._p_clause``)."""
    return f"{share_name(region, more)}_minus_{fewer.lower()}"


def _profile_finding(key: str, region: str, pairs: tuple[tuple[str, str], ...], statement: str,
                     contrary: str) -> Finding:
    """The finding of one of :data:`PROFILES`: every comparison beyond noise, Bonferroni over its pairs."""
    differences = [difference_name(region, more, fewer) for more, fewer in pairs]
    shares = ", ".join("{} {{{}:.1%}}".format(system, share_name(region, system)) for system in "XYZ")
    tests = "; ".join(PROFILE_TEST.format(more=more, fewer=fewer, name=name)
                      for (more, fewer), name in zip(pairs, differences, strict=True))
    level = BONFERRONI.format(level=LEVEL, comparisons=len(pairs)) if len(pairs) > 1 else "p < {:g}".format(LEVEL)
    return Finding(
        key, statement, PROFILE_SOURCE, "tbl-sm-rank-summary",
        every_beyond_noise(differences, what="the difference of the shares of users", level=LEVEL / len(pairs)),
        PROFILE_EVIDENCE.format(region=region, shares=shares, tests=tests, level=level),
        says={outcome: template.format(statement=statement, contrary=contrary, region=region, shares=shares)
              for outcome, template in PROFILE_SAYS.items()})


PROFILE_FINDINGS = [_profile_finding(key, *profile) for key, profile in PROFILES.items()]

BOTTOM_HALF_COUNT = Finding(
    "x-under-300-in-bottom-half",
    "X puts the held-out item in the bottom half of the user's catalogue for fewer than 300 of ML-1M's 6,040 users",
    PROFILE_SOURCE, "tbl-sm-rank-summary",
    below("bottom_half_count_x", 300, origin=BY_WORDS, what="X's count"),
    "{bottom_half_count_x:,} of {n_users} users",
    says={HOLDS: "**On this build**, X puts the held-out item in the bottom half for {bottom_half_count_x:,} of the "
                 "{n_users} users, fewer than the paper's 300.",
          FAILS: "**On this build**, X puts the held-out item in the bottom half for {bottom_half_count_x:,} of the "
                 "{n_users} users, not fewer than the paper's 300.",
          NOT_CHECKED: "This count of users is checked only on ML-1M under the paper's leave-last-out split, where "
                       "the users are the paper's."})

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
    *PROFILE_FINDINGS,
    BOTTOM_HALF_COUNT,
]

#: the findings that rest on the paper's real-data protocol (its Sec. 6), which a build may depart from
ON_PROTOCOL = ("sampled-reverses-order", "correction-helps", "sampled-auc-keeps-order")

#: the settings of the protocol that exact ranks depend on (the rank profiles read no sample)
DATA_SETTINGS = ("dataset", "split")
#: the findings that rest on the paper's data (its users' exact ranks), which a build may depart from
ON_DATA = (*PROFILES, BOTTOM_HALF_COUNT.key)

#: one departure from the paper's protocol, as ``departs`` states it
DEPARTURE = "{setting} {ours} instead of the paper's {paper}"


def departs_text(study: SampledStudy, settings: tuple[str, ...] = tuple(PAPER_PROTOCOL)) -> str:
    """How the build departs from the paper's protocol in ``settings`` (keys of :data:`PAPER_PROTOCOL`, fields of
    the study; all of them by default), ``""`` when it does not."""
    return "; ".join(DEPARTURE.format(setting=setting, ours=getattr(study, setting), paper=PAPER_PROTOCOL[setting])
                     for setting in settings if getattr(study, setting) != PAPER_PROTOCOL[setting])


def on_paper_data(study: SampledStudy) -> bool:
    """Whether the build ranks the paper's users: its dataset under its split (:data:`DATA_SETTINGS`), where a
    count of users compares with the paper's."""
    return departs_text(study, DATA_SETTINGS) == ""


def findings(study: SampledStudy) -> list[Finding]:
    """:data:`FINDINGS`, those of :data:`ON_PROTOCOL` with the build's departures from the paper's protocol and
    those of :data:`ON_DATA` with its departures from the paper's data."""
    departs = {**dict.fromkeys(ON_PROTOCOL, departs_text(study)),
               **dict.fromkeys(ON_DATA, departs_text(study, DATA_SETTINGS))}
    return [replace(finding, departs=departs[finding.key]) if finding.key in departs else finding
            for finding in FINDINGS]


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


def _profile_values(study: SampledStudy) -> dict[str, Any]:
    """The shares of users per region and system, and the differences :data:`PROFILES` compare with their
    p-values; X's count in the bottom half only on the paper's data (:func:`on_paper_data`)."""
    values: dict[str, Any] = {}
    for region in dict.fromkeys(region for region, *_ in PROFILES.values()):
        shares = in_region(study, region).mean(axis=0)
        values |= {share_name(region, system): float(share) for system, share in zip(study.names, shares, strict=True)}
    for region, pairs, *_ in PROFILES.values():
        for more, fewer in pairs:
            difference, p = region_comparison(study, region, more, fewer)
            name = difference_name(region, more, fewer)
            values |= {name: difference, f"{name}_points": fmt_signed(100 * difference), f"{name}_p": p,
                       f"{name}_p_clause": fmt_p_clause(p)}
    if on_paper_data(study):
        values["bottom_half_count_x"] = int(in_region(study, "bottom half")[:, study.names.index("X")].sum())
    return values


def _finding_values(study: SampledStudy, cost: Cost) -> dict[str, Any]:
    rights = repetition_rights(study).set_index("estimator")
    auc = auc_order_tests(study)
    z = auc_gaps(study)[1]
    return {
        **_reversal_values(study),
        **_profile_values(study),
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

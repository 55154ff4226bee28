"""The tables and sentences of the comparisons decided beyond noise: the reversals of the exact order in
expectation (the user as the unit) and the estimators' right comparisons per repetition."""

from __future__ import annotations

import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.noise import (
    KEPT, LEVEL, REVERSED, comparisons, repetition_rights, reversal_tests,
)
from recbias.chapters.c06_sampled_metrics.study.real_data import METRICS, PAIRS, TOP_HEAVY, SampledStudy
from recbias.text import and_list, fmt_count, fmt_p

REVERSED_BEYOND = ("**On this build**, the uncorrected sampled metric reverses the exact order of {pairs} in "
                   "expectation, beyond noise: {which}.")
REVERSED_IN_MEANS = ("**On this build**, the expected uncorrected sampled metric reverses the exact order of {pairs} "
                     "({which}), but within noise: with {users} users the reversal is not established.")
KEPT_EVERYWHERE = ("**On this build**, the expected uncorrected sampled metric keeps the exact order of every pair on "
                   "every top-heavy metric; {kept} of the {total} comparisons are kept beyond noise. Its values are "
                   "still far from the exact ones, but the three recommenders differ in a way that the bias does not "
                   "flip.")


def _named(rows: pd.DataFrame) -> str:
    return and_list([f"{row.pair.replace(' vs ', ' and ')} on {row.metric}" for row in rows.itertuples()])


def reversal_table(study: SampledStudy) -> pd.DataFrame:
    """Per pair and top-heavy metric: the exact and the expected sampled difference (percentage points), each
    with its paired p-value over users, and the outcome."""
    tests = reversal_tests(study)
    return pd.DataFrame({
        "pair": tests["pair"], "metric": tests["metric"],
        "exact difference (pp)": [f"{100 * d:+.2f}" for d in tests["exact difference"]],
        "p (exact)": [fmt_p(p) for p in tests["exact p"]],
        "expected sampled difference (pp)": [f"{100 * d:+.2f}" for d in tests["expected difference"]],
        "p (sampled)": [fmt_p(p) for p in tests["expected p"]],
        "outcome": tests["outcome"],
    })


def reversal_numbers() -> dict[str, str]:
    """The level of each comparison of the reversal table (Bonferroni over them) as the prose quotes it."""
    return {"reversal_comparisons": f"{len(PAIRS) * len(TOP_HEAVY)}", "reversal_level": f"{LEVEL:g}"}


def reversal_text(study: SampledStudy) -> str:
    """Which pairs the uncorrected sampled metric reverses in expectation: beyond noise, only in the means, or
    none."""
    tests = reversal_tests(study)
    beyond = tests[tests["outcome"] == REVERSED]
    if len(beyond):
        return REVERSED_BEYOND.format(pairs=fmt_count(len(beyond), "pair", "pairs"), which=_named(beyond))
    in_means = tests[tests["exact difference"] * tests["expected difference"] < 0]
    if len(in_means):
        return REVERSED_IN_MEANS.format(pairs=fmt_count(len(in_means), "pair", "pairs"), which=_named(in_means),
                                        users=f"{len(study.sizes):,}")
    return KEPT_EVERYWHERE.format(kept=int((tests["outcome"] == KEPT).sum()), total=len(tests))


def rights_table(study: SampledStudy) -> pd.DataFrame:
    """Per estimator: the mean number of top-heavy and of AUC comparisons it orders right in one repetition, and
    its difference from the uncorrected metric with the paired p-value over the repetitions."""
    rights = repetition_rights(study)
    top, auc = comparisons(study, TOP_HEAVY), comparisons(study, METRICS[3:])
    return pd.DataFrame({
        "estimator": rights["estimator"],
        f"top-heavy right (of {top})": [f"{v:.2f}" for v in rights["top-heavy right"]],
        "minus uncorrected": ["" if m == "sampled" else f"{v:+.2f}"
                              for m, v in zip(rights["estimator"], rights["difference from uncorrected"])],
        "p (paired over repetitions)": ["" if m == "sampled" else fmt_p(p) for m, p in zip(rights["estimator"],
                                                                                         rights["p"])],
        f"AUC right (of {auc})": [f"{v:.2f}" for v in rights["AUC right"]],
    })

"""Which differences of the chapter's comparisons lie beyond noise.

Two kinds of noise, two tests.  Users: the study's users are a sample, so whether the sampled
metric reverses the order of two systems *in expectation* (Krichene and Rendle, Sec. 6.2) is
tested with the user as the unit, by paired t-tests on each user's exact metric and on the exact
expectation of the user's sampled metric (:func:`reversal_tests`).  Repetitions: whether an
estimator orders the systems as the exact metric of these users does is a question about the
random samples, tested over the repetitions, which every estimator reads alike (paired;
:func:`repetition_rights`, :func:`auc_order_tests`).  A comparison is decided when both of its
differences are beyond noise with the same or opposite signs (:func:`decided`), each at the book's
level divided by the number of comparisons a finding reads (Bonferroni); the findings read the counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias import sampled
from recbias.bookkit.claims import LEVEL
from recbias.chapters.c06_sampled_metrics.study.real_data import METHODS, METRICS, PAIRS, TOP_HEAVY, SampledStudy
from recbias.evaluate import paired_tests


def decided(exact: np.ndarray, exact_p: np.ndarray, estimate: np.ndarray, p: np.ndarray,
            level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison, whether the estimate keeps and whether it reverses the exact order beyond noise: both
    differences nonzero with ``p < level`` (a p-value of 0 marks a difference known without noise), with the
    same or with opposite signs.  A comparison that is neither is within noise."""
    exact, estimate = np.asarray(exact, dtype=float), np.asarray(estimate, dtype=float)
    both = (np.maximum(exact_p, p) < level) & (exact != 0) & (estimate != 0)
    same = np.sign(exact) == np.sign(estimate)
    return both & same, both & ~same


def user_values(study: SampledStudy, method: str, metric: str) -> np.ndarray:
    """``(targets, 3)`` per user: the exact metric (``method="exact"``), or the exact expectation of the
    estimator ``method`` under the user's own sampling law (Eq. sm-expected)."""
    if method == "exact":
        view = sampled.rank_metric(metric)
        return np.column_stack([view.values(study.ranks[:, k], study.sizes) for k in range(len(study.names))])
    table = study.tables[(method, metric)][study.bins]
    return np.column_stack([sampled.estimator_moments(table, study.ranks[:, k], study.sizes, study.replace).mean
                            for k in range(len(study.names))])


def _paired(values: np.ndarray, a: int, b: int) -> tuple[float, float]:
    """Mean difference of columns ``a`` and ``b`` and the p-value of the paired t-test, rows as units."""
    return float(values[:, a].mean() - values[:, b].mean()), paired_tests(values[:, a], values[:, b])["t_pvalue"]


def reversal_tests(study: SampledStudy, method: str = "sampled", level: float = LEVEL) -> pd.DataFrame:
    """Per pair of systems and top-heavy metric: the exact difference and the expected difference of
    ``method``, each with its paired p-value over users, and whether the estimate keeps or reverses the exact
    order beyond noise (:func:`decided` at ``level`` divided by the number of comparisons)."""
    values = {metric: (user_values(study, "exact", metric), user_values(study, method, metric)) for metric in TOP_HEAVY}
    rows = []
    for a, b in PAIRS:
        for metric in TOP_HEAVY:
            (exact, exact_p), (expected, expected_p) = (_paired(users, a, b) for users in values[metric])
            rows.append({"pair": f"{study.names[a]} vs {study.names[b]}", "metric": metric, "exact difference": exact,
                         "exact p": exact_p, "expected difference": expected, "expected p": expected_p})
    tests = pd.DataFrame(rows)
    kept, reversed_ = decided(tests["exact difference"], tests["exact p"], tests["expected difference"],
                              tests["expected p"], level / len(tests))
    return tests.assign(kept=kept, reversed=reversed_)


def rights_per_repetition(study: SampledStudy, method: str, metrics: tuple[str, ...]) -> np.ndarray:
    """In each repetition, how many comparisons (pairs x ``metrics``, exact ties left out) ``method`` orders
    strictly as the exact metric does."""
    right = np.zeros(study.repetitions, dtype=np.int64)
    for metric in metrics:
        exact, estimates = study.exact[metric], study.estimates[(method, metric)]
        for a, b in PAIRS:
            if exact[a] != exact[b]:
                right += np.sign(estimates[:, a] - estimates[:, b]) == np.sign(exact[a] - exact[b])
    return right


def comparisons(study: SampledStudy, metrics: tuple[str, ...]) -> int:
    """Comparisons (pairs x ``metrics``) whose exact values differ."""
    return sum(study.exact[metric][a] != study.exact[metric][b] for metric in metrics for a, b in PAIRS)


def repetition_rights(study: SampledStudy) -> pd.DataFrame:
    """Per estimator, the mean number of top-heavy comparisons it orders as the exact metric in one repetition,
    its difference from the uncorrected metric's with the paired p-value over the repetitions, and the mean
    number of AUC comparisons right."""
    baseline = rights_per_repetition(study, "sampled", TOP_HEAVY)
    rows = []
    for method in METHODS:
        right = rights_per_repetition(study, method, TOP_HEAVY)
        rows.append({"estimator": method, "top-heavy right": right.mean(),
                     "difference from uncorrected": right.mean() - baseline.mean(),
                     "p": paired_tests(right, baseline)["t_pvalue"],
                     "AUC right": rights_per_repetition(study, method, METRICS[3:]).mean()})
    return pd.DataFrame(rows)


def auc_order_tests(study: SampledStudy, level: float = LEVEL) -> pd.DataFrame:
    """Per pair: the exact AUC difference (known without noise for these users), the mean difference of the
    uncorrected sampled AUC over the repetitions with its paired p-value, and whether it keeps or reverses the
    exact order beyond noise (:func:`decided` at ``level`` divided by the number of pairs)."""
    exact, estimates = study.exact["AUC"], study.estimates[("sampled", "AUC")]
    tests = pd.DataFrame([{"pair": f"{study.names[a]} vs {study.names[b]}", "exact difference": exact[a] - exact[b],
                           **dict(zip(("sampled difference", "sampled p"), _paired(estimates, a, b)))}
                          for a, b in PAIRS])
    kept, reversed_ = decided(tests["exact difference"], 0.0, tests["sampled difference"], tests["sampled p"],
                              level / len(PAIRS))
    return tests.assign(kept=kept, reversed=reversed_)

"""Which differences of the chapter's comparisons lie beyond noise.

Two kinds of noise, two tests.  Users: the study's users are a sample, so whether the sampled
metric reverses the order of two systems *in expectation* (Krichene and Rendle, Sec. 6.2) is
tested with the user as the unit, by paired t-tests on each user's exact metric and on the exact
expectation of the user's sampled metric (:func:`reversal_tests`).  Repetitions: whether an
estimator orders the systems as the exact metric of these users does is a question about the
random samples, tested over the repetitions, which every estimator reads alike (paired;
:func:`repetition_rights`, :func:`auc_order_tests`).  A comparison is decided when both of its
differences are beyond noise (:func:`pair_outcome`), at a level divided by the number of
comparisons a finding reads (Bonferroni).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias import sampled
from recbias.chapters.c06_sampled_metrics.study.real_data import METHODS, METRICS, PAIRS, TOP_HEAVY, SampledStudy
from recbias.evaluate import paired_tests

#: a difference is beyond noise below this p-value (divided by the number of comparisons a finding reads)
LEVEL = 0.05

#: the outcomes of one comparison of two systems: the exact order kept or reversed beyond noise, or neither
KEPT, REVERSED, WITHIN_NOISE = "kept", "reversed", "within noise"


def pair_outcome(exact: tuple[float, float], estimate: tuple[float, float], level: float = LEVEL) -> str:
    """:data:`KEPT` or :data:`REVERSED` when the exact and the estimated difference of a pair, each given as
    ``(difference, p-value)``, are both beyond noise (``p < level``) with the same or opposite signs;
    :data:`WITHIN_NOISE` otherwise (a p-value of 0 marks a difference known without noise)."""
    (exact_difference, exact_p), (difference, p) = exact, estimate
    if max(exact_p, p) >= level or exact_difference == 0 or difference == 0:
        return WITHIN_NOISE
    return KEPT if np.sign(exact_difference) == np.sign(difference) else REVERSED


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
    ``method``, each with its paired p-value over users, and the :func:`pair_outcome` at ``level`` divided by
    the number of comparisons."""
    comparisons = [(pair, metric) for pair in PAIRS for metric in TOP_HEAVY]
    values = {metric: (user_values(study, "exact", metric), user_values(study, method, metric)) for metric in TOP_HEAVY}
    rows = []
    for (a, b), metric in comparisons:
        exact, expected = (_paired(users, a, b) for users in values[metric])
        rows.append({"pair": f"{study.names[a]} vs {study.names[b]}", "metric": metric,
                     "exact difference": exact[0], "exact p": exact[1],
                     "expected difference": expected[0], "expected p": expected[1],
                     "outcome": pair_outcome(exact, expected, level / len(comparisons))})
    return pd.DataFrame(rows)


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
    uncorrected sampled AUC over the repetitions with its paired p-value, and the :func:`pair_outcome` at
    ``level`` divided by the number of pairs."""
    exact, estimates = study.exact["AUC"], study.estimates[("sampled", "AUC")]
    rows = []
    for a, b in PAIRS:
        difference = _paired(estimates, a, b)
        rows.append({"pair": f"{study.names[a]} vs {study.names[b]}", "exact difference": exact[a] - exact[b],
                     "sampled difference": difference[0], "sampled p": difference[1],
                     "outcome": pair_outcome((exact[a] - exact[b], 0.0), difference, level / len(PAIRS))})
    return pd.DataFrame(rows)

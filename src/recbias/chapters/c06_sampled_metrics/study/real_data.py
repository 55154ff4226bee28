"""Sampled against exact evaluation on real data (Krichene and Rendle, KDD 2020, Sec. 6).

A leave-one-out split (the most recent rating, or one at random without timestamps), the
systems X (iALS), Y and Z (item-kNN), the exact rank of every held-out item among its pool
(:func:`recbias.evaluate.pool_ranks`), sampled ranks from ``repetitions`` samples shared by the
three systems (:func:`recbias.sampled.simulate_common_sampled_ranks`) and every estimator
(:func:`sampled_study`); then what Tables 3 and 4 and the findings read from them.

Which differences lie beyond noise, two kinds of noise and two tests.  Users are a sample, so whether the
sampled metric reverses the order of two systems *in expectation* (Sec. 6.2) is tested with the user as the
unit, on each user's exact metric and the exact expectation of the user's sampled metric
(:func:`reversal_tests`).  Whether an estimator orders the systems as the exact metric of these users does
is a question about the samples, tested over the repetitions, which every estimator reads alike
(:func:`repetition_rights`, :func:`auc_order_tests`).  A comparison is kept or reversed when both of its
differences are beyond noise (:func:`decided`), at the book's level divided by the number of comparisons a
finding reads (Bonferroni); the findings read the counts.

A corrected sampled metric of a fitted system on any split, the call chapter 8 uses, is
:func:`recbias.sampled.corrected_sampled_metric`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import sampled, splits
from recbias.bookkit.claims import LEVEL
from recbias.evaluate import PoolRanks, paired_tests, pool_ranks
from recbias.evaluate.experiment import fit_systems
from recbias.evaluate.orderings import pair_agreement
from recbias.ratings import Ratings
from recbias.recommenders import Recommender, make

#: Krichene and Rendle's own three systems, anonymised as X, Y and Z (their appendix), as presets of
#: recbias.recommenders.make: today's top-N learners, not the papers' set of IRJ 2017
SYSTEMS = {"X": "ials-x", "Y": "item-knn-y", "Z": "item-knn-z"}

METRICS = ("Recall@10", "nDCG@10", "AP", "AUC")

#: the metrics whose weight sits at the top of the list (all but AUC)
TOP_HEAVY = METRICS[:3]

METHODS = ("sampled", "rank estimate", "CLS", "BV 1", "BV 0.1", "BV 0.01", "BV 0.001")

PAIRS = ((0, 1), (0, 2), (1, 2))

#: fewer pools than this holding m items, without replacement: m shrinks to the smallest pool
MIN_FULL_POOLS = 10

LEAVE_LAST_OUT = "leave-last-out"
LEAVE_ONE_RANDOM_OUT = "leave-one-random-out"

#: the protocol of the paper's Sec. 6, setting -> value: what a build is compared with
PAPER_PROTOCOL = {"dataset": "ml-1m", "split": LEAVE_LAST_OUT, "m": 100, "repetitions": 100}


@dataclass(frozen=True, eq=False)
class SampledStudy:
    """Exact and sampled evaluation of X, Y and Z on one leave-one-out split.

    Attributes (the less obvious ones):
        names: ``("X", "Y", "Z")``; ``labels`` maps them to the systems' display names; ``models`` follow them.
        pool: exact ranks of every held-out item (:func:`recbias.evaluate.pool_ranks`, with patterns).
        keep: the targets whose pool holds ``m`` items (all of them with replacement).
        m, m_requested: the sample size used, and the one asked for.
        n_tolerance: relative width of the catalogue-size groups of the corrections.
        bins, bin_sizes: the group of every kept target and the ``n`` of every group.
        tables: ``(method, metric) ->`` correction table, one row per group.
        estimates: ``(method, metric) ->`` ``(repetitions, 3)`` estimates.
        correction_seconds: time to compute ``tables``.
    """

    dataset: str
    split: str
    names: tuple[str, ...]
    labels: dict[str, str]
    models: list[Recommender]
    train: Ratings
    test: Ratings
    pool: PoolRanks
    keep: np.ndarray
    m: int
    m_requested: int
    replace: bool
    repetitions: int
    n_tolerance: float
    bins: np.ndarray
    bin_sizes: np.ndarray
    tables: dict[tuple[str, str], np.ndarray]
    exact: dict[str, np.ndarray]
    estimates: dict[tuple[str, str], np.ndarray]
    correction_seconds: float

    @property
    def ranks(self) -> np.ndarray:
        """``(targets, 3)`` exact ranks of the kept targets."""
        return self.pool.ranks[self.keep]

    @property
    def sizes(self) -> np.ndarray:
        """``n`` of each kept target."""
        return self.pool.sizes[self.keep]


def leave_one_out(ratings: Ratings, seed: int) -> tuple[Ratings, Ratings, str]:
    """The paper's split: each user's most recent rating held out, or one at random without timestamps."""
    if ratings.timestamps is not None:
        return *splits.leave_last_out(ratings), LEAVE_LAST_OUT
    return *splits.leave_one_random_out(ratings, seed=seed), LEAVE_ONE_RANDOM_OUT


def sample_size(sizes: np.ndarray, m: int, replace: bool) -> int:
    """``m``, or without replacement the size of the smallest pool when fewer than :data:`MIN_FULL_POOLS`
    pools (``sizes`` counts the held-out item) hold ``m`` other items."""
    if not replace and np.count_nonzero(sizes - 1 >= m) < MIN_FULL_POOLS:
        return int(sizes.min()) - 1
    return m


def sampled_study(
    ratings: Ratings, *, seed: int = 0, m: int = 100, repetitions: int = 100, with_replacement: bool = False,
    n_tolerance: float = 0.05,
) -> SampledStudy:
    """Exact ranks, ``repetitions`` shared samples of ``m`` pool items, and every estimator (Tables 3-4).

    Without replacement the targets whose pool is smaller than the sample size of :func:`sample_size`
    are left out.  Samples are drawn with ``numpy.random.default_rng(seed + 1)``.
    """
    if m < 1 or repetitions < 2 or not n_tolerance >= 0:
        raise ValueError(f"need m >= 1, repetitions >= 2 and n_tolerance >= 0, got {m}, {repetitions}, {n_tolerance}")
    train, test, split = leave_one_out(ratings, seed)
    if test.n_ratings == 0:
        raise ValueError(f"{ratings.name}: no user has two ratings, so nothing can be held out")
    labels = {short: make(preset).name for short, preset in SYSTEMS.items()}
    fitted = fit_systems({labels[s]: p for s, p in SYSTEMS.items()}, train, key_extra=(ratings.name, split), seed=seed)
    models = list(fitted.values())
    pool = pool_ranks(models, train, test, patterns=True, seed=seed)
    used = sample_size(pool.sizes, m, with_replacement)
    keep = np.ones(pool.n_targets, dtype=bool) if with_replacement else pool.sizes - 1 >= used
    ranks, sizes = pool.ranks[keep], pool.sizes[keep]
    draws = sampled.simulate_common_sampled_ranks(pool.patterns[keep], used, with_replacement, repetitions,
                                                  np.random.default_rng(seed + 1))
    bins, bin_sizes = sampled.catalogue_bins(sizes, n_tolerance)
    start = time.perf_counter()
    tables = sampled.correction_tables(METHODS, METRICS, bin_sizes, used, with_replacement)
    seconds = time.perf_counter() - start
    exact = {metric: np.array([sampled.rank_metric(metric).values(ranks[:, k], sizes).mean() for k in range(3)])
             for metric in METRICS}
    # each target's sampled rank read in its group's row of the table, averaged over targets per repetition
    estimates = {key: np.column_stack([table[bins[None, :], draws[:, :, k] - 1].mean(axis=1) for k in range(3)])
                 for key, table in tables.items()}
    return SampledStudy(ratings.name, split, tuple(SYSTEMS), labels, models, train, test, pool, keep, used, m,
                        with_replacement, repetitions, n_tolerance, bins, bin_sizes, tables, exact, estimates, seconds)


def grouping_error(study: SampledStudy) -> tuple[float, int]:
    """Largest change of expected Recall@10 and AP under the rank estimate when every distinct ``n`` gets its
    own correction instead of its group's (metric units), and the number of distinct ``n``."""
    exact_bins, exact_sizes = sampled.catalogue_bins(study.sizes, 0.0)
    largest = 0.0
    for metric in ("Recall@10", "AP"):
        own = sampled.correction_tables(["rank estimate"], [metric], exact_sizes, study.m, study.replace)
        for k in range(3):
            means = [sampled.estimator_moments(table[bins], study.ranks[:, k], study.sizes, study.replace).average
                     for table, bins in ((own[("rank estimate", metric)], exact_bins),
                                         (study.tables[("rank estimate", metric)], study.bins))]
            largest = max(largest, abs(means[0] - means[1]))
    return largest, len(exact_sizes)


#: the regions of a ranking that Sec. 6.1 counts users in: whether exact rank ``r`` among ``n`` candidates lies in it
REGIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "top 10": lambda ranks, sizes: ranks <= 10,
    "top 100": lambda ranks, sizes: ranks <= 100,
    "bottom half": lambda ranks, sizes: ranks > sizes / 2,
}


def in_region(study: SampledStudy, region: str) -> np.ndarray:
    """``(targets, 3)``: whether each system ranks each user's held-out item in ``region`` (:data:`REGIONS`)."""
    if region not in REGIONS:
        raise ValueError(f"unknown region {region!r} of a ranking; expected one of {', '.join(REGIONS)}")
    return REGIONS[region](study.ranks, study.sizes[:, None])


def rank_summary(study: SampledStudy) -> pd.DataFrame:
    """Users whose held-out item reaches the top 10 and 100 or lands in the bottom half, and the median rank."""
    counts = {region: in_region(study, region).sum(axis=0) for region in REGIONS}
    return pd.DataFrame([
        {"recommender": study.labels[s], **{region: int(counts[region][k]) for region in REGIONS},
         "median rank": float(np.median(study.ranks[:, k]))}
        for k, s in enumerate(study.names)
    ])


def region_comparison(study: SampledStudy, region: str, more: str, fewer: str) -> tuple[float, float]:
    """The share of users whose held-out item system ``more`` ranks in ``region`` minus that share for system
    ``fewer`` (names of ``study.names``), and the p-value of the paired t-test with the user as the unit: one
    comparison behind the rank profiles of Sec. 6.1 (Fig. 5)."""
    inside = in_region(study, region).astype(np.float64)
    return _paired(inside, study.names.index(more), study.names.index(fewer))


def auc_gaps(study: SampledStudy) -> tuple[np.ndarray, np.ndarray]:
    """Mean uncorrected sampled AUC minus exact AUC per system (percentage points), and its z-score."""
    values = 100 * study.estimates[("sampled", "AUC")]
    gaps = values.mean(axis=0) - 100 * study.exact["AUC"]
    return gaps, gaps / (values.std(axis=0, ddof=1) / np.sqrt(study.repetitions))


def auc_expected_gaps(study: SampledStudy) -> np.ndarray:
    """Exact expectation of the uncorrected sampled AUC minus exact AUC per system (AUC units), each user
    under its own law (Eq. sm-law): zero up to rounding, since AUC is linear in the rank."""
    vector = sampled.metric_vector("AUC", study.m + 1)
    return np.array([sampled.estimator_moments(vector, study.ranks[:, k], study.sizes, study.replace).average
                     - study.exact["AUC"][k] for k in range(len(study.names))])


def agreement_counts(study: SampledStudy) -> pd.DataFrame:
    """Our Table 4: of the repetitions, how many order each pair as the exact metric does, one column per
    estimator (NaN where the exact values tie)."""
    rows = []
    for a, b in PAIRS:
        for metric in METRICS:
            exact = study.exact[metric]
            rows.append({"pair": f"{study.names[a]} vs {study.names[b]}", "metric": metric, **{
                method: float(pair_agreement(study.estimates[(method, metric)], exact, a, b)) if exact[a] != exact[b]
                else np.nan for method in METHODS}})
    return pd.DataFrame(rows)


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

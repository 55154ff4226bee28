"""Exact mean and variance of sampled (and corrected) metrics.

Any sampled estimator is a vector ``v`` of length ``m + 1``: the value it
reports when the relevant item lands at sampled rank ``r~``.  The plain sampled
metric uses ``v = M_{m+1}(1..m+1)`` (the metric on the list of ``m + 1`` items);
a correction supplies another vector.  Given the true rank ``r`` its mean is
``sum_j p(r~ = j | r) v_j`` (Krichene & Rendle 2020, Eq. 16) and its variance
``sum_j p(r~ = j | r) (v_j - mean)^2``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from recbias.metrics import MetricSpec
from recbias.sampled.distribution import check_setting, check_true_ranks, sampled_rank_matrix
from recbias.sampled.rank_metrics import RankMetric, metric_vector


@dataclass(frozen=True)
class SampledMoments:
    """Exact moments of a sampled estimator, per true rank and for their average.

    Attributes:
        mean: ``E[v(r~) | r]`` for each true rank, in the order given.
        variance: ``Var[v(r~) | r]`` for each true rank.

    >>> moments = SampledMoments(mean=np.array([1.0, 0.5, 0.0]), variance=np.array([0.0, 0.25, 0.0]))
    >>> moments.average, moments.average_variance  # 0.25 / 3**2
    (0.5, 0.027777777777777776)
    """

    mean: np.ndarray
    variance: np.ndarray

    @property
    def average(self) -> float:
        """Expected value of the estimator averaged over the instances (Eq. 1 under sampling)."""
        return float(self.mean.mean())

    @property
    def average_variance(self) -> float:
        """Variance of that average when every instance draws its own sample: ``sum Var / |D|^2``."""
        return float(self.variance.sum() / self.variance.size**2)

    @property
    def average_std(self) -> float:
        """Standard deviation of the average over the instances."""
        return float(np.sqrt(self.average_variance))


def estimator_moments(
    estimator: ArrayLike, true_ranks: ArrayLike, n: int | ArrayLike, replace: bool
) -> SampledMoments:
    """Mean and variance of ``estimator[r~ - 1]`` for each true rank (``m = estimator.shape[-1] - 1``).

    ``estimator`` is one vector of length ``m + 1``, or one row per true rank (the
    correction of each target's catalogue size, :func:`recbias.sampled.correction_tables`);
    ``n`` is one catalogue size or one per true rank.

    Reporting 1 at sampled rank 1 and 0 at 2, for the item at true rank 2 of 3 (one item sampled):
    a fair coin.

    >>> estimator_moments([1.0, 0.0], true_ranks=[2], n=3, replace=False)
    SampledMoments(mean=array([0.5]), variance=array([0.25]))
    """
    values = np.asarray(estimator, dtype=np.float64)
    if values.ndim not in (1, 2) or values.shape[-1] < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"estimator must be a finite vector of length m + 1 >= 2, got shape {values.shape}")
    m = values.shape[-1] - 1
    ranks = np.asarray(true_ranks).ravel()
    if ranks.size == 0:
        raise ValueError("need at least one true rank")
    if values.ndim == 2 and len(values) != ranks.size:
        raise ValueError(f"estimator has {len(values)} rows for {ranks.size} true ranks")
    if values.ndim == 1 and np.ndim(n) == 0:  # one law per distinct rank is enough
        n, m = check_setting(n, m, replace)
        distinct, position = np.unique(check_true_ranks(ranks, n), return_inverse=True)
        transition = sampled_rank_matrix(n, m, replace, distinct)
        mean = transition @ values
        variance = np.einsum("ij,ij->i", transition, (values[None, :] - mean[:, None]) ** 2)
        return SampledMoments(mean=mean[position], variance=variance[position])
    sizes = np.broadcast_to(np.asarray(n), ranks.shape)
    transition = sampled_rank_matrix(sizes, m, replace, ranks)
    rows = np.broadcast_to(values, transition.shape)
    mean = np.einsum("ij,ij->i", transition, rows)
    variance = np.einsum("ij,ij->i", transition, (rows - mean[:, None]) ** 2)
    return SampledMoments(mean=mean, variance=variance)


def expected_sampled_hits(true_ranks: ArrayLike, n: int | ArrayLike, m: int, k: int, replace: bool) -> np.ndarray:
    """``P(r~ <= k)`` for every true rank: the expected uncorrected sampled Recall@k (Eq. 18).

    The CDF of the binomial or hypergeometric count at ``k - 1``, with one ``n`` or one
    per true rank; cheap for any ``m``, where the full law of :func:`sampled_rank_matrix`
    would need ``m + 1`` columns per target.

    >>> expected_sampled_hits([1, 2, 3], n=3, m=1, k=1, replace=False).tolist()
    [1.0, 0.5, 0.0]
    """
    ranks = np.asarray(true_ranks, dtype=np.int64).ravel()
    sizes = np.broadcast_to(np.asarray(n, dtype=np.int64), ranks.shape)
    check_setting(int(sizes.min()) if sizes.size else 2, m, replace)
    if np.any(ranks < 1) or np.any(ranks > sizes):
        raise ValueError("every true rank must lie in 1..n of its own catalogue")
    if replace:
        return stats.binom.cdf(k - 1, m, (ranks - 1) / (sizes - 1))
    return stats.hypergeom.cdf(k - 1, sizes - 1, ranks - 1, m)


def sampled_metric_moments(
    metric: str | MetricSpec | RankMetric, true_ranks: ArrayLike, n: int | ArrayLike, m: int, replace: bool
) -> SampledMoments:
    """Exact mean (Eq. 16) and variance of the uncorrected sampled metric ``M_{m+1}(r~)``.

    AUC on the sample uses ``m + 1`` items, so its mean equals the exact AUC
    (paper, Sec. 4.4.1); cutoff metrics give the CDF of Eq. 18 and AP Eq. 19.

    HR@1 on the sample of 2 items is 1 at true rank 1, a fair coin at 2 and 0 at 3; the true HR@1 of
    3 items would be 1, 0, 0:

    >>> moments = sampled_metric_moments("HR@1", [1, 2, 3], n=3, m=1, replace=False)
    >>> moments.mean.tolist(), moments.average
    ([1.0, 0.5, 0.0], 0.5)
    """
    return estimator_moments(metric_vector(metric, operator.index(m) + 1), true_ranks, n, replace)

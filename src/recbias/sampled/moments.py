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

from recbias.sampled.distribution import check_setting, check_true_ranks, sampled_rank_matrix
from recbias.sampled.rank_metrics import RankMetric, metric_vector


@dataclass(frozen=True)
class SampledMoments:
    """Exact moments of a sampled estimator, per true rank and for their average.

    Attributes:
        mean: ``E[v(r~) | r]`` for each true rank, in the order given.
        variance: ``Var[v(r~) | r]`` for each true rank.
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


def estimator_moments(estimator: ArrayLike, true_ranks: ArrayLike, n: int, replace: bool) -> SampledMoments:
    """Mean and variance of ``estimator[r~ - 1]`` for each true rank (``m = len(estimator) - 1``)."""
    values = np.asarray(estimator, dtype=np.float64)
    if values.ndim != 1 or values.size < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"estimator must be a finite vector of length m + 1 >= 2, got shape {values.shape}")
    n, m = check_setting(n, values.size - 1, replace)
    ranks = check_true_ranks(true_ranks, n).ravel()
    if ranks.size == 0:
        raise ValueError("need at least one true rank")
    distinct, position = np.unique(ranks, return_inverse=True)
    transition = sampled_rank_matrix(n, m, replace, distinct)
    mean = transition @ values
    variance = np.einsum("ij,ij->i", transition, (values[None, :] - mean[:, None]) ** 2)
    return SampledMoments(mean=mean[position], variance=variance[position])


def sampled_metric_moments(
    metric: str | RankMetric, true_ranks: ArrayLike, n: int, m: int, replace: bool
) -> SampledMoments:
    """Exact mean (Eq. 16) and variance of the uncorrected sampled metric ``M_{m+1}(r~)``.

    AUC on the sample uses ``m + 1`` items, so its mean equals the exact AUC
    (paper, Sec. 4.4.1); cutoff metrics give the CDF of Eq. 18 and AP Eq. 19.
    """
    return estimator_moments(metric_vector(metric, operator.index(m) + 1), true_ranks, n, replace)

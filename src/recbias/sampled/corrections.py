"""Corrected sampled metrics (Krichene & Rendle 2020, Sec. 5).

A correction replaces the metric applied to the sampled rank by a vector
``c`` of length ``m + 1``: an instance whose relevant item lands at sampled rank
``r~`` contributes ``c[r~ - 1]``, and the corrected metric over a data set is
``mean(c[sampled_ranks - 1])`` (see :func:`apply_correction`).  The
uncorrected sampled metric is the special case ``c = metric_vector(metric, m + 1)``.

Three families are built here:

* the rank estimate (Eq. 20): apply the exact metric to an unbiased estimate
  of the true rank;
* the bias-variance trade-off (Eq. 24-25), whose ``gamma = 0`` end is the
  minimal-bias least-squares estimator (Eq. 21-23) and whose ``gamma = 1`` end
  is the posterior mean of the metric given the sampled rank (Eq. 26);
* the same problems under the constraint that ``c`` is non-increasing in the
  sampled rank ("constrained least squares", CLS, Sec. 5.2 and 6.3).

All least-squares corrections weigh true ranks by a prior ``p(r)``: uniform by
default, as in the paper's experiments.

A real evaluation ranks each held-out item among its own pool, so ``n`` varies
from target to target while a correction needs one ``n``:
:func:`catalogue_bins` groups targets whose ``n`` lie within a relative tolerance
and :func:`correction_tables` computes every estimator once per group (the law of
the sampled rank stays exact per target, :func:`recbias.sampled.estimator_moments`).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import lsq_linear

from recbias.metrics import MetricSpec
from recbias.sampled.distribution import check_setting, check_true_ranks, sampled_rank_matrix
from recbias.sampled.moments import estimator_moments
from recbias.sampled.rank_metrics import RankMetric, metric_vector, rank_metric

_PRIOR_TOLERANCE = 1e-9


def check_prior(prior: ArrayLike | None, n: int) -> np.ndarray:
    """Return the prior over true ranks ``1..n``: uniform if ``None``, else a checked probability vector.

    >>> check_prior(None, 4).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    if prior is None:
        return np.full(n, 1.0 / n)
    weights = np.asarray(prior, dtype=np.float64)
    if weights.shape != (n,):
        raise ValueError(f"prior must have one probability per true rank, shape ({n},), got {weights.shape}")
    if not np.all(np.isfinite(weights)) or weights.min() < 0:
        raise ValueError("prior must be finite and non-negative")
    if abs(weights.sum() - 1.0) > _PRIOR_TOLERANCE:
        raise ValueError(f"prior must sum to 1, sums to {weights.sum():.12g}")
    return weights


def rank_estimate_correction(metric: str | MetricSpec | RankMetric, n: int, m: int, rounding: str = "floor") -> np.ndarray:
    """Exact metric at the rank estimate ``r^ = 1 + (n - 1)(r~ - 1) / m`` (Eq. 20).

    ``r^`` is unbiased for ``r`` under both sampling schemes, since
    ``E[r~ - 1] = m (r - 1) / (n - 1)`` for the binomial and the hypergeometric
    count.  ``rounding="floor"`` evaluates the metric at ``floor(r^)``, as the
    paper's experiments do (computed in integers, so exact);
    ``rounding="interpolate"`` interpolates the metric linearly between ranks.

    Five items, two sampled: sampled ranks 1, 2, 3 estimate true ranks 1, 3, 5.

    >>> rank_estimate_correction("RR", n=5, m=2).round(4).tolist()
    [1.0, 0.3333, 0.2]
    """
    n, m = check_setting(n, m, replace=True)
    exact = metric_vector(metric, n)
    excess = (n - 1) * np.arange(m + 1)
    if rounding == "floor":
        return exact[excess // m]
    if rounding == "interpolate":
        return np.interp(1.0 + excess / m, np.arange(1, n + 1), exact)
    raise ValueError(f"rounding must be 'floor' or 'interpolate', got {rounding!r}")


def bias_variance_correction(
    metric: str | MetricSpec | RankMetric,
    n: int,
    m: int,
    replace: bool,
    gamma: float,
    prior: ArrayLike | None = None,
    monotone: bool = False,
) -> np.ndarray:
    """Minimiser of ``sum_r p(r) [(E[c_r~ | r] - M(r))^2 + gamma Var[c_r~ | r]]`` (Eq. 24).

    Since ``Var = E[(c_r~ - M(r))^2 | r] - bias^2``, the objective equals
    ``(1 - gamma) ||A c - b||^2 + gamma sum_j w_j (c_j - mu_j)^2`` up to a
    constant, with ``A``, ``b`` from Eq. 23, ``w_j = sum_r p(r) p(j | r)`` and
    ``mu_j`` the posterior mean of ``M(r)`` given sampled rank ``j`` (Eq. 26).
    Its normal equations are exactly Eq. 25.  We solve this stacked
    least-squares problem with an SVD (``numpy.linalg.lstsq``) instead of
    inverting the normal matrix, because ``A^T A`` is numerically singular for
    small ``gamma``; singular values below machine precision are dropped, which
    picks the minimum-norm vector among the numerically equivalent minimisers.
    ``gamma = 0`` is the minimal-bias estimator (Eq. 21-22), ``gamma = 1`` the
    posterior mean.

    With ``monotone=True`` the minimiser is restricted to non-increasing ``c``
    (``c_j >= c_{j+1}``).  Writing ``c = T z`` with ``z_0 = c_m`` free and
    ``z_j = c_{j-1} - c_j >= 0`` maps the non-increasing vectors one-to-one
    onto a box, so the constrained problem is a bound-constrained least-squares
    problem, solved exactly (active set) by BVLS in ``scipy.optimize.lsq_linear``.

    At ``gamma = 1`` the posterior mean of HR@1 on 3 items given the sampled rank (one item sampled):
    true ranks 1 and 2 lead to sampled rank 1 with probabilities 1 and 1/2, so ``E[HR@1 | r~ = 1] = 2/3``.

    >>> bias_variance_correction("HR@1", n=3, m=1, replace=False, gamma=1.0).round(4).tolist()
    [0.6667, 0.0]
    """
    return bias_variance_corrections([metric], n, m, replace, [gamma], prior, monotone)[0, 0]


def bias_variance_corrections(
    metrics: Sequence[str | MetricSpec | RankMetric],
    n: int,
    m: int,
    replace: bool,
    gammas: Sequence[float],
    prior: ArrayLike | None = None,
    monotone: bool = False,
) -> np.ndarray:
    """:func:`bias_variance_correction` of several metrics and ``gamma`` values at one ``n``.

    Returns ``(len(gammas), len(metrics), m + 1)``.  The transition matrix and the
    posterior means are computed once; without ``monotone``, every ``gamma`` is one
    least-squares solve with one right-hand side per metric.

    >>> bias_variance_corrections(["HR@1", "RR"], n=3, m=1, replace=False, gammas=[0.0, 1.0]).shape
    (2, 2, 2)
    """
    gammas = [float(gamma) for gamma in gammas]
    for gamma in gammas:
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    n, m = check_setting(n, m, replace)
    weights = check_prior(prior, n)
    exact = np.column_stack([metric_vector(metric, n) for metric in metrics])
    transition = sampled_rank_matrix(n, m, replace)
    marginal = transition.T @ weights
    weighted_sum = transition.T @ (weights[:, None] * exact)
    scaled_posterior_mean = np.divide(
        weighted_sum, np.sqrt(marginal)[:, None], out=np.zeros_like(weighted_sum), where=marginal[:, None] > 0
    )
    cumulative = np.hstack([np.ones((m + 1, 1)), np.triu(np.ones((m + 1, m)))])
    lower = np.concatenate([[-np.inf], np.zeros(m)])
    out = np.empty((len(gammas), len(metrics), m + 1))
    for g, gamma in enumerate(gammas):
        # rows of the squared-bias term, then one row per sampled rank for the gamma-weighted MSE term
        bias_rows = np.sqrt((1.0 - gamma) * weights)
        design = np.vstack([bias_rows[:, None] * transition, np.diag(np.sqrt(gamma * marginal))])
        target = np.vstack([bias_rows[:, None] * exact, np.sqrt(gamma) * scaled_posterior_mean])
        if not monotone:
            out[g] = np.linalg.lstsq(design, target, rcond=None)[0].T
            continue
        for j in range(len(metrics)):
            solution = lsq_linear(design @ cumulative, target[:, j], bounds=(lower, np.inf), method="bvls")
            if not solution.success:
                raise RuntimeError(f"constrained least squares did not converge: {solution.message}")
            # BVLS may leave steps of order -1e-19 on the bound; clip them so the output is exactly monotone
            out[g, j] = cumulative @ np.concatenate([solution.x[:1], np.maximum(solution.x[1:], 0.0)])
    return out


def minimal_bias_correction(
    metric: str | MetricSpec | RankMetric, n: int, m: int, replace: bool, prior: ArrayLike | None = None
) -> np.ndarray:
    """Least-squares estimator minimising the prior-weighted squared bias (Eq. 21-23).

    The system has ``n`` equations and ``m + 1`` unknowns; for ``m + 1 < n``
    it generally has no exact solution, and its residual is the smallest bias
    any correction can reach.  This is :func:`bias_variance_correction` at ``gamma = 0``.

    HR@1 on 3 items with one sampled: ``c`` minimises ``(c_1 - 1)^2 + ((c_1 + c_2) / 2)^2 + c_2^2``,
    whose normal equations give ``c = (5/6, -1/6)``.

    >>> minimal_bias_correction("HR@1", n=3, m=1, replace=False).round(4).tolist()
    [0.8333, -0.1667]
    """
    return bias_variance_correction(metric, n, m, replace, 0.0, prior)


def constrained_least_squares_correction(
    metric: str | MetricSpec | RankMetric, n: int, m: int, replace: bool, prior: ArrayLike | None = None
) -> np.ndarray:
    """Minimal-bias estimator restricted to non-increasing values ("CLS", Sec. 5.2 and 6.3).

    On 4 items with two sampled the minimal-bias vector goes up again at the last sampled rank;
    CLS keeps it non-increasing:

    >>> minimal_bias_correction("HR@1", n=4, m=2, replace=False).round(3).tolist()
    [0.95, -0.25, 0.05]
    >>> constrained_least_squares_correction("HR@1", n=4, m=2, replace=False).round(3).tolist()
    [0.917, -0.083, -0.083]
    """
    return bias_variance_correction(metric, n, m, replace, 0.0, prior, monotone=True)


def correction_objective(
    estimator: ArrayLike,
    metric: str | MetricSpec | RankMetric,
    n: int,
    replace: bool,
    gamma: float = 0.0,
    prior: ArrayLike | None = None,
) -> float:
    """Value of the criterion of Eq. 24 for an estimator (Eq. 21 when ``gamma = 0``).

    ``sum_r p(r) [(E[c_r~ | r] - M(r))^2 + gamma Var[c_r~ | r]]`` with the true
    metric ``M`` on ``n`` items; the estimator's length fixes ``m``.

    The plain sampled HR@1 ``(1, 0)`` on 3 items is off by 1/2 at true rank 2 only: ``0.25 / 3``.
    The minimal-bias vector does better:

    >>> round(correction_objective([1.0, 0.0], "HR@1", n=3, replace=False), 4)
    0.0833
    >>> round(correction_objective([5 / 6, -1 / 6], "HR@1", n=3, replace=False), 4)
    0.0556
    """
    n = operator.index(n)
    weights = check_prior(prior, n)
    moments = estimator_moments(estimator, np.arange(1, n + 1), n, replace)
    bias = moments.mean - metric_vector(metric, n)
    return float(weights @ (bias**2 + float(gamma) * moments.variance))


def apply_correction(estimator: ArrayLike, sampled_ranks: ArrayLike) -> np.ndarray:
    """Corrected value ``estimator[r~ - 1]`` of every observed sampled rank (any shape).

    The corrected metric of a data set is the mean of the result.

    >>> apply_correction([0.9, 0.1], sampled_ranks=[1, 2, 2]).tolist()
    [0.9, 0.1, 0.1]
    """
    values = np.asarray(estimator, dtype=np.float64)
    return values[check_true_ranks(sampled_ranks, values.size, "sampled ranks") - 1]


# ------------------------------------------------------------- tables per catalogue size

#: the estimators of :func:`correction_tables`, by name
METHODS = ("sampled", "rank estimate", "CLS", "BV <gamma>")
_BV = re.compile(r"^BV\s*([0-9.eE+-]+)$")


def parse_method(method: str) -> tuple[str, float | None]:
    """``("sampled" | "rank estimate" | "CLS" | "BV", gamma)`` from an estimator name.

    ``"sampled"`` is the metric applied to the sampled rank, ``"rank estimate"``
    Eq. 20 (floor), ``"CLS"`` the monotone minimal-bias vector and ``"BV 0.1"`` the
    bias-variance trade-off of Eq. 24 at ``gamma = 0.1``, all with a uniform prior.

    >>> parse_method("BV 0.1"), parse_method("CLS")
    (('BV', 0.1), ('CLS', None))
    """
    if method in ("sampled", "rank estimate", "CLS"):
        return method, None
    match = _BV.match(method.strip()) if isinstance(method, str) else None
    if match is None:
        raise ValueError(f"unknown estimator {method!r}; use one of {', '.join(METHODS)}")
    try:
        gamma = float(match.group(1))
    except ValueError:
        raise ValueError(f"unknown estimator {method!r}; use one of {', '.join(METHODS)}") from None
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    return "BV", gamma


def catalogue_bins(sizes: ArrayLike, tolerance: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Group catalogue sizes into bins no wider than a factor ``1 + tolerance``.

    Returns the bin of every target and the ``n`` each bin's corrections are
    computed for: the median size in the bin, rounded.  Bins are the cells
    ``floor(log(n) / log(1 + tolerance))``, so every target's ``n`` lies within
    a factor ``1 + tolerance`` of its bin's ``n``.  ``tolerance = 0`` gives one
    bin per distinct ``n``.

    100 and 102 lie within 5% of each other and share a bin of ``n = 101``:

    >>> bins, sizes = catalogue_bins([100, 102, 200], tolerance=0.05)
    >>> bins.tolist(), sizes.tolist()
    ([0, 0, 1], [101, 200])
    """
    n = np.asarray(sizes, dtype=np.int64).ravel()
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    cell = n if tolerance == 0 else np.floor(np.log(n) / np.log1p(tolerance)).astype(np.int64)
    _, bins = np.unique(cell, return_inverse=True)
    bins = bins.ravel()
    order = np.argsort(bins, kind="stable")
    groups = np.split(n[order], np.flatnonzero(np.diff(bins[order])) + 1)
    representative = np.array([int(round(np.median(group))) for group in groups], dtype=np.int64)
    return bins, representative


def correction_tables(
    methods: Sequence[str],
    metrics: Sequence[str | MetricSpec | RankMetric],
    bin_sizes: ArrayLike,
    m: int,
    replace: bool,
) -> dict[tuple[str, str], np.ndarray]:
    """Estimator vectors ``table[bin, r~ - 1]`` for every (method, metric) and catalogue size.

    Keys are the method names as given and the metrics' canonical names
    (``"nDCG@10"``).  ``"sampled"`` is the metric on ``m + 1`` items and does not
    depend on ``n``; the others are computed for every ``n`` in ``bin_sizes``, all
    ``BV`` values of one ``n`` by one call of :func:`bias_variance_corrections`.
    A target of bin ``b`` observed at sampled rank ``r~`` reports ``table[b, r~ - 1]``.

    >>> tables = correction_tables(["sampled", "rank estimate"], ["RR"], bin_sizes=[3, 5], m=1, replace=False)
    >>> tables["sampled", "RR"].tolist()  # RR on the 2 ranked items, whatever n
    [[1.0, 0.5], [1.0, 0.5]]
    >>> tables["rank estimate", "RR"].round(4).tolist()  # RR at rank n when the relevant item comes second
    [[1.0, 0.3333], [1.0, 0.2]]
    """
    parsed = {method: parse_method(method) for method in methods}
    views = [rank_metric(metric) for metric in metrics]
    gammas = sorted({gamma for kind, gamma in parsed.values() if kind == "BV"})
    rows: dict[tuple[str, str], list[np.ndarray]] = {(method, v.name): [] for method in methods for v in views}
    for n in np.asarray(bin_sizes, dtype=np.int64).ravel():
        bank = bias_variance_corrections(views, int(n), m, replace, gammas) if gammas else None
        for method, (kind, gamma) in parsed.items():
            for j, view in enumerate(views):
                if kind == "sampled":
                    vector = metric_vector(view, m + 1)
                elif kind == "rank estimate":
                    vector = rank_estimate_correction(view, int(n), m)
                elif kind == "CLS":
                    vector = constrained_least_squares_correction(view, int(n), m, replace)
                else:
                    vector = bank[gammas.index(gamma), j]
                rows[(method, view.name)].append(vector)
    return {key: np.vstack(vectors) for key, vectors in rows.items()}

"""Sampled versus exact evaluation on real data (Krichene & Rendle, KDD 2020, Sec. 6).

:mod:`recbias.sampled` treats one catalogue size ``n`` at a time.  In a real
evaluation every held-out item is ranked among its own pool: the items its user
did not rate in training (minus the user's other relevant test items), so ``n``
differs from user to user.  This module handles that faithfully:

* :func:`pool_ranks` ranks each held-out item among its own pool for several
  recommenders at once and records ``n = |pool| + 1`` per target; it can also
  count, per target, the pool items that each *subset* of the recommenders
  ranks above the target (``patterns``), which is what a shared sample of
  negatives needs;
* :func:`simulate_common_sampled_ranks` draws sampled ranks for all
  recommenders from the *same* ``m`` sampled pool items, without ever scoring
  them again (the law of a uniform sample is the law of its category counts);
* :func:`rank_law` is the exact law of the sampled rank for every target under
  its own ``n``;
* :func:`catalogue_bins` groups targets whose ``n`` lie within a relative
  tolerance, so that a least-squares correction (which needs one ``n``) is
  computed once per bin at the bin's median ``n`` and applied to every target
  of the bin (the only approximation made; the sampling law is always exact);
* :func:`correction_tables` builds the estimator vectors of every method for
  every bin, solving the bias-variance problems of all metrics and ``gamma``
  values of one ``n`` together (:func:`bias_variance_bank`).

Method names: ``"sampled"`` (the metric applied to the sampled rank),
``"rank estimate"`` (Eq. 20, floor rounding), ``"CLS"`` (monotone minimal
bias), ``"BV <gamma>"`` (Eq. 24-25), all with the uniform prior of the paper.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.sampled import (
    constrained_least_squares_correction,
    metric_vector,
    parse_metric,
    rank_estimate_correction,
    sampled_rank_matrix,
)
from recbias.sampled.distribution import check_setting

__all__ = [
    "PoolRanks",
    "bias_variance_bank",
    "catalogue_bins",
    "correction_tables",
    "exact_metric",
    "expected_estimates",
    "expected_sampled_hits",
    "leave_one_random_out",
    "parse_method",
    "pool_ranks",
    "rank_law",
    "run_positions",
    "simulate_common_sampled_ranks",
]


# ------------------------------------------------------------------------ split


def leave_one_random_out(ratings: Ratings, seed: int = 0) -> tuple[Ratings, Ratings]:
    """Hold out one uniformly chosen rating of every user with at least two ratings.

    The fallback of leave-last-out for data without timestamps: the test set has
    one rating per evaluated user, chosen with ``numpy.random.default_rng(seed)``;
    users with a single rating keep it in training and are not evaluated.
    """
    rng = np.random.default_rng(seed)
    order = np.lexsort((rng.random(ratings.n_ratings), ratings.users))
    users = ratings.users[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = users[1:] != users[:-1]
    counts = ratings.user_counts()
    test_mask = np.zeros(ratings.n_ratings, dtype=bool)
    test_mask[order[first & (counts[users] >= 2)]] = True
    return ratings.subset(~test_mask), ratings.subset(test_mask)


# ------------------------------------------------------------------ exact ranks


@dataclass(frozen=True)
class PoolRanks:
    """Exact ranks of held-out items among their pools, for several recommenders.

    Attributes:
        names: recommender names, one per column of ``ranks``.
        users, items: user and held-out item of each target, in test order.
        ranks: ``(targets, K)`` 1-based rank of the target among ``pool + {target}``.
        sizes: ``n`` of each target, ``|pool| + 1``.
        patterns: ``(targets, 2**K)`` counts of pool items by the set of
            recommenders that rank them above the target (bit ``k`` of the
            column index set when recommender ``k`` does), or ``None``.
    """

    names: tuple[str, ...]
    users: np.ndarray
    items: np.ndarray
    ranks: np.ndarray
    sizes: np.ndarray
    patterns: np.ndarray | None = None

    @property
    def n_targets(self) -> int:
        return len(self.users)


def pool_ranks(
    recommenders: Sequence[Recommender],
    train: Ratings,
    test: Ratings,
    *,
    candidates: np.ndarray | None = None,
    threshold: float | None = None,
    patterns: bool = False,
    seed: int = 0,
    chunk_size: int = 128,
) -> PoolRanks:
    """Rank every relevant test rating among its user's pool, for each recommender.

    A target is a test rating with value ``>= threshold`` (every test rating when
    ``threshold`` is ``None``).  Its pool is ``C \\ R_train(u) \\ PR_test(u)``:
    the candidate items (``candidates``, a boolean mask over items; all items by
    default) that ``u`` neither rated in training nor holds as a relevant test
    item, the 1R pool of IRJ 2017 and the ranking of Krichene & Rendle's Sec. 6.
    The target's rank is ``1 +`` the pool items scored higher; ties are broken
    uniformly at random with keys drawn from ``numpy.random.default_rng(seed)``
    and shared by the recommenders (the tie-broken rank of each one is uniform
    over its tied range, the ``"random"`` policy of :mod:`recbias.evaluate`).
    """
    if train.shape != test.shape:
        raise ValueError(f"train has code space {train.shape}, test has {test.shape}")
    if not recommenders:
        raise ValueError("need at least one recommender")
    for recommender in recommenders:
        if (recommender.n_users, recommender.n_items) != train.shape:
            raise ValueError(f"{recommender.name} was not fitted on a training set of shape {train.shape}")
    n_items = train.n_items
    if candidates is None:
        candidates = np.ones(n_items, dtype=bool)
    candidates = np.asarray(candidates, dtype=bool)
    if candidates.shape != (n_items,):
        raise ValueError(f"candidates must be a boolean mask over the {n_items} items")
    relevant = np.ones(test.n_ratings, dtype=bool) if threshold is None else test.values >= threshold
    target_rows = np.flatnonzero(relevant)
    target_users = test.users[target_rows].astype(np.int64)
    target_items = test.items[target_rows].astype(np.int64)
    if not candidates[target_items].all():
        raise ValueError("every relevant test item must be a candidate")
    keys = target_users * n_items + target_items
    if len(np.unique(keys)) != len(keys):
        raise ValueError("a (user, item) pair is relevant in the test set twice; keep one rating per pair")
    train_keys = train.users.astype(np.int64) * n_items + train.items
    if np.isin(keys, train_keys).any():
        raise ValueError("a relevant test item is also a training item of its user")

    n_rec = len(recommenders)
    ranks = np.zeros((len(target_rows), n_rec), dtype=np.int64)
    sizes = np.zeros(len(target_rows), dtype=np.int64)
    counts = np.zeros((len(target_rows), 2**n_rec), dtype=np.int64) if patterns else None
    train_matrix = train.matrix("binary")
    relevant_matrix = test.subset(target_rows).matrix("binary")
    by_user = np.argsort(target_users, kind="stable")
    users, first = np.unique(target_users[by_user], return_index=True)
    bounds = np.append(first, len(by_user))
    rng = np.random.default_rng(seed)
    weights = (1 << np.arange(n_rec)).astype(np.int64)
    for start in range(0, len(users), chunk_size):
        chunk = users[start : start + chunk_size]
        blocks = [np.asarray(r.score_users(chunk), dtype=np.float64) for r in recommenders]
        excluded = (train_matrix[chunk] + relevant_matrix[chunk]).toarray() > 0
        pool = candidates[None, :] & ~excluded
        targets = by_user[bounds[start] : bounds[start + len(chunk)]]
        rows = np.searchsorted(chunk, target_users[targets])
        for lo in range(0, len(targets), chunk_size):
            part, row = targets[lo : lo + chunk_size], rows[lo : lo + chunk_size]
            in_pool = pool[row]
            tie_key = rng.random(in_pool.shape)
            own = tie_key[np.arange(len(part)), target_items[part]]
            code = np.zeros(in_pool.shape, dtype=np.int64)
            for k, block in enumerate(blocks):
                scores = block[row]
                target = scores[np.arange(len(part)), target_items[part]][:, None]
                above = (scores > target) | ((scores == target) & (tie_key < own[:, None]))
                above &= in_pool
                ranks[part, k] = 1 + above.sum(axis=1)
                code += above * weights[k]
            sizes[part] = in_pool.sum(axis=1) + 1
            if counts is not None:
                flat = (np.arange(len(part))[:, None] * 2**n_rec + code)[in_pool]
                counts[part] = np.bincount(flat, minlength=len(part) * 2**n_rec).reshape(len(part), -1)
    return PoolRanks(
        names=tuple(r.name for r in recommenders),
        users=target_users,
        items=target_items,
        ranks=ranks,
        sizes=sizes,
        patterns=counts,
    )


def run_positions(ranked_runs) -> np.ndarray:
    """1-based position of the relevant item in each ranked 1R run (one relevant item per run).

    ``ranked_runs`` comes from :func:`recbias.evaluate.rank_runs`.
    """
    entries = np.flatnonzero(ranked_runs.labels)
    run_of = ranked_runs.run_of_entry[entries]
    if len(entries) != ranked_runs.n_runs or np.any(run_of != np.arange(ranked_runs.n_runs)):
        raise ValueError("every run must hold exactly one relevant item")
    return entries - ranked_runs.offsets[:-1] + 1


# -------------------------------------------------------------------- sampling


def rank_law(true_ranks: np.ndarray, sizes: np.ndarray, m: int, replace: bool) -> np.ndarray:
    """``(targets, m + 1)`` matrix of ``p(r~ = j | r, n)``, each target with its own ``n``.

    The sampled rank is ``1 +`` the number of the ``m`` sampled pool items ranked
    above the target: binomial with ``p = (r - 1) / (n - 1)`` with replacement,
    hypergeometric (population ``n - 1``, ``r - 1`` successes) without (Eq. 15).
    """
    r = np.asarray(true_ranks, dtype=np.int64).ravel()
    n = np.asarray(sizes, dtype=np.int64).ravel()
    if r.shape != n.shape:
        raise ValueError("true_ranks and sizes must have the same length")
    if np.any(n < 2) or np.any(r < 1) or np.any(r > n):
        raise ValueError("need 1 <= rank <= n and n >= 2 for every target")
    if not replace and np.any(m > n - 1):
        raise ValueError(f"m={m} exceeds the pool of some target (smallest n - 1 = {int(n.min()) - 1})")
    above = np.arange(m + 1)[None, :]
    if replace:
        return stats.binom.pmf(above, m, ((r - 1) / (n - 1))[:, None])
    return np.exp(stats.hypergeom.logpmf(above, (n - 1)[:, None], (r - 1)[:, None], m))


def expected_sampled_hits(true_ranks: np.ndarray, sizes: np.ndarray, m: int, k: int, replace: bool) -> np.ndarray:
    """``P(r~ <= k)`` for every target: the expected uncorrected sampled Recall@k (Eq. 18).

    The CDF of the binomial or hypergeometric count at ``k - 1``, each target
    with its own ``n``; cheap for any ``m``, unlike the full law of :func:`rank_law`.
    """
    r = np.asarray(true_ranks, dtype=np.int64).ravel()
    n = np.asarray(sizes, dtype=np.int64).ravel()
    if not replace and np.any(m > n - 1):
        raise ValueError(f"m={m} exceeds the pool of some target (smallest n - 1 = {int(n.min()) - 1})")
    if replace:
        return stats.binom.cdf(k - 1, m, (r - 1) / (n - 1))
    return stats.hypergeom.cdf(k - 1, n - 1, r - 1, m)


def simulate_common_sampled_ranks(
    patterns: np.ndarray, m: int, replace: bool, repetitions: int, rng: np.random.Generator
) -> np.ndarray:
    """Sampled ranks ``(repetitions, targets, K)`` when all recommenders rank the same sample.

    Each repetition draws ``m`` pool items per target (uniformly, with or without
    replacement); recommender ``k``'s sampled rank is ``1 +`` the drawn items it
    ranks above the target.  Only the counts of drawn items in each pattern
    category matter, so they are drawn directly: a multivariate hypergeometric
    (without replacement) or multinomial (with) count, generated category by
    category from its conditional binomial / hypergeometric laws.
    """
    counts = np.asarray(patterns, dtype=np.int64)
    n_categories = counts.shape[1]
    n_rec = int(round(np.log2(n_categories)))
    if 2**n_rec != n_categories:
        raise ValueError("patterns must have 2**K columns")
    totals = counts.sum(axis=1)
    if not replace and np.any(totals < m):
        raise ValueError(f"m={m} exceeds the pool of some target (smallest pool {int(totals.min())})")
    shape = (repetitions, len(counts))
    remaining = np.full(shape, m, dtype=np.int64)
    left = np.broadcast_to(totals, shape).copy()
    drawn = np.zeros((*shape, n_categories), dtype=np.int64)
    for c in range(n_categories - 1):
        good = np.broadcast_to(counts[:, c], shape)
        if replace:
            p = np.divide(good, left, out=np.zeros(shape), where=left > 0)
            take = rng.binomial(remaining, np.clip(p, 0.0, 1.0))
        else:
            take = rng.hypergeometric(good, left - good, remaining)
        drawn[..., c] = take
        remaining -= take
        left = left - good
    drawn[..., -1] = remaining
    bits = (np.arange(n_categories)[:, None] >> np.arange(n_rec)[None, :]) & 1  # (categories, K)
    return 1 + drawn @ bits


# ----------------------------------------------------------------- corrections

_BV = re.compile(r"^BV\s*([0-9.eE+-]+)$")


def parse_method(method: str) -> tuple[str, float | None]:
    """``("sampled" | "rank estimate" | "CLS" | "BV", gamma)`` from a method name."""
    if method in ("sampled", "rank estimate", "CLS"):
        return method, None
    match = _BV.match(method.strip())
    if match is None:
        raise ValueError(f"unknown method {method!r}; use 'sampled', 'rank estimate', 'CLS' or 'BV <gamma>'")
    gamma = float(match.group(1))
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    return "BV", gamma


def bias_variance_bank(
    metrics: Sequence[str], n: int, m: int, replace: bool, gammas: Sequence[float]
) -> dict[tuple[str, float], np.ndarray]:
    """Bias-variance corrections (Eq. 24-25, uniform prior) of several metrics and gammas at one ``n``.

    Same stacked least-squares problem as
    :func:`recbias.sampled.bias_variance_correction`, solved once per ``gamma``
    with one right-hand side per metric, so the transition matrix is built once.
    """
    n, m = check_setting(n, m, replace)
    weights = np.full(n, 1.0 / n)
    transition = sampled_rank_matrix(n, m, replace)
    exact = np.column_stack([metric_vector(metric, n) for metric in metrics])
    marginal = transition.T @ weights
    weighted_sum = transition.T @ (weights[:, None] * exact)
    scaled_posterior_mean = np.divide(
        weighted_sum, np.sqrt(marginal)[:, None], out=np.zeros_like(weighted_sum), where=marginal[:, None] > 0
    )
    bank = {}
    for gamma in gammas:
        bias_rows = np.sqrt((1.0 - gamma) * weights)
        design = np.vstack([bias_rows[:, None] * transition, np.diag(np.sqrt(gamma * marginal))])
        target = np.vstack([bias_rows[:, None] * exact, np.sqrt(gamma) * scaled_posterior_mean])
        solution = np.linalg.lstsq(design, target, rcond=None)[0]
        for j, metric in enumerate(metrics):
            bank[(metric, float(gamma))] = solution[:, j]
    return bank


def catalogue_bins(sizes: np.ndarray, tolerance: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Group catalogue sizes into bins no wider than a factor ``1 + tolerance``.

    Returns the bin of every target and the ``n`` each bin's corrections are
    computed for: the median size in the bin, rounded.  Bins are the cells
    ``floor(log(n) / log(1 + tolerance))``, so every target's ``n`` lies within
    a factor ``1 + tolerance`` of its bin's ``n``.  ``tolerance = 0`` gives one
    bin per distinct ``n``.
    """
    n = np.asarray(sizes, dtype=np.int64)
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    cell = n if tolerance == 0 else np.floor(np.log(n) / np.log1p(tolerance)).astype(np.int64)
    _, bins = np.unique(cell, return_inverse=True)
    representative = np.array([int(round(np.median(n[bins == b]))) for b in range(bins.max() + 1)])
    return bins.ravel(), representative


def correction_tables(
    methods: Sequence[str],
    metrics: Sequence[str],
    bin_sizes: np.ndarray,
    m: int,
    replace: bool,
) -> dict[tuple[str, str], np.ndarray]:
    """Estimator vectors ``table[bin, r~ - 1]`` for every (method, metric).

    ``"sampled"`` is the metric on ``m + 1`` items and does not depend on ``n``;
    the others are computed for every ``n`` in ``bin_sizes``.
    """
    parsed = {method: parse_method(method) for method in methods}
    gammas = sorted({g for kind, g in parsed.values() if kind == "BV"})
    tables: dict[tuple[str, str], np.ndarray] = {}
    rows: dict[tuple[str, str], list[np.ndarray]] = {(method, metric): [] for method in methods for metric in metrics}
    for n in bin_sizes:
        bank = bias_variance_bank(metrics, int(n), m, replace, gammas) if gammas else {}
        for method, (kind, gamma) in parsed.items():
            for metric in metrics:
                if kind == "sampled":
                    vector = metric_vector(metric, m + 1)
                elif kind == "rank estimate":
                    vector = rank_estimate_correction(metric, int(n), m)
                elif kind == "CLS":
                    vector = constrained_least_squares_correction(metric, int(n), m, replace)
                else:
                    vector = bank[(metric, gamma)]
                rows[(method, metric)].append(vector)
    for key, vectors in rows.items():
        tables[key] = np.vstack(vectors)
    return tables


def exact_metric(metric: str, ranks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Metric of each target's exact rank, with its own ``n`` (only AUC depends on it)."""
    spec = parse_metric(metric)
    r = np.asarray(ranks, dtype=np.int64)
    n = np.asarray(sizes, dtype=np.int64)
    if spec.family == "AUC":
        return (n - r) / (n - 1.0)
    return spec.values(r, int(r.max(initial=1)))


def expected_estimates(
    table: np.ndarray, bins: np.ndarray, true_ranks: np.ndarray, sizes: np.ndarray, m: int, replace: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Exact mean and variance of each target's estimate ``table[bin, r~ - 1]`` under its own law."""
    law = rank_law(true_ranks, sizes, m, replace)
    values = np.asarray(table)[np.asarray(bins)]
    if values.shape != law.shape:
        raise ValueError(f"table rows have {values.shape[1]} entries, expected m + 1 = {m + 1}")
    mean = np.einsum("ij,ij->i", law, values)
    variance = np.einsum("ij,ij->i", law, (values - mean[:, None]) ** 2)
    return mean, variance

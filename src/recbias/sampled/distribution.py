"""Distribution of the rank of the relevant item when only a sample is ranked.

Sampled evaluation ranks the relevant item against ``m`` irrelevant items drawn
uniformly from the ``n - 1`` irrelevant ones.  If the relevant item has true
rank ``r``, each irrelevant item lies above it with probability
``(r - 1) / (n - 1)`` (Krichene & Rendle 2020, Eq. 15), and the sampled rank is
one plus the number of sampled items that lie above it:

* with replacement, ``r~ - 1 ~ Binomial(m, (r - 1) / (n - 1))``;
* without replacement, ``r~ - 1 ~ Hypergeometric(population n - 1, successes r - 1, draws m)``.

Sampled ranks therefore run over ``1..m + 1``.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats


def check_setting(n: int, m: int, replace: bool) -> tuple[int, int]:
    """Validate a catalogue of ``n`` items sampled ``m`` times; return them as ints.

    Needs ``n >= 2`` and ``m >= 1``; without replacement at most the ``n - 1``
    irrelevant items can be drawn, so ``m <= n - 1``.

    >>> check_setting(100, 5, replace=False)
    (100, 5)
    >>> check_setting(3, 3, replace=False)
    Traceback (most recent call last):
    ValueError: sampling without replacement draws at most n - 1 = 2 irrelevant items, got m=3
    """
    n, m = operator.index(n), operator.index(m)
    if n < 2:
        raise ValueError(f"need at least 2 items (one relevant, one irrelevant), got n={n}")
    if m < 1:
        raise ValueError(f"need at least one sampled item, got m={m}")
    if not replace and m >= n:
        raise ValueError(f"sampling without replacement draws at most n - 1 = {n - 1} irrelevant items, got m={m}")
    return n, m


def check_true_ranks(true_ranks: ArrayLike, n: int, what: str = "true ranks") -> np.ndarray:
    """Return ``true_ranks`` as an ``int64`` array after checking they lie in ``1..n``.

    >>> check_true_ranks([1, 3], 3).tolist()
    [1, 3]
    >>> check_true_ranks([4], 3)
    Traceback (most recent call last):
    ValueError: true ranks must lie in 1..3, got range 4..4
    """
    ranks = np.asarray(true_ranks)
    if ranks.size and not np.issubdtype(ranks.dtype, np.integer):
        raise TypeError(f"{what} must be integers, got dtype {ranks.dtype}")
    if ranks.size and (ranks.min() < 1 or ranks.max() > n):
        raise ValueError(f"{what} must lie in 1..{n}, got range {ranks.min()}..{ranks.max()}")
    return ranks.astype(np.int64)


def sampled_rank_matrix(
    n: int | ArrayLike, m: int, replace: bool, true_ranks: ArrayLike | None = None
) -> np.ndarray:
    """Transition matrix ``P[i, j] = p(r~ = j + 1 | r = true_ranks[i], n)`` (Eq. 15-16).

    ``n`` is one catalogue size, or one per true rank (a real evaluation ranks each
    held-out item among its own pool).  Rows follow ``true_ranks`` (default, with one
    ``n``: every rank ``1..n``, giving an ``n x (m + 1)`` matrix); each row sums to
    one.  Binomial probabilities come from ``scipy.stats.binom.pmf``; hypergeometric
    ones from :func:`hypergeometric_pmf`.

    Three items, one irrelevant item sampled: the item at true rank 2 has one of the two irrelevant
    items above it, drawn with probability 1/2.

    >>> sampled_rank_matrix(3, 1, replace=False).tolist()
    [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    """
    sizes = np.asarray(n)
    if sizes.ndim == 0:
        size, m = check_setting(int(sizes) if np.issubdtype(sizes.dtype, np.integer) else n, m, replace)
        ranks = np.arange(1, size + 1) if true_ranks is None else check_true_ranks(true_ranks, size).ravel()
        sizes = np.full(ranks.shape, size)
    else:
        if true_ranks is None:
            raise ValueError("with one catalogue size per target, give the true rank of every target")
        sizes = sizes.ravel()
        if not np.issubdtype(sizes.dtype, np.integer):
            raise TypeError(f"catalogue sizes must be integers, got dtype {sizes.dtype}")
        ranks = np.asarray(true_ranks).ravel()
        if ranks.shape != sizes.shape:
            raise ValueError(f"{ranks.size} true ranks for {sizes.size} catalogue sizes")
        m = check_setting(int(sizes.min()) if sizes.size else 2, m, replace)[1]
        ranks = check_true_ranks(ranks, int(sizes.max(initial=1)))
        if np.any(ranks > sizes):
            raise ValueError("every true rank must lie in 1..n of its own catalogue")
    if replace:
        return stats.binom.pmf(np.arange(m + 1)[None, :], m, ((ranks - 1) / (sizes - 1))[:, None])
    return hypergeometric_pmf(sizes - 1, ranks - 1, m)


def hypergeometric_pmf(population: ArrayLike, successes: ArrayLike, draws: int) -> np.ndarray:
    """``P[i, j] = C(K_i, j) C(N_i - K_i, m - j) / C(N_i, m)`` for ``j = 0..m``: the probability of ``j``
    successes in ``m = draws`` draws without replacement from ``N_i = population[i]`` items, ``K_i =
    successes[i]`` of them successes (0 outside the support).

    The logarithm is a sum of nine entries of one table of ``log x!`` (``scipy.special.gammaln``).  Its
    relative error, about 1e-11 on catalogues of thousands of items, is that of
    ``scipy.stats.hypergeom.logpmf``, at a tenth of its cost.

    >>> hypergeometric_pmf([4], [2], 2)  # two draws from two successes and two failures
    array([[0.16666667, 0.66666667, 0.16666667]])
    """
    population = np.asarray(population, dtype=np.int64).reshape(-1, 1)
    successes = np.asarray(successes, dtype=np.int64).reshape(-1, 1)
    if population.shape != successes.shape:
        raise ValueError(f"{population.size} populations for {successes.size} success counts")
    if np.any(successes < 0) or np.any(successes > population) or np.any(population < draws) or draws < 0:
        raise ValueError(f"need 0 <= successes <= population and 0 <= draws = {draws} <= population")
    failures = population - successes
    hits = np.arange(draws + 1)[None, :]
    inside = (hits <= successes) & (draws - hits <= failures)
    log_factorial = special.gammaln(np.arange(int(population.max(initial=draws)) + 1) + 1.0)
    # log C(N, m)^-1 K! (N - K)!, then each entry's log (j! (K - j)! (m - j)! (N - K - m + j)!)^-1
    whole = (log_factorial[successes] + log_factorial[failures] - log_factorial[population] + log_factorial[draws]
             + log_factorial[population - draws])
    log = (whole - log_factorial[hits] - log_factorial[draws - hits]
           - log_factorial[np.where(inside, successes - hits, 0)]
           - log_factorial[np.where(inside, failures - draws + hits, 0)])
    return np.exp(log, out=np.zeros(log.shape), where=inside)


def sampled_rank_distribution(r: int, n: int, m: int, replace: bool) -> np.ndarray:
    """Probabilities ``p(r~ = 1..m + 1 | r)`` of the sampled rank for true rank ``r`` (Eq. 15).

    >>> sampled_rank_distribution(2, n=3, m=1, replace=False).tolist()
    [0.5, 0.5]
    """
    return sampled_rank_matrix(n, m, replace, [operator.index(r)])[0]


def simulate_sampled_ranks(
    true_ranks: ArrayLike, n: int, m: int, replace: bool, rng: np.random.Generator
) -> np.ndarray:
    """Draw one sampled rank per entry of ``true_ranks`` (any shape), independently.

    Each draw is ``1 +`` the number of the ``m`` sampled irrelevant items ranked
    above the relevant one: a binomial count with replacement, a hypergeometric
    one without.  Tile ``true_ranks`` to get repetitions.

    The top item stays first and the last item last, whatever is drawn:

    >>> simulate_sampled_ranks([1, 3], n=3, m=1, replace=False, rng=np.random.default_rng(0)).tolist()
    [1, 2]
    """
    n, m = check_setting(n, m, replace)
    ranks = check_true_ranks(true_ranks, n)
    if replace:
        return rng.binomial(m, (ranks - 1) / (n - 1)) + 1
    return rng.hypergeometric(ranks - 1, n - ranks, m) + 1


def simulate_common_sampled_ranks(
    patterns: ArrayLike, m: int, replace: bool, repetitions: int, rng: np.random.Generator
) -> np.ndarray:
    """Sampled ranks ``(repetitions, targets, K)`` when ``K`` recommenders rank the same sample.

    ``patterns[t, c]`` counts the pool items of target ``t`` that exactly the
    recommenders in the bit set ``c`` rank above it (bit ``k`` for recommender ``k``,
    :func:`recbias.evaluate.pool_ranks` with ``patterns=True``).  Each repetition
    draws ``m`` pool items per target (uniformly, with or without replacement);
    recommender ``k``'s sampled rank is ``1 +`` the drawn items it ranks above the
    target.  Only the counts of drawn items in each category matter, so they are
    drawn directly: a multivariate hypergeometric (without replacement) or
    multinomial (with) count, generated category by category from its conditional
    hypergeometric / binomial laws.  The marginal law of each recommender's sampled
    rank is that of :func:`sampled_rank_matrix`.

    A pool of three items: two that only recommender 0 ranks above the target (column ``0b01``) and
    one that both do (``0b11``).  Drawing all three, recommender 0 has 3 above the target, recommender 1 one:

    >>> simulate_common_sampled_ranks([[0, 2, 0, 1]], m=3, replace=False, repetitions=1,
    ...                               rng=np.random.default_rng(0)).tolist()
    [[[4, 2]]]
    """
    counts = np.asarray(patterns, dtype=np.int64)
    n_categories = counts.shape[1]
    n_rec = int(round(np.log2(n_categories)))
    if 2**n_rec != n_categories:
        raise ValueError("patterns must have 2**K columns")
    m = operator.index(m)
    if m < 1:
        raise ValueError(f"need at least one sampled item, got m={m}")
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

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
from scipy import stats


def check_setting(n: int, m: int, replace: bool) -> tuple[int, int]:
    """Validate a catalogue of ``n`` items sampled ``m`` times; return them as ints.

    Needs ``n >= 2`` and ``m >= 1``; without replacement at most the ``n - 1``
    irrelevant items can be drawn, so ``m <= n - 1``.
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
    """Return ``true_ranks`` as an ``int64`` array after checking they lie in ``1..n``."""
    ranks = np.asarray(true_ranks)
    if ranks.size and not np.issubdtype(ranks.dtype, np.integer):
        raise TypeError(f"{what} must be integers, got dtype {ranks.dtype}")
    if ranks.size and (ranks.min() < 1 or ranks.max() > n):
        raise ValueError(f"{what} must lie in 1..{n}, got range {ranks.min()}..{ranks.max()}")
    return ranks.astype(np.int64)


def sampled_rank_matrix(n: int, m: int, replace: bool, true_ranks: ArrayLike | None = None) -> np.ndarray:
    """Transition matrix ``P[i, j] = p(r~ = j + 1 | r = true_ranks[i])`` (Eq. 15-16).

    Rows follow ``true_ranks`` (default: every rank ``1..n``, giving an
    ``n x (m + 1)`` matrix); each row sums to one.  Binomial probabilities come
    from ``scipy.stats.binom.pmf``; hypergeometric ones from
    ``scipy.stats.hypergeom.logpmf``, which is two orders of magnitude faster
    than its ``pmf`` on large grids and exact to about 1e-12.
    """
    n, m = check_setting(n, m, replace)
    ranks = np.arange(1, n + 1) if true_ranks is None else check_true_ranks(true_ranks, n).ravel()
    above = np.arange(m + 1)[None, :]
    if replace:
        return stats.binom.pmf(above, m, ((ranks - 1) / (n - 1))[:, None])
    return np.exp(stats.hypergeom.logpmf(above, n - 1, (ranks - 1)[:, None], m))


def sampled_rank_distribution(r: int, n: int, m: int, replace: bool) -> np.ndarray:
    """Probabilities ``p(r~ = 1..m + 1 | r)`` of the sampled rank for true rank ``r`` (Eq. 15)."""
    return sampled_rank_matrix(n, m, replace, [operator.index(r)])[0]


def simulate_sampled_ranks(
    true_ranks: ArrayLike, n: int, m: int, replace: bool, rng: np.random.Generator
) -> np.ndarray:
    """Draw one sampled rank per entry of ``true_ranks`` (any shape), independently.

    Each draw is ``1 +`` the number of the ``m`` sampled irrelevant items ranked
    above the relevant one: a binomial count with replacement, a hypergeometric
    one without.  Tile ``true_ranks`` to get repetitions.
    """
    n, m = check_setting(n, m, replace)
    ranks = check_true_ranks(true_ranks, n)
    if replace:
        return rng.binomial(m, (ranks - 1) / (n - 1)) + 1
    return rng.hypergeometric(ranks - 1, n - ranks, m) + 1

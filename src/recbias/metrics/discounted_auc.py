"""The user-behaviour discounted AUC of Bobrikov, Nenova and Ignatov (CLA 2016), one value per run.

A user reads a recommendation list from the top and goes on to the next item with a
constant probability ``p``, so she reads exactly ``N`` items with probability

    w_N = p^(N-1) (1 - p)                                              (Eq. 5)

and ``p`` follows from the share ``Q`` of users who open the second page of ``m`` items,
``Q = p^m``.  The metric averages the precision ``P_N`` of the first ``N`` items over
that reading depth (Eq. 4); with a gain ``g_k`` at rank ``k`` (1 per hit in Eq. 4,
``r - base`` per hit with rating ``r`` in Eq. 7, times the short-head step ``sigma(i)`` of
Eq. 15) the sum over depths folds into one discount per rank:

    AUC = sum_N w_N (1/N) sum_{k<=N} g_k = sum_k g_k d_k,   d_k = sum_{N>=k} w_N / N.

Untruncated, ``d_1 = (1 - p)/p * ln(1/(1 - p))`` and ``d_{k+1} = d_k - w_k / k``.  Truncated
at a list of ``z`` items, the users who would read further read all ``z``: the tail mass
``sum_{N>=z} w_N = p^(z-1)`` sits at ``N = z``, so the weights still sum to 1 and
``d_k = sum_{k<=N<z} w_N / N + p^(z-1) / z`` for ``k <= z``, 0 below.  Either way
``sum_k d_k = sum_N w_N = 1``: the metric is a weighted mean of the gains down the list.

In :mod:`recbias.metrics` the name ``discounted_auc`` is the function; import the module's other
names from it by their full path (``from recbias.metrics.discounted_auc import GAINS``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from recbias.metrics._view import Ranked, as_view, check_cutoff
from recbias.metrics.popularity import ItemPopularity

Gain = Literal["binary", "rating"]
GAINS: tuple[str, ...] = ("binary", "rating")


def continuation_probability(Q: float, m: int) -> float:
    """``p = Q^(1/m)``: the probability of reading on, from the share ``Q`` of users who reach page 2 of ``m`` items.

    A quarter of the users open page 2 of 2 items: each reads on with probability 1/2.

    >>> continuation_probability(Q=0.25, m=2)
    0.5
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"page size m must be a positive integer, got {m!r}")
    if not 0.0 <= Q <= 1.0:
        raise ValueError(f"Q, the share of users who open page 2, must lie in [0, 1], got {Q!r}")
    return float(Q) ** (1.0 / int(m))


def _check_depth(p: float, n: int, z: int | None) -> int | None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"the continuation probability p must lie in [0, 1], got {p!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"the number of positions must be a non-negative integer, got {n!r}")
    if z is not None:
        z = check_cutoff(z)
    elif p == 1.0:
        raise ValueError("with p = 1 (Q = 1) nobody stops reading: the list needs a length z, e.g. bAUC@20")
    return z


def attention_weights(p: float, n: int, z: int | None = None) -> np.ndarray:
    """``w_N`` for ``N = 1..n``: ``p^(N-1) (1 - p)``, with the tail ``p^(z-1)`` at ``N = z`` and 0 beyond when truncated.

    >>> attention_weights(0.5, 3).tolist(), attention_weights(0.5, 3, z=2).tolist()
    ([0.5, 0.25, 0.125], [0.5, 0.5, 0.0])
    """
    z = _check_depth(p, n, z)
    depth = np.arange(1, n + 1)
    weights = p ** (depth - 1.0) * (1.0 - p)
    if z is not None:
        weights[depth == z] = p ** (z - 1.0)
        weights[depth > z] = 0.0
    return weights


def position_discount(p: float, n: int, z: int | None = None) -> np.ndarray:
    """``d_k = sum_{N>=k} w_N / N`` for ranks ``k = 1..n`` (see the module docstring for both closed forms).

    In a list of 2 read on with ``p = 1/2``: ``d_1 = 0.5 / 1 + 0.5 / 2``, ``d_2 = 0.5 / 2``; untruncated,
    ``d_1 = ln 2``.

    >>> position_discount(0.5, 3, z=2).tolist()
    [0.75, 0.25, 0.0]
    >>> round(float(position_discount(0.5, 1)[0]), 4)
    0.6931
    """
    z = _check_depth(p, n, z)
    rank = np.arange(1, n + 1)
    if z is not None:
        tail_sums = np.cumsum((attention_weights(p, z, z) / np.arange(1, z + 1))[::-1])[::-1]
        return np.append(tail_sums, np.zeros(max(n - z, 0)))[:n]
    if p == 0.0:
        return (rank == 1).astype(np.float64)
    first = (1.0 - p) / p * -np.log1p(-p)
    above = np.concatenate([[0.0], np.cumsum(attention_weights(p, n) / rank)[:-1]])
    return np.maximum(first - above, 0.0)


def short_head(rating_counts: np.ndarray, s: int) -> np.ndarray:
    """Boolean mask of the ``s`` items with the most ratings (ties broken by lower item code), where ``sigma(i) = 0``.

    >>> short_head(np.array([5, 9, 2, 9]), 2).tolist()
    [False, True, False, True]
    """
    counts = np.asarray(rating_counts)
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s <= counts.size:
        raise ValueError(f"the short-head size s must be an integer in [0, {counts.size}], got {s!r}")
    head = np.zeros(counts.size, dtype=bool)
    head[np.argsort(-counts, kind="stable")[: int(s)]] = True
    return head


def check_parameters(z: int | None, *, Q: float, m: int, gain: str, base: float | None, s: int) -> float:
    """Validate the settings of :func:`discounted_auc` before any data is read; return ``p``.

    >>> check_parameters(20, Q=0.25, m=2, gain="binary", base=None, s=0)
    0.5
    """
    p = continuation_probability(Q, m)
    _check_depth(p, 0, z)
    if gain not in GAINS:
        raise ValueError(f"gain must be one of {', '.join(GAINS)}, got {gain!r}")
    if gain == "rating" and base is None:
        raise ValueError("gain='rating' needs base, the rating subtracted from every hit (positive threshold - 1)")
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
        raise ValueError(f"the short-head size s must be a non-negative integer, got {s!r}")
    return p


def discounted_auc(
    runs: Ranked,
    z: int | None = None,
    popularity: ItemPopularity | None = None,
    *,
    Q: float = 0.3,
    m: int = 10,
    gain: Gain = "binary",
    base: float | None = None,
    s: int = 0,
) -> np.ndarray:
    """Per-run ``sum_{N=1..z} w_N (1/N) sum_{k<=N} sigma(i_k) g_k`` (Bobrikov et al. 2016, Eq. 4, 7 and 15).

    ``p = Q^(1/m)`` (Eq. 5); ``z`` is the list length (``None``: untruncated, needs ``Q < 1``).
    ``gain="binary"`` counts each relevant entry as 1 (``AUC``, Eq. 4); ``gain="rating"``
    counts its grade minus ``base`` (``AUC_r``, Eq. 7: ``r - 5`` on Imhonet's 10 stars, positive
    from 6; one below the positive threshold in general), which must be positive.
    ``s > 0`` zeroes the gain of the ``s`` items with the most ratings in
    ``popularity.rating_counts`` (the step ``sigma`` of Eq. 15).  The mean over runs is the
    paper's metric; non-relevant entries (mishits and unrated items) contribute nothing.

    One relevant item at rank 2 of a list of 2, ``p = 1/2``: only the users who read both items see
    it, in half of their list: ``w_2 / 2 = 0.25``.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 3], users=[0], items=[0, 1, 2], labels=[0, 1, 0])
    >>> discounted_auc(runs, z=2, Q=0.25, m=2).tolist()
    [0.25]
    """
    p = check_parameters(z, Q=Q, m=m, gain=gain, base=base, s=s)
    view, length = as_view(runs), check_cutoff(z, optional=True)
    positions = view.relevant_position
    kept = positions < length
    if gain == "rating":
        gains = view.relevant_grades[kept] - base
        if gains.size and gains.min() <= 0:
            raise ValueError(f"a relevant entry has grade {gains.min() + base:g} <= base {base:g}: gains must be positive")
    else:
        gains = np.ones(int(kept.sum()))
    if s:
        if popularity is None:
            raise ValueError("a short-head step s > 0 needs item popularity: pass an ItemPopularity")
        gains = gains * ~short_head(popularity.rating_counts, s)[view.relevant_items[kept]]
    depth = int(positions[kept].max()) + 1 if kept.any() else 0
    discount = position_discount(p, depth, z)
    return view.per_run(view.relevant_run[kept], gains * discount[positions[kept]])

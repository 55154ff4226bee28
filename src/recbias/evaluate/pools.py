"""Exact ranks of held-out items among their pools, for one or several recommenders.

A *target* is a held-out rating ``(u, i)`` (every test rating, or those at or above a
relevance threshold).  Its *pool* is what it is ranked against:

    pool(u, i) = C \\ R_train(u)           or, with ``exclude_other_targets``,
    pool(u, i) = C \\ R_train(u) \\ T(u)

the candidate items ``C`` (all items by default) that ``u`` did not rate in
training, optionally without ``u``'s other targets ``T(u)``.  The first, with all
items, is the unsampled evaluation of Krichene & Rendle (2020, Eq. 1); the second,
with relevant test items as targets, is the ranking of a 1R design with all
candidates (IRJ 2017).  ``n = |pool| + 1`` is recorded per target.

With ``g`` pool items scoring strictly higher than the target and ``e`` tied with
it, the rank is ``1 + g`` (``"optimistic"``), ``1 + g + e`` (``"pessimistic"``),
``1 + g + e/2`` (``"expected"``) or, for ``"random"``, ``1 + g +`` the tied items
that come first in a random order of the items drawn per user: every (user, item)
pair gets a key from a hash of ``(seed, user, item)``, so the order is the same for
every recommender and every target of the user, whatever the chunking or the
threads, and the rank is uniform on ``1 + g .. 1 + g + e``.

Users are scored in chunks (:func:`recbias.evaluate.scoring.score_blocks`), one dense
``chunk x n_items`` block per recommender, so no users x items matrix is built.
The counting is one compiled pass per target over its block row, split over
threads.  On request (``patterns=True``) a second pass counts the pool items of
each target by the set of recommenders that place them above it (``2**K``
categories), which is what a sample of pool items shared by the recommenders needs
(:func:`recbias.sampled.simulate_common_sampled_ranks`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from numba import njit

from recbias.evaluate.ranking import TIE_POLICIES, check_ties
from recbias.evaluate.scoring import score_blocks
from recbias.hashing import GOLDEN, mix
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.runs import Ranking, Runs

__all__ = ["BLOCK_BYTES", "PoolRanks", "PoolTiePolicy", "pool_ranks", "relevant_ranks"]

PoolTiePolicy = Literal["random", "optimistic", "pessimistic", "expected"]

#: target size of one block of scores (all recommenders) when ``chunk_size`` is not given
BLOCK_BYTES = 16 * 2**20

_RANDOM, _OPTIMISTIC, _PESSIMISTIC = 0, 1, 2


@dataclass(frozen=True)
class PoolRanks:
    """Exact ranks of targets among their pools, for several recommenders.

    Attributes:
        names: recommender names, one per column of ``ranks``.
        rows: index of each target in the test set (targets keep test order).
        users, items: user and item of each target.
        ranks: ``(targets, K)`` 1-based rank among ``pool + {target}`` (``float64``
            for ``ties="expected"``, else ``int64``).
        sizes: ``n`` of each target, ``|pool| + 1``.
        patterns: ``(targets, 2**K)`` counts of pool items by the set of
            recommenders that rank them above the target (bit ``k`` of the column
            index set when recommender ``k`` does), or ``None``.
    """

    names: tuple[str, ...]
    rows: np.ndarray
    users: np.ndarray
    items: np.ndarray
    ranks: np.ndarray
    sizes: np.ndarray
    patterns: np.ndarray | None = None

    @property
    def n_targets(self) -> int:
        return len(self.rows)


@njit(cache=True, nogil=True)
def _tie_key(seed: np.uint64, user: np.int64, item: np.int64) -> np.uint64:
    """Random key of ``item`` in ``user``'s tie-breaking order (smaller comes first)."""
    return mix(mix(seed ^ (np.uint64(user) * GOLDEN)) + np.uint64(item))


@njit(cache=True, nogil=True)
def _comes_first(seed: np.uint64, user: np.int64, item: np.int64, own_key: np.uint64, target: np.int64) -> bool:
    key = _tie_key(seed, user, item)
    return key < own_key or (key == own_key and item < target)


@njit(cache=True, nogil=True)
def _count(
    block: np.ndarray, pool: np.ndarray, rows: np.ndarray, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per target: pool items (other than the target) scoring above it, tied with it, in the
    pool, and whether its block row holds a NaN.  One branch-free pass per row."""
    n = rows.shape[0]
    above = np.zeros(n, np.int64)
    tied = np.zeros(n, np.int64)
    size = np.zeros(n, np.int64)
    has_nan = np.zeros(n, np.bool_)
    for k in range(n):
        row, inside = block[rows[k]], pool[rows[k]]
        target = row[targets[k]]
        n_above = n_equal = n_inside = n_nan = 0
        for j in range(row.shape[0]):  # indexed, so that numba vectorises the loop
            value, member = row[j], inside[j]
            n_above += member & (value > target)
            n_equal += member & (value == target)
            n_inside += member
            n_nan += value != value
        own = inside[targets[k]]
        above[k], tied[k], size[k] = n_above, n_equal - own, n_inside - own
        has_nan[k] = n_nan > 0 or target != target
    return above, tied, size, has_nan


@njit(cache=True, nogil=True)
def _count_tied_first(
    block: np.ndarray, pool: np.ndarray, rows: np.ndarray, targets: np.ndarray, users: np.ndarray, seed: np.uint64
) -> np.ndarray:
    """Per target: the pool items tied with it that come first in its user's random order."""
    first = np.zeros(rows.shape[0], np.int64)
    for k in range(rows.shape[0]):
        row, inside, item = block[rows[k]], pool[rows[k]], targets[k]
        own_key = _tie_key(seed, users[k], item)
        for j in range(row.shape[0]):
            if inside[j] and j != item and row[j] == row[item] and _comes_first(seed, users[k], j, own_key, item):
                first[k] += 1
    return first


@njit(cache=True, nogil=True)
def _count_patterns(
    blocks: np.ndarray,
    pool: np.ndarray,
    rows: np.ndarray,
    targets: np.ndarray,
    users: np.ndarray,
    seed: np.uint64,
    policy: int,
) -> np.ndarray:
    """Per target: pool items by the bit set of recommenders that place them above it."""
    n_rec = blocks.shape[0]
    counts = np.zeros((rows.shape[0], 1 << n_rec), np.int64)
    for k in range(rows.shape[0]):
        r, item, user = rows[k], targets[k], users[k]
        own_key = _tie_key(seed, user, item)
        for j in range(blocks.shape[2]):
            if not pool[r, j] or j == item:
                continue
            code = 0
            for s in range(n_rec):
                value, target = blocks[s, r, j], blocks[s, r, item]
                if value > target or (
                    value == target
                    and (policy == _PESSIMISTIC or (policy == _RANDOM and _comes_first(seed, user, j, own_key, item)))
                ):
                    code |= 1 << s
            counts[k, code] += 1
    return counts


def _in_threads(executor: ThreadPoolExecutor, n_threads: int, n: int, count: Callable[[np.ndarray], tuple]) -> list:
    """``count(part)`` over ``n_threads`` slices of ``range(n)``, results concatenated slice by slice."""
    parts = [part for part in np.array_split(np.arange(n), n_threads) if part.size]
    results = list(executor.map(count, parts))
    if not results:
        return []
    if not isinstance(results[0], tuple):
        return [np.concatenate(results)]
    return [np.concatenate([result[i] for result in results]) for i in range(len(results[0]))]


def _checked(recommenders: Recommender | Sequence[Recommender], train: Ratings, test: Ratings) -> list[Recommender]:
    recommenders = [recommenders] if isinstance(recommenders, Recommender) else list(recommenders)
    if not recommenders:
        raise ValueError("need at least one recommender")
    if train.shape != test.shape:
        raise ValueError(f"train has code space {train.shape}, test has {test.shape}")
    for recommender in recommenders:
        if recommender.n_items is None:
            raise RuntimeError(f"{recommender.name}: call fit() before ranking")
        if (recommender.n_users, recommender.n_items) != train.shape:
            raise ValueError(
                f"{recommender.name} was fitted on {(recommender.n_users, recommender.n_items)}, train is {train.shape}"
            )
    return recommenders


def _positive(label: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{label} must be a positive integer, got {value!r}")
    return int(value)


def _pool_mask(candidates: np.ndarray, excluded: Sequence[sp.csr_matrix]) -> np.ndarray:
    """Dense ``chunk x n_items`` pool mask: the candidates less each row's excluded items."""
    pool = np.repeat(candidates[None, :], excluded[0].shape[0], axis=0)
    for matrix in excluded:
        pool[np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr)), matrix.indices] = False
    return pool


def _targets(train: Ratings, test: Ratings, threshold: float | None,
             candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The target rows of ``test`` (ratings ``>= threshold``, or all) and their users and items, checked:
    every target a candidate, no pair twice, none a training pair of its user."""
    n_items = train.n_items
    rows = np.arange(test.n_ratings) if threshold is None else np.flatnonzero(test.values >= threshold)
    users, items = test.users[rows].astype(np.int64), test.items[rows].astype(np.int64)
    if not candidates[items].all():
        raise ValueError("every target must be a candidate item")
    keys = users * n_items + items
    if np.any(np.diff(np.sort(keys)) == 0):
        raise ValueError("a (user, item) pair is a target twice; keep one test rating per pair")
    train_keys = np.sort(train.users.astype(np.int64) * n_items + train.items)
    found = train_keys[np.minimum(np.searchsorted(train_keys, keys), max(len(train_keys) - 1, 0))] == keys
    if len(train_keys) and found.any():
        raise ValueError(f"test item {int(items[found][0])} is also a training item of its user")
    return rows, users, items


@dataclass
class _Counts:
    """What the counting accumulates, one row per target: items above and tied per recommender, pool
    sizes, and (with patterns) items per set of recommenders ranking them above."""

    above: np.ndarray
    tied: np.ndarray
    sizes: np.ndarray
    patterns: np.ndarray | None

    @classmethod
    def empty(cls, n_targets: int, n_recommenders: int, patterns: bool) -> _Counts:
        shape = (n_targets, n_recommenders)
        return cls(np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64),
                   np.zeros(n_targets, dtype=np.int64),
                   np.zeros((n_targets, 2**n_recommenders), dtype=np.int64) if patterns else None)

    def ranks(self, ties: str) -> np.ndarray:
        """Rank of each target: 1 + items above (+ all tied items when pessimistic, half when expected;
        random has already placed its tied items among those above)."""
        if ties == "expected":
            return 1.0 + self.above + self.tied / 2.0
        return 1 + self.above + (self.tied if ties == "pessimistic" else 0)


def _count_chunk(counts: _Counts, executor: ThreadPoolExecutor, n_threads: int, recommenders: Sequence[Recommender],
                 blocks: list[np.ndarray], pool: np.ndarray, part: np.ndarray, block_rows: np.ndarray,
                 part_items: np.ndarray, part_users: np.ndarray, ties: str, key_seed: np.uint64) -> None:
    """Count, for the targets ``part`` of one chunk of users, the pool items above and tied with each target
    under each recommender's score block, breaking random ties by the items' keys."""
    for k, (recommender, block) in enumerate(zip(recommenders, blocks, strict=True)):
        n_above, n_tied, n_pool, has_nan = _in_threads(
            executor, n_threads, len(part), lambda s: _count(block, pool, block_rows[s], part_items[s])
        )
        if has_nan.any():
            raise ValueError(f"{recommender.name} returned NaN scores for some users of the chunk of user "
                             f"{int(part_users.min())}")
        counts.above[part, k], counts.tied[part, k], counts.sizes[part] = n_above, n_tied, n_pool + 1
        if ties == "random" and n_tied.any():
            some = np.flatnonzero(n_tied)
            (tied_first,) = _in_threads(
                executor, n_threads, len(some), lambda s: _count_tied_first(
                    block, pool, block_rows[some[s]], part_items[some[s]], part_users[some[s]], key_seed)
            )
            counts.above[part[some], k] += tied_first
            counts.tied[part[some], k] = 0
    if counts.patterns is not None:
        policy = {"random": _RANDOM, "optimistic": _OPTIMISTIC, "pessimistic": _PESSIMISTIC}.get(ties, _OPTIMISTIC)
        stacked = np.stack(blocks)
        (counts.patterns[part],) = _in_threads(
            executor, n_threads, len(part), lambda s: _count_patterns(
                stacked, pool, block_rows[s], part_items[s], part_users[s], key_seed, policy)
        )


def pool_ranks(
    recommenders: Recommender | Sequence[Recommender],
    train: Ratings,
    test: Ratings,
    *,
    threshold: float | None = None,
    candidates: np.ndarray | None = None,
    exclude_other_targets: bool = False,
    ties: PoolTiePolicy = "random",
    patterns: bool = False,
    seed: int = 0,
    chunk_size: int | None = None,
    n_threads: int | None = None,
) -> PoolRanks:
    """Rank every target among its pool, for each recommender (see the module docstring).

    Args:
        recommenders: one recommender or several, fitted on ``train``.
        train, test: the split (same code space); a target that is also a training
            pair of its user raises.
        threshold: targets are the test ratings ``>= threshold``; ``None``: every test rating.
        candidates: boolean mask over items, ``C`` (all items by default); every
            target must be a candidate.
        exclude_other_targets: leave the user's other targets out of the pool (the 1R pool).
        ties: ``"random"``, ``"optimistic"``, ``"pessimistic"`` or ``"expected"``.
        patterns: also count pool items by the set of recommenders ranking them above
            (not with ``ties="expected"``).
        seed: seed of the random tie-breaking order.
        chunk_size: users per score block (default: blocks near :data:`BLOCK_BYTES`).
        n_threads: threads that share the counting (default: all cores).

    The result does not depend on ``chunk_size`` or ``n_threads``; NaN scores raise.
    """
    check_ties(ties, (*TIE_POLICIES, "expected"))
    if patterns and ties == "expected":
        raise ValueError("patterns need a tie policy that places every item: use random, optimistic or pessimistic")
    recommenders = _checked(recommenders, train, test)
    n_items, n_rec = train.n_items, len(recommenders)
    if chunk_size is None:
        chunk_size = max(1, BLOCK_BYTES // (8 * max(n_items, 1) * n_rec))
    chunk_size = _positive("chunk_size", chunk_size)
    n_threads = _positive("n_threads", (os.cpu_count() or 1) if n_threads is None else n_threads)
    candidates = np.ones(n_items, dtype=bool) if candidates is None else np.asarray(candidates, dtype=bool)
    if candidates.shape != (n_items,):
        raise ValueError(f"candidates must be a boolean mask over the {n_items} items")
    rows, users, items = _targets(train, test, threshold, candidates)

    train_matrix = train.matrix("binary")
    target_matrix = sp.csr_matrix((np.ones(len(rows)), (users, items)), shape=train.shape)
    excluded = [train_matrix, target_matrix] if exclude_other_targets else [train_matrix]
    by_user = np.argsort(users, kind="stable")
    first = np.flatnonzero(np.diff(users[by_user], prepend=-1))
    chunk_users, bounds = users[by_user][first], np.append(first, len(by_user))
    counts = _Counts.empty(len(rows), n_rec, patterns)
    key_seed = np.uint64(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])
    readers = [score_blocks(recommender, chunk_users, chunk_size) for recommender in recommenders]
    with ThreadPoolExecutor(n_threads) as executor:
        for chunk_blocks in zip(*readers, strict=True):
            start = chunk_blocks[0][0]
            chunk = chunk_users[start : start + chunk_size]
            part = by_user[bounds[start] : bounds[start + len(chunk)]]
            pool = _pool_mask(candidates, [matrix[chunk] for matrix in excluded])
            _count_chunk(counts, executor, n_threads, recommenders, [block for _, block in chunk_blocks], pool, part,
                         np.searchsorted(chunk, users[part]), items[part], users[part], ties, key_seed)
    return PoolRanks(tuple(r.name for r in recommenders), rows, users, items, counts.ranks(ties), counts.sizes,
                     counts.patterns)


def relevant_ranks(ranked: Ranking | Runs) -> np.ndarray:
    """1-based rank of the one relevant candidate of every run (1R runs: exactly one each).

    ``ranked`` is a :class:`~recbias.runs.Ranking` (:func:`recbias.evaluate.rank_positions`)
    or runs in rank order (:func:`recbias.evaluate.rank_runs`).
    """
    ranking = ranked if isinstance(ranked, Ranking) else Ranking.in_order(ranked)
    runs = ranking.runs
    relevant = runs.labels[ranking.marked]
    run_of = runs.run_of_marked[relevant]
    if len(run_of) != runs.n_runs or np.any(run_of != np.arange(runs.n_runs)):
        raise ValueError("every run must hold exactly one relevant item")
    return ranking.positions[relevant] + 1

"""Exact ranks of test items among every item a user has not rated in training.

This is the unsampled evaluation of Krichene & Rendle (2020, Eq. 1): the rank
of each test item ``i`` of user ``u`` among the candidates ``I \\ R_train(u)``
(other test items of ``u`` included).  Users are scored in chunks with
:meth:`Recommender.score_users`, one dense ``chunk_size x n_items`` block at a
time, so memory stays bounded and no users x items matrix is ever built.
Training items are counted with every other item and then subtracted, from
the sparse training matrix, so the score block is never copied or modified.
The counting is one compiled pass per block row (numba), split over threads:
three numpy passes (NaN check, ``>``, ``==``) cost more than the scoring itself.

With ``g`` candidates scoring strictly higher than the test item and ``e``
other candidates tied with it, the rank is ``1 + g`` (``"optimistic"``),
``1 + g + e`` (``"pessimistic"``), ``1 + g + U`` with ``U`` uniform on
``{0..e}`` (``"random"``, the rank under a random tie-break, drawn with
``numpy.random.default_rng(seed)`` once for all test ratings so the chunk size
does not matter) or ``1 + g + e/2`` (``"expected"``, its expectation).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np
import scipy.sparse as sp
from numba import njit

from recbias.evaluate.ranking import TIE_POLICIES, check_ties
from recbias.evaluate.scoring import score_blocks
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender

FullTiePolicy = Literal["random", "optimistic", "pessimistic", "expected"]

#: target size of one block of scores when ``chunk_size`` is not given
BLOCK_BYTES = 16 * 2**20


def _check_inputs(recommender: Recommender, train: Ratings, test: Ratings) -> None:
    if train.shape != test.shape:
        raise ValueError(f"train has code space {train.shape}, test has {test.shape}")
    if recommender.n_items is None:
        raise RuntimeError(f"{recommender.name}: call fit() before ranking")
    if (recommender.n_users, recommender.n_items) != train.shape:
        raise ValueError(
            f"{recommender.name} was fitted on {(recommender.n_users, recommender.n_items)}, train is {train.shape}"
        )


@njit(cache=True, nogil=True)
def _count_above_and_tied(
    block: np.ndarray, rows: np.ndarray, target_items: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per target ``k``, in one pass over its block row ``rows[k]``: the items scoring
    above the target item, the other items scoring the same, and whether the row holds
    a NaN score.  Compiled, and free of the GIL, so the pool's threads share a block."""
    n = rows.shape[0]
    above = np.zeros(n, np.int64)
    tied = np.zeros(n, np.int64)
    has_nan = np.zeros(n, np.bool_)
    for k in range(n):
        row = block[rows[k]]
        target = row[target_items[k]]
        n_above = 0
        n_equal = 0
        n_nan = 0
        for j in range(row.shape[0]):  # indexed, so that numba vectorises the loop
            value = row[j]
            n_above += value > target
            n_equal += value == target
            n_nan += value != value
        above[k] = n_above
        tied[k] = n_equal - 1
        has_nan[k] = n_nan > 0 or target != target
    return above, tied, has_nan


def _count_in_parallel(
    pool: ThreadPoolExecutor, n_threads: int, block: np.ndarray, rows: np.ndarray, target_items: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_count_above_and_tied` over ``n_threads`` slices of the targets on the pool's
    threads; ``None`` when some row holds a NaN score."""
    rows, target_items = rows.astype(np.int64), target_items.astype(np.int64)
    parts = [part for part in np.array_split(np.arange(len(rows)), n_threads) if part.size]
    results = list(pool.map(lambda part: _count_above_and_tied(block, rows[part], target_items[part]), parts))
    if any(has_nan.any() for _, _, has_nan in results):
        return None
    return np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])


def _training_above_and_tied(
    block: np.ndarray, seen: sp.csr_matrix, rows: np.ndarray, target_items: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The same counts restricted to each target's training items (to be subtracted).

    Raises if a target item is itself a training item of its user.
    """
    targets = block[rows, target_items]
    per_target = np.diff(seen.indptr)[rows]
    target_of_pair = np.repeat(np.arange(len(rows)), per_target)
    first = np.cumsum(per_target) - per_target
    seen_entry = seen.indptr[rows][target_of_pair] + np.arange(len(target_of_pair)) - first[target_of_pair]
    seen_items = seen.indices[seen_entry]
    clash = np.flatnonzero(seen_items == target_items[target_of_pair])
    if clash.size:
        item = int(seen_items[clash[0]])
        raise ValueError(f"test item {item} is also a training item of its user")
    seen_scores = block[rows[target_of_pair], seen_items]
    pair_targets = targets[target_of_pair]
    above = np.bincount(target_of_pair, weights=seen_scores > pair_targets, minlength=len(rows))
    tied = np.bincount(target_of_pair, weights=seen_scores == pair_targets, minlength=len(rows))
    return above.astype(np.int64), tied.astype(np.int64)


def full_catalogue_ranks(
    recommender: Recommender,
    train: Ratings,
    test: Ratings,
    chunk_size: int | None = None,
    ties: FullTiePolicy = "random",
    seed: int = 0,
    n_threads: int | None = None,
) -> np.ndarray:
    """1-based rank of every test rating's item among its user's non-training items.

    Returns one value per test rating, in test order (``int64``; ``float64`` for
    ``ties="expected"``).  ``recommender`` must be fitted on ``train``; a test
    pair that is also in ``train`` or a NaN score raises.  Peak memory is about
    ``chunk_size x n_items`` scores (plus as many for users with several test items);
    the default ``chunk_size`` keeps a block near :data:`BLOCK_BYTES`, small enough to
    stay in a large last-level cache during the comparisons.
    The comparisons of each block run on ``n_threads`` threads (default: all cores);
    the result does not depend on ``chunk_size`` or ``n_threads``.
    """
    check_ties(ties, (*TIE_POLICIES, "expected"))
    if chunk_size is None:
        chunk_size = max(1, BLOCK_BYTES // (8 * max(train.n_items, 1)))
    for label, value in (("chunk_size", chunk_size), ("n_threads", 1 if n_threads is None else n_threads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{label} must be a positive integer, got {value!r}")
    _check_inputs(recommender, train, test)
    by_user = np.argsort(test.users, kind="stable")
    test_users = test.users[by_user]
    first_rating = np.flatnonzero(np.diff(test_users, prepend=-1))
    users = test_users[first_rating]
    bounds = np.append(first_rating, len(test_users))
    train_matrix = train.matrix("binary")
    above = np.zeros(len(test.users), dtype=np.int64)
    tied = np.zeros(len(test.users), dtype=np.int64)
    n_threads = n_threads or os.cpu_count() or 1
    with ThreadPoolExecutor(n_threads) as pool:
        for start, block in score_blocks(recommender, users, chunk_size):
            chunk = users[start : start + len(block)]
            ratings = by_user[bounds[start] : bounds[start + len(chunk)]]
            rows = np.searchsorted(chunk, test.users[ratings])
            seen_above, seen_tied = _training_above_and_tied(block, train_matrix[chunk], rows, test.items[ratings])
            counts = _count_in_parallel(pool, n_threads, block, rows, test.items[ratings])
            if counts is None:
                raise ValueError(f"{recommender.name} returned NaN scores for some of users {chunk[0]}..{chunk[-1]}")
            above[ratings] = counts[0] - seen_above
            tied[ratings] = counts[1] - seen_tied
    if ties == "optimistic":
        return 1 + above
    if ties == "pessimistic":
        return 1 + above + tied
    if ties == "expected":
        return 1.0 + above + tied / 2.0
    return 1 + above + np.random.default_rng(seed).integers(0, tied + 1)

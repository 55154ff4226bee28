"""Exact ranks of test items among every item a user has not rated in training.

This is the unsampled evaluation of Krichene & Rendle (2020, Eq. 1): the rank
of each test item ``i`` of user ``u`` among the candidates ``I \\ R_train(u)``
(other test items of ``u`` included).  Users are scored in chunks with
:meth:`Recommender.score_users`, one dense ``chunk_size x n_items`` block at a
time, so memory stays bounded and no users x items matrix is ever built.

With ``g`` candidates scoring strictly higher than the test item and ``e``
other candidates tied with it, the rank is ``1 + g`` (``"optimistic"``),
``1 + g + e`` (``"pessimistic"``), ``1 + g + U`` with ``U`` uniform on
``{0..e}`` (``"random"``, the rank under a random tie-break, drawn with
``numpy.random.default_rng(seed)`` once for all test ratings so the chunk size
does not matter) or ``1 + g + e/2`` (``"expected"``, its expectation).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from recbias.evaluate.ranking import TIE_POLICIES, check_ties
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender

FullTiePolicy = Literal["random", "optimistic", "pessimistic", "expected"]


def _check_inputs(recommender: Recommender, train: Ratings, test: Ratings) -> None:
    if train.shape != test.shape:
        raise ValueError(f"train has code space {train.shape}, test has {test.shape}")
    if recommender.n_items is None:
        raise RuntimeError(f"{recommender.name}: call fit() before ranking")
    if (recommender.n_users, recommender.n_items) != train.shape:
        raise ValueError(
            f"{recommender.name} was fitted on {(recommender.n_users, recommender.n_items)}, train is {train.shape}"
        )
    n_items = np.int64(train.n_items)
    overlap = np.isin(test.users * n_items + test.items, train.users * n_items + train.items)
    if overlap.any():
        k = int(np.flatnonzero(overlap)[0])
        raise ValueError(
            f"test rating {k} (user {test.users[k]}, item {test.items[k]}) is also a training item of its user"
        )


def _count_above_and_tied(
    block: np.ndarray, rows: np.ndarray, targets: np.ndarray, need_ties: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Per target: candidates of its block row scoring higher, and others scoring the same."""
    compared = block if np.array_equal(rows, np.arange(len(block))) else block[rows]
    above = np.count_nonzero(compared > targets[:, None], axis=1)
    tied = np.count_nonzero(compared == targets[:, None], axis=1) - 1 if need_ties else np.zeros_like(above)
    return above, tied


def full_catalogue_ranks(
    recommender: Recommender,
    train: Ratings,
    test: Ratings,
    chunk_size: int = 256,
    ties: FullTiePolicy = "random",
    seed: int = 0,
) -> np.ndarray:
    """1-based rank of every test rating's item among its user's non-training items.

    Returns one value per test rating, in test order (``int64``; ``float64`` for
    ``ties="expected"``).  ``recommender`` must be fitted on ``train``; a test
    pair that is also in ``train`` or a NaN score raises.  Peak memory is about
    ``chunk_size x n_items`` scores (plus as many for users with several test items).
    """
    check_ties(ties, (*TIE_POLICIES, "expected"))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    _check_inputs(recommender, train, test)
    by_user = np.argsort(test.users, kind="stable")
    test_users = test.users[by_user]
    users, first_rating = np.unique(test_users, return_index=True)
    bounds = np.append(first_rating, len(test_users))
    train_matrix = train.matrix("binary")
    above = np.zeros(len(test.users), dtype=np.int64)
    tied = np.zeros(len(test.users), dtype=np.int64)
    for start in range(0, len(users), chunk_size):
        chunk = users[start : start + chunk_size]
        ratings = by_user[bounds[start] : bounds[start + len(chunk)]]
        block = np.array(recommender.score_users(chunk), dtype=np.float64)
        if block.shape != (len(chunk), train.n_items):
            raise ValueError(f"{recommender.name}.score_users returned {block.shape}, expected {(len(chunk), train.n_items)}")
        if np.isnan(block).any():
            raise ValueError(f"{recommender.name} returned NaN scores for some of users {chunk[0]}..{chunk[-1]}")
        rows = np.searchsorted(chunk, test.users[ratings])
        targets = block[rows, test.items[ratings]]
        seen = train_matrix[chunk].tocoo()
        block[seen.row, seen.col] = np.nan  # NaN compares false: training items never count
        for lo in range(0, len(ratings), chunk_size):
            part = slice(lo, lo + chunk_size)
            above[ratings[part]], tied[ratings[part]] = _count_above_and_tied(
                block, rows[part], targets[part], need_ties=ties != "optimistic"
            )
    if ties == "optimistic":
        return 1 + above
    if ties == "pessimistic":
        return 1 + above + tied
    if ties == "expected":
        return 1.0 + above + tied / 2.0
    return 1 + above + np.random.default_rng(seed).integers(0, tied + 1)

"""Quality under complete relevance: what every offline design tries to estimate.

A simulated world knows the relevance of every user-item pair
(``Ratings.true_relevance``).  A system's *true* quality for user ``u`` judges its
top ``n`` among all items outside ``R_train(u)`` on that truth, with binary gains:

    P@n = hits / n,   nDCG@n = sum_{k<=n} rel_k / log2(k + 1)  /  sum_{k<=min(n, R_u)} 1 / log2(k + 1),

where ``R_u`` counts the relevant items outside ``R_train(u)`` (Järvelin and Kekäläinen
2002, with the ideal list truncated at ``n``).  Any other metric that weighs the hits of the
top of the list by a fixed discount, ``sum_k rel_k d_k``, is computed from the same lists.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from recbias.evaluate.scoring import SCORE_BLOCK, score_blocks
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender

__all__ = ["top_columns", "true_quality"]


def top_columns(scores: np.ndarray, k: int) -> np.ndarray:
    """Per row, the columns of the ``k`` highest scores, best first, ties to the lower column.

    The same as ``np.argsort(-scores, axis=1, kind="stable")[:, :k]``, found by a partition
    (each row's ``k``-th highest score) and a sort of the ``k`` columns it keeps, instead of a
    sort of every column.  ``NaN`` scores are not allowed.
    """
    scores = np.asarray(scores, dtype=np.float64)
    rows, width = scores.shape
    if not 1 <= k <= width:
        raise ValueError(f"k must lie in [1, {width}], got {k}")
    if k == width:
        return np.argsort(-scores, axis=1, kind="stable")
    kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1 : k]
    above = scores > kth
    tied = scores == kth
    keep = above | (tied & (np.cumsum(tied, axis=1) <= k - above.sum(axis=1, keepdims=True)))
    columns = np.nonzero(keep)[1].reshape(rows, k)  # ascending within each row
    best_first = np.argsort(-np.take_along_axis(scores, columns, axis=1), axis=1, kind="stable")
    return np.take_along_axis(columns, best_first, axis=1)


def true_quality(
    systems: Mapping[str, Recommender],
    train: Ratings,
    truth: np.ndarray,
    *,
    n: int = 10,
    seed: int | None = 0,
    block: int = SCORE_BLOCK,
    discounts: Mapping[str, np.ndarray] | None = None,
    users: np.ndarray | None = None,
) -> dict[str, pd.DataFrame]:
    """Per-user true P@n and nDCG@n of each fitted system, ``{"P@n": users x systems, "nDCG@n": ...}``.

    ``truth`` is the ``n_users x n_items`` boolean relevance matrix.  Items with equal
    scores are ordered by one random permutation of the catalogue drawn from
    ``numpy.random.default_rng(seed)``, shared by every user and system, or by item code
    when ``seed`` is ``None``.  Users without a relevant item outside training get NaN nDCG.
    Users are scored in chunks of ``block // n_items``.  ``discounts`` adds one frame per
    named vector ``d`` of position weights: ``sum_{k <= len(d)} rel_k d_k`` over the top
    ``len(d)`` items (e.g. the position discount of :func:`recbias.metrics.position_discount`).
    ``users`` (codes) limits the tables to those users, default all.
    """
    truth = np.asarray(truth, dtype=bool)
    if truth.shape != train.shape:
        raise ValueError(f"truth has shape {truth.shape}, the ratings {train.shape}")
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    extra = {name: np.asarray(d, dtype=np.float64) for name, d in (discounts or {}).items()}
    depth = max([n, *(len(d) for d in extra.values())])
    if depth > train.n_items:
        raise ValueError(f"lists of {depth} items are longer than the catalogue of {train.n_items}")
    rated = train.matrix("binary").toarray().astype(bool)
    order = np.arange(train.n_items) if seed is None else np.random.default_rng(seed).permutation(train.n_items)
    discount = 1.0 / np.log2(np.arange(2, n + 2))
    ideal = np.concatenate([[0.0], np.cumsum(discount)])[np.minimum((truth & ~rated).sum(axis=1), n)]
    users = np.arange(train.n_users) if users is None else np.unique(np.asarray(users, dtype=np.int64))
    step = max(1, block // max(1, train.n_items))
    index = pd.Index(users, name="user")
    precision = pd.DataFrame(index=index, columns=list(systems), dtype=np.float64)
    ndcg = precision.copy()
    weighted = {name: precision.copy() for name in extra}
    for label, recommender in systems.items():
        hits = np.empty((len(users), depth), dtype=bool)
        for start, scores in score_blocks(recommender, users, step):
            chunk = users[start : start + len(scores)]
            scores[rated[chunk]] = -np.inf
            top = order[top_columns(scores[:, order], depth)]
            hits[start : start + len(scores)] = truth[chunk[:, None], top] & ~rated[chunk[:, None], top]
        precision[label] = hits[:, :n].mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ndcg[label] = np.where(ideal[users] > 0, (hits[:, :n] @ discount) / ideal[users], np.nan)
        for name, weights in extra.items():
            weighted[name][label] = hits[:, : len(weights)] @ weights
    return {f"P@{n}": precision, f"nDCG@{n}": ndcg, **weighted}

"""Quality under complete relevance: what every offline design tries to estimate.

A simulated world knows the relevance of every user-item pair
(``Ratings.true_relevance``).  A system's *true* quality for user ``u`` judges its
top ``n`` among all items outside ``R_train(u)`` on that truth, with binary gains:

    P@n = hits / n,   nDCG@n = sum_{k<=n} rel_k / log2(k + 1)  /  sum_{k<=min(n, R_u)} 1 / log2(k + 1),

where ``R_u`` counts the relevant items outside ``R_train(u)`` (Järvelin and Kekäläinen
2002, with the ideal list truncated at ``n``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from recbias.evaluate.scoring import SCORE_BLOCK, score_blocks
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender

__all__ = ["true_quality"]


def true_quality(
    systems: Mapping[str, Recommender],
    train: Ratings,
    truth: np.ndarray,
    *,
    n: int = 10,
    seed: int | None = 0,
    block: int = SCORE_BLOCK,
) -> dict[str, pd.DataFrame]:
    """Per-user true P@n and nDCG@n of each fitted system, ``{"P@n": users x systems, "nDCG@n": ...}``.

    ``truth`` is the ``n_users x n_items`` boolean relevance matrix.  Items with equal
    scores are ordered by one random permutation of the catalogue drawn from
    ``numpy.random.default_rng(seed)``, shared by every user and system, or by item code
    when ``seed`` is ``None``.  Users without a relevant item outside training get NaN nDCG.
    Users are scored in chunks of ``block // n_items``.
    """
    truth = np.asarray(truth, dtype=bool)
    if truth.shape != train.shape:
        raise ValueError(f"truth has shape {truth.shape}, the ratings {train.shape}")
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    rated = train.matrix("binary").toarray().astype(bool)
    order = np.arange(train.n_items) if seed is None else np.random.default_rng(seed).permutation(train.n_items)
    discount = 1.0 / np.log2(np.arange(2, n + 2))
    ideal = np.concatenate([[0.0], np.cumsum(discount)])[np.minimum((truth & ~rated).sum(axis=1), n)]
    users = np.arange(train.n_users)
    step = max(1, block // max(1, train.n_items))
    index = pd.Index(users, name="user")
    precision = pd.DataFrame(index=index, columns=list(systems), dtype=np.float64)
    ndcg = precision.copy()
    for label, recommender in systems.items():
        hits = np.empty((len(users), n), dtype=bool)
        for start, scores in score_blocks(recommender, users, step):
            chunk = users[start : start + len(scores)]
            scores[rated[chunk]] = -np.inf
            top = order[np.argsort(-scores[:, order], axis=1, kind="stable")[:, :n]]
            hits[chunk] = truth[chunk[:, None], top] & ~rated[chunk[:, None], top]
        precision[label] = hits.mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ndcg[label] = np.where(ideal > 0, (hits @ discount) / ideal, np.nan)
    return {f"P@{n}": precision, f"nDCG@{n}": ndcg}

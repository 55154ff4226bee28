"""The support of recommended items: how many training ratings stand behind what a system puts on top.

The support of item ``i`` is its training popularity ``|R_train(i)|``.  A system's list for user ``u``
is its top ``n`` among the items outside ``R_train(u)`` (the target set of the AI-AN design).  A rating
predictor that averages the ratings of the neighbours who rated an item can fill that list with items
rated by one or two users, whose averages are the most extreme; the support of its lists shows it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from recbias.evaluate.complete import top_columns
from recbias.evaluate.scoring import SCORE_BLOCK, score_blocks
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender

__all__ = ["support_table", "top_support"]


def top_support(recommender: Recommender, train: Ratings, *, n: int = 10, seed: int = 0,
                block: int = SCORE_BLOCK) -> np.ndarray:
    """``|R_train(i)|`` of the items of each user's top ``n``, best first (``users x n``).

    A row per user with a training rating and at least ``n`` items outside ``R_train(u)``, by increasing
    user code; the list holds only items outside ``R_train(u)``.  Equal scores go in one random order of
    the catalogue drawn from ``numpy.random.default_rng(seed)``, as in
    :func:`recbias.evaluate.complete.true_quality`.  Users are scored in chunks of ``block // n_items``.

    Item 0 is rated by all three users, item 1 by two, item 2 by one, item 3 by none; popularity's
    first pick outside each user's ratings is item 1, item 2 and item 3:

    >>> from recbias.recommenders import Popularity
    >>> train = Ratings.from_codes([0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2], [4.0] * 6, (3, 4), positive_threshold=4)
    >>> top_support(Popularity().fit(train), train, n=1).tolist()
    [[2], [1], [0]]
    """
    if recommender.n_items != train.n_items:
        raise ValueError(f"{recommender.name} was fitted on {recommender.n_items} items, the ratings have {train.n_items}")
    if not 1 <= n <= train.n_items:
        raise ValueError(f"n must lie in [1, {train.n_items}], got {n}")
    rated = train.matrix("binary")
    per_user = np.diff(rated.indptr)
    users = np.flatnonzero((per_user > 0) & (per_user <= train.n_items - n))
    if not len(users):
        raise ValueError(f"{train.name}: no user has a training rating and {n} items outside her ratings")
    counts, order = train.item_counts(), np.random.default_rng(seed).permutation(train.n_items)
    out = np.empty((len(users), n), dtype=np.int64)
    for start, scores in score_blocks(recommender, users, max(1, block // train.n_items)):
        chunk = users[start : start + len(scores)]
        out[start : start + len(scores)] = counts[top_columns(scores, n, excluded=rated[chunk].toarray() > 0,
                                                              order=order)]
    return out


def support_table(systems: Mapping[str, Recommender], train: Ratings, *, n: int = 10, few: int = 2,
                  seed: int = 0) -> pd.DataFrame:
    """Per fitted system, the support of the items of its lists (:func:`top_support`) over every user's top
    ``n``: its ``median``, the share of items with at most ``few`` training ratings (``few_share``) and
    its ``mean``.

    Popularity's picks in the example of :func:`top_support` have 2, 1 and 0 training ratings:

    >>> from recbias.recommenders import Popularity
    >>> train = Ratings.from_codes([0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2], [4.0] * 6, (3, 4), positive_threshold=4)
    >>> support_table({"Popularity": Popularity().fit(train)}, train, n=1, few=1).round(3).to_dict("records")
    [{'system': 'Popularity', 'median': 1.0, 'few_share': 0.667, 'mean': 1.0}]
    """
    rows = []
    for label, recommender in systems.items():
        support = top_support(recommender, train, n=n, seed=seed)
        rows.append({"system": label, "median": float(np.median(support)),
                     "few_share": float(np.mean(support <= few)), "mean": float(support.mean())})
    return pd.DataFrame(rows, columns=["system", "median", "few_share", "mean"])

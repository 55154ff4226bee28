"""A tiny recommender written outside recbias: items ranked by their shrunk mean rating.

``python -m recbias audit --ratings ml-100k --system examples.item_mean:ItemMean`` audits it.
Any subclass of :class:`recbias.recommenders.Recommender` that implements ``_fit(train)`` and
``score_users(users)`` works.
"""

import numpy as np

from recbias.ratings import Ratings
from recbias.recommenders import Recommender


class ItemMean(Recommender):
    """Score of item ``i``: ``(sum of its ratings + k * global mean) / (number of its ratings + k)``."""

    name = "ItemMean"

    def __init__(self, seed: int = 0, shrinkage: float = 10.0) -> None:
        super().__init__(seed)
        self.shrinkage = shrinkage

    def _fit(self, train: Ratings) -> None:
        sums = np.bincount(train.items, weights=train.values, minlength=train.n_items)
        counts = np.bincount(train.items, minlength=train.n_items)
        self.item_scores = (sums + self.shrinkage * train.values.mean()) / (counts + self.shrinkage)

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return np.broadcast_to(self.item_scores, (len(users), self.n_items)).copy()

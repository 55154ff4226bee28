"""Non-personalised baselines: random scores, item popularity, mean rating and a test-set oracle.

All rank items the same way for every user (Random up to its per-pair
noise), which makes them the reference points of the bias analyses in
Bellogín et al. (IRJ 2017, Section 3.3 and Section 5).  The oracle reads the
held-out ratings it is evaluated on, so it is a yardstick, not a system.
"""

from __future__ import annotations

import numpy as np

from recbias.hashing import grid_uniforms, pair_uniforms
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender


class Random(Recommender):
    """Scores drawn uniformly at random, reproducible per ``(seed, user, item)`` (:mod:`recbias.hashing`).

    Its expected precision is the random baseline of the papers (e.g. AR
    precision ``sigma * delta``, Bellogín thesis Section 4.4).
    """

    name = "Random"

    def uses_positive_threshold(self) -> bool:
        return False

    def _fit(self, train: Ratings) -> None:
        if not isinstance(self.seed, (int, np.integer)):
            raise TypeError(f"{self.name}: seed must be an integer, got {self.seed!r}")

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return grid_uniforms(self.seed, users, np.arange(self.n_items))

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        users, items = self._check(users, items)
        return pair_uniforms(self.seed, users, items)


class ItemScores(Recommender):
    """A non-personalised recommender: one score per item, the same for every user.

    Subclasses compute the vector in :meth:`_item_scores`; scoring reads it.
    """

    item_scores_: np.ndarray

    def _item_scores(self, train: Ratings) -> np.ndarray:
        raise NotImplementedError

    def _fit(self, train: Ratings) -> None:
        self.item_scores_ = np.asarray(self._item_scores(train), dtype=np.float64)

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return np.broadcast_to(self.item_scores_, (len(users), self.n_items)).copy()

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        users, items = self._check(users, items)
        return self.item_scores_[items]


class Popularity(ItemScores):
    """Score of item ``i`` = its number of training ratings, the same for every user.

    With ``positive_only=True`` only positive training ratings
    (``value >= positive_threshold``) are counted.
    """

    name = "Popularity"

    def __init__(self, positive_only: bool = False, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.positive_only = positive_only

    def uses_positive_threshold(self) -> bool:
        return self.positive_only

    def _item_scores(self, train: Ratings) -> np.ndarray:
        return train.item_counts(positive_only=self.positive_only)


class MeanRating(ItemScores):
    """Score of item ``i`` = its mean training rating, shrunk towards the global mean:
    ``(sum_u r_ui + k mu) / (|R_train(i)| + k)`` with ``k = shrinkage`` pseudo-ratings.

    ``k = 0`` is the plain mean; items without training ratings score ``mu``.
    """

    name = "Mean rating"

    def __init__(self, shrinkage: float = 0.0, seed: int = 0) -> None:
        super().__init__(seed=seed)
        if not shrinkage >= 0:
            raise ValueError(f"MeanRating: shrinkage must be non-negative, got {shrinkage!r}")
        self.shrinkage = float(shrinkage)

    def uses_positive_threshold(self) -> bool:
        return False

    def _item_scores(self, train: Ratings) -> np.ndarray:
        counts = train.item_counts().astype(np.float64)
        sums = np.bincount(train.items, weights=train.values, minlength=train.n_items)
        mu = float(train.values.mean()) if train.n_ratings else 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (sums + self.shrinkage * mu) / (counts + self.shrinkage)
        return np.where(counts + self.shrinkage > 0, means, mu)


class HeldOutPopularity(ItemScores):
    """Score of item ``i`` = ``|PR_test(i)|``, its number of positive ratings in ``held_out``.

    The best non-personalised ordering of a test set in hindsight (IRJ 2017 Sec. 5.1):
    it ignores the training ratings and reads the very ratings it is judged on.  Its
    constructor holds data, so fit it directly rather than through the fit cache.
    """

    name = "Test-set oracle"

    def __init__(self, held_out: Ratings, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.held_out = held_out

    def _item_scores(self, train: Ratings) -> np.ndarray:
        if train.shape != self.held_out.shape:
            raise ValueError(f"{self.name}: held-out ratings have shape {self.held_out.shape}, training {train.shape}")
        return self.held_out.item_counts(positive_only=True)

"""A personalised recommender pulled towards popularity by a chosen weight.

Scores on different scales cannot be mixed directly, so both systems' scores are
turned into per-user percentile ranks over the catalogue first:

.. math::  s_\\lambda(u, i) = \\lambda\\, q_\\text{pop}(i) + (1 - \\lambda)\\, q_\\text{base}(u, i),

with :math:`q(u, i) = \\operatorname{rank}_u(i) / (|I| - 1)` in ``[0, 1]`` (1 for the item
scored highest; ties share their average rank).  ``weight = 0`` is the base system,
``weight = 1`` popularity; the values in between span systems that rely on
popularity to a known degree, which is what a test of evaluation protocols needs.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.recommenders.factory import make


def percentile_ranks(scores: np.ndarray) -> np.ndarray:
    """Row-wise ranks of ``scores`` scaled to ``[0, 1]`` (ties share their average rank)."""
    scores = np.atleast_2d(scores)
    n = scores.shape[1]
    return (rankdata(scores, axis=1, method="average") - 1.0) / max(n - 1, 1)


class PopularityBlend(Recommender):
    """``weight`` x popularity rank + (1 - ``weight``) x the rank given by preset ``base``.

    ``base`` is a preset name of :func:`recbias.recommenders.make` (``"mf"``, ``"plsa"``, ...).
    """

    name = "blend"

    def __init__(self, base: str = "mf", weight: float = 0.5, seed: int = 0) -> None:
        super().__init__(seed=seed)
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"PopularityBlend: weight must lie in [0, 1], got {weight!r}")
        self.base = base
        self.weight = float(weight)

    def _fit(self, train: Ratings) -> None:
        self.base_ = make(self.base, seed=self.seed).fit(train)
        self.popularity_ = percentile_ranks(train.item_counts().astype(np.float64))[0]

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        personal = percentile_ranks(self.base_.score_users(users))
        return self.weight * self.popularity_[None, :] + (1.0 - self.weight) * personal

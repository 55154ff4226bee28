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

from typing import Self

import numpy as np
from numba import njit, prange

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.recommenders.factory import make


@njit(cache=True, nogil=True, parallel=True)
def _average_ranks(scores: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Row-wise ranks ``1..n`` of ``scores`` from an ascending ``order`` of each row, tied entries
    sharing the mean of their ranks."""
    out = np.empty(scores.shape, np.float64)
    n = scores.shape[1]
    for row in prange(scores.shape[0]):
        values, ranked = scores[row], order[row]
        first = 0
        while first < n:
            last = first
            while last + 1 < n and values[ranked[last + 1]] == values[ranked[first]]:
                last += 1
            rank = 0.5 * (first + last) + 1.0
            for k in range(first, last + 1):
                out[row, ranked[k]] = rank
            first = last + 1
    return out


def percentile_ranks(scores: np.ndarray) -> np.ndarray:
    """Row-wise ranks of ``scores`` scaled to ``[0, 1]`` (ties share their average rank, as
    ``scipy.stats.rankdata(method="average")`` gives them)."""
    scores = np.ascontiguousarray(np.atleast_2d(scores), dtype=np.float64)
    if np.isnan(scores).any():
        raise ValueError("percentile ranks of NaN scores are undefined")
    ranks = _average_ranks(scores, np.argsort(scores, axis=1))
    return (ranks - 1.0) / max(scores.shape[1] - 1, 1)


#: entries (users x items) of a base's percentile ranks that :class:`BaseRanks` keeps (268 MB of float64)
BASE_RANKS_BUDGET = 1 << 25


class BaseRanks:
    """The percentile ranks of a fitted base's scores, kept for the blends of several weights built on it.

    Blends on one base score the same chunks of users one blend after the other, so each chunk's
    ranks (:func:`percentile_ranks` of ``base.score_users``) are computed once and read again, up to
    ``budget`` entries in all; chunks beyond it are ranked at every call, so memory stays bounded.
    A copy (pickled, or sent to another process) starts empty.
    """

    def __init__(self, base: Recommender, budget: int = BASE_RANKS_BUDGET) -> None:
        self.base = base
        self.budget = int(budget)
        self._kept: dict[bytes, np.ndarray] = {}
        self._entries = 0

    @property
    def entries(self) -> int:
        """Entries (users x items) of the ranks kept."""
        return self._entries

    def of(self, users: np.ndarray) -> np.ndarray:
        """Percentile ranks of the base's scores of ``users`` (rows) over every item (read only when kept)."""
        key = np.ascontiguousarray(users, dtype=np.int64).tobytes()
        ranks = self._kept.get(key)
        if ranks is None:
            ranks = percentile_ranks(self.base.score_users(users))
            if self._entries + ranks.size <= self.budget:
                ranks.flags.writeable = False
                self._kept[key] = ranks
                self._entries += ranks.size
        return ranks

    def __getstate__(self) -> dict:
        return {"base": self.base, "budget": self.budget, "_kept": {}, "_entries": 0}


class PopularityBlend(Recommender):
    """``weight`` x popularity rank + (1 - ``weight``) x the rank given by preset ``base``.

    ``base`` is a preset name of :func:`recbias.recommenders.make` (``"mf"``, ``"plsa"``, ...).
    :meth:`fit_on` blends a base that is already fitted, so that blends of several weights and the
    base system itself share one fit.
    """

    name = "blend"

    def __init__(self, base: str = "mf", weight: float = 0.5, seed: int = 0) -> None:
        super().__init__(seed=seed)
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"PopularityBlend: weight must lie in [0, 1], got {weight!r}")
        self.base = base
        self.weight = float(weight)

    def _fit(self, train: Ratings) -> None:
        self._blend(train, make(self.base, seed=self.seed).fit(train))

    def fit_on(self, train: Ratings, base: Recommender, ranks: BaseRanks | None = None) -> Self:
        """Fit on ``train`` with ``base``, a fit of preset ``self.base`` (same seed) on the same ratings,
        in place of a fit of its own; the result is that of :meth:`fit`.  ``ranks``, the
        :class:`BaseRanks` of ``base``, lets blends of several weights rank its scores once."""
        expected = make(self.base, seed=self.seed)
        if type(base) is not type(expected) or base.seed != self.seed or (base.n_users, base.n_items) != train.shape:
            raise ValueError(f"PopularityBlend: the base must be a {type(expected).__name__} with seed {self.seed} "
                             f"fitted on ratings of shape {train.shape}")
        if ranks is not None and ranks.base is not base:
            raise ValueError("PopularityBlend: ranks must be the BaseRanks of the base given")
        self.n_users, self.n_items = train.shape
        self._blend(train, base, ranks)
        return self

    def _blend(self, train: Ratings, base: Recommender, ranks: BaseRanks | None = None) -> None:
        self.base_ = base
        self.base_ranks_ = ranks if ranks is not None else BaseRanks(base, budget=0)
        self.popularity_ = percentile_ranks(train.item_counts().astype(np.float64))[0]

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        personal = self.base_ranks_.of(users)
        return self.weight * self.popularity_[None, :] + (1.0 - self.weight) * personal

"""The one interface every recommender implements."""

from __future__ import annotations

import json
import os
import time
from abc import ABC, abstractmethod
from typing import ClassVar, Self

import numpy as np

from recbias.ratings import Ratings
from recbias.recommenders._pairs import BLOCK_BUDGET

#: a file that, when this names one, receives a JSON line per fit made: the system's name and class, its
#: training ratings and the processor seconds of the fit (all threads); ``benchmarks/bench_book.py`` reads
#: it to say where a build's fitting time goes
FIT_LOG_VARIABLE = "RECBIAS_FIT_LOG"


class Recommender(ABC):
    """Fit on training ratings, then score arbitrary (user, item) pairs.

    Subclasses implement :meth:`_fit` and :meth:`score_users`; pairwise
    :meth:`score` defaults to gathering from user blocks of bounded size and may be
    overridden with something cheaper.  Scores are ``float64``; higher means recommended
    earlier.  Codes outside the training code space raise ``ValueError``.
    """

    #: short name used in tables and figures
    name: str = "recommender"

    #: constructor parameters read only when scoring: recommenders that differ in these alone share
    #: one fit, and the fit cache keys and loads it without them (:func:`recbias.cache.fit_key`)
    scoring_parameters: ClassVar[tuple[str, ...]] = ()

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.n_users: int | None = None
        self.n_items: int | None = None

    def fit(self, train: Ratings) -> Self:
        """Learn from ``train``; returns ``self``."""
        self.n_users, self.n_items = train.shape
        started = time.process_time()
        self._fit(train)
        if log := os.environ.get(FIT_LOG_VARIABLE):
            self._log_fit(log, train.n_ratings, time.process_time() - started)
        return self

    def _log_fit(self, log: str, ratings: int, seconds: float) -> None:
        """Append this fit's line to the file ``log`` (:data:`FIT_LOG_VARIABLE`); a line that cannot be
        written is lost, never the fit."""
        line = json.dumps({"system": self.name, "class": type(self).__name__, "ratings": ratings, "cpu": seconds})
        try:
            with open(log, "a") as handle:
                handle.write(line + "\n")
        except OSError:
            pass

    @abstractmethod
    def _fit(self, train: Ratings) -> None: ...

    def uses_positive_threshold(self) -> bool:
        """Whether the fit reads which training ratings are positive.  A fit that does not is the same
        for rating sets that differ only in their positive threshold, and the fit cache shares it
        between them (:func:`recbias.cache.fit_key`); a recommender that does not say is taken to read it."""
        return True

    @abstractmethod
    def score_users(self, users: np.ndarray) -> np.ndarray:
        """Dense ``len(users) x n_items`` block of scores."""

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Scores of the pairs ``(users[k], items[k])``, read from :meth:`score_users` blocks of at most
        :data:`~recbias.recommenders._pairs.BLOCK_BUDGET` entries."""
        users, items = self._check(users, items)
        unique, inverse = np.unique(users, return_inverse=True)
        rows = max(1, BLOCK_BUDGET // max(1, self.n_items))
        order = np.argsort(inverse, kind="stable")
        starts = np.arange(0, len(unique), rows)
        bounds = np.searchsorted(inverse[order], np.append(starts, len(unique)))
        out = np.empty(len(users))
        for start, low, high in zip(starts, bounds[:-1], bounds[1:], strict=True):
            pairs = order[low:high]
            out[pairs] = self.score_users(unique[start : start + rows])[inverse[pairs] - start, items[pairs]]
        return out

    def _check(self, users: np.ndarray, items: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        if self.n_users is None:
            raise RuntimeError(f"{self.name}: call fit() before scoring")
        users = np.asarray(users, dtype=np.int64)
        if users.size and (users.min() < 0 or users.max() >= self.n_users):
            raise ValueError(f"{self.name}: user codes must lie in [0, {self.n_users}) as in training")
        if items is None:
            return users, np.empty(0, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        if items.shape != users.shape:
            raise ValueError(
                f"{self.name}: users and items must have the same shape, got {users.shape} and {items.shape}"
            )
        if items.size and (items.min() < 0 or items.max() >= self.n_items):
            raise ValueError(f"{self.name}: item codes must lie in [0, {self.n_items}) as in training")
        return users, items

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

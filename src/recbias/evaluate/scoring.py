"""Scores of the candidates of runs, computed once per user whatever the number of designs.

Two ways in, one per recommender API: :class:`Candidates` gathers from dense
``chunk x n_items`` blocks of :meth:`Recommender.score_users`, so the candidates
of every design of a fold are scored with one block per chunk of users (the
fast path when runs hold many candidates per user); :func:`score_runs` asks
:meth:`Recommender.score` for the (user, item) pairs of one runs object.
Both return one score per candidate, aligned with ``runs.items``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recbias.recommenders.base import Recommender
from recbias.runs import Runs

#: entries of one dense score block (users x items) when none is given
SCORE_BLOCK = 1 << 22


class Candidates:
    """Every candidate of several runs objects, grouped by user once for all recommenders.

    The grouping (a stable sort of the candidates by user) is done when the object is
    built; :meth:`score` then costs one :meth:`Recommender.score_users` call per chunk of
    at most ``block // n_items`` users and one gather of the candidates' scores, for
    any number of runs objects sharing those users.
    """

    def __init__(self, runs_list: Sequence[Runs], block: int = SCORE_BLOCK) -> None:
        if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
            raise ValueError(f"block must be a positive integer, got {block!r}")
        self.block = int(block)
        self.sizes = [len(runs.items) for runs in runs_list]
        users = np.concatenate([np.repeat(r.users.astype(np.int64), r.sizes) for r in runs_list] or [np.zeros(0, int)])
        items = np.concatenate([r.items.astype(np.int64) for r in runs_list] or [np.zeros(0, int)])
        self.order = np.argsort(users, kind="stable")
        sorted_users = users[self.order]
        self.items = items[self.order]
        first = np.flatnonzero(np.diff(sorted_users, prepend=-1))
        self.users = sorted_users[first]
        self.user_index = np.repeat(np.arange(len(first)), np.diff(np.append(first, len(sorted_users))))
        self.first = np.append(first, len(sorted_users))

    def score(self, recommender: Recommender) -> list[np.ndarray]:
        """Scores of every candidate of every runs object by a fitted ``recommender``."""
        if recommender.n_items is None:
            raise RuntimeError(f"{recommender.name}: fit before scoring")
        by_user = np.empty(len(self.items), dtype=np.float64)
        step = max(1, self.block // max(1, recommender.n_items))
        for start in range(0, len(self.users), step):
            stop = min(start + step, len(self.users))
            scores = np.asarray(recommender.score_users(self.users[start:stop]), dtype=np.float64)
            low, high = self.first[start], self.first[stop]
            by_user[low:high] = scores[self.user_index[low:high] - start, self.items[low:high]]
        out = np.empty_like(by_user)
        out[self.order] = by_user
        return np.split(out, np.cumsum(self.sizes)[:-1])


def score_runs(recommender: Recommender, runs: Runs) -> np.ndarray:
    """Scores of every candidate of ``runs`` from :meth:`Recommender.score`, aligned with ``runs.items``."""
    return recommender.score(np.repeat(runs.users, runs.sizes), runs.items)

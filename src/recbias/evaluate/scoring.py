"""Scores of the candidates of runs, computed once per user whatever the number of designs.

Two ways in, one per recommender API: :class:`Candidates` gathers from dense
``chunk x n_items`` blocks of :meth:`~recbias.recommenders.Recommender.score_users`, so the candidates
of every design of a fold are scored with one block per chunk of users (the
fast path when runs hold many candidates per user); :func:`score_runs` asks
:meth:`~recbias.recommenders.Recommender.score` for the (user, item) pairs of one runs object.
Both return one score per candidate, aligned with ``runs.items``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
from numba import njit, prange

from recbias.recommenders.base import Recommender
from recbias.runs import Runs

#: entries of one dense score block (users x items) when none is given
SCORE_BLOCK = 1 << 22

#: what reads whole score blocks beside the candidates: ``reader(users, block)`` with the block's user codes
#: and their dense scores of every item (read only: other readers see the same block)
BlockReader = Callable[[np.ndarray, np.ndarray], None]


def score_rows(n_items: int, block: int = SCORE_BLOCK) -> int:
    """Users per dense score block of ``block`` entries over ``n_items`` items (at least one)."""
    return max(1, block // max(1, n_items))


def score_blocks(recommender: Recommender, users: np.ndarray, rows: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, block)`` for consecutive chunks ``users[start:start + rows]``: the chunk's dense
    ``float64`` scores of every item, the one way every evaluation reads a recommender in blocks."""
    if recommender.n_items is None:
        raise RuntimeError(f"{recommender.name}: fit before scoring")
    for start in range(0, len(users), rows):
        chunk = users[start : start + rows]
        block = np.ascontiguousarray(recommender.score_users(chunk), dtype=np.float64)
        if block.shape != (len(chunk), recommender.n_items):
            raise ValueError(
                f"{recommender.name}.score_users returned {block.shape}, expected {(len(chunk), recommender.n_items)}"
            )
        yield start, block


@njit(cache=True, nogil=True, parallel=True)
def _gather(
    block: np.ndarray, first_user: int, runs: np.ndarray, rows: np.ndarray, offsets: np.ndarray, items: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[e] = block[rows[k] - first_user, items[e]]`` for every entry ``e`` of run ``runs[k]``."""
    for k in prange(runs.shape[0]):
        start, stop = offsets[runs[k]], offsets[runs[k] + 1]
        source, chosen, target = block[rows[k] - first_user], items[start:stop], out[start:stop]
        for entry in range(stop - start):  # on slices: numba vectorises the gather (3.6 times faster)
            target[entry] = source[chosen[entry]]


class Candidates:
    """Every candidate of several runs objects, scored with one dense block per chunk of users.

    Building the object orders the *runs* of each runs object by user (a sort of the runs,
    not of their candidates); :meth:`score` then costs one :meth:`~recbias.recommenders.Recommender.score_users`
    call per chunk of at most ``block // n_items`` users and one compiled gather of the
    candidates' scores from that block, for any number of runs objects sharing those users.
    ``users`` adds users without runs whose blocks a reader of :meth:`score` needs (e.g. the
    complete relevance of :class:`recbias.evaluate.complete.TrueQuality`), so that a fold is scored
    once for every use.
    """

    def __init__(self, runs_list: Sequence[Runs], block: int = SCORE_BLOCK, users: np.ndarray | None = None) -> None:
        if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
            raise ValueError(f"block must be a positive integer, got {block!r}")
        self.block = int(block)
        self.runs_list = list(runs_list)
        extra = np.zeros(0, np.int64) if users is None else np.asarray(users, dtype=np.int64)
        self.users = np.unique(np.concatenate([r.users for r in self.runs_list] + [extra]))
        self.run_order = [np.argsort(r.users, kind="stable") for r in self.runs_list]
        #: per runs object, the index in ``users`` of each run's user, in ``run_order``
        self.user_rows = [np.searchsorted(self.users, r.users[o]) for r, o in zip(self.runs_list, self.run_order)]
        self.items_above = max((int(r.items.max()) + 1 for r in self.runs_list if len(r.items)), default=0)

    def score(
        self, recommender: Recommender, readers: Sequence[BlockReader] = (), out: Sequence[np.ndarray] | None = None
    ) -> list[np.ndarray]:
        """Scores of every candidate of every runs object by a fitted ``recommender``; each of ``readers``
        also reads every dense block, after the candidates were gathered from it.  ``out`` receives the
        scores instead of new arrays (e.g. the arrays of the previous system once it was evaluated, which
        spares the allocation of runs of every item, system after system)."""
        if recommender.n_items is None:
            raise RuntimeError(f"{recommender.name}: fit before scoring")
        if self.items_above > recommender.n_items or (len(self.users) and self.users[-1] >= recommender.n_users):
            raise ValueError(f"the runs hold users or items outside the code space {recommender.name} was fitted on")
        if out is None:
            out = [np.empty(len(r.items), dtype=np.float64) for r in self.runs_list]
        elif ([a.shape for a in out] != [(len(r.items),) for r in self.runs_list]
              or any(a.dtype != np.float64 for a in out)):
            raise ValueError("out must hold one float64 array per runs object, as long as its candidates")
        out = list(out)
        step = score_rows(recommender.n_items, self.block)
        for start, block in score_blocks(recommender, self.users, step):
            stop = start + len(block)
            for runs, order, rows, scores in zip(self.runs_list, self.run_order, self.user_rows, out, strict=True):
                low, high = np.searchsorted(rows, [start, stop])
                _gather(block, start, order[low:high], rows[low:high], runs.offsets, runs.items, scores)
            for reader in readers:
                reader(self.users[start:stop], block)
        return out


def score_runs(recommender: Recommender, runs: Runs) -> np.ndarray:
    """Scores of every candidate of ``runs`` from :meth:`~recbias.recommenders.Recommender.score`, aligned with
    ``runs.items``."""
    return recommender.score(np.repeat(runs.users, runs.sizes), runs.items)

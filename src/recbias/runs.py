"""The compact array form of many evaluation runs.

A *run* is what one ranking is evaluated on: a user, the target set ``T_u``
(the candidate items the recommender must rank) and the relevance of each
candidate.  Millions of runs are stored as flat arrays with CSR-like offsets:
run ``k`` owns the slice ``offsets[k]:offsets[k + 1]`` of ``items``, ``labels``
and ``grades``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True, eq=False)
class Runs:
    """Target sets of many runs in flat arrays.

    Attributes:
        offsets: ``int64`` array of length ``n_runs + 1``, ``offsets[0] == 0``, non-decreasing.
        users: user code of each run.
        items: candidate item codes, run after run.
        labels: ``True`` where the candidate is relevant for the run's user.
        grades: graded relevance of each candidate (the test rating for relevant
            items, ``0`` otherwise), used by graded metrics such as nDCG.
        judged: ``True`` where the candidate has a test rating (relevant or not);
            bpref and infAP treat judged non-relevant and unjudged items differently.
        n_relevant: the recall and AP denominator: the relevant items the run's user
            has in the test set (AR, where some may fall outside a truncated run), or 1
            for a one-relevant-item run (1R).
        groups: an integer group per run (the popularity percentile in P1R), or ``-1``.
        design: name of the design that built the runs (``"TI-AN"``, ``"1R TI-NN(100)"``, ...).
    """

    offsets: np.ndarray
    users: np.ndarray
    items: np.ndarray
    labels: np.ndarray
    grades: np.ndarray
    judged: np.ndarray
    n_relevant: np.ndarray
    groups: np.ndarray
    design: str = ""

    def __post_init__(self) -> None:
        n_runs = len(self.offsets) - 1
        if n_runs < 0 or self.offsets[0] != 0 or np.any(np.diff(self.offsets) < 0):
            raise ValueError("offsets must start at 0 and be non-decreasing")
        n_entries = int(self.offsets[-1])
        for label, column, expected in (
            ("users", self.users, n_runs),
            ("n_relevant", self.n_relevant, n_runs),
            ("groups", self.groups, n_runs),
            ("items", self.items, n_entries),
            ("labels", self.labels, n_entries),
            ("grades", self.grades, n_entries),
            ("judged", self.judged, n_entries),
        ):
            if len(column) != expected:
                raise ValueError(f"Runs.{label} has {len(column)} entries, expected {expected}")

    @classmethod
    def from_arrays(
        cls,
        offsets: np.ndarray,
        users: np.ndarray,
        items: np.ndarray,
        labels: np.ndarray,
        grades: np.ndarray | None = None,
        judged: np.ndarray | None = None,
        n_relevant: np.ndarray | None = None,
        groups: np.ndarray | None = None,
        design: str = "",
    ) -> Runs:
        """Build runs with dtypes normalised and defaults filled in.

        ``grades`` defaults to the labels as 0/1 gains, ``judged`` to the labels,
        ``n_relevant`` to the
        number of relevant candidates in each run, ``groups`` to ``-1``.
        """
        offsets = np.asarray(offsets, dtype=np.int64)
        labels = np.asarray(labels, dtype=bool)
        n_runs = len(offsets) - 1
        if n_relevant is None:
            run_of_entry = np.repeat(np.arange(n_runs), np.diff(offsets))
            n_relevant = np.bincount(run_of_entry, weights=labels, minlength=n_runs)
        return cls(
            offsets=offsets,
            users=np.asarray(users, dtype=np.int32),
            items=np.asarray(items, dtype=np.int32),
            labels=labels,
            grades=labels.astype(np.float64) if grades is None else np.asarray(grades, dtype=np.float64),
            judged=labels.copy() if judged is None else np.asarray(judged, dtype=bool),
            n_relevant=np.asarray(n_relevant, dtype=np.int64),
            groups=np.full(n_runs, -1, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64),
            design=design,
        )

    @property
    def n_runs(self) -> int:
        return len(self.offsets) - 1

    @property
    def sizes(self) -> np.ndarray:
        """Number of candidates ``|T_u|`` in each run."""
        return np.diff(self.offsets)

    @cached_property
    def marked_entries(self) -> np.ndarray:
        """Flat indices of the relevant, judged or graded entries: those whose positions a :class:`Ranking`
        records (computed once, however many systems rank these runs)."""
        return np.flatnonzero(self.labels | self.judged | (self.grades != 0))

    @cached_property
    def run_of_marked(self) -> np.ndarray:
        """The run of each of :attr:`marked_entries`."""
        return np.searchsorted(self.offsets, self.marked_entries, side="right") - 1

    @property
    def run_of_entry(self) -> np.ndarray:
        """Run index of every flat entry (``len(items)`` values)."""
        return np.repeat(np.arange(self.n_runs), self.sizes)

    def subset(self, keep: np.ndarray) -> Runs:
        """The runs selected by the boolean mask ``keep`` (one entry per run), whole and in their order."""
        keep = np.asarray(keep, dtype=bool)
        if len(keep) != self.n_runs:
            raise ValueError(f"keep has {len(keep)} entries for {self.n_runs} runs")
        entries = np.repeat(keep, self.sizes)
        return Runs.from_arrays(
            offsets=np.concatenate([[0], np.cumsum(self.sizes[keep])]),
            users=self.users[keep],
            items=self.items[entries],
            labels=self.labels[entries],
            grades=self.grades[entries],
            judged=self.judged[entries],
            n_relevant=self.n_relevant[keep],
            groups=self.groups[keep],
            design=self.design,
        )

    def block(self, start: int, stop: int) -> Runs:
        """Runs ``start .. stop - 1`` as views of these arrays (no copy), offsets counted from 0."""
        if not 0 <= start <= stop <= self.n_runs:
            raise ValueError(f"block [{start}, {stop}) outside the {self.n_runs} runs")
        first, last = int(self.offsets[start]), int(self.offsets[stop])
        return Runs(
            offsets=self.offsets[start : stop + 1] - first,
            users=self.users[start:stop],
            items=self.items[first:last],
            labels=self.labels[first:last],
            grades=self.grades[first:last],
            judged=self.judged[first:last],
            n_relevant=self.n_relevant[start:stop],
            groups=self.groups[start:stop],
            design=self.design,
        )

    def __len__(self) -> int:
        return self.n_runs

    def __repr__(self) -> str:
        return (
            f"Runs(design={self.design!r}, runs={self.n_runs:,}, candidates={len(self.items):,}, "
            f"relevant={int(self.labels.sum()):,})"
        )


@dataclass(frozen=True, eq=False)
class Ranking:
    """Where the entries that metrics read sit in each run's ranking.

    Every per-run metric depends only on the positions of a run's *marked*
    entries (relevant, judged or graded); only top-n list metrics (novelty,
    coverage) need the items at the top.  Storing these positions instead of the
    whole order costs ``O(marked x |T_u|)`` comparisons per run instead of a sort
    of every candidate, the difference between seconds and minutes on all-items
    designs at MovieLens 1M scale.

    Attributes:
        runs: the runs, candidates in any order.
        marked: sorted flat indices of every entry that is relevant, judged or has a
            non-zero grade.
        positions: 0-based position of each marked entry within its run's ranking.
        top_entries: ``n ->`` flat indices of the first ``min(n, |T_u|)`` entries of
            every run, run after run, in rank order.
    """

    runs: Runs
    marked: np.ndarray
    positions: np.ndarray
    top_entries: Callable[[int], np.ndarray]

    @classmethod
    def in_order(cls, runs: Runs) -> Ranking:
        """The ranking of runs whose candidates are already in rank order."""
        marked, run_of_marked = runs.marked_entries, runs.run_of_marked

        def top_entries(n: int) -> np.ndarray:
            counts = np.minimum(runs.sizes, n)
            run = np.repeat(np.arange(runs.n_runs), counts)
            return runs.offsets[:-1][run] + np.arange(len(run)) - (np.cumsum(counts) - counts)[run]

        return cls(runs, marked, marked - runs.offsets[run_of_marked], top_entries)

"""Per-entry quantities of ranked runs that several metrics share.

Almost every metric only needs to know *where the relevant entries are*: their
run, their 0-based position and how many relevant entries sit at or above
them.  :class:`RankedView` computes those sparse index sets once (lazily) from
a :class:`~recbias.runs.Ranking` (or from runs already in rank order), so that
many metrics evaluated on the same ranking share the work, and no per-entry
array over all candidates is materialised unless a metric needs it.

Positions are expressed as *ranked flat indices* ``offsets[run] + position``:
the flat index an entry would have if each run were sorted.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from recbias.runs import Ranking, Runs
#: stands for "no cutoff" in comparisons with positions
UNTRUNCATED = np.iinfo(np.int64).max


def check_cutoff(n: int | None, optional: bool = False) -> int:
    """Return ``n`` as a positive ``int``; ``None`` means untruncated where ``optional``."""
    if n is None and optional:
        return UNTRUNCATED
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"cutoff n must be a positive integer{' or None' if optional else ''}, got {n!r}")
    return int(n)


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with ``0`` wherever the denominator is ``0``.

    This is trec_eval's convention: a query with nothing to normalise by scores
    0 and still counts in the mean.
    """
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.float64), numerator.shape)
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


class RankedView:
    """Lazily computed index sets of a ranking.

    Attributes (all cached on first use; entries are ranked flat indices):
        relevant: ranked flat indices of relevant entries, in order.
        relevant_items: item code of each relevant entry.
        relevant_grades: grade of each relevant entry.
        relevant_run: run of each relevant entry.
        relevant_position: 0-based position of each relevant entry in its run.
        relevant_through: relevant entries at or above each relevant entry in its
            run (1 for the first relevant entry of a run).
        relevant_in_run: relevant candidates per run.
        judged_nonrelevant: ranked flat indices of judged entries that are not relevant.
        graded, grades: ranked flat indices of entries with a positive grade, and the grades.

    Reading ``relevant_run`` checks that no run has more relevant candidates than
    its ``n_relevant``.
    """

    def __init__(self, ranked: Runs | Ranking) -> None:
        self.ranking = ranked if isinstance(ranked, Ranking) else Ranking.in_order(ranked)
        self.runs = self.ranking.runs
        self.n_runs = self.runs.n_runs
        self.offsets = self.runs.offsets
        self.sizes = self.runs.sizes
        self.n_relevant = self.runs.n_relevant

    # ---------------------------------------------------------------- helpers
    def run_of(self, entries: np.ndarray) -> np.ndarray:
        """Run index of the given (sorted or not) flat entry indices."""
        return np.searchsorted(self.offsets, entries, side="right") - 1

    def per_run(self, runs_of_values: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        """Sum ``values`` (or count entries) per run, ``0`` for runs with none."""
        return np.bincount(runs_of_values, weights=values, minlength=self.n_runs).astype(np.float64)

    def count_above(self, marked: np.ndarray, entries: np.ndarray, entry_runs: np.ndarray) -> np.ndarray:
        """How many of the sorted ranked indices ``marked`` lie above each entry in its own run."""
        return np.searchsorted(marked, entries) - np.searchsorted(marked, self.offsets[entry_runs])

    def top_items(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Items of the first ``min(n, |T_u|)`` entries of every run, and their runs."""
        entries = self.ranking.top_entries(n)
        return self.runs.items[entries], self.run_of(entries)

    # ------------------------------------------------------- marked entries
    @cached_property
    def _marked(self) -> tuple[np.ndarray, np.ndarray]:
        """Marked entries sorted by rank: their original flat indices and ranked flat indices."""
        marked = self.ranking.marked
        ranked = self.offsets[self.run_of(marked)] + self.ranking.positions
        order = np.argsort(ranked, kind="stable")
        return marked[order], ranked[order]

    def _select(self, mask_of_entries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Original and ranked flat indices of the marked entries where ``mask_of_entries`` holds."""
        original, ranked = self._marked
        keep = mask_of_entries[original]
        return original[keep], ranked[keep]

    @cached_property
    def _relevant(self) -> tuple[np.ndarray, np.ndarray]:
        return self._select(self.runs.labels)

    @cached_property
    def relevant(self) -> np.ndarray:
        return self._relevant[1]

    @cached_property
    def relevant_items(self) -> np.ndarray:
        return self.runs.items[self._relevant[0]]

    @cached_property
    def relevant_grades(self) -> np.ndarray:
        return self.runs.grades[self._relevant[0]]

    @cached_property
    def relevant_run(self) -> np.ndarray:
        run = self.run_of(self.relevant)
        short = np.flatnonzero(np.bincount(run, minlength=self.n_runs) > self.n_relevant)
        if short.size:
            k = int(short[0])
            raise ValueError(
                f"run {k} has more relevant candidates than n_relevant = {self.n_relevant[k]}; "
                "n_relevant must count every relevant test item of the user"
            )
        return run

    @cached_property
    def relevant_position(self) -> np.ndarray:
        return self.relevant - self.offsets[self.relevant_run]

    @cached_property
    def relevant_in_run(self) -> np.ndarray:
        return np.bincount(self.relevant_run, minlength=self.n_runs)

    @cached_property
    def relevant_through(self) -> np.ndarray:
        first = np.cumsum(self.relevant_in_run) - self.relevant_in_run
        return np.arange(len(self.relevant)) - first[self.relevant_run] + 1

    @cached_property
    def judged_nonrelevant(self) -> np.ndarray:
        """Ranked flat indices of judged entries that are not relevant."""
        return self._select(self.runs.judged & ~self.runs.labels)[1]

    @cached_property
    def _graded(self) -> tuple[np.ndarray, np.ndarray]:
        return self._select(self.runs.grades > 0)

    @cached_property
    def graded(self) -> np.ndarray:
        return self._graded[1]

    @cached_property
    def grades(self) -> np.ndarray:
        return self.runs.grades[self._graded[0]]

    # ---------------------------------------------------------- common counts
    def hits(self, n: int) -> np.ndarray:
        """Relevant entries among the top ``n`` of each run."""
        top = self.relevant_position < n
        return self.per_run(self.relevant_run[top])


#: what every metric accepts: a ranking, runs already in rank order, or a shared view of either
Ranked = Runs | Ranking | RankedView


def as_view(runs: Ranked) -> RankedView:
    """Wrap a ranking, or runs in rank order, in a :class:`RankedView` (a view is returned unchanged)."""
    if isinstance(runs, RankedView):
        return runs
    if not isinstance(runs, (Runs, Ranking)):
        raise TypeError(f"expected a Ranking or Runs in rank order, got {type(runs).__name__}")
    return RankedView(runs)

"""Per-entry quantities of ranked runs that several metrics share.

Metrics read runs whose entries are already in rank order (position 0 is the
top of each run).  Almost every metric only needs to know *where the relevant
entries are*: their run, their 0-based position and how many relevant entries
sit at or above them.  :class:`RankedView` computes those sparse index sets once
(lazily) so that many metrics evaluated on the same runs share the work, and no
per-entry array over all candidates is materialised unless a metric needs it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from recbias.runs import Runs

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
    """Lazily computed index sets of runs in rank order.

    Attributes (all cached on first use):
        relevant: flat indices of relevant entries (``labels``), in order.
        relevant_run: run of each relevant entry.
        relevant_position: 0-based position of each relevant entry in its run.
        relevant_through: relevant entries at or above each relevant entry in its
            run (1 for the first relevant entry of a run).
        relevant_in_run: relevant candidates per run.
        judged_nonrelevant: flat indices of judged entries that are not relevant.

    Reading ``relevant_run`` checks that no run has more relevant candidates than
    its ``n_relevant``.
    """

    def __init__(self, runs: Runs) -> None:
        self.runs = runs
        self.n_runs = runs.n_runs
        self.offsets = runs.offsets
        self.sizes = runs.sizes
        self.n_relevant = runs.n_relevant

    # ---------------------------------------------------------------- helpers
    def run_of(self, entries: np.ndarray) -> np.ndarray:
        """Run index of the given (sorted or not) flat entry indices."""
        return np.searchsorted(self.offsets, entries, side="right") - 1

    def per_run(self, runs_of_values: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        """Sum ``values`` (or count entries) per run, ``0`` for runs with none."""
        return np.bincount(runs_of_values, weights=values, minlength=self.n_runs).astype(np.float64)

    def count_above(self, marked: np.ndarray, entries: np.ndarray, entry_runs: np.ndarray) -> np.ndarray:
        """How many of the sorted flat indices ``marked`` lie above each entry in its own run."""
        return np.searchsorted(marked, entries) - np.searchsorted(marked, self.offsets[entry_runs])

    def top_entries(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Flat indices of the first ``min(n, |T_u|)`` entries of every run, and their runs."""
        counts = np.minimum(self.sizes, n)
        runs = np.repeat(np.arange(self.n_runs), counts)
        starts = np.cumsum(counts) - counts
        entries = self.offsets[:-1][runs] + (np.arange(len(runs)) - starts[runs])
        return entries, runs

    # ------------------------------------------------------- relevant entries
    @cached_property
    def relevant(self) -> np.ndarray:
        return np.flatnonzero(self.runs.labels)

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
        """Flat indices of judged entries that are not relevant."""
        return np.flatnonzero(self.runs.judged & ~self.runs.labels)

    # ---------------------------------------------------------- common counts
    def hits(self, n: int) -> np.ndarray:
        """Relevant entries among the top ``n`` of each run."""
        top = self.relevant_position < n
        return self.per_run(self.relevant_run[top])


def as_view(runs: Runs | RankedView) -> RankedView:
    """Wrap ``runs`` in a :class:`RankedView` (a view is returned unchanged)."""
    if isinstance(runs, RankedView):
        return runs
    if not isinstance(runs, Runs):
        raise TypeError(f"expected Runs in rank order, got {type(runs).__name__}")
    return RankedView(runs)

"""From scores to runs in rank order, with an explicit policy for tied scores.

Ties are not a detail: a Random recommender with constant scores, or a
Popularity recommender whose candidates share a count, is judged entirely by
how its ties are broken.  Policies:

* ``"random"`` (default): tied candidates in a uniformly random order, drawn
  from ``numpy.random.default_rng(seed)``; the same scores and seed always give
  the same ranking;
* ``"optimistic"``: relevant candidates first among ties (higher grades first),
  the best case for the system;
* ``"pessimistic"``: relevant candidates last among ties (lower grades first),
  the worst case.

Within equal relevance the optimistic and pessimistic policies keep the input
order of the candidates.

Two outputs: :func:`rank_positions` gives the :class:`~recbias.runs.Ranking`
that metrics read, the position of every relevant, judged or graded candidate,
counted by a compiled kernel in ``O(marked x |T_u|)`` per run without sorting;
:func:`rank_runs` gives the whole order, for the rare reader that needs it.
Both place every candidate at the same position.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import numpy as np
from numba import njit, prange

from recbias.runs import Ranking, Runs

TiePolicy = Literal["random", "optimistic", "pessimistic"]
#: the policies for tied scores: a seeded random order, relevant candidates first (optimistic) or last (pessimistic)
TIE_POLICIES: tuple[str, ...] = ("random", "optimistic", "pessimistic")


def check_ties(ties: str, allowed: tuple[str, ...] = TIE_POLICIES) -> str:
    """Return ``ties`` if it is one of ``allowed``, else raise naming the valid policies."""
    if ties not in allowed:
        raise ValueError(f"unknown tie policy {ties!r}; use one of {', '.join(allowed)}")
    return ties


#: rows x width of one padded block sorted at a time (bounds the memory of rank_runs)
BLOCK_ENTRIES = 1 << 22


def tie_draws(seed: int, first_entry: int, count: int) -> np.ndarray:
    """Draws ``first_entry .. first_entry + count - 1`` of the uniform stream ``default_rng(seed).random``.

    The stream's generator (PCG64) is advanced past the first ``first_entry`` doubles (one
    64-bit output each), so a block of runs cut from a larger runs object gets exactly the
    draws the whole object would give its entries.
    """
    generator = np.random.default_rng(seed).bit_generator
    generator.advance(first_entry)
    return np.random.Generator(generator).random(count)


def _tie_keys(runs: Runs, ties: str, seed: int, first_entry: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Primary and secondary keys that order tied candidates (smaller first), then input order.

    ``"random"``: a uniform draw per candidate (:func:`tie_draws` from ``first_entry``);
    ``"optimistic"``: relevant first, then higher grades; ``"pessimistic"``: the reverse.
    """
    if ties == "random":
        return tie_draws(seed, first_entry, len(runs.items)), np.zeros(len(runs.items))
    sign = -1.0 if ties == "optimistic" else 1.0
    return sign * runs.labels.astype(np.float64), sign * runs.grades


class TieKeys:
    """The tie-break keys of one runs object (:func:`_tie_keys`), computed on first use and then kept: every
    system ranked on the same runs with the same policy and seed reads the same keys, drawn once.

    >>> runs = Runs.from_arrays(offsets=[0, 3], users=[0], items=[0, 1, 2], labels=[True, False, False])
    >>> keys = TieKeys(runs, "random", seed=1)
    >>> keys()[0] is keys()[0] and bool(np.array_equal(keys()[0], tie_draws(1, 0, 3)))
    True
    """

    def __init__(self, runs: Runs, ties: str, seed: int, first_entry: int = 0) -> None:
        self.runs, self.ties, self.seed, self.first_entry = runs, check_ties(ties), seed, first_entry
        self._keys: tuple[np.ndarray, np.ndarray] | None = None

    def __call__(self) -> tuple[np.ndarray, np.ndarray]:
        if self._keys is None:
            self._keys = _tie_keys(self.runs, self.ties, self.seed, self.first_entry)
        return self._keys

    def check(self, runs: Runs, ties: str, seed: int, first_entry: int) -> TieKeys:
        """These keys, after checking that they are those of ``runs`` ranked with ``ties``, ``seed`` and
        ``first_entry`` (as many candidates; under a policy that reads them, the same labels and grades)."""
        mine = self.runs
        reads_judgments = ties != "random"
        if ((self.ties, self.seed, self.first_entry) != (ties, seed, first_entry) or len(mine.items) != len(runs.items)
                or reads_judgments and (mine.labels is not runs.labels or mine.grades is not runs.grades)):
            raise ValueError("tie keys given for other runs, another tie policy, seed or first entry")
        return self


@njit(cache=True, nogil=True, parallel=True)
def _count_higher_and_tied(
    scores: np.ndarray, offsets: np.ndarray, targets: np.ndarray, target_runs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per target entry, the entries of its run with a higher score and the others with the same score."""
    higher = np.empty(targets.shape[0], np.int64)
    tied = np.empty(targets.shape[0], np.int64)
    for k in prange(targets.shape[0]):
        score = scores[targets[k]]
        run = scores[offsets[target_runs[k]] : offsets[target_runs[k] + 1]]
        n_higher = 0
        n_equal = 0
        for j in range(run.shape[0]):  # over a slice: numba vectorises it (4.7 times the indexed loop's speed)
            n_higher += run[j] > score
            n_equal += run[j] == score
        higher[k] = n_higher
        tied[k] = n_equal - 1
    return higher, tied


@njit(cache=True, nogil=True, parallel=True)
def _count_tied_before(
    scores: np.ndarray,
    offsets: np.ndarray,
    targets: np.ndarray,
    target_runs: np.ndarray,
    primary: np.ndarray,
    secondary: np.ndarray,
) -> np.ndarray:
    """Per target entry, the entries tied with it in score that come first: smaller primary
    key, then smaller secondary key, then smaller flat index."""
    before = np.zeros(targets.shape[0], np.int64)
    for k in prange(targets.shape[0]):
        start, stop = offsets[target_runs[k]], offsets[target_runs[k] + 1]
        position = targets[k] - start
        run, run_primary, run_secondary = scores[start:stop], primary[start:stop], secondary[start:stop]
        score, p, q = run[position], run_primary[position], run_secondary[position]
        count = 0
        for j in range(run.shape[0]):  # without branches, over slices: numba vectorises it (the entry is not earlier)
            earlier = (run_primary[j] < p) | (
                (run_primary[j] == p) & ((run_secondary[j] < q) | ((run_secondary[j] == q) & (j < position))))
            count += (run[j] == score) & earlier
        before[k] = count
    return before


@njit(cache=True, nogil=True)
def _nth_highest(scores: np.ndarray, offsets: np.ndarray, n: int) -> np.ndarray:
    """Per run, the ``n``-th highest score (``-inf`` for runs of at most ``n`` candidates)."""
    out = np.full(offsets.shape[0] - 1, -np.inf)
    for run in range(offsets.shape[0] - 1):
        if offsets[run + 1] - offsets[run] > n:
            out[run] = -np.partition(-scores[offsets[run] : offsets[run + 1]], n - 1)[n - 1]
    return out


def _order_within_runs(offsets: np.ndarray, scores: np.ndarray, primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """Flat entry order that sorts every run by decreasing score, ties by the keys, then input order.

    Runs are sorted as rows of padded blocks (runs of similar size together, padding
    <= the real entries, NaN padding sorting last), so each sort stays within one run.
    Rows without tied scores are sorted once; rows with ties are re-sorted with the
    tie-breaking keys (a stable sort, so input order comes last).
    """
    sizes = np.diff(offsets)
    order = np.empty(len(scores), dtype=np.int64)
    nonempty = np.flatnonzero(sizes > 0)
    size_class = np.ceil(np.log2(sizes[nonempty])).astype(np.int64)
    for width_class in np.unique(size_class):
        members = nonempty[size_class == width_class]
        width = int(sizes[members].max())
        columns = np.arange(width)
        rows_per_block = max(1, BLOCK_ENTRIES // width)
        for start in range(0, len(members), rows_per_block):
            block = members[start : start + rows_per_block]
            valid = columns < sizes[block][:, None]
            entries = np.where(valid, offsets[block][:, None] + columns, 0)
            negated = np.where(valid, -scores[entries], np.nan)
            row_order = np.argsort(negated, axis=1)
            ordered = np.take_along_axis(negated, row_order, axis=1)
            tied_rows = np.flatnonzero(np.any(ordered[:, 1:] == ordered[:, :-1], axis=1))
            if tied_rows.size:
                tied_entries = entries[tied_rows]
                keys = (secondary[tied_entries], primary[tied_entries], negated[tied_rows])
                row_order[tied_rows] = np.lexsort(keys, axis=1)
            sorted_entries = np.take_along_axis(entries, row_order, axis=1)
            order[entries[valid]] = sorted_entries[np.take_along_axis(valid, row_order, axis=1)]
    return order


def _checked_scores(runs: Runs, scores: np.ndarray, ties: str) -> np.ndarray:
    check_ties(ties)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != runs.items.shape:
        raise ValueError(f"scores has shape {scores.shape}, runs have {len(runs.items)} candidates")
    if np.isnan(scores).any():
        raise ValueError(f"{int(np.isnan(scores).sum())} scores are NaN; every candidate needs a score")
    return scores


def rank_runs(runs: Runs, scores: np.ndarray, ties: TiePolicy = "random", seed: int = 0, first_entry: int = 0) -> Runs:
    """The same runs with the candidates of each run sorted by decreasing score.

    ``scores`` is aligned with ``runs.items`` (see :mod:`recbias.evaluate.scoring`); NaN scores
    raise.  Ties between equal scores within a run are broken by ``ties``; ``first_entry`` says
    where ``runs`` starts within a larger runs object whose random tie-break they share.
    Each run is sorted on its own (``O(N log |T_u|)``); memory is bounded by
    :data:`BLOCK_ENTRIES` padded entries at a time.  Metrics need only
    :func:`rank_positions`, which is much faster on large runs.
    """
    scores = _checked_scores(runs, scores, ties)
    if scores.size == 0:
        return runs
    order = _order_within_runs(runs.offsets, scores, *_tie_keys(runs, ties, seed, first_entry))
    return replace(
        runs,
        items=runs.items[order],
        labels=runs.labels[order],
        grades=runs.grades[order],
        judged=runs.judged[order],
    )


def rank_positions(
    runs: Runs, scores: np.ndarray, ties: TiePolicy = "random", seed: int = 0, first_entry: int = 0,
    tie_keys: TieKeys | None = None,
) -> Ranking:
    """Where every relevant, judged or graded candidate ranks in its run, by decreasing score.

    The same positions as :func:`rank_runs` with the same ``ties`` and ``seed``, counted
    rather than sorted: a candidate's position is the number of candidates of its run
    with a higher score, plus those tied with it that the tie policy puts first.  The
    top-n lists that novelty and coverage read are selected on demand (the ``n``-th
    highest score of each run, then a sort of the candidates at or above it).  When ``runs``
    are the entries from ``first_entry`` on of a larger runs object, their positions are those
    of the larger object ranked with the same ``seed``.  ``tie_keys``, the keys of these runs
    kept across systems (:class:`TieKeys`), spares drawing them again.
    """
    scores = _checked_scores(runs, scores, ties)
    # the tie keys, drawn once and only if some marked entry is tied or a top-n list is read
    keys = TieKeys(runs, ties, seed, first_entry) if tie_keys is None else tie_keys.check(runs, ties, seed, first_entry)
    marked, run_of_marked = runs.marked_entries, runs.run_of_marked
    positions, tied = _count_higher_and_tied(scores, runs.offsets, marked, run_of_marked)
    if tied.any():
        some = np.flatnonzero(tied)
        positions[some] += _count_tied_before(scores, runs.offsets, marked[some], run_of_marked[some], *keys())

    def top_entries(n: int) -> np.ndarray:
        primary, secondary = keys()
        entry_runs = runs.run_of_entry
        candidates = np.flatnonzero(scores >= _nth_highest(scores, runs.offsets, n)[entry_runs])
        counts = np.bincount(entry_runs[candidates], minlength=runs.n_runs)
        offsets = np.concatenate(([0], np.cumsum(counts)))
        ordered = candidates[_order_within_runs(offsets, scores[candidates], primary[candidates], secondary[candidates])]
        position = np.arange(len(ordered)) - offsets[entry_runs[ordered]]
        return ordered[position < n]

    return Ranking(runs, marked, positions, top_entries)

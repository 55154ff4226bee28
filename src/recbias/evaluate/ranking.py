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
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import numpy as np

from recbias.recommenders.base import Recommender
from recbias.runs import Runs

TiePolicy = Literal["random", "optimistic", "pessimistic"]
TIE_POLICIES: tuple[str, ...] = ("random", "optimistic", "pessimistic")


def check_ties(ties: str, allowed: tuple[str, ...] = TIE_POLICIES) -> str:
    """Return ``ties`` if it is one of ``allowed``, else raise naming the valid policies."""
    if ties not in allowed:
        raise ValueError(f"unknown tie policy {ties!r}; use one of {', '.join(allowed)}")
    return ties


def score_runs(recommender: Recommender, runs: Runs) -> np.ndarray:
    """Scores of every candidate of every run, aligned with ``runs.items``."""
    return recommender.score(np.repeat(runs.users, runs.sizes), runs.items)


#: rows x width of one padded block sorted at a time (bounds the memory of rank_runs)
BLOCK_ENTRIES = 1 << 22


def _tie_keys(runs: Runs, ties: str, seed: int) -> list[np.ndarray]:
    """Secondary sort keys (least significant first, as for ``np.lexsort``) that break ties."""
    if ties == "random":
        return [np.random.default_rng(seed).random(len(runs.items))]
    if ties == "optimistic":
        return [-runs.grades, -runs.labels.astype(np.int8)]
    return [runs.grades, runs.labels.astype(np.int8)]


def _order_within_runs(runs: Runs, scores: np.ndarray, ties: str, seed: int) -> np.ndarray:
    """Flat entry order that sorts every run by decreasing score, ties broken by ``ties``.

    Runs are sorted as rows of padded blocks (runs of similar size together, padding
    <= the real entries, NaN padding sorting last), so each sort stays within one run.
    Rows without tied scores are sorted once; rows with ties are re-sorted with the
    tie-breaking keys.  The tie keys depend only on entries, not on the sort algorithm,
    so the ranking is the same on every machine.
    """
    sizes, offsets = runs.sizes, runs.offsets
    order = np.empty(len(scores), dtype=np.int64)
    nonempty = np.flatnonzero(sizes > 0)
    size_class = np.ceil(np.log2(sizes[nonempty])).astype(np.int64)
    tie_keys: list[np.ndarray] | None = None
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
                tie_keys = _tie_keys(runs, ties, seed) if tie_keys is None else tie_keys
                tied_entries = entries[tied_rows]
                keys = [key[tied_entries] for key in tie_keys] + [negated[tied_rows]]
                row_order[tied_rows] = np.lexsort(keys, axis=1)
            sorted_entries = np.take_along_axis(entries, row_order, axis=1)
            order[entries[valid]] = sorted_entries[np.take_along_axis(valid, row_order, axis=1)]
    return order


def rank_runs(runs: Runs, scores: np.ndarray, ties: TiePolicy = "random", seed: int = 0) -> Runs:
    """The same runs with the candidates of each run sorted by decreasing score.

    ``scores`` is aligned with ``runs.items`` (see :func:`score_runs`); NaN scores
    raise.  Ties between equal scores within a run are broken by ``ties``.
    Each run is sorted on its own (``O(N log |T_u|)``); memory is bounded by
    :data:`BLOCK_ENTRIES` padded entries at a time.
    """
    check_ties(ties)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != runs.items.shape:
        raise ValueError(f"scores has shape {scores.shape}, runs have {len(runs.items)} candidates")
    if np.isnan(scores).any():
        raise ValueError(f"{int(np.isnan(scores).sum())} scores are NaN; every candidate needs a score")
    if scores.size == 0:
        return runs
    order = _order_within_runs(runs, scores, ties, seed)
    return replace(
        runs,
        items=runs.items[order],
        labels=runs.labels[order],
        grades=runs.grades[order],
        judged=runs.judged[order],
    )

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


def _dense_descending_rank(scores: np.ndarray) -> tuple[np.ndarray, int]:
    """0 for the highest score, equal scores share a rank; also the number of distinct scores."""
    order = np.argsort(-scores)
    ordered = scores[order]
    new_value = np.ones(len(scores), dtype=bool)
    new_value[1:] = ordered[1:] != ordered[:-1]
    dense = np.empty(len(scores), dtype=np.int64)
    dense[order] = np.cumsum(new_value) - 1
    return dense, int(new_value.sum())


def _relevance_level(runs: Runs, entries: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense rank of (label, grade) of the given entries, higher = more relevant; and the level count."""
    grade_levels, grade_rank = np.unique(runs.grades[entries], return_inverse=True)
    levels = len(grade_levels)
    return runs.labels[entries].astype(np.int64) * levels + grade_rank, 2 * levels


def _tie_order(runs: Runs, tied: np.ndarray, group: np.ndarray, ties: str, seed: int) -> np.ndarray:
    """Reorder the tied entries (listed group after group) by the tie policy."""
    by_index = np.argsort(tied)
    tied, group = tied[by_index], group[by_index]
    if ties == "random":
        key = group * len(tied) + np.random.default_rng(seed).permutation(len(tied))
        return tied[np.argsort(key)]
    level, n_levels = _relevance_level(runs, tied)
    if ties == "optimistic":
        level = n_levels - 1 - level
    return tied[np.argsort(group * n_levels + level, kind="stable")]


def rank_runs(runs: Runs, scores: np.ndarray, ties: TiePolicy = "random", seed: int = 0) -> Runs:
    """The same runs with the candidates of each run sorted by decreasing score.

    ``scores`` is aligned with ``runs.items`` (see :func:`score_runs`); NaN scores
    raise.  Ties between equal scores within a run are broken by ``ties``.
    Cost: two ``O(N log N)`` sorts of all entries, plus one sort of the tied entries.
    """
    check_ties(ties)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != runs.items.shape:
        raise ValueError(f"scores has shape {scores.shape}, runs have {len(runs.items)} candidates")
    if np.isnan(scores).any():
        raise ValueError(f"{int(np.isnan(scores).sum())} scores are NaN; every candidate needs a score")
    if scores.size == 0:
        return runs
    dense, n_distinct = _dense_descending_rank(scores)
    key = runs.run_of_entry * n_distinct + dense
    order = np.argsort(key)
    ordered_key = key[order]
    tied_with_previous = ordered_key[1:] == ordered_key[:-1]
    if tied_with_previous.any():
        in_tie = np.zeros(len(order), dtype=bool)
        in_tie[1:] |= tied_with_previous
        in_tie[:-1] |= tied_with_previous
        starts_group = np.ones(len(order), dtype=bool)
        starts_group[1:] = ~tied_with_previous
        positions = np.flatnonzero(in_tie)
        group = (np.cumsum(starts_group) - 1)[positions]
        order[positions] = _tie_order(runs, order[positions], group, ties, seed)
    return replace(
        runs,
        items=runs.items[order],
        labels=runs.labels[order],
        grades=runs.grades[order],
        judged=runs.judged[order],
    )

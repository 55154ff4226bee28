"""The chapter-2 systems on one coin-flip split, each user's run holding every item she did not rate
in training (AI-AN), scored once: every metric of the chapter follows from these scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import Candidates, rank_positions
from recbias.evaluate.experiment import fit_systems
from recbias.metrics import ItemPopularity, compute_metrics, short_head
from recbias.ratings import Ratings
from recbias.recommenders import PAPERS_SET, TOP_N_LEARNERS, Recommender
from recbias.runs import Ranking, Runs
from recbias.splits import Fold, make_folds


@dataclass
class Scored:
    """Scores of several systems on the same runs (one run per user), from which any metric follows.

    Attributes:
        runs: the runs (AI-AN: every item the user did not rate in training).
        scores: system label -> score of every candidate, aligned with ``runs.items``.
        popularity: item rating counts of the training set (the short-head step reads them).
        seed: seed of the random tie-break.
    """

    runs: Runs
    scores: dict[str, np.ndarray]
    popularity: ItemPopularity
    seed: int

    def __post_init__(self) -> None:
        self._rankings: dict[str, Ranking] = {}

    @classmethod
    def of(cls, systems: Mapping[str, Recommender], train: Ratings, runs: Runs, seed: int) -> Scored:
        candidates = Candidates([runs])
        scores = {label: candidates.score(recommender)[0] for label, recommender in systems.items()}
        return cls(runs, scores, ItemPopularity.from_ratings(train), seed)

    def ranking(self, label: str) -> Ranking:
        """The ranking of system ``label`` (computed once)."""
        if label not in self._rankings:
            self._rankings[label] = rank_positions(self.runs, self.scores[label], seed=self.seed)
        return self._rankings[label]

    def values(self, metrics: Sequence[str], relabelled: Runs | None = None) -> dict[str, pd.DataFrame]:
        """Per-user values, system label -> users x metrics.

        ``relabelled`` replaces the runs' relevance (same candidates, same marked entries), e.g.
        :func:`mishit_runs`; the systems' rankings are reused.
        """
        runs = self.runs if relabelled is None else relabelled
        first = self.ranking(next(iter(self.scores)))
        if relabelled is not None and not np.array_equal(relabelled.marked_entries, first.marked):
            raise ValueError("relabelled runs must mark the same entries as the scored runs")
        out = {}
        for label in self.scores:
            ranking = self.ranking(label)
            ranking = ranking if relabelled is None else replace(ranking, runs=relabelled)
            out[label] = pd.DataFrame(compute_metrics(ranking, metrics, self.popularity),
                                      index=pd.Index(runs.users, name="user"))
        return out

    def means(self, metrics: Sequence[str], relabelled: Runs | None = None) -> pd.DataFrame:
        """Mean over users, systems x metrics."""
        return pd.DataFrame({label: frame.mean() for label, frame in self.values(metrics, relabelled).items()}).T

    def head_in_top(self, label: str, s: int, n: int) -> np.ndarray:
        """Per run, how many of the ``s`` most-rated training items system ``label`` puts in its first ``n``."""
        entries = self.ranking(label).top_entries(n)
        head = short_head(self.popularity.rating_counts, s)[self.runs.items[entries]]
        return np.bincount(self.runs.run_of_entry[entries], weights=head, minlength=self.runs.n_runs)


def liked_only(runs: Runs) -> Runs:
    """The same runs judged by their relevant candidates alone (what the behavioural AUC reads), which
    halves the positions a ranking must find when most test ratings are not positive."""
    return Runs.from_arrays(runs.offsets, runs.users, runs.items, runs.labels, runs.grades,
                            n_relevant=runs.n_relevant, design=runs.design)


def mishit_runs(runs: Runs) -> Runs:
    """The same runs with the judged non-relevant candidates (negative test ratings) as the relevant ones."""
    negative = runs.judged & ~runs.labels
    return Runs.from_arrays(runs.offsets, runs.users, runs.items, negative, judged=runs.judged, design=runs.design)


@dataclass
class SystemStudy:
    """The chapter-2 systems on one split: the fold, the fitted systems and their scores."""

    fold: Fold
    systems: dict[str, Recommender]
    scored: Scored


#: the systems of the chapter: the papers' set, then today's top-N learners
SYSTEMS: dict[str, str] = PAPERS_SET | TOP_N_LEARNERS


def system_study(
    ratings: Ratings, seed: int = 0, systems: Mapping[str, str | Recommender] = SYSTEMS, test_ratio: float = 0.2
) -> SystemStudy:
    """Fit ``systems`` on the first coin-flip split of ``ratings`` and score every user's AI-AN run."""
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed)
    runs = build_runs(fold.train, fold.test, "AI-AN")
    return SystemStudy(fold, fitted, Scored.of(fitted, fold.train, runs, seed))

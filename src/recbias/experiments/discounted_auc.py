"""Chapter 7 ("The user-behaviour discounted AUC"): the metric's settings and the systems it scores.

The metric of Bobrikov, Nenova and Ignatov (CLA 2016) is :func:`recbias.metrics.discounted_auc`
(``bAUC`` in the metric grammar).  This module holds what every part of the chapter shares:

* :class:`Setting`: the page's attention ``Q`` on pages of ``m``, lists of ``z`` and gain ``r - base``,
  and the metric-grammar name they make; :func:`judged_at` applies the page's positive threshold;
* :func:`system_study`: the chapter-2 systems on one coin-flip split, each user's run holding every
  item she did not rate in training (AI-AN), scored once (:class:`Scored`), from which every metric
  of the chapter follows.

The chapter's parts are the modules ``dauc_attention`` (the attention model and its discount),
``dauc_systems`` (the four cases, the sweep over ``Q``, the systems' order), ``dauc_short_head``
(segment lists and the search for the step), ``dauc_new_users`` (the paper's Fig. 4), ``dauc_truth``
(agreement with a simulated world's truth), ``dauc_claims`` (the scorecard) and ``dauc_figures``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources

import numpy as np
import pandas as pd

from recbias import datasets, synthetic
from recbias.designs import build_runs
from recbias.evaluate import Candidates, rank_positions
from recbias.evaluate.experiment import PAPER_SYSTEMS, fit_systems
from recbias.splits import Fold, make_folds
from recbias.metrics import ItemPopularity, compute_metrics, continuation_probability, short_head
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Ranking, Runs
from recbias.text import fmt_number, fmt_pct

#: where the paper states what the chapter checks
SOURCE = "Bobrikov et al. 2016"
#: systems that show every user the same list (up to noise)
NON_PERSONALISED = ("Random", "Popularity")


@dataclass(frozen=True)
class Setting:
    """The metric's settings on the page: attention ``Q`` on pages of ``m``, lists of ``z``, gain ``r - base``."""

    Q: float
    m: int
    z: int
    base: float

    @property
    def p(self) -> float:
        return continuation_probability(self.Q, self.m)

    def metric(self, s: int = 0, gain: str = "rating", Q: float | None = None) -> str:
        """The metric-grammar name of the discounted AUC with these settings."""
        rating = f",base={self.base:g}" if gain == "rating" else ""
        return f"bAUC@{self.z}(Q={self.Q if Q is None else Q:g},m={self.m},gain={gain}{rating},s={s})"


def published() -> pd.DataFrame:
    """The published numbers the chapter sets its own against (``published/discounted_auc.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/discounted_auc.csv").open() as handle:
        return pd.read_csv(handle, comment="#")


def judged_at(ratings: Ratings, threshold: float | None, seed: int = 0) -> Ratings:
    """``ratings`` with a rating ``>= threshold`` positive (``None`` keeps theirs).

    A threshold above the rating scale (implicit feedback, whose only value is 1) keeps the data's
    own threshold, which :func:`threshold_note` says on the page.  A simulated world from a preset is
    generated again with the threshold, so that its true relevance follows it too.
    """
    low, high = ratings.scale
    if threshold is None or threshold == ratings.positive_threshold or threshold > high:
        return ratings
    if threshold <= low:
        raise ValueError(f"threshold {threshold:g} makes every rating of '{ratings.name}' positive "
                         f"(scale {low:g} to {high:g})")
    if ratings.true_relevance is not None:
        if ratings.name not in synthetic.PRESETS or float(threshold) != int(threshold):
            raise ValueError(f"the true relevance of '{ratings.name}' cannot follow threshold {threshold:g}")
        return datasets.load(ratings.name, seed=seed, positive_threshold=int(threshold))
    return ratings.with_threshold(threshold)


def threshold_note(original: Ratings, judged: Ratings, threshold: float | None) -> str:
    """A sentence when the page judges ratings with another threshold than the dataset card shows, or
    cannot apply the requested one."""
    if threshold is not None and threshold > original.scale[1]:
        return (f"The ratings of {original.name} go up to {original.scale[1]:g} only, so the page keeps the "
                f"dataset's own threshold, {original.positive_threshold:g}, instead of {threshold:g}.")
    if judged.positive_threshold == original.positive_threshold:
        return ""
    return (f"The card above shows the dataset's own threshold, {original.positive_threshold:g}; this page counts "
            f"ratings of {judged.positive_threshold:g} and above as positive, "
            f"{fmt_pct(judged.positive.mean())} of them.")


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
        if relabelled is not None and not np.array_equal(Ranking.marked_entries(relabelled), first.marked):
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
class Study:
    """The chapter-2 systems on one split: the fold, the fitted systems and their scores."""

    fold: Fold
    systems: dict[str, Recommender]
    scored: Scored


def system_study(
    ratings: Ratings, seed: int = 0, systems: Mapping[str, str | Recommender] = PAPER_SYSTEMS, test_ratio: float = 0.2
) -> Study:
    """Fit ``systems`` on the first coin-flip split of ``ratings`` and score every user's AI-AN run."""
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed)
    runs = build_runs(fold.train, fold.test, "AI-AN")
    return Study(fold, fitted, Scored.of(fitted, fold.train, runs, seed))


def not_applicable(reason: str) -> pd.DataFrame:
    """The one-cell table shown where a part of the chapter does not apply to the dataset."""
    return pd.DataFrame({"not applicable": [reason]})


def settings_table(setting: Setting, ratings: Ratings) -> pd.DataFrame:
    """The metric's settings on this page, with the paper's counterpart of each (the metric's name is
    given in the text, where it can break)."""
    return pd.DataFrame([
        {"setting": "positive rating", "this page": f"r ≥ {ratings.positive_threshold:g}",
         "paper": "r ≥ 6 of 10 stars"},
        {"setting": "gain of a hit", "this page": f"r − {setting.base:g}", "paper": "r − 5"},
        {"setting": "page size m", "this page": f"{setting.m}", "paper": "not stated"},
        {"setting": "share Q of users who open page 2", "this page": f"{setting.Q:g}",
         "paper": "from pagination logs, not stated"},
        {"setting": "continuation probability p = Q<sup>1/m</sup>", "this page": fmt_number(setting.p, 3),
         "paper": "not stated"},
        {"setting": "list length z", "this page": f"{setting.z}", "paper": "large, not stated"},
    ])

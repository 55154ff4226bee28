"""A small runner for offline experiments: dataset x fold x design x recommender -> per-run table.

The chapters compare recommenders under several experimental designs on
several splits of a dataset.  This module does the plumbing once:

* :func:`make_folds` draws the training/test splits (repeated coin flips,
  k-fold partitions or a temporal cut);
* :func:`fit_systems` fits the recommenders of one training set, through the
  on-disk fit cache of :mod:`recbias.cache`;
* :class:`recbias.evaluate.Candidates` scores the target sets of all designs
  of a fold with one dense score block per chunk of users, so a user is scored
  once whatever the number of designs;
* :func:`run_experiment` ties them together and returns an
  :class:`Experiment`, whose ``runs`` attribute is a tidy per-run table with
  one row per (fold, design, system, run) and one column per metric;
* :meth:`Experiment.summary` and :meth:`Experiment.comparison` turn that table
  into means with confidence intervals and paired tests, with users as the
  independent units across runs and folds (:mod:`recbias.evaluate.statistics`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from recbias import splits as splitting
from recbias.cache import fit_cached
from recbias.designs import DesignSpec, build_runs, parse_design
from recbias.evaluate import (
    DEFAULT_METRICS,
    Candidates,
    compare,
    evaluate_runs,
    metric_columns,
    summarize,
)
from recbias.evaluate.statistics import Average
from recbias.metrics import ItemPopularity, parse_metric
from recbias.ratings import Ratings
from recbias.recommenders import Recommender, make

__all__ = [
    "PAPER_SYSTEMS",
    "fold_seed",
    "Experiment",
    "Fold",
    "fit_systems",
    "make_folds",
    "run_experiment",
]

#: The five systems of IRJ 2017 Section 3.3, display label -> :func:`recbias.recommenders.make` preset.
PAPER_SYSTEMS: dict[str, str] = {
    "Popularity": "popularity",
    "pLSA": "plsa",
    "MF": "mf",
    "user-kNN": "user-knn",
    "Random": "random",
}

_SPLIT_METHODS = ("coin", "kfold", "temporal", "uniform")


# ------------------------------------------------------------------------------- folds


@dataclass(frozen=True, eq=False)
class Fold:
    """One training/test split of an experiment.

    Attributes:
        index: 0, 1, ... within the experiment.
        train, test: the two rating sets (same code space).
        method: ``"coin"``, ``"kfold"``, ``"temporal"`` or ``"uniform"``.
        seed: the seed that drew the split (``-1`` for the deterministic temporal cut).
    """

    index: int
    train: Ratings
    test: Ratings
    method: str
    seed: int

    @property
    def key(self) -> tuple[Any, ...]:
        """What identifies the split in cache keys."""
        return (self.train.name, self.method, self.index, self.seed)


def fold_seed(seed: int, index: int) -> int:
    """Seed of fold ``index`` of an experiment seeded with ``seed`` (independent streams)."""
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


def make_folds(
    ratings: Ratings, *, method: str = "coin", folds: int = 5, test_ratio: float = 0.2, seed: int = 0,
    min_train_ratio: float = 0.2,
) -> list[Fold]:
    """Training/test splits of ``ratings``.

    * ``"coin"``: ``folds`` independent coin-flip splits (each rating goes to test with
      probability ``test_ratio``), the procedure of IRJ 2017 Section 3.3; fold ``k`` is
      drawn with :func:`fold_seed` ``(seed, k)``.
    * ``"kfold"``: a random partition into ``folds`` folds, each the test set once
      (``test_ratio`` is then ``1 / folds`` and the argument is ignored).
    * ``"temporal"``: one split, the most recent ``test_ratio`` of the ratings in test
      (needs timestamps; ``folds`` must be 1).
    * ``"uniform"``: ``folds`` independent splits with uniform test item profiles
      (:func:`recbias.splits.uniform_split`, IRJ 2017 Section 6.2, keeping at least
      ``min_train_ratio`` of each target item's ratings for training), fold ``k`` drawn
      with :func:`fold_seed` ``(seed, k)``.
    """
    if method not in _SPLIT_METHODS:
        raise ValueError(f"unknown split method {method!r}; use one of {', '.join(_SPLIT_METHODS)}")
    if int(folds) != folds or folds < 1:
        raise ValueError(f"folds must be a positive integer, got {folds!r}")
    if method in ("coin", "uniform"):
        out = []
        for k in range(int(folds)):
            s = fold_seed(seed, k)
            if method == "coin":
                train, test = splitting.random_split(ratings, test_ratio, seed=s)
            else:
                train, test = splitting.uniform_split(ratings, test_ratio, min_train_ratio, seed=s)
            out.append(Fold(k, train, test, method, s))
        return out
    if method == "kfold":
        if folds < 2:
            raise ValueError("k-fold cross-validation needs folds >= 2")
        pairs = splitting.kfold_split(ratings, int(folds), seed=seed)
        return [Fold(k, train, test, method, int(seed)) for k, (train, test) in enumerate(pairs)]
    if folds != 1:
        raise ValueError("a temporal split is a single fold; pass folds=1")
    train, test = splitting.temporal_split(ratings, test_ratio)
    return [Fold(0, train, test, method, -1)]


# ------------------------------------------------------------------------------ systems


def fit_systems(
    systems: Mapping[str, str | Recommender],
    train: Ratings,
    *,
    key_extra: Any = None,
    cache: bool = True,
    seed: int = 0,
) -> dict[str, Recommender]:
    """Fitted recommenders, keyed by the labels of ``systems``.

    A value of ``systems`` is a preset name of :func:`recbias.recommenders.make`
    (built with ``seed``) or an unfitted recommender.  With ``cache`` the fits go
    through :func:`recbias.cache.fit_cached`, keyed by the training data, the
    recommender's parameters and ``key_extra``.
    """
    fitted = {}
    for label, system in systems.items():
        recommender = make(system, seed=seed) if isinstance(system, str) else system
        recommender.name = label
        fitted[label] = fit_cached(recommender, train, key_extra) if cache else recommender.fit(train)
    return fitted


# ------------------------------------------------------------------------- experiments


@dataclass
class Experiment:
    """What :func:`run_experiment` measured.

    Attributes:
        runs: tidy per-run table, one row per (fold, design, system, run): columns
            ``dataset``, ``fold``, ``design``, ``system``, ``run``, ``user``, ``group`` and one
            column per metric.  ``run`` numbers the runs within (fold, design).
        reports: one row per (fold, design): the :class:`~recbias.designs.DesignReport`
            fields, ``|PR_test|``, and the training and test sizes.
        seconds: wall time per stage (``fit``, ``design``, ``score``, ``evaluate``).
    """

    runs: pd.DataFrame
    reports: pd.DataFrame
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def metrics(self) -> list[str]:
        return metric_columns(self.runs)

    def summary(
        self, metrics: Sequence[str] | None = None, average: Average = "run", confidence: float = 0.95
    ) -> pd.DataFrame:
        """Means per (dataset, design, system) with intervals over users (:func:`recbias.evaluate.summarize`).

        ``average="run"`` (default) is the papers' mean over runs (IRJ Eq. 1 in 1R designs).
        """
        return summarize(self.runs, metrics or self.metrics, ("dataset", "design", "system"), average, confidence)

    def comparison(self, metric: str, systems: Sequence[str] | None = None, average: Average = "run") -> pd.DataFrame:
        """Paired tests of every two systems per (dataset, design), users as the unit
        (:func:`recbias.evaluate.compare`)."""
        return compare(self.runs, [metric], ("dataset", "design"), average=average, systems=systems)


def _design_name(design: str | DesignSpec, n_nonrelevant: int) -> DesignSpec:
    return parse_design(design, n_nonrelevant=n_nonrelevant) if isinstance(design, str) else design


def run_experiment(
    ratings: Ratings,
    designs: Sequence[str | DesignSpec],
    systems: Mapping[str, str | Recommender],
    *,
    folds: int | Sequence[Fold] = 5,
    split: str = "coin",
    test_ratio: float = 0.2,
    metrics: Sequence[str] = DEFAULT_METRICS,
    seed: int = 0,
    ties: str = "random",
    cache: bool = True,
    n_nonrelevant: int = 100,
    on_shortage: str = "exclude",
    shared_negatives: bool = False,
) -> Experiment:
    """Evaluate ``systems`` under every design on every fold.

    Args:
        ratings: the dataset (its ``positive_threshold`` defines relevance).
        designs: design names of :data:`recbias.designs.GRAMMAR` or specs.
        systems: display label -> preset name or unfitted recommender (see :func:`fit_systems`).
        folds: the number of folds to draw with :func:`make_folds` (``split``, ``test_ratio``,
            ``seed``), or ready-made folds.
        metrics: metric specs of :func:`recbias.metrics.parse_metric`; those that need item
            popularity (``PSR``, ``novelty``, ``IPS-*``, ``SNIPS-*``) get
            :meth:`ItemPopularity.from_ratings` ``(ratings, fold.test, train=fold.train)``:
            counts over the dataset, the fold's positive test ratings and, for the
            propensities, its positive training counts.
        seed: seeds the splits, the recommenders, the sampling of non-relevant items
            (design ``d`` of fold ``k`` uses :func:`fold_seed` ``(seed, 1000 k + d)``) and
            the random tie-break.
        ties: tie policy of :func:`recbias.evaluate.rank_runs`.
        cache: reuse fits through :mod:`recbias.cache`.
        n_nonrelevant, on_shortage, shared_negatives: passed to :func:`recbias.designs.build_runs`.
    """
    fold_list = (
        make_folds(ratings, method=split, folds=folds, test_ratio=test_ratio, seed=seed)
        if isinstance(folds, (int, np.integer))
        else list(folds)
    )
    specs = [_design_name(d, n_nonrelevant) for d in designs]
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"repeated designs in {names}")
    seconds = dict.fromkeys(("fit", "design", "score", "evaluate"), 0.0)
    tables, reports = [], []
    needs_popularity = any(parse_metric(m).needs_popularity for m in metrics)
    for fold in fold_list:
        popularity = ItemPopularity.from_ratings(ratings, fold.test, train=fold.train) if needs_popularity else None
        clock = time.perf_counter()
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, cache=cache, seed=seed)
        seconds["fit"] += time.perf_counter() - clock

        clock = time.perf_counter()
        runs_list = []
        for d, spec in enumerate(specs):
            runs = build_runs(
                fold.train,
                fold.test,
                spec,
                seed=fold_seed(seed, 1000 * fold.index + d),
                on_shortage=on_shortage,
                shared_negatives=shared_negatives,
            )
            runs_list.append(runs)
            report = runs.report
            reports.append(
                {"dataset": ratings.name, "fold": fold.index}
                | (vars(report) if report is not None else {"design": spec.name})
                | {
                    "relevant": int(runs.labels.sum()),
                    "candidates": len(runs.items),
                    "train": fold.train.n_ratings,
                    "test": fold.test.n_ratings,
                }
            )
        seconds["design"] += time.perf_counter() - clock

        candidates = Candidates(runs_list)
        for label, recommender in fitted.items():
            clock = time.perf_counter()
            scores = candidates.score(recommender)
            seconds["score"] += time.perf_counter() - clock
            clock = time.perf_counter()
            for spec, runs, score in zip(specs, runs_list, scores, strict=True):
                table = evaluate_runs(runs, score, metrics, ties=ties, seed=fold_seed(seed, fold.index),
                                      item_popularity=popularity)
                table.insert(0, "system", label)
                table.insert(0, "design", spec.name)
                table.insert(0, "fold", fold.index)
                table.insert(0, "dataset", ratings.name)
                tables.append(table)
            seconds["evaluate"] += time.perf_counter() - clock
    runs_table = pd.concat(tables, ignore_index=True)
    for column in ("dataset", "design", "system"):
        order = list(dict.fromkeys(runs_table[column]))
        runs_table[column] = pd.Categorical(runs_table[column], categories=order)
    return Experiment(runs=runs_table, reports=pd.DataFrame(reports), seconds=seconds)

"""A small runner for offline experiments: dataset x fold x design x recommender -> per-run table.

The chapters compare recommenders under several experimental designs on
several splits of a dataset.  This module does the plumbing once:

* :func:`recbias.splits.make_folds` draws the training/test splits (repeated coin flips,
  k-fold partitions or a temporal cut);
* :func:`fit_systems` fits the recommenders of one training set, through the
  on-disk fit cache of :mod:`recbias.cache`;
* :class:`recbias.evaluate.Candidates` scores the target sets of all designs
  of a fold with one dense score block per chunk of users, so a user is scored
  once whatever the number of designs;
* :func:`evaluate_fold` evaluates every system on several runs objects of one fold
  (the designs of an experiment, or the points of a sweep) with one scoring pass;
* :func:`growing_target_sets` builds 1R target sets of growing size for one
  population of users (the size sweeps of IRJ 2017 Figs. 3 and 4);
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

from recbias.cache import fit_cached
from recbias.designs import DesignSpec, build_runs, nonrelevant_pool_sizes, parse_design
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
from recbias.runs import Runs
from recbias.splits import Fold, fold_seed, make_folds

__all__ = [
    "DesignChoice",
    "an_entries",
    "choose_designs",
    "PAPER_SYSTEMS",
    "Experiment",
    "evaluate_fold",
    "fit_systems",
    "growing_target_sets",
    "largest_target_size",
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

# ------------------------------------------------------------------------------ designs


@dataclass(frozen=True)
class DesignChoice:
    """The designs of the comparison on one dataset.

    Attributes:
        target_size: ``|T_u^r|`` of the 1R design.
        n_nonrelevant: ``|N_u|`` of the AR designs when they sample (NN).
        an_entries: target entries the AN designs would hold (users with a liked item x items).
        max_an_entries: the limit above which AN gives way to NN.
    """

    target_size: int
    n_nonrelevant: int
    an_entries: int
    max_an_entries: int

    @property
    def sampled(self) -> bool:
        """Whether the AR designs sample their non-relevant items (NN) instead of taking all (AN)."""
        return self.an_entries > self.max_an_entries

    @property
    def ar(self) -> tuple[str, str]:
        """The AI and TI versions of the AR design: AN, or NN(``n_nonrelevant``) above ``max_an_entries``."""
        return (f"AI-NN({self.n_nonrelevant})", f"TI-NN({self.n_nonrelevant})") if self.sampled else ("AI-AN", "TI-AN")

    @property
    def one_r(self) -> str:
        """The 1R design, ``1R TI-NN(target_size - 1)``."""
        return f"1R TI-NN({self.target_size - 1})"

    @property
    def main_ar(self) -> str:
        """The AR design the chapter reads first: the TI version."""
        return self.ar[1]

    @property
    def designs(self) -> list[str]:
        return [*self.ar, self.one_r]


def an_entries(ratings: Ratings) -> int:
    """Target entries of an AN design, approximately: users with a liked item times the catalogue."""
    users = np.count_nonzero(np.bincount(ratings.users[ratings.positive], minlength=ratings.n_users))
    return int(users) * ratings.n_items


def choose_designs(ratings: Ratings, *, target_size: int, max_an_entries: int, n_nonrelevant: int) -> DesignChoice:
    """AI-AN and TI-AN, or AI-NN(``n_nonrelevant``) and TI-NN(``n_nonrelevant``) when the AN target sets
    would hold more than ``max_an_entries`` items (as the papers did on Last.fm); 1R TI-NN(``target_size - 1``)."""
    if target_size < 2:
        raise ValueError(f"target_size must be at least 2 (one relevant and one non-relevant item), got {target_size}")
    for name, value in (("max_an_entries", max_an_entries), ("n_nonrelevant", n_nonrelevant)):
        if value < 1:
            raise ValueError(f"{name} must be positive, got {value}")
    entries = an_entries(ratings)
    if target_size > ratings.n_items:
        raise ValueError(f"target_size = {target_size} exceeds the {ratings.n_items:,} items of {ratings.name}")
    if entries > max_an_entries and n_nonrelevant >= ratings.n_items:
        raise ValueError(f"the AN designs of {ratings.name} would exceed max_an_entries, and NN({n_nonrelevant}) "
                         f"needs more non-relevant items than its {ratings.n_items:,} items: lower the sample size")
    return DesignChoice(int(target_size), int(n_nonrelevant), entries, int(max_an_entries))


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


def _fold_designs(dataset: str, fold: Fold, specs: Sequence[DesignSpec], *, seed: int, on_shortage: str,
                  shared_negatives: bool) -> tuple[dict[str, Runs], list[dict[str, Any]]]:
    """The runs of every design on one fold (design ``d`` sampled with :func:`fold_seed`
    ``(seed, 1000 k + d)``) and one report row per design: what it kept and left out, ``|PR_test|``,
    candidates and the training and test sizes."""
    runs_of_design, reports = {}, []
    for d, spec in enumerate(specs):
        runs = build_runs(fold.train, fold.test, spec, seed=fold_seed(seed, 1000 * fold.index + d),
                          on_shortage=on_shortage, shared_negatives=shared_negatives)
        runs_of_design[spec.name] = runs
        report = runs.report
        reports.append({"dataset": dataset, "fold": fold.index}
                       | (vars(report) if report is not None else {"design": spec.name})
                       | {"relevant": int(runs.labels.sum()), "candidates": len(runs.items),
                          "train": fold.train.n_ratings, "test": fold.test.n_ratings})
    return runs_of_design, reports


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
        runs_of_design, fold_reports = _fold_designs(ratings.name, fold, specs, seed=seed, on_shortage=on_shortage,
                                                     shared_negatives=shared_negatives)
        reports.extend(fold_reports)
        seconds["design"] += time.perf_counter() - clock

        tables.append(evaluate_fold(fold, fitted, runs_of_design, metrics, dataset=ratings.name, ties=ties, seed=seed,
                                    item_popularity=popularity, seconds=seconds))
    runs_table = pd.concat(tables, ignore_index=True)
    for column in ("dataset", "design", "system"):
        order = list(pd.unique(runs_table[column]))
        runs_table[column] = pd.Categorical(runs_table[column], categories=order)
    return Experiment(runs=runs_table, reports=pd.DataFrame(reports), seconds=seconds)


def evaluate_fold(
    fold: Fold,
    fitted: Mapping[str, Recommender],
    runs: Mapping[str, Runs],
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    dataset: str | None = None,
    ties: str = "random",
    seed: int = 0,
    item_popularity: ItemPopularity | None = None,
    seconds: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Per-run table of every fitted system on every runs object of one fold.

    ``runs`` maps a label (the ``design`` column of the table: a design name, or any name
    of a point of a sweep, e.g. a thinned test set) to its runs.  Each system scores the
    candidates of all runs objects with one :class:`~recbias.evaluate.Candidates` pass, so
    a sweep of many target sets costs one scoring per (fold, system).  Ties are broken with
    :func:`fold_seed` ``(seed, fold.index)``; ``item_popularity`` is passed to
    :func:`recbias.evaluate.evaluate_runs`.  Columns: ``dataset`` (default: the name of the
    fold's training set), ``fold``, ``design``, ``system``, ``run``, ``user``, ``group`` and
    one per metric.  ``seconds``, when given, accumulates the ``score`` and ``evaluate`` times.
    """
    seconds = {} if seconds is None else seconds
    candidates = Candidates(list(runs.values()))
    tables = []
    for label, recommender in fitted.items():
        clock = time.perf_counter()
        scores = candidates.score(recommender)
        seconds["score"] = seconds.get("score", 0.0) + time.perf_counter() - clock
        clock = time.perf_counter()
        for name, design_runs, score in zip(runs, runs.values(), scores, strict=True):
            table = evaluate_runs(design_runs, score, metrics, ties=ties, seed=fold_seed(seed, fold.index),
                                  item_popularity=item_popularity)
            table.insert(0, "system", label)
            table.insert(0, "design", name)
            table.insert(0, "fold", fold.index)
            table.insert(0, "dataset", dataset or fold.train.name)
            tables.append(table)
        seconds["evaluate"] = seconds.get("evaluate", 0.0) + time.perf_counter() - clock
    return pd.concat(tables, ignore_index=True)


# ------------------------------------------------------------------ growing target sets


def largest_target_size(train: Ratings, test: Ratings, *, candidates: str = "TI", min_share: float = 0.5) -> int:
    """The largest ``|T_u^r|`` whose 1R runs at least ``min_share`` of the users with a relevant test item can hold.

    A user can hold size ``s`` when she has ``s - 1`` non-relevant candidates
    (:func:`recbias.designs.nonrelevant_pool_sizes`); 1 when nobody has a relevant test item.
    """
    if not 0 < min_share <= 1:
        raise ValueError(f"min_share must lie in (0, 1], got {min_share!r}")
    rated = np.flatnonzero(np.bincount(test.users[test.positive], minlength=test.n_users))
    if not len(rated):
        return 1
    pool = np.sort(nonrelevant_pool_sizes(train, test, candidates)[rated])[::-1]
    return int(pool[int(np.ceil(min_share * len(rated))) - 1]) + 1


def growing_target_sets(
    train: Ratings,
    test: Ratings,
    sizes: Sequence[int],
    *,
    candidates: str = "TI",
    min_share: float = 0.5,
    max_users: int | None = None,
    shared_negatives: bool = False,
    seed: int = 0,
) -> dict[int, Runs]:
    """1R target sets ``T_u^r`` of every size in ``sizes`` for one population of users.

    Growing ``|T_u^r|`` (IRJ 2017 Fig. 3 and 4, right) would otherwise change who is
    evaluated, since a user's runs need ``|T_u^r| - 1`` non-relevant candidates
    (:func:`recbias.designs.nonrelevant_pool_sizes`).  Sizes above
    :func:`largest_target_size` (``min_share``) are dropped; the users who can hold the
    largest size kept, subsampled to ``max_users`` with ``seed`` when given, are the
    population of every size.  Size ``s`` is the design ``1R {candidates}-NN(s - 1)``,
    drawn with :func:`fold_seed` ``(seed, s)``.  Returns ``{size: runs}`` for the sizes
    kept, ascending (empty when none is feasible).
    """
    if any(int(s) != s or s < 2 for s in sizes):
        raise ValueError(f"target sizes must be integers >= 2 (one relevant item and at least one other), got {sizes}")
    largest = largest_target_size(train, test, candidates=candidates, min_share=min_share)
    kept = sorted({int(s) for s in sizes if s <= largest})
    if not kept:
        return {}
    rated = np.flatnonzero(np.bincount(test.users[test.positive], minlength=test.n_users))
    population = rated[nonrelevant_pool_sizes(train, test, candidates)[rated] >= kept[-1] - 1]
    if max_users is not None and len(population) > max_users:
        population = np.sort(np.random.default_rng(seed).choice(population, int(max_users), replace=False))
    return {
        size: build_runs(train, test, f"1R {candidates}-NN({size - 1})", seed=fold_seed(seed, size),
                         shared_negatives=shared_negatives, users=population)
        for size in kept
    }

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

Two pieces of Bellogín, Castells and Cantador (IRJ 2017, Section 3) live
here as well: :func:`lemma_sweep` (the AR bounds of 1R precision, Eq. 2 and
Fig. 3) and :func:`fig1_toy`, the hand-made rating matrix of their Fig. 1.
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
from recbias.ratings import Ratings
from recbias.recommenders import Recommender, make
from recbias.runs import Runs
from recbias.theory import lemma_bounds

__all__ = [
    "PAPER_SYSTEMS",
    "TOY_ITEMS",
    "TOY_USERS",
    "fold_seed",
    "Experiment",
    "Fold",
    "fig1_toy",
    "fit_systems",
    "growing_target_sets",
    "largest_target_size",
    "lemma_sweep",
    "make_folds",
    "evaluate_fold",
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

_SPLIT_METHODS = ("coin", "kfold", "temporal")


# ------------------------------------------------------------------------------- folds


@dataclass(frozen=True, eq=False)
class Fold:
    """One training/test split of an experiment.

    Attributes:
        index: 0, 1, ... within the experiment.
        train, test: the two rating sets (same code space).
        method: ``"coin"``, ``"kfold"`` or ``"temporal"``.
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
    ratings: Ratings, *, method: str = "coin", folds: int = 5, test_ratio: float = 0.2, seed: int = 0
) -> list[Fold]:
    """Training/test splits of ``ratings``.

    * ``"coin"``: ``folds`` independent coin-flip splits (each rating goes to test with
      probability ``test_ratio``), the procedure of IRJ 2017 Section 3.3; fold ``k`` is
      drawn with :func:`fold_seed` ``(seed, k)``.
    * ``"kfold"``: a random partition into ``folds`` folds, each the test set once
      (``test_ratio`` is then ``1 / folds`` and the argument is ignored).
    * ``"temporal"``: one split, the most recent ``test_ratio`` of the ratings in test
      (needs timestamps; ``folds`` must be 1).
    """
    if method not in _SPLIT_METHODS:
        raise ValueError(f"unknown split method {method!r}; use one of {', '.join(_SPLIT_METHODS)}")
    if int(folds) != folds or folds < 1:
        raise ValueError(f"folds must be a positive integer, got {folds!r}")
    if method == "coin":
        out = []
        for k in range(int(folds)):
            s = fold_seed(seed, k)
            train, test = splitting.random_split(ratings, test_ratio, seed=s)
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
        metrics: metric specs of :func:`recbias.metrics.parse_metric`.
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
    for fold in fold_list:
        clock = time.perf_counter()
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, cache=cache, seed=seed)
        seconds["fit"] += time.perf_counter() - clock

        clock = time.perf_counter()
        runs_of_design = {}
        for d, spec in enumerate(specs):
            runs = build_runs(
                fold.train,
                fold.test,
                spec,
                seed=fold_seed(seed, 1000 * fold.index + d),
                on_shortage=on_shortage,
                shared_negatives=shared_negatives,
            )
            runs_of_design[spec.name] = runs
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

        tables.append(evaluate_fold(
            fold, fitted, runs_of_design, metrics, dataset=ratings.name, ties=ties, seed=seed, seconds=seconds
        ))
    return Experiment(runs=_categorical(pd.concat(tables, ignore_index=True)), reports=pd.DataFrame(reports), seconds=seconds)


def _categorical(table: pd.DataFrame) -> pd.DataFrame:
    """``dataset``, ``design`` and ``system`` as categories in order of appearance."""
    for column in ("dataset", "design", "system"):
        table[column] = pd.Categorical(table[column], categories=list(dict.fromkeys(table[column])))
    return table


def evaluate_fold(
    fold: Fold,
    fitted: Mapping[str, Recommender],
    runs: Mapping[str, Runs],
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    dataset: str | None = None,
    ties: str = "random",
    seed: int = 0,
    seconds: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Per-run table of every fitted system on every runs object of one fold.

    ``runs`` maps a label (the ``design`` column of the table: a design name, or any
    name of a point of a sweep, e.g. a thinned test set) to its runs.  Each system scores
    the candidates of all runs objects with one :class:`~recbias.evaluate.Candidates` pass,
    so a sweep of many target sets costs one scoring per (fold, system).  Ties are broken
    with :func:`fold_seed` ``(seed, fold.index)``.  Columns: ``dataset`` (default: the
    name of the fold's training set), ``fold``, ``design``, ``system``, ``run``, ``user``, ``group`` and one
    per metric.  ``seconds``, when given, accumulates the ``score`` and ``evaluate`` times.
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
            table = evaluate_runs(design_runs, score, metrics, ties=ties, seed=fold_seed(seed, fold.index))
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
    population of every size.  Size ``s`` is the design
    ``1R {candidates}-NN(s - 1)``, drawn with :func:`fold_seed` ``(seed, s)``.  Returns
    ``{size: runs}`` for the sizes kept, ascending (empty when none is feasible).
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


# --------------------------------------------------------------------- lemma (Eq. 2)


def _lemma_runs(train: Ratings, test: Ratings, size: int, seed: int, users: np.ndarray | None) -> Runs:
    runs = build_runs(
        train, test, f"1R TI-NN({size - 1})", seed=seed, shared_negatives=True, on_shortage="exclude"
    )
    if users is not None:
        runs = runs.subset(np.isin(runs.users, users))
    return runs


def lemma_sweep(
    train: Ratings,
    test: Ratings,
    systems: Mapping[str, Recommender],
    *,
    n: int = 10,
    target_sizes: Sequence[int] = (100, 200, 400, 600, 800, 1000),
    removed: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9),
    base_size: int = 100,
    max_users: int | None = None,
    min_share: float = 0.5,
    seed: int = 0,
) -> pd.DataFrame:
    """1R precision and its AR bounds (IRJ 2017 Eq. 2) along the two sweeps of their Fig. 3.

    Both sweeps use 1R TI-NN target sets ``T_u^r`` of ``size`` items (``size - 1``
    non-relevant ones) whose non-relevant items are shared by all the runs of a user,
    the assumption of the lemma, and :func:`recbias.theory.lemma_bounds`:

    * ``"removed test ratings"``: ``|T_u^r| = base_size``, a ``removed`` fraction of the
      test ratings dropped at random (:func:`recbias.splits.remove_test_ratings`,
      nested: what is gone at 20% is gone at 40%);
    * ``"target size"``: the whole test set, ``|T_u^r|`` over ``target_sizes``.

    The target-size sweep keeps one population of users: those who have enough
    non-relevant candidates at the largest size, subsampled to ``max_users`` users with
    ``seed`` when given.  Sizes are dropped from the top until that population holds at
    least ``min_share`` of the users with a relevant test item.

    Returns one row per (sweep, x, system): ``lower``, ``value``, ``upper``, ``runs``,
    ``users`` and ``holds`` (``lower <= value <= upper``).
    """
    rows = []

    def record(sweep: str, x: float, runs: Runs) -> None:
        if runs.n_runs == 0:
            return
        candidates = Candidates([runs])
        for label, system in systems.items():
            (score,) = candidates.score(system)
            bounds = lemma_bounds(runs, score, n)
            rows.append(
                {
                    "sweep": sweep,
                    "x": x,
                    "system": label,
                    "lower": bounds.lower,
                    "value": bounds.value,
                    "upper": bounds.upper,
                    "runs": runs.n_runs,
                    "users": len(np.unique(runs.users)),
                    "holds": bounds.lower <= bounds.value <= bounds.upper,
                }
            )

    for k, fraction in enumerate(removed):
        thinned = splitting.remove_test_ratings(test, fraction, seed=seed) if fraction > 0 else test
        record("removed test ratings", float(fraction), _lemma_runs(train, thinned, base_size, fold_seed(seed, k), None))

    sizes = sorted(int(s) for s in target_sizes)
    n_users = len(np.unique(test.users[test.values >= test.positive_threshold]))
    eligible = np.empty(0, dtype=np.int64)
    while sizes:
        widest = _lemma_runs(train, test, sizes[-1], fold_seed(seed, 100), None)
        eligible = np.unique(widest.users)
        if len(eligible) >= min_share * n_users:
            break
        sizes.pop()
    if sizes:
        if max_users is not None and len(eligible) > max_users:
            eligible = np.sort(np.random.default_rng(seed).choice(eligible, max_users, replace=False))
        for k, size in enumerate(sizes):
            record("target size", float(size), _lemma_runs(train, test, size, fold_seed(seed, 200 + k), eligible))
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------- toy (Fig. 1)

#: users and items of the toy matrix; the target user is ``u``
TOY_USERS = ("u", "v", "w")
TOY_ITEMS = ("a", "b", "c", "d", "e", "f", "g")
#: (user, item, stars); positive means 4 stars or more
TOY_TRAIN = (("u", "f", 5), ("u", "g", 2), ("v", "a", 5), ("v", "d", 2), ("w", "a", 5), ("w", "e", 5))
TOY_TEST = (("u", "d", 5), ("u", "e", 4), ("v", "b", 2), ("v", "f", 5), ("w", "c", 5), ("w", "g", 1))


def fig1_toy() -> tuple[Ratings, Ratings]:
    """Training and test ratings of a toy matrix with the properties of IRJ 2017 Fig. 1.

    User ``u`` liked ``d`` and ``e`` in the test set and rated ``f`` and ``g`` in training;
    item ``a`` has no test rating (so it is a candidate under AI only); ``b`` and ``c`` are
    test items of other users that ``u`` never rated.  Ratings of 4 or 5 stars are positive.
    """

    def build(rows: Sequence[tuple[str, str, int]]) -> Ratings:
        return Ratings(
            name="Fig. 1 toy",
            users=np.array([TOY_USERS.index(u) for u, _, _ in rows]),
            items=np.array([TOY_ITEMS.index(i) for _, i, _ in rows]),
            values=np.array([v for _, _, v in rows], dtype=float),
            timestamps=None,
            user_ids=np.array(TOY_USERS),
            item_ids=np.array(TOY_ITEMS),
            scale=(1, 5),
            positive_threshold=4,
            description="hand-made stars",
        )

    return build(TOY_TRAIN), build(TOY_TEST)


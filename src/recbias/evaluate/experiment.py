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
  one row per (fold, design, system, run) and one column per metric; it builds,
  scores, ranks and measures the runs one block of users at a time
  (:mod:`recbias.evaluate.blocks`), after checking that its estimated peak memory
  fits (:mod:`recbias.evaluate.memory`), and runs its tasks in process or on a
  Dask cluster (:mod:`recbias.executor`);
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
from recbias.designs import DesignSpec, build_runs, nonrelevant_pool_sizes, parse_design, plan_runs
from recbias.evaluate import (
    DEFAULT_METRICS,
    SCORE_BLOCK,
    Candidates,
    compare,
    evaluate_runs,
    metric_columns,
    summarize,
)
from recbias.evaluate import memory
from recbias.evaluate.blocks import BLOCK_ENTRIES, RunsLayout, UserBlock, check_block_entries, user_blocks
from recbias.evaluate.ranking import TieKeys
from recbias.executor import Executor, InProcess, OnDask, executor
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
    "Experiment",
    "evaluate_fold",
    "fit_systems",
    "growing_target_sets",
    "largest_target_size",
    "run_experiment",
]


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


@dataclass(frozen=True, eq=False)
class Fitted:
    """A fitted recommender and the seconds its fit took."""

    recommender: Recommender
    seconds: float


def _fit_one(label: str, system: str | Recommender, train: Ratings, key_extra: Any, cache: bool, seed: int) -> Fitted:
    """One system of :func:`fit_systems`, with the seconds its fit (or cache read) took."""
    clock = time.perf_counter()
    recommender = make(system, seed=seed) if isinstance(system, str) else system
    recommender.name = label
    recommender = fit_cached(recommender, train, key_extra) if cache else recommender.fit(train)
    return Fitted(recommender, time.perf_counter() - clock)


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
    return {label: _fit_one(label, system, train, key_extra, cache, seed).recommender
            for label, system in systems.items()}


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
        seconds: time per stage (``fit``, ``design``, ``score``, ``rank``, ``metrics``), summed
            over the tasks (over the workers' tasks on a cluster).
        blocks: the user blocks evaluated, over all folds.
    """

    runs: pd.DataFrame
    reports: pd.DataFrame
    seconds: dict[str, float] = field(default_factory=dict)
    blocks: int = 0

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


STAGES = ("fit", "design", "score", "rank", "metrics")


def _design_name(design: str | DesignSpec, n_nonrelevant: int) -> DesignSpec:
    return parse_design(design, n_nonrelevant=n_nonrelevant) if isinstance(design, str) else design


@dataclass(frozen=True, eq=False)
class DesignSource:
    """The runs of one design on one fold: drawn whole (NN samples its runs together), or, in AN,
    only laid out here and built block by block (a block's runs are those of the whole design).

    Attributes:
        label: the ``design`` column of the tables.
        spec: the design, or ``None`` for ready-made runs.
        layout: user and size of every run.
        runs: the whole runs, or ``None`` when they are built per block.
        report: the row of :attr:`Experiment.reports`.
        seconds: time spent laying out (and drawing) the runs.
    """

    label: str
    spec: DesignSpec | None
    layout: RunsLayout
    runs: Runs | None
    report: dict[str, Any]
    seconds: float = 0.0


def _design_source(dataset: str, fold: Fold, spec: DesignSpec, index: int, *, seed: int, on_shortage: str,
                   shared_negatives: bool) -> DesignSource:
    """Design ``index`` of ``fold``: its plan, its runs when they are sampled (with :func:`~recbias.splits.fold_seed`
    ``(seed, 1000 k + index)``), and its report row: what it kept and left out, ``|PR_test|``,
    candidates and the training and test sizes."""
    clock = time.perf_counter()
    plan = plan_runs(fold.train, fold.test, spec, on_shortage=on_shortage, shared_negatives=shared_negatives)
    runs = None if spec.n_nonrelevant is None else plan.materialise(fold_seed(seed, 1000 * fold.index + index))
    report = {"dataset": dataset, "fold": fold.index} | vars(plan.report) | {
        "relevant": len(plan.rel_items), "candidates": plan.n_entries,
        "train": fold.train.n_ratings, "test": fold.test.n_ratings}
    layout = RunsLayout(plan.run_users.astype(np.int64), plan.sizes)
    return DesignSource(spec.name, spec, layout, runs, report, time.perf_counter() - clock)


def _layout_of(source: DesignSource) -> tuple[RunsLayout, dict[str, Any], float]:
    """What the driver needs of a design to cut the users into blocks (not its runs)."""
    return source.layout, source.report, source.seconds


def _cut(source: DesignSource, first: int, stop: int) -> Runs | None:
    """Runs ``first .. stop - 1`` of a design drawn whole (views), ``None`` for one built per block."""
    return None if source.runs is None else source.runs.block(first, stop)


def _evaluate_block(
    fold: Fold,
    fitted: Mapping[str, Fitted],
    designs: Sequence[tuple[str, DesignSpec | None]],
    pieces: Sequence[Runs | None],
    block: UserBlock,
    *,
    score_block: int,
    metrics: Sequence[str],
    ties: str,
    seed: int,
    item_popularity: ItemPopularity | None,
) -> tuple[dict[tuple[str, str], pd.DataFrame], dict[str, float]]:
    """Per-run tables ``(system, design) -> table`` of one user block, and the seconds per stage.

    A design's runs are its piece (cut from runs drawn whole) or, for AN designs, built here for
    the block's users; every system scores the candidates of all designs with one
    :class:`~recbias.evaluate.Candidates` pass over the block's users, and each table is ranked
    with the block's first entry in the fold's tie-break stream (:func:`~recbias.splits.fold_seed` ``(seed, k)``),
    whose draws every system shares (:class:`~recbias.evaluate.ranking.TieKeys`).
    """
    seconds = dict.fromkeys(STAGES[1:], 0.0)
    clock = time.perf_counter()
    block_runs = []
    for (label, spec), piece, (first, stop) in zip(designs, pieces, block.runs, strict=True):
        if piece is None:
            piece = plan_runs(fold.train, fold.test, spec, users=block.users).materialise()
            if piece.n_runs != stop - first:
                raise RuntimeError(f"design {label}: block of users {block.users[0]}..{block.users[-1]} built "
                                   f"{piece.n_runs} runs, its layout says {stop - first}")
        block_runs.append(piece)
    candidates = Candidates(block_runs, score_block, users=block.users)
    tie_seed = fold_seed(seed, fold.index)
    tie_keys = [TieKeys(runs, ties, tie_seed, first_entry)
                for runs, first_entry in zip(block_runs, block.first_entries, strict=True)]
    seconds["design"] += time.perf_counter() - clock
    tables, scores = {}, None
    for system, fit in fitted.items():
        clock = time.perf_counter()
        scores = candidates.score(fit.recommender, out=scores)
        seconds["score"] += time.perf_counter() - clock
        for (label, _), runs, score, (first, _), first_entry, keys in zip(
                designs, block_runs, scores, block.runs, block.first_entries, tie_keys, strict=True):
            tables[(system, label)] = evaluate_runs(
                runs, score, metrics, ties=ties, seed=tie_seed, item_popularity=item_popularity,
                first_run=first, first_entry=first_entry, seconds=seconds, tie_keys=keys)
    return tables, seconds


def _block_tasks(
    executor: Executor,
    fold: Any,
    fitted: Mapping[str, Any],
    sources: Sequence[Any],
    layouts: Sequence[RunsLayout],
    designs: Sequence[tuple[str, DesignSpec | None]],
    *,
    n_items: int,
    block_entries: int,
    score_block: int,
    **options: Any,
) -> list[Any]:
    """Submit the evaluation of every user block of a fold; one handle per block."""
    handles = []
    for block in user_blocks(layouts, n_items, block_entries, score_block):
        pieces = [executor.submit(_cut, source, *span) for source, span in zip(sources, block.runs, strict=True)]
        handles.append(executor.submit(_evaluate_block, fold, fitted, designs, pieces, block, score_block=score_block,
                                       **options))
    return handles


#: the columns that head a per-run table, naming what each row was measured on
LABELS = ("dataset", "fold", "design", "system")
#: one (system, design) table of a fold and its values of :data:`LABELS`
LabelledTable = tuple[tuple[str, int, str, str], pd.DataFrame]


def _tables(designs: Sequence[str], systems: Sequence[str], fold: Fold, dataset: str,
            blocks: Sequence[tuple[dict[tuple[str, str], pd.DataFrame], dict[str, float]]],
            ) -> list[LabelledTable]:
    """The tables of a fold's blocks, one per (system, design) in that order, blocks in user order, each with its
    values of :data:`LABELS`."""
    return [((dataset, fold.index, design, system),
             pd.concat([block[0][(system, design)] for block in blocks], ignore_index=True))
            for system in systems for design in designs]


def _labelled(tables: Sequence[LabelledTable], categorical: bool) -> pd.DataFrame:
    """The ``tables`` one after the other, headed by the columns of :data:`LABELS` holding each table's labels:
    ``fold`` as integers, the others as categories in order of first appearance (``categorical``) or as strings.

    Each label column is laid out once for all rows, from one code per row, rather than written into every table
    as a string and concatenated (Arrow strings, row by row).
    """
    table = pd.concat([part for _, part in tables], ignore_index=True)
    lengths = [len(part) for _, part in tables]
    for position, column in enumerate(LABELS):
        values = [labels[position] for labels, _ in tables]
        seen = list(dict.fromkeys(value for value, length in zip(values, lengths) if length))  # as rows show them
        code_of = {value: code for code, value in enumerate(seen)}
        codes = np.repeat(np.array([code_of.get(value, 0) for value in values], dtype=np.int64), lengths)
        if column == "fold":
            labels = np.array(seen, dtype=np.int64)[codes]
        elif categorical:
            labels = pd.Categorical.from_codes(codes, categories=seen)
        else:
            labels = pd.array(np.array(seen, dtype=object)[codes], dtype="str")
        table.insert(position, column, labels)
    return table


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
    block_entries: int = BLOCK_ENTRIES,
    score_block: int = SCORE_BLOCK,
    scheduler: Any = None,
    check_memory: bool = True,
) -> Experiment:
    """Evaluate ``systems`` under every design on every fold.

    The users with runs are evaluated in consecutive blocks of about ``block_entries``
    candidate entries over all designs (:func:`recbias.evaluate.blocks.user_blocks`): AN designs
    are built block by block, NN designs are drawn whole (their samples depend on all runs
    drawn together) and cut into the same blocks, and each block is scored, ranked and measured
    before the next, so peak memory follows the block size.  The per-run tables are those of
    one block holding every user, whatever ``block_entries``.

    Args:
        ratings: the dataset (its ``positive_threshold`` defines relevance).
        designs: design names of :data:`recbias.designs.GRAMMAR` or specs.
        systems: display label -> preset name or unfitted recommender (see :func:`fit_systems`); in
            process, a recommender is fitted in place, fold after fold (it holds the last fold's
            fit afterwards); on a cluster, copies of it are fitted on the workers.
        folds: the number of folds to draw with :func:`~recbias.splits.make_folds` (``split``, ``test_ratio``,
            ``seed``), or ready-made folds.
        metrics: metric specs of :func:`recbias.metrics.parse_metric`; those that need item
            popularity (``PSR``, ``novelty``, ``IPS-*``, ``SNIPS-*``) get
            :meth:`~recbias.metrics.ItemPopularity.from_ratings` ``(ratings, fold.test, train=fold.train)``:
            counts over the dataset, the fold's positive test ratings and, for the
            propensities, its positive training counts.
        seed: seeds the splits, the recommenders, the sampling of non-relevant items
            (design ``d`` of fold ``k`` uses :func:`~recbias.splits.fold_seed` ``(seed, 1000 k + d)``) and
            the random tie-break.
        ties: tie policy of :func:`recbias.evaluate.rank_runs`.
        cache: reuse fits through :mod:`recbias.cache`.
        n_nonrelevant, on_shortage, shared_negatives: passed to :func:`recbias.designs.build_runs`.
        block_entries: candidate entries of one user block.
        score_block: entries (users x items) of one dense score block
            (:class:`~recbias.evaluate.Candidates`); a user block holds whole score blocks.
        scheduler: where the tasks run (:func:`recbias.executor.executor`): ``None``
            (in process, unless ``$RECBIAS_SCHEDULER`` names a Dask scheduler), a scheduler
            address, or a ``distributed.Client``.  Fits run per (fold, system), target sets per
            (fold, design), evaluations per (fold, user block); the results are the same.
        check_memory: in process, stop with :class:`~recbias.evaluate.memory.InsufficientMemoryError`
            before anything is fitted when the estimated peak
            (:func:`~recbias.evaluate.memory.estimate_experiment`) exceeds the available memory.
    """
    block_entries = check_block_entries(block_entries)
    fold_list = (
        make_folds(ratings, method=split, folds=folds, test_ratio=test_ratio, seed=seed)
        if isinstance(folds, (int, np.integer))
        else list(folds)
    )
    specs = [_design_name(d, n_nonrelevant) for d in designs]
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"repeated designs in {names}")
    needs_popularity = any(parse_metric(m).needs_popularity for m in metrics)
    tables, reports, n_blocks = [], [], 0
    seconds = dict.fromkeys(STAGES, 0.0)
    with executor(scheduler) as runner:
        available, where = _available_memory(runner)
        if check_memory and available is not None:
            memory.check_memory(_estimate(ratings, fold_list, specs, systems, block_entries, seed), available, where)
        evaluations = []
        for fold in fold_list:  # in process, one fold at a time; on a cluster, the folds overlap
            shared = runner.scatter(fold)
            fitted = {label: runner.submit(_fit_on_fold, label, system, shared, cache, seed)
                      for label, system in systems.items()}
            sources = [runner.submit(_design_source, ratings.name, shared, spec, d, seed=seed, on_shortage=on_shortage,
                                     shared_negatives=shared_negatives) for d, spec in enumerate(specs)]
            fold_layouts = runner.gather([runner.submit(_layout_of, source) for source in sources])
            popularity = ItemPopularity.from_ratings(ratings, fold.test, train=fold.train) if needs_popularity else None
            blocks = _block_tasks(runner, shared, fitted, sources, [layout for layout, _, _ in fold_layouts],
                                  [(spec.name, spec) for spec in specs], n_items=ratings.n_items,
                                  block_entries=block_entries, score_block=score_block, metrics=metrics, ties=ties,
                                  seed=seed,
                                  item_popularity=popularity if popularity is None else runner.scatter(popularity))
            evaluations.append((fold, fold_layouts, [runner.submit(_seconds_of, fit) for fit in fitted.values()],
                                blocks))
        for fold, fold_layouts, fit_seconds, blocks in evaluations:
            results = runner.gather(blocks)
            seconds["fit"] += sum(runner.gather(fit_seconds))
            for _, report, design_seconds in fold_layouts:
                reports.append(report)
                seconds["design"] += design_seconds
            for _, block_seconds in results:
                for stage, value in block_seconds.items():
                    seconds[stage] += value
            tables.extend(_tables(names, list(systems), fold, ratings.name, results))
            n_blocks += len(results)
    return Experiment(runs=_labelled(tables, categorical=True), reports=pd.DataFrame(reports), seconds=seconds,
                      blocks=n_blocks)


def _fit_on_fold(label: str, system: str | Recommender, fold: Fold, cache: bool, seed: int) -> Fitted:
    """:func:`_fit_one` on the fold's training set, keyed in the cache by the fold."""
    return _fit_one(label, system, fold.train, fold.key, cache, seed)


def _seconds_of(fit: Fitted) -> float:
    return fit.seconds


def _estimate(ratings: Ratings, folds: Sequence[Fold], specs: Sequence[DesignSpec],
              systems: Mapping[str, str | Recommender], block_entries: int, seed: int) -> memory.MemoryEstimate:
    """:func:`recbias.evaluate.memory.estimate_experiment` for the fold with the largest test set."""
    fold = max(folds, key=lambda f: f.test.n_ratings)
    liked = fold.test.positive
    unfitted = {label: make(system, seed=seed) if isinstance(system, str) else system
                for label, system in systems.items()}
    return memory.estimate_experiment(
        ratings.shape, ratings.n_ratings, fold.test.n_ratings, int(liked.sum()),
        int(np.count_nonzero(np.bincount(fold.test.users[liked], minlength=ratings.n_users))),
        specs, unfitted, block_entries)


def _available_memory(runner: Executor) -> tuple[int | None, str]:
    """The memory a task may use: what this machine has available, or the smallest memory limit
    of the cluster's workers (``None``, no check, when they have none)."""
    if isinstance(runner, OnDask):
        limits = [w.get("memory_limit") or 0 for w in runner.client.scheduler_info()["workers"].values()]
        return (min(limits) if limits and min(limits) > 0 else None), "the smallest Dask worker"
    return memory.available_memory(), "this machine"


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
    block_entries: int = BLOCK_ENTRIES,
    score_block: int = SCORE_BLOCK,
) -> pd.DataFrame:
    """Per-run table of every fitted system on every runs object of one fold.

    ``runs`` maps a label (the ``design`` column of the table: a design name, or any name
    of a point of a sweep, e.g. a thinned test set) to its runs.  Each system scores the
    candidates of all runs objects with one :class:`~recbias.evaluate.Candidates` pass per
    user block of about ``block_entries`` entries (one block when some runs object is not
    listed user after user; dense score blocks of ``score_block`` entries), so a sweep of
    many target sets costs one scoring per (fold, system).  Ties are broken with
    :func:`~recbias.splits.fold_seed` ``(seed, fold.index)``; ``item_popularity`` is passed to
    :func:`recbias.evaluate.evaluate_runs`.  Columns: ``dataset`` (default: the name of the fold's
    training set), ``fold``, ``design``, ``system``, ``run``, ``user``, ``group`` and one per metric.
    ``seconds``, when given, accumulates the ``score``, ``rank`` and ``metrics`` times.
    """
    sources = [DesignSource(label, None, RunsLayout.of(r), r, {}) for label, r in runs.items()]
    local = InProcess()
    fits = {label: Fitted(recommender, 0.0) for label, recommender in fitted.items()}
    blocks = _block_tasks(local, fold, fits, sources, [source.layout for source in sources],
                          [(label, None) for label in runs], n_items=fold.train.n_items,
                          block_entries=block_entries, score_block=score_block, metrics=metrics, ties=ties, seed=seed,
                          item_popularity=item_popularity)
    if seconds is not None:
        for _, block_seconds in blocks:
            for stage, value in block_seconds.items():
                if stage != "design":
                    seconds[stage] = seconds.get(stage, 0.0) + value
    return _labelled(_tables(list(runs), list(fitted), fold, dataset or fold.train.name, blocks), categorical=False)


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
    drawn with :func:`~recbias.splits.fold_seed` ``(seed, s)``.  Returns ``{size: runs}`` for the sizes
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

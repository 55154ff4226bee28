"""Every protocol and the truth measured on one split of a dataset, for a whole field of systems.

:func:`truth_study` fits the field on a coin-flip split and on a uniform split and measures every
protocol of :func:`~recbias.protocol_study.protocols.protocols` (or of a plan given) on the split it
names; on each split it also reads the truth of the fits made there, so that every protocol is set
against the truth of the very models it scored.  A split is measured in two phases: its runs
are drawn once (:func:`fold_runs`), then every system scores them once, system after system
(:func:`measure_fold`); what a system gave on a split is kept (:mod:`.stored`), so another page that
measures it there reads it back.  :func:`protocol_fidelity` is the whole study over several splits, read as
the fidelity of every protocol (:func:`recbias.evaluate.fidelity.fidelity_over_seeds`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from recbias.designs import build_runs, parse_design
from recbias.evaluate import Candidates, evaluate_runs
from recbias.evaluate.complete import TrueQuality
from recbias.evaluate.fidelity import TruthStudy, fidelity_over_seeds, fit_field, system_field
from recbias.evaluate.ranking import TieKeys
from recbias.metrics.popularity import ItemPopularity
from recbias.protocol_study.protocols import Protocol, draw_seed, protocols
from recbias.protocol_study import stored
from recbias.protocol_study.random_items import random_item_runs, random_item_values
from recbias.protocol_study.stored import Reads, SystemMeasures, reads
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.cache import making, measures_dir, recommender_params
from recbias.runs import Runs
from recbias.sampled import CorrectedSample, corrected_sample
from recbias.splits import Fold, make_folds


@dataclass
class FoldRuns:
    """What one split is measured on: the runs of every design of its plain protocols, the draws of its
    corrected sampled metrics, and the source of its truth.

    Attributes:
        plain: the protocols read from the runs as they are.
        designs: their designs, each once, in order; ``runs`` and ``metrics`` follow it.
        runs: the runs of each design.
        metrics: design -> the metrics its protocols read.
        samples: protocol label -> the draw of a corrected sampled metric
            (:func:`recbias.sampled.corrected_sample`).
        complete: the complete relevance of a simulated world, when the split reads a truth there.
        random_items: the random-item runs of Coat (:func:`.random_items.random_item_runs`), when the split
            reads a truth there.
    """

    plain: list[Protocol]
    designs: list[str]
    runs: list[Runs]
    metrics: dict[str, list[str]]
    samples: dict[str, CorrectedSample]
    complete: TrueQuality | None
    random_items: Runs | None

    def candidates(self) -> Candidates:
        """One :class:`recbias.evaluate.Candidates` over every runs object, in the order of ``designs``, then
        the samples, then the random items; over every user when a world's complete relevance is read."""
        extra = [self.random_items] if self.random_items is not None else []
        return Candidates(self.runs + [s.runs for s in self.samples.values()] + extra,
                          users=None if self.complete is None else self.complete.users)


def fold_runs(protocol_list: Sequence[Protocol], fold: Fold, ratings: Ratings, seed: int, *,
              truth: bool = False, truth_metric: str | None = None) -> FoldRuns:
    """Draw the runs of one split, each design and the corrected samples with their own seed
    (:func:`~recbias.protocol_study.protocols.draw_seed`, whatever else the list holds); with ``truth``, the
    world's complete relevance (ties by item code, reading ``truth_metric`` beside its usual metrics) or, on
    Coat, the random-item runs."""
    train, test = fold.train, fold.test
    plain = [p for p in protocol_list if p.correction is None]
    designs = list(dict.fromkeys(p.design for p in plain))
    split = {p.design: p.split for p in plain}
    runs = [build_runs(train, test, d, seed=draw_seed(seed, split[d], ratings.n_items, d), on_shortage="exclude")
            for d in designs]
    metrics = {d: [p.metric for p in plain if p.design == d] for d in designs}
    samples = {p.label: corrected_sample(train, test, metric=p.metric, method=p.correction,
                                         m=parse_design(p.design).n_nonrelevant,
                                         seed=draw_seed(seed, p.split, ratings.n_items))
               for p in protocol_list if p.correction is not None}
    complete = (TrueQuality(train, ratings.true_relevance, seed=None, metrics=[truth_metric] if truth_metric else [])
                if truth and ratings.true_relevance is not None else None)
    random_items = random_item_runs(train, ratings.unbiased_test) if truth and complete is None else None
    return FoldRuns(plain, designs, runs, metrics, samples, complete, random_items)


def _read_scores(drawn: FoldRuns, corrected: Mapping[str, Protocol], scores: Sequence[np.ndarray],
                 popularity: ItemPopularity, seed: int,
                 tie_keys: Sequence[TieKeys]) -> dict[Reads, pd.Series]:
    """One system's per-user mean of every protocol (by :func:`.stored.reads`; the ``corrected`` ones by label)
    from its ``scores``; the designs' runs are ranked with their ``tie_keys``, kept for every system."""
    out = {}
    for design, design_runs, design_scores, keys in zip(drawn.designs, drawn.runs, scores, tie_keys, strict=False):
        metrics = drawn.metrics[design]
        table = evaluate_runs(design_runs, design_scores, metrics, seed=seed, item_popularity=popularity,
                              tie_keys=keys)
        means = table.groupby("user")[metrics].mean()
        for protocol in drawn.plain:
            if protocol.design == design:
                out[reads(protocol)] = means[protocol.metric]
    for (label, sample), sample_scores in zip(drawn.samples.items(), scores[len(drawn.designs):], strict=False):
        out[reads(corrected[label])] = sample.values(label, sample_scores).groupby("user")["value"].mean()
    return out


def _measure(protocol_list: Sequence[Protocol], fitted: Mapping[str, Recommender], fold: Fold, ratings: Ratings,
             seed: int, truth: bool, truth_metric: str | None) -> dict[str, SystemMeasures]:
    """Every system's :class:`.stored.SystemMeasures` on one split, each system scoring the split once."""
    popularity = replace(ItemPopularity.from_ratings(fold.train, fold.test, train=fold.train),
                         positive_counts=ratings.item_counts(positive_only=True))
    drawn = fold_runs(protocol_list, fold, ratings, seed, truth=truth, truth_metric=truth_metric)
    candidates = drawn.candidates()
    tie_keys = [TieKeys(runs, "random", seed) for runs in drawn.runs]
    corrected = {p.label: p for p in protocol_list if p.correction is not None}
    measures, random_scores, scores = {}, {}, None
    for label, recommender in fitted.items():  # each system's scores are read before the next one's overwrite them
        readers = [drawn.complete.reader(label)] if drawn.complete is not None else []
        scores = candidates.score(recommender, readers, out=scores)
        measures[label] = SystemMeasures(_read_scores(drawn, corrected, scores, popularity, seed, tie_keys))
        if drawn.random_items is not None:
            random_scores[label] = scores[-1].copy()
    if drawn.complete is not None:
        true_tables = drawn.complete.tables()
    elif drawn.random_items is not None:
        true_tables = random_item_values(drawn.random_items, random_scores, seed=seed,
                                         extra=[truth_metric] if truth_metric else [])
    else:
        true_tables = {}
    for label, system in measures.items():
        system.truth = {metric: table[label] for metric, table in true_tables.items()}
    return measures


def _kept_or_measured(protocol_list: Sequence[Protocol], fitted: Mapping[str, Recommender], fold: Fold,
                      ratings: Ratings, seed: int, truth: bool, truth_metric: str | None) -> dict[str, SystemMeasures]:
    """Every system's measures on one split, read from the cache (:mod:`.stored`) where kept; the systems that
    lack some protocol score those they lack (each draws as it would in the whole list), under the split's lock,
    and are kept again."""
    split_key = stored.fold_key(fold, ratings, seed, truth, truth_metric)
    keys = {label: stored.system_key(split_key, recommender) for label, recommender in fitted.items()}

    def kept() -> dict[str, SystemMeasures]:
        return {label: stored.load(keys[label], recommender) for label, recommender in fitted.items()}

    measures = kept()
    if all(m.covers(protocol_list, truth) for m in measures.values()):
        return measures
    with making(measures_dir(), split_key):
        measures = kept()  # measured meanwhile by a page built at once
        missing = {label: fitted[label] for label, m in measures.items() if not m.covers(protocol_list, truth)}
        if not missing:
            return measures
        wanted = [p for p in protocol_list if any(reads(p) not in measures[label].protocols for label in missing)]
        for label, new in _measure(wanted, missing, fold, ratings, seed, truth, truth_metric).items():
            measures[label] = measures[label].merged(new)
            stored.store(keys[label], fitted[label], measures[label])
    return measures


def measure_fold(
    protocol_list: Sequence[Protocol], fitted: Mapping[str, Recommender], fold: Fold, ratings: Ratings, seed: int,
    *, truth: bool = False, truth_metric: str | None = None, cache: bool = False,
) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    """Per-user means (users x systems) of every protocol of one split, and with ``truth`` the truth's tables
    (with ``truth_metric`` among them, when given).

    Every system scores the fold once: one :class:`recbias.evaluate.Candidates` holds the runs of
    every design, the draws of the corrected sampled metrics and Coat's random-item runs, and the
    complete relevance of a simulated world reads the same score blocks
    (:class:`recbias.evaluate.complete.TrueQuality`).  Popularity-aware metrics read the dataset's
    positive counts (stratified recall) and the fold's training counts (IPS, SNIPS).  With ``cache``, each
    system's measures are kept (:mod:`.stored`), and a system measured on this split under every protocol of
    the list, by this code, is not scored again, and the others score only the protocols one of them lacks; a
    split being measured by another process is waited for.
    """
    measures = (_kept_or_measured(protocol_list, fitted, fold, ratings, seed, truth, truth_metric) if cache
                else _measure(protocol_list, fitted, fold, ratings, seed, truth, truth_metric))
    values = {p.label: pd.DataFrame({label: m.protocols[reads(p)] for label, m in measures.items()})
              for p in protocol_list}
    metrics = next(iter(measures.values())).truth if truth and measures else {}
    return values, {metric: pd.DataFrame({label: m.truth[metric] for label, m in measures.items()})
                    for metric in metrics}


def truth_kind(ratings: Ratings) -> str:
    """The truth ``ratings`` carry, as :func:`truth_study` reads it: ``"complete relevance"`` (a simulated world),
    ``"random items"`` (ratings of items drawn uniformly at random, as Coat's), or ``""`` for none."""
    if ratings.true_relevance is not None:
        return "complete relevance"
    return "random items" if ratings.unbiased_test is not None else ""


def truth_study(
    ratings: Ratings,
    *,
    seed: int = 0,
    split: int = 0,
    test_ratio: float = 0.2,
    systems: Mapping[str, Recommender] | None = None,
    sampled_m: int = 100,
    cache: bool = True,
    plan: Sequence[Protocol] | None = None,
    truth_metric: str | None = None,
) -> TruthStudy:
    """Fit the field on a coin-flip split and a uniform split of ``ratings`` and measure everything.

    The splits are fold ``split`` of :func:`recbias.splits.make_folds` with ``seed``
    (``method="coin"`` and ``"uniform"``), so the systems that other chapters fit on the
    same folds are loaded from the fit cache; the blends of the field share the fit of its MF
    (:func:`recbias.evaluate.fidelity.fit_field`).  The truth comes from
    ``ratings.true_relevance`` (simulated worlds: each fit judged over every item outside its own
    training set) or ``ratings.unbiased_test`` (Coat: each fit ranks the user's random items); a
    dataset with neither raises ``ValueError``.  The coin-flip fits give the study's ``truth``, the
    uniform fits the truth of the uniform protocols (``truth_of``).  The uniform protocols are left
    out when no uniform split exists at ``test_ratio``.  ``plan`` restricts the study to those protocols
    (default: every protocol of :func:`~recbias.protocol_study.protocols.protocols` for the catalogue);
    ``truth_metric`` (a metric spec with a cutoff) is read on the truth beside its usual metrics.
    """
    if not truth_kind(ratings):
        raise ValueError(
            f"dataset '{ratings.name}' has no ground truth: chapter 8 needs a simulated world "
            "(true relevance) or Coat (ratings of random items)"
        )
    field = dict(systems) if systems is not None else system_field(seed)
    unfitted = copy.deepcopy(field)  # the uniform split's fits, apart from the coin-flip split's
    plan = list(plan) if plan is not None else protocols(ratings.n_items, sampled_m)
    coin = make_folds(ratings, folds=split + 1, test_ratio=test_ratio, seed=seed)[split]
    coin_fit = fit_field(field, coin.train, key_extra=coin.key, cache=cache, seed=seed)
    values, truth = measure_fold([p for p in plan if p.split == "coin"], coin_fit, coin, ratings, seed, truth=True,
                                 truth_metric=truth_metric, cache=cache)
    uniform = [p for p in plan if p.split == "uniform"]
    try:
        uniform_fold = make_folds(ratings, method="uniform", folds=split + 1, test_ratio=test_ratio, seed=seed)[split]
    except ValueError:
        uniform_fold = None  # no uniform profile exists at this test ratio: U protocols are left out
    truth_of = {}
    if uniform and uniform_fold is not None:
        uniform_fit = fit_field(unfitted, uniform_fold.train, key_extra=uniform_fold.key, cache=cache, seed=seed)
        uniform_values, uniform_truth = measure_fold(uniform, uniform_fit, uniform_fold, ratings, seed, truth=True,
                                                     truth_metric=truth_metric, cache=cache)
        values |= uniform_values
        truth_of = dict.fromkeys(uniform_values, uniform_truth)
    ordered = {p.label: values[p.label] for p in plan if p.label in values}
    return TruthStudy(protocols=ordered, truth=truth, systems=list(field), dataset=ratings.name, seed=seed,
                      split=split, truth_of=truth_of)


def headline_truth(study: TruthStudy, requested: str | None = None) -> str:
    """The truth systems are ordered by: ``requested`` when given (read by :func:`truth_study` with
    ``truth_metric``); else precision at 10 on a world's complete relevance, and on random items (Coat) nDCG at
    5 with the ratings as gains, which reads more of the 16 ratings a user gives there than binary precision
    does."""
    if requested is not None:
        return requested
    return "nDCG@5" if "nDCG@5" in study.truth else next(iter(study.truth))


def protocol_fidelity(ratings: Ratings, *, seed: int = 0, splits: int = 1, n_boot: int = 200,
                      systems: Callable[[int], Mapping[str, Recommender]] = system_field,
                      plan: Sequence[Protocol] | None = None, cache: bool = True,
                      truth_metric: str | None = None) -> tuple[pd.DataFrame, str]:
    """:func:`truth_study` of the systems ``systems(seed)`` (today's field by default) on the first ``splits``
    coin-flip splits of ``ratings`` and the fidelity of every protocol of ``plan`` to the truth read with
    ``truth_metric`` (default: the headline truth, :func:`headline_truth`) over those splits
    (:func:`recbias.evaluate.fidelity.fidelity_over_seeds`, most faithful first), with the truth's name."""
    (found,) = fidelity_by_set(ratings, {"systems": systems(seed)}, seed=seed, splits=splits, n_boot=n_boot,
                               plan=plan, cache=cache, truth_metric=truth_metric).values()
    return found


def merge_sets(sets: Mapping[str, Mapping[str, Recommender]]) -> dict[str, Recommender]:
    """Every system of the sets (name -> label -> system), each label once, in order of appearance; a label
    that two sets give to systems of different classes or parameters raises ``ValueError``."""
    every: dict[str, Recommender] = {}
    for systems in sets.values():
        for label, system in systems.items():
            known = every.setdefault(label, system)
            if type(known) is not type(system) or recommender_params(known) != recommender_params(system):
                raise ValueError(f"two sets name different systems {label!r}: {known!r} and {system!r}")
    return every


def fidelity_by_set(ratings: Ratings, sets: Mapping[str, Mapping[str, Recommender]], *, seed: int = 0,
                    splits: int = 1, n_boot: int = 200, plan: Sequence[Protocol] | None = None,
                    cache: bool = True, truth_metric: str | None = None) -> dict[str, tuple[pd.DataFrame, str]]:
    """:func:`protocol_fidelity` of each set of systems (name -> label -> unfitted system), from one
    :func:`truth_study` per split of every system of every set: a label in several sets names one system,
    fitted and measured once.  Each set's fidelity is the same as from a study of that set alone (every
    system scores the same runs; the resamples of users do not depend on the systems)."""
    every = merge_sets(sets)
    studies = [truth_study(ratings, seed=seed, split=s, systems=every, plan=plan, cache=cache,
                           truth_metric=truth_metric) for s in range(splits)]
    truth_metric = headline_truth(studies[0], truth_metric)
    return {name: (fidelity_over_seeds([study.among(list(systems)) for study in studies], truth_metric,
                                       n_boot=n_boot), truth_metric)
            for name, systems in sets.items()}

"""The papers' Figs. 8 and 9 measured on one dataset, and the choice of the second dataset."""

from __future__ import annotations

from collections.abc import Sequence

from recbias import datasets
from recbias.chapters.c05_neutralising_designs.study.designs import (
    GAMMAS, POWERS, DatasetStudy, coin_experiment, design_summary, labelled, matched_nonrelevant, one_relevant_size,
    sweep_metrics, too_big_for_all_items, uniform_experiment,
)
from recbias.chapters.c05_neutralising_designs.study.plan import uniform_plan
from recbias.chapters.c05_neutralising_designs.study.residual import residual_lift
from recbias.ratings import Ratings
from recbias.splits import make_folds

#: why a second dataset is or is not studied: see :func:`second_status`
SKIPPED, SAME, UNAVAILABLE, AVAILABLE = "skipped", "same", "unavailable", "available"


def second_status(requested: str, dataset: str) -> str:
    """Whether the page studies the second dataset ``requested``: :data:`SKIPPED` when none is asked for,
    :data:`SAME` when it is the page's own ``dataset``, :data:`UNAVAILABLE` when its files are not on the
    machine, :data:`AVAILABLE` otherwise."""
    if not requested:
        return SKIPPED
    if requested == dataset:
        return SAME
    return AVAILABLE if datasets.available(requested) else UNAVAILABLE


def positive_only(ratings: Ratings) -> Ratings:
    """The positive ratings alone: every rating left counts as relevant (the papers' Last.fm setup)."""
    return ratings.subset(ratings.positive)


def study_dataset(ratings: Ratings, *, folds: int = 5, test_ratio: float = 0.2, min_train_ratio: float = 0.2,
                  target_size: int = 100, percentiles: int = 10, head: float = 0.1, gammas: Sequence[float] = GAMMAS,
                  powers: Sequence[float] = POWERS, max_entries: int = 25_000_000, nonrelevant: int = 2500,
                  seed: int = 0) -> DatasetStudy:
    """The papers' Figs. 8 and 9 on one dataset (:mod:`.designs`), with IPS/SNIPS and stratified-recall sweeps.

    AR TI-NN(k) takes ``k`` the mean number of non-relevant items of the UAR target sets (the papers' 1,700 on
    ML-1M); AN designs whose target sets would exceed ``max_entries`` entries sample ``nonrelevant`` items
    instead (NN), as the papers did on Last.fm.  Popularity's residual advantage is predicted on the first
    fold of each kind (:func:`.residual.residual_lift`).
    """
    plan = uniform_plan(ratings, test_ratio, min_train_ratio)
    size = one_relevant_size(ratings, target_size, percentiles)
    too_big = too_big_for_all_items(ratings, max_entries)
    uniform_folds = make_folds(ratings, method="uniform", folds=folds, test_ratio=plan.used,
                               min_train_ratio=min_train_ratio, seed=seed)
    designs, uniform = uniform_experiment(ratings, uniform_folds, size, too_big=too_big, nonrelevant=nonrelevant,
                                          seed=seed)
    coin_folds = make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed)
    coin_designs, coin = coin_experiment(ratings, coin_folds, size, percentiles=percentiles, head=head,
                                         matched=matched_nonrelevant(uniform.reports, designs["UAR"]),
                                         too_big=too_big, nonrelevant=nonrelevant,
                                         metrics=sweep_metrics(gammas, powers), seed=seed)
    designs |= coin_designs
    runs, reports = labelled(designs, uniform, *coin)
    uniform_fold = make_folds(ratings, method="uniform", folds=1, test_ratio=plan.used,
                              min_train_ratio=min_train_ratio, seed=seed)[0]
    p10 = design_summary(runs, ["P@10"]).set_index(["design", "system"])["mean"]
    lift = residual_lift(ratings, plan, {"AR TI-AN": coin_folds[0], "UAR": uniform_fold, "U1R": uniform_fold},
                         designs, p10, test_ratio=test_ratio, seed=seed)
    return DatasetStudy(ratings.name, plan, designs, runs, reports, lift)

"""Popularity's advantage over random, predicted from the item weights of IRJ 2017 Eq. 3 and measured.

Read as a ratio, Eq. 3 predicts popularity's P@n over random's as the mean weight of the items
popularity ranks first over the mean weight of all candidates.  On a random split the weight is
``|PR(i)|``; on a uniform split, where ``E[|PR_test(i)|] = eta |PR(i)| / |R(i)|`` on ``T``, it is the
positive ratio ``|PR(i)| / |R(i)|``.  A second prediction adds what the papers leave out: a user can
only hold a test rating of ``i`` if she has no training rating of it, so each remaining user's chance
is ``E[|PR_test(i)|] / (|U| - |R_train(i)|)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c05_neutralising_designs.study.designs import N
from recbias.chapters.c05_neutralising_designs.study.plan import UniformPlan
from recbias.designs import build_runs
from recbias.evaluate import Candidates, rank_positions
from recbias.evaluate.experiment import fit_systems
from recbias.metrics._view import RankedView
from recbias.ratings import Ratings
from recbias.splits import Fold

#: the designs whose advantage is predicted, with the item weight of the paper's reading of Eq. 3
WEIGHT_OF_THE_PAPER = {"AR TI-AN": "|PR(i)|", "UAR": "|PR(i)| / |R(i)|", "U1R": "|PR(i)| / |R(i)|"}


def lift_prediction(fold: Fold, design: str, seed: int, weights: Sequence[np.ndarray]) -> list[float]:
    """Eq. 3 read as a ratio, for each item weight: the mean weight of popularity's top n over the
    mean weight of all candidates, averaged over runs."""
    runs = build_runs(fold.train, fold.test, design, seed=seed, on_shortage="exclude")
    popularity = fit_systems({"Popularity": "popularity"}, fold.train, key_extra=fold.key, seed=seed)["Popularity"]
    (scores,) = Candidates([runs]).score(popularity)
    items, run_of = RankedView(rank_positions(runs, scores, seed=seed)).top_items(N)
    listed = np.maximum(np.bincount(run_of, minlength=runs.n_runs), 1)
    lifts = []
    for weight in weights:
        top = np.bincount(run_of, weights=weight[items], minlength=runs.n_runs) / listed
        everything = np.bincount(runs.run_of_entry, weights=weight[runs.items], minlength=runs.n_runs) / runs.sizes
        lifts.append(float(top.mean() / everything.mean()))
    return lifts


def _weights(ratings: Ratings, plan: UniformPlan, label: str, fold: Fold, test_ratio: float) -> list[np.ndarray]:
    """The paper's item weight of ``label`` and the per-user chance of a test rating with training excluded."""
    counts, positive = ratings.item_counts(), ratings.item_counts(positive_only=True)
    ratio = np.divide(positive, counts, out=np.zeros(len(counts)), where=counts > 0)
    if label == "AR TI-AN":
        paper, expected = positive.astype(float), test_ratio * positive
    else:  # under U, E[|PR_test(i)|] = eta |PR(i)| / |R(i)| on T
        paper = ratio
        expected = plan.eta * ratio * np.isin(np.arange(ratings.n_items), np.flatnonzero(fold.test.item_counts()))
    # a user can only hold a test rating of i if she has no training rating of i
    return [paper, expected / np.maximum(ratings.n_users - fold.train.item_counts(), 1)]


def residual_lift(ratings: Ratings, plan: UniformPlan, folds: Mapping[str, Fold], designs: Mapping[str, str],
                  p10: pd.Series, *, test_ratio: float, seed: int) -> pd.DataFrame:
    """One row per design of :data:`WEIGHT_OF_THE_PAPER`: its item weight, the two predictions of
    popularity's P@10 over random's on ``folds[label]`` (the papers' reading, and with the training exclusion)
    and the measured ratio (``p10``: mean P@10 by design and system)."""
    rows = []
    for label, weight in WEIGHT_OF_THE_PAPER.items():
        fold = folds[label]
        paper, excluded = lift_prediction(fold, designs[label], seed, _weights(ratings, plan, label, fold, test_ratio))
        measured = p10[(designs[label], "Popularity")] / p10[(designs[label], "Random")]
        rows.append({"design": label, "item weight": weight, "predicted": paper,
                     "predicted, training excluded": excluded, "measured": measured})
    return pd.DataFrame(rows)

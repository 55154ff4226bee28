"""The uniform split of a dataset and the data of the papers' Figs. 6 and 7.

The uniform split of IRJ 2017 Sec. 6.2 picks the ``|T|`` most popular items and holds out
exactly ``eta`` ratings of each (:func:`recbias.splits.uniform_target`); :func:`uniform_plan`
applies that rule to a dataset, lowering the test ratio only when the popularity curve cannot
hold it.  :func:`split_profiles` holds the data of the papers' Fig. 6 (the random and the
uniform split over the popularity curve, with the P1R percentiles) and
:func:`positive_ratio_curve` that of their Fig. 7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import judgments, splits
from recbias.ratings import Ratings


@dataclass(frozen=True)
class UniformPlan:
    """``T`` and ``eta`` of the uniform split of a dataset (IRJ 2017 Sec. 6.2).

    Attributes:
        requested: the test ratio asked for.
        used: the test ratio the split was drawn with: ``requested``, or the largest feasible
            ratio (two decimals, rounded down) when the popularity curve cannot hold it.
        largest: the largest test ratio a uniform split of this dataset can hold.
        min_train_ratio: ``eps``.
        size, eta, achieved: ``|T|``, ``eta`` and ``|T| eta / |R|`` under the paper's rule.
        floor_size, floor_eta: the same under the stricter floor rule (0 when it has no split at ``used``).
        n_items: items with at least one rating.
    """

    requested: float
    used: float
    largest: float
    min_train_ratio: float
    size: int
    eta: int
    achieved: float
    floor_size: int
    floor_eta: int
    n_items: int


def uniform_plan(ratings: Ratings, test_ratio: float = 0.2, min_train_ratio: float = 0.2) -> UniformPlan:
    """The uniform split's ``T`` and ``eta`` under both rules, lowering ``sigma`` only if it is infeasible."""
    counts = ratings.item_counts()
    used = float(test_ratio)
    largest = splits.largest_uniform_ratio(counts, min_train_ratio)
    if used > largest:
        used = float(np.floor(100 * largest) / 100)
    target, eta = splits.uniform_target(counts, used, min_train_ratio)
    try:
        floor_target, floor_eta = splits.uniform_target(counts, used, min_train_ratio, rule="floor")
        floor_size = len(floor_target)
    except ValueError:  # the floor rule holds less than the paper's: no split at this ratio
        floor_size = floor_eta = 0
    return UniformPlan(float(test_ratio), used, largest, float(min_train_ratio), len(target), eta,
                       len(target) * eta / ratings.n_ratings, floor_size, floor_eta, int(np.count_nonzero(counts)))


def split_profiles(ratings: Ratings, plan: UniformPlan, percentiles: int) -> pd.DataFrame:
    """The papers' Fig. 6 data: per popularity rank, ``r(i)``, the expected test ratings of the
    random split (``sigma r(i)``), those of the uniform split (``eta`` in ``T``) and the P1R percentile."""
    counts = np.sort(ratings.item_counts())[::-1]
    counts = counts[counts > 0]
    rank = np.arange(1, len(counts) + 1)
    return pd.DataFrame({
        "rank": rank, "ratings": counts, "random test": plan.requested * counts,
        "uniform test": np.where(rank <= plan.size, plan.eta, 0),
        "percentile": (rank - 1) * percentiles // len(counts),
    })


def positive_ratio_curve(ratings: Ratings, segments: int = 100) -> pd.DataFrame:
    """``|PR(i)| / |R(i)|`` by popularity rank, averaged over ``segments`` equal slices of the
    rated items (the papers' Fig. 7; :func:`recbias.judgments.positive_ratio_by_popularity`),
    with ``segment`` counted from 0."""
    curve = judgments.positive_ratio_by_popularity(ratings, segments)
    return curve.assign(segment=curve["segment"] - 1).rename(columns={"positive_ratio": "ratio"})[
        ["segment", "rank", "ratio"]]

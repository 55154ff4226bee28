"""The metric's settings on the page, the positive threshold it judges ratings by, the audience
segmentations the dataset offers and how many ratings its newcomers can reveal."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from recbias import datasets, synthetic
from recbias.metrics import continuation_probability
from recbias.ratings import Ratings

#: systems that show every user the same list (up to noise)
NON_PERSONALISED = ("Random", "Popularity")
#: what a new user tells about herself in the paper's Fig. 4
DEMOGRAPHICS = ("gender", "age")
#: test ratings a new user must keep beyond her known ones
MIN_TEST = 10
#: the metric-grammar name of the discounted AUC (``rating`` is ``,base=...`` for rating gains)
METRIC_NAME = "bAUC@{z}(Q={Q:g},m={m},gain={gain}{rating},s={s})"


@dataclass(frozen=True)
class Setting:
    """The metric's settings on the page: attention ``Q`` on pages of ``m``, lists of ``z``, gain ``r - base``."""

    Q: float
    m: int
    z: int
    base: float

    @property
    def p(self) -> float:
        """The continuation probability ``p = Q^(1/m)`` (Bobrikov et al. 2016, Eq. 5)."""
        return continuation_probability(self.Q, self.m)

    def metric(self, s: int = 0, gain: str = "rating", Q: float | None = None) -> str:
        """The metric-grammar name of the discounted AUC with these settings, step ``s`` and ``gain``."""
        rating = ",base={:g}".format(self.base) if gain == "rating" else ""
        return METRIC_NAME.format(z=self.z, Q=self.Q if Q is None else Q, m=self.m, gain=gain, rating=rating, s=s)


def judged_at(ratings: Ratings, threshold: float | None, seed: int = 0) -> Ratings:
    """``ratings`` with a rating ``>= threshold`` positive (``None`` keeps theirs).

    A threshold above the rating scale (implicit feedback, whose only value is 1) keeps the data's
    own threshold.  A simulated world from a preset is
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


def segmentations(ratings: Ratings) -> list[tuple[str, ...]]:
    """Every user attribute with more than one value, alone, and every pair of them (empty without
    user attributes): the audience segmentations of the short-head search (Eq. 14)."""
    table = ratings.user_attributes
    if table is None or table.empty:
        return []
    attributes = [column for column in table.columns if table[column].nunique() > 1]
    return [(a,) for a in attributes] + list(combinations(attributes, 2))


def feasible_known(ratings: Ratings, max_known: int, min_users: int = 20) -> int:
    """The largest number of known ratings, at most ``max_known``, that at least ``min(min_users, |U|/4)``
    users can reveal while keeping :data:`MIN_TEST` ratings for the test; 0 if none can."""
    counts = np.sort(ratings.user_counts())[::-1]
    needed = max(1, min(min_users, ratings.n_users // 4))
    return int(np.clip(counts[needed - 1] - MIN_TEST, 0, max_known))

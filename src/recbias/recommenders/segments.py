"""One non-personalised list per audience segment, by Bayes' rule over user attributes.

Bobrikov, Nenova and Ignatov (CLA 2016, Eq. 10-12) start from a single list for everybody,
ranked by the probability that an item is liked, and refine it with what a questionnaire
says about the user (gender, age, ...).  Here the probability that a positive rating falls
on item ``i`` is ``P(i) = (n+(i) + 1) / (n+ + |I|)`` (``n+(i)`` positive training ratings of
``i``, ``n+`` all of them; the added one keeps the order of the counts).  Knowing attribute
values ``a_1..a_J`` of a user, Bayes' rule with the attributes independent given the item
(naive Bayes) gives

    P(i | a_1, ..., a_J)  ∝  P(i) prod_j P(a_j | i),
    P(a | i) = (n+(i, a) + lambda pi_a) / (n+(i) + lambda),

where ``n+(i, a)`` counts the positive ratings of ``i`` by users with value ``a`` and ``pi_a`` is
the share of all positive ratings given by those users: an item's audience is shrunk towards
the overall audience with the weight of ``lambda`` ratings, so that a rarely liked item does
not define a segment.  With no attribute the list is the global one (positive ratings per item).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender

#: bands cut from a numeric attribute (quantiles), e.g. MovieLens 100K's age in years
NUMERIC_BANDS = 5


def attribute_levels(values: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Integer level of every user for one attribute, and the level names.

    Categorical and text columns keep their values; numeric columns with more than
    :data:`NUMERIC_BANDS` distinct values are cut into that many quantile bands.  A missing
    value is a level of its own ("unknown").
    """
    if pd.api.types.is_numeric_dtype(values) and values.nunique() > NUMERIC_BANDS:
        values = pd.qcut(values, NUMERIC_BANDS, duplicates="drop").astype(str).where(values.notna())
    codes, names = pd.factorize(values, sort=True)
    names = [str(name) for name in names]
    if (codes < 0).any():
        codes = np.where(codes < 0, len(names), codes)
        names.append("unknown")
    return codes.astype(np.int64), names


def check_attributes(ratings: Ratings, attributes: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``ratings`` has a user table with every named attribute."""
    table = ratings.user_attributes
    if attributes and table is None:
        raise ValueError(f"dataset '{ratings.name}' has no user attributes, so it cannot be segmented")
    missing = [a for a in attributes if a not in table.columns] if attributes else []
    if missing:
        raise ValueError(
            f"dataset '{ratings.name}' has no user attribute {', '.join(map(repr, missing))}; "
            f"its attributes: {', '.join(table.columns)}"
        )


class SegmentPopularity(Recommender):
    """Scores ``log P(i) + sum_j log P(a_j(u) | i)``: the naive-Bayes list of the user's segment (module docstring).

    ``attributes`` names columns of ``train.user_attributes``; ``()`` gives the global list.
    ``smoothing`` is ``lambda``, the weight of the overall audience in each item's audience.
    """

    name = "SegmentPopularity"

    def __init__(self, attributes: Sequence[str] = (), smoothing: float = 10.0, seed: int = 0) -> None:
        super().__init__(seed=seed)
        if not smoothing > 0:
            raise ValueError(f"{self.name}: smoothing must be positive, got {smoothing!r}")
        if isinstance(attributes, str):
            attributes = (attributes,)
        self.attributes = tuple(attributes)
        self.smoothing = float(smoothing)

    def _fit(self, train: Ratings) -> None:
        check_attributes(train, self.attributes)
        liked_users, liked_items = train.users[train.positive], train.items[train.positive]
        per_item = np.bincount(liked_items, minlength=train.n_items).astype(np.float64)
        self.log_prior_ = np.log((per_item + 1.0) / (per_item.sum() + train.n_items))
        self.levels_, self.log_likelihoods_ = [], []
        for attribute in self.attributes:
            levels, names = attribute_levels(train.user_attributes[attribute].reindex(range(train.n_users)))
            counts = np.zeros((len(names), train.n_items))
            np.add.at(counts, (levels[liked_users], liked_items), 1.0)
            overall = counts.sum(axis=1) / max(counts.sum(), 1.0)
            share = (counts + self.smoothing * overall[:, None]) / (per_item + self.smoothing)[None, :]
            share[overall == 0] = 1.0  # a level without positive ratings says nothing about items
            self.levels_.append(levels)
            self.log_likelihoods_.append(np.log(share))

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        scores = np.broadcast_to(self.log_prior_, (len(users), self.n_items)).copy()
        for levels, log_likelihood in zip(self.levels_, self.log_likelihoods_, strict=True):
            scores += log_likelihood[levels[users]]
        return scores

"""Popularity-aware metrics: Steck's popularity-stratified recall and novelty.

Both need item statistics that runs do not carry; :class:`ItemPopularity`
holds them, built from ratings with :meth:`ItemPopularity.from_ratings`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from recbias.metrics._view import Ranked, as_view, check_cutoff, safe_divide
from recbias.metrics.propensity import propensity_from_counts
from recbias.ratings import Ratings


@dataclass(frozen=True, eq=False)
class ItemPopularity:
    """Item statistics for popularity-aware metrics.

    Attributes:
        positive_counts: ``|PR(i)|``, positive ratings of each item code (stratified recall).
        rating_counts: ``|R(i)|``, ratings of each item code (novelty).
        n_users: number of users the counts are taken over (novelty's ``p(i) = |R(i)| / n_users``).
        test_positive: optional ``n_users x n_items`` matrix of positive test ratings; stratified
            recall and SNIPS need it for their denominators when runs do not hold all of a user's
            relevant items (1R designs).
        train_positive_counts: optional positive *training* ratings of each item, from which the
            IPS and SNIPS metrics fit their propensities (:mod:`recbias.metrics.propensity`).
        outside_pairs: optional pairs of each item outside the training set (users minus the
            item's training ratings), and ``n_test`` the number of test ratings: the scale of
            those propensities.

    >>> from recbias.ratings import Ratings
    >>> ratings = Ratings.from_codes([0, 1, 1], [1, 1, 0], [5.0, 5.0, 2.0], (2, 2), positive_threshold=4)
    >>> popularity = ItemPopularity.from_ratings(ratings)
    >>> popularity.positive_counts.tolist(), popularity.rating_counts.tolist(), popularity.n_users
    ([0, 2], [1, 2], 2)
    """

    positive_counts: np.ndarray
    rating_counts: np.ndarray
    n_users: int
    test_positive: sp.csr_matrix | None = None
    train_positive_counts: np.ndarray | None = None
    outside_pairs: np.ndarray | None = None
    n_test: int | None = None

    @classmethod
    def from_ratings(cls, ratings: Ratings, test: Ratings | None = None, train: Ratings | None = None) -> ItemPopularity:
        """Counts over ``ratings`` (IRJ's ``|PR(i)|`` counts every positive rating of the
        dataset), the positive test ratings and size of ``test`` and the training counts of
        ``train`` when given."""
        return cls(
            positive_counts=ratings.item_counts(positive_only=True),
            rating_counts=ratings.item_counts(),
            n_users=ratings.n_users,
            test_positive=None if test is None else test.matrix("positive"),
            train_positive_counts=None if train is None else train.item_counts(positive_only=True),
            outside_pairs=None if train is None else train.n_users - train.item_counts(),
            n_test=None if test is None else test.n_ratings,
        )

    def propensity(self, power: float) -> np.ndarray:
        """Observation propensities ``p_i`` fitted on the training counts and scaled to the test
        set's size (:func:`propensity_from_counts`)."""
        if self.train_positive_counts is None or self.outside_pairs is None or self.n_test is None:
            raise ValueError("IPS and SNIPS metrics need propensities from the training counts and the test "
                             "size: build the ItemPopularity with "
                             "ItemPopularity.from_ratings(ratings, test, train=train)")
        return propensity_from_counts(self.train_positive_counts, power, self.outside_pairs, self.n_test)


def _stratification_weights(positive_counts: np.ndarray, items: np.ndarray, gamma: float) -> np.ndarray:
    """``|PR(i)|^(-gamma / (gamma + 1))`` for the given items; ``gamma = inf`` gives exponent -1."""
    if not gamma >= 0:
        raise ValueError(f"gamma must be non-negative (or inf), got {gamma!r}")
    counts = np.asarray(positive_counts, dtype=np.float64)[items]
    if np.any(counts <= 0):
        item = int(items[np.flatnonzero(counts <= 0)[0]])
        raise ValueError(
            f"item {item} is relevant but has no positive rating in ItemPopularity.positive_counts; "
            "count positive ratings over the whole dataset"
        )
    exponent = -1.0 if np.isinf(gamma) else -gamma / (gamma + 1.0)
    return counts**exponent


def stratified_recall(runs: Ranked, n: int, popularity: ItemPopularity, gamma: float) -> np.ndarray:
    """Popularity-stratified recall@n (Steck 2011; IRJ Section 7).

    PSR@n = sum over relevant items in the top n of w(i) / sum over the user's relevant
    test items of w(i), with ``w(i) = |PR(i)|^(-gamma/(gamma+1))``.  ``gamma = 0`` is plain
    recall; ``gamma = inf`` weights each item by ``1/|PR(i)|``.  The denominator comes from
    ``popularity.test_positive`` when given, otherwise from the run's own relevant
    candidates, which is only allowed when every run holds all ``n_relevant`` items.
    ``0`` for runs without relevant items.

    Items 0 and 2 are relevant, with 4 and 1 positive ratings; the top 1 holds item 0.  With
    ``gamma = inf`` their weights are 1/4 and 1, so PSR@1 = 0.25 / 1.25; ``gamma = 0`` is recall:

    >>> from recbias.runs import Runs
    >>> popularity = ItemPopularity(positive_counts=np.array([4, 1, 1]), rating_counts=np.array([8, 2, 2]), n_users=8)
    >>> runs = Runs.from_arrays([0, 3], users=[0], items=[0, 1, 2], labels=[1, 0, 1])
    >>> stratified_recall(runs, 1, popularity, gamma=np.inf).tolist()
    [0.2]
    >>> stratified_recall(runs, 1, popularity, gamma=0).tolist()
    [0.5]
    """
    view, n = as_view(runs), check_cutoff(n)
    weights = _stratification_weights(popularity.positive_counts, view.relevant_items, gamma)
    top = view.relevant_position < n
    numerator = view.per_run(view.relevant_run[top], weights[top])
    if popularity.test_positive is not None:
        user_totals = popularity.test_positive.astype(bool).astype(np.float64)
        indices = user_totals.indices
        user_totals.data = _stratification_weights(popularity.positive_counts, indices, gamma)
        denominator = np.asarray(user_totals.sum(axis=1)).ravel()[view.runs.users]
    else:
        if np.any(view.relevant_in_run != view.n_relevant):
            raise ValueError(
                "runs do not hold every relevant test item of their users (n_relevant exceeds the "
                "relevant candidates); build ItemPopularity with the test ratings for the denominator"
            )
        denominator = view.per_run(view.relevant_run, weights)
    return safe_divide(numerator, denominator)


def novelty(runs: Ranked, n: int, popularity: ItemPopularity) -> np.ndarray:
    """Mean self-information of the top n: (1/n') sum over the top ``n' = min(n, |T_u|)`` items
    of ``-log2 p(i)``, with ``p(i) = |R(i)| / n_users`` (Zhou et al. 2010; Vargas & Castells 2011).

    Item 0 is rated by all 8 users (0 bits), item 1 by 2 of them (2 bits):

    >>> from recbias.runs import Runs
    >>> popularity = ItemPopularity(positive_counts=np.array([4, 1, 1]), rating_counts=np.array([8, 2, 2]), n_users=8)
    >>> runs = Runs.from_arrays([0, 3], users=[0], items=[0, 1, 2], labels=[1, 0, 1])
    >>> novelty(runs, 2, popularity).tolist()
    [1.0]
    """
    view, n = as_view(runs), check_cutoff(n)
    items, entry_runs = view.top_items(n)
    counts = np.asarray(popularity.rating_counts, dtype=np.float64)[items]
    if np.any(counts <= 0):
        item = int(items[np.flatnonzero(counts <= 0)[0]])
        raise ValueError(f"item {item} is recommended but has no rating in ItemPopularity.rating_counts")
    information = -np.log2(counts / popularity.n_users)
    return safe_divide(view.per_run(entry_runs, information), np.minimum(view.sizes, n))

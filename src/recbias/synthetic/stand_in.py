"""Simulated worlds that stand in for a dataset without a ground truth (chapters 8 and 9).

A real dataset other than Coat does not say which unrated items a user would like, so the fidelity of a
protocol cannot be measured on it.  A world of :func:`recbias.synthetic.generate` can stand in for it:
:func:`world_with_truth` keeps only the dataset's size (users, items, ratings), :func:`stand_in_world`
also its shape, the shifted power law fitted to its item counts (:func:`fit_popularity_curve`), its
least active user and its share of positive ratings.  A catalogue too large for the generator's complete
matrices keeps the dataset's users and ratings and the largest number of items that fits,
``MAX_PAIRS // n_users`` (:func:`world_size`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from recbias.ratings import Ratings
from recbias.synthetic.parameters import MAX_PAIRS, ML100K_RATING_COUNTS
from recbias.synthetic.popularity import MAX_MARGIN_SHARE, fit_popularity_curve, popularity_curve
from recbias.synthetic.world import generate


def world_size(ratings: Ratings) -> dict[str, int]:
    """The generator's ``n_users``, ``n_items`` and ``n_ratings`` for a world of the size of ``ratings``: its
    users and ratings, and its items up to ``MAX_PAIRS // n_users``."""
    return {"n_users": ratings.n_users, "n_items": min(ratings.n_items, MAX_PAIRS // ratings.n_users),
            "n_ratings": ratings.n_ratings}


def world_with_truth(ratings: Ratings, seed: int = 0) -> Ratings:
    """``ratings`` when they carry a truth, otherwise a simulated world of the same size (:func:`world_size`),
    named after them (``"ml-100k-sized world"``)."""
    if ratings.true_relevance is not None or ratings.unbiased_test is not None:
        return ratings
    world = generate(seed=seed, **world_size(ratings))
    return dataclasses.replace(world, name=f"{ratings.name}-sized world")


def rating_prior(positive_ratio: float) -> tuple[float, ...]:
    """Weights of the ratings 1..5 whose share of 5s, the positive ratings at threshold 5, is
    ``positive_ratio``; the other ratings keep the proportions of MovieLens 100K."""
    if not 0.0 < positive_ratio < 1.0:
        raise ValueError(f"a world needs positive and non-positive ratings; the positive ratio is {positive_ratio:g}")
    below = np.asarray(ML100K_RATING_COUNTS[:4], dtype=np.float64)
    return (*(below / below.sum() * (1.0 - positive_ratio)), positive_ratio)


def _reachable_shift(n_items: int, n_ratings: int, alpha: float, shift: float, n_users: int) -> float:
    """``shift``, or a larger popularity shift, within 1e-9 of the smallest, at which the most popular item
    expects at most ``MAX_MARGIN_SHARE * n_users`` ratings (its expected count falls as the shift grows)."""

    def reachable(s: float) -> bool:
        top = popularity_curve(n_items, n_ratings, alpha, 0.0, s).expected(np.array([1]))[0]
        return top <= MAX_MARGIN_SHARE * n_users

    if reachable(shift):
        return shift
    low, high = shift, max(2.0 * shift, 1e-4)
    while not reachable(high):
        low, high = high, 2.0 * high
    while high - low > 1e-9:  # bisection, keeping ``high`` reachable
        middle = (low + high) / 2.0
        low, high = (low, middle) if reachable(middle) else (middle, high)
    return high


def shape_of(ratings: Ratings) -> dict[str, Any]:
    """Generator parameters of a world shaped like ``ratings``.

    Its size (:func:`world_size`); the exponent ``alpha`` and shift of the shifted power law fitted to the
    ``n_items`` largest item counts (:func:`recbias.synthetic.fit_popularity_curve`, IRJ 2017 Sec. 5.2),
    the shift raised where the most popular item would need more than ``MAX_MARGIN_SHARE`` of the users;
    the smallest user count as the activity floor; and a rating prior whose share of positive ratings
    (threshold 5) is that of ``ratings`` (:func:`rating_prior`).
    """
    size = world_size(ratings)
    counts = np.sort(ratings.item_counts())[::-1][: size["n_items"]]
    curve = fit_popularity_curve(counts)
    shift = _reachable_shift(len(counts), size["n_ratings"], curve.alpha, curve.c2 / len(counts), size["n_users"])
    floor = int(max(1, ratings.user_counts().min()))
    return size | {"alpha": curve.alpha, "popularity_shift": shift, "min_user_ratings": floor,
                   "rating_prior": rating_prior(float(ratings.positive.mean())), "positive_threshold": 5}


def stand_in_world(ratings: Ratings, seed: int = 0) -> Ratings:
    """A simulated world shaped like ``ratings`` (:func:`shape_of`), with its complete true relevance, named
    ``"<name>-shaped world"``; deterministic given ``seed``.  Raises ``ValueError`` when the generator refuses
    the shape or the ratings are all positive or all non-positive."""
    world = generate(seed=seed, **shape_of(ratings))
    return dataclasses.replace(world, name=f"{ratings.name}-shaped world")

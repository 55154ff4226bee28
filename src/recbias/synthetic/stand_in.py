"""Simulated worlds that stand in for a dataset without a ground truth (chapters 8 and 9).

A real dataset other than Coat does not say which unrated items a user would like, so the fidelity of a
protocol cannot be measured on it.  A world of :func:`recbias.synthetic.generate` can stand in for it:
:func:`world_with_truth` keeps only the dataset's size (users, items, ratings), :func:`stand_in_world`
also its shape, the shifted power law fitted to its item counts (:func:`fit_popularity_curve`), its
least active user, its share of positive ratings, and the strength of its observation bias and of the tie
between quality and popularity (:func:`fit_preferences`, fitted to how the share of positive ratings moves with
the activity of users and the popularity of items).  A catalogue too large for the generator's complete
matrices keeps the dataset's users and ratings and the largest number of items that fits,
``MAX_PAIRS // n_users`` (:func:`world_size`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from scipy import stats

from recbias.ratings import Ratings
from recbias.synthetic.parameters import MAX_PAIRS, ML100K_RATING_COUNTS
from recbias.synthetic.popularity import ALPHA_RANGE, MAX_MARGIN_SHARE, fit_popularity_curve, popularity_curve
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


#: the range searched for the generator's ``selection`` (observation bias) and ``quality_popularity`` when a world
#: is fitted to data (:func:`fit_preferences`); a fit at an end of a range copies the data only roughly
PREFERENCE_RANGES = {"selection": (0.0, 3.0), "quality_popularity": (-0.5, 0.95)}


def preference_moments(ratings: Ratings) -> np.ndarray:
    """Spearman's rank correlation between the number of ratings and the share of positive ones, over the users
    (first) and over the rated items (second); NaN where either is constant.

    Observation bias makes active users dip into items they like less, so the users' correlation falls as it
    grows; quality tied to popularity makes popular items liked more often, so the items' correlation rises.

    >>> from recbias.synthetic import generate
    >>> free, selected = (preference_moments(generate(preset="synthetic-small", selection=s)) for s in (0.0, 2.5))
    >>> bool(selected[0] < free[0])
    True
    """
    moments = []
    for codes, size in ((ratings.users, ratings.n_users), (ratings.items, ratings.n_items)):
        counts = np.bincount(codes, minlength=size)
        rated = counts > 0
        share = np.bincount(codes, weights=ratings.positive, minlength=size)[rated] / counts[rated]
        constant = np.ptp(counts[rated]) == 0 or np.ptp(share) == 0
        moments.append(np.nan if constant else stats.spearmanr(counts[rated], share).statistic)
    return np.array(moments)


def _quadratic_terms(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones_like(x), x, y, x * y, x * x, y * y])


def fit_preferences(ratings: Ratings, shape: dict[str, Any], seed: int = 0, *, steps: int = 3) -> dict[str, float]:
    """``selection`` and ``quality_popularity`` of a world of ``shape`` whose :func:`preference_moments` are
    closest to those of ``ratings``: worlds are drawn on a ``steps`` x ``steps`` grid over
    :data:`PREFERENCE_RANGES`, each moment is fitted by least squares as a quadratic in the two parameters, and the
    pair within the ranges whose predicted moments are nearest (in Euclidean distance over the moments the data
    define) is returned; with neither moment defined, the generator's defaults."""
    target = preference_moments(ratings)
    if np.isnan(target).all():
        return {}
    axes = [np.linspace(low, high, steps) for low, high in PREFERENCE_RANGES.values()]
    grid = np.array(np.meshgrid(*axes, indexing="ij")).reshape(2, -1)
    drawn = np.array([preference_moments(generate(seed=seed, **shape, selection=float(s), quality_popularity=float(q)))
                      for s, q in grid.T])
    fine = np.array(np.meshgrid(*(np.linspace(low, high, 101) for low, high in PREFERENCE_RANGES.values()),
                                indexing="ij")).reshape(2, -1)
    distance = np.zeros(fine.shape[1])
    for k in np.flatnonzero(~np.isnan(target)):
        coefficients = np.linalg.lstsq(_quadratic_terms(*grid), drawn[:, k], rcond=None)[0]
        distance += (_quadratic_terms(*fine) @ coefficients - target[k]) ** 2
    best = fine[:, np.argmin(distance)]
    return {name: float(value) for name, value in zip(PREFERENCE_RANGES, best, strict=True)}


def at_bound(shape: dict[str, Any]) -> list[str]:
    """The parameters of a fitted ``shape`` that sit at an end of the range searched: ``alpha``
    (:data:`~recbias.synthetic.popularity.ALPHA_RANGE`) and those of :data:`PREFERENCE_RANGES`."""
    ranges = {"alpha": ALPHA_RANGE, **PREFERENCE_RANGES}
    return [name for name, bounds in ranges.items() if name in shape and np.isclose(shape[name], bounds).any()]


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


def shape_of(ratings: Ratings, seed: int = 0) -> dict[str, Any]:
    """Generator parameters of a world shaped like ``ratings``.

    Its size (:func:`world_size`); the exponent ``alpha`` and shift of the shifted power law fitted to the
    ``n_items`` largest item counts (:func:`recbias.synthetic.fit_popularity_curve`, IRJ 2017 Sec. 5.2),
    the shift raised where the most popular item would need more than ``MAX_MARGIN_SHARE`` of the users;
    the smallest user count as the activity floor; a rating prior whose share of positive ratings
    (threshold 5) is that of ``ratings`` (:func:`rating_prior`); and the observation bias and tie between
    quality and popularity fitted to the data (:func:`fit_preferences`, with worlds drawn with ``seed``).
    """
    size = world_size(ratings)
    counts = np.sort(ratings.item_counts())[::-1][: size["n_items"]]
    curve = fit_popularity_curve(counts)
    shift = _reachable_shift(len(counts), size["n_ratings"], curve.alpha, curve.c2 / len(counts), size["n_users"])
    floor = int(max(1, ratings.user_counts().min()))
    shape = size | {"alpha": curve.alpha, "popularity_shift": shift, "min_user_ratings": floor,
                    "rating_prior": rating_prior(float(ratings.positive.mean())), "positive_threshold": 5}
    return shape | fit_preferences(ratings, shape, seed)


def stand_in_world(ratings: Ratings, seed: int = 0, shape: dict[str, Any] | None = None) -> Ratings:
    """A simulated world shaped like ``ratings`` (``shape``, by default :func:`shape_of`), with its complete true
    relevance, named ``"<name>-shaped world"``; deterministic given ``seed``.  Raises ``ValueError`` when the
    generator refuses the shape or the ratings are all positive or all non-positive."""
    world = generate(seed=seed, **(shape_of(ratings, seed) if shape is None else shape))
    return dataclasses.replace(world, name=f"{ratings.name}-shaped world")

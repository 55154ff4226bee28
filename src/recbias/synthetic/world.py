"""Assemble the simulated world and its observed ratings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from recbias.ratings import Ratings
from recbias.synthetic.demographics import sample_demographics
from recbias.synthetic.observation import fit_propensity, sample_observations
from recbias.synthetic.observed import generate_observed
from recbias.synthetic.parameters import MAX_PAIRS, OBSERVED_ONLY, resolve_parameters
from recbias.synthetic.popularity import PopularityCurve, apportion, item_targets, popularity_curve, user_targets
from recbias.synthetic.preferences import (
    affinity_matrix,
    affinity_sd,
    item_quality,
    rating_cut_points,
    ratings_from_affinity,
    user_tastes,
)
from recbias.synthetic.timeline import rating_times

# independent random streams, so that changing one part leaves the others alone
_STREAMS = ("items", "users", "attributes", "tastes", "noise", "observation", "time")


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class World:
    """A simulated world with everything a real dataset hides.

    Attributes:
        ratings: the observed ratings (what :func:`generate` returns); its
            ``true_relevance`` is ``true_ratings >= positive_threshold``.
        parameters: the validated parameters, plus ``seed`` and ``preset``.
        popularity: the shifted power law the item margins follow.
        item_rank: true popularity rank (1 = most popular) of each item code.
        expected_item_ratings, expected_user_ratings: the margins of the
            observation model (``propensity`` sums to them); the one named by
            ``exact_counts`` is also the exact number of observed ratings.
        affinity: ``n_users x n_items`` latent preference (float32), see
            :mod:`recbias.synthetic.preferences`.
        cut_points: affinity thresholds of ratings 2..5.
        true_ratings: ``n_users x n_items`` rating (int8, 1..5) every user would give
            every item; equal to the observed value on observed pairs.
        propensity: ``n_users x n_items`` probability of observing each pair (float32).
        user_factors, item_factors, item_quality, user_generosity: the latent
            components of affinity.
    """

    ratings: Ratings
    parameters: dict[str, Any]
    popularity: PopularityCurve
    item_rank: np.ndarray
    expected_item_ratings: np.ndarray
    expected_user_ratings: np.ndarray
    affinity: np.ndarray
    cut_points: np.ndarray
    true_ratings: np.ndarray
    propensity: np.ndarray
    user_factors: np.ndarray
    item_factors: np.ndarray
    item_quality: np.ndarray
    user_generosity: np.ndarray

    @property
    def true_relevance(self) -> np.ndarray:
        """Boolean ``n_users x n_items``: the true rating reaches the positive threshold."""
        return self.ratings.true_relevance


def simulate(*, seed: int = 0, preset: str = "synthetic", **parameters: Any) -> World:
    """Simulate the world of ``preset`` (see ``PRESETS``) with ``parameters`` overridden.

    Fully determined by ``seed`` and the parameters.  Raises ``ValueError`` naming
    the parameter for unknown names and impossible values.
    """
    _check_seed(seed)
    if preset in OBSERVED_ONLY:
        raise ValueError(f"synthetic preset {preset!r} draws observed ratings only and has no complete truth "
                         f"(no affinity, propensity or true rating of every pair); use generate(), or a preset "
                         f"of at most {MAX_PAIRS:,} user-item pairs")
    p = resolve_parameters(preset, **parameters)
    n_users, n_items, n_ratings = p["n_users"], p["n_items"], p["n_ratings"]
    rng = dict(zip(_STREAMS, (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(len(_STREAMS)))))

    curve = popularity_curve(n_items, n_ratings, p["alpha"], p["popularity_floor"], p["popularity_shift"])
    by_rank = item_targets(curve, n_items, n_users)
    if p["exact_counts"] == "items":
        by_rank = apportion(by_rank, n_ratings).astype(np.float64)
    item_rank = rng["items"].permutation(n_items) + 1
    item_expected = by_rank[item_rank - 1]
    user_counts = rng["users"].permutation(
        user_targets(n_users, n_items, n_ratings, p["min_user_ratings"], p["activity_shape"])
    )

    attributes, attribute_codes = sample_demographics(rng["attributes"], n_users)
    user_factors = user_tastes(rng["tastes"], attribute_codes, p["taste_rank"], p["attribute_effect"])
    item_factors = rng["tastes"].standard_normal((n_items, p["taste_rank"]))
    quality = item_quality(rng["tastes"], item_rank, p["quality_popularity"])
    generosity = rng["tastes"].standard_normal(n_users)
    effects = {name: p[name] for name in ("taste_effect", "item_effect", "user_effect", "noise")}
    affinity = affinity_matrix(rng["noise"], user_factors, item_factors, quality, generosity, **effects)

    weights = np.exp(affinity * np.float32(p["selection"] / affinity_sd(**effects)))
    user_scale, item_scale, propensity = fit_propensity(weights, user_counts.astype(np.float64), item_expected)
    if p["exact_counts"] == "users":
        users, items = sample_observations(rng["observation"], weights, item_scale, user_counts)
    else:
        items, users = sample_observations(rng["observation"], weights.T, user_scale, item_expected.astype(np.int64))
    del weights

    cut_points = rating_cut_points(affinity[users, items], p["rating_prior"])
    true_ratings = ratings_from_affinity(affinity, cut_points)
    times = rating_times(rng["time"], users, n_users, p["start"], p["days"])
    order = np.lexsort((times, users))
    users, items, times = users[order], items[order], times[order]

    ratings = Ratings(
        name=preset,
        users=users,
        items=items,
        values=true_ratings[users, items],
        timestamps=times,
        user_ids=np.arange(1, n_users + 1),
        item_ids=np.arange(1, n_items + 1),
        scale=(1.0, 5.0),
        positive_threshold=float(p["positive_threshold"]),
        user_attributes=attributes,
        true_relevance=true_ratings >= p["positive_threshold"],
    )
    return World(
        ratings=ratings,
        parameters={**p, "seed": int(seed), "preset": preset},
        popularity=curve,
        item_rank=_read_only(item_rank),
        expected_item_ratings=_read_only(item_expected),
        expected_user_ratings=_read_only(user_counts),
        affinity=_read_only(affinity),
        cut_points=_read_only(cut_points),
        true_ratings=_read_only(true_ratings),
        propensity=_read_only(propensity),
        user_factors=_read_only(user_factors),
        item_factors=_read_only(item_factors),
        item_quality=_read_only(quality),
        user_generosity=_read_only(generosity),
    )


def generate(*, seed: int = 0, preset: str = "synthetic", **parameters: Any) -> Ratings:
    """The observed ratings of :func:`simulate` (same arguments), with ``true_relevance``; for the
    presets of :data:`~recbias.synthetic.parameters.OBSERVED_ONLY`, the observed ratings of
    :func:`recbias.synthetic.observed.generate_observed`, without it."""
    if preset in OBSERVED_ONLY:
        _check_seed(seed)
        return generate_observed(resolve_parameters(preset, **parameters), seed, preset)
    return simulate(seed=seed, preset=preset, **parameters).ratings


def _check_seed(seed: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"synthetic parameter 'seed' must be a non-negative integer, got {seed!r}")

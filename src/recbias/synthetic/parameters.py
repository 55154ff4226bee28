"""Parameters of the simulated world: presets, defaults and validation.

Every parameter is dimensionless or in natural units, so that a preset keeps
its shape when the world is scaled up or down:

======================== =====================================================
``n_users``              number of users (every one rates at least
                         ``min_user_ratings`` items)
``n_items``              number of items (tail items may end up unrated)
``n_ratings``            exact number of observed ratings
``min_user_ratings``     floor of user activity (20 in MovieLens)
``activity_shape``       gamma shape of user activity above the floor;
                         smaller is more long-tailed
``alpha``                exponent of the shifted power law of item popularity
``popularity_floor``     ``c1`` as a fraction of the mean ratings per item
``popularity_shift``     ``c2`` as a fraction of ``n_items``
``exact_counts``         which margin is met exactly: ``"users"`` (every user
                         rates exactly its activity; item counts scatter
                         around the curve) or ``"items"`` (every item gets
                         exactly its rounded curve value, as in the papers'
                         simulation; user counts scatter around the activity)
``taste_effect``         weight of the latent taste match in affinity (0: no
                         user-specific taste)
``taste_rank``           dimension of the latent taste space
``attribute_effect``     share of taste variance explained by gender, age band
                         and occupation, in ``[0, 1]``
``item_effect``          standard deviation of item quality
``quality_popularity``   correlation of item quality with popularity rank
``user_effect``          standard deviation of user generosity
``noise``                standard deviation of the idiosyncratic affinity
``selection``            observation log-intensity per standard deviation of
                         affinity (0: missing at random given the margins)
``rating_prior``         weights of the observed rating values 1..5
``positive_threshold``   a rating of at least this value is relevant
``start``                first possible timestamp (seconds since the epoch)
``days``                 length of the time window in days
======================== =====================================================

Why the defaults: ``alpha = 1.4`` is the papers' value for MovieLens 1M (IRJ
2017, Sec. 5.2).  With ``c1 = 0`` a least-squares fit of the curve at that
``alpha`` to the MovieLens 100K item counts gives ``c2`` of 8 % of the items,
and the top tenth of items then holds 42 % of the ratings (43 % in ML-100K).
Leaving ``c1`` free at that ``alpha`` gives about -0.3 of the mean, which
mimics the items with a single rating but turns counts negative for steeper
``alpha``; the default keeps ``c1 = 0`` so that the exponent can be swept from
0 to 2 as in the papers (IRJ 2017, Fig. 5).  A gamma law with shape 0.73
matches the ML-100K user activity quantiles (10th to 99th percentile) to
within about 12 %.  The taste, quality and generosity scales give
collaborative filtering a clear edge over popularity on the true relevance,
while popularity stays a strong baseline on the observed data, as in the
papers.

:data:`PREFERENCE_FREE` switches every preference effect off: affinity is pure
noise, so the rating of a pair is drawn from the rating prior independently of
the user, the item and whether it is observed, and which pairs are observed
depends on the two margins only.  With ``exact_counts="items"`` these are the
artificial data of IRJ 2017 Sec. 5.2 (thesis Sec. 4.5.2).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

#: The largest world kept in memory: several dense ``n_users x n_items`` arrays.
MAX_PAIRS = 30_000_000

#: MovieLens 100K rating histogram (values 1..5), the default observed prior.
ML100K_RATING_COUNTS = (6110, 11370, 27145, 34174, 21201)

#: MovieLens 1M rating histogram (values 1..5), the prior of the ML-1M-sized preset.
ML1M_RATING_COUNTS = (56_174, 107_557, 261_197, 348_971, 226_310)

_DEFAULTS: dict[str, Any] = {
    "n_users": 1500,
    "n_items": 2000,
    "n_ratings": 120_000,
    "min_user_ratings": 20,
    "activity_shape": 0.75,
    "alpha": 1.4,
    "popularity_floor": 0.0,
    "popularity_shift": 0.08,
    "exact_counts": "users",
    "taste_rank": 8,
    "taste_effect": 1.0,
    "attribute_effect": 0.3,
    "item_effect": 0.7,
    "quality_popularity": 0.5,
    "user_effect": 0.5,
    "noise": 0.7,
    "selection": 1.0,
    "rating_prior": ML100K_RATING_COUNTS,
    "positive_threshold": 5,
    "start": 946_684_800,  # 2000-01-01 00:00 UTC
    "days": 730.0,
}

#: Named parameter sets.  ``"synthetic"`` is the book's default dataset, at the
#: scale of MovieLens 100K (about 60 ratings per item, 80 per user) and with
#: the density of MovieLens 1M (4 %); ``"synthetic-small"`` is for smoke tests;
#: ``"synthetic-ml1m"`` has the shape of MovieLens 1M (6,040 users, 3,706 items,
#: 1,000,209 ratings, its rating histogram), to measure the book at the papers' scale;
#: ``"synthetic-ml10m"`` and ``"synthetic-ml20m"`` (see :data:`OBSERVED_ONLY`) measure it beyond.
PRESETS: dict[str, dict[str, Any]] = {
    "synthetic": dict(_DEFAULTS),
    "synthetic-small": {
        **_DEFAULTS,
        "n_users": 200,
        "n_items": 300,
        "n_ratings": 5000,
        "min_user_ratings": 10,
        "taste_rank": 4,
    },
    "synthetic-ml1m": {
        **_DEFAULTS,
        "n_users": 6040,
        "n_items": 3706,
        "n_ratings": 1_000_209,
        "rating_prior": ML1M_RATING_COUNTS,
    },
    "synthetic-ml10m": {
        **_DEFAULTS,
        "n_users": 69_878,
        "n_items": 10_677,
        "n_ratings": 10_000_054,
        "activity_shape": 0.45,
        "popularity_shift": 0.0129,
        "selection": 0.0,
        "rating_prior": ML1M_RATING_COUNTS,
    },
    "synthetic-ml20m": {
        **_DEFAULTS,
        "n_users": 138_493,
        "n_items": 26_744,
        "n_ratings": 20_000_263,
        "activity_shape": 0.45,
        "popularity_shift": 0.005,
        "selection": 0.0,
        "rating_prior": ML1M_RATING_COUNTS,
    },
}

#: Presets drawn by :mod:`recbias.synthetic.observed`: observed ratings only, without the
#: complete truth, in memory linear in the ratings.  ``synthetic-ml10m`` and ``synthetic-ml20m``
#: have the users, items and ratings of MovieLens 10M and 20M; the popularity shift puts about
#: the release's largest item count on the most popular item (34,864 and 67,310 ratings, with the
#: papers' exponent 1.4); the activity shape gives a median user near 70 ratings above the floor
#: of 20; ratings are whole stars with the ML-1M histogram (the releases have half stars).
OBSERVED_ONLY: tuple[str, ...] = ("synthetic-ml10m", "synthetic-ml20m")

#: Overrides that remove every preference pattern: no taste, quality or generosity in
#: affinity, and observation independent of affinity (ratings drawn from the prior).
PREFERENCE_FREE: dict[str, Any] = {"taste_effect": 0.0, "item_effect": 0.0, "user_effect": 0.0, "selection": 0.0}

# name -> (lowest, highest, lowest excluded); None means unbounded
_INTEGERS: dict[str, tuple[int | None, int | None]] = {
    "n_users": (2, None),
    "n_items": (2, None),
    "n_ratings": (1, None),
    "min_user_ratings": (1, None),
    "taste_rank": (1, None),
    "positive_threshold": (1, 5),
    "start": (0, None),
}
_REALS: dict[str, tuple[float, float, bool]] = {
    "activity_shape": (0.0, math.inf, True),
    "alpha": (0.0, 5.0, False),
    "popularity_floor": (-math.inf, 1.0, False),
    "popularity_shift": (0.0, math.inf, False),
    "taste_effect": (0.0, math.inf, False),
    "attribute_effect": (0.0, 1.0, False),
    "item_effect": (0.0, math.inf, False),
    "quality_popularity": (-1.0, 1.0, False),
    "user_effect": (0.0, math.inf, False),
    "noise": (0.0, math.inf, False),
    "selection": (0.0, 5.0, False),
    "days": (0.0, math.inf, True),
}
# name -> allowed values
_CHOICES: dict[str, tuple[str, ...]] = {"exact_counts": ("users", "items")}


def _check_integer(name: str, value: Any) -> int:
    low, high = _INTEGERS[name]
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"synthetic parameter {name!r} must be an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"synthetic parameter {name!r} must be {bounds}, got {value}")
    return int(value)


def _check_real(name: str, value: Any) -> float:
    low, high, low_open = _REALS[name]
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"synthetic parameter {name!r} must be a finite number, got {value!r}")
    if value < low or (low_open and value == low) or value > high:
        left = "(" if low_open else "["
        raise ValueError(f"synthetic parameter {name!r} must be in {left}{low}, {high}], got {value}")
    return float(value)


def _check_choice(name: str, value: Any) -> str:
    allowed = _CHOICES[name]
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"synthetic parameter {name!r} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def _check_prior(value: Any) -> tuple[float, ...]:
    if isinstance(value, str | bytes):
        raise ValueError(f"synthetic parameter 'rating_prior' must be 5 numbers, got {value!r}")
    try:
        weights = tuple(float(w) for w in value)
    except (TypeError, ValueError):
        raise ValueError(f"synthetic parameter 'rating_prior' must be 5 numbers, got {value!r}") from None
    if len(weights) != 5 or not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(
            f"synthetic parameter 'rating_prior' must be 5 non-negative weights for ratings 1..5 "
            f"with a positive sum, got {value!r}"
        )
    return weights


def resolve_parameters(preset: str = "synthetic", **overrides: Any) -> dict[str, Any]:
    """The validated parameters of ``preset`` with ``overrides`` applied.

    Raises ``ValueError`` naming the offending parameter for an unknown preset
    or name, a value of the wrong type or out of range, or sizes that do not fit
    together (the popularity and activity curves are checked where they are
    built, in :mod:`recbias.synthetic.popularity`).
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown synthetic preset {preset!r}; known presets: {', '.join(PRESETS)}")
    unknown = sorted(set(overrides) - set(_DEFAULTS))
    if unknown:
        raise ValueError(
            f"unknown synthetic parameter(s) {', '.join(map(repr, unknown))}; known: {', '.join(_DEFAULTS)}"
        )
    raw = {**PRESETS[preset], **overrides}
    params: dict[str, Any] = {name: _check_integer(name, raw[name]) for name in _INTEGERS}
    params |= {name: _check_real(name, raw[name]) for name in _REALS}
    params |= {name: _check_choice(name, raw[name]) for name in _CHOICES}
    params["rating_prior"] = _check_prior(raw["rating_prior"])
    n_users, n_items, n_ratings = params["n_users"], params["n_items"], params["n_ratings"]
    if n_users * n_items > MAX_PAIRS and preset not in OBSERVED_ONLY:
        raise ValueError(
            f"synthetic parameters 'n_users' x 'n_items' = {n_users * n_items:,} pairs exceed the "
            f"in-memory limit of {MAX_PAIRS:,}"
        )
    if n_ratings < n_users * params["min_user_ratings"]:
        raise ValueError(
            f"synthetic parameter 'n_ratings'={n_ratings} is below n_users x min_user_ratings = "
            f"{n_users * params['min_user_ratings']}"
        )
    if params["taste_effect"] == params["item_effect"] == params["user_effect"] == params["noise"] == 0:
        raise ValueError("synthetic parameters 'taste_effect', 'item_effect', 'user_effect' and 'noise' are all 0: "
                         "affinity would be constant; keep 'noise' positive")
    if params["rating_prior"][params["positive_threshold"] - 1 :] == (0.0,) * (6 - params["positive_threshold"]):
        raise ValueError("synthetic parameter 'rating_prior' gives no weight to ratings >= 'positive_threshold'")
    return {name: params[name] for name in _DEFAULTS}

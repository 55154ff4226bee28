"""True preferences of the simulated world: latent tastes, affinity and ratings.

The affinity of user ``u`` for item ``i`` is

    a_ui = taste_effect * p_u . q_i / sqrt(d) + item_effect * b_i + user_effect * c_u + noise * e_ui

with ``d``-dimensional tastes ``p_u`` (partly set by the user's attributes) and
``q_i`` (standard normal), item quality ``b_i`` correlated with popularity,
user generosity ``c_u`` and idiosyncratic noise ``e_ui``, all of unit variance.
The true rating is a step function of affinity whose cut points are placed so
that the observed ratings follow the rating prior exactly.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from recbias.synthetic.demographics import ATTRIBUTE_LEVELS
from recbias.synthetic.popularity import apportion


def user_tastes(
    rng: np.random.Generator, attribute_codes: np.ndarray, rank: int, attribute_effect: float
) -> np.ndarray:
    """Taste vectors ``p_u = sqrt(s) g_u + sqrt(1 - s) e_u`` (``s = attribute_effect``),
    where ``g_u`` averages (times sqrt(3)) a standard normal vector per level of the
    user's gender, age band and occupation, so that every entry has unit variance."""
    group = sum(
        rng.standard_normal((levels, rank))[attribute_codes[:, column]]
        for column, levels in enumerate(ATTRIBUTE_LEVELS)
    ) / math.sqrt(len(ATTRIBUTE_LEVELS))
    own = rng.standard_normal((len(attribute_codes), rank))
    return math.sqrt(attribute_effect) * group + math.sqrt(1.0 - attribute_effect) * own


def item_quality(rng: np.random.Generator, popularity_rank: np.ndarray, correlation: float) -> np.ndarray:
    """Quality ``b_i = rho z_i + sqrt(1 - rho^2) e_i`` with ``z_i`` the normal score of
    the item's popularity rank (``Phi^-1(1 - (k - 1/2) / n)``), so popular items are
    better on average when ``rho > 0``."""
    n_items = len(popularity_rank)
    scores = stats.norm.ppf(1.0 - (popularity_rank - 0.5) / n_items)
    return correlation * scores + math.sqrt(1.0 - correlation**2) * rng.standard_normal(n_items)


def affinity_matrix(
    rng: np.random.Generator,
    user_factors: np.ndarray,
    item_factors: np.ndarray,
    quality: np.ndarray,
    generosity: np.ndarray,
    *,
    taste_effect: float,
    item_effect: float,
    user_effect: float,
    noise: float,
) -> np.ndarray:
    """The dense ``float32`` affinity matrix of the module equation."""
    rank = user_factors.shape[1]
    affinity = user_factors.astype(np.float32) @ (item_factors.T / math.sqrt(rank) * taste_effect).astype(np.float32)
    affinity += (item_effect * quality).astype(np.float32)[None, :]
    affinity += (user_effect * generosity).astype(np.float32)[:, None]
    affinity += noise * rng.standard_normal(affinity.shape, dtype=np.float32)
    return affinity


def affinity_sd(taste_effect: float, item_effect: float, user_effect: float, noise: float) -> float:
    """Model standard deviation of affinity, ``sqrt(taste^2 + item^2 + user^2 + noise^2)``."""
    return math.sqrt(taste_effect**2 + item_effect**2 + user_effect**2 + noise**2)


def rating_cut_points(observed_affinity: np.ndarray, prior: tuple[float, ...]) -> np.ndarray:
    """Cut points ``t_1 <= ... <= t_4`` on affinity such that exactly
    ``apportion(prior, n)`` of the ``n`` observed affinities fall in each rating level:
    ``t_r`` is the smallest observed affinity above the ``r`` lowest levels (``-inf``
    or ``+inf`` when those levels take none or all of them).  Same dtype as the input,
    so that comparisons are exact."""
    ordered = np.sort(observed_affinity)
    bounds = np.cumsum(apportion(np.asarray(prior), len(ordered)))[:-1]
    cut_points = np.append(ordered, np.inf).astype(ordered.dtype)[bounds]
    cut_points[bounds == 0] = -np.inf
    return cut_points


def ratings_from_affinity(affinity: np.ndarray, cut_points: np.ndarray) -> np.ndarray:
    """True ratings ``1 + #{r : t_r <= a}`` as ``int8``, same shape as ``affinity``."""
    return (np.searchsorted(cut_points, affinity, side="right") + 1).astype(np.int8)

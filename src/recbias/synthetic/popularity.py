"""The two margins of the simulated world: item popularity and user activity.

Item popularity follows the shifted power law of Bellogín et al. (IRJ 2017,
Section 5.2; thesis Section 4.5.2), ``|R(i_k)| = c1 + beta (c2 + k)^-alpha`` for
the item of popularity rank ``k``, with ``beta`` set so that the curve adds up
to the number of ratings.  User activity is a floor plus gamma-distributed
excess, which fits MovieLens 100K closely with shape about 0.73.  Both curves
are deterministic (evaluated at quantiles); which item or user gets which
value is the random part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

#: Largest share of the other side a single item or user may be expected to reach.
MAX_MARGIN_SHARE = 0.9


@dataclass(frozen=True)
class PopularityCurve:
    """Expected ratings of the item of popularity rank ``k`` (1-based):
    ``c1 + beta * (c2 + k) ** -alpha`` (IRJ 2017 Sec. 5.2)."""

    alpha: float
    c1: float
    c2: float
    beta: float

    def expected(self, ranks: np.ndarray) -> np.ndarray:
        """The curve evaluated at 1-based popularity ranks."""
        return self.c1 + self.beta * (self.c2 + np.asarray(ranks, dtype=np.float64)) ** -self.alpha


def popularity_curve(n_items: int, n_ratings: int, alpha: float, floor: float, shift: float) -> PopularityCurve:
    """The shifted power law with ``c1 = floor * n_ratings / n_items``,
    ``c2 = shift * n_items`` and ``beta`` solving ``sum_k c1 + beta (c2+k)^-alpha = n_ratings``.

    Raises ``ValueError`` (naming ``popularity_floor``) when some item would get a
    non-positive expected number of ratings.
    """
    c1 = floor * n_ratings / n_items
    c2 = shift * n_items
    ranks = np.arange(1, n_items + 1, dtype=np.float64)
    beta = (n_ratings - c1 * n_items) / np.sum((c2 + ranks) ** -alpha)
    curve = PopularityCurve(alpha=float(alpha), c1=float(c1), c2=float(c2), beta=float(beta))
    lowest = curve.expected(np.array([n_items]))[0]
    if not lowest > 0:
        raise ValueError(
            f"synthetic parameter 'popularity_floor'={floor} gives the least popular item "
            f"{lowest:.3g} expected ratings; raise it, or lower 'alpha'"
        )
    return curve


#: the exponents :func:`fit_popularity_curve` searches; a fit at either end did not find the curve's exponent
ALPHA_RANGE = (0.0, 5.0)


def fit_popularity_curve(item_counts: np.ndarray, *, floor: float = 0.0, shift: float | None = None) -> PopularityCurve:
    """The shifted power law that best fits observed ratings per item.

    With ``c1 = floor * |R| / |I|`` fixed and ``beta`` set by the total (as in
    :func:`popularity_curve`), ``alpha`` in ``[0, 5]`` (and the shift ``c2 / |I|`` in
    ``[1e-4, 10]`` unless ``shift`` fixes it) is chosen by least squares on the
    cumulative share of ratings, items sorted by decreasing count,

    ``min sum_k (F(k) - F_hat(k))^2``,  ``F(k) = sum_{j<=k} |R(i_j)| / |R|``,

    the curve of IRJ 2017 Fig. 5 (left), which weighs head and tail by their share of
    the ratings.  Items without ratings count as zeros of the tail.  ``alpha`` and the
    shift trade off against each other on flat curves, so a fixed shift gives the
    exponent on a common scale (the generator's ``popularity_shift``, for instance).
    """
    counts = np.sort(np.asarray(item_counts, dtype=np.float64))[::-1]
    n_items, n_ratings = len(counts), int(counts.sum())
    if n_items < 3 or n_ratings <= 0 or counts[-1] < 0:
        raise ValueError("fit_popularity_curve needs at least 3 non-negative item counts with a positive sum")
    observed = np.cumsum(counts) / n_ratings
    ranks = np.arange(1, n_items + 1)

    def residuals(x: np.ndarray) -> np.ndarray:
        curve = popularity_curve(n_items, n_ratings, x[0], floor, x[1] if shift is None else shift)
        return np.cumsum(curve.expected(ranks)) / n_ratings - observed

    if shift is None:
        starts, bounds = [(1.0, 0.05), (1.5, 0.2), (0.5, 0.01)], ([ALPHA_RANGE[0], 1e-4], [ALPHA_RANGE[1], 10.0])
    else:
        starts, bounds = [(1.0,), (0.3,), (2.0,)], ([ALPHA_RANGE[0]], [ALPHA_RANGE[1]])
    fits = [optimize.least_squares(residuals, start, bounds=bounds) for start in starts]
    best = min(fits, key=lambda fit: fit.cost).x
    return popularity_curve(n_items, n_ratings, best[0], floor, best[1] if shift is None else shift)


def item_targets(curve: PopularityCurve, n_items: int, n_users: int) -> np.ndarray:
    """Expected ratings per popularity rank (descending), checked to be reachable by ``n_users``."""
    targets = curve.expected(np.arange(1, n_items + 1))
    if targets[0] > MAX_MARGIN_SHARE * n_users:
        raise ValueError(
            f"synthetic parameters 'alpha'={curve.alpha} and 'popularity_shift' give the most popular "
            f"item {targets[0]:.0f} expected ratings, more than {MAX_MARGIN_SHARE:.0%} of n_users={n_users}; "
            f"lower 'alpha' or 'n_ratings', or raise 'popularity_shift'"
        )
    return targets


def apportion(weights: np.ndarray, total: int) -> np.ndarray:
    """Non-negative integers proportional to ``weights`` that add up to ``total``
    (largest-remainder rounding)."""
    weights = np.asarray(weights, dtype=np.float64)
    exact = weights / weights.sum() * total
    counts = np.floor(exact).astype(np.int64)
    shortfall = total - counts.sum()
    counts[np.argsort(counts - exact, kind="stable")[:shortfall]] += 1
    return counts


def user_targets(n_users: int, n_items: int, n_ratings: int, minimum: int, shape: float) -> np.ndarray:
    """Ratings per user, in descending order: ``minimum`` plus the excess
    ``n_ratings - n_users * minimum`` shared in proportion to gamma(``shape``)
    quantiles at ``(j - 1/2) / n_users``; integers adding up to ``n_ratings``.

    Raises ``ValueError`` when the most active user would need more than
    ``MAX_MARGIN_SHARE`` of the items.
    """
    levels = (n_users - np.arange(n_users) - 0.5) / n_users
    shares = stats.gamma.ppf(levels, shape)
    counts = minimum + apportion(shares, n_ratings - n_users * minimum)
    if counts[0] > MAX_MARGIN_SHARE * n_items:
        raise ValueError(
            f"synthetic parameters 'n_ratings'={n_ratings} and 'activity_shape'={shape} give the most "
            f"active user {counts[0]} ratings, more than {MAX_MARGIN_SHARE:.0%} of n_items={n_items}; "
            f"lower 'n_ratings' or raise 'activity_shape'"
        )
    return counts

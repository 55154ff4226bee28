"""Missing-not-at-random observation: which user-item pairs get rated.

Each pair has an observation intensity ``lambda_ui = x_u w_ui y_i`` with the
preference tilt ``w_ui = exp(selection * a_ui / sd(a))`` (people rate what they
like more often) and scales ``x_u``, ``y_i`` fitted so that the observation
probabilities ``pi_ui = 1 - exp(-lambda_ui)`` add up to each user's activity and
each item's expected popularity.  A user's ratings are then the first ``n_u``
arrivals of independent exponential clocks with rates ``w_ui y_i`` (weighted
sampling without replacement): every user gets exactly ``n_u`` ratings, and each
pair is included with probability close to ``pi_ui``.  With exact item counts the
roles swap: an item's raters are the first ``m_i`` arrivals of clocks with rates
``x_u w_ui``.
"""

from __future__ import annotations

import math

import numpy as np

#: Poisson iterative proportional fitting steps used as the starting point.
_WARM_START_STEPS = 3


def _newton_factor(target: np.ndarray, achieved: np.ndarray, slope: np.ndarray) -> np.ndarray:
    # multiplicative Newton step on a concave margin, kept within a safe range
    return np.clip(1.0 + (target - achieved) / slope, 0.1, 10.0)


def _intensity(weights: np.ndarray, x: np.ndarray, y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``lambda_ui = x_u w_ui y_i`` written into ``out`` (float32)."""
    np.multiply(weights, x.astype(np.float32)[:, None], out=out)
    return np.multiply(out, y.astype(np.float32)[None, :], out=out)


def _margin_and_slope(
    weights: np.ndarray, x: np.ndarray, y: np.ndarray, axis: int, intensity: np.ndarray, survival: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Margin ``sum (1 - exp(-lambda))`` along ``axis`` and its derivative times the
    scale, ``sum lambda exp(-lambda)``, using the two buffers as scratch."""
    _intensity(weights, x, y, out=intensity)
    np.negative(intensity, out=survival)
    np.exp(survival, out=survival)
    achieved = weights.shape[axis] - survival.sum(axis=axis, dtype=np.float64)
    np.multiply(intensity, survival, out=intensity)
    return achieved, intensity.sum(axis=axis, dtype=np.float64)


def fit_propensity(
    weights: np.ndarray,
    row_targets: np.ndarray,
    column_targets: np.ndarray,
    *,
    tolerance: float = 1e-4,
    max_iterations: int = 100,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scales ``x``, ``y`` and propensities ``pi = 1 - exp(-x_u w_ui y_i)`` (float32) with
    ``sum_i pi_ui = row_targets[u]`` and ``sum_u pi_ui = column_targets[i]``.

    Alternates one Newton step over all rows with one over all columns (each
    margin is concave and increasing in its own scale) until both margins are
    within ``tolerance`` relative error.  Raises ``ValueError`` for margins that
    are plainly impossible (a row asking for all columns, unequal totals) and
    ``RuntimeError`` when the margins cannot be met together.
    """
    weights = np.asarray(weights, dtype=np.float32)
    n_rows, n_columns = weights.shape
    if not (np.all(row_targets < n_columns) and np.all(column_targets < n_rows)):
        raise ValueError("every row margin must stay below the number of columns, and vice versa")
    if not math.isclose(row_targets.sum(), column_targets.sum(), rel_tol=1e-9):
        raise ValueError(f"row margins add up to {row_targets.sum()}, column margins to {column_targets.sum()}")
    x = np.ones(n_rows)
    y = np.ones(n_columns)
    for _ in range(_WARM_START_STEPS):
        x = row_targets / (weights @ y.astype(np.float32))
        y = column_targets / (weights.T @ x.astype(np.float32))
    intensity = np.empty_like(weights)
    survival = np.empty_like(weights)
    error = math.inf
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for _ in range(max_iterations):
            achieved, slope = _margin_and_slope(weights, x, y, 1, intensity, survival)
            row_error = np.max(np.abs(achieved / row_targets - 1.0))
            x *= _newton_factor(row_targets, achieved, slope)
            achieved, slope = _margin_and_slope(weights, x, y, 0, intensity, survival)
            error = max(row_error, np.max(np.abs(achieved / column_targets - 1.0)))
            y *= _newton_factor(column_targets, achieved, slope)
            if not error >= tolerance:  # converged, or diverged to nan
                break
    if not (error < tolerance and np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise RuntimeError(
            f"observation model did not reach its margins (relative error {error:.2g}); "
            "the popularity and activity curves are too steep for the world's size"
        )
    _intensity(weights, x, y, out=intensity)
    np.negative(intensity, out=intensity)
    return x, y, -np.expm1(intensity)


def sample_observations(
    rng: np.random.Generator, weights: np.ndarray, column_scale: np.ndarray, row_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For every row ``u``, the ``row_counts[u]`` columns whose exponential arrival
    times ``E_ui / (w_ui y_i)`` come first (``y = column_scale``; ties at the cut broken
    by column index, so the result does not depend on the sorting algorithm).  Rows
    may be users (``y`` the item scales) or, with ``weights.T``, items.  Returns
    ``(rows, columns)`` in row-major order."""
    row_counts = np.asarray(row_counts)
    arrivals = rng.standard_exponential(weights.shape, dtype=np.float32)
    arrivals /= weights * column_scale.astype(np.float32)[None, :]
    cut = np.take_along_axis(np.sort(arrivals, axis=1), np.maximum(row_counts - 1, 0)[:, None], axis=1)
    cut[row_counts == 0] = -np.inf  # a row with no place takes no column
    chosen = arrivals < cut
    tied = arrivals == cut
    missing = row_counts - chosen.sum(axis=1)
    crowded = np.flatnonzero(tied.sum(axis=1) > missing)  # rare: more ties than places left
    tied[crowded] &= np.cumsum(tied[crowded], axis=1) <= missing[crowded, None]
    chosen |= tied
    return np.nonzero(chosen)

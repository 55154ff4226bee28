"""Bootstrap statistics of the sweeps of the papers' Fig. 4 and the lines fitted to them (IRJ 2017 Sec. 4.2).

Every point of a :class:`~.sweeps.Sweep` is averaged under one user bootstrap (:func:`sweep_statistics`), so that
the lines in the density (:func:`density_fits`), the power laws in the target size (:func:`size_fits`), the
elasticities (:func:`elasticities`) and Kendall's tau of the order of systems (:func:`order_stability`) all get
percentile intervals over users.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c03_sparsity_bias.study.sweeps import (AR_REMOVAL, FIT_MAX_REMOVED, ONE_R_AI_REMOVAL,
                                                             ONE_R_REMOVAL, ONE_R_SIZE, ZERO_WITHOUT_RELEVANT, Sweep,
                                                             personalised)
from recbias.evaluate import UserBootstrap, discordant_pairs, order_agreement, percentile_interval
from recbias.metrics import parse_metric


@dataclass(frozen=True)
class SweepStatistics:
    """Means of every sweep point under a user bootstrap (column 0 = the full sample): ``levels``, one row per point
    (``sweep``, ``x``, mean ``users``); ``metric``, ``{metric: frame}`` by (point, system), P@n and RR over the
    population of the full test set (0 without relevant items), the others over the users they are defined for;
    ``among_relevant``, P@n and RR over the users who still have a relevant test item; ``density``, ``avg(|PR_test(u)|)
    / t`` per point (a 1R removal point takes the AR point's at its level); ``truth``, true P@n per system, or None."""

    levels: pd.DataFrame
    metric: dict[str, pd.DataFrame]
    among_relevant: dict[str, pd.DataFrame]
    density: pd.DataFrame
    truth: pd.DataFrame | None


def sweep_statistics(sweep: Sweep, n_boot: int = 200, seed: int = 0) -> SweepStatistics:
    """Bootstrap means of every metric and of the density at every point, users resampled jointly."""
    users = np.unique(np.concatenate([sweep.runs["user"].to_numpy()]
                                     + ([sweep.truth["user"].to_numpy()] if sweep.truth is not None else [])))
    boot = UserBootstrap(users, n_boot=n_boot, seed=seed)
    metric = {m: boot.means(sweep.runs, m, ("point", "system")) for m in sweep.metrics}
    evaluated = sweep.runs[sweep.runs["run"] >= 0]
    among_relevant = {m: boot.means(evaluated, m, ("point", "system")) for m in sweep.metrics
                      if parse_metric(m).name in ZERO_WITHOUT_RELEVANT}
    relevant = boot.means(sweep.targets, "relevant", ("point",))
    inverse = boot.means(sweep.targets, "inverse_size", ("point",))
    density = relevant * inverse
    levels = sweep.points.groupby("point", sort=False).agg(sweep=("sweep", "first"), x=("x", "first"),
                                                           users=("users", "mean")).reset_index()
    levels["users"] = levels["users"].round().astype(int)
    ar = levels[levels["sweep"] == AR_REMOVAL].set_index("x")["point"]
    for _, row in levels[levels["sweep"].isin([ONE_R_REMOVAL, ONE_R_AI_REMOVAL])].iterrows():
        if row["x"] in ar.index:
            density.loc[row["point"]] = density.loc[ar[row["x"]]]
    truth = boot.means(sweep.truth, f"P@{sweep.n}", ("system",)) if sweep.truth is not None else None
    return SweepStatistics(levels=levels, metric=metric, among_relevant=among_relevant, density=density, truth=truth)


def line_fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares ``y = a + b x`` along axis 0 (points), for every column (draw): ``b``, ``a`` and
    ``R^2 = 1 - sum((dy - b dx)^2) / sum(dy^2)``, with ``dx``, ``dy`` the deviations from the means."""
    dx, dy = x - x.mean(axis=0), y - y.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (dx * dy).sum(axis=0) / (dx**2).sum(axis=0)
        intercept = y.mean(axis=0) - slope * x.mean(axis=0)
        r2 = 1.0 - ((dy - slope * dx) ** 2).sum(axis=0) / (dy**2).sum(axis=0)
    return slope, intercept, r2


def sweep_draws(stats: SweepStatistics, sweep: str, metric: str, system: str,
                among_relevant: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x values, density and metric means (points x draws) of one system along one sweep, removal
    levels up to :data:`FIT_MAX_REMOVED`."""
    levels = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
    if sweep != ONE_R_SIZE:
        levels = levels[levels["x"] <= FIT_MAX_REMOVED]
    means = (stats.among_relevant if among_relevant else stats.metric)[metric]
    values = means.xs(system, level="system").reindex(levels["point"]).to_numpy()
    return levels["x"].to_numpy(), stats.density.reindex(levels["point"]).to_numpy(), values


def elasticity_ratio(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, float, float]:
    """``e_M / e_P`` of two elasticities' draws on the same resamples of users (:func:`elasticities`): the full
    sample's ratio and its 95% percentile interval.  A denominator near zero widens the interval, as it should."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.asarray(numerator, dtype=float) / np.asarray(denominator, dtype=float)
    low, high = draw_interval(np.where(np.isfinite(ratio), ratio, np.nan))
    return float(ratio[0]), low, high


def draw_interval(draws: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of the resamples (``draws[1:]``; ``draws[0]`` is the full sample)."""
    low, high = percentile_interval(draws[1:])
    return float(low), float(high)


def scatter_over_noise(x: np.ndarray, values: np.ndarray, slope: float, intercept: float) -> float:
    """How far the points stray from their fitted line, in units of their own sampling noise:
    ``sqrt(mean_i (y_i - a - b x_i)^2 / mean_i se_i^2)``, with ``y_i = values[i, 0]`` (full sample) and ``se_i``
    the standard deviation of ``values[i, 1:]`` over the resamples.  About 1 when a line explains the points up to
    noise; well above 1 when they bend away from any line (a low R² with a scatter near 1: noise hides the line)."""
    residuals = values[:, 0] - (intercept + slope * x)
    noise = values[:, 1:].var(axis=1, ddof=1).mean()
    return float(np.sqrt(np.mean(residuals**2) / noise)) if noise > 0 else float("inf")


def density_fits(stats: SweepStatistics, systems: Sequence[str], metric: str) -> pd.DataFrame:
    """``metric = a + b delta`` along the AR and 1R removal sweeps up to :data:`FIT_MAX_REMOVED`, per system (IRJ
    Fig. 4, left and centre): ``slope`` and ``intercept`` with 95% bootstrap intervals, ``r2``, ``scatter``
    (:func:`scatter_over_noise`), ``change``, ``b (delta_min - delta_max) / (a + b delta_max)``, and its interval."""
    rows = []
    for sweep in (AR_REMOVAL, ONE_R_REMOVAL, ONE_R_AI_REMOVAL):
        for system in systems:
            _, density, values = sweep_draws(stats, sweep, metric, system)
            if len(values) < 3:
                continue
            slope, intercept, r2 = line_fit(density, values)
            change = slope * (density.min(axis=0) - density.max(axis=0)) / (intercept + slope * density.max(axis=0))
            rows.append({"sweep": sweep, "system": system, "slope": slope[0], "slope_ci": draw_interval(slope),
                         "intercept": intercept[0], "intercept_ci": draw_interval(intercept), "r2": r2[0],
                         "scatter": scatter_over_noise(density[:, 0], values, slope[0], intercept[0]),
                         "change": change[0], "change_ci": draw_interval(change)})
    return pd.DataFrame(rows)


def fits_of(table: pd.DataFrame, sweep: str | None, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """The rows of a table of fits (:func:`density_fits`, or :func:`size_fits` with ``sweep`` None) for ``systems``
    (by default every system but Random); an empty table (no level could be fitted) stays empty."""
    if not len(table):
        return table
    keep = table["system"].isin(personalised(table["system"].unique()) if systems is None else systems)
    return table[keep & (table["sweep"] == sweep)] if sweep is not None else table[keep]


def size_fits(stats: SweepStatistics, systems: Sequence[str], metric: str) -> pd.DataFrame:
    """``log metric = a + e log t`` along the 1R size sweep, per system: the exponent ``e`` (Eq. 5: -1 for
    random) with its 95% bootstrap interval, and ``R^2``."""
    rows = []
    for system in systems:
        sizes, _, values = sweep_draws(stats, ONE_R_SIZE, metric, system)
        if len(sizes) < 3 or np.any(values[:, 0] <= 0):
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            exponent, _, r2 = line_fit(np.log(sizes)[:, None].repeat(values.shape[1], axis=1), np.log(values))
        rows.append({"system": system, "exponent": exponent[0], "exponent_ci": draw_interval(exponent), "r2": r2[0]})
    return pd.DataFrame(rows)


def elasticities(stats: SweepStatistics, systems: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """``d log M / d log delta`` of each metric along the AR removal sweep, per system, with 95% bootstrap intervals
    (1: proportional to the density, as random P@n; 0: insensitive).  P@n and RR appear twice: over the population of
    the full test set (``users = "all"``) and over the users who still have a relevant item (``"with relevant"``).
    ``draws`` keeps every resample's slope, so that ratios of elasticities get intervals (:func:`elasticity_ratio`)."""
    rows = []
    variants = [(m, parse_metric(m).name in ZERO_WITHOUT_RELEVANT) for m in metrics]
    variants += [(m, False) for m, zero in variants if zero]
    for metric, population in variants:
        for system in systems:
            _, density, values = sweep_draws(stats, AR_REMOVAL, metric, system,
                                             among_relevant=not population and metric in stats.among_relevant)
            if len(values) < 3 or np.any(values[:, 0] <= 0):
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                slope, _, r2 = line_fit(np.log(density), np.log(values))
            rows.append({"metric": metric, "users": "all" if population else "with relevant", "system": system,
                         "elasticity": slope[0], "ci": draw_interval(slope), "r2": r2[0], "draws": slope})
    return pd.DataFrame(rows)


def order_stability(stats: SweepStatistics, systems: Sequence[str], metric: str) -> pd.DataFrame:
    """Kendall's tau-b of the order of systems at each removal level against the full test set's order (and the
    true order of a simulated world), with 95% bootstrap intervals over users.  One row per removal point of the AR
    and 1R sweeps: ``sweep``, ``x``, ``users``, ``systems`` (how many are ordered), ``tau``, ``tau_ci``,
    ``swapped`` (the pairs ordered against the full test set, the one now above first), ``tau_truth`` and
    ``tau_truth_ci`` (NaN without a truth)."""
    rows = []
    values = stats.metric[metric]
    for sweep in (AR_REMOVAL, ONE_R_REMOVAL):
        levels = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
        if not len(levels):
            continue
        full = values.xs(levels["point"].iloc[0], level="point").reindex(systems).to_numpy().T
        truth = stats.truth.reindex(systems).to_numpy().T if stats.truth is not None else None
        for _, level in levels.iterrows():
            measured = values.xs(level["point"], level="point").reindex(systems).to_numpy().T
            against_full = order_agreement(measured, full)
            row = {"sweep": sweep, "x": level["x"], "users": level["users"], "systems": len(systems),
                   "tau": against_full.tau[0], "tau_ci": draw_interval(against_full.tau),
                   "swapped": discordant_pairs(dict(zip(systems, measured[0], strict=True)),
                                               dict(zip(systems, full[0], strict=True))),
                   "tau_truth": np.nan, "tau_truth_ci": (np.nan, np.nan)}
            if truth is not None:
                against_truth = order_agreement(measured, truth)
                row |= {"tau_truth": against_truth.tau[0], "tau_truth_ci": draw_interval(against_truth.tau)}
            rows.append(row)
    return pd.DataFrame(rows)

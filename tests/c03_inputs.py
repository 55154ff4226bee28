"""Hand-made results of chapter 3's study, small enough to read, for the tests of its claims, report and figures."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c03_sparsity_bias.study.fits import SweepStatistics
from recbias.chapters.c03_sparsity_bias.study.sweeps import (
    AR_REMOVAL,
    ONE_R_AI_REMOVAL,
    ONE_R_REMOVAL,
    ONE_R_SIZE,
    Sweep,
    metric_names,
    point_key,
)
from recbias.chapters.c03_sparsity_bias.study.theory_check import CheckSummary

SYSTEMS = ["A", "B", "Random"]
COLOURS = {"A": "#1f77b4", "B": "#d62728", "Random": "#9e9e9e"}
N = 10
REMOVED = [0.0, 0.5, 0.9, 0.99]
SIZES = [100, 200, 400]


def summary(within: float = 0.93) -> CheckSummary:
    """A theory check of 60 configurations on 10 of 12 users, 93% of them within the band of their closed form."""
    return CheckSummary(configurations=60, skipped=2, unshown=1, users=10, users_total=12, within=within,
                        within_ar=0.96, within_1r=0.92, within_rho=0.9, max_z=3.14, all_users_low=0.5,
                        all_users_high=0.9)


def sweep(followed=(60, 106), sizes=(23, 226)) -> Sweep:
    """A sweep with the bookkeeping the page quotes: 1R pools of 244 and 114 candidates (the 95% level lies beyond
    the fitted range), and of the four users of the full AR test set one has more than 10 relevant test items."""
    points = pd.DataFrame({"fold": 0, "sweep": ONE_R_REMOVAL, "x": [0.0, 0.8, 0.95], "candidates": [244, 114, 50]})
    targets = pd.DataFrame({"point": point_key(AR_REMOVAL, 0.0), "run": [0, 1, 2, 3, -1],
                            "relevant": [11.0, 10.0, 2.0, 1.0, 0.0]})
    return Sweep(dataset="tiny", metrics=[], n=N, designs=("TI-AN", "1R TI-NN(99)"),
                 runs=pd.DataFrame(), targets=targets, points=points, truth=None, sizes=list(sizes), size_users=54,
                 followed=followed)


def check_frame() -> pd.DataFrame:
    """Four configurations of the theory check: AR and 1R, TI and AI candidates; the last AR measured nothing."""
    return pd.DataFrame({
        "design": ["TI-AN", "AI-AN", "1R TI-NN(99)", "1R AI-NN(99)", "TI-AN"], "kind": ["AR", "AR", "1R", "1R", "AR"],
        "theory": [0.004, 0.002, 0.01, 0.01, 0.0005], "measured": [0.0045, 0.0018, 0.011, 0.0098, 0.0],
        "rho": [0.0042, 0.002, 0.01, 0.01, 0.0005], "sd": [0.0004, 0.0003, 0.001, 0.001, 0.0002],
        "eq4_all_users": [0.003, 0.0015, np.nan, np.nan, 0.0003],
        "z": [0.75, -0.67, 1.0, -0.2, -2.5], "z_theory": [1.25, -0.67, 1.0, -0.2, -2.5]})


def density_fits(ar_r2=(0.999, 0.9996, 0.5), scatter=(0.9, 1.1, 3.0), intercept_ci=((-0.001, -0.0005),) * 3,
                 one_r=(-0.25, -0.18, 0.3), one_r_ai=(-0.02, -0.01, 0.4), random_slope_ci=(0.7, 1.6)) -> pd.DataFrame:
    """Fitted lines of systems A, B and Random along the three removal sweeps."""
    rows = []
    for sweep, changes in ((AR_REMOVAL, (-0.9, -0.91, -0.5)), (ONE_R_REMOVAL, one_r), (ONE_R_AI_REMOVAL, one_r_ai)):
        for k, (system, change) in enumerate(zip(SYSTEMS, changes, strict=True)):
            slope = 1.1 if system == "Random" else 14.0 + 18 * k
            rows.append({"sweep": sweep, "system": system, "slope": slope,
                         "slope_ci": random_slope_ci if system == "Random" else (slope - 1, slope + 1),
                         "intercept": -0.0007, "intercept_ci": intercept_ci[k], "r2": ar_r2[k], "scatter": scatter[k], "full": 0.05,
                         "sparsest": 0.005, "change": change, "change_ci": (change - 0.05, change + 0.05)})
    return pd.DataFrame(rows)


def size_fits(exponents=(-0.63, -0.45, -0.92), cis=((-0.7, -0.6), (-0.5, -0.4), (-0.99, -0.83))) -> pd.DataFrame:
    """Exponents of 1R P@n in the target size for A, B and Random."""
    return pd.DataFrame({"system": SYSTEMS, "exponent": list(exponents), "exponent_ci": list(cis),
                         "r2": [0.99, 0.98, 0.97]})


def orders(truth: bool = False) -> pd.DataFrame:
    """Kendall's tau at each removal level: AR holds up to 50% and swaps B above A at 90%; 1R holds throughout."""
    rows = []
    for sweep, taus, highs in ((AR_REMOVAL, (1.0, 1.0, 1 / 3, 1 / 3), (1.0, 1.0, 1.0, 0.8)),
                               (ONE_R_REMOVAL, (1.0, 1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0))):
        for x, tau, high, users in zip(REMOVED, taus, highs, (100, 80, 40, 12), strict=True):
            rows.append({"sweep": sweep, "x": x, "runs": 3 * users, "users": users, "systems": 3, "tau": tau,
                         "tau_ci": (min(tau, high) - 0.2, high), "swapped": [("B", "A")] if tau < 1 else [],
                         "tau_truth": (0.6 if x else 1.0) if truth else np.nan,
                         "tau_truth_ci": (0.2, 1.0) if truth else (np.nan, np.nan)})
    return pd.DataFrame(rows)


def elasticities(scale_ratios: float = 1.0) -> pd.DataFrame:
    """Elasticities of A and B whose ratios to P@10 are 0.0625 (recall), 0.25 (MAP), 0.3125 (nDCG), 0.375
    (nDCG@10) and 0.875 (MRR), times ``scale_ratios``; Random's P@10 barely moves.  The resamples' slopes
    (``draws``) vary by ±5% around each value, P@10's against the others', so each ratio's interval spans
    about ±10% of it."""
    spread = np.concatenate([[0.0], np.linspace(-0.05, 0.05, 40)])
    rows = []
    for system, scale in (("A", 1.0), ("B", 1.2)):
        for metric, e in (("P@10", 0.8), ("Recall@10", 0.05), ("MAP", 0.2), ("nDCG", 0.25), ("nDCG@10", 0.3),
                          ("MRR", 0.7)):
            e = e if metric == "P@10" else e * scale_ratios
            draws = e * scale * (1 + (spread if metric == "P@10" else -spread))
            rows.append({"metric": metric, "users": "with relevant", "system": system, "elasticity": e * scale,
                         "ci": (e * scale - 0.1, e * scale + 0.1), "r2": 0.9, "draws": draws})
        for metric in ("P@10", "MRR"):
            rows.append({"metric": metric, "users": "all", "system": system, "elasticity": 1.4 * scale,
                         "ci": (1.3 * scale, 1.5 * scale), "r2": 0.9, "draws": 1.4 * scale * (1 + spread)})
    rows.append({"metric": "P@10", "users": "with relevant", "system": "Random", "elasticity": 0.01,
                 "ci": (-0.5, 0.5), "r2": 0.1, "draws": 0.01 + 10 * spread})
    return pd.DataFrame(rows)


def lift_frame(datasets: tuple[str, ...] = ("a", "b")) -> pd.DataFrame:
    """P@n and lift of A, B and Random under AR and 1R: AR values spread by 4 across two datasets, 1R by 1.2."""
    rows = []
    rng = np.random.default_rng(0)
    for k, dataset in enumerate(datasets):
        for design, base, rho in (("TI-AN", 0.01, 0.001 * (1 + k)), ("1R TI-NN(99)", 0.1, 0.01)):
            for system, quality in (("A", 1.0), ("B", 2.0), ("Random", 0.1)):
                p = base * quality * (1 + (3 if design == "TI-AN" else 0.2) * k)
                draws = np.concatenate([[p], p * (1 + 0.05 * rng.standard_normal(40))])
                rows.append({"dataset": dataset, "design": design, "system": system, "P": p,
                             "P_ci": (0.8 * p, 1.2 * p), "P_draws": draws, "rho": rho, "lift": p / rho,
                             "lift_ci": (0.8 * p / rho, 1.2 * p / rho)})
    return pd.DataFrame(rows)


def statistics(n_boot: int = 10) -> SweepStatistics:
    """Bootstrap means of every sweep: each metric is a system's quality times the density (AR and 1R removal)
    or times ``t^-0.5`` (size sweep), with 1% noise in the resamples."""
    rng = np.random.default_rng(0)
    levels, density = [], {}
    for sweep, xs in ((AR_REMOVAL, REMOVED), (ONE_R_REMOVAL, REMOVED), (ONE_R_AI_REMOVAL, REMOVED),
                      (ONE_R_SIZE, SIZES)):
        for x in xs:
            point = point_key(sweep, x)
            levels.append({"point": point, "sweep": sweep, "x": x, "design": "d", "runs": 100, "users": 50,
                           "relevant": 10, "t": 100.0, "rho": 0.01})
            density[point] = 0.01 * (1 - x) if sweep != ONE_R_SIZE else 0.01
    levels = pd.DataFrame(levels)

    def draws(value: float) -> np.ndarray:
        return np.concatenate([[value], value * (1 + 0.01 * rng.standard_normal(n_boot))])

    metric = {}
    for name in metric_names(N):
        rows = {(row.point, system): draws(quality * (row.x ** -0.5 if row.sweep == ONE_R_SIZE else density[row.point]))
                for row in levels.itertuples() for system, quality in zip(SYSTEMS, (3.0, 2.0, 1.0), strict=True)}
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index = pd.MultiIndex.from_tuples(frame.index, names=["point", "system"])
        metric[name] = frame
    dens = pd.DataFrame.from_dict({point: draws(value) for point, value in density.items()}, orient="index")
    return SweepStatistics(levels=levels, metric=metric, among_relevant=metric, density=dens, truth=None)

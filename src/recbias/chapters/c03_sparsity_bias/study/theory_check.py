"""The closed forms of random precision against measurement (IRJ 2017 Sec. 4.1, Eq. 4 and 5): random recommendation
over a grid of test ratios, removed test ratings, thresholds and designs, set against Eq. 4 (AR, ``sigma delta``),
Eq. 5 (1R, ``1 / t``) and the exact relevance ratio ``rho``, with the simulation error of a random order
(:func:`random_precision_check`, summed up by :func:`check_summary`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c03_sparsity_bias.study.sweeps import user_sample
from recbias.designs import build_runs
from recbias.evaluate import evaluate_runs
from recbias.evaluate.experiment import DesignChoice
from recbias.ratings import Ratings
from recbias.runs import Runs
from recbias.splits import fold_seed, make_folds, remove_test_ratings
from recbias.theory import (expected_random_precision_1r, expected_random_precision_ar, random_precision_sd,
                            relevance_ratio, target_size)

#: the test ratios and removed shares of the theory check (crossed with designs and thresholds)
CHECK_RATIOS = (0.1, 0.4)
CHECK_REMOVED = (0.0, 0.5, 0.9)
#: half-width of the 95% simulation band, in standard deviations
BAND = 1.96


def thresholds(ratings: Ratings) -> list[float]:
    """The dataset's positive threshold and the next rating value below it, when there is one."""
    below = np.unique(ratings.values[ratings.values < ratings.positive_threshold])
    return [float(ratings.positive_threshold)] + ([float(below[-1])] if len(below) else [])


def check_designs(choice: DesignChoice) -> list[str]:
    """Designs of the theory check: the AR designs of ``choice`` (AI and TI candidates), 1R with AI and TI
    candidates at its target size, and 1R TI at twice that size."""
    size = choice.target_size
    return [*choice.ar, f"1R AI-NN({size - 1})", choice.one_r, f"1R TI-NN({2 * size - 1})"]


def _configurations(ratings: Ratings, sigma: float, designs: Sequence[str], removed: Sequence[float],
                    sample: np.ndarray, n: int, seed: int) -> tuple[list[tuple[Runs, dict]], int]:
    """The target sets of one test ratio: one runs object per (threshold, removed share, design) with its
    settings, and the number of configurations left out (no run, or target sets shorter than ``n``)."""
    (fold,) = make_folds(ratings, folds=1, test_ratio=sigma, seed=seed)
    sampled = np.isin(ratings.users, sample)
    configurations, skipped = [], 0
    for threshold in thresholds(ratings):
        n_positive = int(np.count_nonzero(sampled & (ratings.values >= threshold)))
        for k, fraction in enumerate(removed):
            test = remove_test_ratings(fold.test, fraction, seed=fold.seed) if fraction else fold.test
            for d, design in enumerate(designs):
                built = build_runs(fold.train, test, design, threshold=threshold, on_shortage="exclude",
                                   seed=fold_seed(seed, 100 * k + d), users=sample)
                if built.n_runs == 0 or built.sizes.min() < n:
                    skipped += 1
                    continue
                configurations.append((built, {"design": design, "test ratio": sigma, "removed": fraction,
                                               "threshold": threshold, "positives": n_positive}))
    return configurations, skipped


def _measurement(built: Runs, setting: dict, n: int, users_in_sample: int, seed: int) -> dict:
    """Random P@n of one configuration, ranked with ``seed``, next to ``rho``, its simulation error and
    the closed form (Eq. 5 in 1R; Eq. 4 in AR, over the users averaged and over all users with a rating)."""
    scores = np.random.default_rng(seed).random(len(built.items))
    measured = float(evaluate_runs(built, scores, [f"P@{n}"])[f"P@{n}"].mean())
    t, users = target_size(built), int(np.count_nonzero(np.bincount(built.users)))
    one_r = built.design.startswith("1R")
    share = setting["test ratio"] * (1 - setting["removed"])
    return setting | {
        "kind": "1R" if one_r else "AR", "users": users, "runs": built.n_runs, "t": t, "measured": measured,
        "rho": relevance_ratio(built), "sd": random_precision_sd(built, n),
        "theory": expected_random_precision_1r(t) if one_r
        else expected_random_precision_ar(share, setting["positives"], t, users),
        "eq4_all_users": np.nan if one_r else expected_random_precision_ar(share, setting["positives"], t,
                                                                           users_in_sample)}


def random_precision_check(ratings: Ratings, designs: Sequence[str], *, test_ratios: Sequence[float] = CHECK_RATIOS,
                           removed: Sequence[float] = CHECK_REMOVED, n: int = 10, max_users: int | None = None,
                           seed: int = 0) -> pd.DataFrame:
    """Measured random P@n against its expectation over a grid of configurations.

    For each test ratio ``sigma`` (fold 0 of :func:`make_folds`), threshold (:func:`thresholds`), share ``f`` removed
    and design, the target sets are ranked at random with a seed of their own (independent draws).  One row per
    configuration: the measured mean P@n, ``rho`` (its exact expectation), its simulation standard deviation ``sd``,
    and the closed forms: Eq. 5 in 1R; Eq. 4, ``sigma (1 - f) |PR| / (t |U|)``, in AR, with ``|U|`` the users
    averaged over (``theory``) and all users with a rating (``eq4_all_users``); ``z`` and ``z_theory`` in units of
    ``sd``.  ``table.attrs`` holds the configurations ``skipped`` (no run, or sets shorter than ``n``) and the
    ``users`` measured (a sample of ``max_users``) and with a rating.
    """
    sample = user_sample(np.flatnonzero(ratings.user_counts()), max_users, seed)
    rows, skipped = [], 0
    for sigma in test_ratios:
        configurations, left_out = _configurations(ratings, sigma, designs, removed, sample, n, seed)
        skipped += left_out
        for built, setting in configurations:
            rows.append(_measurement(built, setting, n, len(sample), fold_seed(seed, len(rows))))
    table = pd.DataFrame(rows)
    table["z"] = (table["measured"] - table["rho"]) / table["sd"]
    table["z_theory"] = (table["measured"] - table["theory"]) / table["sd"]
    table.attrs["skipped"] = skipped
    table.attrs["users"] = (len(sample), int(np.count_nonzero(ratings.user_counts())))
    return table


@dataclass(frozen=True)
class CheckSummary:
    """How well the closed forms predict measured random precision: configurations measured, without runs
    (``skipped``) or with no relevant item shown (``unshown``); users measured and with a rating; the share within the
    95% band (``|z| <= 1.96``) of Eq. 4/5, of each alone (NaN without one) and of ``rho``; the largest ``|z|``; the
    range of Eq. 4 with all users over ``rho``."""

    configurations: int
    skipped: int
    unshown: int
    users: int
    users_total: int
    within: float
    within_ar: float
    within_1r: float
    within_rho: float
    max_z: float
    all_users_low: float
    all_users_high: float


def _within(z: pd.Series) -> float:
    return float((z.abs() <= BAND).mean()) if len(z) else np.nan


def check_summary(check: pd.DataFrame) -> CheckSummary:
    """The theory check in a few numbers (:class:`CheckSummary`)."""
    ar, one_r = check[check["kind"] == "AR"], check[check["kind"] == "1R"]
    with np.errstate(divide="ignore", invalid="ignore"):
        all_users = (ar["eq4_all_users"] / ar["rho"]).to_numpy()
    users, users_total = check.attrs.get("users", (0, 0))
    return CheckSummary(
        configurations=len(check), skipped=int(check.attrs.get("skipped", 0)),
        unshown=int((check["measured"] <= 0).sum()), users=users, users_total=users_total,
        within=_within(check["z_theory"]), within_ar=_within(ar["z_theory"]), within_1r=_within(one_r["z_theory"]),
        within_rho=_within(check["z"]), max_z=float(check["z_theory"].abs().max()),
        all_users_low=float(np.nanmin(all_users)) if len(ar) else np.nan,
        all_users_high=float(np.nanmax(all_users)) if len(ar) else np.nan,
    )

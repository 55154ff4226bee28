"""The sweeps of the papers' Fig. 4, measured on every fold (IRJ 2017 Sec. 4.2): the five systems while a share of
the test ratings is removed at random (AR, and 1R with TI and AI candidates) and while the 1R target sets grow, every
metric of :func:`metric_names` on the same runs (:func:`sparsity_sweep`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import true_quality
from recbias.evaluate.experiment import evaluate_fold, fit_systems, growing_target_sets, largest_target_size
from recbias.metrics import parse_metric
from recbias.ratings import Ratings
from recbias.recommenders import PAPERS_SET
from recbias.runs import Runs
from recbias.splits import Fold, fold_seed, make_folds, remove_test_ratings
from recbias.theory import relevance_ratio, relevance_ratios, target_size

#: the three sweeps of the papers' Fig. 4, and 1R with AI candidates, whose pool removal cannot shrink
AR_REMOVAL, ONE_R_REMOVAL, ONE_R_SIZE = "AR, test ratings removed", "1R, test ratings removed", "1R, target set grows"
ONE_R_AI_REMOVAL = "1R AI, test ratings removed"

#: metrics that are 0, not undefined, for a user without relevant test items (nothing to find, nothing found)
ZERO_WITHOUT_RELEVANT = ("P", "RR")

#: removal levels above this are shown (and their orders compared) but left out of the fitted lines,
#: whose range is that of the papers' figure
FIT_MAX_REMOVED = 0.9


def personalised(systems: Sequence[str]) -> list[str]:
    """``systems`` without Random, the reference every other system is read against."""
    return [s for s in systems if s != "Random"]


def metric_names(n: int) -> list[str]:
    """The metrics of the chapter at cut-off ``n``: precision first, then the paper's other five."""
    return [f"P@{n}", f"Recall@{n}", f"nDCG@{n}", "nDCG", "MAP", "MRR"]


def parse_grid(text: str, name: str, low: float, high: float, integer: bool = False) -> list:
    """A comma-separated list of numbers in ``[low, high]`` (sorted, distinct), or a clear error."""
    try:
        values = sorted({float(v) for v in str(text).split(",") if v.strip()})
    except ValueError:
        raise ValueError(f"{name} must be comma-separated numbers, got {text!r}") from None
    if not values or values[0] < low or values[-1] > high:
        raise ValueError(f"{name} must list numbers in [{low:g}, {high:g}], got {text!r}")
    if integer and any(v != int(v) for v in values):
        raise ValueError(f"{name} must list integers, got {text!r}")
    return [int(v) for v in values] if integer else values


def target_size_grid(train: Ratings, test: Ratings, sizes: Sequence[int], min_share: float = 0.5) -> list[int]:
    """The requested 1R target sizes that half the users (``min_share``) can hold; when fewer than three fit (a small
    catalogue), the whole grid scaled by ``largest / max(sizes)``, keeping its ratios and its number of points."""
    largest = largest_target_size(train, test, min_share=min_share)
    kept = [int(s) for s in sizes if s <= largest]
    if len(kept) >= 3:
        return kept
    scale = largest / max(sizes)
    return sorted({max(2, int(round(s * scale))) for s in sizes})


def user_sample(users: np.ndarray, max_users: int | None, seed: int) -> np.ndarray:
    """``users``, or a sorted uniform sample of ``max_users`` of them drawn with ``seed``."""
    if max_users is None or len(users) <= max_users:
        return users
    return np.sort(np.random.default_rng(seed).choice(users, int(max_users), replace=False))


@dataclass(frozen=True)
class Sweep:
    """The runs of the three sweeps of the papers' Fig. 4, on every fold: ``runs``, the per-run table of every system
    (:func:`recbias.evaluate.experiment.evaluate_fold`, ``point`` naming the sweep point); ``targets``, one row per
    run with its relevant items, ``inverse_size`` (``1 / |T|``) and ``rho``; ``points``, one row per (fold, point)
    with ``sweep``, ``x`` (share removed, or ``|T_u^r|``), test ratings, candidates, runs, users, ``t`` and ``rho``;
    ``truth``, the true P@n of each followed user (simulated worlds only); the sizes swept and the users of the size
    sweep, and the users followed by the removal sweeps and those with a relevant test item (fold 0)."""

    dataset: str
    metrics: list[str]
    n: int
    designs: tuple[str, str]
    runs: pd.DataFrame
    targets: pd.DataFrame
    points: pd.DataFrame
    truth: pd.DataFrame | None
    sizes: list[int]
    size_users: int
    followed: tuple[int, int]


def point_key(sweep: str, x: float) -> str:
    """The name of one point of a sweep, e.g. ``"AR, test ratings removed | 0.5"``."""
    return f"{sweep} | {x:g}"


def target_rows(fold: Fold, key: str, runs: Runs) -> pd.DataFrame:
    """One row per run of ``runs``: its relevant items, ``1 / |T|`` and ``rho``."""
    rho = relevance_ratios(runs)
    return pd.DataFrame({"fold": fold.index, "point": key, "run": np.arange(runs.n_runs), "user": runs.users,
                         "relevant": rho * runs.sizes, "inverse_size": 1.0 / runs.sizes, "rho": rho})


def _point(fold: Fold, sweep: str, x: float, test: Ratings, runs: Runs) -> dict:
    return {"fold": fold.index, "point": point_key(sweep, x), "sweep": sweep, "design": runs.design, "x": x,
            "test ratings": test.n_ratings, "candidates": runs.report.n_candidates, "runs": runs.n_runs,
            "users": int(np.count_nonzero(np.bincount(runs.users))), "relevant": int(runs.labels.sum()),
            "t": target_size(runs), "rho": relevance_ratio(runs)}


def removal_runs(fold: Fold, designs: Sequence[tuple[str, str]], removed: Sequence[float], followed: np.ndarray,
                  seed: int) -> tuple[dict[str, Runs], list[dict]]:
    """Phase 1 of a fold: the runs of every removal sweep (``(sweep, design)`` pairs) at every level,
    nested (what is gone at 20% is gone at 40%); levels without runs are left out."""
    runs, points = {}, []
    for k, fraction in enumerate(removed):
        test = remove_test_ratings(fold.test, fraction, seed=fold.seed) if fraction else fold.test
        for d, (sweep, design) in enumerate(designs):
            built = build_runs(fold.train, test, design, on_shortage="exclude", users=followed,
                               seed=fold_seed(seed, 1000 * fold.index + 10 * k + d))
            if built.n_runs:
                runs[point_key(sweep, fraction)] = built
                points.append(_point(fold, sweep, fraction, test, built))
    return runs, points


def _size_runs(fold: Fold, grid: Sequence[int], max_users: int | None, seed: int) -> tuple[dict[str, Runs], list[dict]]:
    """Phase 2 of a fold: 1R target sets of every size of ``grid`` for one population of users."""
    grown = growing_target_sets(fold.train, fold.test, grid, max_users=max_users,
                                seed=fold_seed(seed, 1000 * fold.index + 999))
    runs = {point_key(ONE_R_SIZE, size): built for size, built in grown.items()}
    points = [_point(fold, ONE_R_SIZE, size, fold.test, built) for size, built in grown.items()]
    return runs, points


def _padding(fold: Fold, runs: Mapping[str, Runs], removed: Sequence[float], systems: Sequence[str],
             metrics: Sequence[str]) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
    """Phase 3 of a fold: the runs and targets that keep the population of the full AR test set at every level,
    for the users a level has lost: P@n and RR 0, other metrics undefined (NaN), no relevant item, size unknown."""
    population = np.unique(runs[point_key(AR_REMOVAL, 0.0)].users)
    zero = {m: 0.0 if parse_metric(m).name in ZERO_WITHOUT_RELEVANT else np.nan for m in metrics}
    padding = []
    for fraction in removed[1:]:
        key = point_key(AR_REMOVAL, fraction)
        lost = np.setdiff1d(population, runs[key].users if key in runs else [])
        padding.append((pd.DataFrame({"dataset": fold.train.name, "fold": fold.index, "point": key,
                                      "system": np.repeat(list(systems), len(lost)), "run": -1,
                                      "user": np.tile(lost, len(systems)), "group": -1} | zero),
                        pd.DataFrame({"fold": fold.index, "point": key, "run": -1, "user": lost, "relevant": 0.0,
                                      "inverse_size": np.nan, "rho": 0.0})))
    return padding


def _fold_truth(fitted: Mapping, fold: Fold, ratings: Ratings, n: int, followed: np.ndarray, seed: int) -> pd.DataFrame:
    """Phase 4 of a fold (simulated worlds): the true P@n of every followed user and system."""
    quality = true_quality(fitted, fold.train, ratings.true_relevance, n=n, seed=seed, users=followed)
    return (quality[f"P@{n}"].reset_index().melt(id_vars="user", var_name="system", value_name=f"P@{n}")
            .assign(fold=fold.index))


def sparsity_sweep(ratings: Ratings, systems: Mapping[str, str] = PAPERS_SET, *, ar: str = "TI-AN", folds: int = 2,
                   test_ratio: float = 0.2, removed: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9),
                   sizes: Sequence[int] = (100, 200, 500, 1000), base_size: int = 100, n: int = 10,
                   max_users: int | None = None, seed: int = 0, cache: bool = True) -> Sweep:
    """The systems under the three sweeps of IRJ 2017 Fig. 4, on ``folds`` coin-flip splits.

    * AR (design ``ar``), 1R TI-NN(``base_size - 1``) and 1R AI-NN(``base_size - 1``) while a share ``removed`` of
      the test ratings is dropped (:func:`recbias.splits.remove_test_ratings`, nested within a fold).  AR precision
      averages over one population, the users of the full test set (as Eq. 4 over a fixed ``U``): a user who has
      lost every relevant test item counts with P@n = RR = 0, while recall, AP and nDCG leave her out;
    * 1R on the whole test set with ``|T_u^r|`` over ``sizes`` (:func:`target_size_grid` of fold 0), one population
      of users (:func:`recbias.evaluate.experiment.growing_target_sets`).

    With ``max_users``, each sweep follows a uniform sample of at most that many users.  Points without runs are
    left out."""
    if 0.0 not in removed:
        raise ValueError("removed must include 0, the full test set every level is compared with")
    fold_list = make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed)
    grid = target_size_grid(fold_list[0].train, fold_list[0].test, sizes)
    one_r, one_r_ai = f"1R TI-NN({base_size - 1})", f"1R AI-NN({base_size - 1})"
    designs = ((AR_REMOVAL, ar), (ONE_R_REMOVAL, one_r), (ONE_R_AI_REMOVAL, one_r_ai))
    metrics = metric_names(n)
    tables, targets, points, truth = [], [], [], []
    size_users, followed_users = 0, (0, 0)
    for fold in fold_list:
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed, cache=cache)
        rated = np.flatnonzero(np.bincount(fold.test.users[fold.test.positive], minlength=fold.test.n_users))
        followed = user_sample(rated, max_users, fold_seed(seed, 1000 * fold.index + 998))
        runs, removal_points = removal_runs(fold, designs, removed, followed, seed)
        grown, size_points = _size_runs(fold, grid, max_users, seed)
        runs |= grown
        points += removal_points + size_points
        if fold.index == 0:
            followed_users = (len(followed), len(rated))
            size_users = len(np.unique(next(iter(grown.values())).users)) if grown else 0
        padding = _padding(fold, runs, removed, list(systems), metrics)
        tables += [evaluate_fold(fold, fitted, runs, metrics, seed=seed).rename(columns={"design": "point"})]
        tables += [rows for rows, _ in padding]
        targets += [target_rows(fold, key, built) for key, built in runs.items()] + [rows for _, rows in padding]
        if ratings.true_relevance is not None:
            truth.append(_fold_truth(fitted, fold, ratings, n, followed, seed))
    return Sweep(
        dataset=ratings.name, metrics=metrics, n=n, designs=(ar, one_r),
        runs=pd.concat(tables, ignore_index=True), targets=pd.concat(targets, ignore_index=True),
        points=pd.DataFrame(points), truth=pd.concat(truth, ignore_index=True) if truth else None,
        sizes=grid, size_users=size_users, followed=followed_users,
    )

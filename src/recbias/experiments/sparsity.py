"""Chapter 3 ("The test-sparsity bias"): how the value of precision follows the density of test ratings.

Bellogín, Castells and Cantador (IRJ 2017, Sec. 4; Bellogín 2012, Sec. 4.4) show that the
expected precision of random recommendation is the share of relevant items in the target
sets, ``rho``: ``sigma delta`` under AR (Eq. 4) and ``1 / t`` under 1R (Eq. 5), so the range
of every system's precision moves with the density of the test ratings.  This module
measures it:

* :func:`random_precision_check`: the measured random precision against Eq. 4 / Eq. 5 and the
  exact ``rho`` over a grid of test ratios, removed test ratings, designs and thresholds;
* :func:`sparsity_sweep`: the five systems while test ratings are removed (AR and 1R) and
  while 1R target sets grow (their Fig. 4), every metric on the same runs;
* :func:`sweep_statistics` and the fits built on it (:func:`density_fits`,
  :func:`size_fits`, :func:`elasticities`), with bootstrap intervals over users;
* :func:`order_stability`: Kendall's tau of each level's order of systems against the
  full test set's, and against the true order of a simulated world;
* :func:`lift_study`: P@n next to the lift over random, P@n / rho, on several datasets;
* the page's sentences and scorecard findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.designs import build_runs
from recbias.evaluate import (
    UserBootstrap,
    discordant_pairs,
    evaluate_runs,
    order_agreement,
    percentile_interval,
    true_quality,
)
from recbias.experiments.runner import (
    DesignChoice,
    choose_designs,
    design_note,
    PAPER_SYSTEMS,
    Fold,
    evaluate_fold,
    fit_systems,
    fold_seed,
    growing_target_sets,
    largest_target_size,
    make_folds,
)
from recbias.metrics import parse_metric
from recbias.ratings import Ratings
from recbias.runs import Runs
from recbias.splits import remove_test_ratings
from recbias.synthetic import PRESETS
from recbias.text import fmt_number, fmt_pct
from recbias.theory import (
    expected_random_precision_1r,
    expected_random_precision_ar,
    random_precision_sd,
    relevance_ratio,
    relevance_ratios,
    target_size,
)

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 4"
#: the three sweeps of the papers' Fig. 4, and 1R with AI candidates, whose pool removal cannot shrink
AR_REMOVAL, ONE_R_REMOVAL, ONE_R_SIZE = "AR, test ratings removed", "1R, test ratings removed", "1R, target set grows"
ONE_R_AI_REMOVAL = "1R AI, test ratings removed"
#: metrics that are 0, not undefined, for a user without relevant test items (nothing to find, nothing found)
ZERO_WITHOUT_RELEVANT = ("P", "RR")
#: the test ratios and removed shares of the theory check (crossed with designs and thresholds)
CHECK_RATIOS = (0.1, 0.4)
CHECK_REMOVED = (0.0, 0.5, 0.9)
#: removal levels above this are shown (and their orders compared) but left out of the fitted lines,
#: whose range is that of the papers' figure
FIT_MAX_REMOVED = 0.9


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
    """The requested 1R target sizes that half the users (``min_share``) can hold, or the grid scaled down.

    When fewer than three requested sizes fit (a small catalogue), the whole grid is scaled by
    ``largest / max(sizes)`` so that the sweep keeps its shape (ratios) and its number of points.
    """
    largest = largest_target_size(train, test, min_share=min_share)
    kept = [int(s) for s in sizes if s <= largest]
    if len(kept) >= 3:
        return kept
    scale = largest / max(sizes)
    return sorted({max(2, int(round(s * scale))) for s in sizes})


# ------------------------------------------------------------------- theory check


def _thresholds(ratings: Ratings) -> list[float]:
    """The dataset's positive threshold and the next rating value below it, when there is one."""
    below = np.unique(ratings.values[ratings.values < ratings.positive_threshold])
    return [float(ratings.positive_threshold)] + ([float(below[-1])] if len(below) else [])


def _user_sample(users: np.ndarray, max_users: int | None, seed: int) -> np.ndarray:
    """``users``, or a sorted uniform sample of ``max_users`` of them drawn with ``seed``."""
    if max_users is None or len(users) <= max_users:
        return users
    return np.sort(np.random.default_rng(seed).choice(users, int(max_users), replace=False))


def check_designs(choice: DesignChoice) -> list[str]:
    """Designs of the theory check: the AR designs of ``choice`` (AI and TI candidates), 1R with AI and TI
    candidates at its target size, and 1R TI at twice that size."""
    size = choice.target_size
    return [*choice.ar, f"1R AI-NN({size - 1})", choice.one_r, f"1R TI-NN({2 * size - 1})"]


def random_precision_check(
    ratings: Ratings,
    designs: Sequence[str],
    *,
    test_ratios: Sequence[float] = CHECK_RATIOS,
    removed: Sequence[float] = CHECK_REMOVED,
    n: int = 10,
    max_users: int | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Measured random P@n against its expectation over a grid of configurations.

    For each test ratio ``sigma`` (one coin-flip split, fold 0 of :func:`make_folds`), each
    positive threshold (:func:`_thresholds`), each share ``f`` of test ratings removed and each
    design, the target sets are ranked uniformly at random (scores drawn with a seed of the
    configuration's own, so that configurations are independent draws given their target
    sets).  One row per configuration:
    the measured mean P@n over runs (IRJ Eq. 1 in 1R), ``rho`` (its exact expectation given the
    target sets, :func:`recbias.theory.relevance_ratio`), its simulation standard deviation
    (:func:`recbias.theory.random_precision_sd`), and the closed forms: Eq. 5, ``1 / t``, in 1R;
    Eq. 4, ``sigma (1 - f) |PR| / (t |U|)``, in AR, with ``|U|`` the users averaged over
    (``eq4``) and all users with a rating (``eq4_all_users``).  With ``max_users``, the runs of a
    sample of that many users with a rating (the same in every configuration) are measured, and
    ``|PR|`` and the users with a rating are counted on the sample.  Configurations without runs, or
    with target sets shorter than ``n``, are left out and counted in ``table.attrs["skipped"]``;
    ``table.attrs["users"]`` holds the users measured and the users with a rating.
    """
    rows, skipped = [], 0
    sample = _user_sample(np.flatnonzero(ratings.user_counts()), max_users, seed)
    sampled = np.isin(ratings.users, sample)
    for sigma in test_ratios:
        (fold,) = make_folds(ratings, folds=1, test_ratio=sigma, seed=seed)
        runs, settings = {}, {}
        for threshold in _thresholds(ratings):
            n_positive = int(np.count_nonzero(sampled & (ratings.values >= threshold)))
            for k, fraction in enumerate(removed):
                test = remove_test_ratings(fold.test, fraction, seed=fold.seed) if fraction else fold.test
                for d, design in enumerate(designs):
                    built = build_runs(fold.train, test, design, threshold=threshold, on_shortage="exclude",
                                       seed=fold_seed(seed, 100 * k + d), users=sample)
                    if built.n_runs == 0 or built.sizes.min() < n:
                        skipped += 1
                        continue
                    key = f"{design} | sigma {sigma:g} | removed {fraction:g} | threshold {threshold:g}"
                    runs[key] = built
                    settings[key] = {"design": design, "test ratio": sigma, "removed": fraction,
                                     "threshold": threshold, "positives": n_positive}
        for key, built in runs.items():
            scores = np.random.default_rng(fold_seed(seed, len(rows))).random(len(built.items))
            ranked = evaluate_runs(built, scores, [f"P@{n}"])
            measured = float(ranked[f"P@{n}"].mean())
            t, users = target_size(built), int(np.count_nonzero(np.bincount(built.users)))
            one_r = built.design.startswith("1R")
            setting = settings[key]
            share = setting["test ratio"] * (1 - setting["removed"])
            rows.append(setting | {
                "kind": "1R" if one_r else "AR",
                "users": users,
                "runs": built.n_runs,
                "t": t,
                "measured": measured,
                "rho": relevance_ratio(built),
                "sd": random_precision_sd(built, n),
                "theory": expected_random_precision_1r(t) if one_r
                else expected_random_precision_ar(share, setting["positives"], t, users),
                "eq4_all_users": np.nan if one_r
                else expected_random_precision_ar(share, setting["positives"], t, len(sample)),
            })
    table = pd.DataFrame(rows)
    table["z"] = (table["measured"] - table["rho"]) / table["sd"]
    table["z_theory"] = (table["measured"] - table["theory"]) / table["sd"]
    table.attrs["skipped"] = skipped
    table.attrs["users"] = (len(sample), int(np.count_nonzero(ratings.user_counts())))
    return table


def check_summary(check: pd.DataFrame) -> dict[str, float]:
    """How well the closed forms predict the measured random precision: the share of configurations
    within the 95% simulation band (``|z| <= 1.96``) of ``rho``, of Eq. 4/5, of Eq. 5 alone and of Eq. 4
    alone; the largest ``|z|`` against Eq. 4/5; and the range of Eq. 4 with all users over the measured."""
    ar, one_r = check[check["kind"] == "AR"], check[check["kind"] == "1R"]
    with np.errstate(divide="ignore", invalid="ignore"):
        all_users = (ar["eq4_all_users"] / ar["rho"]).to_numpy()
    return {
        "configurations": len(check),
        "within_rho": float((check["z"].abs() <= 1.96).mean()),
        "within_theory": float((check["z_theory"].abs() <= 1.96).mean()),
        "within_theory_1r": float((one_r["z_theory"].abs() <= 1.96).mean()) if len(one_r) else np.nan,
        "within_theory_ar": float((ar["z_theory"].abs() <= 1.96).mean()) if len(ar) else np.nan,
        "max_z": float(check["z_theory"].abs().max()),
        "all_users_low": float(np.nanmin(all_users)) if len(ar) else np.nan,
        "all_users_high": float(np.nanmax(all_users)) if len(ar) else np.nan,
    }


# ------------------------------------------------------------------------ sweeps


@dataclass(frozen=True)
class Sweep:
    """The runs of the three sweeps of the papers' Fig. 4, on every fold.

    Attributes:
        dataset, systems, metrics, n: what was measured.
        designs: the AR and the 1R design of the removal sweeps.
        runs: per-run table of every system (:func:`recbias.experiments.evaluate_fold`), with
            ``point`` naming the sweep point (the ``design`` column of the runner).
        targets: one row per run (whatever the system): ``fold``, ``point``, ``user``, ``relevant``
            (relevant items), ``inverse_size`` (``1 / |T|``) and ``rho`` (their product).
        points: one row per (fold, point): ``sweep``, ``design``, ``x`` (share of test ratings
            removed, or ``|T_u^r|``), test ratings, candidates, runs, users, relevant items,
            ``t`` and ``rho``.
        truth: per user and system, the true P@n of each fold (simulated worlds only), for the users
            the removal sweeps follow.
        sizes: the 1R target sizes swept; ``size_users``: users of the size sweep in fold 0.
        followed: users followed by the removal sweeps in fold 0, and users with a relevant test
            item there (more than the first when ``max_users`` sampled them).
    """

    dataset: str
    systems: list[str]
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


def _point_key(sweep: str, x: float) -> str:
    return f"{sweep} | {x:g}"


def _targets(fold: Fold, key: str, runs: Runs) -> pd.DataFrame:
    rho = relevance_ratios(runs)
    return pd.DataFrame({"fold": fold.index, "point": key, "run": np.arange(runs.n_runs), "user": runs.users,
                         "relevant": rho * runs.sizes, "inverse_size": 1.0 / runs.sizes, "rho": rho})


def _point(fold: Fold, sweep: str, x: float, test: Ratings, runs: Runs) -> dict:
    return {"fold": fold.index, "point": _point_key(sweep, x), "sweep": sweep, "design": runs.design, "x": x,
            "test ratings": test.n_ratings, "candidates": runs.report.n_candidates, "runs": runs.n_runs,
            "users": int(np.count_nonzero(np.bincount(runs.users))), "relevant": int(runs.labels.sum()),
            "t": target_size(runs), "rho": relevance_ratio(runs)}


def _population_rows(fold: Fold, key: str, users: np.ndarray, systems: Sequence[str],
                     metrics: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Runs and targets of the population users an AR point has lost: P@n and RR 0, other metrics
    undefined (NaN), no relevant item, size unknown."""
    zero = {m: 0.0 if parse_metric(m).name in ZERO_WITHOUT_RELEVANT else np.nan for m in metrics}
    runs = pd.DataFrame({"dataset": fold.train.name, "fold": fold.index, "point": key,
                         "system": np.repeat(list(systems), len(users)), "run": -1,
                         "user": np.tile(users, len(systems)), "group": -1} | zero)
    targets = pd.DataFrame({"fold": fold.index, "point": key, "run": -1, "user": users, "relevant": 0.0,
                            "inverse_size": np.nan, "rho": 0.0})
    return runs, targets


def sparsity_sweep(
    ratings: Ratings,
    systems: Mapping[str, str] = PAPER_SYSTEMS,
    *,
    ar: str = "TI-AN",
    folds: int = 2,
    test_ratio: float = 0.2,
    removed: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9),
    sizes: Sequence[int] = (100, 200, 500, 1000),
    base_size: int = 100,
    n: int = 10,
    max_users: int | None = None,
    seed: int = 0,
    cache: bool = True,
) -> Sweep:
    """The systems under the three sweeps of IRJ 2017 Fig. 4, on ``folds`` coin-flip splits.

    * AR (design ``ar``), 1R TI-NN(``base_size - 1``) and 1R AI-NN(``base_size - 1``) while a
      share ``removed`` of the test ratings is dropped (:func:`recbias.splits.remove_test_ratings`,
      nested within a fold: what is gone at 20% is gone at 40%).  AR precision averages over
      one population, the users of the full test set (Eq. 4 averages over a fixed ``U``): a user
      who has lost every relevant test item counts with P@n = RR = 0, while recall, AP and
      nDCG, undefined for her, leave her out;
    * 1R on the whole test set with ``|T_u^r|`` over ``sizes`` (:func:`target_size_grid` of
      fold 0), one population of users (:func:`recbias.experiments.growing_target_sets`).

    With ``max_users``, each sweep follows a uniform sample of at most that many users: those
    with a relevant test item on the full test set for the removal sweeps, those who can hold
    the largest size for the size sweep (the candidates ``C`` still come from the whole split).

    Each fold is fitted once (through the fit cache unless ``cache`` is off) and each system
    scores all points of a fold in one pass.  Points without runs (e.g. 1R at extreme removal on a
    small catalogue) are left out.
    """
    if 0.0 not in removed:
        raise ValueError("removed must include 0, the full test set every level is compared with")
    fold_list = make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed)
    grid = target_size_grid(fold_list[0].train, fold_list[0].test, sizes)
    one_r, one_r_ai = f"1R TI-NN({base_size - 1})", f"1R AI-NN({base_size - 1})"
    metrics = metric_names(n)
    tables, targets, points, truth = [], [], [], []
    size_users, followed_users = 0, (0, 0)
    for fold in fold_list:
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed, cache=cache)
        rated = np.flatnonzero(np.bincount(fold.test.users[fold.test.positive], minlength=fold.test.n_users))
        followed = _user_sample(rated, max_users, fold_seed(seed, 1000 * fold.index + 998))
        runs = {}
        for k, fraction in enumerate(removed):
            test = remove_test_ratings(fold.test, fraction, seed=fold.seed) if fraction else fold.test
            for d, (sweep, design) in enumerate(((AR_REMOVAL, ar), (ONE_R_REMOVAL, one_r),
                                                 (ONE_R_AI_REMOVAL, one_r_ai))):
                built = build_runs(fold.train, test, design, on_shortage="exclude", users=followed,
                                   seed=fold_seed(seed, 1000 * fold.index + 10 * k + d))
                if built.n_runs:
                    runs[_point_key(sweep, fraction)] = built
                    points.append(_point(fold, sweep, fraction, test, built))
        population = np.unique(runs[_point_key(AR_REMOVAL, 0.0)].users)
        grown = growing_target_sets(fold.train, fold.test, grid, max_users=max_users,
                                    seed=fold_seed(seed, 1000 * fold.index + 999))
        for size, built in grown.items():
            runs[_point_key(ONE_R_SIZE, size)] = built
            points.append(_point(fold, ONE_R_SIZE, size, fold.test, built))
        if fold.index == 0:
            followed_users = (len(followed), len(rated))
            size_users = len(np.unique(next(iter(grown.values())).users)) if grown else 0
        tables.append(evaluate_fold(fold, fitted, runs, metrics, seed=seed).rename(columns={"design": "point"}))
        targets.extend(_targets(fold, key, built) for key, built in runs.items())
        for fraction in removed[1:]:
            key = _point_key(AR_REMOVAL, fraction)
            lost = np.setdiff1d(population, runs[key].users if key in runs else [])
            padding = _population_rows(fold, key, lost, list(systems), metrics)
            tables.append(padding[0])
            targets.append(padding[1])
        if ratings.true_relevance is not None:
            quality = true_quality(fitted, fold.train, ratings.true_relevance, n=n, seed=seed, users=followed)
            per_user = quality[f"P@{n}"]
            truth.append(per_user.reset_index().melt(id_vars="user", var_name="system", value_name=f"P@{n}")
                         .assign(fold=fold.index))
    return Sweep(
        dataset=ratings.name, systems=list(systems), metrics=metrics, n=n, designs=(ar, one_r),
        runs=pd.concat(tables, ignore_index=True), targets=pd.concat(targets, ignore_index=True),
        points=pd.DataFrame(points), truth=pd.concat(truth, ignore_index=True) if truth else None,
        sizes=grid, size_users=size_users, followed=followed_users,
    )


# -------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class SweepStatistics:
    """Means of every sweep point under a user bootstrap (column 0 = the full sample).

    Attributes:
        levels: one row per point (folds pooled): ``point``, ``sweep``, ``x``, ``design``, runs,
            users, relevant items, ``t`` and ``rho`` summed or averaged over folds.
        metric: ``{metric: frame}``, each indexed by (point, system), columns 0..n_boot; P@n and
            RR over the population of the full test set (a user without relevant items counts 0),
            the other metrics over the users for whom they are defined.
        among_relevant: P@n and RR over the users who still have a relevant test item.
        density: ``delta = avg(|PR_test(u)|) / t`` per point (index ``point``), the relevance
            density of Eq. 4 over the users of the point; 1R removal points take the density of
            the AR point at the same level.
        truth: true P@n per system (index ``system``), or None.
        n_boot: the number of resamples.
    """

    levels: pd.DataFrame
    metric: dict[str, pd.DataFrame]
    among_relevant: dict[str, pd.DataFrame]
    density: pd.DataFrame
    truth: pd.DataFrame | None
    n_boot: int


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
    levels = sweep.points.groupby("point", sort=False).agg(
        sweep=("sweep", "first"), x=("x", "first"), design=("design", "first"), runs=("runs", "sum"),
        users=("users", "mean"), relevant=("relevant", "sum"), t=("t", "mean"), rho=("rho", "mean")).reset_index()
    levels["users"] = levels["users"].round().astype(int)
    ar = levels[levels["sweep"] == AR_REMOVAL].set_index("x")["point"]
    for _, row in levels[levels["sweep"].isin([ONE_R_REMOVAL, ONE_R_AI_REMOVAL])].iterrows():
        if row["x"] in ar.index:
            density.loc[row["point"]] = density.loc[ar[row["x"]]]
    truth = boot.means(sweep.truth, f"P@{sweep.n}", ("system",)) if sweep.truth is not None else None
    return SweepStatistics(levels=levels, metric=metric, among_relevant=among_relevant, density=density,
                           truth=truth, n_boot=n_boot)


def _line(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares ``y = a + b x`` along axis 0 (points), for every column (draw): ``b``, ``a``, ``R^2``."""
    dx, dy = x - x.mean(axis=0), y - y.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (dx * dy).sum(axis=0) / (dx**2).sum(axis=0)
        intercept = y.mean(axis=0) - slope * x.mean(axis=0)
        r2 = 1.0 - ((dy - slope * dx) ** 2).sum(axis=0) / (dy**2).sum(axis=0)
    return slope, intercept, r2


def _draws(stats: SweepStatistics, sweep: str, metric: str, system: str,
           among_relevant: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x values, density and metric means (points x draws) of one system along one sweep, removal
    levels up to :data:`FIT_MAX_REMOVED`."""
    levels = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
    if sweep != ONE_R_SIZE:
        levels = levels[levels["x"] <= FIT_MAX_REMOVED]
    means = (stats.among_relevant if among_relevant else stats.metric)[metric]
    values = means.xs(system, level="system").reindex(levels["point"]).to_numpy()
    return levels["x"].to_numpy(), stats.density.reindex(levels["point"]).to_numpy(), values


def _ci(draws: np.ndarray) -> tuple[float, float]:
    low, high = percentile_interval(draws[1:])
    return float(low), float(high)


def density_fits(stats: SweepStatistics, systems: Sequence[str], metric: str) -> pd.DataFrame:
    """``metric = a + b delta`` along the AR and the 1R removal sweeps, per system (IRJ Fig. 4, left and centre).

    ``delta`` is the density of the AR point at the same level (:class:`SweepStatistics`);
    levels up to :data:`FIT_MAX_REMOVED`.

    Columns: ``sweep``, ``system``, ``slope`` and ``intercept`` with 95% bootstrap intervals, ``r2``,
    the metric at the full test set (``full``) and at the sparsest level (``sparsest``) and
    ``change``, the fitted relative change from the densest to the sparsest level,
    ``b (delta_min - delta_max) / (a + b delta_max)``.
    """
    rows = []
    for sweep in (AR_REMOVAL, ONE_R_REMOVAL, ONE_R_AI_REMOVAL):
        for system in systems:
            _, density, values = _draws(stats, sweep, metric, system)
            if len(values) < 3:
                continue
            slope, intercept, r2 = _line(density, values)
            change = slope * (density.min(axis=0) - density.max(axis=0)) / (intercept + slope * density.max(axis=0))
            rows.append({"sweep": sweep, "system": system, "slope": slope[0], "slope_ci": _ci(slope),
                         "intercept": intercept[0], "intercept_ci": _ci(intercept), "r2": r2[0],
                         "full": values[0, 0], "sparsest": values[-1, 0], "change": change[0],
                         "change_ci": _ci(change)})
    return pd.DataFrame(rows)


def size_fits(stats: SweepStatistics, systems: Sequence[str], metric: str) -> pd.DataFrame:
    """``log metric = a + e log t`` along the 1R size sweep, per system: the exponent ``e`` (Eq. 5: -1 for
    random) with its 95% bootstrap interval, and ``R^2``."""
    rows = []
    for system in systems:
        sizes, _, values = _draws(stats, ONE_R_SIZE, metric, system)
        if len(sizes) < 3 or np.any(values[:, 0] <= 0):
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            exponent, _, r2 = _line(np.log(sizes)[:, None].repeat(values.shape[1], axis=1), np.log(values))
        rows.append({"system": system, "exponent": exponent[0], "exponent_ci": _ci(exponent), "r2": r2[0]})
    return pd.DataFrame(rows)


def elasticities(stats: SweepStatistics, systems: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """``d log M / d log delta`` of each metric along the AR removal sweep, per system, with 95% bootstrap intervals.

    1 means proportional to the density (as P@n of random recommendation, Eq. 4); 0 means
    insensitive to it.  Fitted by least squares on the log-log points of the sweep, against the
    density of the population of the full test set.  P@n and RR appear twice: over that
    population (``users = "all"``) and over the users who still have a relevant item
    (``"with relevant"``), the only users the other metrics are defined for.
    """
    rows = []
    variants = [(m, parse_metric(m).name in ZERO_WITHOUT_RELEVANT) for m in metrics]
    variants += [(m, False) for m, zero in variants if zero]
    for metric, population in variants:
        for system in systems:
            _, density, values = _draws(stats, AR_REMOVAL, metric, system, among_relevant=not population
                                        and metric in stats.among_relevant)
            if len(values) < 3 or np.any(values[:, 0] <= 0):
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                slope, _, r2 = _line(np.log(density), np.log(values))
            rows.append({"metric": metric, "users": "all" if population else "with relevant", "system": system,
                         "elasticity": slope[0], "ci": _ci(slope), "r2": r2[0]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------ orders


def order_stability(stats: SweepStatistics, systems: Sequence[str], metric: str) -> pd.DataFrame:
    """Kendall's tau-b of the order of systems at each removal level against the full test set's order
    (and against the true order of a simulated world), with 95% bootstrap intervals over users.

    One row per removal point of the AR and 1R sweeps: ``sweep``, ``x``, runs, users, ``tau``,
    ``tau_ci``, ``swapped`` (the pairs ordered against the full test set), ``same_order`` (share of
    resamples whose order equals the full test set's),
    ``tau_truth`` and ``tau_truth_ci`` (NaN without a truth).
    """
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
            row = {"sweep": sweep, "x": level["x"], "runs": level["runs"], "users": level["users"],
                   "tau": against_full.tau[0], "tau_ci": _ci(against_full.tau),
                   "swapped": discordant_pairs(dict(zip(systems, measured[0], strict=True)),
                                               dict(zip(systems, full[0], strict=True))),
                   "same_order": float(np.mean(against_full.tau[1:] == 1.0)),
                   "tau_truth": np.nan, "tau_truth_ci": (np.nan, np.nan)}
            if truth is not None:
                against_truth = order_agreement(measured, truth)
                row |= {"tau_truth": against_truth.tau[0], "tau_truth_ci": _ci(against_truth.tau)}
            rows.append(row)
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------- lift


def lift_datasets(here: Ratings, seed: int, compare_all: bool) -> list[Ratings]:
    """The page's dataset, then (``compare_all``) each other available real dataset and the ``synthetic`` world."""
    chosen = [here]
    if compare_all:
        for name in ("synthetic", *(n for n in datasets.names() if n not in PRESETS and n != "coat")):
            if name != here.name and datasets.available(name):
                chosen.append(datasets.load(name, **({"seed": seed} if name in PRESETS else {})))
    return chosen


def lift_study(
    collections: Sequence[Ratings],
    systems: Mapping[str, str],
    *,
    max_an_entries: int,
    an_nonrelevant: int,
    base_size: int = 100,
    test_ratio: float = 0.2,
    n: int = 10,
    n_boot: int = 200,
    seed: int = 0,
    cache: bool = True,
) -> pd.DataFrame:
    """P@n and its lift over random, ``P@n / rho``, of every system on every dataset and design.

    Fold 0 of each dataset (the split of the sweeps), the TI design of
    :func:`recbias.experiments.runner.choose_designs` (AN, or NN on large catalogues) and
    1R TI-NN(``base_size - 1``).  The lift is the ratio of the mean P@n to the mean ``rho`` of the
    same runs (both over runs, as IRJ Eq. 1); its interval comes from a bootstrap over users.
    Columns: ``dataset``, ``design``, ``system``, ``P``, ``P_ci``, ``rho``, ``lift``, ``lift_ci``.
    """
    rows = []
    for ratings in collections:
        (fold,) = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed, cache=cache)
        choice = choose_designs(ratings, target_size=base_size, max_an_entries=max_an_entries,
                                n_nonrelevant=an_nonrelevant)
        designs = [choice.main_ar, choice.one_r]
        runs = {d: build_runs(fold.train, fold.test, d, on_shortage="exclude", seed=fold_seed(seed, k))
                for k, d in enumerate(designs)}
        runs = {d: r for d, r in runs.items() if r.n_runs}
        table = evaluate_fold(fold, fitted, runs, [f"P@{n}"], seed=seed)
        targets = pd.concat([_targets(fold, d, r) for d, r in runs.items()], ignore_index=True)
        boot = UserBootstrap(table["user"].to_numpy(), n_boot=n_boot, seed=seed)
        precision = boot.means(table, f"P@{n}", ("design", "system"))
        rho = boot.means(targets, "rho", ("point",))
        for (design, system), draws in precision.iterrows():
            lift = draws.to_numpy() / rho.loc[design].to_numpy()
            rows.append({"dataset": ratings.name, "design": design, "system": system, "P": draws[0],
                         "P_ci": _ci(draws.to_numpy()), "rho": rho.loc[design, 0], "lift": lift[0],
                         "lift_ci": _ci(lift)})
    return pd.DataFrame(rows)


def spread_factors(lift: pd.DataFrame) -> pd.DataFrame:
    """Per system, the largest over the smallest value of P@n and of the lift: across the datasets
    within each kind of design (AR, 1R), and across every dataset and design together."""
    kind = np.where(lift["design"].str.startswith("1R"), "1R", "AR")
    columns = {}
    for label, part in (("AR", lift[kind == "AR"]), ("1R", lift[kind == "1R"]), ("all", lift)):
        grouped = part.groupby("system", sort=False)
        for value in ("P", "lift"):
            columns[(label, value)] = grouped[value].max() / grouped[value].min()
    return pd.DataFrame(columns).reindex(list(dict.fromkeys(lift["system"])))


# ------------------------------------------------------------------------ tables


def _span(low: float, high: float, fmt: str = "{:.2f}") -> str:
    """``"a to b"``, or a single value when both ends print alike."""
    a, b = fmt.format(low), fmt.format(high)
    return a if a == b else f"{a} to {b}"


def _interval(value: float, ci: tuple[float, float], digits: int = 2) -> str:
    return f"{fmt_number(value, digits)} [{fmt_number(ci[0], digits)}, {fmt_number(ci[1], digits)}]"


def check_table(check: pd.DataFrame) -> pd.DataFrame:
    """The theory check per design: configurations, the share within the 95% simulation band of the closed
    form (Eq. 4 or Eq. 5) and of ``rho``, and the median ``measured / closed form``."""
    rows = []
    for design, part in check.groupby("design", sort=False):
        rows.append({
            "design": design, "configurations": len(part),
            "closed form": "Eq. 5, 1/t" if part["kind"].iloc[0] == "1R" else "Eq. 4, σ(1-f)|PR|/(t|U|)",
            "within the band of the closed form": fmt_pct((part["z_theory"].abs() <= 1.96).mean(), 0),
            "within the band of ρ": fmt_pct((part["z"].abs() <= 1.96).mean(), 0),
            "median measured / closed form": fmt_number(float((part["measured"] / part["theory"]).median()), 2),
        })
    return pd.DataFrame(rows)


def fits_table(density: pd.DataFrame, sizes: pd.DataFrame, n: int) -> pd.DataFrame:
    """One row per system: the fitted line of AR P@n in delta, the fitted change of 1R P@n over the removal
    sweep (TI and AI candidates) and the exponent of t, each with its 95% interval."""
    rows = []
    for system in density["system"].unique():
        ar = density[(density["sweep"] == AR_REMOVAL) & (density["system"] == system)]
        row = {"system": system}
        if len(ar):
            r = ar.iloc[0]
            row |= {f"AR P@{n}: slope in δ": _interval(r["slope"], r["slope_ci"], 2),
                    "intercept": _interval(r["intercept"], r["intercept_ci"], 4), "R²": fmt_number(r["r2"], 3)}
        for sweep, label in ((ONE_R_REMOVAL, "1R TI: change"), (ONE_R_AI_REMOVAL, "1R AI: change")):
            part = density[(density["sweep"] == sweep) & (density["system"] == system)]
            if len(part):
                r = part.iloc[0]
                row[label] = f"{r['change']:+.0%} [{r['change_ci'][0]:+.0%}, {r['change_ci'][1]:+.0%}]"
        exponent = sizes[sizes["system"] == system]
        if len(exponent):
            r = exponent.iloc[0]
            row["1R: exponent of t"] = _interval(r["exponent"], r["exponent_ci"], 2)
        rows.append(row)
    return pd.DataFrame(rows)


def elasticity_table(table: pd.DataFrame) -> pd.DataFrame:
    """Elasticities as metric rows and system columns, each cell ``e [low, high]``."""
    doubled = set(table.loc[table["users"] == "all", "metric"])
    labelled = table.assign(
        row=[m if m not in doubled else f"{m}, {'all users' if u == 'all' else 'users with a relevant item'}"
             for m, u in zip(table["metric"], table["users"], strict=True)],
        cell=[_interval(e, ci, 2) for e, ci in zip(table["elasticity"], table["ci"], strict=True)])
    wide = labelled.pivot(index="row", columns="system", values="cell")
    return wide.reindex(index=list(dict.fromkeys(labelled["row"])), columns=list(dict.fromkeys(table["system"]))) \
        .rename_axis(index="metric", columns=None).reset_index()


def order_table(orders: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau of each removal level against the full test set (and the truth), AR and 1R side by side."""
    rows = []
    for x, part in orders.groupby("x", sort=True):
        row = {"test ratings removed": fmt_pct(x, 0)}
        for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
            level = part[part["sweep"] == sweep]
            if not len(level):
                continue
            r = level.iloc[0]
            row[f"{label}: users"] = f"{int(r['users']):,}"
            row[f"{label}: τ vs full test"] = _interval(r["tau"], r["tau_ci"], 2)
            if np.isfinite(r["tau_truth"]):
                row[f"{label}: τ vs truth"] = _interval(r["tau_truth"], r["tau_truth_ci"], 2)
        rows.append(row)
    return pd.DataFrame(rows)


def lift_table(lift: pd.DataFrame, n: int) -> pd.DataFrame:
    """P@n and lift of every system per dataset and design, ``P@n (lift)`` in each cell."""
    cells = lift.assign(cell=[f"{p:.4f} ({l:.1f}×)" for p, l in zip(lift["P"], lift["lift"], strict=True)],
                        rho=lift["rho"].map(lambda r: f"{r:.5f}"))
    wide = cells.pivot_table(index=["dataset", "design", "rho"], columns="system", values="cell", aggfunc="first",
                             sort=False)
    return wide[list(dict.fromkeys(lift["system"]))].rename_axis(columns=None).reset_index() \
        .rename(columns={"rho": "ρ (= E[random P@" + str(n) + "])"})


# ------------------------------------------------------------------------- claims


def _personalised(systems: Sequence[str]) -> list[str]:
    return [s for s in systems if s != "Random"]


def metric_claims(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """The papers' statements on other metrics (IRJ 2017 Sec. 4.2), each checked on every system but Random.

    Elasticities are compared with that of P@n over the same users (those with a relevant test
    item): ``ratio = e_M / e_P``.  Criteria: recall nearly insensitive, ``|ratio| <= 0.2``; MAP and
    nDCG slightly sensitive, ``0 < ratio <= 0.5``; nDCG@n clearly sensitive, a slope slightly
    flatter than precision's, ``0.5 <= ratio < 1``; MRR like precision, ``0.5 <= ratio <= 1.5``.
    """
    among = table[table["users"] == "with relevant"].set_index(["metric", "system"])["elasticity"]
    systems = [s for s in _personalised(list(dict.fromkeys(table["system"]))) if (f"P@{n}", s) in among.index]
    checks = [
        ("recall-insensitive", f"Recall@{n} is nearly insensitive to the density", [f"Recall@{n}"], "|ratio| ≤ 0.2",
         lambda r: abs(r) <= 0.2),
        ("map-ndcg-slightly-sensitive", "MAP and nDCG (no cut-off) are slightly sensitive", ["MAP", "nDCG"],
         "0 < ratio ≤ 0.5", lambda r: 0 < r <= 0.5),
        ("ndcg-at-n-sensitive", f"nDCG@{n} is clearly sensitive, with a slope slightly flatter than P@{n}'s",
         [f"nDCG@{n}"], "0.5 ≤ ratio < 1", lambda r: 0.5 <= r < 1),
        ("mrr-like-precision", f"MRR follows the density as P@{n} does", ["MRR"], "0.5 ≤ ratio ≤ 1.5",
         lambda r: 0.5 <= r <= 1.5),
    ]
    rows = []
    for key, label, metrics, criterion, test in checks:
        ratios = {(m, s): among[(m, s)] / among[(f"P@{n}", s)]
                  for m in metrics for s in systems if (m, s) in among.index}
        if not ratios:
            continue
        rows.append({"key": key, "statement": label, "criterion": criterion,
                     "ratios": f"{min(ratios.values()):.2f} to {max(ratios.values()):.2f}",
                     "holds": bool(all(test(r) for r in ratios.values()))})
    return pd.DataFrame(rows)


def findings(check: pd.DataFrame, density: pd.DataFrame, sizes: pd.DataFrame, orders: pd.DataFrame,
             claims: pd.DataFrame, lift: pd.DataFrame | None, n: int) -> list[dict]:
    """The scorecard findings of Section 4 on this build: ``key``, ``label``, ``holds``, ``evidence``, ``anchor``."""
    out = []
    summary = check_summary(check)
    out.append({"key": "random-precision-is-eq4-eq5", "anchor": "fig-sparsity-check",
                "label": "measured random precision equals Eq. 4 in AR and Eq. 5 in 1R within simulation error",
                "holds": summary["within_theory"] >= 0.9,
                "evidence": f"{fmt_pct(summary['within_theory'], 0)} of {summary['configurations']} configurations "
                            f"within the 95% simulation band (criterion: at least 90%); largest |z| = "
                            f"{summary['max_z']:.1f}"})
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(_personalised(density["system"]))]
    if len(ar):
        out.append({"key": "ar-precision-linear-in-density", "anchor": "fig-sparsity-fig4",
                    "label": f"AR P@{n} of every system decreases linearly with the relevance density",
                    "holds": bool((ar["r2"] >= 0.95).all()),
                    "evidence": f"R² of the line in δ: {_span(ar['r2'].min(), ar['r2'].max(), '{:.3f}')} "
                                f"(criterion: at least 0.95 for every system but Random)"})
    personal = density["system"].isin(_personalised(density["system"]))
    one_r = density[(density["sweep"] == ONE_R_REMOVAL) & personal]
    one_r_ai = density[(density["sweep"] == ONE_R_AI_REMOVAL) & personal]
    if len(one_r):
        evidence = (f"fitted change from the full test set to {fmt_pct(FIT_MAX_REMOVED, 0)} removed: "
                    f"{_span(one_r['change'].min(), one_r['change'].max(), '{:+.0%}')} with TI-NN candidates")
        if len(one_r_ai):
            evidence += f", {_span(one_r_ai['change'].min(), one_r_ai['change'].max(), '{:+.0%}')} with AI-NN"
        out.append({"key": "1r-precision-independent-of-density", "anchor": "fig-sparsity-fig4",
                    "label": f"1R P@{n} (TI-NN) does not depend on the amount of test ratings",
                    "holds": bool((one_r["change"].abs() <= 0.1).all()),
                    "evidence": evidence + " (criterion: within ±10% for every system but Random)"})
    others = sizes[sizes["system"].isin(_personalised(sizes["system"]))]
    if len(others):
        out.append({"key": "1r-precision-inverse-to-t", "anchor": "fig-sparsity-fig4",
                    "label": f"every system's 1R P@{n} is inversely proportional to t",
                    "holds": bool(all(lo <= -1 <= hi for lo, hi in others["exponent_ci"])),
                    "evidence": f"fitted exponents {_span(others['exponent'].min(), others['exponent'].max())} "
                                "for the systems but Random (criterion: -1 inside every 95% interval)"})
    fitted = orders[orders["x"] <= FIT_MAX_REMOVED]
    if len(fitted):
        extreme = orders[orders["x"] > FIT_MAX_REMOVED]
        evidence = (f"Kendall's τ against the full test set: {_span(fitted['tau'].min(), fitted['tau'].max())} "
                    f"up to {fmt_pct(FIT_MAX_REMOVED, 0)} removed")
        if len(extreme):
            evidence += (f"; {_span(extreme['tau'].min(), extreme['tau'].max())} beyond "
                         f"{fmt_pct(FIT_MAX_REMOVED, 0)}")
        out.append({"key": "order-survives-sparsity", "anchor": "fig-sparsity-orders",
                    "label": f"test sparsity does not change the order of systems by P@{n}, except at extreme sparsity",
                    "holds": bool(all(ci[1] >= 1.0 for ci in fitted["tau_ci"])),
                    "evidence": evidence + " (criterion: the 95% interval of τ reaches 1, the full test set's "
                                f"order, at every level up to {fmt_pct(FIT_MAX_REMOVED, 0)})"})
    for _, claim in claims.iterrows():
        out.append({"key": claim["key"], "anchor": "tbl-sparsity-metric-claims", "label": claim["statement"],
                    "holds": bool(claim["holds"]),
                    "evidence": f"elasticity over P@{n}'s: {claim['ratios']} (criterion: {claim['criterion']})"})
    if lift is not None and lift["dataset"].nunique() > 1:
        spread = spread_factors(lift).loc[_personalised(lift["system"].unique())]
        out.append({"key": "1r-values-comparable-across-datasets", "anchor": "tbl-sparsity-spread",
                    "label": f"with a fixed t, 1R P@{n} varies less across datasets than AR P@{n}",
                    "holds": bool((spread[("1R", "P")] < spread[("AR", "P")]).all()),
                    "evidence": f"largest over smallest value across {lift['dataset'].nunique()} datasets, systems but "
                                f"Random: 1R {spread[('1R', 'P')].min():.1f} to {spread[('1R', 'P')].max():.1f}, AR "
                                f"{spread[('AR', 'P')].min():.1f} to {spread[('AR', 'P')].max():.1f}"})
    return out


# ------------------------------------------------------------------------ figures


def check_figure(check: pd.DataFrame, n: int):
    """Measured random P@n against Eq. 4 (AR) and Eq. 5 (1R), log-log, with 95% simulation bars and the
    identity line; hollow markers: Eq. 4 with every user who has a rating in place of the users averaged over."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, 6.2))
    shown = check[check["measured"] > 0]
    styles = {"AR": ("#1f77b4", "o"), "1R": ("#d62728", "s")}
    for (kind, candidates), part in shown.groupby([shown["kind"], shown["design"].str.contains("AI")], sort=False):
        colour, marker = styles[kind]
        label = f"{kind}, {'AI' if candidates else 'TI'} candidates"
        ax.errorbar(part["theory"], part["measured"], yerr=1.96 * part["sd"], fmt=marker, ms=5, color=colour,
                    mfc=colour if not candidates else "white", elinewidth=0.8, alpha=0.85, label=label)
    ar = shown[shown["kind"] == "AR"]
    if len(ar):
        ax.scatter(ar["eq4_all_users"], ar["measured"], marker="D", s=22, facecolors="none", edgecolors="#555555",
                   linewidths=0.8, label="Eq. 4 with |U| = all users with a rating")
    values = np.concatenate([shown["theory"], shown["measured"], ar["eq4_all_users"]])
    low, high = values[values > 0].min() / 1.5, values.max() * 1.5
    ax.plot([low, high], [low, high], color="#444444", lw=1, ls="--", label="measured = predicted")
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high),
           xlabel=f"predicted random P@{n}: Eq. 4 (AR) or Eq. 5 (1R)", ylabel=f"measured random P@{n}")
    ax.legend(fontsize=8.5, loc="upper left")
    fig.tight_layout()
    return fig


def _sweep_panel(ax, stats: SweepStatistics, sweep: str, systems: Sequence[str], colours: Mapping[str, str],
                 n: int, fit_lines: bool) -> None:
    """P@n of every system along one removal sweep against the density, with bootstrap bars; hollow markers
    beyond :data:`FIT_MAX_REMOVED`; dotted fitted lines when asked."""
    import matplotlib.pyplot as plt

    part = stats.levels[stats.levels["sweep"] == sweep].sort_values("x")
    density = stats.density.reindex(part["point"])[0].to_numpy()
    fitted = part["x"].to_numpy() <= FIT_MAX_REMOVED
    for system in systems:
        values = stats.metric[f"P@{n}"].xs(system, level="system").reindex(part["point"]).to_numpy()
        low, high = percentile_interval(values[:, 1:], axis=1)
        ax.errorbar(density[fitted], values[fitted, 0], yerr=[values[fitted, 0] - low[fitted],
                    high[fitted] - values[fitted, 0]], fmt="o-", ms=4, lw=1.3, color=colours[system], label=system)
        ax.plot(density[~fitted], values[~fitted, 0], "o", ms=5, mfc="white", color=colours[system])
        if fit_lines and fitted.sum() >= 3:
            slope, intercept, _ = _line(density[fitted], values[fitted, 0])
            xs = np.linspace(0, density[fitted].max(), 20)
            ax.plot(xs, intercept + slope * xs, color=colours[system], lw=0.9, ls=":")
    ax.set(xlabel=r"density of the test set, $\delta_{\mathrm{test}}$", ylabel=f"P@{n}", xlim=(0, None), ylim=(0, None))
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))


def fig4(stats: SweepStatistics, systems: Sequence[str], colours: Mapping[str, str], n: int):
    """The papers' Fig. 4 with fitted lines, in four panels: AR P@n against the density (a), 1R P@n over the
    same removals with TI-NN (b) and AI-NN (c) candidates, and 1R P@n against t, log-log (d).  Bars: 95%
    bootstrap intervals; hollow markers: levels beyond :data:`FIT_MAX_REMOVED`, not fitted."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10.5, 8.4))
    panels = ((axes[0, 0], AR_REMOVAL, "(a) AR, test ratings removed", True),
              (axes[0, 1], ONE_R_REMOVAL, "(b) 1R TI-NN, test ratings removed", False),
              (axes[1, 0], ONE_R_AI_REMOVAL, "(c) 1R AI-NN, test ratings removed", False))
    for ax, sweep, title, fit_lines in panels:
        _sweep_panel(ax, stats, sweep, systems, colours, n, fit_lines)
        ax.set_title(title, loc="left", fontsize=11)
    top = max(axes[0, 1].get_ylim()[1], axes[1, 0].get_ylim()[1])
    axes[0, 1].set_ylim(0, top)
    axes[1, 0].set_ylim(0, top)
    ax = axes[1, 1]
    part = stats.levels[stats.levels["sweep"] == ONE_R_SIZE].sort_values("x")
    sizes = part["x"].to_numpy()
    for system in systems if len(sizes) else []:
        values = stats.metric[f"P@{n}"].xs(system, level="system").reindex(part["point"]).to_numpy()
        low, high = percentile_interval(values[:, 1:], axis=1)
        ax.errorbar(sizes, values[:, 0], yerr=[values[:, 0] - low, high - values[:, 0]], fmt="o", ms=4,
                    color=colours[system])
        if len(sizes) >= 3 and np.all(values[:, 0] > 0):
            exponent, intercept, _ = _line(np.log(sizes), np.log(values[:, 0]))
            ax.plot(sizes, np.exp(intercept) * sizes**exponent, color=colours[system], lw=1.1)
    if len(sizes):
        ax.plot(sizes, 1.0 / sizes, color="#444444", lw=1, ls="--", label="$1/t$ (Eq. 5)")
        ax.legend(fontsize=9, loc="upper right")
    ax.set(xscale="log", yscale="log", xlabel=r"target set size $t = |T_u^r|$", ylabel=f"1R P@{n}")
    ax.set_title("(d) 1R, target sets grow", loc="left", fontsize=11)
    axes[0, 0].legend(fontsize=9, loc="upper left")
    fig.tight_layout()
    return fig


def metrics_figure(stats: SweepStatistics, systems: Sequence[str], metrics: Sequence[str], colours: Mapping[str, str]):
    """Every metric along the AR removal sweep against the density, log-log, one panel per metric
    (P@n and RR over all users of the full test set, the others over users with a relevant item)."""
    import matplotlib.pyplot as plt

    rows = (len(metrics) + 1) // 2
    fig, axes = plt.subplots(rows, 2, figsize=(10.5, 3.3 * rows), sharex=True)
    part = stats.levels[(stats.levels["sweep"] == AR_REMOVAL) & (stats.levels["x"] <= FIT_MAX_REMOVED)].sort_values("x")
    density = stats.density.reindex(part["point"])[0].to_numpy()
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        for system in systems:
            values = stats.metric[metric].xs(system, level="system").reindex(part["point"])[0].to_numpy()
            ax.plot(density, values, "o-", ms=3.5, lw=1.3, color=colours[system], label=system)
        ax.set(xscale="log", yscale="log")
        ax.set_title(metric, loc="left", fontsize=11)
    for ax in axes[-1]:
        ax.set_xlabel(r"$\delta_{\mathrm{test}}$ (log scale)")
    for ax in axes.ravel()[len(metrics):]:
        ax.set_visible(False)
    axes[0, 0].legend(fontsize=8.5, ncol=2)
    fig.tight_layout()
    return fig


def order_figure(orders: pd.DataFrame):
    """Kendall's tau against the full test set's order (solid) and against the true order (dashed) at each
    removal level, AR and 1R, with 95% bootstrap bands."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for sweep, colour in ((AR_REMOVAL, "#1f77b4"), (ONE_R_REMOVAL, "#d62728")):
        part = orders[orders["sweep"] == sweep].sort_values("x")
        if not len(part):
            continue
        label = sweep.split(",")[0]
        xs = np.arange(len(part))
        low, high = zip(*part["tau_ci"], strict=True)
        ax.fill_between(xs, low, high, color=colour, alpha=0.15, lw=0)
        ax.plot(xs, part["tau"], "o-", color=colour, label=f"{label}: against the full test set")
        if part["tau_truth"].notna().any():
            ax.plot(xs, part["tau_truth"], "s--", color=colour, ms=4, label=f"{label}: against the true order")
        ax.set_xticks(xs, [fmt_pct(x, 0) for x in part["x"]])
    bottom = min(float(np.nanmin([low for low, _ in orders["tau_ci"]])), 0.0)
    ax.set(xlabel="test ratings removed", ylabel="Kendall's τ of the order of systems", ylim=(bottom - 0.05, 1.05))
    ax.legend(fontsize=8.5, loc="lower left")
    fig.tight_layout()
    return fig


def lift_figure(lift: pd.DataFrame, colours: Mapping[str, str], n: int):
    """P@n (top) and lift over random (bottom) of every system on every dataset, AR designs on the left of the
    dotted line and 1R on the right, log scales, with 95% bootstrap intervals."""
    import matplotlib.pyplot as plt

    one_r = lift["design"].str.startswith("1R")
    ordered = pd.concat([lift[~one_r], lift[one_r]])
    configurations = list(dict.fromkeys(zip(ordered["dataset"], ordered["design"], strict=True)))
    fig, axes = plt.subplots(2, 1, figsize=(9.5, 7.6), sharex=True)
    xs = np.arange(len(configurations))
    offsets = np.linspace(-0.2, 0.2, lift["system"].nunique())
    for offset, (system, part) in zip(offsets, ordered.groupby("system", sort=False), strict=True):
        part = part.set_index(["dataset", "design"]).reindex(configurations)
        for ax, column in zip(axes, ("P", "lift"), strict=True):
            low, high = np.array(part[f"{column}_ci"].tolist()).T
            ax.errorbar(xs + offset, part[column], yerr=[part[column] - low, high - part[column]], fmt="o",
                        color=colours[system], label=system, ms=6, elinewidth=1)
    split = int((~one_r).sum() / lift["system"].nunique()) - 0.5
    for ax, label in zip(axes, (f"P@{n}", f"lift over random, P@{n} / ρ"), strict=True):
        ax.set(yscale="log", ylabel=label)
        ax.axvline(split, color="#888888", ls=":", lw=1)
    axes[1].set_xticks(xs, [f"{d}\n{g}" for d, g in configurations], fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=9, ncol=len(labels), loc="lower center")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


# -------------------------------------------------------------------------- prose


def settings_table(ratings: Ratings, ar: str, folds: int, test_ratio: float, n: int, removed: Sequence[float],
                   sizes: Sequence[int], base_size: int, sweep_users: int | None, n_boot: int) -> pd.DataFrame:
    """The page's settings as a two-column table."""
    rows = [
        ("systems", "Popularity, pLSA, MF, user-kNN, Random (the papers' five, as in chapter 2)"),
        ("splits", f"{folds} coin-flip split{'s' if folds > 1 else ''}, σ = {test_ratio:g}"),
        ("positive threshold", f"{ratings.positive_threshold:g}"),
        ("cut-off n", f"{n}"),
        ("AR design", ar),
        ("1R design", f"1R TI-NN({base_size - 1}) and 1R AI-NN({base_size - 1}), |T_u^r| = {base_size}"),
        ("test ratings removed, f", ", ".join(fmt_pct(f, 0) for f in removed)
         + f" (lines fitted up to {fmt_pct(FIT_MAX_REMOVED, 0)})"),
        ("1R target sizes requested", ", ".join(f"{s:,}" for s in sizes)),
        ("users followed by the sweeps and the check", "all" if sweep_users is None
         else f"at most {sweep_users:,}, sampled"),
        ("theory check", f"σ ∈ {{{', '.join(f'{r:g}' for r in CHECK_RATIOS)}}} × f ∈ "
                         f"{{{', '.join(fmt_pct(f, 0) for f in CHECK_REMOVED)}}} × 2 thresholds × 5 designs"),
        ("intervals", f"95%, bootstrap over users ({n_boot} resamples)"),
    ]
    return pd.DataFrame(rows, columns=["setting", "value"])


def check_text(check: pd.DataFrame, ratings: Ratings) -> str:
    """The paragraph that reads the theory check."""
    summary = check_summary(check)
    shown = int((check["measured"] > 0).sum())
    measured, total = check.attrs.get("users", (0, 0))
    sample = f" (the runs of a uniform sample of {measured:,} of its {total:,} users)" if measured < total else ""
    text = (
        f"Over the {summary['configurations']} configurations on *{ratings.name}*{sample}, "
        f"{fmt_pct(summary['within_theory'], 0)} of the measured random precisions lie within the 95% simulation "
        f"band of Eq. 4 or Eq. 5 ({fmt_pct(summary['within_theory_ar'], 0)} of the AR ones, "
        f"{fmt_pct(summary['within_theory_1r'], 0)} of the 1R ones), and {fmt_pct(summary['within_rho'], 0)} within "
        f"the band of the exact ρ; with independent draws about 95% are expected. The largest deviation is "
        f"{summary['max_z']:.1f} standard deviations."
    )
    skipped = check.attrs.get("skipped", 0)
    if skipped:
        text += (f" {skipped} more configuration{'s' if skipped > 1 else ''} of the grid had no run (too few test "
                 f"ratings or candidates left for the design) and {'are' if skipped > 1 else 'is'} left out.")
    if shown < len(check):
        text += (f" {len(check) - shown} configuration{'s' if len(check) - shown > 1 else ''} measured no relevant "
                 "item at all in the random top lists and cannot be shown on the log scale of the figure.")
    return text


def sweep_texts(sweep: Sweep, stats: SweepStatistics, density: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, str]:
    """The sentences that read the papers' Fig. 4 on this page."""
    folds = int(sweep.points["fold"].nunique())
    levels = stats.levels
    out = {
        "folds_text": f"{folds} coin-flip split{'s' if folds > 1 else ''} of {sweep.dataset}",
        "ar_design": sweep.designs[0], "one_r_design": sweep.designs[1],
        "size_range": (f"{sweep.sizes[0]:,} to {sweep.sizes[-1]:,} items" if sweep.sizes
                       else "larger sizes (none fits this catalogue)"),
        "size_users": f"{sweep.size_users:,}",
        "size_sample": "" if sweep.size_users == 0 else " of the first split",
        "followed_text": (f"all {sweep.followed[1]:,} users with a relevant test item"
                          if sweep.followed[0] == sweep.followed[1]
                          else f"a uniform sample of {sweep.followed[0]:,} of the {sweep.followed[1]:,} users with a "
                               "relevant test item (parameter sweep_users)"),
    }
    personal = _personalised(sweep.systems)
    out["ar_text"] = _ar_text(density, personal, sweep.n)
    out["one_r_text"] = _one_r_text(sweep, stats, density, personal)
    out["size_text"] = _size_text(sizes, personal, sweep.n)
    return out


def _covers(ci: tuple[float, float], value: float) -> bool:
    return bool(ci[0] <= value <= ci[1])


def _ar_text(density: pd.DataFrame, personal: Sequence[str], n: int) -> str:
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(personal)]
    if not len(ar):
        return "Too few removal levels had AR runs to fit a line on this dataset."
    text = (
        f"**AR precision is a line in the density.** From the full test set to {fmt_pct(FIT_MAX_REMOVED, 0)} of it "
        f"removed, the AR P@{n} of every system but Random falls by "
        f"{_span(-ar['change'].max(), -ar['change'].min(), '{:.0%}')}, and a straight line in the test density fits "
        f"each of them with R² of {_span(ar['r2'].min(), ar['r2'].max(), '{:.3f}')}. The slopes differ "
        f"({_span(ar['slope'].min(), ar['slope'].max(), '{:.1f}')}): each system turns density into precision at its "
        "own rate, but all of them follow the density."
    )
    random = density[(density["sweep"] == AR_REMOVAL) & (density["system"] == "Random")]
    if len(random):
        r = random.iloc[0]
        text += (f" Random recommendation has slope {_interval(r['slope'], r['slope_ci'])}, "
                 + ("in line with the 1 of Eq. 4." if _covers(r["slope_ci"], 1.0) else "against the 1 of Eq. 4."))
    below = [ci[1] < 0 for ci in ar["intercept_ci"]]
    if all(below):
        text += (
            " The lines do not go through the origin: their intercepts are negative, with intervals below zero. The "
            "reason is the candidate pool. Thinning the test set removes the rarely rated items from the TI pool "
            "first; that lowers t and props up the density, but the systems never ranked those items near the top "
            "anyway, so their precision falls a little faster than the density."
        )
    elif not any(below):
        text += (" Within their intervals, the lines go through the origin or above it: precision is proportional "
                 "to the density.")
    else:
        text += (f" The intercept is negative, with an interval below zero, for {sum(below)} of the {len(below)} "
                 "systems: for them precision falls a little faster than the density, as the rarely rated items that "
                 "leave the TI pool first lower t without costing the systems any hit.")
    return text


def _one_r_text(sweep: Sweep, stats: SweepStatistics, density: pd.DataFrame, personal: Sequence[str]) -> str:
    ti = density[(density["sweep"] == ONE_R_REMOVAL) & density["system"].isin(personal)]
    ai = density[(density["sweep"] == ONE_R_AI_REMOVAL) & density["system"].isin(personal)]
    if not len(ti):
        return "No 1R removal level had runs on this dataset."
    levels = stats.levels[(stats.levels["sweep"] == ONE_R_REMOVAL) & (stats.levels["x"] <= FIT_MAX_REMOVED)]
    last = levels["x"].max()
    pool = sweep.points[sweep.points["sweep"] == ONE_R_REMOVAL].groupby("x")["candidates"].mean()
    flat_ti = bool((ti["change"].abs() <= 0.1).all())
    text = (
        "**1R precision is set by the design, not by the test data, as long as the candidates stay the same.** "
        f"With TI-NN candidates, the papers' design, the 1R P@{sweep.n} of the systems other than Random changes by "
        f"{_span(ti['change'].min(), ti['change'].max(), '{:+.0%}')} from the full test set to {fmt_pct(last, 0)} "
        "removed, while AR precision loses most of its value over the same range. "
    )
    if flat_ti:
        text += "That is within ±10% for every system: 1R precision hardly notices the thinning. "
    else:
        text += (
            "The change is not negligible, and the candidate pool is the reason: TI draws the non-relevant items of a "
            f"run from the items with a test rating, {pool.iloc[0]:,.0f} on the full test set and "
            f"{pool.loc[last]:,.0f} at {fmt_pct(last, 0)} removed. Thinning the test set changes which items can be "
            "sampled as non-relevant (the rarely rated ones leave the pool first) and which users still have enough "
            "of them to get a run at all. "
        )
        if (ti["change"] < 0).all():
            text += ("Here every system loses: the pool that remains is made of popular items, which the systems other "
                     "than Random rank high, so the sampled non-relevant items become harder to beat. ")
    if len(ai):
        flat_ai = bool((ai["change"].abs() <= 0.1).all())
        text += (
            "With AI-NN candidates the pool is the whole catalogue whatever the test set, and the change is "
            f"{_span(ai['change'].min(), ai['change'].max(), '{:+.0%}')}"
            + (": a relevant test rating removed at random leaves the others as they were, and 1R precision, an "
               "average over them, stays where it was." if flat_ai else
               "; on this dataset even the fixed pool does not keep every system within ±10%, as fewer and fewer "
               "users keep a relevant test rating and the average runs over a changing set of users.")
        )
    return text


def _size_text(sizes: pd.DataFrame, personal: Sequence[str], n: int) -> str:
    fitted = sizes[sizes["system"].isin(personal)]
    if not len(fitted):
        return "The catalogue is too small for a size sweep of three or more points."
    random = sizes[sizes["system"] == "Random"]
    slower = bool((fitted["exponent"] > -1).all())
    excluded = sum(not _covers(ci, -1.0) for ci in fitted["exponent_ci"])
    text = "**1R precision falls with the size of the target sets" + (", but more slowly than 1/t.** " if slower
                                                                       else ".** ")
    if len(random):
        r = random.iloc[0]
        text += (f"Random 1R precision has exponent {_interval(r['exponent'], r['exponent_ci'])}, "
                 + ("in line with Eq. 5's -1. " if _covers(r["exponent_ci"], -1.0) else
                    "close to Eq. 5's -1 (a log-log fit of four noisy means; the theory check above tests Eq. 5 "
                    "directly). " if abs(r["exponent"] + 1) <= 0.15 else "against Eq. 5's -1. "))
    which = (f"all {len(fitted)}" if excluded == len(fitted) else "none" if excluded == 0
             else f"{excluded} of the {len(fitted)}")
    text += (f"The other systems have exponents of {_span(fitted['exponent'].min(), fitted['exponent'].max())}; "
             f"the interval excludes -1 for {which}.")
    if slower:
        text += (f" Eq. 5 describes random recommendation exactly; a system that ranks the relevant item high keeps it "
                 f"in its top {n} even when many more non-relevant items are added, so its precision falls more slowly "
                 "than the random baseline, and its lead over random grows with t.")
    return text


def claims_table(claims: pd.DataFrame) -> pd.DataFrame:
    """The metric statements with their criteria, measured ratios and verdicts."""
    return claims.assign(verdict=np.where(claims["holds"], "holds", "does not hold"))[
        ["statement", "criterion", "ratios", "verdict"]].rename(columns={"ratios": "measured ratios"})


def metrics_text(table: pd.DataFrame, n: int, sweep: Sweep) -> str:
    """What the elasticities of the systems other than Random say, metric by metric."""
    personal = table[table["system"].isin(_personalised(table["system"].unique()))]
    grouped = personal.groupby(["metric", "users"], sort=False)["elasticity"]
    ranges = {key: (values.min(), values.max()) for key, values in grouped}

    def span(metric: str, users: str = "with relevant") -> str:
        return _span(*ranges[(metric, users)])

    parts = [f"For the systems other than Random, the elasticity of P@{n} over all users of the full test set is "
             f"{span(f'P@{n}', 'all')}, and that of MRR {span('MRR', 'all')}."]
    if (f"P@{n}", "with relevant") in ranges:
        parts.append(f"Over the users who still have a relevant item they are {span(f'P@{n}')} and {span('MRR')}; "
                     "the difference is the part of the sensitivity that comes from users who lose every relevant "
                     "test item and score 0.")
    parts.append(f"Recall@{n} has {span(f'Recall@{n}')}, MAP {span('MAP')}, nDCG {span('nDCG')} and "
                 f"nDCG@{n} {span(f'nDCG@{n}')}.")
    full = sweep.targets[(sweep.targets["point"] == _point_key(AR_REMOVAL, 0.0)) & (sweep.targets["run"] >= 0)]
    parts.append(f"On the full test set, {fmt_pct(float((full['relevant'] > n).mean()), 0)} of the users have more "
                 f"than {n} relevant test items.")
    return " ".join(parts)


def order_text(orders: pd.DataFrame, stats: SweepStatistics, ratings: Ratings) -> str:
    """Where the order of systems holds and where it gives way."""
    parts = []
    for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
        part = orders[orders["sweep"] == sweep].sort_values("x")
        if not len(part):
            continue
        broken = part[part["tau"] < 1.0]
        if len(broken):
            first = broken.iloc[0]
            pairs = "; ".join(f"{a} above {b}" for a, b in first["swapped"])
            holds = part[part["x"] < first["x"]]["x"].max()
            kept = (f"holds up to {fmt_pct(holds, 0)} removed" if holds > 0
                    else "changes at the first removal level")
            parts.append(f"Under {label}, the order of the full test set {kept}; at {fmt_pct(first['x'], 0)} τ is "
                         f"{_interval(first['tau'], first['tau_ci'])} with {int(first['users']):,} users left"
                         + (f" ({pairs}, against the order of the full test set)." if pairs else ".")
                         + ("" if first["tau_ci"][1] < 1 else " The interval still reaches 1: the change is within the "
                            "noise of the resampled users."))
        else:
            parts.append(f"Under {label}, the order of the full test set holds at every level, down to "
                         f"{int(part.iloc[-1]['users']):,} users at {fmt_pct(part.iloc[-1]['x'], 0)} removed.")
        shaky = part[(part["same_order"] < 0.5) & (part["tau"] == 1.0)]
        if len(shaky):
            parts.append(f"Even where the point estimate keeps the order, fewer than half of the resamples reproduce "
                         f"it exactly from {fmt_pct(shaky['x'].min(), 0)} removed on: the closest systems are within "
                         "the noise.")
    one_r = stats.levels[stats.levels["sweep"] == ONE_R_REMOVAL].sort_values("x")
    if len(one_r) > 1:
        parts.append("In 1R a user without any relevant test rating has no run at all: "
                     f"{int(one_r.iloc[0]['users']):,} "
                     f"users have runs on the full test set, {int(one_r.iloc[-1]['users']):,} at "
                     f"{fmt_pct(one_r.iloc[-1]['x'], 0)} removed, and the precision of the others is averaged as if "
                     "they did not exist, so 1R hides the thinning that AR shows.")
    truth = orders["tau_truth"].dropna()
    if len(truth):
        full = orders[(orders["x"] == 0) & (orders["sweep"] == AR_REMOVAL)].iloc[0]
        parts.append(f"Against the true order of the simulated world, the full test set scores τ = "
                     f"{full['tau_truth']:.2f} under AR; sparsity does not turn that into a different kind of error, "
                     f"the τ against the truth stays between {truth.min():.2f} and {truth.max():.2f} at every level.")
    elif ratings.true_relevance is None:
        parts.append(f"*{ratings.name}* is observed data without a complete truth, so the true order is not available "
                     "here; build the chapter on `synthetic` to see it.")
    return " ".join(parts)


def spread_table(lift: pd.DataFrame, n: int) -> pd.DataFrame:
    """:func:`spread_factors` as a page table, one row per system."""
    spread = spread_factors(lift)
    labels = {("AR", "P"): f"AR P@{n}", ("AR", "lift"): "AR lift", ("1R", "P"): f"1R P@{n}", ("1R", "lift"): "1R lift",
              ("all", "P"): f"P@{n}, all designs", ("all", "lift"): "lift, all designs"}
    table = spread[list(labels)].set_axis(list(labels.values()), axis=1)
    return table.map(lambda v: f"{v:.1f}×").rename_axis("system").reset_index()


def lift_text(lift: pd.DataFrame, n: int) -> str:
    """What the lift over random does and does not put on one scale."""
    configurations = lift.groupby(["dataset", "design"], sort=False).ngroups
    if lift["dataset"].nunique() < 2:
        return (f"Only this page's dataset is available to this build ({configurations} designs), so the comparison "
                "across datasets is not made; build with `compare_all = True` on a machine with the other datasets.")
    spread = spread_factors(lift).loc[_personalised(lift["system"].unique())]
    ar = lift[~lift["design"].str.startswith("1R")]
    rho = ar.groupby("dataset", sort=False)["rho"].first()
    t = round(1 / lift.loc[lift["design"].str.startswith("1R"), "rho"].iloc[0])

    def span(column: tuple[str, str]) -> str:
        return _span(spread[column].min(), spread[column].max(), "{:.1f}")

    one_r_better = bool((spread[("1R", "P")] < spread[("AR", "P")]).all())
    lift_helps = bool((spread[("AR", "lift")] < spread[("AR", "P")]).all())
    return (
        f"Across the datasets, ρ under AR ranges from {rho.min():.4f} ({rho.idxmin()}) to {rho.max():.4f} "
        f"({rho.idxmax()}); under 1R it is 1/{t} everywhere. For the systems other than Random, AR P@{n} spreads by a "
        f"factor of {span(('AR', 'P'))} across the datasets and 1R P@{n} by {span(('1R', 'P'))}"
        + (": with t fixed by the design, 1R values are the more comparable, as the papers suggest. " if one_r_better
           else ": fixing t does not make 1R values more comparable than AR ones here. ")
        + (f"Dividing by ρ narrows the spread of AR values to {span(('AR', 'lift'))}" if lift_helps
           else f"Dividing by ρ does not help AR: the lift spreads by {span(('AR', 'lift'))}")
        + f"; across all datasets and designs together the lift spreads by {span(('all', 'lift'))} against "
        f"{span(('all', 'P'))} for P@{n} itself. Random precision falls as 1/t, a good system's more slowly (the size "
        "sweep above), so the lift of a good system grows as ρ shrinks: it says how far a system is above random "
        "*within* one experiment, and is not a scale on which experiments can be compared."
    )


def findings_table(checked: Sequence[Mapping]) -> pd.DataFrame:
    """The registered findings as a table: statement, verdict, evidence."""
    return pd.DataFrame({"statement": [c["label"] for c in checked],
                         "verdict": ["holds" if c["holds"] else "does not hold" for c in checked],
                         "evidence": [c["evidence"] for c in checked]})

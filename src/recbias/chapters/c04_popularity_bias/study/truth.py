"""How much of popularity's offline score is real, and whom it serves (beyond the papers): on simulated worlds
with preferences, popularity's measured 1R and AR precision against its true precision as the observation bias
and the skew vary (:func:`observation_grid`); and the "majority" argument of IRJ 2017 Sec. 5.1 measured per user,
by how closely a user's ratings follow the crowd (:func:`mainstream_study`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c04_popularity_bias.study.setup import (ALL_RELEVANT_DESIGN, METRIC, N, PERSONALISED,
                                                              one_relevant_design, precision_summary)
from recbias.designs import build_runs
from recbias.evaluate import Candidates, evaluate_runs, mean_confidence_interval, true_quality
from recbias.evaluate.statistics import UserBootstrap, resampled_pvalue
from recbias.evaluate.experiment import fit_systems, run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.splits import Fold, fold_seed, make_folds
from recbias.synthetic import generate

#: the systems of the measured-vs-true and per-user studies, label -> preset
TRUTH_SYSTEMS: dict[str, str] = {"Popularity": "popularity", PERSONALISED: "user-knn", "Random": "random"}

#: the measures of :func:`observation_grid`: the two offline designs and the truth
MEASURES = ("1R", "AR", "true")
#: resamples of a world's users behind its comparison of popularity's measured and true share
N_BOOT = 1000


@dataclass(frozen=True)
class ObservationGrid:
    """The worlds of :func:`observation_grid`.  ``precision``: one row per (alpha, selection, system, measure) with
    ``mean`` and its 95% interval; ``shares``: one row per world (alpha, selection), popularity's P@n as a share of
    :data:`PERSONALISED`'s in 1R and on the truth (:func:`share_test`)."""

    precision: pd.DataFrame
    shares: pd.DataFrame


def mean_interval(values: np.ndarray) -> dict:
    """Mean of the finite ``values`` with its 95% interval."""
    mean, low, high = mean_confidence_interval(values[np.isfinite(values)])
    return {"mean": mean, "ci_low": low, "ci_high": high}


def share_test(one: pd.DataFrame, truth: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = 0) -> dict[str, float]:
    """Popularity's P@n as a share of :data:`PERSONALISED`'s in 1R (run averages of ``one``, a per-run table) and
    on the truth (means of ``truth``, users x systems), ``1R`` minus ``true`` (``difference``), and its two-sided
    p-value over ``n_boot`` resamples of the users (:class:`UserBootstrap`: a drawn user brings her runs and her
    truth)."""
    systems = ["Popularity", PERSONALISED]
    measured = one.loc[one["system"].isin(systems), ["user", "system", METRIC]].assign(measure="1R")
    true = (truth[systems].rename_axis("user").reset_index()
            .melt(id_vars="user", var_name="system", value_name=METRIC).assign(measure="true"))
    table = pd.concat([measured.astype({"system": str}), true], ignore_index=True)
    means = UserBootstrap(table["user"].to_numpy(), n_boot, seed).means(table, METRIC, ["measure", "system"])
    share = means.xs("Popularity", level="system") / means.xs(PERSONALISED, level="system")
    difference = share.loc["1R"] - share.loc["true"]
    return {"1R": share.loc["1R", 0], "true": share.loc["true", 0], "difference": difference[0],
            "p": resampled_pvalue(difference.to_numpy()[1:])}


def _grid_cell(alpha: float, selection: float, designs: Mapping[str, str], *, preset: str, seed: int,
               test_ratio: float, cache: bool) -> tuple[list[dict], dict]:
    """Measured (per design) and true P@n of :data:`TRUTH_SYSTEMS` on one world of the grid, and popularity's
    measured and true share of :data:`PERSONALISED`'s (:func:`share_test`)."""
    ratings = generate(preset=preset, alpha=alpha, selection=selection, seed=seed)
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    experiment = run_experiment(ratings, list(designs), TRUTH_SYSTEMS, folds=[fold], metrics=[METRIC], seed=seed,
                                cache=cache)
    cell = {"alpha": alpha, "selection": selection}
    rows = [cell | {"system": row["system"], "measure": designs[row["design"]], "mean": row["mean"],
                    "ci_low": row["ci_low"], "ci_high": row["ci_high"]}
            for _, row in precision_summary(experiment.runs, ("design", "system")).iterrows()]
    fitted = fit_systems(TRUTH_SYSTEMS, fold.train, key_extra=fold.key, cache=cache, seed=seed)
    truth = true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=seed)[METRIC]
    one = experiment.runs[experiment.runs["design"] == next(d for d, m in designs.items() if m == "1R")]
    return (rows + [cell | {"system": system, "measure": "true"} | mean_interval(truth[system].to_numpy())
                    for system in TRUTH_SYSTEMS], cell | share_test(one, truth, seed=seed))


def observation_grid(alphas: Sequence[float], selections: Sequence[float], *, preset: str = "synthetic", seed: int = 0,
                     test_ratio: float = 0.2, target_size: int = 100, cache: bool = True) -> ObservationGrid:
    """Measured and true P@n of :data:`TRUTH_SYSTEMS` on one world of ``preset`` per (``alpha``, ``selection``):
    item popularity skew, and how strongly users rate what they like.  One coin-flip split; measured: 1R and AR
    precision on the test ratings; true: P@n over all items the user did not rate in training, judged on the
    world's complete relevance (:class:`ObservationGrid`)."""
    designs = {one_relevant_design(target_size): "1R", ALL_RELEVANT_DESIGN: "AR"}
    setup = {"preset": preset, "seed": seed, "test_ratio": test_ratio, "cache": cache}
    cells = [_grid_cell(float(alpha), float(selection), designs, **setup)
             for alpha in alphas for selection in selections]
    return ObservationGrid(pd.DataFrame([row for rows, _ in cells for row in rows]),
                           pd.DataFrame([shares for _, shares in cells]))


def popularity_over(grid: pd.DataFrame, system: str) -> pd.DataFrame:
    """Popularity's mean P@n over ``system``'s, one row per world (alpha, selection), one column per measure."""
    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean")
    return (wide["Popularity"] / wide[system]).unstack("measure")[list(MEASURES)]


def mainstream_scores(train: Ratings) -> np.ndarray:
    """How mainstream each user's taste is: the Pearson correlation, over the user's training
    ratings, between her rating ``r_ui`` and the item's mean rating by the other users,
    ``(sum_v r_vi - r_ui) / (|R_train(i)| - 1)``.  1 when she rates exactly as the crowd
    does; NaN with fewer than three such ratings or no spread."""
    users, values = train.users, train.values
    sums = np.bincount(train.items, weights=values, minlength=train.n_items)
    counts = train.item_counts()
    shared = counts[train.items] > 1
    own, others = values[shared], ((sums[train.items] - values) / np.maximum(counts[train.items] - 1, 1))[shared]
    who = users[shared]

    def total(weights: np.ndarray) -> np.ndarray:
        return np.bincount(who, weights=weights, minlength=train.n_users)

    n = total(np.ones(len(who)))
    with np.errstate(invalid="ignore", divide="ignore"):
        covariance = total(own * others) - total(own) * total(others) / n
        spread = (total(own**2) - total(own) ** 2 / n) * (total(others**2) - total(others) ** 2 / n)
        correlation = covariance / np.sqrt(spread)
    return np.where((n >= 3) & (spread > 1e-12), np.clip(correlation, -1.0, 1.0), np.nan)


def _per_user_precision(ratings: Ratings, fold: Fold, fitted: Mapping[str, Recommender],
                        seed: int) -> tuple[pd.Series, dict[str, pd.DataFrame]]:
    """Each user's :func:`mainstream_scores`, and per user (rows) and system (columns): AR P@n (``measured``) and,
    on a simulated world, P@n on the complete relevance (``true``); users without a score left out."""
    runs = build_runs(fold.train, fold.test, ALL_RELEVANT_DESIGN, seed=fold_seed(seed, 0))
    candidates = Candidates([runs])
    measured = pd.DataFrame({label: evaluate_runs(runs, candidates.score(rec)[0], [METRIC], seed=seed)
                             .set_index("user")[METRIC] for label, rec in fitted.items()})
    mainstream = pd.Series(mainstream_scores(fold.train), name="mainstream").reindex(measured.index).dropna()
    per_measure = {"measured": measured.loc[mainstream.index]}
    if ratings.true_relevance is not None:
        truth = true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=seed)[METRIC]
        per_measure["true"] = truth.reindex(mainstream.index)
    return mainstream, per_measure


def mainstream_study(ratings: Ratings, *, seed: int = 0, test_ratio: float = 0.2, groups: int = 5,
                     cache: bool = True) -> pd.DataFrame:
    """Per-user AR P@n of popularity and the personalised system by mainstream group (IRJ 2017 Sec. 5.1), on fold 0
    of the coin-flip splits: users with a relevant test item and a :func:`mainstream_scores` are cut into ``groups``
    groups of near-equal size by it (group 1 the most idiosyncratic).  Rows per (group, system, measure), measure
    ``measured`` (AR precision) and, on simulated worlds, ``true``: ``mean`` with its interval, ``users``, the
    group's range of scores and ``wins``, the share of its users for whom the system's measured precision is
    strictly higher than the other's."""
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    systems = {label: TRUTH_SYSTEMS[label] for label in ("Popularity", PERSONALISED)}
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, cache=cache, seed=seed)
    mainstream, per_measure = _per_user_precision(ratings, fold, fitted, seed)
    group = pd.qcut(mainstream.rank(method="first"), groups, labels=False) + 1
    rows = []
    for g in range(1, groups + 1):
        members = group.index[group == g]
        span = {"mainstream low": mainstream[members].min(), "mainstream high": mainstream[members].max()}
        for measure, table in per_measure.items():
            part = table.loc[members]
            for label in systems:
                other = part[[s for s in systems if s != label][0]]
                rows.append({"group": g, **span, "system": label, "measure": measure, "users": len(members),
                             "wins": float((part[label] > other).mean())} | mean_interval(part[label].to_numpy()))
    return pd.DataFrame(rows)


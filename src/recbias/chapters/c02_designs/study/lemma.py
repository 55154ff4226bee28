"""The lemma that ties 1R to AR precision (IRJ 2017 Eq. 2), along the two sweeps of IRJ Fig. 3.

When a user's 1R target sets share their non-relevant items, 1R precision lies between two AR
quantities (:func:`recbias.theory.lemma_bounds`).  :func:`lemma_sweep` follows both sides while test
ratings are removed and while the target sets grow; :func:`band_ends` measures the band between them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias import splits as splitting
from recbias.chapters.c02_designs.study.comparison import N, DesignStudy
from recbias.designs import build_runs
from recbias.evaluate import Candidates
from recbias.evaluate.experiment import fit_systems
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Runs
from recbias.splits import fold_seed
from recbias.theory import lemma_bounds

#: the systems of IRJ Fig. 3, pLSA and the kNN of the papers' set (the rating predictor)
LEMMA_SYSTEMS = {"pLSA": "plsa", "rating-kNN": "rating-user-knn"}
#: the two sweeps of :func:`lemma_sweep`
REMOVAL, GROWTH = "removed test ratings", "target size"


def _lemma_runs(train: Ratings, test: Ratings, size: int, seed: int, users: np.ndarray | None) -> Runs:
    runs = build_runs(train, test, f"1R TI-NN({size - 1})", seed=seed, shared_negatives=True, on_shortage="exclude")
    if users is not None:
        runs = runs.subset(np.isin(runs.users, users))
    return runs


def _points(points: Sequence[tuple[str, float, Runs]], systems: Mapping[str, Recommender], n: int) -> list[dict]:
    """One row per (point, system): 1R P@n on the point's runs and its two bounds; points without a run give
    none.  All points are scored in one :class:`~recbias.evaluate.Candidates` pass per system, so a system
    scores a user once for the whole sweep."""
    points = [point for point in points if point[2].n_runs > 0]
    if not points:
        return []
    candidates = Candidates([runs for _, _, runs in points])
    rows = []
    for label, system in systems.items():
        for (sweep, x, runs), score in zip(points, candidates.score(system), strict=True):
            bounds = lemma_bounds(runs, score, n)
            rows.append({"sweep": sweep, "x": x, "system": label, "lower": bounds.lower, "value": bounds.value,
                         "upper": bounds.upper, "runs": runs.n_runs, "users": len(np.unique(runs.users)),
                         "holds": bounds.lower <= bounds.value <= bounds.upper})
    order = {(sweep, x): k for k, (sweep, x, _) in enumerate(points)}
    return sorted(rows, key=lambda row: order[(row["sweep"], row["x"])])


def growth_population(train: Ratings, test: Ratings, target_sizes: Sequence[int], *, max_users: int | None,
                      min_share: float, seed: int) -> tuple[list[int], np.ndarray]:
    """The sizes of the growth sweep and its one population of users.

    The population is the users who have enough non-relevant candidates at the largest size, subsampled to
    ``max_users`` with ``seed`` when given; sizes are dropped from the top until it holds at least
    ``min_share`` of the users with a relevant test item.
    """
    sizes = sorted(int(s) for s in target_sizes)
    n_users = len(np.unique(test.users[test.values >= test.positive_threshold]))
    eligible = np.empty(0, dtype=np.int64)
    while sizes:
        widest = _lemma_runs(train, test, sizes[-1], fold_seed(seed, 100), None)
        eligible = np.unique(widest.users)
        if len(eligible) >= min_share * n_users:
            break
        sizes.pop()
    if sizes and max_users is not None and len(eligible) > max_users:
        eligible = np.sort(np.random.default_rng(seed).choice(eligible, max_users, replace=False))
    return sizes, eligible


def lemma_sweep(
    train: Ratings,
    test: Ratings,
    systems: Mapping[str, Recommender],
    *,
    n: int = N,
    target_sizes: Sequence[int] = (100, 200, 400, 600, 800, 1000),
    removed: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9),
    base_size: int = 100,
    max_users: int | None = None,
    min_share: float = 0.5,
    seed: int = 0,
) -> pd.DataFrame:
    """1R precision and its AR bounds (IRJ 2017 Eq. 2, :func:`recbias.theory.lemma_bounds`) along the two
    sweeps of their Fig. 3, on 1R TI-NN target sets whose non-relevant items a user's runs share (the lemma's
    assumption): :data:`REMOVAL`, ``|T_u^r| = base_size`` with a ``removed`` fraction of the test ratings
    dropped at random (nested: what is gone at 20% is gone at 40%), and :data:`GROWTH`, the whole test set
    with ``|T_u^r|`` over ``target_sizes`` on the one population of :func:`growth_population`.  One row per
    (sweep, x, system): ``lower``, ``value``, ``upper``, ``runs``, ``users``, ``holds``."""
    points = []
    for k, fraction in enumerate(removed):
        thinned = splitting.remove_test_ratings(test, fraction, seed=seed) if fraction > 0 else test
        points.append((REMOVAL, float(fraction), _lemma_runs(train, thinned, base_size, fold_seed(seed, k), None)))
    sizes, eligible = growth_population(train, test, target_sizes, max_users=max_users, min_share=min_share, seed=seed)
    for k, size in enumerate(sizes):
        points.append((GROWTH, float(size), _lemma_runs(train, test, size, fold_seed(seed, 200 + k), eligible)))
    return pd.DataFrame(_points(points, systems, n))


def lemma_points(study: DesignStudy, max_users: int | None = None) -> pd.DataFrame:
    """:func:`lemma_sweep` of IRJ Fig. 3 on the study's first split: pLSA and rating-kNN (the papers' set),
    the 1R target size of the study as the base size, ``max_users`` users for the size sweep."""
    fold = study.folds[0]
    systems = fit_systems(LEMMA_SYSTEMS, fold.train, key_extra=fold.key, seed=study.seed)
    return lemma_sweep(fold.train, fold.test, systems, base_size=study.choice.target_size,
                       max_users=None if max_users is None else int(max_users), seed=study.seed)


def band_ends(sweep: pd.DataFrame) -> dict[str, float]:
    """The band ``upper - lower`` (absolute and relative to the 1R value, averaged over the systems) at the ends
    of both sweeps: on the full test set (``full``, ``full_relative``) and the thinnest (``thin``,
    ``thin_relative``, a share ``removed`` of the test ratings gone); along the size sweep, if any, on its
    ``users`` at the smallest and the largest target sets (``small``, ``small_relative``, ``small_size``, and
    ``big`` ...)."""
    width = sweep["upper"] - sweep["lower"]
    bands = (sweep.assign(width=width, relative=width / sweep["value"]).groupby(["sweep", "x"], sort=False)
             .agg(width=("width", "mean"), relative=("relative", "mean"), users=("users", "first")).reset_index())
    removal, growth = (bands[bands["sweep"] == name] for name in (REMOVAL, GROWTH))
    ends, rows = {"removed": float(removal["x"].iloc[-1])}, {"full": removal.iloc[0], "thin": removal.iloc[-1]}
    if len(growth):
        rows |= {"small": growth.iloc[0], "big": growth.iloc[-1]}
        ends["users"] = float(growth["users"].iloc[0])
    for end, row in rows.items():
        ends |= {end: float(row["width"]), f"{end}_relative": float(row["relative"]), f"{end}_size": float(row["x"])}
    return ends

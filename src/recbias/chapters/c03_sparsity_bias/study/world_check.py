"""The papers' 1R statement on a world of MovieLens 1M's shape (IRJ 2017 Sec. 4.2, Fig. 4 centre).

"1R precision does not depend on the amount of test ratings" was observed on MovieLens 1M, whose million ratings
leave nearly every item with a test rating, while on a small catalogue the TI candidate pool shrinks as test ratings
are removed.  :func:`one_r_removal_change` measures the change of 1R P@n on such a world.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from recbias.chapters.c03_sparsity_bias.study.fits import draw_interval
from recbias.chapters.c03_sparsity_bias.study.sweeps import (FIT_MAX_REMOVED, ONE_R_REMOVAL, point_key, removal_runs,
                                                             user_sample)
from recbias.evaluate import UserBootstrap
from recbias.evaluate.experiment import evaluate_fold, fit_systems
from recbias.ratings import Ratings
from recbias.splits import fold_seed, make_folds

#: the world of the check: the shape of MovieLens 1M, the papers' dataset
WORLD = "synthetic-ml1m"


def one_r_removal_change(ratings: Ratings, systems: Mapping[str, str], *, removed: float = FIT_MAX_REMOVED,
                         base_size: int = 100, test_ratio: float = 0.2, n: int = 10, max_users: int | None = None,
                         n_boot: int = 200, seed: int = 0, cache: bool = True) -> pd.DataFrame:
    """Relative change of 1R TI-NN(``base_size - 1``) P@n, ``P_removed / P_full - 1``, when a share ``removed`` of
    the test ratings goes, on fold 0 of :func:`recbias.splits.make_folds`, with a 95% interval from one bootstrap
    over users shared by both means (with ``max_users``, a uniform sample of the users with a relevant test item).

    Columns: ``system``, ``full``, ``thinned``, ``change``, ``change_ci``, ``users`` (followed), ``pool_full`` and
    ``pool_thinned`` (TI candidates: items with a test rating).
    """
    if not 0 < removed < 1:
        raise ValueError(f"removed must lie in (0, 1), got {removed}")
    (fold,) = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)
    rated = np.flatnonzero(np.bincount(fold.test.users[fold.test.positive], minlength=fold.test.n_users))
    followed = user_sample(rated, max_users, fold_seed(seed, 998))
    design = f"1R TI-NN({base_size - 1})"
    runs, points = removal_runs(fold, ((ONE_R_REMOVAL, design),), (0.0, removed), followed, seed)
    full, thinned = point_key(ONE_R_REMOVAL, 0.0), point_key(ONE_R_REMOVAL, removed)
    if thinned not in runs:
        raise ValueError(f"no 1R run is left with {removed:.0%} of the test ratings removed")
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed, cache=cache)
    table = evaluate_fold(fold, fitted, runs, [f"P@{n}"], seed=seed)
    boot = UserBootstrap(np.unique(table["user"].to_numpy()), n_boot=n_boot, seed=seed)
    means = boot.means(table, f"P@{n}", ("design", "system"))
    pools = {p["point"]: p["candidates"] for p in points}
    rows = []
    for system in systems:
        before, after = means.loc[(full, system)].to_numpy(), means.loc[(thinned, system)].to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            change = after / before - 1.0
        rows.append({"system": system, "full": before[0], "thinned": after[0], "change": change[0],
                     "change_ci": draw_interval(change), "users": len(followed), "pool_full": pools[full],
                     "pool_thinned": pools[thinned]})
    return pd.DataFrame(rows)

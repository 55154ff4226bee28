"""Chapter 2 ("Experimental design alternatives"): the lemma that ties 1R to AR precision.

When a user's 1R target sets share their non-relevant items, 1R precision lies
between two AR quantities (IRJ 2017 Eq. 2, :func:`recbias.theory.lemma_bounds`).
:func:`lemma_sweep` follows both sides along the two sweeps of IRJ Fig. 3 (test
ratings removed, target sets grown); the other functions read the band between them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias import splits as splitting
from recbias.designs import build_runs
from recbias.evaluate import Candidates
from recbias.experiments.design_space import N, DesignStudy
from recbias.evaluate.experiment import fit_systems
from recbias.splits import fold_seed
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Runs
from recbias.text import fmt_number, fmt_pct
from recbias.theory import lemma_bounds


#: the systems of IRJ Fig. 3
LEMMA_SYSTEMS = {"pLSA": "plsa", "user-kNN": "user-knn"}
#: |T_u^r| in HTML, as tables write the size of a 1R target set
SIZE = "|<i>T</i><sub><i>u</i></sub><sup><i>r</i></sup>|"
#: the two sweeps of :func:`lemma_sweep`
REMOVAL, GROWTH = "removed test ratings", "target size"


def _lemma_runs(train: Ratings, test: Ratings, size: int, seed: int, users: np.ndarray | None) -> Runs:
    runs = build_runs(
        train, test, f"1R TI-NN({size - 1})", seed=seed, shared_negatives=True, on_shortage="exclude"
    )
    if users is not None:
        runs = runs.subset(np.isin(runs.users, users))
    return runs


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
    """1R precision and its AR bounds (IRJ 2017 Eq. 2) along the two sweeps of their Fig. 3.

    Both sweeps use 1R TI-NN target sets ``T_u^r`` of ``size`` items (``size - 1``
    non-relevant ones) whose non-relevant items are shared by all the runs of a user,
    the assumption of the lemma, and :func:`recbias.theory.lemma_bounds`:

    * ``"removed test ratings"``: ``|T_u^r| = base_size``, a ``removed`` fraction of the
      test ratings dropped at random (:func:`recbias.splits.remove_test_ratings`,
      nested: what is gone at 20% is gone at 40%);
    * ``"target size"``: the whole test set, ``|T_u^r|`` over ``target_sizes``.

    The target-size sweep keeps one population of users: those who have enough
    non-relevant candidates at the largest size, subsampled to ``max_users`` users with
    ``seed`` when given.  Sizes are dropped from the top until that population holds at
    least ``min_share`` of the users with a relevant test item.

    Returns one row per (sweep, x, system): ``lower``, ``value``, ``upper``, ``runs``,
    ``users`` and ``holds`` (``lower <= value <= upper``).
    """
    rows = []

    def record(sweep: str, x: float, runs: Runs) -> None:
        if runs.n_runs == 0:
            return
        candidates = Candidates([runs])
        for label, system in systems.items():
            (score,) = candidates.score(system)
            bounds = lemma_bounds(runs, score, n)
            rows.append(
                {
                    "sweep": sweep,
                    "x": x,
                    "system": label,
                    "lower": bounds.lower,
                    "value": bounds.value,
                    "upper": bounds.upper,
                    "runs": runs.n_runs,
                    "users": len(np.unique(runs.users)),
                    "holds": bounds.lower <= bounds.value <= bounds.upper,
                }
            )

    for k, fraction in enumerate(removed):
        thinned = splitting.remove_test_ratings(test, fraction, seed=seed) if fraction > 0 else test
        record(REMOVAL, float(fraction), _lemma_runs(train, thinned, base_size, fold_seed(seed, k), None))

    sizes = sorted(int(s) for s in target_sizes)
    n_users = len(np.unique(test.users[test.values >= test.positive_threshold]))
    eligible = np.empty(0, dtype=np.int64)
    while sizes:
        widest = _lemma_runs(train, test, sizes[-1], fold_seed(seed, 100), None)
        eligible = np.unique(widest.users)
        if len(eligible) >= min_share * n_users:
            break
        sizes.pop()
    if sizes:
        if max_users is not None and len(eligible) > max_users:
            eligible = np.sort(np.random.default_rng(seed).choice(eligible, max_users, replace=False))
        for k, size in enumerate(sizes):
            record(GROWTH, float(size), _lemma_runs(train, test, size, fold_seed(seed, 200 + k), eligible))
    return pd.DataFrame(rows)


def lemma_points(study: DesignStudy, max_users: int | None = None) -> pd.DataFrame:
    """:func:`lemma_sweep` of IRJ Fig. 3 on the study's first split: pLSA and user-kNN, the 1R target
    size of the study as the base size, ``max_users`` users for the size sweep."""
    fold = study.folds[0]
    systems = fit_systems(LEMMA_SYSTEMS, fold.train, key_extra=fold.key, seed=study.seed)
    return lemma_sweep(fold.train, fold.test, systems, base_size=study.choice.target_size,
                       max_users=None if max_users is None else int(max_users), seed=study.seed)


def band_summary(sweep: pd.DataFrame) -> pd.DataFrame:
    """Width of the lemma's band at every point of a sweep, averaged over the systems: one row per
    (sweep, x) with the absolute width ``upper - lower`` and the width relative to the 1R value."""
    width = sweep["upper"] - sweep["lower"]
    frame = sweep.assign(width=width, relative=width / sweep["value"])
    return (frame.groupby(["sweep", "x"], sort=False)
            .agg(width=("width", "mean"), relative=("relative", "mean"), users=("users", "first"))
            .reset_index())


def band_text(sweep: pd.DataFrame) -> str:
    """The paragraph that reads the lemma's sweeps: do the bounds hold, and how wide is the band."""
    holds, points = int(sweep["holds"].sum()), len(sweep)
    bands = band_summary(sweep)
    removal, growth = bands[bands["sweep"] == REMOVAL], bands[bands["sweep"] == GROWTH]
    verdict = (f"The bounds hold on all {points} points." if holds == points else
               f"The bounds hold on {holds} of the {points} points only: a violation means the lemma's conditions "
               "were broken (shared non-relevant items, one order of items per user).")
    first, last = removal.iloc[0], removal.iloc[-1]
    text = (
        f"{verdict} They must: with shared non-relevant items and one fixed order of items per user the lemma is "
        "exact (`recbias.theory.lemma_bounds` computes both sides, and the package tests check the inequality on "
        f"random data). Averaged over the two systems, the band is {fmt_number(first['width'], 4)} wide on the full "
        f"test set ({fmt_pct(first['relative'], 0)} of the 1R value) and {fmt_number(last['width'], 4)} "
        f"({fmt_pct(last['relative'], 0)}) once {fmt_pct(last['x'], 0)} of the test ratings are gone."
    )
    if not len(growth):
        return text + " The catalogue is too small for the size sweep."
    small, big = growth.iloc[0], growth.iloc[-1]
    text += (
        f" Along the size sweep, on a fixed population of {int(small['users']):,} users, it goes from "
        f"{fmt_number(small['width'], 4)} ({fmt_pct(small['relative'], 0)}) with target sets of {small['x']:,.0f} "
        f"items to {fmt_number(big['width'], 4)} ({fmt_pct(big['relative'], 0)}) with {big['x']:,.0f}."
    )
    if big["width"] < small["width"] and big["relative"] >= small["relative"]:
        text += (" In absolute terms it narrows, as the papers observed; relative to the 1R value it does not, "
                 "because precision itself falls faster than the band as the target sets grow.")
    elif big["width"] < small["width"]:
        text += " It narrows in absolute terms and relative to the 1R value, as the papers observed."
    else:
        text += " Unlike in the papers, it does not narrow here."
    return text


def lemma_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """One row per point of the sweeps: its ``setting``, ``runs`` and ``users``, and for each system the lower
    bound, 1R P@10 and the upper bound (columns ``(system, "lower" | "1R P@10" | "upper")``), as text."""
    points = sweep.assign(setting=[f"{x:.0%} removed" if s == REMOVAL else f"{SIZE} = {x:,.0f}"
                                   for s, x in zip(sweep["sweep"], sweep["x"], strict=True)])
    for column in ("lower", "value", "upper"):
        points[column] = [fmt_number(v, 4) for v in points[column]]
    table = points.pivot_table(index=["setting", "runs", "users"], columns="system", values=["lower", "value", "upper"],
                               aggfunc="first", sort=False)
    systems = list(dict.fromkeys(sweep["system"]))
    table = table.swaplevel(axis=1).reindex(columns=[(s, c) for s in systems for c in ("lower", "value", "upper")])
    table = table.rename(columns={"value": f"1R P@{N}"}, level=1).reset_index()
    for column in ("runs", "users"):
        table[(column, "")] = [f"{k:,}" for k in table[(column, "")]]
    return table


def lemma_finding(sweep: pd.DataFrame) -> dict:
    """Arguments of :func:`recbias.bookkit.scorecard.finding` for the lemma (``key``, ``label``, ``holds``,
    ``evidence``, ``source``)."""
    holds = int(sweep["holds"].sum())
    return {"key": "fig3/lemma-holds",
            "label": "1R precision lies within the lemma's AR bounds at every point of both sweeps",
            "holds": bool(holds == len(sweep)), "evidence": f"{holds} of {len(sweep)} points within the bounds",
            "source": "IRJ 2017 Eq. 2, Fig. 3"}

"""The 1R design of chapter 2 is a sampled metric.

On the first coin-flip split of chapter 2, 1R TI-NN(100) precision ranks each relevant item
against 100 sampled candidates; :func:`bridge_study` corrects it with the estimators of the
chapter and sets it against the exact 1R TI-AN precision they estimate (and 1R AI-AN), for the
papers' set of IRJ 2017 (Sec. 3.3: Random, Popularity, pLSA, rating-prediction MF and user-kNN);
:func:`pair_counts` counts the pairs of systems each estimate orders as the exact precision does, or
against it, beyond noise with the user as the unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from recbias import sampled
from recbias.chapters.c06_sampled_metrics.study.real_data import decided
from recbias.designs import build_runs
from recbias.evaluate import PoolRanks, paired_tests, pool_ranks, rank_positions, relevant_ranks, score_runs
from recbias.evaluate.experiment import fit_systems
from recbias.ratings import Ratings
from recbias.recommenders import PAPERS_SET
from recbias.runs import Runs
from recbias.splits import make_folds

BRIDGE_METHODS = ("sampled", "rank estimate", "CLS", "BV 0.1", "BV 0.01")

#: non-relevant items sampled into each 1R run, as m of the corrections
BRIDGE_SIZE = 100


@dataclass(frozen=True, eq=False)
class Bridge:
    """1R TI-NN(100) precision as a sampled metric, on fold 0 of chapter 2's coin-flip split.

    ``runs`` is empty when no pool holds 100 items; ``sizes`` is each run's ``n`` (its TI-AN pool plus the
    relevant item); ``per_run`` maps each estimator (one draw of the runs) and the exact ``TI-AN`` and ``AI-AN``
    to the ``(runs, systems)`` P@10 of every run, systems in the order of ``names``; ``sds`` gives the standard
    deviation of each estimate over draws; ``truth_share`` and ``pool_share`` are with a simulated world the
    share of sampled non-relevant items truly relevant and of relevant pairs in the whole matrix (else NaN).
    """

    runs: Runs
    sizes: np.ndarray
    names: tuple[str, ...]
    per_run: dict[str, np.ndarray]
    sds: dict[str, dict[str, float]]
    truth_share: float
    pool_share: float

    @property
    def formed(self) -> bool:
        return self.runs.n_runs > 0

    @property
    def values(self) -> dict[str, dict[str, float]]:
        """``estimate -> system ->`` 1R P@10, the mean over runs (IRJ Eq. 1)."""
        return {estimate: dict(zip(self.names, values.mean(axis=0).tolist(), strict=True))
                for estimate, values in self.per_run.items()}


def rows_of(targets: PoolRanks, runs: Runs, n_items: int) -> np.ndarray:
    """Row of ``targets`` holding the relevant (user, item) pair of every 1R run."""
    target_keys = targets.users * n_items + targets.items
    run_keys = runs.users.astype(np.int64) * n_items + runs.items[runs.labels]
    order = np.argsort(target_keys)
    rows = order[np.searchsorted(target_keys[order], run_keys)]
    if not np.array_equal(target_keys[rows], run_keys):
        raise RuntimeError("a 1R run has no target among the pools")
    return rows


def bridge_study(ratings: Ratings, *, seed: int = 0, n_tolerance: float = 0.05) -> Bridge:
    """1R TI-NN(100) P@10 of the papers' set, uncorrected and corrected, against exact 1R TI-AN and AI-AN P@10."""
    fold = make_folds(ratings, folds=1, test_ratio=0.2, seed=seed)[0]
    train, test = fold.train, fold.test
    runs = build_runs(train, test, f"1R TI-NN({BRIDGE_SIZE})", seed=seed, on_shortage="exclude")
    if runs.n_runs == 0:
        return Bridge(runs, np.zeros(0, np.int64), tuple(PAPERS_SET), {}, {}, np.nan, np.nan)
    models = list(fit_systems(PAPERS_SET, train, key_extra=fold.key, seed=seed).values())
    options = {"threshold": ratings.positive_threshold, "exclude_other_targets": True, "seed": seed}
    exact_ti = pool_ranks(models, train, test, candidates=test.item_counts() > 0, **options)
    exact_ai = pool_ranks(models, train, test, **options)
    rows = rows_of(exact_ti, runs, ratings.n_items)
    sizes = exact_ti.sizes[rows]
    bins, bin_sizes = sampled.catalogue_bins(sizes, n_tolerance)
    tables = sampled.correction_tables(BRIDGE_METHODS, ["P@10"], bin_sizes, BRIDGE_SIZE, False)
    # each estimator's P@10 of every run of this draw, and the standard deviation of its mean over draws
    per_run = {method: np.zeros((runs.n_runs, len(models))) for method in BRIDGE_METHODS}
    sds: dict[str, dict[str, float]] = {method: {} for method in BRIDGE_METHODS}
    for k, model in enumerate(models):
        positions = relevant_ranks(rank_positions(runs, score_runs(model, runs), ties="random", seed=seed))
        for method in BRIDGE_METHODS:
            table = tables[(method, "P@10")][bins]
            per_run[method][:, k] = table[np.arange(len(positions)), positions - 1]
            sds[method][model.name] = sampled.estimator_moments(table, exact_ti.ranks[rows, k], sizes, False).average_std
    # the exact precisions: every test item (TI-AN), or every non-training item (AI-AN), as candidate
    for design, exact in (("TI-AN", exact_ti), ("AI-AN", exact_ai)):
        per_run[design] = (exact.ranks[rows] <= 10) / 10
    truth = ratings.true_relevance  # with a simulated world: the shares of truly relevant pairs
    negatives, run_users = ~runs.labels, np.repeat(runs.users, runs.sizes)
    shares = (np.nan, np.nan) if truth is None else (float(truth[run_users[negatives], runs.items[negatives]].mean()),
                                                     float(truth.mean()))
    return Bridge(runs, sizes, tuple(model.name for model in models), per_run, sds, *shares)


def pair_counts(bridge: Bridge) -> pd.DataFrame:
    """Per estimator, how many pairs of systems it orders as the exact 1R TI-AN precision (``kept``) or against
    it (``reversed``) beyond noise (:func:`~recbias.chapters.c06_sampled_metrics.study.real_data.decided`), and how
    many are ``within noise``: paired tests of the P@10 of the runs, clustered by user."""
    pairs = list(combinations(range(len(bridge.names)), 2))

    def tested(method: str) -> np.ndarray:
        values = bridge.per_run[method]
        return np.array([(values[:, a].mean() - values[:, b].mean(),
                          paired_tests(values[:, a], values[:, b], bridge.runs.users)["t_pvalue"]) for a, b in pairs])

    exact = tested("TI-AN")
    rows = []
    for method in BRIDGE_METHODS:
        kept, reversed_ = decided(exact[:, 0], exact[:, 1], *tested(method).T)
        rows.append({"estimator": method, "kept": int(kept.sum()), "reversed": int(reversed_.sum()),
                     "within noise": len(pairs) - int(kept.sum() + reversed_.sum())})
    return pd.DataFrame(rows)

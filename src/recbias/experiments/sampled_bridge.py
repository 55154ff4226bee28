"""Chapter 6 ("Sampled metrics and their corrections"): the 1R design of chapter 2 is a sampled metric.

On the first coin-flip split of chapter 2, 1R TI-NN(100) precision ranks each relevant item
against 100 sampled candidates; :func:`bridge_study` corrects it with the estimators of the
chapter and sets it against the exact 1R TI-AN precision they estimate (and 1R AI-AN), for the
papers' five systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import sampled
from recbias.designs import build_runs
from recbias.evaluate import PoolRanks, pool_ranks, rank_positions, relevant_ranks, score_runs
from recbias.evaluate.experiment import PAPER_SYSTEMS, fit_systems
from recbias.splits import make_folds
from recbias.ratings import Ratings
from recbias.runs import Runs
from recbias.text import fmt_count, fmt_number, fmt_pct, fmt_pm, fmt_yes, order_text


@dataclass(frozen=True, eq=False)
class Bridge:
    """1R TI-NN(100) precision as a sampled metric, on fold 0 of chapter 2's coin-flip split.

    Attributes:
        runs: the 1R TI-NN(100) runs (empty when no pool holds 100 items).
        sizes: ``n`` of each run: its TI-AN pool plus the relevant item.
        values: ``estimator -> system -> value`` for the estimators, the exact TI-AN and AI-AN precision.
        sds: ``estimator -> system ->`` standard deviation of the estimate over draws of the runs.
        truth_share, pool_share: with a simulated world, the share of sampled non-relevant items that
            are truly relevant, and of relevant pairs in the whole matrix (else NaN).
    """

    runs: Runs
    sizes: np.ndarray
    values: dict[str, dict[str, float]]
    sds: dict[str, dict[str, float]]
    truth_share: float
    pool_share: float

    @property
    def formed(self) -> bool:
        return self.runs.n_runs > 0


BRIDGE_METHODS = ("sampled", "rank estimate", "CLS", "BV 0.1", "BV 0.01")


BRIDGE_SIZE = 100


def _rows_of(targets: PoolRanks, runs: Runs, n_items: int) -> np.ndarray:
    """Row of ``targets`` holding the relevant (user, item) pair of every 1R run."""
    target_keys = targets.users * n_items + targets.items
    run_keys = runs.users.astype(np.int64) * n_items + runs.items[runs.labels]
    order = np.argsort(target_keys)
    rows = order[np.searchsorted(target_keys[order], run_keys)]
    if not np.array_equal(target_keys[rows], run_keys):
        raise RuntimeError("a 1R run has no target among the pools")
    return rows


def bridge_study(ratings: Ratings, *, seed: int = 0, n_tolerance: float = 0.05) -> Bridge:
    """1R TI-NN(100) P@10 of chapter 2's systems, uncorrected and corrected, against exact 1R TI-AN and AI-AN P@10."""
    fold = make_folds(ratings, folds=1, test_ratio=0.2, seed=seed)[0]
    train, test, threshold = fold.train, fold.test, ratings.positive_threshold
    runs = build_runs(train, test, f"1R TI-NN({BRIDGE_SIZE})", seed=seed, on_shortage="exclude")
    if runs.n_runs == 0:
        return Bridge(runs, np.zeros(0, np.int64), {}, {}, np.nan, np.nan)
    models = list(fit_systems(PAPER_SYSTEMS, train, key_extra=fold.key, seed=seed).values())
    options = {"threshold": threshold, "exclude_other_targets": True, "seed": seed}
    exact_ti = pool_ranks(models, train, test, candidates=test.item_counts() > 0, **options)
    exact_ai = pool_ranks(models, train, test, **options)
    rows = _rows_of(exact_ti, runs, ratings.n_items)
    sizes = exact_ti.sizes[rows]
    bins, bin_sizes = sampled.catalogue_bins(sizes, n_tolerance)
    tables = sampled.correction_tables(BRIDGE_METHODS, ["P@10"], bin_sizes, BRIDGE_SIZE, False)
    values = {key: {} for key in (*BRIDGE_METHODS, "TI-AN", "AI-AN")}
    sds: dict[str, dict[str, float]] = {method: {} for method in BRIDGE_METHODS}
    for k, model in enumerate(models):
        positions = relevant_ranks(rank_positions(runs, score_runs(model, runs), ties="random", seed=seed))
        true_ranks = exact_ti.ranks[rows, k]
        for method in BRIDGE_METHODS:
            table = tables[(method, "P@10")][bins]
            values[method][model.name] = float(table[np.arange(len(positions)), positions - 1].mean())
            sds[method][model.name] = sampled.estimator_moments(table, true_ranks, sizes, False).average_std
        values["TI-AN"][model.name] = float(np.mean(true_ranks <= 10) / 10)
        values["AI-AN"][model.name] = float(np.mean(exact_ai.ranks[rows, k] <= 10) / 10)
    truth_share = pool_share = np.nan
    if ratings.true_relevance is not None:
        negatives = ~runs.labels
        run_users = np.repeat(runs.users, runs.sizes)
        truth_share = float(ratings.true_relevance[run_users[negatives], runs.items[negatives]].mean())
        pool_share = float(ratings.true_relevance.mean())
    return Bridge(runs, sizes, values, sds, truth_share, pool_share)


_NOT_FORMED = pd.DataFrame({"": [f"no user has {BRIDGE_SIZE} non-relevant candidates on this dataset"]}, index=[""])


def bridge_table(bridge: Bridge) -> pd.DataFrame:
    """One row per estimate, one column per system: one draw of 1R TI-NN(100) P@10, uncorrected and corrected
    (± sd over draws), then the exact 1R TI-AN and 1R AI-AN precision."""
    if not bridge.formed:
        return _NOT_FORMED
    names = list(bridge.values["TI-AN"])
    rows = {f"1R TI-NN({BRIDGE_SIZE}), uncorrected" if method == "sampled" else method:
            [fmt_pm(bridge.values[method][name], bridge.sds[method][name], 4) for name in names]
            for method in BRIDGE_METHODS}
    rows["exact 1R TI-AN"] = [fmt_number(bridge.values["TI-AN"][name], 4) for name in names]
    rows["1R AI-AN"] = [fmt_number(bridge.values["AI-AN"][name], 4) for name in names]
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)


def bridge_orders(bridge: Bridge) -> pd.DataFrame:
    """The order of the systems by each estimate, and whether it is the exact TI-AN order."""
    if not bridge.formed:
        return _NOT_FORMED
    exact = order_text(bridge.values["TI-AN"])
    rows = [{"estimate": "exact 1R TI-AN", "order": exact, "same as exact": ""}]
    for method in BRIDGE_METHODS:
        order = order_text(bridge.values[method])
        rows.append({"estimate": "1R TI-NN(100), uncorrected" if method == "sampled" else method, "order": order,
                     "same as exact": fmt_yes(order == exact)})
    return pd.DataFrame(rows)


def bridge_text(bridge: Bridge) -> str:
    """The sizes of the bridge's runs and pools, and how far the uncorrected precision is from the exact one."""
    if not bridge.formed:
        return (f"**On this build** no user has {BRIDGE_SIZE} non-relevant candidates, so the 1R TI-NN({BRIDGE_SIZE}) "
                "design cannot be formed and this section is skipped.")
    report = bridge.runs.report
    text = (f"**On this build**: {fmt_count(bridge.runs.n_runs, 'run', 'runs')} (relevant test ratings); pools of "
            f"{bridge.sizes.min():,} to {bridge.sizes.max():,} items including the relevant one; "
            + (f"every pool held at least {BRIDGE_SIZE} non-relevant items." if report.shortage_runs == 0 else
               f"{fmt_count(report.shortage_runs, 'run', 'runs')} left out because the pool held fewer than "
               f"{BRIDGE_SIZE} items."))
    exact = bridge.values["TI-AN"]
    ratios = [bridge.values["sampled"][name] / exact[name] for name in exact if name != "Random" and exact[name] > 0]
    if ratios:
        span = f"{min(ratios):.1f}" if f"{min(ratios):.1f}" == f"{max(ratios):.1f}" else \
            f"{min(ratios):.1f} to {max(ratios):.1f}"
        text += (f" The uncorrected 1R precision of the personalised recommenders is {span} times their exact TI-AN "
                 "precision.")
    return text


def truth_text(bridge: Bridge) -> str:
    """What a simulated world says about the items sampled as non-relevant."""
    if np.isnan(bridge.truth_share):
        return ("A real dataset cannot tell how many of the sampled items the user would in fact like; on the "
                "simulated datasets of the book this share is measured directly.")
    return (f"This dataset is simulated, so we can check the assumption: {fmt_pct(bridge.truth_share)} of the items "
            "sampled as non-relevant are in fact relevant to their user in the simulated world (the share of relevant "
            f"pairs over the whole matrix is {fmt_pct(bridge.pool_share)}). The exact TI-AN precision shares this blind "
            "spot, so no correction of the sampling can remove it.")

"""Popularity against the other non-personalised orderings on the page's dataset (IRJ 2017 Sec. 5.1): the count
of positive ratings, the mean rating (raw and shrunk), random scores and a test-set oracle under 1R and AR on
coin-flip splits (:func:`ordering_study`), with the lemma's bounds measured on the runs, the closed-form bounds of
a non-personalised order and the exact expectation of popularity's 1R precision."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from recbias.chapters.c04_popularity_bias.study.setup import (ALL_RELEVANT_DESIGN, METRIC, N, SHRINKAGE,
                                                              SHRUNK_MEAN_RATING, one_relevant_design,
                                                              precision_summary)
from recbias.designs import build_runs
from recbias.evaluate import Candidates, compare
from recbias.evaluate.experiment import run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import HeldOutPopularity, MeanRating, Popularity, Random, Recommender
from recbias.splits import Fold, fold_seed, make_folds
from recbias.theory import expected_popularity_precision_1r, lemma_bounds, nonpersonalised_bounds_1r

ORACLE = "Test-set oracle"
#: the orderings that count training ratings: all of them, or the positive ones only
COUNTS = ("Popularity", "Positive count")

#: where the 95% interval of an ordering's measured 1R precision lies against its closed-form bounds
ABOVE, INSIDE, BELOW = "above", "inside", "below"


def nonpersonalised_systems(held_out: Ratings, seed: int = 0) -> dict[str, Recommender]:
    """The non-personalised orderings compared with popularity; the oracle reads ``held_out``."""
    return {COUNTS[0]: Popularity(), COUNTS[1]: Popularity(positive_only=True), "Mean rating": MeanRating(),
            SHRUNK_MEAN_RATING: MeanRating(shrinkage=SHRINKAGE), "Random": Random(seed=seed),
            ORACLE: HeldOutPopularity(held_out)}


@dataclass(frozen=True)
class OrderingStudy:
    """Non-personalised orderings on the page's dataset: ``runs``, the per-run table (all folds, 1R and AR);
    ``bounds``, per system on fold 0, the lemma's measured bounds and 1R value (ties by item code) and the
    closed-form bounds of Sec. 5.1; ``expected_popularity``, popularity's exact expected 1R precision."""

    dataset: str
    runs: pd.DataFrame
    bounds: pd.DataFrame
    expected_popularity: float
    target_size: int
    folds: int
    test_ratio: float

    @property
    def one_relevant(self) -> str:
        return one_relevant_design(self.target_size)

    def summary(self) -> pd.DataFrame:
        """Mean P@n per design and system, with 95% intervals."""
        return precision_summary(self.runs, ("design", "system"))

    def means(self, design: str) -> pd.Series:
        """Mean P@n of every system under ``design``."""
        summary = self.summary()
        return summary[summary["design"] == design].set_index("system")["mean"]

    def comparisons(self, design: str, system: str) -> pd.DataFrame:
        """The paired tests of ``system`` against every other ordering under ``design``: rows of ``compare``."""
        versus = compare(self.runs, [METRIC], ("design",), baseline=system, average="run")
        return versus[versus["design"] == design]

    def comparison(self, design: str, system: str, other: str) -> pd.Series:
        """The paired test of ``system`` against ``other`` under ``design``: a row of ``compare``."""
        versus = self.comparisons(design, system)
        return versus[versus["system_b"] == other].iloc[0]

    def best_trained(self, design: str) -> str:
        """The ordering learned from training data (all but the oracle) with the highest mean P@n under ``design``."""
        return str(self.means(design).drop(ORACLE).idxmax())


def _fold_bounds(fold: Fold, ratings: Ratings, systems: Mapping[str, Recommender], target_size: int,
                 seed: int) -> pd.DataFrame:
    """Lemma bounds (measured) and closed-form bounds of every fitted system on one fold, on the 1R runs that
    :func:`recbias.evaluate.experiment.run_experiment` builds for the fold's first design (same seed, shared
    non-relevant items).  The closed form takes the order each system gives the first user, the same for every
    user; Random orders each user at random, so in expectation each position holds the mean ``|PR(i)|``."""
    runs = build_runs(fold.train, fold.test, one_relevant_design(target_size), seed=fold_seed(seed, 1000 * fold.index),
                      shared_negatives=True, on_shortage="exclude")
    candidates = np.flatnonzero(fold.test.item_counts())
    positives = ratings.item_counts(positive_only=True).astype(np.float64)
    _, relevant = np.unique(runs.users, return_counts=True)
    orders, rows = [], []
    scorer = Candidates([runs])
    for label, recommender in systems.items():
        (score,) = scorer.score(recommender)
        lemma = lemma_bounds(runs, score, N)
        if isinstance(recommender, Random):
            orders.append(np.full(len(candidates), positives[candidates].mean()))
        else:
            first_user = recommender.score_users(runs.users[:1])[0][candidates]
            orders.append(positives[candidates[np.lexsort((candidates, -first_user))]])
        rows.append({"system": label, "lemma lower": lemma.lower, "1R P@10 (ties by code)": lemma.value,
                     "lemma upper": lemma.upper})
    lower, upper = nonpersonalised_bounds_1r(np.array(orders), N, relevant + int(target_size) - 1, relevant)
    return pd.DataFrame(rows).assign(**{"closed-form lower": lower, "closed-form upper": upper})


def ordering_study(ratings: Ratings, *, folds: int = 5, test_ratio: float = 0.2, target_size: int = 100,
                   seed: int = 0) -> OrderingStudy:
    """The non-personalised orderings under 1R and AR on ``folds`` coin-flip splits; 1R draws the non-relevant items
    once per user (the lemma's assumption), so fold 0's bounds are computed on the very runs that are evaluated."""
    if int(target_size) != target_size or target_size < N + 1:
        raise ValueError(f"target_size must be an integer above the cut-off {N}, got {target_size!r}")
    designs = [one_relevant_design(target_size), ALL_RELEVANT_DESIGN]
    tables, bounds = [], None
    for fold in make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed):
        systems = nonpersonalised_systems(fold.test, seed)
        experiment = run_experiment(ratings, designs, systems, folds=[fold], metrics=[METRIC], seed=seed,
                                    cache=False, shared_negatives=True)
        tables.append(experiment.runs)
        if bounds is None:
            bounds = _fold_bounds(fold, ratings, systems, target_size, seed)
    runs = pd.concat(tables, ignore_index=True)
    for column in ("design", "system"):
        runs[column] = pd.Categorical(runs[column], categories=list(dict.fromkeys(runs[column])))
    expected = expected_popularity_precision_1r(ratings, test_ratio, target_size, N)
    return OrderingStudy(ratings.name, runs, bounds, expected, int(target_size), int(folds), float(test_ratio))


def bounds_table(study: OrderingStudy) -> pd.DataFrame:
    """Per system: 1R precision with its interval, the closed-form bounds, the exact expectation (popularity and
    random), the lemma's bounds on fold 0 and whether they hold, and ``position``: the interval :data:`ABOVE`,
    :data:`INSIDE` or :data:`BELOW` the closed-form bounds."""
    summary = study.summary()
    one = summary[summary["design"] == study.one_relevant].set_index("system")
    table = study.bounds.set_index("system")
    out = pd.DataFrame({
        "1R P@10": one["mean"], "ci_low": one["ci_low"], "ci_high": one["ci_high"],
        "closed-form lower": table["closed-form lower"], "closed-form upper": table["closed-form upper"],
        "exact expectation": pd.Series({"Popularity": study.expected_popularity, "Random": 1 / study.target_size}),
        "lemma lower": table["lemma lower"], "first split": table["1R P@10 (ties by code)"],
        "lemma upper": table["lemma upper"],
    }).reindex(table.index)
    out["lemma holds"] = (out["lemma lower"] <= out["first split"]) & (out["first split"] <= out["lemma upper"])
    out["position"] = np.select([out["ci_low"] > out["closed-form upper"], out["ci_high"] < out["closed-form lower"]],
                                [ABOVE, BELOW], INSIDE)
    return out.reset_index()


def relative_interval(row: pd.Series, confidence: float, *, over_a: bool = False) -> tuple[float, float]:
    """The paired t interval of ``a - b`` over ``b``'s mean at ``confidence``, from a compare row; with ``over_a``,
    of ``b - a`` over ``a``'s mean (``b`` relative to ``a``)."""
    se = abs(row["difference"] / row["t_statistic"]) if row["t_statistic"] else 0.0
    half = se * stats.t.ppf((1 + confidence) / 2, row["users"] - 1)
    difference, mean = (-row["difference"], row["mean_a"]) if over_a else (row["difference"], row["mean_b"])
    return (difference - half) / mean, (difference + half) / mean

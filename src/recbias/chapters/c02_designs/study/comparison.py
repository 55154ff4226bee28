"""The preliminary comparison of designs (IRJ 2017 Sec. 3.3 and Fig. 2).

Two sets of systems, each fitted once per split (:func:`design_study`): **the papers' set**
(:data:`~recbias.recommenders.sets.PAPERS_SET`: random, popularity, pLSA and the rating predictors MF and user-kNN)
and **today's top-N set** (:data:`~recbias.recommenders.sets.TOP_N_SET`: implicit ALS and the unnormalised
user-kNN in place of the rating predictors), under the AI and TI AR designs and 1R TI-NN on coin-flip splits of
the page's dataset, and under AR TI-NN and 1R TI-NN on one split of a second dataset.  Means are the papers'
run average; intervals and paired tests take the user as the unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.bookkit.claims import LEVEL
from recbias.designs import build_runs
from recbias.evaluate import evaluate_runs, mean_confidence_interval
from recbias.evaluate.experiment import DesignChoice, Experiment, choose_designs, run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import PAPERS_SET, RATING_PREDICTORS, TOP_N_LEARNERS, TOP_N_SET
from recbias.splits import Fold, make_folds
from recbias.text import order_text

#: cut-off of P@n throughout, as in the papers
N = 10
#: the metrics measured on every run of the comparison
METRICS = ("P@10", "Recall@10", "nDCG@10", "MAP", "MRR")
#: the papers' threshold of a significant pair ("p << 0.001"), which their statement on every pair reads
ALPHA = 1e-3
#: the two sets of systems
PAPERS, TOP_N = "papers'", "today's top-N"
#: every system of the comparison: those of both sets, then the papers' MF and kNN, then today's
SYSTEMS = {label: preset for label, preset in PAPERS_SET.items() if label in TOP_N_SET} | PAPERS_SET | TOP_N_SET
#: set -> the labels of its systems
SETS = {PAPERS: tuple(PAPERS_SET), TOP_N: tuple(TOP_N_SET)}
#: which set a system belongs to (:func:`set_of`) -> how tables and legends name it
SET_NAMES = {"both": "both sets", PAPERS: "papers' set", TOP_N: "today's top-N set"}
#: set -> the labels of its MF and its user-kNN
ROLES = {PAPERS: RATING_PREDICTORS, TOP_N: tuple(TOP_N_LEARNERS)}


def set_of(system: str) -> str:
    """Which set a system belongs to: ``"both"`` for the baselines and pLSA, else :data:`PAPERS` or :data:`TOP_N`."""
    found = [name for name, members in SETS.items() if system in members]
    if not found:
        raise ValueError(f"{system!r} is in neither set of systems ({', '.join(SYSTEMS)})")
    return "both" if len(found) == len(SETS) else found[0]


@dataclass(frozen=True)
class RelevantWeight:
    """The ``users`` with a relevant test rating (those of AR precision), the tenth of them (at least one) with
    the most (``top_users``) and the ``share`` of those ratings they hold: their weight in 1R precision."""

    users: int
    top_users: int
    share: float


def relevant_weight(test: Ratings) -> RelevantWeight:
    """The weight in 1R precision of the tenth of users with the most relevant test ratings."""
    liked = test.values >= test.positive_threshold
    per_user = np.bincount(test.users[liked], minlength=test.n_users)
    per_user = np.sort(per_user[per_user > 0])[::-1]
    if len(per_user) == 0:
        raise ValueError(f"{test.name}: the test set holds no relevant rating")
    top = max(1, int(np.ceil(0.1 * len(per_user))))
    return RelevantWeight(len(per_user), top, float(per_user[:top].sum() / per_user.sum()))


def second_status(second: str, dataset: str) -> str:
    """Why the page runs no second dataset named ``second`` beside ``dataset``: ``"empty"`` (none named),
    ``"same"`` (the page's own), ``"unavailable"`` (not on this machine), or ``""`` when it runs it."""
    if not second:
        return "empty"
    if second == dataset:
        return "same"
    return "" if datasets.available(second) else "unavailable"


def second_split(ratings: Ratings) -> str:
    """The split of the second dataset: temporal when it has timestamps (as the papers' Last.fm), else a coin flip."""
    return "coin" if ratings.timestamps is None else "temporal"


def one_r_ceiling(train: Ratings, test: Ratings, design: str, *, n: int = N, seed: int = 0) -> float:
    """1R P@n of an oracle that scores every relevant item above every other: ``1/n`` on every run
    (one relevant item per target set, IRJ Sec. 3.2)."""
    runs = build_runs(train, test, design, seed=seed, on_shortage="exclude")
    if runs.n_runs == 0:
        raise ValueError(f"{design} leaves no run on {test.name}")
    return float(evaluate_runs(runs, runs.labels.astype(float), [f"P@{n}"])[f"P@{n}"].mean())


@dataclass
class DesignStudy:
    """The comparison on the page's dataset (``ratings``, its designs ``choice``, its ``folds``, the first of
    which also serves the lemma and the 1R ceiling, and the experiment ``main``) and on the ``second`` dataset if
    run (its split, :func:`second_split`, and its AR design), for every system of ``presets`` (label -> preset)."""

    ratings: Ratings
    choice: DesignChoice
    folds: list[Fold]
    main: Experiment
    second: Experiment | None
    second_split: str | None
    second_ar: str | None
    presets: dict[str, str]
    seed: int

    @property
    def systems(self) -> list[str]:
        """The systems' display labels: those of both sets, the papers' MF and kNN, then today's (:data:`SYSTEMS`)."""
        return list(self.presets)

    def members(self, among: str | None = None) -> list[str]:
        """The systems of one set (:data:`SETS`) that the study ran, or all of them (``among=None``)."""
        if among is not None and among not in SETS:
            raise ValueError(f"unknown set of systems {among!r}; choose one of {', '.join(SETS)}")
        return [s for s in self.systems if among is None or s in SETS[among]]

    @property
    def experiments(self) -> list[Experiment]:
        return [self.main] + ([self.second] if self.second is not None else [])

    @property
    def second_name(self) -> str | None:
        return None if self.second is None else str(self.second.runs["dataset"].iloc[0])

    @property
    def panels(self) -> list[tuple[str, str]]:
        """(dataset, design) in the order of the figures and tables."""
        return [(str(d), str(g)) for e in self.experiments for d in e.runs["dataset"].cat.categories
                for g in e.runs["design"].cat.categories]

    @cached_property
    def summary(self) -> pd.DataFrame:
        """P@10 per (dataset, design, system) in the order of :attr:`panels` and :attr:`systems`: the
        papers' run average, with 95% intervals clustered by user."""
        summary = pd.concat([e.summary(["P@10"]) for e in self.experiments], ignore_index=True)
        position = {panel: k for k, panel in enumerate(self.panels)}
        key = [position[(str(d), str(g))] * len(self.systems) + self.systems.index(str(s))
               for d, g, s in zip(summary["dataset"], summary["design"], summary["system"], strict=True)]
        return summary.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)

    @cached_property
    def means(self) -> pd.Series:
        return self.summary.set_index(["dataset", "design", "system"])["mean"].sort_index()

    @cached_property
    def comparisons(self) -> pd.DataFrame:
        """Paired tests (Wilcoxon signed-rank, t) of every two systems on P@10 per (dataset, design), the user
        as the unit."""
        return pd.concat([e.comparison("P@10", self.systems) for e in self.experiments], ignore_index=True)

    def set_comparisons(self, among: str) -> pd.DataFrame:
        """The rows of :attr:`comparisons` whose two systems both belong to the set ``among``."""
        members = self.members(among)
        return self.comparisons[self.comparisons["system_a"].isin(members)
                                & self.comparisons["system_b"].isin(members)].reset_index(drop=True)

    def tests(self, among: str) -> pd.DataFrame:
        """:func:`pair_tests` of the pairs within the set ``among``."""
        return pair_tests(self.set_comparisons(among))

    @cached_property
    def ceiling(self) -> float:
        """1R P@10 of a perfect ranking on the first split (:func:`one_r_ceiling`)."""
        fold = self.folds[0]
        return one_r_ceiling(fold.train, fold.test, self.choice.one_r, seed=self.seed)

    def measured(self, dataset: str, design: str, among: str | None = None) -> dict[str, float]:
        """Mean P@10 of every system (of the set ``among``) under one design, in the order of :attr:`systems`."""
        return {s: float(self.means.loc[(dataset, design, s)]) for s in self.members(among)}

    def order(self, dataset: str, design: str, among: str | None = None) -> list[str]:
        """Systems (of the set ``among``) from best to worst P@10 under one design."""
        values = self.measured(dataset, design, among)
        return sorted(values, key=lambda s: -values[s])

    def pair(self, dataset: str, design: str, first: str, second: str) -> tuple[float, float]:
        """Mean P@10 of ``first`` minus that of ``second`` under one design, and the Wilcoxon p-value of the pair."""
        tests = self.comparisons[(self.comparisons["dataset"] == dataset) & (self.comparisons["design"] == design)]
        forward = tests[(tests["system_a"] == first) & (tests["system_b"] == second)]
        backward = tests[(tests["system_a"] == second) & (tests["system_b"] == first)]
        if not len(forward) and not len(backward):
            raise ValueError(f"no paired test of {first!r} and {second!r} under {dataset} {design}")
        row, sign = (forward.iloc[0], 1.0) if len(forward) else (backward.iloc[0], -1.0)
        return sign * float(row["difference"]), float(row["wilcoxon_pvalue"])

    @cached_property
    def ai_ti(self) -> pd.DataFrame:
        """Each system's AI minus TI AR P@10 on the page's dataset (:func:`design_differences`)."""
        ai, ti = self.choice.ar
        return design_differences(self.main.runs, ai, ti, self.systems)

    @property
    def ai_ti_gap(self) -> float:
        """The largest difference in P@10 of one system between the AI and the TI AR design of the page's dataset."""
        return float(self.ai_ti["difference"].abs().max())

    @property
    def test_share(self) -> float:
        """The share of the page's dataset's ratings in test, over all its splits."""
        reports = self.main.reports
        return float(reports["test"].sum() / (reports["test"] + reports["train"]).sum())

    @property
    def untested_share(self) -> float:
        """The mean share of the catalogue without a test rating in a split: the items only AI can draw."""
        reports = self.main.reports[self.main.reports["design"] == self.choice.main_ar]
        return float(1 - reports["n_candidates"].mean() / self.ratings.n_items)

    def best_one_r(self) -> float:
        """The best mean 1R P@10 of the systems on the page's dataset."""
        return max(self.measured(self.ratings.name, self.choice.one_r).values())

    @property
    def one_r_runs(self) -> int:
        """The 1R runs of the page's dataset over all its splits."""
        return self._one_r.groupby(["fold", "run"]).ngroups

    @property
    def map_mrr_gap(self) -> float:
        """The largest ``|MAP - MRR|`` over the 1R runs of the page's dataset (zero: one relevant item per run)."""
        return float((self._one_r["MAP"] - self._one_r["MRR"]).abs().max())

    @property
    def _one_r(self) -> pd.DataFrame:
        return self.main.runs[self.main.runs["design"] == self.choice.one_r]

    def significant_pairs(self, among: str) -> tuple[int, int]:
        """Pairs of systems of the set ``among`` that differ at :data:`ALPHA`, and pairs tested, over every
        design and dataset."""
        tests = self.tests(among)
        return int(tests["significant"].sum()), int(tests["pairs"].sum())

    def spread(self, system: str) -> tuple[float, float]:
        """The lowest and the highest mean P@10 of ``system`` over the panels (designs and datasets)."""
        values = self.summary.loc[self.summary["system"] == system, "mean"]
        return float(values.min()), float(values.max())


def design_differences(runs: pd.DataFrame, first: str, second: str, systems: Sequence[str],
                       metric: str = "P@10", confidence: float = 0.95) -> pd.DataFrame:
    """Per system, the mean ``metric`` under design ``first`` minus that under ``second`` over the runs both
    designs give the same user in the same fold, with its 95% interval clustered by user
    (:func:`recbias.evaluate.mean_confidence_interval`): columns ``system``, ``difference``, ``ci_low``,
    ``ci_high``, ``users``.  Meant for AR designs (one run per user and fold)."""
    keys = ["fold", "user"]
    rows = []
    for system in systems:
        mine = runs[runs["system"] == system]
        a = mine[mine["design"] == first].set_index(keys)[metric]
        b = mine[mine["design"] == second].set_index(keys)[metric]
        if not (a.index.is_unique and b.index.is_unique):
            raise ValueError(f"{first} and {second} must give a user one run per fold to be paired by user")
        both = a.index.intersection(b.index)
        if not len(both):
            raise ValueError(f"{first} and {second} share no (fold, user) for {system}")
        difference = (a.loc[both] - b.loc[both]).to_numpy()
        users = both.get_level_values("user").to_numpy()
        mean, low, high = mean_confidence_interval(difference, confidence, clusters=users)
        rows.append({"system": system, "difference": mean, "ci_low": low, "ci_high": high,
                     "users": len(np.unique(users))})
    return pd.DataFrame(rows)


def reversals(comparisons: pd.DataFrame, dataset: str, first: str, second: str, *,
              level: float = LEVEL) -> pd.DataFrame:
    """Every pair of systems tested under both designs ``first`` and ``second`` of ``dataset`` (rows of
    :meth:`DesignStudy.comparisons`), with its difference and Wilcoxon p-value in each, and whether the two
    designs order it in opposite ways (``reversed``) or alike (``alike``), each beyond noise (``p < level``)."""
    here = comparisons[comparisons["dataset"] == dataset]
    keys = ["system_a", "system_b"]
    a = here[here["design"] == first].set_index(keys)[["difference", "wilcoxon_pvalue"]]
    b = here[here["design"] == second].set_index(keys)[["difference", "wilcoxon_pvalue"]]
    pairs = a.add_suffix("_first").join(b.add_suffix("_second"), how="inner").reset_index()
    decided = (pairs["wilcoxon_pvalue_first"] < level) & (pairs["wilcoxon_pvalue_second"] < level)
    product = np.sign(pairs["difference_first"]) * np.sign(pairs["difference_second"])
    pairs["reversed"], pairs["alike"] = decided & (product < 0), decided & (product > 0)
    return pairs


def pair_tests(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, design): pairs of systems that differ at :data:`ALPHA` (Wilcoxon signed-rank over
    users) and the pair hardest to tell apart (the largest p-value), with its difference and p-value."""
    rows = []
    for (dataset, design), tests in comparisons.groupby(["dataset", "design"], sort=False, observed=True):
        hardest = tests.loc[tests["wilcoxon_pvalue"].idxmax()]
        rows.append({
            "dataset": dataset, "design": design, "significant": int((tests["wilcoxon_pvalue"] < ALPHA).sum()),
            "pairs": len(tests), "closest pair": (hardest["system_a"], hardest["system_b"]),
            "difference": float(hardest["difference"]), "p": float(hardest["wilcoxon_pvalue"]),
        })
    return pd.DataFrame(rows)


def same_order_as_precision(table: pd.DataFrame) -> pd.DataFrame:
    """Per design (rows) of a table with columns ``design``, ``system`` and :data:`METRICS`, and per metric
    beyond P@10 (columns): whether the metric orders the systems exactly as P@10 does."""
    rows = {design: {m: order_text(dict(zip(part["system"], part[m], strict=True)))
                     == order_text(dict(zip(part["system"], part["P@10"], strict=True))) for m in METRICS[1:]}
            for design, part in table.groupby("design", sort=False, observed=True)}
    return pd.DataFrame.from_dict(rows, orient="index")


def design_study(
    ratings: Ratings,
    second: Ratings | None = None,
    *,
    folds: int = 5,
    test_ratio: float = 0.2,
    target_size: int = 100,
    second_nonrelevant: int = 2500,
    max_an_entries: int = 25_000_000,
    systems: Mapping[str, str] = SYSTEMS,
    seed: int = 0,
) -> DesignStudy:
    """The comparison of IRJ 2017 Sec. 3.3 and Fig. 2 for every system of ``systems``, each fitted once per
    split: on ``ratings``, ``folds`` coin-flip splits, the AR designs of :func:`choose_designs` and 1R TI-NN with
    target sets of ``target_size`` items, every metric of :data:`METRICS`; on ``second`` (when given), one split
    (:func:`second_split`), AR TI-NN(``second_nonrelevant``) and the same 1R design, P@10."""
    choice = choose_designs(ratings, target_size=target_size, max_an_entries=max_an_entries,
                            n_nonrelevant=second_nonrelevant)
    if second is not None and second_nonrelevant >= second.n_items:
        raise ValueError(f"second_nonrelevant = {second_nonrelevant} leaves no run on {second.name}, which has "
                         f"{second.n_items:,} items: choose fewer non-relevant items")
    fold_list = make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed)
    main = run_experiment(ratings, choice.designs, systems, folds=fold_list, metrics=METRICS, seed=seed)
    other, split, second_ar = None, None, None
    if second is not None:
        split, second_ar = second_split(second), f"TI-NN({second_nonrelevant})"
        other = run_experiment(second, [second_ar, choice.one_r], systems, folds=1, split=split,
                               test_ratio=test_ratio, metrics=["P@10"], seed=seed)
    return DesignStudy(ratings, choice, fold_list, main, other, split, second_ar, dict(systems), seed)

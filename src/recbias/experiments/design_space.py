"""Chapter 2 ("Experimental design alternatives"): the preliminary comparison of designs.

An offline ranking evaluation ranks a *target set* of items per user, and three
choices fix it (IRJ 2017 Sec. 3, Table 3; Bellogín 2012 Sec. 4.3): candidates from
all items or from test items (AI/TI), all non-relevant candidates or a sample
(AN/NN), and one set per user or one per relevant rating (AR/1R).  This module runs
the comparison of IRJ Sec. 3.3 and Fig. 2 (:func:`design_study`): the papers' five
systems under AI/TI AR designs and 1R TI-NN on coin-flip splits of the page's
dataset, and under AR TI-NN and 1R TI-NN on one split of a second dataset; it gives
the comparison's tables (sizes, precision, paired tests, metrics beyond P@10) and
the weight of heavy users in 1R precision.

The chapter's other modules build on its :class:`DesignStudy`:
:mod:`~recbias.experiments.design_toy` (the toy matrix of IRJ Fig. 1),
:mod:`~recbias.experiments.design_claims` (the papers' statements and numbers),
:mod:`~recbias.experiments.design_lemma` (the lemma tying 1R to AR precision, IRJ
Eq. 2 and Fig. 3) and :mod:`~recbias.experiments.design_truth` (each design's
order of systems against the true order on a simulated world).

Means are the papers' run average; intervals and paired tests use the user as the
independent unit (:meth:`recbias.evaluate.experiment.Experiment.summary` and
``comparison``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.cache import recommender_params
from recbias.designs import build_runs
from recbias.evaluate import evaluate_runs
from recbias.evaluate.experiment import PAPER_SYSTEMS, DesignChoice, Experiment, choose_designs, run_experiment
from recbias.splits import Fold, make_folds
from recbias.ratings import Ratings
from recbias.recommenders import make
from recbias.text import fmt_number, fmt_p_html, fmt_pct, fmt_signed, order_text

#: cut-off of P@n throughout, as in the papers
N = 10
#: the metrics measured on every run of the comparison
METRICS = ("P@10", "Recall@10", "nDCG@10", "MAP", "MRR")
#: where the papers state what the comparison checks
SOURCE = "IRJ 2017 Sec. 3.3, Fig. 2"
#: significance level of the pairwise tests, as in the papers ("p << 0.001")
ALPHA = 1e-3
#: the personalised systems among the papers' five
PERSONALISED = ("pLSA", "MF", "user-kNN")


# ---------------------------------------------------------------- the weights of 1R


@dataclass(frozen=True)
class RelevantWeight:
    """How the relevant test ratings of a split are spread over users.

    Attributes:
        users: users with at least one relevant test rating (the users of AR precision).
        top_users: the tenth of them (at least one) with the most relevant test ratings.
        share: the share of all relevant test ratings those users hold, i.e. their
            weight in 1R precision (IRJ Eq. 1), against ``top_users / users`` in AR.
    """

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


def weight_text(weight: RelevantWeight, dataset: str) -> str:
    """The sentence that reads :func:`relevant_weight` on the first split of ``dataset``."""
    share_of_users = fmt_pct(weight.top_users / weight.users, 0)
    who = ("The user with the most relevant test items" if weight.top_users == 1 else
           f"The {weight.top_users:,} users with the most relevant test items")
    return (
        f"On the first split of *{dataset}*, {weight.users:,} user{'s have' if weight.users > 1 else ' has'} at least "
        f"one relevant test item. {who} ({share_of_users} of them) hold{'s' if weight.top_users == 1 else ''} "
        f"{fmt_pct(weight.share, 0)} of all relevant test ratings: that is their weight in 1R precision, against "
        f"{share_of_users} in AR precision."
    )


# ----------------------------------------------------------------------- the designs


def second_split(ratings: Ratings) -> str:
    """The split of the second dataset: temporal when it has timestamps (as the papers' Last.fm), else a coin flip."""
    return "coin" if ratings.timestamps is None else "temporal"


def why_not_second(second: str, dataset: str) -> str:
    """Why the second dataset is not run on this page, or "" when it is."""
    if not second:
        return "No second dataset was requested (`second_dataset` is empty)."
    if second == dataset:
        return f"The second dataset, *{second}*, is the chapter's own dataset: it is not repeated."
    if not datasets.available(second):
        return f"The second dataset, *{second}*, is not available on the machine that built this page."
    return ""


# ------------------------------------------------------------------- the comparison


@dataclass
class DesignStudy:
    """The preliminary comparison of IRJ 2017 Sec. 3.3 on this page's datasets.

    Attributes:
        ratings: the page's dataset.
        choice: its designs.
        folds: its coin-flip splits (the first also serves the lemma and the toy oracle).
        main: the experiment on ``ratings``.
        second: the experiment on the second dataset (AR TI-NN and 1R TI-NN on one split), if run.
        second_note: how the second dataset was split, or why it was not run.
        second_split: its split method (:func:`second_split`), None without it.
        second_ar: its AR design, ``TI-NN(second_nonrelevant)``, None without it.
        presets: display label -> preset of each system (:func:`recbias.recommenders.make`).
        seed: the seed of everything.
    """

    ratings: Ratings
    choice: DesignChoice
    folds: list[Fold]
    main: Experiment
    second: Experiment | None
    second_note: str
    second_split: str | None
    second_ar: str | None
    presets: dict[str, str]
    seed: int

    @property
    def systems(self) -> list[str]:
        """The systems' display labels, in the papers' order."""
        return list(self.presets)

    @property
    def experiments(self) -> list[Experiment]:
        return [self.main] + ([self.second] if self.second is not None else [])

    @property
    def second_name(self) -> str | None:
        return None if self.second is None else str(self.second.runs["dataset"].iloc[0])

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
    def tests(self) -> pd.DataFrame:
        """:func:`pair_tests` of the study."""
        return pair_tests(self)

    @cached_property
    def ceiling(self) -> float:
        """1R P@10 of a perfect ranking on the first split (:func:`one_r_ceiling`)."""
        fold = self.folds[0]
        return one_r_ceiling(fold.train, fold.test, self.choice.one_r, seed=self.seed)

    @cached_property
    def means(self) -> pd.Series:
        return self.summary.set_index(["dataset", "design", "system"])["mean"].sort_index()

    @property
    def panels(self) -> list[tuple[str, str]]:
        """(dataset, design) in the order of the figures and tables."""
        return [(str(d), str(g)) for e in self.experiments for d in e.runs["dataset"].cat.categories
                for g in e.runs["design"].cat.categories]

    def measured(self, dataset: str, design: str) -> dict[str, float]:
        """Mean P@10 of every system under one design, in the order of :attr:`systems`."""
        return {s: float(self.means.loc[(dataset, design, s)]) for s in self.systems}

    def order(self, dataset: str, design: str) -> list[str]:
        """Systems from best to worst P@10 under one design."""
        values = self.measured(dataset, design)
        return sorted(values, key=lambda s: -values[s])


def design_study(
    ratings: Ratings,
    second: Ratings | None = None,
    *,
    folds: int = 5,
    test_ratio: float = 0.2,
    target_size: int = 100,
    second_nonrelevant: int = 2500,
    max_an_entries: int = 25_000_000,
    second_note: str = "",
    systems: Mapping[str, str] = PAPER_SYSTEMS,
    seed: int = 0,
) -> DesignStudy:
    """The comparison of IRJ 2017 Sec. 3.3 and Fig. 2.

    On ``ratings``: ``folds`` coin-flip splits, the AR designs of :func:`choose_designs` and
    1R TI-NN with target sets of ``target_size`` items, every metric of :data:`METRICS`.  On
    ``second`` (when given): one split (:func:`second_split`), AR TI-NN(``second_nonrelevant``)
    and the same 1R design, P@10.  ``second_note`` says why no second dataset is given.
    """
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
        second_note = f"The second dataset, *{second.name}*, was split once " + (
            "by time (the most recent ratings in test), as the papers did on Last.fm." if split == "temporal" else
            "by a coin flip per rating: it has no timestamps, so the temporal split of the papers cannot be "
            "reproduced on it.")
    return DesignStudy(ratings, choice, fold_list, main, other, second_note, split, second_ar, dict(systems), seed)


#: recommender class -> what the model is, in words
_MODELS = {
    "Popularity": "number of training ratings of the item, the same for every user",
    "PLSA": "probabilistic latent semantic analysis fitted by EM (Hofmann 2004)",
    "ALS": "matrix factorisation for implicit feedback, alternating least squares (Hu et al. 2008)",
    "UserKNN": "user-based nearest neighbours, cosine similarity (Cremonesi et al. 2010)",
    "Random": "scores drawn uniformly at random",
}
#: parameter of a recommender -> how the settings table words it (parameters not listed are left out)
_SETTING_WORDS = {
    "n_aspects": lambda v: f"{v} aspects",
    "factors": lambda v: f"{v} factors",
    "k": lambda v: f"{v} neighbours",
    "iterations": lambda v: f"{v} iterations",
    "regularization": lambda v: f"regularisation {v:g}",
    "alpha": lambda v: f"confidence weight {v:g}",
    "beta": lambda v: f"tempering {v:g}",
    "tol": lambda v: f"tolerance {v:g}",
    "feedback": lambda v: "rating values as input" if v == "values" else f"{v} input",
    "positive_only": lambda v: "positive ratings only" if v else "every rating counts",
}


def system_settings(systems: Mapping[str, str] = PAPER_SYSTEMS, seed: int = 0) -> pd.DataFrame:
    """The systems of the comparison: what each model is and its settings, in words."""
    rows = []
    for label, preset in systems.items():
        recommender = make(preset, seed=seed)
        settings = [_SETTING_WORDS[k](v) for k, v in recommender_params(recommender).items() if k in _SETTING_WORDS]
        rows.append({"system": label, "model": _MODELS.get(type(recommender).__name__, type(recommender).__name__),
                     "settings": ", ".join(settings) or "–"})
    return pd.DataFrame(rows)


def size_table(study: DesignStudy) -> pd.DataFrame:
    """Size of the evaluation per dataset and design, means over splits: runs (users in AR, relevant test
    ratings in 1R), their users, the candidate items, the items ranked by each system in all (``items
    ranked``) and the runs left out over all splits because a user had too few candidates."""
    reports = pd.concat([e.reports for e in study.experiments], ignore_index=True)
    return (
        reports.groupby(["dataset", "design"], sort=False)
        .agg(splits=("fold", "nunique"), runs=("n_runs", "mean"), users=("n_users", "mean"),
             candidates=("n_candidates", "mean"), entries=("candidates", "mean"), excluded=("shortage_runs", "sum"))
        .reset_index()
        .rename(columns={"candidates": "candidate items", "entries": "items ranked", "excluded": "runs left out"})
    )


def precision_table(study: DesignStudy) -> pd.DataFrame:
    """Mean P@10 with the half-width of its 95% interval per (dataset, design) and system (cells as HTML)."""
    s = study.summary
    cells = s.assign(cell=[f"{fmt_number(m, 4)}<br><small>± {fmt_number((h - lo) / 2, 4)}</small>"
                           for m, lo, h in zip(s["mean"], s["ci_low"], s["ci_high"], strict=True)])
    wide = cells.pivot_table(index=["dataset", "design"], columns="system", values="cell", aggfunc="first",
                             observed=True, sort=False)
    wide = wide.reindex(columns=study.systems).reindex(pd.MultiIndex.from_tuples(study.panels))
    return wide.rename_axis(["dataset", "design"]).rename_axis(columns=None).reset_index()


def pair_tests(study: DesignStudy) -> pd.DataFrame:
    """Per (dataset, design): pairs of systems that differ at :data:`ALPHA` (Wilcoxon signed-rank over
    users) and the pair hardest to tell apart."""
    rows = []
    for experiment in study.experiments:
        comparison = experiment.comparison("P@10", study.systems)
        for (dataset, design), tests in comparison.groupby(["dataset", "design"], sort=False, observed=True):
            hardest = tests.loc[tests["wilcoxon_pvalue"].idxmax()]
            rows.append({
                "dataset": dataset, "design": design, "significant": int((tests["wilcoxon_pvalue"] < ALPHA).sum()),
                "pairs": len(tests), "closest pair": f"{hardest['system_a']} vs {hardest['system_b']}",
                "difference": float(hardest["difference"]), "p": float(hardest["wilcoxon_pvalue"]),
            })
    return pd.DataFrame(rows)


def significance_table(study: DesignStudy) -> pd.DataFrame:
    """:func:`pair_tests` as the page shows it: significant pairs per design, and the closest pair with its
    difference (first minus second system) and p-value."""
    tests = study.tests
    return pd.DataFrame({
        "dataset": tests["dataset"], "design": tests["design"],
        "pairs with p < 0.001": [f"{k} of {n}" for k, n in zip(tests["significant"], tests["pairs"], strict=True)],
        "closest pair": tests["closest pair"],
        f"difference in P@{N}": [fmt_signed(d, 4).replace("-", "\u2212") for d in tests["difference"]],
        "p-value": [fmt_p_html(p) for p in tests["p"]],
    })


def one_r_ceiling(train: Ratings, test: Ratings, design: str, *, n: int = N, seed: int = 0) -> float:
    """1R P@n of an oracle that scores every relevant item above every other: ``1/n`` on every run
    (one relevant item per target set, IRJ Sec. 3.2)."""
    runs = build_runs(train, test, design, seed=seed, on_shortage="exclude")
    if runs.n_runs == 0:
        raise ValueError(f"{design} leaves no run on {test.name}")
    return float(evaluate_runs(runs, runs.labels.astype(float), [f"P@{n}"])[f"P@{n}"].mean())


# -------------------------------------------------------------- metrics beyond P@10


def metric_table(study: DesignStudy) -> pd.DataFrame:
    """Mean of every metric per system under the main AR and the 1R design of the page's dataset."""
    designs = [study.choice.main_ar, study.choice.one_r]
    summary = study.main.summary(list(METRICS))
    summary = summary[summary["design"].isin(designs)]
    table = summary.pivot_table(index=["design", "system"], columns="metric", values="mean", observed=True, sort=False)
    table = table.reindex([(d, s) for d in designs for s in study.systems])[list(METRICS)]
    return table.rename_axis(columns=None).reset_index()


def sentences(study: DesignStudy) -> dict[str, str]:
    """The numbers the prose quotes: the 1R runs of the page's dataset over all splits, the largest
    |MAP - MRR| over them and a clause that reads it (``map_mrr``), and the pairs of systems that differ
    at :data:`ALPHA` over every design and dataset."""
    runs = study.main.runs[study.main.runs["design"] == study.choice.one_r]
    gap = float((runs["MAP"] - runs["MRR"]).abs().max())
    count, splits = f"{runs.groupby(['fold', 'run']).ngroups:,}", len(study.folds)
    where = f"{count} 1R runs of the {splits} splits" if splits > 1 else f"{count} 1R runs of the split"
    tests = study.tests
    return {"runs_1r": count, "map_mrr_gap": f"{gap:.1e}" if gap else "0",
            "map_mrr": (f"the two are equal on every one of the {where}" if gap == 0 else
                        f"over the {where} they differ by at most {gap:.1e}, a rounding error" if gap < 1e-9 else
                        f"yet over the {where} they differ by up to {gap:.1e}, which calls for a look at the metrics"),
            "pairs_significant": f"{tests['significant'].sum()} of {tests['pairs'].sum()}"}


def metric_orders_text(study: DesignStudy) -> str:
    """Whether, within each design of :func:`metric_table`, every metric orders the systems as P@10 does."""
    table = metric_table(study).set_index(["design", "system"])
    disagree = []
    for design, part in table.groupby(level="design", sort=False):
        values = part.droplevel("design")
        reference = order_text(values["P@10"].to_dict())
        disagree += [f"{m} under {design}" for m in METRICS[1:] if order_text(values[m].to_dict()) != reference]
    cases = 2 * (len(METRICS) - 1)
    if not disagree:
        return "Within each design, every other metric of the table orders the systems as P@10 does."
    if len(disagree) == cases:
        return "Within each design, no other metric of the table orders the systems exactly as P@10 does."
    return (f"Within each design, {cases - len(disagree)} of the {cases} other metric columns order the systems "
            f"as P@10 does; the exceptions are {', '.join(disagree)}.")

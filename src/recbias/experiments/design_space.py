"""Chapter 2 ("Experimental design alternatives"): target sets, AR and 1R precision, and their lemma.

An offline ranking evaluation ranks a *target set* of items per user, and three
choices fix it (IRJ 2017 Sec. 3, Table 3; Bellogín 2012 Sec. 4.3): candidates from
all items or from test items (AI/TI), all non-relevant candidates or a sample
(AN/NN), and one set per user or one per relevant rating (AR/1R).  This driver
holds the chapter's experiments:

* the toy matrix of IRJ Fig. 1 and the target sets each design gives its user
  ``u`` (:func:`toy_target_sets`, :func:`toy_figure`);
* the preliminary comparison of IRJ Sec. 3.3 and Fig. 2 (:func:`design_study`): the
  papers' five systems under AI/TI AR designs and 1R TI-NN on coin-flip splits of the
  page's dataset, and under AR TI-NN and 1R TI-NN on one split of a second dataset,
  with its tables, sentences, published numbers (``published/design_space.csv``) and
  findings;
* the lemma that ties 1R to AR precision (IRJ Eq. 2, Fig. 3) along two sweeps
  (:func:`lemma_sweep`, :func:`band_summary`);
* on a simulated world, each design's order of systems against the order of their
  true precision (:func:`truth_check`).

Means and intervals use the user as the independent unit
(:meth:`recbias.experiments.runner.Experiment.summary` and ``comparison``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from recbias import datasets
from recbias import splits as splitting
from recbias.cache import recommender_params
from recbias.designs import build_runs
from recbias.evaluate import Candidates, discordant_pairs, evaluate_runs, order_agreement, true_quality
from recbias.experiments.runner import PAPER_SYSTEMS, Experiment, Fold, fit_systems, fold_seed, make_folds, run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import Recommender, make
from recbias.runs import Runs
from recbias.text import fmt_number, fmt_p, fmt_pct, ordinal, order_text
from recbias.theory import lemma_bounds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "GROWTH",
    "METRICS",
    "N",
    "REMOVAL",
    "SOURCE",
    "TOY_DESIGNS",
    "TOY_ITEMS",
    "TOY_TEST",
    "TOY_TRAIN",
    "TOY_USERS",
    "Check",
    "DesignChoice",
    "DesignStudy",
    "RelevantWeight",
    "ToyTargetSet",
    "TruthCheck",
    "an_entries",
    "band_summary",
    "band_text",
    "checks",
    "choose_designs",
    "design_note",
    "design_study",
    "differences_text",
    "fig1_toy",
    "findings",
    "found_text",
    "lemma_finding",
    "lemma_points",
    "lemma_sweep",
    "lemma_table",
    "metric_orders_text",
    "metric_table",
    "one_r_ceiling",
    "orders_table",
    "pair_tests",
    "paper_table",
    "precision_table",
    "published",
    "published_numbers",
    "range_text",
    "relevant_weight",
    "second_split",
    "sentences",
    "significance_table",
    "size_table",
    "system_settings",
    "toy_figure",
    "toy_target_sets",
    "truth_check",
    "truth_text",
    "weight_text",
    "why_not_second",
]

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


# ----------------------------------------------------------------------- toy (Fig. 1)

#: users and items of the toy matrix; the target user is ``u``
TOY_USERS = ("u", "v", "w")
TOY_ITEMS = ("a", "b", "c", "d", "e", "f", "g")
#: (user, item, stars); positive means 4 stars or more
TOY_TRAIN = (("u", "f", 5), ("u", "g", 2), ("v", "a", 5), ("v", "d", 2), ("w", "a", 5), ("w", "e", 5))
TOY_TEST = (("u", "d", 5), ("u", "e", 4), ("v", "b", 2), ("v", "f", 5), ("w", "c", 5), ("w", "g", 1))
#: the designs whose target sets the toy figure shows
TOY_DESIGNS = ("AI-AN", "TI-AN", "AI-NN(1)", "TI-NN(1)", "1R AI-NN(1)", "1R TI-NN(1)")


def fig1_toy() -> tuple[Ratings, Ratings]:
    """Training and test ratings of a toy matrix with the properties of IRJ 2017 Fig. 1.

    User ``u`` liked ``d`` and ``e`` in the test set and rated ``f`` and ``g`` in training;
    item ``a`` has no test rating (so it is a candidate under AI only); ``b`` and ``c`` are
    test items of other users that ``u`` never rated.  Ratings of 4 or 5 stars are positive.
    """

    def build(rows: Sequence[tuple[str, str, int]]) -> Ratings:
        return Ratings(
            name="Fig. 1 toy",
            users=np.array([TOY_USERS.index(u) for u, _, _ in rows]),
            items=np.array([TOY_ITEMS.index(i) for _, i, _ in rows]),
            values=np.array([v for _, _, v in rows], dtype=float),
            timestamps=None,
            user_ids=np.array(TOY_USERS),
            item_ids=np.array(TOY_ITEMS),
            scale=(1, 5),
            positive_threshold=4,
            description="hand-made stars",
        )

    return build(TOY_TRAIN), build(TOY_TEST)


@dataclass(frozen=True)
class ToyTargetSet:
    """One target set of user ``u`` in the toy matrix.

    Attributes:
        label: the design, with the relevant item's index for a 1R set (``"1R TI-NN(1): $T_u^1$"``).
        items: item codes in the set.
        relevant: the relevant items among them.
    """

    label: str
    items: frozenset[int]
    relevant: frozenset[int]

    @property
    def letters(self) -> str:
        """The items as the prose names them, e.g. ``"{b, c, d, e}"``."""
        return "{" + ", ".join(TOY_ITEMS[i] for i in sorted(self.items)) + "}"


def toy_target_sets(seed: int = 0, designs: Sequence[str] = TOY_DESIGNS) -> list[ToyTargetSet]:
    """The target sets of user ``u`` under each design, built by :func:`recbias.designs.build_runs`."""
    train, test = fig1_toy()
    u = TOY_USERS.index("u")
    sets = []
    for name in designs:
        runs = build_runs(train, test, name, seed=seed)
        for r, k in enumerate(np.flatnonzero(runs.users == u), start=1):
            block = slice(runs.offsets[k], runs.offsets[k + 1])
            label = f"{name}: $T_u^{r}$" if name.startswith("1R") else name
            sets.append(ToyTargetSet(label, frozenset(runs.items[block].tolist()),
                                     frozenset(runs.items[block][runs.labels[block]].tolist())))
    return sets


_RELEVANT, _NONRELEVANT, _TRAINED = "#1a7f37", "#8fb8de", "#dddddd"


def toy_figure(target_sets: Sequence[ToyTargetSet]) -> Figure:
    """The toy matrix (stars, positive ones green, test ones circled) beside the target sets of ``u``."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    train, test = fig1_toy()
    fig, (ax_m, ax_t) = plt.subplots(1, 2, figsize=(8.2, 4.8), gridspec_kw={"width_ratios": [1, 1.3]})
    for frame, held_out in ((train, False), (test, True)):
        for user, item, value in zip(frame.users, frame.items, frame.values, strict=True):
            positive = value >= frame.positive_threshold
            ax_m.text(item, user, f"{value:g}", ha="center", va="center", fontsize=14,
                      color=_RELEVANT if positive else "#b42318", fontweight="bold" if positive else "normal")
            if held_out:
                ax_m.scatter(item, user, s=560, facecolors="none", edgecolors="#333333", linewidths=1.2)
    ax_m.set_ylim(len(TOY_USERS) - 0.5, -0.5)
    ax_m.set_yticks(range(len(TOY_USERS)), TOY_USERS)
    ax_m.set_ylabel("user")
    ax_m.set_title("stars (green: positive; circled: test)", fontsize=11, loc="left")

    trained = set(train.items[train.users == TOY_USERS.index("u")].tolist())
    for row, target in enumerate(target_sets):
        for item in range(len(TOY_ITEMS)):
            colour, text = (
                (_RELEVANT, "rel") if item in target.relevant
                else (_NONRELEVANT, "non") if item in target.items
                else (_TRAINED, "train") if item in trained
                else ("white", "")
            )
            ax_t.add_patch(Rectangle((item - 0.45, row - 0.4), 0.9, 0.8, color=colour))
            ax_t.text(item, row, text, ha="center", va="center", fontsize=10,
                      color="white" if colour == _RELEVANT else "#222222")
    ax_t.set_ylim(len(target_sets) - 0.5, -0.5)
    ax_t.set_yticks(range(len(target_sets)), [t.label for t in target_sets])
    ax_t.set_title("target sets of user u", fontsize=11, loc="left")
    for ax in (ax_m, ax_t):
        ax.set_xlim(-0.5, len(TOY_ITEMS) - 0.5)
        ax.set_xticks(range(len(TOY_ITEMS)), TOY_ITEMS)
        ax.set_xlabel("item")
        ax.grid(False)
    fig.legend(
        handles=[Patch(color=_RELEVANT, label="relevant, in the target set"),
                 Patch(color=_NONRELEVANT, label="non-relevant, in the target set"),
                 Patch(color=_TRAINED, label="u's training item (never a target)")],
        loc="lower center", ncol=3, fontsize=9.5, bbox_to_anchor=(0.5, 0.0),
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


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


@dataclass(frozen=True)
class DesignChoice:
    """The designs of the comparison on one dataset.

    Attributes:
        target_size: ``|T_u^r|`` of the 1R design.
        n_nonrelevant: ``|N_u|`` of the AR designs when they sample (NN).
        an_entries: target entries the AN designs would hold (users with a liked item x items).
        max_an_entries: the limit above which AN gives way to NN.
    """

    target_size: int
    n_nonrelevant: int
    an_entries: int
    max_an_entries: int

    @property
    def sampled(self) -> bool:
        """Whether the AR designs sample their non-relevant items (NN) instead of taking all (AN)."""
        return self.an_entries > self.max_an_entries

    @property
    def ar(self) -> tuple[str, str]:
        """The AI and TI versions of the AR design: AN, or NN(``n_nonrelevant``) above ``max_an_entries``."""
        return (f"AI-NN({self.n_nonrelevant})", f"TI-NN({self.n_nonrelevant})") if self.sampled else ("AI-AN", "TI-AN")

    @property
    def one_r(self) -> str:
        """The 1R design, ``1R TI-NN(target_size - 1)``."""
        return f"1R TI-NN({self.target_size - 1})"

    @property
    def main_ar(self) -> str:
        """The AR design the chapter reads first: the TI version."""
        return self.ar[1]

    @property
    def designs(self) -> list[str]:
        return [*self.ar, self.one_r]


def an_entries(ratings: Ratings) -> int:
    """Target entries of an AN design, approximately: users with a liked item times the catalogue."""
    users = np.count_nonzero(np.bincount(ratings.users[ratings.positive], minlength=ratings.n_users))
    return int(users) * ratings.n_items


def choose_designs(ratings: Ratings, *, target_size: int, max_an_entries: int, n_nonrelevant: int) -> DesignChoice:
    """AI-AN and TI-AN, or AI-NN(``n_nonrelevant``) and TI-NN(``n_nonrelevant``) when the AN target sets
    would hold more than ``max_an_entries`` items (as the papers did on Last.fm); 1R TI-NN(``target_size - 1``)."""
    if target_size < 2:
        raise ValueError(f"target_size must be at least 2 (one relevant and one non-relevant item), got {target_size}")
    for name, value in (("max_an_entries", max_an_entries), ("n_nonrelevant", n_nonrelevant)):
        if value < 1:
            raise ValueError(f"{name} must be positive, got {value}")
    entries = an_entries(ratings)
    if target_size > ratings.n_items:
        raise ValueError(f"target_size = {target_size} exceeds the {ratings.n_items:,} items of {ratings.name}")
    if entries > max_an_entries and n_nonrelevant >= ratings.n_items:
        raise ValueError(f"the AN designs of {ratings.name} would exceed max_an_entries, and NN({n_nonrelevant}) "
                         f"needs more non-relevant items than its {ratings.n_items:,} items: lower the sample size")
    return DesignChoice(int(target_size), int(n_nonrelevant), entries, int(max_an_entries))


def design_note(choice: DesignChoice, ratings: Ratings) -> str:
    """Why the AR designs sample their non-relevant items, or "" when they take all of them."""
    if not choice.sampled:
        return ""
    return (
        f"*{ratings.name}* has {ratings.n_items:,} items: the AN target sets would hold about {choice.an_entries:,} "
        f"items, above `max_an_entries` = {choice.max_an_entries:,}. As the papers did on Last.fm, the AR designs "
        f"sample {choice.n_nonrelevant:,} non-relevant items per user instead (AI-NN and TI-NN)."
    )


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
    """Size of the evaluation per dataset and design, means over splits: runs are users in AR and
    relevant test ratings in 1R."""
    reports = pd.concat([e.reports for e in study.experiments], ignore_index=True)
    return (
        reports.groupby(["dataset", "design"], sort=False)
        .agg(splits=("fold", "nunique"), runs=("n_runs", "mean"), users=("n_users", "mean"),
             candidates=("n_candidates", "mean"), entries=("candidates", "mean"), excluded=("shortage_runs", "sum"))
        .reset_index()
        .rename(columns={"candidates": "candidate items", "entries": "target entries",
                         "excluded": "runs left out (too few candidates)"})
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
    """:func:`pair_tests` as the page shows it."""
    tests = study.tests
    return pd.DataFrame({
        "dataset": tests["dataset"], "design": tests["design"],
        "pairs with p < 0.001": [f"{k} of {n}" for k, n in zip(tests["significant"], tests["pairs"], strict=True)],
        "closest pair": tests["closest pair"],
        "its P@10 difference": [f"{d:+.4f}" for d in tests["difference"]],
        "its p-value": [fmt_p(p) for p in tests["p"]],
    })


def one_r_ceiling(train: Ratings, test: Ratings, design: str, *, n: int = N, seed: int = 0) -> float:
    """1R P@n of an oracle that scores every relevant item above every other: ``1/n`` on every run
    (one relevant item per target set, IRJ Sec. 3.2)."""
    runs = build_runs(train, test, design, seed=seed, on_shortage="exclude")
    if runs.n_runs == 0:
        raise ValueError(f"{design} leaves no run on {test.name}")
    return float(evaluate_runs(runs, runs.labels.astype(float), [f"P@{n}"])[f"P@{n}"].mean())


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


@dataclass(frozen=True)
class Check:
    """A statement of the papers about the comparison, checked on this build.

    Attributes:
        key: scorecard key.
        statement: the statement in a few words, as the comparison table shows it.
        label: the statement in full, as the scorecard shows it.
        paper: what the papers found; ours: what we found.
        holds: whether ours bears the statement out.
        evidence: the numbers behind the verdict.
        dataset: our dataset; paper_dataset: the papers'.
    """

    key: str
    statement: str
    label: str
    paper: str
    ours: str
    holds: bool
    evidence: str
    dataset: str
    paper_dataset: str


def checks(study: DesignStudy) -> list[Check]:
    """The papers' statements about the comparison (IRJ 2017 Sec. 3.3) on this build's datasets."""
    here, ar, one_r = study.ratings.name, study.choice.main_ar, study.choice.one_r
    ar_order, one_r_order = study.order(here, ar), study.order(here, one_r)
    ar_p, one_r_p = study.measured(here, ar), study.measured(here, one_r)
    place = ar_order.index("Popularity") + 1
    gap = max(abs(study.measured(here, study.choice.ar[0])[s] - ar_p[s]) for s in study.systems)
    tests = study.tests[study.tests["dataset"] == here]
    significant, pairs = int(tests["significant"].sum()), int(tests["pairs"].sum())

    def mf_above_knn(design: str, values: dict[str, float], order: list[str]) -> Check:
        above = order.index("MF") < order.index("user-kNN")
        return Check(f"fig2/{design}/MF-above-kNN", f"MF above kNN, {design}", f"MF beats user-kNN under {design}",
                     "yes", _yes(above), above,
                     f"{design} P@10: MF {fmt_number(values['MF'], 4)}, user-kNN {fmt_number(values['user-kNN'], 4)}",
                     here, "ml-1m")

    found = [
        Check("fig2/AR/pLSA-first", "best system, AR", "pLSA has the best AR precision of the five systems", "pLSA",
              ar_order[0], ar_order[0] == "pLSA", f"AR {ar} order: {' > '.join(ar_order)}", here, "ml-1m"),
        Check("fig2/1R/pLSA-first", "best system, 1R", "pLSA has the best 1R precision of the five systems", "pLSA",
              one_r_order[0], one_r_order[0] == "pLSA", f"1R order: {' > '.join(one_r_order)}", here, "ml-1m"),
        Check("fig2/AR/Popularity-second", "Popularity's place, AR",
              "Popularity comes second under AR, ahead of two personalised systems", ordinal(2), ordinal(place),
              place == 2, f"Popularity is {ordinal(place)} under AR", here, "ml-1m"),
        mf_above_knn("AR", ar_p, ar_order),
        mf_above_knn("1R", one_r_p, one_r_order),
        Check("fig2/AI-TI-alike", f"largest |{study.choice.ar[0]} − {ar}| gap in P@10",
              "AI and TI candidate sets give almost the same AR precision (gap below 0.01)", "almost none",
              fmt_number(gap, 4), gap < 0.01, f"largest |{study.choice.ar[0]} - {ar}| P@10 gap: {fmt_number(gap, 4)}",
              here, "ml-1m"),
        Check("fig2/all-pairs-significant", "pairs of systems with p < 0.001",
              "every pair of systems differs with Wilcoxon p < 0.001 in every design", "all",
              f"{significant} of {pairs}", significant == pairs, f"{significant} of {pairs} pairs", here, "ml-1m"),
    ]
    if study.second is not None:
        other, second_ar = study.second_name, study.second_ar
        other_ar, other_1r = study.order(other, second_ar), study.order(other, one_r)
        found += [
            Check("fig2/AR-lastfm/Popularity-first", "best system, AR (Last.fm)",
                  "on Last.fm, Popularity has the best AR precision", "Popularity", other_ar[0],
                  other_ar[0] == "Popularity", f"AR {second_ar} order: {' > '.join(other_ar)}", other, "lastfm-1k"),
            Check("fig2/lastfm/AR-1R-disagree", "AR and 1R order some systems differently (Last.fm)",
                  "on Last.fm, AR and 1R order some pairs of systems differently", "yes", _yes(other_ar != other_1r),
                  other_ar != other_1r, f"AR: {' > '.join(other_ar)}; 1R: {' > '.join(other_1r)}", other, "lastfm-1k"),
        ]
    return found


def findings(study: DesignStudy) -> list[dict]:
    """Arguments of :func:`recbias.bookkit.scorecard.finding` for each of :func:`checks`
    (``key``, ``label``, ``holds``, ``evidence``, ``dataset``)."""
    return [{"key": c.key, "label": c.label, "holds": bool(c.holds), "evidence": c.evidence, "dataset": c.dataset}
            for c in checks(study)]


def published() -> pd.DataFrame:
    """The published numbers this chapter recomputes (``published/design_space.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/design_space.csv").open() as handle:
        return pd.read_csv(handle, comment="#", keep_default_na=False)


def _ours(study: DesignStudy, row: pd.Series) -> tuple[float, str, str] | None:
    """Our value of a published number, the dataset it was computed on and the design; None when not run."""
    if row["measure"] == "ceiling":
        return study.ceiling, study.ratings.name, study.choice.one_r
    if row["on"] == "second" and study.second is None:
        return None
    dataset, design = ((study.ratings.name, study.choice.main_ar) if row["on"] == "main"
                       else (study.second_name, study.second_ar))
    return float(study.means.loc[(dataset, design, "Popularity")]), dataset, design


def published_numbers(study: DesignStudy) -> list[dict]:
    """Arguments of :func:`recbias.bookkit.scorecard.number` for each published number this build recomputes."""
    claims = []
    for _, row in published().iterrows():
        ours = _ours(study, row)
        if ours is None:
            continue
        value, dataset, design = ours
        claims.append({"key": row["key"], "ours": value, "paper": float(row["value"]), "tolerance": float(row["tolerance"]),
                       "source": row["source"], "dataset": dataset, "paper_dataset": row["paper_dataset"],
                       "label": row["statement"], "note": f"{design}; {row['note']}"})
    return claims


def paper_table(study: DesignStudy) -> pd.DataFrame:
    """The papers' statements and numbers next to ours, with the dataset each refers to."""
    rows = [{"statement": c.statement, "paper": c.paper, "our dataset": c.dataset, "ours": c.ours,
             "paper's dataset": c.paper_dataset} for c in checks(study)]
    for claim in published_numbers(study):
        rows.append({"statement": claim["label"], "paper": f"{claim['paper']:.2f}", "our dataset": claim["dataset"],
                     "ours": fmt_number(claim["ours"]), "paper's dataset": claim["paper_dataset"]})
    table = pd.DataFrame(rows)
    return table.iloc[np.argsort(table["our dataset"] != study.ratings.name, kind="stable")].reset_index(drop=True)


def found_text(study: DesignStudy) -> str:
    """What the comparison shows about AI against TI and about the 1R ceiling on the page's dataset."""
    here, (ai, ti), one_r = study.ratings.name, study.choice.ar, study.choice.one_r
    gap = max(abs(study.measured(here, ai)[s] - study.measured(here, ti)[s]) for s in study.systems)
    reports = study.main.reports[study.main.reports["design"] == ti]
    untested = float(1 - reports["n_candidates"].mean() / study.ratings.n_items)
    items = (f"almost every item has a test rating in every split ({fmt_pct(1 - untested)} on average), so AI and TI "
             "draw from nearly the same candidates" if untested < 0.005 else
             f"on average {fmt_pct(untested)} of the items have no test rating in a split, and only AI can draw them "
             "as non-relevant items")
    best = max(study.measured(here, one_r).values())
    return (
        f"On *{here}* the largest gap between {ai} and {ti} over the systems is {fmt_number(gap, 4)}: {items}. "
        f"The best 1R precision, {fmt_number(best)}, stays under the ceiling of {fmt_number(study.ceiling)} that a "
        "perfect ranking attains."
    )


def _title(name: str) -> str:
    try:
        return datasets.info(name).title
    except ValueError:
        return name


def differences_text(study: DesignStudy) -> str:
    """How many of the papers' statements hold here, and how this build's data differ from the papers'."""
    found = checks(study)
    failed = sum(not c.holds for c in found)
    opening = ("Every qualitative statement of the table holds on this build." if not failed else
               f"On this build, {failed} of the {len(found)} qualitative statements of the table "
               f"{'does' if failed == 1 else 'do'} not hold.")
    here = study.ratings
    if here.name == "ml-1m":
        data = "The main dataset is the papers' own, MovieLens 1M, but the splits are our own draws"
    elif here.true_relevance is not None:
        data = (f"The data differ: the papers used MovieLens 1M, this page a simulated world (*{here.name}*) whose "
                "systems need not behave as they do on real ratings")
    else:
        data = (f"The data differ: the papers used MovieLens 1M, this page *{_title(here.name)}* "
                f"({here.n_ratings:,} ratings by {here.n_users:,} users of {here.n_items:,} items)")
    if study.second is not None:
        data += (f", and *{_title(study.second_name)}* stands in for the papers' Last.fm sample"
                 + ("; it has no timestamps, so the papers' temporal split cannot be repeated on it"
                    if study.second_split == "coin" else ""))
    return f"{opening} {data}."


def range_text(study: DesignStudy) -> str:
    """How far one system's P@10 moves across designs and datasets, against the spread of systems within a design."""
    per_panel = study.summary.pivot_table(index=["dataset", "design"], columns="system", values="mean",
                                          observed=True, sort=False)[list(PERSONALISED)]
    low, high = per_panel.min(), per_panel.max()
    widest = (high / low).idxmax()
    spread = float((per_panel.max(axis=1) - per_panel.min(axis=1)).max())
    return (
        f"Across the designs and datasets of this page, the P@10 of {widest} alone runs from "
        f"{fmt_number(low[widest])} to {fmt_number(high[widest])}, while within any one design the three "
        f"personalised systems are never more than {fmt_number(spread)} apart."
    )


# --------------------------------------------------------------------- lemma (Eq. 2)

#: the systems of IRJ Fig. 3
LEMMA_SYSTEMS = {"pLSA": "plsa", "user-kNN": "user-knn"}
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
    """One row per point of the sweeps: lower bound ≤ 1R P@10 ≤ upper bound for each system."""
    cells = sweep.assign(
        cell=[f"{fmt_number(lo, 4)} ≤ {fmt_number(v, 4)} ≤ {fmt_number(hi, 4)}"
              for lo, v, hi in zip(sweep["lower"], sweep["value"], sweep["upper"], strict=True)],
        setting=[f"{x:.0%} of test ratings removed" if s == REMOVAL else f"{x:,.0f} items per target set"
                 for s, x in zip(sweep["sweep"], sweep["x"], strict=True)],
    )
    table = cells.pivot_table(index=["setting", "runs", "users"], columns="system", values="cell", aggfunc="first",
                              sort=False)
    return table.rename_axis(columns=None).reset_index()


def lemma_finding(sweep: pd.DataFrame) -> dict:
    """Arguments of :func:`recbias.bookkit.scorecard.finding` for the lemma (``key``, ``label``, ``holds``,
    ``evidence``, ``source``)."""
    holds = int(sweep["holds"].sum())
    return {"key": "fig3/lemma-holds",
            "label": "1R precision lies within the lemma's AR bounds at every point of both sweeps",
            "holds": bool(holds == len(sweep)), "evidence": f"{holds} of {len(sweep)} points within the bounds",
            "source": "IRJ 2017 Eq. 2, Fig. 3"}


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
    """The numbers the prose quotes: the 1R runs of the page's dataset, the largest |MAP - MRR| over them,
    and the pairs of systems that differ at :data:`ALPHA` over every design and dataset."""
    runs = study.main.runs[study.main.runs["design"] == study.choice.one_r]
    gap = float((runs["MAP"] - runs["MRR"]).abs().max())
    tests = study.tests
    return {"runs_1r": f"{runs.groupby(['fold', 'run']).ngroups:,}", "map_mrr_gap": f"{gap:.1e}" if gap else "0",
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


# ------------------------------------------------------------- order against truth


@dataclass(frozen=True)
class TruthCheck:
    """Each design's order of systems against their true order, on a simulated world.

    Attributes:
        dataset: the world.
        true: true P@10 per system (top 10 among all items outside training, complete relevance),
            mean over users and splits.
        measured: measured P@10, systems x designs of the page's dataset.
    """

    dataset: str
    true: pd.Series
    measured: pd.DataFrame


def truth_check(study: DesignStudy) -> TruthCheck | None:
    """The true P@10 of the study's systems on every split (:func:`recbias.evaluate.true_quality`), against
    the designs' measurements; None on observed data, which lack the complete relevance."""
    ratings = study.ratings
    if ratings.true_relevance is None:
        return None
    per_fold = []
    for fold in study.folds:
        fitted = fit_systems(study.presets, fold.train, key_extra=fold.key, seed=study.seed)
        per_fold.append(true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=study.seed)[f"P@{N}"].mean())
    true = pd.concat(per_fold, axis=1).mean(axis=1)[study.systems]
    designs = [str(d) for d in study.main.runs["design"].cat.categories]
    measured = pd.DataFrame({d: study.measured(ratings.name, d) for d in designs})
    return TruthCheck(ratings.name, true, measured)


def _ranked(values: Mapping[str, float]) -> list[str]:
    """Systems from best to worst, each over its value (HTML cells of :func:`orders_table`)."""
    return [f"{s}<br><small>{fmt_number(values[s], 4)}</small>" for s in sorted(values, key=lambda s: -values[s])]


def orders_table(study: DesignStudy, check: TruthCheck | None = None) -> pd.DataFrame:
    """The systems from best to worst by P@10, one row per (dataset, design); with a :class:`TruthCheck`,
    a first row with the true order and, after the ranks, each design's agreement with it
    (:func:`recbias.evaluate.order_agreement`: Kendall's tau-b, pairs in the true order, best system first)."""
    rows: dict[tuple[str, str], list[str]] = {}
    if check is not None:
        rows[(check.dataset, "true P@10")] = _ranked(check.true.to_dict())
    for dataset, design in study.panels:
        rows[(dataset, design)] = _ranked(study.measured(dataset, design))
    columns = [ordinal(k) for k in range(1, len(study.systems) + 1)]
    if check is not None:
        pairs = len(study.systems) * (len(study.systems) - 1) // 2
        for (dataset, design), cells in rows.items():
            if dataset != check.dataset or design not in check.measured:
                cells += ["–"] * 3
                continue
            agreement = order_agreement(check.measured[design].to_numpy(), check.true.to_numpy())
            cells += [fmt_number(float(agreement.tau[0]), 2), f"{round(float(agreement.pairs[0]) * pairs)}/{pairs}",
                      _yes(bool(agreement.best[0]))]
        columns += ["τ", "pairs", "best"]
    index = pd.MultiIndex.from_tuples(list(rows), names=["dataset", "design"])
    return pd.DataFrame(list(rows.values()), index=index, columns=columns).reset_index()


#: largest relative difference of true precision under which two systems count as close
CLOSE = 0.05


def truth_text(check: TruthCheck | None, dataset: str) -> str:
    """What the comparison with the true order shows, or why it cannot be made on ``dataset``."""
    if check is None:
        return (f"*{dataset}* is observed data, without the relevance of the pairs nobody rated, so the orders "
                "cannot be checked against a truth here: the table gives the measured orders only. Build the "
                "chapter on `synthetic` to see the check.")
    true = check.true.to_dict()
    wrong = {pair for design in check.measured.columns
             for pair in discordant_pairs(check.measured[design].to_dict(), true)}
    designs = len(check.measured.columns)
    right = sum(not discordant_pairs(check.measured[d].to_dict(), true) for d in check.measured.columns)
    verdict = ("Every design orders" if right == designs else "No design orders" if right == 0 else
               "Only one of the designs orders" if right == 1 else f"{right} of the {designs} designs order")
    text = f"The true order is **{order_text(true)}**. {verdict} the systems as the truth does."
    if wrong:
        a, b = max(wrong, key=lambda pair: abs(true[pair[0]] - true[pair[1]]) / max(true[pair[0]], true[pair[1]]))
        gap = abs(true[a] - true[b]) / max(true[a], true[b])
        text += (
            " Every pair a design swaps is close in truth: the widest, "
            f"{a} and {b}, differ by {fmt_pct(gap)} of their true P@10 ({fmt_number(true[a], 4)} against "
            f"{fmt_number(true[b], 4)}), so a small measured difference says little about the true order."
            if gap < CLOSE else
            f" The swapped pairs are not only close ones: {a} is measured above {b}, although its true P@10 is "
            f"{fmt_pct(gap, 0)} lower ({fmt_number(true[a], 4)} against {fmt_number(true[b], 4)}). The design itself, "
            "not only noise, moves the order; the chapters on popularity bias return to this."
        )
    best_true, best_measured = float(check.true.max()), float(check.measured.to_numpy().max())
    if best_measured > 0:
        text += (f" The scale differs too: the best true precision, {fmt_number(best_true)}, is "
                 f"{best_true / best_measured:.1f} times the best value any design measures here, because most "
                 "relevant items were never rated and count as failures.")
    return text

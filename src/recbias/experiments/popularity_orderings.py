"""Chapter 4 ("The popularity bias"): popularity against the other non-personalised orderings.

On the page's dataset, popularity, the count of positive ratings, the mean rating (raw and shrunk),
random scores and a test-set oracle are compared under 1R and AR on coin-flip splits
(:func:`ordering_study`), with the lemma's bounds measured on the runs, the closed-form bounds of a
non-personalised order (IRJ 2017 Sec. 5.1) and the exact expectation of popularity's 1R precision;
the page's tables, sentences and figure of that comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import Candidates, compare
from recbias.experiments.popularity import (
    ALL_RELEVANT_DESIGN,
    METRIC,
    N,
    SHRINKAGE,
    one_relevant_design,
    precision_summary,
)
from recbias.evaluate.experiment import run_experiment
from recbias.splits import Fold, fold_seed, make_folds
from recbias.ratings import Ratings
from recbias.recommenders import HeldOutPopularity, MeanRating, Popularity, Random, Recommender
from recbias.text import fmt_ci, fmt_number, fmt_p_clause, fmt_pct
from recbias.theory import expected_popularity_precision_1r, lemma_bounds, nonpersonalised_bounds_1r

def nonpersonalised_systems(held_out: Ratings, seed: int = 0) -> dict[str, Recommender]:
    """The non-personalised orderings compared with popularity; the oracle reads ``held_out``."""
    return {
        "Popularity": Popularity(),
        "Positive count": Popularity(positive_only=True),
        "Mean rating": MeanRating(),
        f"Mean rating (+{SHRINKAGE:g})": MeanRating(shrinkage=SHRINKAGE),
        "Random": Random(seed=seed),
        "Test-set oracle": HeldOutPopularity(held_out),
    }


@dataclass(frozen=True)
class OrderingStudy:
    """Non-personalised orderings on the page's dataset.

    Attributes:
        dataset: name of the dataset.
        runs: per-run table (all folds; the 1R and AR designs).
        bounds: per system, on fold 0: the lemma's measured bounds and 1R value (ties by
            item code) and the closed-form bounds of Sec. 5.1.
        expected_popularity: :func:`recbias.theory.expected_popularity_precision_1r` of the dataset.
        target_size, folds, test_ratio: the set-up.
    """

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

    def versus(self, reference: str = "Popularity") -> pd.DataFrame:
        """Paired tests of ``reference`` against every other ordering, per design (runs paired, users clustered)."""
        return compare(self.runs, [METRIC], ("design",), baseline=reference, average="run")


def _bounds_table(
    ratings: Ratings, fold: Fold, systems: Mapping[str, Recommender], target_size: int, seed: int
) -> pd.DataFrame:
    """Lemma bounds (measured) and closed-form bounds of every fitted system on one fold.

    The 1R runs are those :func:`recbias.evaluate.experiment.run_experiment` builds for the
    first design of the fold (same seed), with shared non-relevant items.  The closed form
    takes the order each system gives the first user, the same for every user; Random gives
    every user an independent order, so in expectation each position holds the mean ``|PR(i)|``.
    """
    runs = build_runs(fold.train, fold.test, one_relevant_design(target_size), seed=fold_seed(seed, 1000 * fold.index),
                      shared_negatives=True, on_shortage="exclude")
    candidates = np.flatnonzero(fold.test.item_counts())
    positives = ratings.item_counts(positive_only=True).astype(np.float64)
    _, relevant = np.unique(runs.users, return_counts=True)
    orders = []
    rows = []
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


def ordering_study(
    ratings: Ratings, *, folds: int = 5, test_ratio: float = 0.2, target_size: int = 100, seed: int = 0
) -> OrderingStudy:
    """Popularity and the other non-personalised orderings under 1R and AR on ``folds`` coin-flip splits.

    The 1R design draws the non-relevant items once per user (the lemma's assumption), so
    the bounds of fold 0 are computed on the very runs that are evaluated; ties are
    broken at random in the evaluation.  The systems are cheap and fitted without the cache.
    """
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
            bounds = _bounds_table(ratings, fold, systems, target_size, seed)
    runs = pd.concat(tables, ignore_index=True)
    for column in ("design", "system"):
        runs[column] = pd.Categorical(runs[column], categories=list(dict.fromkeys(runs[column])))
    expected = expected_popularity_precision_1r(ratings, test_ratio, target_size, N)
    return OrderingStudy(ratings.name, runs, bounds, expected, int(target_size), int(folds), float(test_ratio))


def p_value(study: OrderingStudy, design: str, other: str) -> float:
    versus = study.versus()
    rows = versus[(versus["design"] == design) & (versus["system_b"] == other)]
    return float(rows["t_pvalue"].iloc[0])


def trained_orderings(study: OrderingStudy) -> list[str]:
    """The orderings learned from training data: every system but the test-set oracle."""
    return [s for s in study.summary()["system"].unique() if s != "Test-set oracle"]


def orderings_text(study: OrderingStudy) -> str:
    """The paragraph that reads the comparison of non-personalised orderings (the numbers are in the table)."""
    summary = study.summary().set_index(["design", "system"])["mean"]
    one = summary[study.one_relevant]
    trained = one[trained_orderings(study)].sort_values(ascending=False)
    best, runner_up = trained.index[0], trained.index[1]
    p_best = p_value(study, study.one_relevant, best if best != "Popularity" else runner_up)
    oracle, p_oracle = one["Test-set oracle"], p_value(study, study.one_relevant, "Test-set oracle")
    shrunk = f"Mean rating (+{SHRINKAGE:g})"
    parts = [f"On `{study.dataset}` the best ordering learned from the training ratings is {best.lower()}, ahead of "
             f"{runner_up.lower()} ({'paired test ' if p_best < 0.05 else 'within noise, paired test '}"
             f"{fmt_p_clause(p_best)})."]
    if best == "Positive count":
        parts.append("Counting only the positive training ratings beats counting all of them: the derivation ranks "
                     "items by |PR(i)|, and all ratings stand in for positive ones only as far as every item has the "
                     "same share of positive ratings, which the positive-ratio figure below examines.")
    parts.append(
        f"The test-set oracle is higher still; popularity reaches {fmt_pct(one['Popularity'] / oracle, 0)} of it, "
        + ("a gap within noise." if p_oracle >= 0.05 else
           f"a gap beyond noise ({fmt_p_clause(p_oracle)}): the held-out item of a run always has a positive test "
           "rating, and the oracle knows which items have many of them, while the training counts only estimate it.")
    )
    mean_behind = one["Mean rating"] < one["Popularity"]
    parts.append(
        ("Ordering by mean rating falls far behind: items with one or two enthusiastic ratings top that list, and "
         "they have almost no test ratings. " if mean_behind else "Ordering by mean rating keeps up with popularity "
         "here. ")
        + (f"Shrinking each mean towards the global mean by {SHRINKAGE:g} pseudo-ratings brings it closer to "
           "popularity, because the shrunk mean leans on the number of ratings again. "
           if mean_behind and one[shrunk] > one["Mean rating"] else "")
        + f"Random sits at 1/{study.target_size}, as the design fixes it."
    )
    return " ".join(parts)


def oracle_share_text(study: OrderingStudy) -> str:
    """Popularity's 1R precision as a share of the test-set oracle's, for the closing summary."""
    one = study.summary().set_index(["design", "system"])["mean"][study.one_relevant]
    return f"popularity reaches {fmt_pct(one['Popularity'] / one['Test-set oracle'], 0)} of it here"


def bounds_table(study: OrderingStudy) -> pd.DataFrame:
    """Per system: measured 1R precision with its interval, the closed-form bounds and, for
    popularity, the exact expectation; then the lemma's bounds on fold 0."""
    summary = study.summary()
    one = summary[summary["design"] == study.one_relevant].set_index("system")
    table = study.bounds.set_index("system")
    interval = pd.Series([f"[{lo:.4f}, {hi:.4f}]" for lo, hi in zip(one["ci_low"], one["ci_high"], strict=True)],
                         index=one.index)
    out = pd.DataFrame({
        "1R P@10": one["mean"], "95% interval": interval, "ci_low": one["ci_low"], "ci_high": one["ci_high"],
        "closed-form lower": table["closed-form lower"], "closed-form upper": table["closed-form upper"],
        "exact expectation": pd.Series({"Popularity": study.expected_popularity, "Random": 1 / study.target_size}),
        "lemma lower": table["lemma lower"], "first split": table["1R P@10 (ties by code)"],
        "lemma upper": table["lemma upper"],
    }).reindex(table.index)
    return out.reset_index()


def shown_bounds_table(study: OrderingStudy) -> pd.DataFrame:
    """:func:`bounds_table` as the page shows it: the measured value over its interval, and every pair of
    bounds as one ``low – high`` cell on two lines."""
    table = bounds_table(study)

    def pair(low: pd.Series, high: pd.Series) -> list[str]:
        return [f"{lo:.4f} –<br>{hi:.4f}" for lo, hi in zip(low, high, strict=True)]

    return pd.DataFrame({
        "ordering": table["system"],
        "1R P@10": [fmt_ci(m, (lo, hi), 4) for m, lo, hi in zip(table["1R P@10"], table["ci_low"], table["ci_high"],
                                                                 strict=True)],
        "closed-form bounds": pair(table["closed-form lower"], table["closed-form upper"]),
        "exact expectation": [fmt_number(v, 4) if np.isfinite(v) else "–" for v in table["exact expectation"]],
        "first split: lemma bounds": pair(table["lemma lower"], table["lemma upper"]),
        "first split: 1R P@10": [fmt_number(v, 4) for v in table["first split"]],
    })


def bounds_text(study: OrderingStudy) -> str:
    """How the measured precision of each ordering sits against the closed-form bounds."""
    table = bounds_table(study).set_index("system")
    above = [s for s, r in table.iterrows() if r["ci_low"] > r["closed-form upper"]]
    below = [s for s, r in table.iterrows() if r["ci_high"] < r["closed-form lower"]]
    inside = [s for s in table.index if s not in above + below]
    pop = table.loc["Popularity"]
    lemma_holds = all(r["lemma lower"] <= r["first split"] <= r["lemma upper"] for _, r in table.iterrows())

    def listed(names: list[str]) -> str:
        return ", ".join(n.lower() if n != "Test-set oracle" else "the test-set oracle" for n in names)

    parts = [
        f"For popularity the closed-form bounds run from {fmt_number(pop['closed-form lower'], 4)} to "
        f"{fmt_number(pop['closed-form upper'], 4)}, and its measured 1R precision is {fmt_number(pop['1R P@10'], 4)}; "
        f"the exact expectation derived above gives {fmt_number(pop['exact expectation'], 4)}."
    ]
    if inside:
        which = "every ordering" if len(inside) == len(table) else listed(inside)
        parts.append(f"The 95% interval of the measured value meets the closed-form bounds for {which}.")
    if above:
        parts.append(f"It lies above them for {listed(above)}: the bounds take the order of items as given, while "
                     "these orders are learned from ratings of the same users (or read from the test set), so that an "
                     "item ranked high tends to hold more of the held-out ratings than its |PR(i)| alone predicts.")
    if below:
        parts.append(f"It lies below them for {listed(below)}: the closed form treats each target set as a random "
                     "subset of the candidates, while a real one always holds the user's relevant items and "
                     "excludes her training items.")
    parts.append("The lemma's own bounds, computed on the target sets themselves, hold for every ordering, as they "
                 "must." if lemma_holds else "The lemma's bounds fail for some ordering; check the design's shared "
                 "non-relevant items.")
    return " ".join(parts)


def orderings_figure(study: OrderingStudy, colours: Mapping[str, str]):
    """Mean P@10 with 95% intervals of every ordering, 1R (with the closed-form bounds, the exact expectation of
    popularity and random's ``1 / |T_u^r|``) and AR."""
    import matplotlib.pyplot as plt

    summary = study.summary()
    bounds = study.bounds.set_index("system")
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 4.2), sharey=True)
    for ax, design in zip(axes, (study.one_relevant, ALL_RELEVANT_DESIGN), strict=True):
        rows = summary[summary["design"] == design].reset_index(drop=True)
        y = np.arange(len(rows))[::-1]
        for k, row in rows.iterrows():
            colour = colours[row["system"]]
            if design == study.one_relevant:
                b = bounds.loc[row["system"]]
                ax.plot([b["closed-form lower"], b["closed-form upper"]], [y[k]] * 2, color=colour, lw=8, alpha=0.25,
                        solid_capstyle="butt", label="closed-form bounds" if k == 0 else None)
            ax.errorbar(row["mean"], y[k], xerr=[[row["mean"] - row["ci_low"]], [row["ci_high"] - row["mean"]]],
                        fmt="o", color=colour, ms=6, capsize=3, label="measured, 95% interval" if k == 0 else None)
        if design == study.one_relevant:
            ax.plot(study.expected_popularity, y[list(rows["system"]).index("Popularity")], marker="*", ms=13,
                    color="black", ls="none", label="exact expectation")
            ax.axvline(1 / study.target_size, color="#999999", lw=1, ls=":", label=r"random, $1/|T_u^r|$")
        ax.set_yticks(y, rows["system"])
        ax.set_xlim(left=0)
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))
        title = f"1R, $|T_u^r| = {study.target_size}$" if design == study.one_relevant else f"AR ({design})"
        ax.set_title(title, loc="left")
        ax.set_xlabel("P@10")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=2, handletextpad=0.4)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig

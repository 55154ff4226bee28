"""Chapter 4 ("The popularity bias"): why popularity wins offline, how skewness drives it, how much is real.

Bellogín, Castells and Cantador (IRJ 2017, Section 5; thesis Section 4.5) explain
the strength of recommending popular items by the split itself: on a random split
``E|PR_test(i)| = sigma |PR(i)|``, so ranking by training popularity maximises the
expected precision of any non-personalised order (Eq. 3, and in 1R the bounds of
:func:`recbias.theory.nonpersonalised_bounds_1r`).  This driver measures it in five steps:

* :func:`ordering_study` -- popularity against other non-personalised orderings
  (positive count, mean rating, random, a test-set oracle) on the page's dataset,
  with the lemma's bounds and the closed forms;
* :func:`skew_sweep` -- the papers' Fig. 5 (left and centre): preference-free worlds of
  ML-1M's shape whose item popularity follows the shifted power law with exponent
  ``alpha``, the five systems under 1R (and AR), and the exact expectation of
  popularity's 1R precision (:func:`recbias.theory.expected_popularity_precision_1r`);
* :func:`positive_ratio_curves` -- the papers' Fig. 7 on every real dataset;
* :func:`observation_grid` -- beyond the papers: on simulated worlds with preferences,
  popularity's measured precision against its true precision as observation bias and
  skewness vary;
* :func:`mainstream_study` -- the "majority" argument of Sec. 5.1: per-user precision of
  popularity and a personalised system by how mainstream a user's ratings are.

The ``*_text`` functions write the page's data-dependent sentences, :func:`findings`
and :func:`published_numbers` the scorecard claims (published values in
``published/popularity.csv``), and the ``*_figure`` functions draw the figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd
from scipy import stats

from recbias import datasets, judgments
from recbias.designs import build_runs
from recbias.evaluate import Candidates, compare, evaluate_runs, mean_confidence_interval, summarize, true_quality
from recbias.experiments.runner import PAPER_SYSTEMS, Fold, fit_systems, fold_seed, make_folds, run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import HeldOutPopularity, MeanRating, Popularity, Random, Recommender
from recbias.synthetic import PREFERENCE_FREE, PRESETS, fit_popularity_curve, generate, simulate
from recbias.text import fmt_number, fmt_p, fmt_pct
from recbias.theory import (
    expected_popularity_precision_1r,
    lemma_bounds,
    nonpersonalised_bounds_1r,
    relevant_training_shift,
)

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 5; thesis Sec. 4.5"
#: cut-off of P@n throughout, as in the papers
N = 10
METRIC = f"P@{N}"
#: the personalised system of the measured-vs-true and per-user studies
PERSONALISED = "user-kNN"
#: pseudo-ratings of the shrunk mean-rating ordering
SHRINKAGE = 10.0


def one_relevant_design(target_size: int) -> str:
    """The 1R design with ``|T_u^r| = target_size``: the held-out item and ``target_size - 1`` others."""
    return f"1R TI-NN({int(target_size) - 1})"


#: the AR design of the chapter: all test items as candidates, all of them judged
ALL_RELEVANT_DESIGN = "TI-AN"
#: non-relevant items per user of the sweep's AR design on ML-1M-sized worlds (IRJ 2017 Sec. 6.3)
SWEEP_NONRELEVANT = 1700


def sweep_all_relevant_design(n_items: int) -> str:
    """AR of the sweep: all relevant test items and ``min(1700, |I| / 2)`` sampled non-relevant ones
    per user (TI-NN), the AR set-up of IRJ 2017 Sec. 6.3, a fraction of the cost of ranking every item."""
    return f"TI-NN({min(SWEEP_NONRELEVANT, n_items // 2)})"


def _summary(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean P@n per group with the papers' run average (IRJ Eq. 1), intervals clustered by user."""
    return summarize(runs, [METRIC], by, average="run")


# ------------------------------------------------------------------ part 1: orderings


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
        return _summary(self.runs, ("design", "system"))

    def versus(self, reference: str = "Popularity") -> pd.DataFrame:
        """Paired tests of ``reference`` against every other ordering, per design (runs paired, users clustered)."""
        return compare(self.runs, [METRIC], ("design",), baseline=reference, average="run")


def _bounds_table(
    ratings: Ratings, fold: Fold, systems: Mapping[str, Recommender], target_size: int, seed: int
) -> pd.DataFrame:
    """Lemma bounds (measured) and closed-form bounds of every fitted system on one fold.

    The 1R runs are those :func:`recbias.experiments.runner.run_experiment` builds for the
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


# --------------------------------------------------------------- part 2: skew sweep


def sweep_systems(seed: int = 0) -> dict[str, str | Recommender]:
    """The papers' five systems, plus the mean rating: an ordering by rating values alone."""
    return {**PAPER_SYSTEMS, "Mean rating": MeanRating(seed=seed)}


#: how item counts are fixed in the worlds of the sweep: exactly (the papers) or in expectation
EXACT, IN_EXPECTATION = "exact", "in expectation"
_COUNT_MODES = {EXACT: "items", IN_EXPECTATION: "users"}


@dataclass(frozen=True)
class SkewSweep:
    """The systems on preference-free worlds of growing popularity skew (IRJ 2017 Fig. 5).

    Attributes:
        precision: mean P@n with intervals per (alpha, design, system), exact item counts.
        expected: per (alpha, counts), popularity's and random's 1R precision, measured and
            in expectation (:func:`recbias.theory.expected_popularity_precision_1r`, ``1 / t``).
        curves: cumulative share of ratings by popularity rank, per alpha.
        worlds: per alpha, the law's ``c1``, ``c2``, ``beta`` and what the counts look like.
        preset, target_size, test_ratio: the set-up.
    """

    precision: pd.DataFrame
    expected: pd.DataFrame
    curves: pd.DataFrame
    worlds: pd.DataFrame
    preset: str
    target_size: int
    test_ratio: float

    @property
    def one_relevant(self) -> str:
        return one_relevant_design(self.target_size)

    @property
    def all_relevant(self) -> str | None:
        """The AR design of the sweep, if it was run."""
        design = sweep_all_relevant_design(PRESETS[self.preset]["n_items"])
        return design if design in set(self.precision["design"]) else None

    @property
    def alphas(self) -> list[float]:
        return sorted(self.precision["alpha"].unique())

    def series(self, system: str, column: str = "mean", design: str | None = None) -> pd.Series:
        """``column`` of ``system``'s P@n by alpha (1R unless ``design`` is given)."""
        p = self.precision
        rows = p[(p["system"] == system) & (p["design"] == (design or self.one_relevant))]
        return rows.set_index("alpha")[column].sort_index()

    @property
    def label(self) -> str:
        """Short name of the simulated data, for figure stamps."""
        return "simulated, ML-1M shape" if self.preset == "synthetic-ml1m" else f"simulated, {self.preset}"

    def uniform(self, counts: str = EXACT) -> pd.Series:
        """The row of :attr:`expected` at ``alpha = 0`` for item counts fixed ``counts``."""
        e = self.expected
        return e[(e["alpha"] == 0) & (e["counts"] == counts)].iloc[0]


def _measured_and_expected(
    ratings: Ratings, alpha: float, counts: str, runs: pd.DataFrame, test_ratio: float, target_size: int
) -> dict:
    """Popularity and random in 1R on one world: measured (with intervals and their paired test),
    expected, and the spread of the item counts behind the difference."""
    one = runs[runs["design"] == one_relevant_design(target_size)]
    table = _summary(one, ("system",)).set_index("system")
    versus = compare(one, [METRIC], baseline="Random", systems=["Random", "Popularity"], average="run").iloc[0]
    item_counts = ratings.item_counts()
    return {
        "alpha": alpha, "counts": counts, "item count variance / mean": item_counts.var() / item_counts.mean(),
        "training shift": relevant_training_shift(item_counts.mean(), item_counts.var(), test_ratio),
        "Popularity": table.loc["Popularity", "mean"], "Popularity low": table.loc["Popularity", "ci_low"],
        "Popularity high": table.loc["Popularity", "ci_high"],
        "Popularity expected": expected_popularity_precision_1r(ratings, test_ratio, target_size, N),
        "Random": table.loc["Random", "mean"], "Random low": table.loc["Random", "ci_low"],
        "Random high": table.loc["Random", "ci_high"], "Random expected": 1.0 / target_size,
        "p (Popularity vs Random)": versus["t_pvalue"], "runs": int(table.loc["Popularity", "runs"]),
    }


def skew_sweep(
    alphas: Sequence[float],
    *,
    seed: int = 0,
    preset: str = "synthetic-ml1m",
    test_ratio: float = 0.2,
    target_size: int = 100,
    all_relevant: bool = True,
    cache: bool = True,
) -> SkewSweep:
    """IRJ 2017 Fig. 5 (left, centre): one preference-free world per ``alpha`` with the shape of ``preset``.

    Each world has exactly ``round(c1 + beta (c2 + k)^-alpha)`` ratings on the item of rank ``k``
    and rating values drawn from the preset's prior (:data:`recbias.synthetic.PREFERENCE_FREE`);
    one coin-flip split, the systems of :func:`sweep_systems` (fits cached), the 1R design and,
    with ``all_relevant``, the AR design of :func:`sweep_all_relevant_design`.  ``alpha = 0`` is
    always included, once more with item counts exact only in expectation (popularity and
    random only).
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown synthetic preset {preset!r}; known presets: {', '.join(PRESETS)}")
    alphas = sorted({0.0, *map(float, alphas)})
    ar = sweep_all_relevant_design(PRESETS[preset]["n_items"])
    designs = [one_relevant_design(target_size)] + ([ar] if all_relevant else [])
    precision, expected, curves, worlds = [], [], [], []
    for alpha in alphas:
        world = simulate(preset=preset, alpha=alpha, exact_counts=_COUNT_MODES[EXACT], seed=seed, **PREFERENCE_FREE)
        ratings, law = world.ratings, world.popularity
        del world  # the dense arrays of the world are not needed any more
        folds = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)
        experiment = run_experiment(ratings, designs, sweep_systems(seed), folds=folds, metrics=[METRIC], seed=seed,
                                    cache=cache)
        precision.append(_summary(experiment.runs, ("design", "system")).assign(alpha=alpha))
        expected.append(_measured_and_expected(ratings, alpha, EXACT, experiment.runs, test_ratio, target_size))
        spread = judgments.from_ratings(ratings, threshold=ratings.scale[0])
        curves.append(judgments.cumulative_share(spread).assign(alpha=alpha))
        counts = np.sort(ratings.item_counts())[::-1]
        head = counts[: max(1, len(counts) // 10)].sum() / counts.sum()
        worlds.append({"alpha": alpha, "c1": law.c1, "c2": law.c2, "beta": law.beta, "most": int(counts[0]),
                       "fewest": int(counts[-1]), "top 10% share": head})
    loose = generate(preset=preset, alpha=0.0, exact_counts=_COUNT_MODES[IN_EXPECTATION], seed=seed, **PREFERENCE_FREE)
    folds = make_folds(loose, folds=1, test_ratio=test_ratio, seed=seed)
    baselines = {"Popularity": "popularity", "Random": "random"}
    experiment = run_experiment(loose, designs[:1], baselines, folds=folds, metrics=[METRIC], seed=seed, cache=cache)
    expected.append(_measured_and_expected(loose, 0.0, IN_EXPECTATION, experiment.runs, test_ratio, target_size))
    return SkewSweep(pd.concat(precision, ignore_index=True), pd.DataFrame(expected),
                     pd.concat(curves, ignore_index=True), pd.DataFrame(worlds), preset, int(target_size),
                     float(test_ratio))


# ----------------------------------------------------------- part 3: positive ratio


def real_datasets(here: Ratings) -> list[Ratings]:
    """``here`` and every other registered real dataset available on this machine (simulated presets left out)."""
    others = [n for n in datasets.names() if n not in PRESETS and n != here.name and datasets.available(n)]
    return [here, *(datasets.load(n) for n in others)]


def positive_ratio_curves(collections: Sequence[Ratings], segments: int = 100) -> pd.DataFrame:
    """IRJ 2017 Fig. 7 for each dataset: ``|PR(i)| / |R(i)|`` over ``segments`` popularity segments.

    Adds ``dataset``, and per dataset ``spearman`` and ``p`` of the rank correlation between
    popularity (segment 1 = most popular) and the ratio over the segments: negative when the
    ratio grows with popularity.
    """
    tables = []
    for ratings in collections:
        curve = judgments.positive_ratio_by_popularity(ratings, segments)
        constant = curve["positive_ratio"].nunique() == 1  # e.g. every rating positive
        rho, p = (0.0, 1.0) if constant else stats.spearmanr(curve["segment"], curve["positive_ratio"])
        tables.append(curve.assign(dataset=ratings.name, spearman=float(rho), p=float(p)))
    return pd.concat(tables, ignore_index=True)


def ratio_trends(curves: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: the ratio on the most and least popular tenth of the segments, and the rank correlation."""
    rows = []
    for name, curve in curves.groupby("dataset", sort=False):
        tenth = max(1, len(curve) // 10)
        rows.append({"dataset": name, "head ratio": curve["positive_ratio"].iloc[:tenth].mean(),
                     "tail ratio": curve["positive_ratio"].iloc[-tenth:].mean(),
                     "Spearman (segment, ratio)": curve["spearman"].iloc[0], "p": curve["p"].iloc[0]})
    return pd.DataFrame(rows)


# ------------------------------------------------------ part 4: measured against true


#: the systems of the measured-vs-true and per-user studies, label -> preset
TRUTH_SYSTEMS: dict[str, str] = {"Popularity": "popularity", PERSONALISED: PAPER_SYSTEMS[PERSONALISED],
                                 "Random": "random"}
#: the measures of :func:`observation_grid`: the two offline designs and the truth
MEASURES = ("1R", "AR", "true")


def _interval(values: np.ndarray) -> dict:
    mean, low, high = mean_confidence_interval(values[np.isfinite(values)])
    return {"mean": mean, "ci_low": low, "ci_high": high}


def observation_grid(
    alphas: Sequence[float],
    selections: Sequence[float],
    *,
    preset: str = "synthetic",
    seed: int = 0,
    test_ratio: float = 0.2,
    target_size: int = 100,
    cache: bool = True,
) -> pd.DataFrame:
    """Measured and true P@n of :data:`TRUTH_SYSTEMS` on simulated worlds with preferences.

    One world of ``preset`` per (``alpha``, ``selection``): item popularity skew, and how
    strongly users rate what they like (missing not at random).  One coin-flip split; the
    measured values are 1R and AR precision on the observed test ratings, the true value
    is P@n over all items the user did not rate in training, judged on the world's complete
    relevance (:func:`recbias.evaluate.true_quality`).  Returns one row per (alpha,
    selection, system, measure) with ``mean``, ``ci_low``, ``ci_high``.
    """
    designs = {one_relevant_design(target_size): "1R", ALL_RELEVANT_DESIGN: "AR"}
    rows = []
    for alpha in alphas:
        for selection in selections:
            ratings = generate(preset=preset, alpha=float(alpha), selection=float(selection), seed=seed)
            fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
            experiment = run_experiment(ratings, list(designs), TRUTH_SYSTEMS, folds=[fold], metrics=[METRIC],
                                        seed=seed, cache=cache)
            cell = {"alpha": float(alpha), "selection": float(selection)}
            for _, row in _summary(experiment.runs, ("design", "system")).iterrows():
                rows.append(cell | {"system": row["system"], "measure": designs[row["design"]], "mean": row["mean"],
                                    "ci_low": row["ci_low"], "ci_high": row["ci_high"]})
            fitted = fit_systems(TRUTH_SYSTEMS, fold.train, key_extra=fold.key, cache=cache, seed=seed)
            truth = true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=seed)[METRIC]
            for system in TRUTH_SYSTEMS:
                rows.append(cell | {"system": system, "measure": "true"} | _interval(truth[system].to_numpy()))
    return pd.DataFrame(rows)


def relative_scores(grid: pd.DataFrame) -> pd.DataFrame:
    """Popularity's P@n as a share of the personalised system's, per (alpha, selection, measure)."""
    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean")
    return (wide["Popularity"] / wide[PERSONALISED]).rename("popularity / personalised").reset_index()


# ------------------------------------------------------------ part 5: the majority


def mainstream_scores(train: Ratings) -> np.ndarray:
    """How mainstream each user's taste is: the Pearson correlation, over the user's training
    ratings, between her rating ``r_ui`` and the item's mean rating by the other users,
    ``(sum_v r_vi - r_ui) / (|R_train(i)| - 1)``.  1 when she rates exactly as the crowd
    does; NaN with fewer than three such ratings or no spread."""
    users, values = train.users, train.values
    sums = np.bincount(train.items, weights=values, minlength=train.n_items)
    counts = train.item_counts()
    shared = counts[train.items] > 1
    own, others = values[shared], ((sums[train.items] - values) / np.maximum(counts[train.items] - 1, 1))[shared]
    who = users[shared]

    def total(weights: np.ndarray) -> np.ndarray:
        return np.bincount(who, weights=weights, minlength=train.n_users)

    n = total(np.ones(len(who)))
    with np.errstate(invalid="ignore", divide="ignore"):
        covariance = total(own * others) - total(own) * total(others) / n
        spread = (total(own**2) - total(own) ** 2 / n) * (total(others**2) - total(others) ** 2 / n)
        correlation = covariance / np.sqrt(spread)
    return np.where((n >= 3) & (spread > 1e-12), np.clip(correlation, -1.0, 1.0), np.nan)


def mainstream_study(
    ratings: Ratings, *, seed: int = 0, test_ratio: float = 0.2, groups: int = 5, cache: bool = True
) -> pd.DataFrame:
    """Per-user AR P@n of popularity and the personalised system by mainstream group (IRJ 2017 Sec. 5.1).

    Fold 0 of the coin-flip splits (the fits of chapter 2 are reused through the cache).  Users
    with a relevant test item and a defined :func:`mainstream_scores` are cut into ``groups``
    groups of near-equal size by that score (group 1 the most idiosyncratic).  Rows per (group, system, measure):
    ``measured`` (AR precision on the test ratings) and, on simulated worlds, ``true``;
    ``mean`` with its interval over the group's users, ``users``, the group's range of
    mainstream scores and ``wins``, the share of its users for whom the system's measured
    precision is strictly higher than the other's.
    """
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    systems = {label: TRUTH_SYSTEMS[label] for label in ("Popularity", PERSONALISED)}
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, cache=cache, seed=seed)
    runs = build_runs(fold.train, fold.test, ALL_RELEVANT_DESIGN, seed=fold_seed(seed, 0))
    candidates = Candidates([runs])
    measured = pd.DataFrame({label: evaluate_runs(runs, candidates.score(rec)[0], [METRIC], seed=seed)
                             .set_index("user")[METRIC] for label, rec in fitted.items()})
    mainstream = pd.Series(mainstream_scores(fold.train), name="mainstream").reindex(measured.index).dropna()
    measured = measured.loc[mainstream.index]
    group = pd.qcut(mainstream.rank(method="first"), groups, labels=False) + 1
    per_measure = {"measured": measured}
    if ratings.true_relevance is not None:
        truth = true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=seed)[METRIC]
        per_measure["true"] = truth.reindex(measured.index)
    rows = []
    for g in range(1, groups + 1):
        members = group.index[group == g]
        span = (mainstream[members].min(), mainstream[members].max())
        for measure, table in per_measure.items():
            part = table.loc[members]
            for label in systems:
                other = part[[s for s in systems if s != label][0]]
                rows.append({"group": g, "mainstream low": span[0], "mainstream high": span[1], "system": label,
                             "measure": measure, "users": len(members),
                             "wins": float((part[label] > other).mean())} | _interval(part[label].to_numpy()))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ claims and text

#: the dataset label of the claims checked on the preference-free worlds of the sweep
SWEEP_DATASET = "preference-free worlds of ML-1M's shape"


def published() -> pd.DataFrame:
    """The published numbers this chapter reproduces (``published/popularity.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/popularity.csv").open() as handle:
        return pd.read_csv(handle, comment="#")


def sweep_dataset(sweep: SkewSweep) -> str:
    """Label of the simulated data of the sweep (the papers' own data when the preset is ML-1M's)."""
    return SWEEP_DATASET if sweep.preset == "synthetic-ml1m" else f"preference-free worlds of {sweep.preset}"


def published_numbers(sweep: SkewSweep) -> list[dict]:
    """Arguments of :func:`recbias.bookkit.scorecard.number` for every published value: our
    measurement at ``alpha = 0`` with exact item counts, comparable on ML-1M-shaped worlds."""
    uniform = sweep.uniform(EXACT)
    return [
        {"key": p["key"], "ours": float(uniform[p["system"]]), "paper": float(p["value"]),
         "tolerance": float(p["tolerance"]), "label": p["label"], "note": p["note"],
         "source": "IRJ 2017 Sec. 5.2, Fig. 5 (centre)", "dataset": sweep_dataset(sweep),
         "paper_dataset": SWEEP_DATASET}
        for _, p in published().iterrows()
    ]


def published_table(sweep: SkewSweep) -> pd.DataFrame:
    """The alpha = 0 numbers next to the paper's: measured (with interval) and expected, both count regimes."""
    paper = published().set_index("system")["value"]
    rows = []
    for counts in (EXACT, IN_EXPECTATION):
        row = sweep.uniform(counts)
        for system in ("Popularity", "Random"):
            rows.append({"item counts": counts, "system": system,
                         "published": paper[system] if counts == EXACT else np.nan,
                         "measured": row[system],
                         "95% interval": f"[{row[f'{system} low']:.4f}, {row[f'{system} high']:.4f}]",
                         "expected (closed form)": row[f"{system} expected"]})
    return pd.DataFrame(rows)


def _p_value(study: OrderingStudy, design: str, other: str) -> float:
    versus = study.versus()
    rows = versus[(versus["design"] == design) & (versus["system_b"] == other)]
    return float(rows["t_pvalue"].iloc[0])


def trained_orderings(study: OrderingStudy) -> list[str]:
    """The orderings learned from training data: every system but the test-set oracle."""
    return [s for s in study.summary()["system"].unique() if s != "Test-set oracle"]


def findings(study: OrderingStudy, sweep: SkewSweep, curves: pd.DataFrame, grid: pd.DataFrame,
             mainstream: pd.DataFrame, dataset: str) -> list[dict]:
    """The chapter's claims with their verdicts: ``key``, ``label``, ``holds``, ``evidence``,
    ``dataset`` and ``anchor`` for :func:`recbias.bookkit.scorecard.finding`."""
    claims = []

    def add(key: str, label: str, holds: bool, evidence: str, on: str, anchor: str) -> None:
        claims.append({"key": key, "label": label, "holds": bool(holds), "evidence": evidence, "dataset": on,
                       "anchor": anchor})

    summary = study.summary().set_index(["design", "system"])["mean"]
    one = summary[study.one_relevant]
    trained = one[trained_orderings(study)]
    best_ar = summary[ALL_RELEVANT_DESIGN][trained_orderings(study)].idxmax()
    add("popularity-count-is-the-best-trained-ordering",
        "an ordering by popularity (all ratings or positive ratings) is the best non-personalised ordering "
        "learned from training data, in 1R and in AR", {trained.idxmax(), best_ar} <= {"Popularity", "Positive count"},
        f"best in 1R: {trained.idxmax()} ({trained.max():.4f}); in AR: {best_ar}; Popularity {one['Popularity']:.4f}",
        dataset, "fig-popularity-orderings")
    p = _p_value(study, study.one_relevant, "Test-set oracle")
    add("popularity-within-noise-of-oracle",
        "popularity's 1R precision is within noise of the test-set oracle's (paired test, p >= 0.05)", p >= 0.05,
        f"1R P@10 {one['Popularity']:.4f} vs {one['Test-set oracle']:.4f} "
        f"({fmt_pct(one['Popularity'] / one['Test-set oracle'])} of it), p = {fmt_p(p)}", dataset,
        "fig-popularity-orderings")
    bounds = study.bounds.set_index("system").loc["Popularity"]
    add("closed-form-bounds-contain-popularity",
        "popularity's 1R precision lies within the closed-form bounds for non-personalised systems (Sec. 5.1)",
        bounds["closed-form lower"] <= one["Popularity"] <= bounds["closed-form upper"],
        f"{one['Popularity']:.4f} vs [{bounds['closed-form lower']:.4f}, {bounds['closed-form upper']:.4f}]", dataset,
        "tbl-popularity-bounds")

    on = sweep_dataset(sweep)
    popularity, random = sweep.series("Popularity"), sweep.series("Random")
    add("popularity-grows-with-alpha", "popularity's 1R precision grows with the skew alpha",
        bool(np.all(np.diff(popularity.to_numpy()) > 0)),
        ", ".join(f"alpha {a:g}: {v:.4f}" for a, v in popularity.items()), on, "fig-popularity-sweep")
    uniform = sweep.uniform(EXACT)
    add("popularity-below-random-at-uniform", "at alpha = 0 popularity is below random (1R P@10)",
        uniform["Popularity"] < uniform["Random"] and uniform["p (Popularity vs Random)"] < 0.05,
        f"{uniform['Popularity']:.4f} vs {uniform['Random']:.4f}, p = {fmt_p(uniform['p (Popularity vs Random)'])}",
        on, "tbl-popularity-uniform")
    plsa = sweep.series("pLSA")
    skewed = [a for a in popularity.index if a > 0]
    gaps = (plsa[skewed] / popularity[skewed] - 1).abs()
    add("plsa-follows-popularity",
        "pLSA's 1R precision follows popularity's across alpha (within 15% wherever alpha > 0)",
        bool(len(skewed) and gaps.max() <= 0.15),
        ", ".join(f"alpha {a:g}: pLSA {plsa[a]:.4f} vs {popularity[a]:.4f}" for a in skewed), on,
        "fig-popularity-sweep")
    near = {s: [(sweep.series(s, "ci_low")[a] <= random[a] <= sweep.series(s, "ci_high")[a]) for a in random.index]
            for s in ("MF", PERSONALISED)}
    add("knn-mf-near-random", "kNN and MF stay at random precision on preference-free worlds (random within their "
        "95% intervals at every alpha)", all(all(v) for v in near.values()),
        "; ".join(f"{s} at alpha {a:g}: {sweep.series(s)[a]:.4f} vs random {random[a]:.4f}"
                  for s in near for a in random.index), on, "fig-popularity-sweep")

    trends = ratio_trends(curves).set_index("dataset")
    movielens = [d for d in trends.index if d.startswith("ml-")]
    if movielens:
        add("positive-ratio-grows-with-popularity",
            "the share of positive ratings grows with item popularity on MovieLens data",
            all(trends.loc[d, "Spearman (segment, ratio)"] < 0 and trends.loc[d, "p"] < 0.05 for d in movielens),
            "; ".join(f"{d}: head {trends.loc[d, 'head ratio']:.3f}, tail {trends.loc[d, 'tail ratio']:.3f}, "
                      f"Spearman {trends.loc[d, 'Spearman (segment, ratio)']:.2f}" for d in movielens),
            ", ".join(movielens), "fig-popularity-ratio")

    relative = relative_scores(grid).pivot_table(index=["alpha", "selection"], columns="measure",
                                                 values="popularity / personalised")
    add("one-relevant-overstates-popularity",
        f"1R precision rates popularity higher against {PERSONALISED} than the true precision does, in every world "
        "of the grid", bool((relative["1R"] > relative["true"]).all()),
        "; ".join(f"alpha {a:g}, selection {s:g}: {r['1R']:.2f} measured vs {r['true']:.2f} true"
                  for (a, s), r in relative.iterrows()), "simulation grid", "fig-popularity-truth")
    measured = mainstream[(mainstream["measure"] == "measured") & (mainstream["system"] == "Popularity")]
    first, last = measured.iloc[0], measured.iloc[-1]
    add("popularity-serves-the-mainstream",
        "popularity's per-user precision is higher for the most mainstream users than for the least mainstream "
        "(intervals apart)", last["ci_low"] > first["ci_high"],
        f"most mainstream fifth {last['mean']:.3f} [{last['ci_low']:.3f}, {last['ci_high']:.3f}], least "
        f"{first['mean']:.3f} [{first['ci_low']:.3f}, {first['ci_high']:.3f}]", dataset, "fig-popularity-mainstream")
    return claims


def findings_text(claims: Sequence[Mapping]) -> str:
    """The claims of :func:`findings` as a Markdown list: verdict, statement, evidence, where checked."""
    return "\n".join(f"- **{'Holds' if c['holds'] else 'Does not hold'}:** {c['label']}. *{c['evidence']}* "
                     f"(checked on {c['dataset']})" for c in claims)


def _times(x: float, reference: float) -> str:
    return f"{x / reference:.1f} times" if reference > 0 else "n/a"


def orderings_text(study: OrderingStudy) -> str:
    """The paragraph that reads the comparison of non-personalised orderings."""
    summary = study.summary().set_index(["design", "system"])["mean"]
    one = summary[study.one_relevant]
    trained = one[trained_orderings(study)].sort_values(ascending=False)
    best, runner_up = trained.index[0], trained.index[1]
    p_best = _p_value(study, study.one_relevant, best) if best != "Popularity" else _p_value(
        study, study.one_relevant, runner_up)
    oracle, p_oracle = one["Test-set oracle"], _p_value(study, study.one_relevant, "Test-set oracle")
    shrunk = f"Mean rating (+{SHRINKAGE:g})"
    parts = [
        f"On `{study.dataset}` the best ordering learned from the training ratings is {best.lower()}, with a 1R "
        f"precision of {fmt_number(trained.iloc[0], 4)}, ahead of {runner_up.lower()} "
        f"({fmt_number(trained.iloc[1], 4)}, "
        f"paired test p = {fmt_p(p_best)})."
    ]
    if best == "Positive count":
        parts.append("Counting only positive training ratings beats counting all of them: the derivation ranks items "
                     "by |PR(i)|, and all ratings stand in for positive ones only as far as every item has the "
                     "same share of positive ratings (the positive-ratio figure below shows how far that holds here).")
    parts.append(
        f"The test-set oracle reaches {fmt_number(oracle, 4)}; popularity attains "
        f"{fmt_pct(one['Popularity'] / oracle)} "
        f"of it (p = {fmt_p(p_oracle)}), " + ("a gap within noise." if p_oracle >= 0.05 else
        "a gap beyond noise: knowing which items the test users liked still helps, since the held-out item of a "
        "run always has at least one positive test rating while many sampled items have none.")
    )
    parts.append(
        f"Ordering by mean rating reaches only {fmt_number(one['Mean rating'], 4)}: items with one or two enthusiastic "
        f"ratings top that list and have almost no test ratings. Shrinking each mean towards the global mean by "
        f"{SHRINKAGE:g} pseudo-ratings lifts it to {fmt_number(one[shrunk], 4)}, because the shrunk mean leans on the "
        f"number of ratings again. Random sits at {fmt_number(one['Random'], 4)}, the 1/|T_u| of the design."
    )
    return " ".join(parts)


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
    """:func:`bounds_table` without the raw interval ends."""
    return bounds_table(study).drop(columns=["ci_low", "ci_high"])


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


def sweep_settings(sweep: SkewSweep) -> pd.DataFrame:
    """One row per simulated world: the law's constants and what the item counts look like."""
    worlds = sweep.worlds.rename(columns={"most": "ratings of the top item", "fewest": "ratings of the last item",
                                          "top 10% share": "share of ratings on the top 10% of items"})
    return worlds.assign(alpha=worlds["alpha"].map("{:g}".format))


def uniform_text(sweep: SkewSweep) -> str:
    """The alpha = 0 result next to the paper's, with its explanation in numbers."""
    paper = published().set_index("system")["value"]
    exact, loose = sweep.uniform(EXACT), sweep.uniform(IN_EXPECTATION)
    close = abs(exact["Popularity"] - paper["Popularity"]) <= published().set_index("system")["tolerance"]["Popularity"]
    if sweep.preset != "synthetic-ml1m":
        verdict = (f"; the paper reports {paper['Popularity']:.4f} and {paper['Random']:.4f} on worlds of ML-1M's "
                   f"shape, which this build did not simulate (`sweep_preset = \"{sweep.preset}\"`).")
    else:
        verdict = (f"; the paper reports {paper['Popularity']:.4f} and {paper['Random']:.4f}"
                   + (", a match within sampling noise." if close else ", a difference larger than sampling noise."))
    return (
        f"With every item rated the same number of times (to within one rating), popularity measures "
        f"{fmt_number(exact['Popularity'], 4)} (95% interval {fmt_number(exact['Popularity low'], 4)} to "
        f"{fmt_number(exact['Popularity high'], 4)}) against {fmt_number(exact['Random'], 4)} for random, over "
        f"{exact['runs']:,} runs" + verdict
        + f" The closed form predicts {fmt_number(exact['Popularity expected'], 4)} from the ratings alone. "
        "When item counts are fixed only in expectation, their variance is "
        f"{fmt_number(loose['item count variance / mean'], 2)} "
        f"times their mean, the held-out item keeps {fmt_number(-loose['training shift'], 2)} training ratings fewer "
        f"than a random item instead of {fmt_number(-exact['training shift'], 2)}, and popularity measures "
        f"{fmt_number(loose['Popularity'], 4)} against random's {fmt_number(loose['Random'], 4)} (paired test "
        f"p = {fmt_p(loose['p (Popularity vs Random)'])}; expected {fmt_number(loose['Popularity expected'], 4)})."
        + (" The result therefore depends on a detail of the simulation: the papers fix each item's number of "
           "ratings exactly, as our reproduction does; a generator that fixes it only in expectation, like the "
           "default of recbias.synthetic, leaves counts that vary almost like a Poisson law, and popularity then "
           "sits at random."
           if loose["p (Popularity vs Random)"] >= 0.05 and exact["Popularity high"] < exact["Random low"] else "")
    )


def sweep_design_text(sweep: SkewSweep) -> str:
    """The designs of the sweep in words."""
    if sweep.all_relevant is None:
        return "in 1R only"
    k = int(sweep.all_relevant[len("TI-NN("):-1])
    return (f"in 1R and in AR with {k:,} sampled non-relevant items per user ({sweep.all_relevant}, the AR set-up of "
            "the papers' Section 6.3, a fraction of the cost of ranking every item)")


def fitted_alpha_text(ratings: Ratings, preset: str = "synthetic-ml1m") -> str:
    """Where ``ratings`` sit on the alpha axis: the exponent of the law fitted with the preset's
    ``c1`` and ``c2`` (:func:`recbias.synthetic.fit_popularity_curve`)."""
    p = PRESETS[preset]
    fitted = fit_popularity_curve(ratings.item_counts(), floor=p["popularity_floor"], shift=p["popularity_shift"])
    return (f"fitted with the same c1 and c2, the ratings of {ratings.name} give alpha = "
            f"{fmt_number(fitted.alpha, 2)}")


def sweep_shape_text(sweep: SkewSweep) -> str:
    """The size of the sweep's worlds in words."""
    p = PRESETS[sweep.preset]
    size = f"{p['n_users']:,} users, {p['n_items']:,} items and {p['n_ratings']:,} ratings"
    return f"{size}, as MovieLens 1M" if sweep.preset == "synthetic-ml1m" else f"{size}, fewer than MovieLens 1M"


def sweep_text(sweep: SkewSweep) -> str:
    """How popularity and the other systems move along the sweep, read off the figure."""
    top = max(sweep.alphas)
    at = {s: sweep.series(s)[top] for s in ("Popularity", "pLSA", "MF", PERSONALISED, "Random", "Mean rating")}
    uniform = sweep.uniform(EXACT)
    expected = sweep.expected[sweep.expected["counts"] == EXACT].set_index("alpha")
    gap = (expected["Popularity expected"] / expected["Popularity"] - 1).abs().max()
    text = (
        f"Popularity's 1R precision goes from {fmt_number(uniform['Popularity'], 4)} at alpha = 0 to "
        f"{fmt_number(at['Popularity'], 4)} at alpha = {top:g}, {_times(at['Popularity'], at['Random'])} random; "
        f"there pLSA reaches {fmt_number(at['pLSA'], 4)}, {PERSONALISED} {fmt_number(at[PERSONALISED], 4)} and MF "
        f"{fmt_number(at['MF'], 4)}, although no user prefers any item to another. The closed form follows "
        f"popularity's measured precision to within {fmt_pct(gap)} at every alpha. The mean rating, the one ordering "
        f"that reads only rating values, ends at {fmt_number(at['Mean rating'], 4)}"
        + (": with popularity skewed, the items with extreme means are the rarely rated ones, which hold few test "
           "ratings." if at["Mean rating"] < at["Random"] else ".")
    )
    if sweep.all_relevant is not None:
        ar = {s: sweep.series(s, design=sweep.all_relevant)[top] for s in ("Popularity", "pLSA", "Random")}
        text += (f" In AR at alpha = {top:g}: popularity {fmt_number(ar['Popularity'], 4)}, pLSA "
                 f"{fmt_number(ar['pLSA'], 4)}, random {fmt_number(ar['Random'], 4)}.")
    return text


def systems_text(sweep: SkewSweep) -> str:
    """Whether pLSA follows popularity and whether kNN and MF stay at random, with the reason."""
    popularity, random = sweep.series("Popularity"), sweep.series("Random")
    skewed = [a for a in popularity.index if a > 0]
    plsa = sweep.series("pLSA")
    follows = bool(skewed) and (plsa[skewed] / popularity[skewed] - 1).abs().max() <= 0.15
    climbing = [s for s in ("MF", PERSONALISED)
                if skewed and sweep.series(s, "ci_low")[max(skewed)] > random[max(skewed)]]
    parts = [
        "pLSA models the probability that a user rates an item, which in these data depends on the item's popularity "
        "and nothing else, so it can only learn popularity; "
        + ("here it tracks popularity closely, as the papers observed." if follows else
           "here it does not track popularity as closely as the papers observed.")
    ]
    if climbing:
        parts.append(
            "The papers found kNN and MF near random on these data; our " + " and our ".join(climbing)
            + " are not. Our "
            "user-kNN adds up its neighbours' ratings and our MF fits which pairs are rated (implicit "
            "alternating least "
            "squares), so their scores grow with an item's number of ratings, whatever the rating values. The papers' "
            "implementations were presumably rating predictors, whose predictions in a preference-free world are noise "
            "around the mean, like the mean-rating ordering here. A system that learns from which items are rated "
            "inherits the popularity bias even when no user prefers anything."
        )
    else:
        parts.append("kNN and MF stay at random precision, as the papers found: their scores carry no popularity here.")
    return " ".join(parts)


def ratio_text(curves: pd.DataFrame, here: str) -> str:
    """Head and tail positive ratio of every dataset of the figure."""
    trends = ratio_trends(curves)
    parts = []
    for _, row in trends.iterrows():
        direction = ("grows with popularity" if row["Spearman (segment, ratio)"] < 0 and row["p"] < 0.05 else
                     "falls with popularity" if row["Spearman (segment, ratio)"] > 0 and row["p"] < 0.05 else
                     "shows no clear trend")
        mark = " (this page)" if row["dataset"] == here else ""
        parts.append(f"on `{row['dataset']}`{mark} the share of positive ratings {direction}, from "
                     f"{fmt_pct(row['tail ratio'])} on the least popular tenth of items to "
                     f"{fmt_pct(row['head ratio'])} "
                     f"on the most popular tenth")
    return "Read from right to left, " + "; ".join(parts) + "."


def grid_text(grid: pd.DataFrame) -> str:
    """What the measured-vs-true grid shows, at its strongest observation bias and skew and without selection."""
    relative = relative_scores(grid).pivot_table(index=["alpha", "selection"], columns="measure",
                                                 values="popularity / personalised")
    wide = grid.pivot_table(index=["alpha", "selection", "system"], columns="measure", values="mean")
    alpha, selection = relative.index.max()
    cell = relative.loc[(alpha, selection)]
    pop, rnd = wide.loc[(alpha, selection, "Popularity")], wide.loc[(alpha, selection, "Random")]
    calm = relative.loc[(alpha, relative.loc[alpha].index.min())]
    gaps = (relative[["1R", "AR"]].sub(relative["true"], axis=0)).abs().mean()
    closer = "AR" if gaps["AR"] < gaps["1R"] else "1R"
    return (
        f"In the world with alpha = {alpha:g} and selection strength {selection:g}, popularity's 1R precision is "
        f"{_times(pop['1R'], rnd['1R'])} random's, its AR precision {_times(pop['AR'], rnd['AR'])}, but its true "
        f"precision only {_times(pop['true'], rnd['true'])}. Against {PERSONALISED}, popularity scores "
        f"{fmt_pct(cell['1R'])} of its 1R precision and {fmt_pct(cell['AR'])} of its AR precision, while on the "
        f"complete truth it has {fmt_pct(cell['true'])} of its precision; at the same skew without selection the three "
        f"shares are {fmt_pct(calm['1R'])}, {fmt_pct(calm['AR'])} and {fmt_pct(calm['true'])}. Over the grid, "
        f"{closer} comes closer to the true share (mean absolute gap {fmt_number(gaps[closer], 2)} against "
        f"{fmt_number(gaps.drop(closer).iloc[0], 2)})."
    )


def mainstream_text(table: pd.DataFrame, dataset: str) -> str:
    """Popularity and the personalised system in the least and most mainstream groups."""
    measured = table[table["measure"] == "measured"].set_index(["group", "system"])
    first, last = measured.index.get_level_values("group").min(), measured.index.get_level_values("group").max()
    text = (
        f"On `{dataset}`, popularity's AR precision is {fmt_number(measured.loc[(first, 'Popularity'), 'mean'], 3)} "
        f"for the fifth of users whose ratings follow the crowd least and "
        f"{fmt_number(measured.loc[(last, 'Popularity'), 'mean'], 3)} for the fifth who follow it most; "
        f"{PERSONALISED} has {fmt_number(measured.loc[(first, PERSONALISED), 'mean'], 3)} and "
        f"{fmt_number(measured.loc[(last, PERSONALISED), 'mean'], 3)}. "
    )
    wins = (measured.loc[(first, "Popularity"), "wins"], measured.loc[(last, "Popularity"), "wins"])
    text += (f"Popularity beats {PERSONALISED} for none of the users of these two groups." if max(wins) == 0 else
             f"Popularity beats {PERSONALISED} for {fmt_pct(wins[0])} and {fmt_pct(wins[1])} of the users of these "
             "two groups.")
    if (table["measure"] == "true").any():
        true = table[table["measure"] == "true"].set_index(["group", "system"])
        text += (f" On the world's complete relevance the same groups give popularity "
                 f"{fmt_number(true.loc[(first, 'Popularity'), 'mean'], 3)} and "
                 f"{fmt_number(true.loc[(last, 'Popularity'), 'mean'], 3)}, and {PERSONALISED} "
                 f"{fmt_number(true.loc[(first, PERSONALISED), 'mean'], 3)} and "
                 f"{fmt_number(true.loc[(last, PERSONALISED), 'mean'], 3)}.")
    return text


# -------------------------------------------------------------------------- figures
# The page passes the book's colours (``recbias.bookkit.plotting.palette``) and stamps the dataset.

#: line style of each measure of the grid
MEASURE_STYLES = {"1R": {"color": "#d62728", "marker": "o"}, "AR": {"color": "#ff9896", "marker": "s"},
                  "true": {"color": "#222222", "marker": "D"}}


def orderings_figure(study: OrderingStudy, colours: Mapping[str, str]):
    """Mean P@10 with 95% intervals of every ordering, 1R (with the closed-form bounds) and AR."""
    import matplotlib.pyplot as plt

    summary = study.summary()
    bounds = study.bounds.set_index("system")
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.6), sharey=True)
    for ax, design in zip(axes, (study.one_relevant, ALL_RELEVANT_DESIGN), strict=True):
        rows = summary[summary["design"] == design].reset_index(drop=True)
        y = np.arange(len(rows))[::-1]
        for k, row in rows.iterrows():
            colour = colours[row["system"]]
            if design == study.one_relevant:
                b = bounds.loc[row["system"]]
                ax.plot([b["closed-form lower"], b["closed-form upper"]], [y[k]] * 2, color=colour, lw=7, alpha=0.25,
                        solid_capstyle="butt", label="closed-form bounds" if k == 0 else None)
            ax.errorbar(row["mean"], y[k], xerr=[[row["mean"] - row["ci_low"]], [row["ci_high"] - row["mean"]]],
                        fmt="o", color=colour, ms=5, capsize=3)
        if design == study.one_relevant:
            ax.plot(study.expected_popularity, y[list(rows["system"]).index("Popularity")], marker="*", ms=11,
                    color="black", ls="none", label="exact expectation")
            ax.axvline(1 / study.target_size, color="#999999", lw=0.8, ls=":")
            ax.legend(loc="upper left", fontsize=8)
        ax.set_yticks(y, rows["system"])
        ax.set_xlim(left=0)
        title = f"1R, $|T_u^r| = {study.target_size}$" if design == study.one_relevant else f"AR ({design})"
        ax.set_title(title, loc="left")
        ax.set_xlabel("P@10")
    fig.tight_layout()
    return fig


def sweep_figure(sweep: SkewSweep, colours: Mapping[str, str]):
    """IRJ 2017 Fig. 5 left and centre, AR alongside, and popularity's measured against expected precision."""
    import matplotlib.pyplot as plt
    from matplotlib import cm

    fig, axes = plt.subplots(2, 2, figsize=(7.5, 6.8))
    shares, one, ar, check = axes.ravel()
    shade = cm.viridis(np.linspace(0.0, 0.9, len(sweep.alphas)))
    for colour, (alpha, curve) in zip(shade, sweep.curves.groupby("alpha"), strict=True):
        shares.plot(curve["rank_share"], curve["cumulative_share"], color=colour, label=f"$\\alpha = {alpha:g}$")
    shares.set(xlabel="items by popularity rank (share)", ylabel="share of all ratings", xlim=(0, 1), ylim=(0, 1.01))
    shares.legend(fontsize=8, loc="lower right")
    shares.set_title("Popularity of the worlds", loc="left")
    designs = [(one, sweep.one_relevant, "1R"), (ar, sweep.all_relevant, f"AR ({sweep.all_relevant})")]
    for ax, design, title in designs:
        if design is None:
            ax.set_axis_off()
            continue
        for system in sweep.precision["system"].unique():
            mean = sweep.series(system, design=design)
            ls = "--" if system == "Mean rating" else "-"
            ax.plot(mean.index, mean.to_numpy(), marker="o", ms=4, ls=ls, color=colours[system], label=system)
        ax.set(xlabel=r"skew $\alpha$", ylabel="P@10")
        ax.set_title(title, loc="left")
    one.legend(fontsize=7.5, loc="upper left")
    expected = sweep.expected
    exact = expected[expected["counts"] == EXACT].sort_values("alpha")
    check.errorbar(exact["alpha"], exact["Popularity"], yerr=[exact["Popularity"] - exact["Popularity low"],
                   exact["Popularity high"] - exact["Popularity"]], fmt="o", color=colours["Popularity"], capsize=3,
                   label="popularity, measured")
    check.plot(exact["alpha"], exact["Popularity expected"], color="black", lw=1, label="closed form")
    loose = expected[expected["counts"] == IN_EXPECTATION]
    check.plot(loose["alpha"], loose["Popularity"], marker="o", mfc="white", color=colours["Popularity"], ls="none",
               label="item counts in expectation")
    check.axhline(1 / sweep.target_size, color=colours["Random"], lw=1, ls=":", label="random, 1/|T|")
    check.set(xlabel=r"skew $\alpha$", ylabel="1R P@10")
    check.set_title("Popularity, measured and expected", loc="left", fontsize=11)
    check.legend(fontsize=7.5, loc="upper left")
    fig.tight_layout()
    return fig


def ratio_figure(curves: pd.DataFrame, colours: Mapping[str, str], here: str):
    """IRJ 2017 Fig. 7 on every dataset: positive ratio against popularity rank, 100 segments."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for name, curve in curves.groupby("dataset", sort=False):
        ax.plot(curve["rank_share"], curve["positive_ratio"], color=colours[name], lw=2.6 if name == here else 1.4,
                label=f"{name} (this page)" if name == here else name)
    ax.set(xlabel="items by popularity rank, most rated first (share, 100 segments)",
           ylabel=r"$|PR(i)| \,/\, |R(i)|$", xlim=(0, 1), ylim=(0, 1.02))
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    return fig


def truth_figure(grid: pd.DataFrame):
    """Popularity's lift over random and its score relative to the personalised system, measured and true."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean").reset_index()
    wide["lift"] = wide["Popularity"] / wide["Random"]
    wide["relative"] = wide["Popularity"] / wide[PERSONALISED]
    alphas = sorted(wide["alpha"].unique())
    dashes = dict(zip(alphas, ["-", "--", ":", "-."] * len(alphas)))
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.6 + 0.25 * len(dashes)))
    for ax, column, label in ((axes[0], "lift", "popularity / random"),
                              (axes[1], "relative", f"popularity / {PERSONALISED}")):
        for measure, style in MEASURE_STYLES.items():  # legend columns by measure, rows by alpha
            for alpha, line in dashes.items():
                part = wide[(wide["measure"] == measure) & (wide["alpha"] == alpha)]
                ax.plot(part["selection"], part[column], ls=line, ms=4, **style,
                        label=f"{measure}, $\\alpha = {alpha:g}$")
        ax.set(xlabel="observation bias (selection strength)", ylabel=label)
        if column == "lift":
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
    axes[1].axhline(1, color="#999999", lw=0.8, ls=":")
    axes[0].set_title("Over random", loc="left")
    axes[1].set_title(f"Over {PERSONALISED}", loc="left")
    handles, labels = axes[0].get_legend_handles_labels()
    rows = len(dashes)
    fig.legend(handles, labels, loc="lower center", ncol=len(MEASURE_STYLES), fontsize=8, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.02 + 0.055 * rows, 1, 1))
    return fig


def mainstream_figure(table: pd.DataFrame, colours: Mapping[str, str]):
    """Per-user P@10 of popularity and the personalised system by mainstream group, measured (and true)."""
    import matplotlib.pyplot as plt

    measures = list(dict.fromkeys(table["measure"]))
    fig, axes = plt.subplots(1, len(measures), figsize=(7.5 if len(measures) > 1 else 5.0, 3.6), squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        for system, part in table[table["measure"] == measure].groupby("system", sort=False):
            spread = [part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]]
            ax.errorbar(part["group"], part["mean"], yerr=spread,
                        marker="o", ms=4, capsize=3, color=colours[system], label=system)
        ax.set(xlabel="users by agreement with the crowd (fifths)", ylabel="P@10 per user, mean",
               xticks=sorted(table["group"].unique()))
        ax.set_ylim(bottom=0)
        ax.set_title("Measured (AR)" if measure == "measured" else "True", loc="left")
    axes[0][0].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig

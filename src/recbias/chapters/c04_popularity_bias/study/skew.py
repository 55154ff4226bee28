"""Preference-free worlds of growing popularity skew (IRJ 2017 Fig. 5, left and centre): one world per exponent
``alpha`` of the shifted power law, rating values drawn independently of user and item (:func:`skew_sweep`); the
papers' five systems, today's top-N learners and the mean rating under 1R and AR on the metrics of Sec. 5.2, and
popularity's measured precision against its exact expectation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from recbias import judgments
from recbias.chapters.c04_popularity_bias.study.orderings import relative_interval
from recbias.chapters.c04_popularity_bias.study.setup import METRIC, N, one_relevant_design, precision_summary
from recbias.evaluate import compare, summarize
from recbias.evaluate.experiment import run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import PAPERS_SET, RATING_PREDICTORS, TOP_N_LEARNERS, MeanRating, Recommender
from recbias.splits import make_folds
from recbias.synthetic import PREFERENCE_FREE, PRESETS, fit_popularity_curve, generate, simulate
from recbias.theory import expected_popularity_precision_1r, relevant_training_shift

#: non-relevant items per user of the sweep's AR design on ML-1M-sized worlds (IRJ 2017 Sec. 6.3)
SWEEP_NONRELEVANT = 1700

#: the worlds' shape in the papers
PAPERS_PRESET = "synthetic-ml1m"

#: how item counts are fixed in the worlds of the sweep: exactly (the papers) or in expectation
EXACT, IN_EXPECTATION = "exact", "in expectation"
_COUNT_MODES = {EXACT: "items", IN_EXPECTATION: "users"}

#: the metrics of the sweep: P@n and the others the papers report the same effect on (Sec. 5.2)
SWEEP_METRICS = (METRIC, f"Recall@{N}", f"nDCG@{N}", "AP", "RR")


def sweep_all_relevant_design(n_items: int) -> str:
    """AR of the sweep: all relevant test items and ``min(1700, |I| / 2)`` sampled non-relevant ones per user
    (TI-NN), the AR set-up of IRJ 2017 Sec. 6.3, a fraction of the cost of ranking every item."""
    return f"TI-NN({min(SWEEP_NONRELEVANT, n_items // 2)})"


def sweep_systems(seed: int = 0) -> dict[str, str | Recommender]:
    """The papers' five systems, the mean rating and today's top-N learners, in the order the sweep shows them."""
    return {**PAPERS_SET, "Mean rating": MeanRating(seed=seed), **TOP_N_LEARNERS}


@dataclass(frozen=True)
class SkewSweep:
    """The systems on preference-free worlds of growing popularity skew (IRJ 2017 Fig. 5).

    ``precision``: mean P@n with intervals per (alpha, design, system), exact item counts; ``metrics``: the same
    for every metric of :data:`SWEEP_METRICS`, 1R only; ``paired``: 1R paired tests per alpha and metric, every
    system against random and the rating predictors against popularity (``system_a`` the baseline,
    ``difference`` = ``system_a - system_b``, ``t_pvalue``); ``expected``: per (alpha, counts), popularity's and
    random's 1R precision, measured and popularity's in expectation; ``curves``: cumulative share of ratings by
    popularity rank; ``worlds``: the law's ``c1``, ``c2``, ``beta`` and what the counts look like; ``per_user``: 1R
    P@n per (alpha, system, user), the user's number of runs (``runs``) and the sum of her runs' values (``total``).
    """

    precision: pd.DataFrame
    metrics: pd.DataFrame
    paired: pd.DataFrame
    expected: pd.DataFrame
    curves: pd.DataFrame
    worlds: pd.DataFrame
    preset: str
    target_size: int
    test_ratio: float
    per_user: pd.DataFrame

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

    @property
    def top(self) -> float:
        """The largest skew of the sweep."""
        return max(self.alphas)

    @property
    def skewed(self) -> list[float]:
        """The skews above zero."""
        return [a for a in self.alphas if a > 0]

    def difference(self, baseline: str, system: str, metric: str = METRIC) -> pd.DataFrame:
        """Per alpha: ``system``'s 1R mean minus ``baseline``'s (``difference``) and its paired p-value."""
        p = self.paired
        rows = p[(p["system_a"] == baseline) & (p["system_b"] == system) & (p["metric"] == metric)]
        return pd.DataFrame({"difference": -rows["difference"].to_numpy(), "p": rows["t_pvalue"].to_numpy()},
                            index=pd.Index(rows["alpha"].to_numpy(), name="alpha")).sort_index()

    def relative(self, baseline: str, system: str, confidence: float, metric: str = METRIC) -> pd.DataFrame:
        """Per alpha: the paired t interval (``low``, ``high``) at ``confidence`` of ``system``'s 1R mean over
        ``baseline``'s, minus 1."""
        p = self.paired
        rows = p[(p["system_a"] == baseline) & (p["system_b"] == system) & (p["metric"] == metric)]
        ends = [relative_interval(row, confidence, over_a=True) for _, row in rows.iterrows()]
        return pd.DataFrame(ends, columns=["low", "high"], index=pd.Index(rows["alpha"].to_numpy(), name="alpha"),
                            dtype=float).sort_index()

    def steps(self, system: str) -> pd.DataFrame:
        """Per alpha but the smallest: ``system``'s 1R P@n there minus at the alpha before (``from``), as
        ``difference``, and its p-value (``p``) from :func:`independent_difference`: the worlds are separate, so their
        users are independent samples."""
        rows = self.per_user[self.per_user["system"] == system]
        worlds = [rows[rows["alpha"] == alpha] for alpha in self.alphas]
        tests = [independent_difference(before, after) for before, after in zip(worlds[:-1], worlds[1:], strict=True)]
        return pd.DataFrame(tests, columns=["difference", "p"], dtype=float,
                            index=pd.Index(self.alphas[1:], name="alpha")).assign(**{"from": self.alphas[:-1]})

    def series(self, system: str, column: str = "mean", design: str | None = None) -> pd.Series:
        """``column`` of ``system``'s P@n by alpha (1R unless ``design`` is given)."""
        p = self.precision
        rows = p[(p["system"] == system) & (p["design"] == (design or self.one_relevant))]
        return rows.set_index("alpha")[column].sort_index()

    @property
    def label(self) -> str:
        """Short name of the simulated data, for figure stamps."""
        return "simulated, ML-1M shape" if self.preset == PAPERS_PRESET else f"simulated, {self.preset}"

    @property
    def dataset(self) -> str:
        """The data the sweep's claims are checked on (the papers' own when the preset is ML-1M's)."""
        return "preference-free worlds of " + ("ML-1M's shape" if self.preset == PAPERS_PRESET else self.preset)

    def uniform(self, counts: str = EXACT) -> pd.Series:
        """The row of :attr:`expected` at ``alpha = 0`` for item counts fixed ``counts``."""
        e = self.expected
        return e[(e["alpha"] == 0) & (e["counts"] == counts)].iloc[0]


def run_average(per_user: pd.DataFrame) -> tuple[float, float, int]:
    """The run average of per-user ``runs`` and ``total`` (IRJ Eq. 1), its variance with users as clusters
    (:mod:`recbias.evaluate.statistics`) and the number of users."""
    runs, total = per_user["runs"].to_numpy(dtype=float), per_user["total"].to_numpy(dtype=float)
    users, count = len(runs), runs.sum()
    mean = total.sum() / count
    return mean, users / (users - 1) * float(np.sum((total - mean * runs) ** 2)) / count**2, users


def independent_difference(first: pd.DataFrame, second: pd.DataFrame) -> tuple[float, float]:
    """The run average of ``second`` minus that of ``first``, two independent samples of users (per-user ``runs``
    and ``total``), and its two-sided p-value: Welch's t on the two cluster-robust variances, with Satterthwaite's
    degrees of freedom (with one run per user, :func:`scipy.stats.ttest_ind` with ``equal_var=False``)."""
    (mean_1, var_1, users_1), (mean_2, var_2, users_2) = run_average(first), run_average(second)
    difference, variance = mean_2 - mean_1, var_1 + var_2
    if variance == 0:
        return difference, float(difference == 0)
    freedom = variance**2 / (var_1**2 / (users_1 - 1) + var_2**2 / (users_2 - 1))
    return difference, float(2 * stats.t.sf(abs(difference) / np.sqrt(variance), freedom))


def _measured_and_expected(ratings: Ratings, alpha: float, counts: str, runs: pd.DataFrame, test_ratio: float,
                           target_size: int) -> dict:
    """Popularity and random in 1R on one world: measured, paired test, expected, and the item counts' spread."""
    one = runs[runs["design"] == one_relevant_design(target_size)]
    table = precision_summary(one, ("system",)).set_index("system")
    versus = compare(one, [METRIC], baseline="Random", systems=["Random", "Popularity"], average="run").iloc[0]
    item_counts = ratings.item_counts()
    return {
        "alpha": alpha, "counts": counts, "item count variance / mean": item_counts.var() / item_counts.mean(),
        "training shift": relevant_training_shift(item_counts.mean(), item_counts.var(), test_ratio),
        "Popularity": table.loc["Popularity", "mean"], "Popularity low": table.loc["Popularity", "ci_low"],
        "Popularity high": table.loc["Popularity", "ci_high"],
        "Popularity expected": expected_popularity_precision_1r(ratings, test_ratio, target_size, N),
        "Random": table.loc["Random", "mean"], "p (Popularity vs Random)": versus["t_pvalue"],
    }


def _world_shape(ratings: Ratings, alpha: float, law) -> dict:
    """The law's constants of one world and what its item counts look like."""
    counts = np.sort(ratings.item_counts())[::-1]
    head = counts[: max(1, len(counts) // 10)].sum() / counts.sum()
    return {"alpha": alpha, "c1": law.c1, "c2": law.c2, "beta": law.beta, "most": int(counts[0]),
            "fewest": int(counts[-1]), "top 10% share": head}


def _paired(one: pd.DataFrame) -> pd.DataFrame:
    """1R paired tests, users as clusters: every system against random, the rating predictors and pLSA against
    popularity."""
    systems = list(dict.fromkeys(one["system"]))
    against_random = compare(one, list(SWEEP_METRICS), baseline="Random", systems=["Random", *systems],
                             average="run")
    against_popularity = compare(one, list(SWEEP_METRICS), baseline="Popularity",
                                 systems=["Popularity", *RATING_PREDICTORS, "pLSA"], average="run")
    return pd.concat([against_random, against_popularity], ignore_index=True)


def _per_user(one: pd.DataFrame) -> pd.DataFrame:
    """1R P@n per system and user: the user's number of runs and their sum."""
    return one.groupby(["system", "user"], observed=True)[METRIC].agg(runs="size", total="sum").reset_index()


def _exact_world(alpha: float, designs: list[str], *, preset: str, seed: int, test_ratio: float, target_size: int,
                 cache: bool) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict, pd.DataFrame, dict,
                                       pd.DataFrame]:
    """One world of the sweep with exact item counts: the systems' precision (the top-N learners in 1R only, for
    time), popularity against its expectation, the cumulative share of ratings, the world's shape and the 1R
    precision per user."""
    world = simulate(preset=preset, alpha=alpha, exact_counts=_COUNT_MODES[EXACT], seed=seed, **PREFERENCE_FREE)
    ratings, law = world.ratings, world.popularity
    del world  # the dense arrays of the world are not needed any more
    folds = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)
    setup = {"folds": folds, "metrics": list(SWEEP_METRICS), "seed": seed, "cache": cache}
    every_design = {label: system for label, system in sweep_systems(seed).items() if label not in TOP_N_LEARNERS}
    runs = pd.concat([run_experiment(ratings, designs, every_design, **setup).runs,
                      run_experiment(ratings, designs[:1], TOP_N_LEARNERS, **setup).runs], ignore_index=True)
    spread = judgments.from_ratings(ratings, threshold=ratings.scale[0])
    one = runs[runs["design"] == designs[0]]
    return (precision_summary(runs, ("design", "system")).assign(alpha=alpha),
            summarize(one, list(SWEEP_METRICS), ("system",), average="run").assign(alpha=alpha),
            _paired(one).assign(alpha=alpha),
            _measured_and_expected(ratings, alpha, EXACT, runs, test_ratio, target_size),
            judgments.cumulative_share(spread).assign(alpha=alpha), _world_shape(ratings, alpha, law),
            _per_user(one).assign(alpha=alpha))


def _uniform_in_expectation(design: str, *, preset: str, seed: int, test_ratio: float, target_size: int,
                            cache: bool) -> dict:
    """Popularity and random in 1R on the world at ``alpha = 0`` whose item counts are equal only in expectation."""
    loose = generate(preset=preset, alpha=0.0, exact_counts=_COUNT_MODES[IN_EXPECTATION], seed=seed,
                     **PREFERENCE_FREE)
    folds = make_folds(loose, folds=1, test_ratio=test_ratio, seed=seed)
    baselines = {"Popularity": "popularity", "Random": "random"}
    experiment = run_experiment(loose, [design], baselines, folds=folds, metrics=[METRIC], seed=seed, cache=cache)
    return _measured_and_expected(loose, 0.0, IN_EXPECTATION, experiment.runs, test_ratio, target_size)


def skew_sweep(alphas: Sequence[float], *, seed: int = 0, preset: str = PAPERS_PRESET, test_ratio: float = 0.2,
               target_size: int = 100, all_relevant: bool = True, cache: bool = True) -> SkewSweep:
    """IRJ 2017 Fig. 5 (left, centre): one preference-free world per ``alpha`` with the shape of ``preset``, with
    exactly ``round(c1 + beta (c2 + k)^-alpha)`` ratings on the item of rank ``k`` and rating values drawn from the
    preset's prior; one coin-flip split, the systems of :func:`sweep_systems` (fits cached), the 1R design and,
    with ``all_relevant``, the AR design of :func:`sweep_all_relevant_design`.  ``alpha = 0`` is always included,
    once more with item counts exact only in expectation (popularity and random only)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown synthetic preset {preset!r}; known presets: {', '.join(PRESETS)}")
    designs = [one_relevant_design(target_size)]
    designs += [sweep_all_relevant_design(PRESETS[preset]["n_items"])] if all_relevant else []
    setup = {"preset": preset, "seed": seed, "test_ratio": test_ratio, "target_size": target_size, "cache": cache}
    precision, metrics, paired, expected, curves, worlds, per_user = zip(
        *(_exact_world(alpha, designs, **setup) for alpha in sorted({0.0, *map(float, alphas)})), strict=True)
    expected = [*expected, _uniform_in_expectation(designs[0], **setup)]
    return SkewSweep(pd.concat(precision, ignore_index=True), pd.concat(metrics, ignore_index=True),
                     pd.concat(paired, ignore_index=True), pd.DataFrame(expected),
                     pd.concat(curves, ignore_index=True), pd.DataFrame(worlds), preset, int(target_size),
                     float(test_ratio), pd.concat(per_user, ignore_index=True))


def expectation_gap(sweep: SkewSweep) -> float:
    """The largest relative gap between popularity's measured and expected 1R precision (exact item counts)."""
    exact = sweep.expected[sweep.expected["counts"] == EXACT]
    return float((exact["Popularity expected"] / exact["Popularity"] - 1).abs().max())


def plsa_gap(sweep: SkewSweep) -> float:
    """The largest relative gap between pLSA's and popularity's 1R precision where alpha > 0 (NaN without one)."""
    if not sweep.skewed:
        return float("nan")
    popularity, plsa = sweep.series("Popularity")[sweep.skewed], sweep.series("pLSA")[sweep.skewed]
    return float((plsa / popularity - 1).abs().max())


def fitted_alpha(ratings: Ratings, preset: str = PAPERS_PRESET) -> float:
    """Where ``ratings`` sit on the alpha axis: the exponent of the law fitted with the preset's ``c1`` and ``c2``."""
    p = PRESETS[preset]
    return float(fit_popularity_curve(ratings.item_counts(), floor=p["popularity_floor"],
                                      shift=p["popularity_shift"]).alpha)

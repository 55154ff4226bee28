"""Chapter 4 ("The popularity bias"): preference-free worlds of growing popularity skew (IRJ 2017 Fig. 5).

One world per exponent ``alpha`` of the shifted power law, with ML-1M's numbers of users, items and
ratings and rating values drawn independently of user and item (:func:`skew_sweep`); the five systems
and the mean rating under 1R and AR, popularity's measured precision against its exact expectation,
the published numbers at ``alpha = 0`` (``published/popularity.csv``), and the page's tables,
sentences and figures of the sweep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

from recbias import judgments
from recbias.evaluate import compare
from recbias.experiments.popularity import METRIC, N, PERSONALISED, one_relevant_design, precision_summary, times_text
from recbias.experiments.runner import PAPER_SYSTEMS, make_folds, run_experiment
from recbias.ratings import Ratings
from recbias.recommenders import MeanRating, Recommender
from recbias.synthetic import PREFERENCE_FREE, PRESETS, fit_popularity_curve, generate, simulate
from recbias.text import fmt_number, fmt_p, fmt_pct
from recbias.theory import expected_popularity_precision_1r, relevant_training_shift

#: non-relevant items per user of the sweep's AR design on ML-1M-sized worlds (IRJ 2017 Sec. 6.3)
SWEEP_NONRELEVANT = 1700


def sweep_all_relevant_design(n_items: int) -> str:
    """AR of the sweep: all relevant test items and ``min(1700, |I| / 2)`` sampled non-relevant ones
    per user (TI-NN), the AR set-up of IRJ 2017 Sec. 6.3, a fraction of the cost of ranking every item."""
    return f"TI-NN({min(SWEEP_NONRELEVANT, n_items // 2)})"


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
    table = precision_summary(one, ("system",)).set_index("system")
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
        precision.append(precision_summary(experiment.runs, ("design", "system")).assign(alpha=alpha))
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
        f"{fmt_number(at['Popularity'], 4)} at alpha = {top:g}, {times_text(at['Popularity'], at['Random'])} random; "
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

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
from recbias.evaluate.experiment import PAPER_SYSTEMS, run_experiment
from recbias.splits import make_folds
from recbias.ratings import Ratings
from recbias.recommenders import MeanRating, Recommender
from recbias.synthetic import PREFERENCE_FREE, PRESETS, fit_popularity_curve, generate, simulate
from recbias.text import fmt_ci, fmt_number, fmt_p, fmt_p_clause, fmt_pct
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
    """The alpha = 0 worlds next to the paper's: per world, how its item counts vary (variance over mean), the
    shift of the held-out item's training count, random's and popularity's 1R P@n (popularity over its
    interval), popularity's closed form and the paired test; the paper's values in a first row."""
    paper = published().set_index("system")["value"]
    rows = [{"item counts": "exact<br><small>IRJ 2017</small>", "V / μ": "–", "shift": "–",
             "Random": f"{paper['Random']:.4f}", "Popularity": f"{paper['Popularity']:.4f}", "closed form": "–",
             "p": "–"}]
    for counts in (EXACT, IN_EXPECTATION):
        row = sweep.uniform(counts)
        rows.append({
            "item counts": f"{counts}<br><small>ours</small>",
            "V / μ": fmt_number(row["item count variance / mean"], 2),
            "shift": fmt_number(row["training shift"], 2), "Random": fmt_number(row["Random"], 4),
            "Popularity": fmt_ci(row["Popularity"], (row["Popularity low"], row["Popularity high"]), 4),
            "closed form": fmt_number(row["Popularity expected"], 4), "p": fmt_p(row["p (Popularity vs Random)"]),
        })
    return pd.DataFrame(rows)


def sweep_settings(sweep: SkewSweep) -> pd.DataFrame:
    """One row per simulated world: the law's constants and what the item counts look like."""
    worlds = sweep.worlds
    return pd.DataFrame({
        "α": worlds["alpha"].map("{:g}".format), "c₁": worlds["c1"].map("{:g}".format),
        "c₂": worlds["c2"].map("{:.1f}".format), "β": worlds["beta"].map("{:.3g}".format),
        "ratings of the most rated item": worlds["most"].map("{:,}".format),
        "ratings of the least rated item": worlds["fewest"].map("{:,}".format),
        "share of ratings on the top 10% of items": worlds["top 10% share"].map("{:.0%}".format),
    })


def sweep_table(sweep: SkewSweep) -> pd.DataFrame:
    """1R P@n of every system (columns) in every world of the sweep (rows, by ``alpha``)."""
    wide = sweep.precision[sweep.precision["design"] == sweep.one_relevant].pivot_table(
        index="alpha", columns="system", values="mean", sort=False)
    wide = wide[list(dict.fromkeys(sweep.precision["system"]))].sort_index()
    return wide.map("{:.4f}".format).rename_axis(index="α", columns=None).reset_index() \
        .assign(**{"α": lambda frame: frame["α"].map("{:g}".format)})


def uniform_text(sweep: SkewSweep) -> str:
    """The alpha = 0 result next to the paper's, and why it depends on how exactly item counts are fixed."""
    paper = published().set_index("system")
    exact, loose = sweep.uniform(EXACT), sweep.uniform(IN_EXPECTATION)
    below = exact["Popularity high"] < exact["Random low"]
    close = abs(exact["Popularity"] - paper.loc["Popularity", "value"]) <= paper.loc["Popularity", "tolerance"]
    text = (("With every item rated the same number of times, popularity measures below random, as the papers "
             "found" if below else "With every item rated the same number of times, popularity does not measure "
             "below random here")
            + (f", and our value matches the paper's {paper.loc['Popularity', 'value']:.4f} within sampling noise. "
               if close and sweep.preset == "synthetic-ml1m" else
               f"; the paper reports {paper.loc['Popularity', 'value']:.4f}"
               + (", further than sampling noise allows. " if sweep.preset == "synthetic-ml1m" else
                  f" on worlds of ML-1M's shape, which this build did not simulate (`sweep_preset = "
                  f"\"{sweep.preset}\"`). "))
            + f"The closed form {fmt_number(exact['Popularity expected'], 4)} predicts it from the ratings alone. ")
    text += (f"When item counts are fixed only in expectation, they vary almost like a Poisson law (variance "
             f"{fmt_number(loose['item count variance / mean'], 2)} times the mean), the held-out item loses most of "
             f"its handicap (its training count lies {fmt_number(-loose['training shift'], 2)} ratings below a sampled "
             f"item's instead of {fmt_number(-exact['training shift'], 2)}), and popularity "
             + ("sits at random" if loose["p (Popularity vs Random)"] >= 0.05 else "moves away from random")
             + f" (paired test {fmt_p_clause(loose['p (Popularity vs Random)'])}).")
    if loose["p (Popularity vs Random)"] >= 0.05 and below:
        text += (" The papers' result therefore rests on a detail of their simulation, which fixes each item's "
                 "number of ratings exactly, as our reproduction does; the default generator of recbias.synthetic "
                 "fixes it only in expectation.")
    return text


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
    return (f"fitted with the same c₁ and c₂, the ratings of {ratings.name} give α = "
            f"{fmt_number(fitted.alpha, 2)}")


def sweep_shape_text(sweep: SkewSweep) -> str:
    """The size of the sweep's worlds in words."""
    p = PRESETS[sweep.preset]
    size = f"{p['n_users']:,} users, {p['n_items']:,} items and {p['n_ratings']:,} ratings"
    return f"{size}, as MovieLens 1M" if sweep.preset == "synthetic-ml1m" else f"{size}, fewer than MovieLens 1M"


def climbing(sweep: SkewSweep) -> list[str]:
    """The personalised systems whose 1R precision lies above random's at the largest skew (interval apart)."""
    top = max(sweep.alphas)
    return [s for s in ("pLSA", PERSONALISED, "MF") if sweep.series(s, "ci_low")[top] > sweep.series("Random")[top]]


def climbing_text(sweep: SkewSweep) -> str:
    """The closing summary's sentence on systems that climb with the skew on preference-free worlds."""
    names = climbing(sweep)
    if not names:
        return ("None of the personalised systems climbed with the skew on the preference-free worlds here, but a "
                "system that learns from which items are rated can")
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"Here {listed} climb{'s' if len(names) == 1 else ''} with the skew on data without any preference"


def sweep_text(sweep: SkewSweep) -> str:
    """How popularity and the other systems move along the sweep, read off the figure and the table."""
    top = max(sweep.alphas)
    at = {s: sweep.series(s)[top] for s in ("Popularity", "Random", "Mean rating")}
    climbers = climbing(sweep)
    uniform = sweep.uniform(EXACT)
    expected = sweep.expected[sweep.expected["counts"] == EXACT].set_index("alpha")
    gap = (expected["Popularity expected"] / expected["Popularity"] - 1).abs().max()
    start = ("from below random" if uniform["Popularity high"] < uniform["Random low"] else "from random level")
    text = (
        f"Popularity's 1R precision climbs {start} at α = 0 to {times_text(at['Popularity'], at['Random'])} random "
        f"at α = {top:g}"
        + (f", and {', '.join(climbers[:-1]) + ' and ' if len(climbers) > 1 else ''}{climbers[-1]} climb with it, "
           "although no user prefers any item to another" if climbers else "")
        + f". The exact expectation follows popularity's measured precision to within {fmt_pct(gap, 0)} at every α. "
        "The mean rating, the one ordering that reads only rating values, "
        + ("ends below random: with popularity skewed, the items with extreme means are the rarely rated ones, which "
           "hold few test ratings." if at["Mean rating"] < at["Random"] else "stays near random.")
    )
    if sweep.all_relevant is not None:
        ar = {s: sweep.series(s, design=sweep.all_relevant)[top] for s in ("Popularity", "Random")}
        text += (f" AR tells the same story: at α = {top:g} popularity reaches "
                 f"{times_text(ar['Popularity'], ar['Random'])} random's precision.")
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
    """IRJ 2017 Fig. 5, left and centre: the cumulative share of ratings by popularity rank in every world, and
    1R P@n of every system against the skew ``alpha`` (the mean rating dashed)."""
    import matplotlib.pyplot as plt
    from matplotlib import cm

    fig, (shares, one) = plt.subplots(1, 2, figsize=(7.2, 4.4))
    shade = cm.viridis(np.linspace(0.0, 0.9, len(sweep.alphas)))
    for colour, (alpha, curve) in zip(shade, sweep.curves.groupby("alpha"), strict=True):
        shares.plot(curve["rank_share"], curve["cumulative_share"], color=colour, lw=1.8,
                    label=f"$\\alpha = {alpha:g}$")
    shares.set(xlabel="items by popularity rank", ylabel="share of all ratings", xlim=(0, 1), ylim=(0, 1.01))
    shares.legend(loc="lower right")
    shares.set_title("Popularity of the worlds", loc="left")
    _systems_panel(one, sweep, sweep.one_relevant, colours)
    one.set_title("1R", loc="left")
    fig.legend(*one.get_legend_handles_labels(), loc="lower center", ncol=3, handletextpad=0.4, columnspacing=1.2)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig


def _systems_panel(ax, sweep: SkewSweep, design: str, colours: Mapping[str, str]) -> None:
    """P@n of every system of the sweep against ``alpha`` under ``design``, the mean rating dashed."""
    for system in sweep.precision["system"].unique():
        mean = sweep.series(system, design=design)
        ax.plot(mean.index, mean.to_numpy(), marker="o", ms=5, lw=1.6, ls="--" if system == "Mean rating" else "-",
                color=colours[system], label=system)
    ax.set(xlabel=r"skew $\alpha$", ylabel=f"P@{N}")
    ax.set_ylim(bottom=0)


def sweep_check_figure(sweep: SkewSweep, colours: Mapping[str, str]):
    """The sweep in AR (left, when it was run) and popularity's measured 1R precision with its 95% interval
    against the exact expectation (right); the hollow point is the world at ``alpha = 0`` whose item counts are
    fixed only in expectation."""
    import matplotlib.pyplot as plt

    panels = 2 if sweep.all_relevant is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(7.2 if panels == 2 else 4.8, 4.4), squeeze=False)
    if panels == 2:
        _systems_panel(axes[0, 0], sweep, sweep.all_relevant, colours)
        axes[0, 0].set_title("AR", loc="left")
    check = axes[0, -1]
    expected = sweep.expected
    exact = expected[expected["counts"] == EXACT].sort_values("alpha")
    check.errorbar(exact["alpha"], exact["Popularity"], yerr=[exact["Popularity"] - exact["Popularity low"],
                   exact["Popularity high"] - exact["Popularity"]], fmt="o", ms=6, color=colours["Popularity"],
                   capsize=3, label="measured")
    check.plot(exact["alpha"], exact["Popularity expected"], color="black", lw=1.2, label="exact expectation")
    loose = expected[expected["counts"] == IN_EXPECTATION]
    check.plot(loose["alpha"], loose["Popularity"], marker="o", ms=7, mfc="white", color=colours["Popularity"],
               ls="none", label="counts in expectation")
    check.axhline(1 / sweep.target_size, color=colours["Random"], lw=1.2, ls=":", label="random")
    check.set(xlabel=r"skew $\alpha$", ylabel=f"popularity, 1R P@{N}")
    check.set_ylim(bottom=0)
    check.set_title("Popularity, 1R", loc="left")
    check.legend(loc="upper left")
    fig.tight_layout()
    return fig

"""Chapter 4's display tables (formatted cells, one row per ordering, world or dataset) and the numbers its
prose quotes, formatted as the page prints them (``{glue name: text}``, one mapping per section)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c04_popularity_bias.claims import paper_number
from recbias.chapters.c04_popularity_bias.study.orderings import INSIDE, ORACLE, OrderingStudy, bounds_table
from recbias.chapters.c04_popularity_bias.study.ratio import FALLS, GROWS, NO_TREND, ratio_trends
from recbias.chapters.c04_popularity_bias.study.setup import PERSONALISED, SHRUNK_MEAN_RATING
from recbias.chapters.c04_popularity_bias.study.skew import (EXACT, IN_EXPECTATION, TOP_N_LEARNERS, SkewSweep,
                                                             expectation_gap, fitted_alpha)
from recbias.chapters.c04_popularity_bias.study.truth import popularity_over
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS
from recbias.text import and_list, fmt_ci, fmt_count, fmt_interval, fmt_number, fmt_p, fmt_p_clause, fmt_pct, fmt_span

#: the trend of the share of positive ratings along popularity, in words
TREND_WORDS = {GROWS: "grows with popularity", FALLS: "falls with popularity", NO_TREND: "shows no clear trend"}

#: the orderings the prose quotes, by the start of their glue names
QUOTED = {"popularity": "Popularity", "positive": "Positive count", "mean": "Mean rating", "shrunk": SHRUNK_MEAN_RATING}


def _pairs(low: pd.Series, high: pd.Series) -> list[str]:
    """Each pair of bounds as one ``low –`` / ``high`` cell on two lines."""
    return [f"{fmt_number(lo, 4)} –<br>{fmt_number(hi, 4)}" for lo, hi in zip(low, high, strict=True)]


def orderings_bounds_table(study: OrderingStudy) -> pd.DataFrame:
    """Per ordering: 1R precision over its interval, the closed-form bounds and where the interval lies against
    them, the exact expectation (popularity, random), and the lemma's bounds around the first split's precision."""
    table = bounds_table(study)
    return pd.DataFrame({
        "ordering": table["system"],
        "1R P@10": [fmt_ci(m, (lo, hi), 4) for m, lo, hi in zip(table["1R P@10"], table["ci_low"], table["ci_high"],
                                                                 strict=True)],
        "closed-form bounds": _pairs(table["closed-form lower"], table["closed-form upper"]),
        "interval against them": table["position"],
        "exact expectation": [fmt_number(v, 4) if np.isfinite(v) else "–" for v in table["exact expectation"]],
        "first split: lemma bounds": _pairs(table["lemma lower"], table["lemma upper"]),
        "first split: 1R P@10": [fmt_number(v, 4) for v in table["first split"]],
    })


def orderings_numbers(study: OrderingStudy) -> dict[str, str]:
    """The set-up, the orderings' 1R precision and paired tests, popularity's bounds and share of the oracle, and
    how many orderings meet their closed-form bounds and the lemma's."""
    one, design = study.means(study.one_relevant), study.one_relevant
    table = bounds_table(study).set_index("system")
    best = study.best_trained(design)
    popularity = table.loc["Popularity"]
    return {
        "dataset-name": study.dataset, "target-size": str(study.target_size), "one-relevant-design": design,
        "folds-text": fmt_count(study.folds, "coin-flip split", "coin-flip splits"),
        "test-share": fmt_pct(study.test_ratio, 0), "best-ordering": best.lower(),
        "best-ordering-precision": fmt_number(one[best], 4),
        **{f"{name}-1r": fmt_number(one[system], 4) for name, system in QUOTED.items()},
        "positive-vs-all-p": fmt_p_clause(study.comparison(design, "Positive count", "Popularity")["t_pvalue"]),
        "mean-vs-popularity-p": fmt_p_clause(study.comparison(design, "Mean rating", "Popularity")["t_pvalue"]),
        "shrunk-vs-mean-p": fmt_p_clause(study.comparison(design, SHRUNK_MEAN_RATING, "Mean rating")["t_pvalue"]),
        "oracle-share": fmt_pct(one["Popularity"] / one[ORACLE], 0),
        **{f"bounds-{name}": fmt_number(popularity[column], 4) for name, column in (
            ("lower", "closed-form lower"), ("upper", "closed-form upper"), ("expected", "exact expectation"))},
        "orderings": str(len(table)), "bounds-met": str(int((table["position"] == INSIDE).sum())),
        "lemma-held": str(int(table["lemma holds"].sum())),
    }


def worlds_table(sweep: SkewSweep) -> pd.DataFrame:
    """One row per simulated world of the sweep: the law's constants and what the item counts look like."""
    worlds = sweep.worlds
    return pd.DataFrame({
        "α": worlds["alpha"].map("{:g}".format), "c₁": worlds["c1"].map("{:g}".format),
        "c₂": worlds["c2"].map("{:.1f}".format), "β": worlds["beta"].map("{:.3g}".format),
        "ratings of the most rated item": worlds["most"].map("{:,}".format),
        "ratings of the least rated item": worlds["fewest"].map("{:,}".format),
        "top 10% of items' share of ratings": worlds["top 10% share"].map("{:.0%}".format),
    })


def sweep_table(sweep: SkewSweep) -> pd.DataFrame:
    """1R P@n of every system (columns) in every world of the sweep (rows, by ``alpha``)."""
    wide = sweep.precision[sweep.precision["design"] == sweep.one_relevant].pivot_table(
        index="alpha", columns="system", values="mean", sort=False)
    wide = wide[list(dict.fromkeys(sweep.precision["system"]))].sort_index()
    return wide.map("{:.4f}".format).rename_axis(index="α", columns=None).reset_index() \
        .assign(**{"α": lambda frame: frame["α"].map("{:g}".format)})


def _lift(value: float, reference: float, suffix: str = "×") -> str:
    """``value`` over ``reference`` with one decimal, as ``"3.2×"`` (``"–"`` when the reference is zero)."""
    return f"{value / reference:.1f}{suffix}" if reference > 0 else "–"


def metrics_table(sweep: SkewSweep) -> pd.DataFrame:
    """``popularity / random`` in 1R on every metric (rows) at every skew (columns), the lift on a second line."""
    means = sweep.metrics.set_index(["metric", "alpha", "system"])["mean"]
    metrics = list(dict.fromkeys(sweep.metrics["metric"]))
    return pd.DataFrame([{"metric": metric} | {
        f"α = {alpha:g}": f"{fmt_number(means[(metric, alpha, 'Popularity')], 4)} / "
                          f"{fmt_number(means[(metric, alpha, 'Random')], 4)}<br><small>"
                          f"{_lift(means[(metric, alpha, 'Popularity')], means[(metric, alpha, 'Random')])}</small>"
        for alpha in sweep.alphas} for metric in metrics])


def sweep_numbers(sweep: SkewSweep, ratings: Ratings) -> dict[str, str]:
    """The set-up of the sweep (its worlds, designs and skews, and where ``ratings`` sit on the skew axis), and
    popularity, random, the mean rating and the top-N learners at the largest skew."""
    shape, law, top = PRESETS[sweep.preset], sweep.worlds.iloc[0], sweep.top
    at = {s: sweep.series(s)[top] for s in ("Popularity", "Random")}
    ar = {s: sweep.series(s, design=sweep.all_relevant)[top] for s in ("Popularity", "Random")}
    mean_rating = {column: sweep.series("Mean rating", column)[top] for column in ("mean", "ci_low", "ci_high")}
    return {
        **{f"sweep-{what}": f"{shape[f'n_{what}']:,}" for what in ("users", "items", "ratings")},
        "sweep-preset": sweep.preset, "sweep-c1": f"{law['c1']:g}", "sweep-c2": f"{law['c2']:.1f}",
        "sweep-shift": fmt_pct(shape["popularity_shift"], 0), "sweep-train-share": fmt_pct(1 - sweep.test_ratio, 0),
        "sweep-nonrelevant": f"{int(sweep.all_relevant[len('TI-NN('):-1]):,}", "sweep-ar-design": sweep.all_relevant,
        "alpha-here": fmt_number(fitted_alpha(ratings), 2), "sweep-count": str(len(sweep.alphas)),
        "sweep-alphas": and_list([f"{a:g}" for a in sweep.alphas]), "sweep-top": f"{top:g}",
        "sweep-lift": _lift(at["Popularity"], at["Random"], ""),
        "sweep-lift-ar": _lift(ar["Popularity"], ar["Random"], ""),
        "sweep-expectation-gap": fmt_pct(expectation_gap(sweep), 0), "random-top": fmt_number(at["Random"], 4),
        "mean-rating-top": fmt_interval(mean_rating["mean"], (mean_rating["ci_low"], mean_rating["ci_high"]), 4),
        "mean-rating-p": fmt_p_clause(sweep.difference("Random", "Mean rating").loc[top, "p"]),
        **{f"{preset}-top": fmt_number(sweep.series(label)[top], 4) for label, preset in TOP_N_LEARNERS.items()},
        **{f"{preset}-p": fmt_p_clause(sweep.difference("Random", label).loc[top, "p"])
           for label, preset in TOP_N_LEARNERS.items()},
    }


def uniform_table(sweep: SkewSweep) -> pd.DataFrame:
    """The alpha = 0 worlds after the paper's values: how the item counts vary (variance over mean), the shift of
    the held-out item's training count, random's and popularity's 1R P@n, popularity's closed form and p."""
    paper = {system: paper_number(system).value for system in ("Random", "Popularity")}
    rows = [{"item counts": "exact<br><small>IRJ 2017</small>", "V / μ": "–", "shift": "–",
             "Random": fmt_number(paper["Random"], 4), "Popularity": fmt_number(paper["Popularity"], 4),
             "closed form": "–", "p": "–"}]
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


def uniform_numbers(sweep: SkewSweep) -> dict[str, str]:
    """The worlds at alpha = 0: the paper's popularity and its tolerance, and ours with item counts fixed exactly
    (closed form, shift) and only in expectation (variance over mean, shift, popularity against random)."""
    exact, loose, paper = sweep.uniform(EXACT), sweep.uniform(IN_EXPECTATION), paper_number("Popularity")
    return {
        "paper-popularity": fmt_number(paper.value, 4), "paper-tolerance": fmt_number(paper.tolerance, 4),
        "uniform-popularity": fmt_number(exact["Popularity"], 4),
        "uniform-closed-form": fmt_number(exact["Popularity expected"], 4),
        "loose-variance": fmt_number(loose["item count variance / mean"], 2),
        "loose-shift": fmt_number(-loose["training shift"], 2), "exact-shift": fmt_number(-exact["training shift"], 2),
        "loose-popularity": fmt_number(loose["Popularity"], 4), "loose-random": fmt_number(loose["Random"], 4),
        "loose-p": fmt_p_clause(loose["p (Popularity vs Random)"]),
    }


def ratio_table(curves: pd.DataFrame, here: str) -> pd.DataFrame:
    """Per dataset: the positive ratio on the least and most popular tenth of items, Spearman's ρ, p and trend."""
    trends = ratio_trends(curves)
    return pd.DataFrame({
        "dataset": [f"{d} (this page)" if d == here else d for d in trends["dataset"]],
        "least popular tenth": trends["tail ratio"].map(fmt_pct),
        "most popular tenth": trends["head ratio"].map(fmt_pct),
        "Spearman": trends["Spearman (segment, ratio)"].map(lambda v: fmt_number(v, 2)),
        "p": trends["p"].map(fmt_p), "trend": trends["trend"].map(TREND_WORDS),
    })


def ratio_numbers(curves: pd.DataFrame, here: str) -> dict[str, str]:
    """The share of positive ratings on the least and the most popular tenth of items of ``here``."""
    own = ratio_trends(curves).set_index("dataset").loc[here]
    return {"ratio-tail": fmt_pct(own["tail ratio"]), "ratio-head": fmt_pct(own["head ratio"])}


def grid_table(grid: pd.DataFrame) -> pd.DataFrame:
    """Per world of the grid: popularity's P@n over random's and the personalised system's, in 1R, AR and true."""
    table = pd.concat({"over random": popularity_over(grid, "Random").map("{:.1f}×".format),
                       f"over {PERSONALISED}": popularity_over(grid, PERSONALISED).map("{:.0%}".format)}, axis=1)
    table.columns = [f"{measure}, {what}" for what, measure in table.columns]
    return table.rename_axis(index=["α", "observation bias"]).reset_index() \
        .assign(**{"α": lambda frame: frame["α"].map("{:g}".format),
                   "observation bias": lambda frame: frame["observation bias"].map("{:g}".format)})


def grid_numbers(grid: pd.DataFrame) -> dict[str, str]:
    """Popularity's lift over random across the grid, its share of the personalised system's precision at the
    strongest observation bias, and the mean absolute gap of each design's share to the true one."""
    lift, share = popularity_over(grid, "Random"), popularity_over(grid, PERSONALISED)
    gaps = share[["1R", "AR"]].sub(share["true"], axis=0).abs().mean()
    strongest = share.index.max()
    return {
        "grid-worlds": str(len(share)),
        **{f"grid-lift-{measure.lower()}": fmt_span(lift[measure].min(), lift[measure].max(), "{:.1f}")
           for measure in lift.columns},
        "grid-strongest-alpha": f"{strongest[0]:g}", "grid-strongest-selection": f"{strongest[1]:g}",
        **{f"grid-share-{measure.lower()}": fmt_pct(share.loc[strongest, measure], 0) for measure in ("1R", "true")},
        "grid-gap-1r": fmt_number(gaps["1R"], 2), "grid-gap-ar": fmt_number(gaps["AR"], 2),
    }


def mainstream_numbers(table: pd.DataFrame) -> dict[str, str]:
    """Popularity's and the personalised system's precision with its interval on the least (``first``) and the
    most (``last``) mainstream group, measured and (``-true``) on a complete relevance, and for how many users of
    each of the two groups popularity's measured precision beats the personalised system's."""
    rows = table.set_index(["measure", "group", "system"])
    ends = {"first": table["group"].min(), "last": table["group"].max()}
    numbers = {f"wins-{end}": fmt_pct(rows.loc[("measured", group, "Popularity"), "wins"], 0)
               for end, group in ends.items()}
    for measure in dict.fromkeys(table["measure"]):
        for name, system in (("popularity", "Popularity"), ("personalised", PERSONALISED)):
            for end, group in ends.items():
                row = rows.loc[(measure, group, system)]
                numbers[f"{name}-{end}" + ("-true" if measure == "true" else "")] = fmt_interval(
                    row["mean"], (row["ci_low"], row["ci_high"]), 3)
    return numbers

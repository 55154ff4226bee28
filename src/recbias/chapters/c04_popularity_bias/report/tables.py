"""Chapter 4's display tables: formatted cells, one row per ordering, world or dataset."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c04_popularity_bias.claims import paper_number
from recbias.chapters.c04_popularity_bias.study.orderings import OrderingStudy, bounds_table
from recbias.chapters.c04_popularity_bias.study.ratio import FALLS, GROWS, NO_TREND, ratio_trends
from recbias.chapters.c04_popularity_bias.study.setup import PERSONALISED
from recbias.chapters.c04_popularity_bias.study.skew import (
    EXACT,
    IN_EXPECTATION,
    PAPERS_PRESET,
    SWEEP_METRICS,
    SkewSweep,
)
from recbias.chapters.c04_popularity_bias.study.truth import popularity_over
from recbias.synthetic import PRESETS
from recbias.text import TARGET_SIZE_HTML, fmt_ci, fmt_number, fmt_p, fmt_pct

#: the trend of the share of positive ratings along popularity, in words
TREND_WORDS = {GROWS: "grows with popularity", FALLS: "falls with popularity", NO_TREND: "shows no clear trend"}


def _pairs(low: pd.Series, high: pd.Series) -> list[str]:
    """Each pair of bounds as one ``low –`` / ``high`` cell on two lines."""
    return [f"{fmt_number(lo, 4)} –<br>{fmt_number(hi, 4)}" for lo, hi in zip(low, high, strict=True)]


def orderings_bounds_table(study: OrderingStudy) -> pd.DataFrame:
    """Per ordering: measured 1R precision over its interval, the closed-form bounds, the exact expectation
    (popularity and random), and the lemma's bounds around the 1R precision of the first split."""
    table = bounds_table(study)
    return pd.DataFrame({
        "ordering": table["system"],
        "1R P@10": [fmt_ci(m, (lo, hi), 4) for m, lo, hi in zip(table["1R P@10"], table["ci_low"], table["ci_high"],
                                                                 strict=True)],
        "closed-form bounds": _pairs(table["closed-form lower"], table["closed-form upper"]),
        "exact expectation": [fmt_number(v, 4) if np.isfinite(v) else "–" for v in table["exact expectation"]],
        "first split: lemma bounds": _pairs(table["lemma lower"], table["lemma upper"]),
        "first split: 1R P@10": [fmt_number(v, 4) for v in table["first split"]],
    })


def worlds_table(sweep: SkewSweep) -> pd.DataFrame:
    """One row per simulated world of the sweep: the law's constants and what the item counts look like."""
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


def metrics_table(sweep: SkewSweep) -> pd.DataFrame:
    """1R popularity and random on every metric of the sweep (rows) at every skew (columns), as
    ``popularity / random`` with popularity's lift in a second line."""
    means = sweep.metrics.set_index(["metric", "alpha", "system"])["mean"]
    metrics = list(dict.fromkeys(sweep.metrics["metric"]))
    return pd.DataFrame([{"metric": metric} | {
        f"α = {alpha:g}": f"{fmt_number(means[(metric, alpha, 'Popularity')], 4)} / "
                          f"{fmt_number(means[(metric, alpha, 'Random')], 4)}<br><small>"
                          f"{_lift(means[(metric, alpha, 'Popularity')], means[(metric, alpha, 'Random')])}</small>"
        for alpha in sweep.alphas} for metric in metrics])


def _lift(value: float, reference: float) -> str:
    """``value`` over ``reference`` as ``"3.2×"`` (``"–"`` when the reference is zero)."""
    return f"{value / reference:.1f}×" if reference > 0 else "–"


#: the papers' skews of Fig. 5
PAPERS_ALPHAS = (0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2)


def sweep_settings_table(sweep: SkewSweep) -> pd.DataFrame:
    """The set-up of the preference-free sweep against the papers' (IRJ 2017 Sec. 3.3 and 5.2), with the reason
    for every departure (``–`` where there is none)."""
    shape = PRESETS[sweep.preset]
    worlds = sweep.worlds.iloc[0]
    papers_alphas = ", ".join(f"{a:g}" for a in PAPERS_ALPHAS)
    ours_alphas = ", ".join(f"{a:g}" for a in sweep.alphas)
    same_shape = sweep.preset == PAPERS_PRESET
    rows = [
        ("users, items, ratings", "6,040, 3,706, 1,000,209 (MovieLens 1M)",
         f"{shape['n_users']:,}, {shape['n_items']:,}, {shape['n_ratings']:,}",
         "–" if same_shape else f"the preset chosen with sweep_preset (\"{sweep.preset}\")"),
        ("c₁, c₂ of the law", "fitted to MovieLens 1M", f"c₁ = {worlds['c1']:g}, c₂ = {worlds['c2']:.1f} "
         f"({shape['popularity_shift']:.0%} of the items)",
         "MovieLens 1M's ratings are not available to this build; c₂ is the generator's fit to MovieLens 100K with "
         "c₁ held at 0, since a free c₁ is negative and turns the tail's counts negative at the steeper α"),
        ("α", papers_alphas, ours_alphas,
         "–" if set(sweep.alphas) >= set(PAPERS_ALPHAS) else
         "time: each world of this size takes tens of seconds to fit and score; sweep_alphas takes the nine"),
        ("splits", "5 random 80/20 splits", f"1 random {1 - sweep.test_ratio:.0%}/{sweep.test_ratio:.0%} split "
         "per world", "time; one split per world already separates the systems from random at every α shown"),
        (f"1R target set {TARGET_SIZE_HTML}", "100", f"{sweep.target_size}", "–" if sweep.target_size == 100 else
         "the target_size parameter"),
        ("MF and kNN", "rating predictors (Koren et al. 2009; Cremonesi et al. 2010)",
         "rating-MF and rating-kNN; today's top-N MF and user-kNN shown beside them, labelled, in 1R only",
         "–; the top-N learners are not the papers' and are left out of AR for time"),
        ("metrics", "P@10 shown; recall, nDCG, MAP, MRR said to agree", ", ".join(SWEEP_METRICS), "–"),
    ]
    return pd.DataFrame(rows, columns=["setting", "papers", "here", "why it differs"])


def uniform_table(sweep: SkewSweep) -> pd.DataFrame:
    """The alpha = 0 worlds next to the paper's: per world, how its item counts vary (variance over mean), the
    shift of the held-out item's training count, random's and popularity's 1R P@n (popularity over its
    interval), popularity's closed form and the paired test; the paper's values in a first row."""
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


def ratio_table(curves: pd.DataFrame, here: str) -> pd.DataFrame:
    """Per dataset: the positive ratio on the least and the most popular tenth of items, Spearman's rank
    correlation between popularity rank and ratio, and the trend it gives."""
    trends = ratio_trends(curves)
    return pd.DataFrame({
        "dataset": [f"{d} (this page)" if d == here else d for d in trends["dataset"]],
        "least popular tenth": trends["tail ratio"].map(fmt_pct),
        "most popular tenth": trends["head ratio"].map(fmt_pct),
        "Spearman": trends["Spearman (segment, ratio)"].map(lambda v: fmt_number(v, 2)),
        "trend": trends["trend"].map(TREND_WORDS),
    })


def grid_table(grid: pd.DataFrame) -> pd.DataFrame:
    """One row per world of the grid: popularity's P@n over random's and over the personalised system's,
    measured in 1R and AR and on the complete truth."""
    table = pd.concat({"over random": popularity_over(grid, "Random").map("{:.1f}×".format),
                       f"over {PERSONALISED}": popularity_over(grid, PERSONALISED).map("{:.0%}".format)}, axis=1)
    table.columns = [f"{measure}, {what}" for what, measure in table.columns]
    return table.rename_axis(index=["α", "observation bias"]).reset_index() \
        .assign(**{"α": lambda frame: frame["α"].map("{:g}".format),
                   "observation bias": lambda frame: frame["observation bias"].map("{:g}".format)})

"""Chapter 4 ("The popularity bias"): the chapter's claims with their verdicts, for the scorecard.

The statements of IRJ 2017 Section 5 checked on the page's dataset and on the simulated worlds,
and two of the chapter's own (:func:`findings`); the page lists them with
:func:`recbias.bookkit.scorecard.findings_table`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.experiments.popularity import ALL_RELEVANT_DESIGN, PERSONALISED
from recbias.experiments.popularity_orderings import OrderingStudy, p_value, trained_orderings
from recbias.experiments.popularity_ratio import ratio_trends
from recbias.experiments.popularity_skew import EXACT, SkewSweep, sweep_dataset
from recbias.experiments.popularity_truth import relative_scores
from recbias.text import fmt_p_clause, fmt_pct

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
    p = p_value(study, study.one_relevant, "Test-set oracle")
    add("popularity-within-noise-of-oracle",
        "popularity's 1R precision is within noise of the test-set oracle's (paired test, p >= 0.05)", p >= 0.05,
        f"1R P@10 {one['Popularity']:.4f} vs {one['Test-set oracle']:.4f} "
        f"({fmt_pct(one['Popularity'] / one['Test-set oracle'])} of it), {fmt_p_clause(p)}", dataset,
        "fig-popularity-orderings")
    bounds = study.bounds.set_index("system").loc["Popularity"]
    add("closed-form-bounds-contain-popularity",
        "popularity's 1R precision lies within the closed-form bounds for non-personalised systems (Sec. 5.1)",
        bounds["closed-form lower"] <= one["Popularity"] <= bounds["closed-form upper"],
        f"{one['Popularity']:.4f} vs [{bounds['closed-form lower']:.4f}, {bounds['closed-form upper']:.4f}]", dataset,
        "tbl-popularity-bounds")

    on = sweep_dataset(sweep)
    popularity, random = sweep.series("Popularity"), sweep.series("Random")
    add("popularity-grows-with-alpha", "popularity's 1R precision grows with the skew α",
        bool(np.all(np.diff(popularity.to_numpy()) > 0)),
        ", ".join(f"α = {a:g}: {v:.4f}" for a, v in popularity.items()), on, "fig-popularity-sweep")
    uniform = sweep.uniform(EXACT)
    add("popularity-below-random-at-uniform", "at α = 0 popularity is below random (1R P@10)",
        uniform["Popularity"] < uniform["Random"] and uniform["p (Popularity vs Random)"] < 0.05,
        f"{uniform['Popularity']:.4f} vs {uniform['Random']:.4f}, {fmt_p_clause(uniform['p (Popularity vs Random)'])}",
        on, "tbl-popularity-uniform")
    plsa = sweep.series("pLSA")
    skewed = [a for a in popularity.index if a > 0]
    gaps = (plsa[skewed] / popularity[skewed] - 1).abs()
    add("plsa-follows-popularity",
        "pLSA's 1R precision follows popularity's across α (within 15% wherever α > 0)",
        bool(len(skewed) and gaps.max() <= 0.15),
        ", ".join(f"α = {a:g}: pLSA {plsa[a]:.4f} vs {popularity[a]:.4f}" for a in skewed), on,
        "fig-popularity-sweep")
    near = {s: [(sweep.series(s, "ci_low")[a] <= random[a] <= sweep.series(s, "ci_high")[a]) for a in random.index]
            for s in ("MF", PERSONALISED)}
    add("knn-mf-near-random", "kNN and MF stay at random precision on preference-free worlds (random within their "
        "95% intervals at every α)", all(all(v) for v in near.values()),
        "; ".join(f"{s}: random outside the interval at "
                  + (", ".join(f"α = {a:g}" for a, inside in zip(random.index, v, strict=True) if not inside)
                     or "no α")
                  + f" ({sweep.series(s)[max(random.index)]:.4f} vs {random[max(random.index)]:.4f} at "
                  f"α = {max(random.index):g})" for s, v in near.items()), on, "fig-popularity-sweep")

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
        f"popularity over {PERSONALISED}, measured in 1R / true: {(relative['1R'] / relative['true']).min():.1f} to "
        f"{(relative['1R'] / relative['true']).max():.1f} times over {len(relative)} worlds "
        f"({fmt_pct(relative['1R'].min(), 0)} to {fmt_pct(relative['1R'].max(), 0)} measured, "
        f"{fmt_pct(relative['true'].min(), 0)} to {fmt_pct(relative['true'].max(), 0)} true)", "simulation grid",
        "fig-popularity-truth")
    measured = mainstream[(mainstream["measure"] == "measured") & (mainstream["system"] == "Popularity")]
    first, last = measured.iloc[0], measured.iloc[-1]
    add("popularity-serves-the-mainstream",
        "popularity's per-user precision is higher for the most mainstream users than for the least mainstream "
        "(intervals apart)", last["ci_low"] > first["ci_high"],
        f"most mainstream fifth {last['mean']:.3f} [{last['ci_low']:.3f}, {last['ci_high']:.3f}], least "
        f"{first['mean']:.3f} [{first['ci_low']:.3f}, {first['ci_high']:.3f}]", dataset, "fig-popularity-mainstream")
    return claims

"""Chapter 4's claims as data: the statements of IRJ 2017 Section 5 (and two of the book's own), each with
its criterion and the sentence the page prints for each outcome, and the published numbers of ``published.csv``.

The findings come in groups, one per kind of data they are checked on (the page's dataset, the sweep's worlds,
the MovieLens datasets, the measured-vs-true grid); the page registers each group on its own data, with the
values of one of the ``*_values`` functions (a few of them pre-formatted listings that the evidence quotes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import (BOOK, BY_WORDS, CLOSE_SHARE, CLOSE_SHARE_ORIGIN, CODE, EQUIVALENCE_CONFIDENCE,
                                    FAILS, HOLDS, INCONCLUSIVE, LEVEL, LEVEL_ORIGIN, Finding, Number, all_of, at_least,
                                    beyond_noise, between, equivalent, intervals_apart, published)
from recbias.chapters.c04_popularity_bias.study.orderings import COUNTS, ORACLE, OrderingStudy, relative_interval
from recbias.chapters.c04_popularity_bias.study.ratio import ratio_trends
from recbias.chapters.c04_popularity_bias.study.setup import ALL_RELEVANT_DESIGN, PERSONALISED
from recbias.chapters.c04_popularity_bias.study.skew import EXACT, RATING_PREDICTORS, SWEEP_METRICS, SkewSweep, plsa_gap
from recbias.chapters.c04_popularity_bias.study.truth import ObservationGrid
from recbias.text import fmt_p_clause

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 5; thesis Sec. 4.5"
#: where the book's own statements on the page come from
BOOK_SOURCE = "recbias chapter 4"

#: the papers' numbers this chapter reproduces, and the system each of them measures
PUBLISHED = published(Path(__file__).with_name("published.csv"))
PUBLISHED_SYSTEMS = {"fig5/alpha-0/Popularity/1R-P@10": "Popularity", "fig5/alpha-0/Random/1R-P@10": "Random"}

#: the dataset label of the claims checked on the measured-vs-true grid
GRID_DATASET = "simulation grid"
#: what a tenth means when the paper says "around random": it calls popularity's 0.0077 against random's 0.0100
#: at α = 0 "slightly below random", so "around" must be tighter than that gap of 23%
AROUND_ORIGIN = (CLOSE_SHARE_ORIGIN + "; tighter than the 23% gap the paper calls \"slightly below random\" "
                 "(IRJ 2017 Sec. 5.2)")

#: checked on the page's dataset: popularity against the other non-personalised orderings
ORDERINGS = [
    Finding("popularity-count-is-the-best-trained-ordering",
            "an ordering by popularity (all ratings or positive ratings) is the best non-personalised ordering "
            "learned from training data, in 1R and in AR", SOURCE, "fig-popularity-orderings",
            beyond_noise("count_margin", "count_p",
                         what="P@10 of the better count (all or positive ratings) minus that of another trained "
                              "ordering, in the comparison that decides (1R and AR, every other ordering: the first "
                              "below beyond noise, else the first within noise, else the one of largest p)"),
            "best in 1R: {best_1r} ({best_1r_precision:.4f}); in AR: {best_ar}; Popularity {popularity_1r:.4f}; "
            "deciding: {count} against {count_rival} in {count_design}, {count_margin:+.4f} ({count_p_text})",
            says={HOLDS: "A count of ratings is the best trained ordering in 1R and in AR: the better count beats "
                         "every other trained ordering beyond noise in both designs.",
                  FAILS: "A count of ratings is not the best trained ordering here: {count_rival} beats {count} in "
                         "{count_design} beyond noise.",
                  INCONCLUSIVE: "The best trained ordering is {best_1r} in 1R and {best_ar} in AR, but the noise does "
                                "not tell whether a count beats {count_rival} in {count_design} "
                                "({count_margin:+.4f}, {count_p_text})."}),
    Finding("popularity-close-to-oracle",
            "popularity's 1R precision is close to the test-set oracle's, within a tenth of it", BOOK_SOURCE,
            "fig-popularity-orderings",
            equivalent("oracle_gap_low", "oracle_gap_high", CLOSE_SHARE, what="popularity's 1R P@10 over the oracle's, "
                       "minus 1", origin=CLOSE_SHARE_ORIGIN),
            "1R P@10 {popularity_1r:.4f} vs {oracle_1r:.4f} ({oracle_share:.1%} of it; 90% interval of the ratio "
            "minus 1: {oracle_gap_low:+.1%} to {oracle_gap_high:+.1%}), {oracle_p_text}",
            says={HOLDS: "Popularity reaches {oracle_share:.0%} of the test-set oracle: close to it, within a tenth "
                         "at 90% confidence.",
                  FAILS: "The test-set oracle is clearly higher: popularity reaches {oracle_share:.0%} of it, more "
                         "than a tenth below it at 90% confidence ({oracle_p_text}).",
                  INCONCLUSIVE: "Popularity reaches {oracle_share:.0%} of the test-set oracle; whether that is within "
                                "a tenth of it, the noise does not tell ({oracle_gap_low:+.0%} to "
                                "{oracle_gap_high:+.0%} at 90% confidence)."},
            origin=BOOK),
    Finding("closed-form-bounds-contain-popularity",
            "popularity's 1R precision lies within the closed-form bounds for non-personalised systems (Sec. 5.1)",
            SOURCE, "tbl-popularity-bounds",
            all_of(at_least("above_lower_bound", 0, what="popularity's 1R P@10 minus the lower bound", origin=BY_WORDS),
                   at_least("below_upper_bound", 0, what="the upper bound minus popularity's 1R P@10", origin=BY_WORDS)),
            "{popularity_1r:.4f} vs [{lower_bound:.4f}, {upper_bound:.4f}]", origin=CODE),
]

#: checked on the preference-free worlds of the sweep, with the published numbers
SWEEP = [
    Finding("popularity-grows-with-alpha", "popularity's 1R precision grows with the skew α", SOURCE,
            "fig-popularity-sweep",
            beyond_noise("popularity_step", "popularity_step_p",
                         what="popularity's 1R P@10 gain at the step of α that decides (the first fall beyond noise, "
                              "else the first step within noise, else the step of largest p)"),
            "1R P@10 {popularity_by_alpha}; gain from the α before, p of Welch's t over the two worlds' users: "
            "{popularity_steps}",
            says={HOLDS: "Popularity's 1R precision grows with the skew, beyond noise at every step "
                         "({popularity_by_alpha}).",
                  FAILS: "Popularity's 1R precision falls beyond noise at some step of the skew "
                         "({popularity_by_alpha}).",
                  INCONCLUSIVE: "Popularity's 1R precision goes {popularity_by_alpha}; at some step of the skew the "
                                "change is within noise, so its growth at every step is not shown."}),
    Finding("popularity-below-random-at-uniform", "at α = 0 popularity is below random (1R P@10)", SOURCE,
            "tbl-popularity-uniform",
            beyond_noise("uniform_random_margin", "uniform_p", what="random's minus popularity's 1R P@10 at α = 0"),
            "{uniform_popularity:.4f} vs {uniform_random:.4f}, {uniform_p_text}",
            says={outcome: "With every item rated the same number of times, popularity " + words + ": "
                           "{uniform_popularity:.4f} against random's {uniform_random:.4f} ({uniform_p_text})."
                  for outcome, words in ((HOLDS, "measures below random, as the papers found"),
                                         (FAILS, "measures above random, unlike the papers"),
                                         (INCONCLUSIVE, "is not below random beyond noise here"))}),
    Finding("plsa-follows-popularity",
            "pLSA's 1R precision closely matches popularity's wherever α > 0", SOURCE, "fig-popularity-sweep",
            equivalent("plsa_gap_low", "plsa_gap_high", CLOSE_SHARE, origin=CLOSE_SHARE_ORIGIN,
                       what="pLSA's 1R P@10 over popularity's, minus 1, at every α > 0,"),
            "{plsa_by_alpha}; 90% intervals of the ratio minus 1: {plsa_intervals}",
            says={HOLDS: "As the papers observed, pLSA tracks popularity, within a tenth of it at every α > 0 (at "
                         "most {plsa_gap:.0%} apart).",
                  FAILS: "Unlike in the papers, pLSA strays from popularity by more than a tenth at some α > 0 (up to "
                         "{plsa_gap:.0%}).",
                  INCONCLUSIVE: "pLSA comes within {plsa_gap:.0%} of popularity at every α > 0; whether within a tenth, "
                                "the noise does not tell at every α."}),
    Finding("knn-mf-near-random",
            "kNN and MF stay around random precision on preference-free worlds, at every α (the papers' "
            "rating-predicting " + " and ".join(RATING_PREDICTORS) + ")", SOURCE, "fig-popularity-sweep",
            equivalent("near_random_low", "near_random_high", CLOSE_SHARE, origin=AROUND_ORIGIN,
                       what="each rating predictor's 1R P@10 over random's, minus 1, at every α,"),
            "90% intervals of 1R P@10 over random's, minus 1: {near_random_by_alpha}",
            says={outcome: "The papers found kNN and MF around random on these data" + words + ": at α = "
                           "{top_alpha:g} they reach {rating_predictors_at_top}, against random's {top_random:.4f} "
                           "and popularity's {top_popularity:.4f}."
                  for outcome, words in ((HOLDS, ", and here their rating predictors stay within a tenth of random "
                                                 "at every α"),
                                         (FAILS, ", but here a rating predictor lies more than a tenth from random, "
                                                 "above or below, at some α"),
                                         (INCONCLUSIVE, "; here the noise does not tell whether their rating "
                                                        "predictors stay within a tenth of random at every α"))}),
    Finding("popularity-bias-on-other-metrics",
            "the popularity bias shows the same on recall, nDCG, MAP and MRR", SOURCE, "tbl-popularity-metrics",
            beyond_noise("other_metrics_margin", "other_metrics_p",
                         what="popularity's lift over random at the largest α on the weakest of these metrics"),
            "popularity over random at α = {top_alpha:g}: {other_metrics_lift}"),
]

#: checked on the MovieLens datasets the build could load
RATIO = [
    Finding("positive-ratio-grows-with-popularity",
            "the share of positive ratings grows with item popularity on MovieLens data", SOURCE,
            "fig-popularity-ratio",
            all_of(between("movielens_spearman", -1, 0, open_high=True, what="Spearman's ρ on every MovieLens set",
                           origin=BY_WORDS),
                   between("movielens_p", 0, LEVEL, open_high=True, what="its p", origin=(BY_WORDS, LEVEL_ORIGIN))),
            "{movielens_trends}"),
]

#: checked on the measured-vs-true grid (:data:`GRID_DATASET`)
GRID = [
    Finding("one-relevant-overstates-popularity",
            "1R precision rates popularity higher against " + PERSONALISED + " than the true precision does, in "
            "every world of the grid", SOURCE, "fig-popularity-truth",
            beyond_noise("overstatement_gap", "overstatement_p",
                         what="popularity's share of " + PERSONALISED + "'s P@10 in 1R minus its true share, in the "
                              "world that decides (the first where it is below beyond noise, else the first within "
                              "noise, else the one of largest p)"),
            "popularity over " + PERSONALISED + ", measured in 1R / true: {overstatement_min:.1f} to "
            "{overstatement_max:.1f} times over {worlds} worlds ({share_1r_min:.0%} to {share_1r_max:.0%} measured, "
            "{share_true_min:.0%} to {share_true_max:.0%} true); 1R minus true share, p over resampled users of "
            "each world: {overstatement_by_world}",
            says={outcome: "Against " + PERSONALISED + " the 1R design " + words + ": its share in 1R is "
                           "{overstatement_min:.1f} to {overstatement_max:.1f} times the true share."
                  for outcome, words in ((HOLDS, "overstates popularity in every world, beyond noise"),
                                         (FAILS, "understates popularity in some world, beyond noise"),
                                         (INCONCLUSIVE, "does not overstate popularity beyond noise in every world"))}),
]

#: checked on the page's dataset: popularity's precision by how closely users follow the crowd
MAINSTREAM = [
    Finding("popularity-serves-the-mainstream",
            "popularity's per-user precision is higher for the most mainstream users than for the least mainstream "
            "(intervals apart)", SOURCE, "fig-popularity-mainstream",
            intervals_apart("most_mainstream", "least_mainstream", what="the most mainstream fifth",
                            than="the least mainstream fifth"),
            "most mainstream fifth {most_mainstream:.3f} [{most_mainstream_low:.3f}, {most_mainstream_high:.3f}], "
            "least {least_mainstream:.3f} [{least_mainstream_low:.3f}, {least_mainstream_high:.3f}]",
            says={HOLDS: "Popularity serves the most mainstream fifth better than the least, beyond noise.",
                  FAILS: "Popularity serves the least mainstream fifth better than the most, beyond noise.",
                  INCONCLUSIVE: "Popularity's two intervals overlap: it serves neither end better beyond noise."}),
]

#: the page's sentence on the mainstream groups' true precision, by whether the dataset has a complete relevance
TRUE_PRECISION = {True: "On the world's complete relevance, popularity's true precision goes from "
                        "{popularity-first-true} to {popularity-last-true} and " + PERSONALISED + "'s from "
                        "{personalised-first-true} to {personalised-last-true}.",
                  False: "This dataset has no complete relevance to set the groups against."}


def paper_number(system: str) -> Number:
    """The published 1R P@10 of ``system`` at ``alpha = 0``."""
    (number,) = (n for n in PUBLISHED if PUBLISHED_SYSTEMS[n.key] == system)
    return number


def deciding(differences: np.ndarray, p: np.ndarray) -> int:
    """The comparison that decides whether every one of ``differences`` is above zero beyond noise (p-values ``p``,
    :data:`LEVEL`): the first below zero beyond noise, else the first within noise, else the one of largest p."""
    beyond = p < LEVEL
    for doubtful in (beyond & (differences < 0), ~beyond | (differences == 0)):
        if doubtful.any():
            return int(np.argmax(doubtful))
    return int(np.argmax(p))


def _listing(template: str, rows: Sequence[Mapping[str, Any]], separator: str = ", ") -> str:
    """``template`` filled in with every row, joined by ``separator``."""
    return separator.join(template.format(**row) for row in rows)


def count_against_rivals(study: OrderingStudy) -> pd.DataFrame:
    """In 1R and in AR, the better of the orderings by a count of ratings (:data:`COUNTS`, by mean P@n) against each
    other trained ordering: one row per design ("1R" or "AR") and rival with the paired ``difference`` (count minus
    rival) and its ``p``, users as the unit."""
    rows = []
    for label, design in (("1R", study.one_relevant), ("AR", ALL_RELEVANT_DESIGN)):
        means = study.means(design).drop(ORACLE)
        count = str(means[list(COUNTS)].idxmax())
        versus = study.comparisons(design, count)
        versus = versus[~versus["system_b"].isin([*COUNTS, ORACLE])]
        rows.append(pd.DataFrame({"design": label, "count": count, "rival": versus["system_b"].to_numpy(),
                                  "difference": versus["difference"].to_numpy(), "p": versus["t_pvalue"].to_numpy()}))
    return pd.concat(rows, ignore_index=True)


def orderings_values(study: OrderingStudy) -> dict[str, Any]:
    """The best trained orderings and the comparison of a count with its rivals that decides, popularity against the
    oracle and against its closed-form bounds (1R)."""
    one = study.means(study.one_relevant)
    best_1r, best_ar = study.best_trained(study.one_relevant), study.best_trained(ALL_RELEVANT_DESIGN)
    rivals = count_against_rivals(study)
    decisive = rivals.iloc[deciding(rivals["difference"].to_numpy(), rivals["p"].to_numpy())]
    bounds = study.bounds.set_index("system").loc["Popularity"]
    popularity = one["Popularity"]
    versus_oracle = study.comparison(study.one_relevant, "Popularity", ORACLE)  # one test: its p and its interval
    oracle_p, gap = float(versus_oracle["t_pvalue"]), relative_interval(versus_oracle, EQUIVALENCE_CONFIDENCE)
    return {"best_1r": best_1r, "best_1r_precision": one[best_1r], "best_ar": best_ar, "popularity_1r": popularity,
            "count": decisive["count"], "count_rival": decisive["rival"], "count_design": decisive["design"],
            "count_margin": float(decisive["difference"]), "count_p": float(decisive["p"]),
            "count_p_text": fmt_p_clause(float(decisive["p"])),
            "oracle_1r": one[ORACLE], "oracle_share": popularity / one[ORACLE],
            "oracle_p": oracle_p, "oracle_p_text": fmt_p_clause(oracle_p),
            "oracle_gap_low": gap[0], "oracle_gap_high": gap[1],
            "lower_bound": bounds["closed-form lower"], "upper_bound": bounds["closed-form upper"],
            "above_lower_bound": popularity - bounds["closed-form lower"],
            "below_upper_bound": bounds["closed-form upper"] - popularity}


def _intervals(by_alpha: pd.DataFrame) -> str:
    """A listing of relative intervals by alpha (:meth:`SkewSweep.relative`)."""
    return _listing("α = {alpha:g}: {low:+.0%} to {high:+.0%}",
                    [{"alpha": a, "low": row["low"], "high": row["high"]} for a, row in by_alpha.iterrows()])


def rating_predictor_values(sweep: SkewSweep) -> dict[str, Any]:
    """The rating predictors' 1R P@10 over random's, minus 1, at every alpha: the ends of the paired intervals at
    :data:`EQUIVALENCE_CONFIDENCE` (``near_random_low``, ``near_random_high``) and their listing; and each
    predictor's mean at the largest alpha with its paired p-value against random."""
    near = {system: sweep.relative("Random", system, EQUIVALENCE_CONFIDENCE) for system in RATING_PREDICTORS}
    against_random = {system: sweep.difference("Random", system) for system in RATING_PREDICTORS}
    return {"near_random_low": np.concatenate([d["low"].to_numpy() for d in near.values()]),
            "near_random_high": np.concatenate([d["high"].to_numpy() for d in near.values()]),
            "near_random_by_alpha": "; ".join(f"{system} {_intervals(d)}" for system, d in near.items()),
            "top_popularity": sweep.series("Popularity")[sweep.top], "top_random": sweep.series("Random")[sweep.top],
            "rating_predictors_at_top": _listing("{system} {mean:.4f} ({p} against random)", [
                {"system": s, "mean": sweep.series(s)[sweep.top], "p": fmt_p_clause(d.loc[sweep.top, "p"])}
                for s, d in against_random.items()], " and ")}


def other_metrics_values(sweep: SkewSweep) -> dict[str, Any]:
    """Popularity against random at the largest alpha on the sweep's metrics but P@n: the weakest lift and its p
    (the largest p when every lift is positive), and a listing of every lift; nothing without a skewed world."""
    if not sweep.skewed:
        return {}
    others = list(SWEEP_METRICS[1:])
    lifts = pd.DataFrame({m: sweep.difference("Random", "Popularity", m).loc[sweep.top] for m in others}).T
    weakest = lifts["difference"].idxmin()
    p = lifts["p"].max() if (lifts["difference"] > 0).all() else lifts.loc[weakest, "p"]
    means = sweep.metrics[sweep.metrics["alpha"] == sweep.top].set_index(["system", "metric"])["mean"]
    rows = [{"metric": m, "popularity": means[("Popularity", m)], "random": means[("Random", m)],
             "p": fmt_p_clause(lifts.loc[m, "p"])} for m in others]
    return {"other_metrics_margin": lifts.loc[weakest, "difference"], "other_metrics_p": p,
            "other_metrics_lift": _listing("{metric} {popularity:.4f} vs {random:.4f} ({p})", rows, "; ")}


def sweep_values(sweep: SkewSweep) -> dict[str, Any]:
    """Popularity along the skew and against random at alpha = 0, pLSA, the rating predictors, the other metrics
    and our values of the published numbers; values that need two skews, or a skewed one, may be missing."""
    popularity = sweep.series("Popularity")
    uniform = sweep.uniform(EXACT)
    values = {
        "uniform_popularity": uniform["Popularity"], "uniform_random": uniform["Random"],
        "uniform_random_margin": uniform["Random"] - uniform["Popularity"],
        "uniform_p": uniform["p (Popularity vs Random)"],
        "uniform_p_text": fmt_p_clause(uniform["p (Popularity vs Random)"]),
        "top_alpha": sweep.top,
        **rating_predictor_values(sweep), **other_metrics_values(sweep),
        **{number.key: uniform[PUBLISHED_SYSTEMS[number.key]] for number in PUBLISHED},
    }
    if len(popularity) > 1:
        steps = sweep.steps("Popularity")
        step = steps.iloc[deciding(steps["difference"].to_numpy(), steps["p"].to_numpy())]
        values |= {"popularity_step": step["difference"], "popularity_step_p": step["p"],
                   "popularity_by_alpha": _listing("α = {alpha:g}: {value:.4f}",
                                                   [{"alpha": a, "value": v} for a, v in popularity.items()]),
                   "popularity_steps": _listing("α = {before:g} to {alpha:g}: {difference:+.4f} ({p})", [
                       {"before": row["from"], "alpha": a, "difference": row["difference"],
                        "p": fmt_p_clause(row["p"])} for a, row in steps.iterrows()], "; ")}
    if sweep.skewed:
        plsa = sweep.series("pLSA")
        gaps = sweep.relative("Popularity", "pLSA", EQUIVALENCE_CONFIDENCE).loc[sweep.skewed]
        values |= {"plsa_gap": plsa_gap(sweep), "plsa_gap_low": gaps["low"].to_numpy(),
                   "plsa_gap_high": gaps["high"].to_numpy(), "plsa_intervals": _intervals(gaps),
                   "plsa_by_alpha": _listing("α = {alpha:g}: pLSA {plsa:.4f} vs {popularity:.4f}",
                                             [{"alpha": a, "plsa": plsa[a], "popularity": popularity[a]}
                                              for a in sweep.skewed])}
    return values


def ratio_values(curves: pd.DataFrame) -> dict[str, Any]:
    """The MovieLens datasets among ``curves`` (``movielens``, "" if none) and their rank correlations."""
    trends = ratio_trends(curves)
    movielens = trends[trends["dataset"].str.startswith("ml-")]
    if movielens.empty:
        return {"movielens": ""}
    rows = [{"dataset": r["dataset"], "head": r["head ratio"], "tail": r["tail ratio"],
             "rho": r["Spearman (segment, ratio)"]} for _, r in movielens.iterrows()]
    return {"movielens": ", ".join(movielens["dataset"]),
            "movielens_spearman": movielens["Spearman (segment, ratio)"].to_numpy(),
            "movielens_p": movielens["p"].to_numpy(),
            "movielens_trends": _listing("{dataset}: head {head:.3f}, tail {tail:.3f}, Spearman {rho:.2f}", rows,
                                         "; ")}


def grid_values(grid: ObservationGrid) -> dict[str, Any]:
    """Popularity's share of the personalised system's precision in 1R and true, per world and over the grid, and
    the world that decides whether 1R overstates it in every one (:func:`deciding`)."""
    shares = grid.shares
    world = shares.iloc[deciding(shares["difference"].to_numpy(), shares["p"].to_numpy())]
    overstatement = shares["1R"] / shares["true"]
    rows = [{"alpha": r["alpha"], "selection": r["selection"], "difference": r["difference"], "p": fmt_p_clause(r["p"])}
            for _, r in shares.iterrows()]
    return {"overstatement_gap": world["difference"], "overstatement_p": world["p"], "worlds": len(shares),
            "overstatement_by_world": _listing("α = {alpha:g}, selection {selection:g}: {difference:+.0%} ({p})",
                                               rows, "; "),
            "overstatement_min": overstatement.min(), "overstatement_max": overstatement.max(),
            "share_1r_min": shares["1R"].min(), "share_1r_max": shares["1R"].max(),
            "share_true_min": shares["true"].min(), "share_true_max": shares["true"].max()}


def mainstream_values(mainstream: pd.DataFrame) -> dict[str, Any]:
    """Popularity's measured precision on the least and the most mainstream group of users."""
    measured = mainstream[(mainstream["measure"] == "measured") & (mainstream["system"] == "Popularity")]
    least, most = measured.iloc[0], measured.iloc[-1]
    return {"most_mainstream": most["mean"], "most_mainstream_low": most["ci_low"],
            "most_mainstream_high": most["ci_high"], "least_mainstream": least["mean"],
            "least_mainstream_low": least["ci_low"], "least_mainstream_high": least["ci_high"]}

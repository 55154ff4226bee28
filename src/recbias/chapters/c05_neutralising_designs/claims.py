"""Chapter 5's findings (IRJ 2017 Sec. 6.3 and 7, thesis Sec. 4.6) as data, and the values they are checked on.

:func:`measured` turns the studies of the page into one mapping of values: :data:`FINDINGS` are checked on
those of the page's dataset, :data:`ON_ALL_POSITIVE` on those of the second dataset (its positive ratings),
the papers' numbers for MovieLens 1M (:data:`PUBLISHED`) on the page's uniform split and percentiles.  The
findings about popularity read the papers' set of systems; :data:`SECOND_NOTES` are the page's sentences
about its second dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import (BY_WORDS, CLOSE_SHARE, CLOSE_SHARE_ORIGIN, CODE, EQUIVALENCE_CONFIDENCE, FAILS,
                                    HOLDS, INCONCLUSIVE, Finding, at_most, beyond_noise, equivalent, every_beyond_noise)
from recbias.chapters.c05_neutralising_designs.study import (
    INDEX_ROWS, PAPERS, PAPERS_SET, PERSONALISED, DatasetStudy, bpref_below_one, index_draws, lead_draws, mean_draws,
)
from recbias.evaluate import compare, percentile_interval, resampled_pvalue
from recbias.text import fmt_p_clause

#: the papers' numbers for MovieLens 1M, in the schema of :data:`recbias.bookkit.claims.PUBLISHED_COLUMNS`
PUBLISHED = Path(__file__).with_name("published.csv")
#: where the papers state the findings
SOURCE = "IRJ 2017 Sec. 6-7; thesis Sec. 4.6"
#: the papers' "{design} places popularity by the level of random", its evidence and what the page says of it,
#: as templates over the design and the key of its values
RANDOM_LEVEL_STATEMENT = "{design} brings popularity to the level of random, relative to the personalised systems"
RANDOM_LEVEL_EVIDENCE = ("popularity index {{index_{key}:.2f}} under {design} (1R: {{index_1r:.2f}}) against the "
                         "papers' set, 90% interval {{index_{key}_low:+.2f}} to {{index_{key}_high:+.2f}}")
RANDOM_LEVEL_SAYS = {
    HOLDS: "Under {design} it falls to {{index_{key}:.2f}}, random's level within a tenth.",
    FAILS: "Under {design} it is {{index_{key}:.2f}}, more than a tenth from random's level.",
    INCONCLUSIVE: "Under {design} it is {{index_{key}:.2f}}; whether within a tenth of random's level, the noise does "
                  "not tell.",
}
#: "at random's level": the popularity index within a tenth of the span from random (0) to the best personalised
#: system (1), by two one-sided tests on the resampled index
RANDOM_LEVEL_ORIGIN = (CLOSE_SHARE_ORIGIN + "; the index counts in units of the span from random to the best "
                       "personalised system")
#: measured value -> the design label of the popularity index it reads (P@10, the papers' set)
INDEX_LABELS = {"index_1r": "1R", "index_p1r": "P1R", "index_u1r": "U1R", "index_ar": "AR TI-AN", "index_uar": "UAR",
                "index_ai_uar": "AI-UAR", "index_head": "1R -head"}
#: measured value -> the row of the popularity index it reads
INDEX_NAMES = {name: next(row for row, design, metric in INDEX_ROWS if design == label and metric == "P@10")
               for name, label in INDEX_LABELS.items()}
#: measured value -> the row of the popularity index of a metric for incomplete judgments it reads
INCOMPLETE_NAMES = {"index_bpref": "AR, bpref", "index_infap": "AR, infAP"}
#: where the papers compare their designs with the metrics for incomplete judgments and stratified recall
FIG9_SOURCE = "IRJ 2017 Sec. 7, Fig. 9"
#: the metrics for incomplete judgments of Fig. 9, by the suffix of their values; stratified recall's, γ = 1
INCOMPLETE_METRICS = {"bpref": "bpref", "infap": "infAP"}
STRATIFIED = "PSR@10(gamma=1)"
#: the AR design Fig. 9 reads
AR_LABEL = "AR TI-AN"
#: the suffix of the value of pLSA's lead under each neutralising design
LEAD_KEYS = {"U1R": "u1r", "P1R": "p1r", "UAR": "uar", "AI-UAR": "ai_uar", "1R -head": "head"}
#: what a judged 1R run departs in from the papers' 1R
JUDGED_1R = ("our 1R runs keep the judgment of a sampled item the user rated below the threshold, where the papers' "
             "1R has no non-relevance judgment at all")
#: what the page says about its second dataset, by :func:`recbias.chapters.c05_neutralising_designs.study.second_status`
SECOND_NOTES = {
    "skipped": "No second dataset was requested (`second_dataset` is empty).",
    "same": "The second dataset, *{requested}*, is this page's own dataset: it is not repeated.",
    "unavailable": "The second dataset, *{requested}*, is not available on the machine that built this page.",
    "available": "The second dataset is {name}, reduced to its positive ratings so that every rating counts "
                 "as relevant, as in the papers' Last.fm setup.",
}



def _random_level(key: str, design: str) -> Finding:
    """The papers' "``design`` places popularity by the level of random": the index within a tenth of zero."""
    def fill(template: str) -> str:
        return template.format(key=key, design=design)

    return Finding(
        fill("{key}-random-level"), fill(RANDOM_LEVEL_STATEMENT), SOURCE, "fig-neutralising-index",
        equivalent(fill("index_{key}_low"), fill("index_{key}_high"), CLOSE_SHARE, origin=RANDOM_LEVEL_ORIGIN,
                   what=fill("popularity's index under {design}")),
        fill(RANDOM_LEVEL_EVIDENCE), says={outcome: fill(sentence) for outcome, sentence in RANDOM_LEVEL_SAYS.items()})


FINDINGS = [
    _random_level("p1r", "P1R"),
    _random_level("u1r", "U1R"),
    Finding("u1r-more-residue-than-p1r", "U1R leaves more of popularity's advantage than P1R", SOURCE,
            "fig-neutralising-index",
            beyond_noise("u1r_residue", "u1r_residue_p", what="the index under U1R minus under P1R"),
            "popularity index {index_u1r:.2f} (U1R) vs {index_p1r:.2f} (P1R) against the papers' set; "
            "p = {u1r_residue_p:.3f}",
            says={HOLDS: "U1R leaves more of it than P1R, as the papers found.",
                  FAILS: "Unlike in the papers, P1R leaves more of it than U1R.",
                  INCONCLUSIVE: "Whether U1R leaves more of it than P1R, as the papers found, is within noise here."}),
    Finding("uar-reduces", "UAR reduces popularity's advantage over AR", SOURCE, "fig-neutralising-index",
            beyond_noise("uar_drop", "uar_drop_p", what="the index under AR minus under UAR"),
            "popularity index {index_uar:.2f} (UAR) vs {index_ar:.2f} (AR) against the papers' set; "
            "p = {uar_drop_p:.3f}",
            says={HOLDS: "UAR lowers it, from {index_ar:.2f} in AR to {index_uar:.2f}.",
                  FAILS: "UAR raises it, from {index_ar:.2f} in AR to {index_uar:.2f}.",
                  INCONCLUSIVE: "UAR does not clearly lower it: {index_ar:.2f} in AR, {index_uar:.2f} under UAR, a "
                                "difference within noise."}),
    Finding("uar-popularity-above-knn", "under UAR popularity stays above kNN", SOURCE, "fig-neutralising-fig8",
            beyond_noise("uar_popularity_lead", "uar_popularity_lead_p",
                         what="popularity's P@10 under UAR minus rating-kNN's"),
            "UAR P@10 {uar_popularity:.4f} (Popularity) vs {uar_knn:.4f} (rating-kNN, the papers' kNN); "
            "p = {uar_popularity_lead_p:.3f}"),
    Finding("ai-uar-more-bias", "AI-UAR leaves more popularity bias than TI-UAR", SOURCE, "fig-neutralising-index",
            beyond_noise("ai_uar_excess", "ai_uar_excess_p", what="the index under AI-UAR minus under UAR"),
            "popularity index {index_ai_uar:.2f} (AI-UAR) vs {index_uar:.2f} (UAR) against the papers' set; "
            "p = {ai_uar_excess_p:.3f}"),
    Finding("head-less-effective", "removing the 10% head is less effective than P1R and U1R", SOURCE,
            "fig-neutralising-index",
            beyond_noise("head_excess", "head_excess_p",
                         what="the index without the head minus the larger of P1R's and U1R's"),
            "popularity index {index_head:.2f} (-10% head) vs {index_p1r:.2f} (P1R) and {index_u1r:.2f} (U1R) against "
            "the papers' set; p = {head_excess_p:.3f}",
            says={HOLDS: "Removing the head leaves more of it than either, {index_head:.2f}.",
                  FAILS: "Removing the head leaves less of it than the larger of the two, {index_head:.2f}.",
                  INCONCLUSIVE: "Removing the head leaves {index_head:.2f}, too close to the larger of the two to "
                                "tell beyond noise."}),
    Finding("plsa-stays-best", "pLSA remains the best system under every neutralising design, ahead of popularity",
            SOURCE, "fig-neutralising-fig8",
            every_beyond_noise([f"plsa_lead_{key}" for key in LEAD_KEYS.values()],
                               what="pLSA's P@10 minus the best other system of the papers' set"),
            "pLSA's P@10 minus the best other system of the papers' set: {plsa_leads}"),
    Finding("bpref-constant-1r", "bpref is 1 for every system in 1R", SOURCE, "tbl-neutralising-fig9",
            at_most("bpref_below", 0, what="scored runs of the papers' 1R with bpref below 1", origin=BY_WORDS),
            "bpref is below 1 in {bpref_below:,} of the {bpref_scored:,} scored runs of the papers' 1R (no "
            "non-relevance judgment)", origin=CODE),
    Finding("bpref-constant-1r-judged", "bpref is 1 for every system in 1R, with the user's low ratings of "
            "sampled items kept as judgments", SOURCE, "tbl-neutralising-fig9",
            at_most("bpref_below_judged", 0, what="scored 1R runs with bpref below 1", origin=BY_WORDS),
            "our 1R bpref is below 1 in {bpref_below_judged:,} of the {bpref_scored_judged:,} scored runs "
            "({one_r_runs:,} runs, each scored for every system), mean {bpref_mean_judged:.3f}; those runs drew an "
            "item the user rated below the threshold",
            departs=JUDGED_1R,
            says={FAILS: "On this page such an item is ranked above the relevant one in {bpref_below_judged:,} of the "
                         "{bpref_scored_judged:,} scored 1R runs ({bpref_share_judged:.2%}), which sets their bpref "
                         "to 0.",
                  HOLDS: "On this page no such item is ranked above the relevant one, so 1R bpref is 1 throughout."}),
    Finding("fig9/incomplete-metrics-counter-popularity", "bpref and infAP lower popularity's advantage under AR, "
            "compared with P@10", FIG9_SOURCE, "tbl-neutralising-fig9",
            every_beyond_noise(["counter_bpref", "counter_infap"],
                               what="popularity's index under AR by P@10 minus by bpref, and by infAP"),
            "popularity index under AR against the papers' set: P@10 {index_ar:.2f}, bpref {index_bpref:.2f}, infAP "
            "{index_infap:.2f}; p = {counter_bpref_p:.3f} (bpref) and {counter_infap_p:.3f} (infAP)"),
    Finding("fig9/incomplete-metrics-drag-plsa", "bpref and infAP no longer rank pLSA above every other system under AR",
            FIG9_SOURCE, "tbl-neutralising-fig9",
            every_beyond_noise(["plsa_behind_bpref", "plsa_behind_infap"],
                               what="the best other system's AR value minus pLSA's, by bpref and by infAP"),
            "AR order by bpref: {order_bpref}; by infAP: {order_infap}; p = {plsa_behind_bpref_p:.3f} (bpref) and "
            "{plsa_behind_infap_p:.3f} (infAP)"),
    Finding("fig9/stratified-recall-popularity-second", "stratified recall (γ = 1) still ranks popularity second, "
            "under AR and under 1R", FIG9_SOURCE, "tbl-neutralising-fig9",
            every_beyond_noise([f"{name}_{design}" for design in ("ar", "1r")
                                for name in ("psr_first_over_popularity", "psr_popularity_over_second")],
                               what="the first system's stratified recall minus popularity's, and popularity's minus "
                                    "the third's,"),
            "order by stratified recall (γ = 1): AR {order_psr_ar}; 1R {order_psr_1r}"),
]
#: checked on the second dataset, every rating of which is positive
ON_ALL_POSITIVE = [
    Finding("all-positive-u1r-random", "on data where every rating is positive, U1R brings popularity to random's "
            "level", SOURCE, "fig-neutralising-fig8",
            equivalent("second_index_u1r_low", "second_index_u1r_high", CLOSE_SHARE, origin=RANDOM_LEVEL_ORIGIN,
                       what="popularity's index under U1R"),
            "{second_name}: popularity index {second_index_u1r:.2f} under U1R against the papers' set (90% interval "
            "{second_index_u1r_low:+.2f} to {second_index_u1r_high:+.2f}); P@10 {u1r_popularity:.4f} (Popularity) vs "
            "{u1r_random:.4f} (Random), {u1r_p_clause} for their difference"),
    Finding("fig9/lastfm-popularity-first-incomplete", "on Last.fm, bpref and infAP still rank popularity above "
            "every personalised system under AR", FIG9_SOURCE, "tbl-neutralising-fig9",
            every_beyond_noise(["second_popularity_lead_bpref", "second_popularity_lead_infap"],
                               what="popularity's AR value minus the best personalised system's, by bpref and by "
                                    "infAP"),
            "{second_name}, AR order by bpref: {second_order_bpref}; by infAP: {second_order_infap}"),
    Finding("fig9/lastfm-random-top-by-bpref", "on Last.fm, bpref ranks random recommendation above every "
            "personalised system under AR (the paper: at the top, level with popularity)", FIG9_SOURCE,
            "tbl-neutralising-fig9",
            beyond_noise("second_random_lead_bpref", "second_random_lead_bpref_p",
                         what="random's AR bpref minus the best personalised system's"),
            "{second_name}, AR order by bpref: {second_order_bpref}; random minus the best personalised system: "
            "{second_random_lead_bpref:+.4f}, p = {second_random_lead_bpref_p:.3f}"),
]


def _draw_values(draws: pd.Series | np.ndarray, name: str) -> dict[str, float]:
    """A difference on the full sample (``draws[0]``) as ``name`` and its p-value over the resamples as
    ``name_p``."""
    draws = np.asarray(draws, dtype=float)
    return {name: float(draws[0]), f"{name}_p": resampled_pvalue(draws[1:])}


def _order(means: pd.DataFrame, label: str) -> list[str]:
    """The papers' set by decreasing mean under the design ``label`` (full sample)."""
    return list(means.loc[label, 0].loc[list(PAPERS_SET)].sort_values(ascending=False).index)


def fig9_values(main: DatasetStudy, index_ar: np.ndarray, *, n_boot: int = 200, seed: int = 0) -> dict[str, Any]:
    """The values of the Fig. 9 findings on the page's dataset: popularity's AR index by P@10 (``index_ar``, full
    sample then resamples) minus by bpref and by infAP; the best other system minus pLSA under AR by each; the
    first system minus popularity and popularity minus the third by stratified recall, under AR and 1R; with
    p-values over ``n_boot`` user resamples and the orders they read."""
    values: dict[str, Any] = {}
    others = [s for s in PAPERS_SET if s != "pLSA"]
    for key, metric in INCOMPLETE_METRICS.items():
        means = mean_draws(main, metric, n_boot=n_boot, seed=seed)
        index = index_draws(means, [AR_LABEL], PERSONALISED[PAPERS]).loc[AR_LABEL].to_numpy()
        values |= _draw_values(index_ar - index, f"counter_{key}")
        values |= _draw_values(-lead_draws(means, [AR_LABEL], "pLSA", others).loc[AR_LABEL], f"plsa_behind_{key}")
        values[f"order_{key}"] = " > ".join(_order(means, AR_LABEL))
    means = mean_draws(main, STRATIFIED, n_boot=n_boot, seed=seed)
    for design, label in (("ar", AR_LABEL), ("1r", "1R -NR")):
        order = _order(means, label)
        first, third = [s for s in order if s != "Popularity"][:2]
        cell = means.loc[label]
        values |= _draw_values(cell.loc[first] - cell.loc["Popularity"], f"psr_first_over_popularity_{design}")
        values |= _draw_values(cell.loc["Popularity"] - cell.loc[third], f"psr_popularity_over_second_{design}")
        values[f"order_psr_{design}"] = " > ".join(order)
    return values


def fig9_second_values(second: DatasetStudy, *, n_boot: int = 200, seed: int = 0) -> dict[str, Any]:
    """The values of the Fig. 9 findings on the second dataset: under AR, popularity minus the best personalised
    system by bpref and by infAP, and random minus it by bpref, with p-values over ``n_boot`` user resamples and
    the orders they read."""
    values: dict[str, Any] = {}
    personalised = list(PERSONALISED[PAPERS])
    for key, metric in INCOMPLETE_METRICS.items():
        means = mean_draws(second, metric, n_boot=n_boot, seed=seed)
        lead = lead_draws(means, [AR_LABEL], "Popularity", personalised).loc[AR_LABEL]
        values |= _draw_values(lead, f"second_popularity_lead_{key}")
        values[f"second_order_{key}"] = " > ".join(_order(means, AR_LABEL))
        if key == "bpref":
            values |= _draw_values(lead_draws(means, [AR_LABEL], "Random", personalised).loc[AR_LABEL],
                                   "second_random_lead_bpref")
    return values


def measured(studies: Sequence[DatasetStudy], indices: pd.DataFrame, percentiles: int, *, n_boot: int = 200,
             seed: int = 0) -> dict[str, Any]:
    """The values every claim is checked on: :func:`measured_main` of the page's dataset (the first study) and,
    when there is a second study, :func:`measured_all_positive` of it."""
    second = (measured_all_positive(studies[1], n_boot=n_boot, seed=seed)
              | fig9_second_values(studies[1], n_boot=n_boot, seed=seed)) if len(studies) > 1 else {}
    return measured_main(studies[0], indices, percentiles, n_boot=n_boot, seed=seed) | second


def measured_main(main: DatasetStudy, indices: pd.DataFrame, percentiles: int, *, n_boot: int = 200,
                  seed: int = 0) -> dict[str, Any]:
    """The values :data:`FINDINGS` and the published numbers are checked on: the page's dataset's popularity
    indices against the papers' set, P1R's and U1R's with their 90% intervals over ``n_boot`` user resamples
    (``*_low``, ``*_high``); the differences the findings compare, each with its p-value over
    ``n_boot`` user resamples (``*_p``), Fig. 9's among them (:func:`fig9_values`); the runs with bpref below 1 in the papers' 1R and in ours; and the
    uniform split's ``|T|`` and ``eta`` and the items per percentile under the published numbers' keys."""
    means = mean_draws(main, "P@10", n_boot=n_boot, seed=seed)
    index = index_draws(means, list(INDEX_LABELS.values()), PERSONALISED[PAPERS])
    index.index = list(INDEX_LABELS)
    differences = {
        "u1r_residue": index.loc["index_u1r"] - index.loc["index_p1r"],
        "uar_drop": index.loc["index_ar"] - index.loc["index_uar"],
        "ai_uar_excess": index.loc["index_ai_uar"] - index.loc["index_uar"],
        "head_excess": index.loc["index_head"] - np.maximum(index.loc["index_p1r"], index.loc["index_u1r"]),
        "uar_popularity_lead": lead_draws(means, ["UAR"], "Popularity", ["rating-kNN"]).loc["UAR"],
    }
    lead = lead_draws(means, list(LEAD_KEYS), "pLSA", [s for s in PAPERS_SET if s != "pLSA"])
    differences |= {f"plsa_lead_{key}": lead.loc[label] for label, key in LEAD_KEYS.items()}
    papers = indices[(indices["dataset"] == main.name) & (indices["set"] == PAPERS)].set_index("method")["index"]
    values = {name: float(papers.get(row, np.nan)) for name, row in (INDEX_NAMES | INCOMPLETE_NAMES).items()}
    for name in ("index_p1r", "index_u1r"):
        low, high = percentile_interval(index.loc[name].to_numpy()[1:], EQUIVALENCE_CONFIDENCE)
        values |= {f"{name}_low": float(low), f"{name}_high": float(high)}
    for name, draws in differences.items():
        values |= _draw_values(draws, name)
    values |= fig9_values(main, index.loc["index_ar"].to_numpy(), n_boot=n_boot, seed=seed)
    values["plsa_leads"] = ", ".join(f"{label.replace('-head', '-10% head')} {values['plsa_lead_' + key]:+.4f} (p = "
                                     f"{values['plsa_lead_' + key + '_p']:.3f})" for label, key in LEAD_KEYS.items())
    one_r = main.runs[main.runs["label"] == "1R"]
    below, scored = bpref_below_one(main, "1R -NR")
    below_judged, scored_judged = bpref_below_one(main, "1R")
    return values | {
        "uar_popularity": means.loc[("UAR", "Popularity"), 0],
        "uar_knn": means.loc[("UAR", "rating-kNN"), 0], "bpref_below": below, "bpref_scored": scored,
        "bpref_below_judged": below_judged, "bpref_scored_judged": scored_judged,
        "bpref_share_judged": below_judged / max(scored_judged, 1),
        "bpref_mean_judged": one_r["bpref"].mean(), "one_r_runs": len(one_r) // one_r["system"].nunique(),
        "uniform/target-size": float(main.plan.size), "uniform/eta": float(main.plan.eta),
        "p1r/percentile-size": main.plan.n_items / percentiles,
    }


def measured_all_positive(second: DatasetStudy, *, n_boot: int = 200, seed: int = 0) -> dict[str, Any]:
    """The values of :data:`ON_ALL_POSITIVE`: popularity's index under U1R against the papers' set with its 90%
    interval over ``n_boot`` user resamples, and U1R P@10 of Popularity and Random
    with the p-value of their paired comparison (users as clusters)."""
    u1r = second.runs[(second.runs["label"] == "U1R") & second.runs["system"].isin(["Popularity", "Random"])]
    test = compare(u1r, ["P@10"], systems=["Popularity", "Random"], average="run").iloc[0]
    index = index_draws(mean_draws(second, "P@10", n_boot=n_boot, seed=seed), ["U1R"], PERSONALISED[PAPERS])
    low, high = percentile_interval(index.loc["U1R"].to_numpy()[1:], EQUIVALENCE_CONFIDENCE)
    return {"second_name": second.name, "second_index_u1r": float(index.loc["U1R", 0]),
            "second_index_u1r_low": float(low), "second_index_u1r_high": float(high),
            "u1r_popularity": test["mean_a"], "u1r_random": test["mean_b"], "u1r_p": test["t_pvalue"],
            "u1r_p_clause": fmt_p_clause(test["t_pvalue"])}

"""Chapter 5's findings (IRJ 2017 Sec. 6.3 and 7, thesis Sec. 4.6) as data, and the values they are checked on.

:func:`measured` turns the studies of the page into one mapping of values: :data:`FINDINGS` are checked on
those of the page's dataset, :data:`ON_ALL_POSITIVE` on those of the second dataset (reduced to its positive
ratings), and the numbers the papers publish for MovieLens 1M (:data:`PUBLISHED`) against the page's uniform
split and percentiles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import Criterion, Finding, all_of, at_most, between
from recbias.chapters.c05_neutralising_designs.study import (
    FIG8,
    NEUTRALISING,
    PERSONALISED,
    DatasetStudy,
    bpref_below_one,
    fig8_summary,
    index_of,
)
from recbias.evaluate import compare
from recbias.text import fmt_p_clause

#: the papers' numbers for MovieLens 1M, in the schema of :data:`recbias.bookkit.claims.PUBLISHED_COLUMNS`
PUBLISHED = Path(__file__).with_name("published.csv")
#: where the papers state the findings
SOURCE = "IRJ 2017 Sec. 6-7; thesis Sec. 4.6"
#: a popularity index at most this large counts as random's level
RANDOM_LEVEL = 0.15
#: measured value -> the row of the popularity index it reads
INDEX_NAMES = {"index_1r": "1R, P@10", "index_p1r": "P1R, P@10", "index_u1r": "U1R, P@10", "index_ar": "AR, P@10",
               "index_uar": "UAR, P@10", "index_ai_uar": "AI-UAR, P@10", "index_head": "1R -10% head, P@10"}


def _positive(name: str, what: str) -> Criterion:
    """``values[name] > 0`` (every element, for an array): :func:`recbias.bookkit.claims.between` with open
    ends at 0 and infinity, in the words "``what`` above 0"."""
    test = between(name, 0, math.inf, open_low=True, open_high=True)
    return Criterion(f"{what} above 0", test.names, test.test)


FINDINGS = [
    Finding("p1r-random-level", "P1R brings popularity to the level of random, relative to the personalised systems",
            SOURCE, "fig-neutralising-index", at_most("index_p1r", RANDOM_LEVEL, what="popularity index under P1R"),
            "popularity index {index_p1r:.2f} under P1R (1R: {index_1r:.2f})"),
    Finding("u1r-random-level", "U1R brings popularity to the level of random, relative to the personalised systems",
            SOURCE, "fig-neutralising-index", at_most("index_u1r", RANDOM_LEVEL, what="popularity index under U1R"),
            "popularity index {index_u1r:.2f} under U1R (1R: {index_1r:.2f})"),
    Finding("uar-reduces", "UAR reduces popularity's advantage over AR", SOURCE, "fig-neutralising-index",
            _positive("uar_drop", "popularity index under AR minus under UAR"),
            "popularity index {index_uar:.2f} (UAR) vs {index_ar:.2f} (AR)"),
    Finding("ai-uar-more-bias", "AI-UAR leaves more popularity bias than TI-UAR", SOURCE, "fig-neutralising-index",
            _positive("ai_uar_excess", "popularity index under AI-UAR minus under UAR"),
            "popularity index {index_ai_uar:.2f} (AI-UAR) vs {index_uar:.2f} (UAR)"),
    Finding("head-less-effective", "removing the 10% head is less effective than P1R and U1R", SOURCE,
            "fig-neutralising-index",
            _positive("head_excess", "popularity index without the head minus the larger of P1R's and U1R's"),
            "popularity index {index_head:.2f} (-10% head) vs {index_p1r:.2f} (P1R) and {index_u1r:.2f} (U1R)"),
    Finding("best-keeps-lead", "one personalised system leads under every neutralising design, ahead of popularity",
            SOURCE, "fig-neutralising-fig8",
            all_of(at_most("n_leaders", 1, what="the number of personalised systems that lead a neutralising design"),
                   _positive("lead_over_popularity", "the leader's P@10 minus popularity's under each of them")),
            "best personalised system per design: {leaders} (1R and AR for reference)"),
    Finding("bpref-constant-1r", "bpref is 1 for every system in 1R", SOURCE, "tbl-neutralising-fig9",
            at_most("bpref_below", 0, what="scored 1R runs with bpref below 1"),
            "1R bpref is below 1 in {bpref_below:,} of the {bpref_scored:,} scored runs ({one_r_runs:,} runs, each "
            "scored for every system), mean {bpref_mean:.3f}; those runs drew an item the user rated below the "
            "threshold, a judgment that the papers' 1R drops",
            departs="our 1R runs keep the judgment of a sampled item the user rated below the threshold, where the "
                    "papers' 1R has no non-relevance judgment at all"),
]
#: checked on the second dataset, every rating of which is positive
ON_ALL_POSITIVE = [
    Finding("all-positive-u1r-random", "on data where every rating is positive, U1R makes popularity exactly random "
            "(no significant difference)", SOURCE, "fig-neutralising-fig8",
            between("u1r_p", 0.05, 1, open_low=True, what="p of the paired test of Popularity against Random"),
            "{second_name}: U1R P@10 {u1r_popularity:.4f} (Popularity) vs {u1r_random:.4f} (Random), "
            "{u1r_p_clause}"),
]


def measured(studies: Sequence[DatasetStudy], indices: pd.DataFrame, percentiles: int) -> dict[str, Any]:
    """The values every claim of the chapter is checked on: those of the page's dataset (the first study,
    :func:`measured_main`) and, when there is a second study, those of :data:`ON_ALL_POSITIVE`
    (:func:`measured_all_positive`)."""
    second = measured_all_positive(studies[1]) if len(studies) > 1 else {}
    return measured_main(studies[0], indices, percentiles) | second


def measured_main(main: DatasetStudy, indices: pd.DataFrame, percentiles: int) -> dict[str, Any]:
    """The values :data:`FINDINGS` and the published numbers are checked on, from the page's dataset:
    its popularity indices (:data:`INDEX_NAMES`) and the differences the findings compare, the leading
    personalised system of each Fig. 8 design, the 1R runs with bpref below 1, and the uniform split's
    ``|T|`` and ``eta`` and the items per percentile under the published numbers' keys."""
    index = {name: index_of(indices, main.name, method) for name, method in INDEX_NAMES.items()}
    p10 = fig8_summary(main, ["P@10"]).set_index(["label", "system"])["mean"]
    leaders = {d: p10.loc[d][list(PERSONALISED)].idxmax() for d in FIG8}
    one_r = main.runs[main.runs["label"] == "1R"]
    below, scored = bpref_below_one(main)
    return index | {
        "uar_drop": index["index_ar"] - index["index_uar"],
        "ai_uar_excess": index["index_ai_uar"] - index["index_uar"],
        "head_excess": index["index_head"] - max(index["index_p1r"], index["index_u1r"]),
        "leaders": ", ".join(f"{d} {leaders[d]}" for d in FIG8),
        "n_leaders": len({leaders[d] for d in NEUTRALISING}),
        "lead_over_popularity": np.array([p10[(d, leaders[d])] - p10[(d, "Popularity")] for d in NEUTRALISING]),
        "bpref_below": below, "bpref_scored": scored, "bpref_mean": one_r["bpref"].mean(),
        "one_r_runs": len(one_r) // one_r["system"].nunique(),
        "uniform/target-size": float(main.plan.size), "uniform/eta": float(main.plan.eta),
        "p1r/percentile-size": main.plan.n_items / percentiles,
    }


def measured_all_positive(second: DatasetStudy) -> dict[str, Any]:
    """The values of :data:`ON_ALL_POSITIVE`: U1R P@10 of Popularity and Random on the second dataset and the
    p-value of their paired comparison (runs paired, users as clusters)."""
    u1r = second.runs[(second.runs["label"] == "U1R") & second.runs["system"].isin(["Popularity", "Random"])]
    test = compare(u1r, ["P@10"], systems=["Popularity", "Random"], average="run").iloc[0]
    return {"second_name": second.name, "u1r_popularity": test["mean_a"], "u1r_random": test["mean_b"],
            "u1r_p": test["t_pvalue"], "u1r_p_clause": fmt_p_clause(test["t_pvalue"])}

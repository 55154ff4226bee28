"""The chapter's tables: the size and the spread statistics of every collection, the threshold sweep of the
page's dataset and what each rating dataset's own threshold does, and the published numbers next to ours."""

from __future__ import annotations

import pandas as pd

from recbias.chapters.c01_cranfield.claims import COMPARED_ON, NUMBERS, STATISTIC
from recbias.chapters.c01_cranfield.study import SpreadStudy
from recbias.text import fmt_pct

#: headers of :func:`spread_table`, in the notation of the chapter's equations
#: the statistics of :data:`~.claims.STATISTIC` that are shares (the others are counts)
SHARES = ("share relevant to one query", "top reach")
SPREAD_HEADERS = {
    "share relevant to one query": "relevant to one query, <i>s</i><sub>1</sub>",
    "max positives per document": "max <i>p</i>(<i>d</i>)",
    "top reach": "reach<sub>1</sub>",
    "head share": "held by the top tenth",
    "gini": "Gini <i>G</i>",
}


def size_table(study: SpreadStudy) -> pd.DataFrame:
    """Size of each collection: queries (users), judgments, judgments per query, relevant documents, positive
    judgments, their share of the judgments and positives per query, under short headers (the caption says what
    they mean for ratings)."""
    stats = study.stats.assign(**{"judged per query": study.stats["judgments"] / study.stats["queries"],
                                  "positive share": study.stats["positive judgments"] / study.stats["judgments"]})
    return stats[["label", "queries", "judgments", "judged per query", "relevant documents", "positive judgments",
                  "positive share", "positives per query"]].rename(columns={"label": "collection",
                                                                              "positives per query": "per query"})


def spread_table(study: SpreadStudy) -> pd.DataFrame:
    """The spread statistics of each collection under the names the chapter's equations give them, with the
    share of positive judgments held by the tenth of documents most often judged relevant."""
    stats = study.stats.assign(**{"head share": study.head_share})
    return stats[["label", "share relevant to one query", "max positives per document", "top reach", "head share",
                  "gini", study.fixed]].rename(columns={"label": "collection", **SPREAD_HEADERS})


def threshold_table(study: SpreadStudy) -> pd.DataFrame:
    """The threshold sweep of the page's dataset, one row per threshold, the statistics under the headers of
    :func:`spread_table`."""
    mine = study.sweeps[study.sweeps["collection"] == study.here]
    return mine[["threshold", "positive share of ratings", "positive judgments", "relevant documents",
                 "share relevant to one query", "top reach", "gini", study.fixed]].rename(columns={
        "positive share of ratings": "share of ratings positive", "relevant documents": "liked items",
        **SPREAD_HEADERS})

def threshold_effect_table(study: SpreadStudy) -> pd.DataFrame:
    """What each rating dataset's own threshold does against counting every rating as positive, one row per
    dataset (:attr:`~.study.SpreadStudy.threshold_effect`): the threshold, the share of ratings it keeps, the reach
    of the top item and the Gini coefficient at both, the relative drop of the reach and the change of Gini."""
    return study.threshold_effect.rename(columns={
        "positive share": "share of ratings positive", "loose reach": "reach₁, all positive",
        "own reach": "reach₁", "loose gini": "Gini, all positive", "own gini": "Gini", "reach drop": "reach₁ drop",
        "gini change": "Gini change"}).rename_axis(None)


def published_table(study: SpreadStudy) -> pd.DataFrame:
    """Each published statistic next to ours on every collection of this build that it applies to
    (:data:`~.claims.COMPARED_ON`; "–" where none does); the published side is written on the first of
    its rows only."""
    rows = []
    for number in NUMBERS:
        column = STATISTIC[number.key]
        shown = fmt_pct if column in SHARES else "{:,.0f}".format
        found = [c for c in COMPARED_ON[number.key] if c in study.stats.index] or [None]
        for k, collection in enumerate(found):
            rows.append({
                "published statistic": number.statement if k == 0 else "",
                "published": shown(number.value) if k == 0 else "",
                "ours on": "–" if collection is None else study.stats.loc[collection, "label"],
                "ours": "–" if collection is None else shown(study.stats.loc[collection, column]),
            })
    return pd.DataFrame(rows)

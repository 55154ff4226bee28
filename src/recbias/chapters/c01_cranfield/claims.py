"""The chapter's claims: the papers' statements on how relevance spreads, and their published numbers.

IRJ 2017 Sec. 5.3 (and the thesis, Table 4.1) contrast rating datasets with IR collections: the most-liked item
reaches a large share of users, likes concentrate on few items, few items are liked by one user only, and one fixed
list of popular items scores well.  Each statement is a :class:`Finding` that compares the page's dataset with the
IR collections; Sec. 5.2 prints a few spread statistics (``published.csv``), recomputed from the columns of
:attr:`~.study.SpreadStudy.stats` named in :data:`STATISTIC`.  :data:`TRUTH` and :data:`NO_WORLD` are the page's
sentences about its simulated world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recbias.bookkit.claims import Finding, above, published
from recbias.chapters.c01_cranfield.study import TREC, SpreadStudy

#: where the papers state the findings of this chapter
SOURCE = "IRJ 2017 Sec. 5.3; thesis Table 4.1"
#: where the page shows what the findings rest on
ANCHOR = "tbl-cranfield-spread"

#: the papers' numbers (IRJ 2017 Sec. 5.2; thesis Sec. 4.5.1)
NUMBERS = published(Path(__file__).with_name("published.csv"))
#: the numbers published for the TREC aggregate, recomputed on TREC-8 (:data:`~.study.TREC`)
TREC_NUMBERS = [number for number in NUMBERS if number.paper_dataset == "trec"]
#: the numbers published for rating datasets, recomputed on the page's dataset
RATING_NUMBERS = [number for number in NUMBERS if number.paper_dataset != "trec"]
#: published key -> the column of :attr:`~.study.SpreadStudy.stats` that recomputes it
STATISTIC = {
    "trec/share-relevant-to-one-query": "share relevant to one query",
    "trec/max-positives-per-document": "max positives per document",
    "trec/max-positives-share-of-queries": "top reach",
    "trec/queries": "queries",
    "trec/relevant-documents": "relevant documents",
    "trec/positive-judgments": "positive judgments",
    "top-item-reach/movielens-1m": "top reach",
    "top-item-reach/lastfm": "top reach",
    "top-item-reach/netflix": "top reach",
}
#: published key -> the collections of ours its published value is set against in the page's table
COMPARED_ON = {
    "trec/share-relevant-to-one-query": ("trec8-adhoc", "cranfield"),
    "trec/max-positives-per-document": ("trec8-adhoc", "cranfield"),
    "trec/max-positives-share-of-queries": ("trec8-adhoc", "cranfield"),
    "trec/queries": ("trec8-adhoc", "cranfield"),
    "trec/relevant-documents": ("trec8-adhoc", "cranfield"),
    "trec/positive-judgments": ("trec8-adhoc", "cranfield"),
    "top-item-reach/movielens-1m": ("ml-1m", "ml-100k", "ml-latest-small"),
    "top-item-reach/lastfm": ("lastfm-2k",),
    "top-item-reach/netflix": (),
}
#: what the page says of its simulated world (:attr:`~.study.SpreadStudy.truth`), and that it has none
TRUTH = ("In the simulated world `{world}`, only {coverage:.1%} of the truly relevant user-item pairs appear as "
         "positive ratings; every other relevant pair would count as a miss in an offline evaluation. The item most "
         "users truly like is liked by {true_reach:.1%} of them, whereas the most-liked item among the observed "
         "ratings reaches {observed_reach:.1%}. The Gini coefficient is {true_gini:.2f} for the true relevance and "
         "{observed_gini:.2f} for the observed likes.")
NO_WORLD = "No simulated world was loaded for this page (`compare_all` is off), so this part is skipped."


FINDINGS = [
    Finding("liked-items-reach-more-users",
            "the most-liked item reaches a larger share of users than any IR document reaches queries", SOURCE, ANCHOR,
            above("top_reach", "ir_top_reach", what="the page's reach₁", than="every IR collection's"),
            "{top_reach:.1%} of users ({dataset}) vs at most {ir_top_reach:.1%} of queries"),
    Finding("likes-concentrate",
            "positive judgments concentrate on few items more than on few documents (higher Gini)", SOURCE, ANCHOR,
            above("gini", "ir_gini", what="the page's Gini coefficient", than="every IR collection's"),
            "Gini {gini:.2f} ({dataset}) vs at most {ir_gini:.2f} in IR"),
    Finding("few-single-user-items",
            "fewer liked items are liked by a single user than relevant documents are relevant to a single query",
            SOURCE, ANCHOR,
            above("ir_single_query_share", "single_query_share", what="every IR collection's s₁",
                  than="the page's"),
            "{single_query_share:.1%} ({dataset}) vs at least {ir_single_query_share:.1%} in IR"),
    Finding("head-holds-more",
            "the tenth of items most often liked holds a larger share of positive judgments than the tenth of "
            "documents most often judged relevant", SOURCE, ANCHOR,
            above("head_share", "ir_head_share", what="the page's head share", than="every IR collection's"),
            "{head_share:.1%} ({dataset}) vs at most {ir_head_share:.1%} in IR"),
    Finding("fixed-list-works",
            "one fixed list of the {cutoff} most-liked items, shown to everybody, scores a higher precision than the "
            "IR collections' most-judged documents do as a fixed answer to every query", SOURCE, ANCHOR,
            above("fixed_list", "ir_fixed_list", what="the page's fixed-list precision", than="every IR collection's"),
            "fixed-list P@{cutoff}: {fixed_list:.3f} ({dataset}) vs at most {ir_fixed_list:.3f} in IR"),
]


def measured(study: SpreadStudy) -> dict[str, Any]:
    """The values the claims are checked on: the page's statistics, the most extreme of the IR collections
    (when any was loaded), and the published numbers' recomputations (TREC ones on TREC-8 when loaded)."""
    mine, ir = study.mine, study.ir
    values: dict[str, Any] = {
        "dataset": study.here, "cutoff": study.cutoff, "top_reach": mine["top reach"], "gini": mine["gini"],
        "single_query_share": mine["share relevant to one query"], "head_share": study.head_share[study.here],
        "fixed_list": mine[study.fixed],
    }
    if len(ir):
        values |= {"ir_top_reach": ir["top reach"].max(), "ir_gini": ir["gini"].max(),
                   "ir_single_query_share": ir["share relevant to one query"].min(),
                   "ir_head_share": study.head_share[ir.index].max(), "ir_fixed_list": ir[study.fixed].max()}
    values |= {n.key: mine[STATISTIC[n.key]] for n in RATING_NUMBERS}
    if TREC in study.stats.index:
        values |= {n.key: study.stats.loc[TREC, STATISTIC[n.key]] for n in TREC_NUMBERS}
    return values

"""The chapter's tables, the values its prose quotes, and the few notes whose wording depends on the data
(which collections this build could load, the simulated world, the MovieLens and Last.fm releases)."""

from __future__ import annotations

import pandas as pd

from recbias import judgments
from recbias.chapters.c01_cranfield.claims import COMPARED_ON, NUMBERS, STATISTIC, published_value
from recbias.chapters.c01_cranfield.study import TREC, TRUTH, SpreadStudy
from recbias.text import and_list, fmt_number, fmt_pct, fmt_span

#: how the prose names the IR collections
IR_NAMES = {"cranfield": "Cranfield", "trec8-adhoc": "TREC-8"}
#: headers of :func:`spread_table`, in the notation of the chapter's equations
SPREAD_HEADERS = {
    "share relevant to one query": "relevant to one query, <i>s</i><sub>1</sub>",
    "max positives per document": "max <i>p</i>(<i>d</i>)",
    "top reach": "reach<sub>1</sub>",
    "head share": "held by the top tenth",
    "gini": "Gini <i>G</i>",
}


def settings_table(study: SpreadStudy) -> pd.DataFrame:
    """The page's setting against the papers' (IRJ 2017 Sec. 5.2-5.3; thesis Sec. 4.5.1), one row per
    setting, with the reason for every departure ("" where the page keeps the papers' setting)."""
    rated = [r for r in study.ratings if r.true_relevance is None]
    thresholds = ", ".join(f"≥ {r.positive_threshold:g} on {r.name}" for r in study.ratings)
    ir = " and ".join(IR_NAMES[c] for c in study.ir.index)
    rows = [
        ("IR collections", ir + (" (from the shipped summary)" if study.shipped else ""),
         "30 TREC tracks appended, 703 queries", "the papers' aggregate is not registered here"),
        ("rating datasets", ", ".join(r.name for r in rated) or "none",
         "Netflix, MovieLens 1M, Last.fm (about 1,000 users)",
         "those on this machine" + (f"; not here: {', '.join(study.skipped)}" if study.skipped else "")),
        ("simulated worlds", ", ".join(r.name for r in study.ratings if r.true_relevance is not None) or "none",
         "none", "a world whose complete relevance is known shows what the judgments miss"),
        ("positive rating", thresholds, "5 stars (MovieLens, Netflix), more than 2 plays (Last.fm)", ""),
        ("statistics", f"the papers', with the Gini coefficient, the head share and the fixed-list P@{study.cutoff}",
         "documents relevant to one query, max positives per document, reach of the top item", "the added "
         "statistics summarise the curves of Fig. 5 in one number each"),
    ]
    return pd.DataFrame(rows, columns=["setting", "this page", "the papers", "why it differs"])


def size_table(study: SpreadStudy) -> pd.DataFrame:
    """Size of each collection: queries (users), judgments, relevant documents, positive judgments and
    positives per query, under short headers (the caption says what they mean for ratings)."""
    return study.stats[["label", "queries", "judgments", "relevant documents", "positive judgments",
                        "positives per query"]].rename(columns={"label": "collection",
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


def _shown(value: float, column: str) -> str:
    return f"{value:,.0f}" if column == "max positives per document" else fmt_pct(value)


def published_table(study: SpreadStudy) -> pd.DataFrame:
    """Each published statistic next to ours on every collection of this build that it applies to
    (:data:`~.claims.COMPARED_ON`; "–" where none does); the published side is written on the first of
    its rows only."""
    rows = []
    for number in NUMBERS:
        column = STATISTIC[number.key]
        found = [c for c in COMPARED_ON[number.key] if c in study.stats.index] or [None]
        for k, collection in enumerate(found):
            rows.append({
                "published statistic": number.statement if k == 0 else "",
                "published": _shown(number.value, column) if k == 0 else "",
                "ours on": "–" if collection is None else study.stats.loc[collection, "label"],
                "ours": "–" if collection is None else _shown(study.stats.loc[collection, column], column),
            })
    return pd.DataFrame(rows)


def prose_values(study: SpreadStudy) -> dict[str, str]:
    """The values the page's prose quotes, formatted, by glue name: the IR collections against the rating
    datasets, the page's own statistics, Cranfield and TREC-8, and the effect of the positive threshold."""
    ir, rated, head, mine, stats = study.ir, study.rated, study.head_share, study.mine, study.stats
    effect = study.threshold_effect
    own = effect.loc[study.here]
    cranfield, trec = stats.loc["cranfield"], stats.loc[TREC]
    return {
        "here": study.here, "cutoff": str(study.cutoff),
        "ir_head": fmt_pct(head[ir.index].max()), "ir_reach": fmt_pct(ir["top reach"].max()),
        "ir_fixed": fmt_number(ir[study.fixed].max()),
        "rated_head": fmt_span(head[rated.index].min(), head[rated.index].max(), "{:.1%}"),
        "rated_reach": fmt_span(rated["top reach"].min(), rated["top reach"].max(), "{:.1%}"),
        "here_gini": fmt_number(mine["gini"], 2), "here_fixed": fmt_number(mine[study.fixed]),
        "single_query_ir": and_list([f"{fmt_pct(stats.loc[c, 'share relevant to one query'])} on {IR_NAMES[c]}"
                                     for c in ir.index]),
        "cranfield_queries": f"{cranfield['queries']:,}", "cranfield_max": f"{cranfield['max positives per document']}",
        "trec_single": fmt_pct(trec["share relevant to one query"]),
        "trec_max": f"{trec['max positives per document']}", "trec_reach": fmt_pct(trec["top reach"]),
        "trec_topics": f"{trec['queries']}",
        "loose_reach": fmt_pct(own["loose reach"]), "own_threshold": f"{own['threshold']:g}",
        "own_share": fmt_pct(own["positive share"]), "own_reach": fmt_pct(own["own reach"]),
        "loose_gini": fmt_number(own["loose gini"], 2), "own_gini": fmt_number(own["own gini"], 2),
        "threshold_effect": threshold_effect_text(effect), "lastfm_threshold": lastfm_threshold_note(study),
    }


def availability_note(study: SpreadStudy, compare_all: bool) -> str:
    """Which collections this build could not load, and whether the comparison was limited."""
    notes = []
    if study.shipped:
        notes.append(f"The judgment files of {and_list([IR_NAMES[n] for n in study.shipped])} are not on the "
                     "machine that built this page, so their spreads come from the summary that ships with the "
                     "package, derived from the same pinned files.")
    if study.skipped:
        notes.append("Not available on the machine that built this page, hence left out: "
                     + ", ".join(f"`{n}`" for n in study.skipped) + ". The appendix on datasets says where to put "
                     "their files.")
    if not compare_all:
        notes.append("This page was built with `compare_all = False`: besides the IR collections, only its own "
                     "dataset is shown.")
    return " ".join(notes)


def truth_text(study: SpreadStudy) -> str:
    """What the first simulated world of the study shows about observed against true relevance."""
    world = study.world
    if world is None:
        return "No simulated world was loaded for this page (`compare_all` is off), so this part is skipped."
    observed, truth = study.stats.loc[world.name], study.stats.loc[f"{world.name}{TRUTH}"]
    return (
        f"In the simulated world `{world.name}`, only {fmt_pct(judgments.truth_coverage(world))} of the truly relevant "
        f"user-item pairs appear as positive ratings; every other relevant pair would count as a miss in an offline "
        f"evaluation. The item most users truly like is liked by {fmt_pct(truth['top reach'])} of them, whereas the "
        f"most-liked item among the observed ratings reaches {fmt_pct(observed['top reach'])}. The Gini coefficient "
        f"is {fmt_number(truth['gini'], 2)} for the true relevance and {fmt_number(observed['gini'], 2)} for the "
        "observed likes."
    )


def dataset_notes(study: SpreadStudy) -> str:
    """How the MovieLens and Last.fm releases available here compare with the papers' releases."""
    stats = study.stats
    movielens = fmt_pct(published_value("top-item-reach/movielens-1m"))
    ml = next((c for c in ("ml-1m", "ml-100k", "ml-latest-small") if c in stats.index), None)
    if ml == "ml-1m":
        notes = [f"MovieLens 1M is available here: its most-liked movie is liked by "
                 f"{fmt_pct(stats.loc['ml-1m', 'top reach'])} of the users, against {movielens} published."]
    elif ml:
        notes = [f"MovieLens 1M is not available on the machine that built this page. On `{ml}` the most-liked movie "
                 f"is liked by {fmt_pct(stats.loc[ml, 'top reach'])} of the users, against {movielens} published for "
                 "MovieLens 1M; the releases come from different periods and user populations, so only the order of "
                 "magnitude can be expected to match."]
    else:
        notes = ["No MovieLens dataset was loaded for this page."]
    lastfm = next((r for r in study.ratings if r.name == "lastfm-2k"), None)
    if lastfm is not None:
        notes.append(f"On the HetRec Last.fm release, the most-played artist is liked by "
                     f"{fmt_pct(stats.loc['lastfm-2k', 'top reach'])} of its {lastfm.n_users:,} users, against the "
                     f"published {fmt_pct(published_value('top-item-reach/lastfm'), 0)}. The release lists "
                     f"{lastfm.n_ratings / lastfm.n_users:.1f} artists per user on average, and "
                     f"{fmt_pct(lastfm.positive.mean())} of these pairs count as positive.")
    else:
        notes.append("The HetRec Last.fm release was not loaded for this page.")
    return "\n\n".join(notes)


def threshold_effect_text(effect: pd.DataFrame) -> str:
    """What each rating dataset's own threshold does against counting every rating as positive
    (:attr:`~.study.SpreadStudy.threshold_effect`, one row per dataset): the relative drop of the top
    item's reach and the change of the Gini coefficient, as one value for one dataset or a span for several."""
    drop = fmt_span(effect["reach drop"].min(), effect["reach drop"].max(), "{:.1%}")
    reach = ("leaves the reach of the top item unchanged" if effect["reach drop"].max() <= 0 else
             f"lowers the reach of the top item by {drop} of its value")
    gini = fmt_number(effect["gini change"].max(), 2)
    if len(effect) == 1:
        return (f"On {effect.index[0]}, the only rating dataset of this page, moving from \"every rating is "
                f"positive\" to its own threshold {reach}, and changes the Gini coefficient by {gini}.")
    return (f"Across the {len(effect)} rating datasets of this page, moving from \"every rating is positive\" to "
            f"each dataset's own threshold {reach}, and changes the Gini coefficient by at most {gini}.")


def lastfm_threshold_note(study: SpreadStudy) -> str:
    """Why Last.fm 2K keeps most of its rows at its own threshold, when it is in the sweep ("" otherwise)."""
    effect = study.threshold_effect
    if "lastfm-2k" not in effect.index:
        return ""
    others = effect.drop(index="lastfm-2k")["positive share"]
    other = "the other dataset" if len(others) == 1 else "the other datasets"
    versus = f", against {fmt_span(others.min(), others.max(), '{:.1%}')} of the ratings of {other}" if len(others) else ""
    return ("Last.fm 2K lists only each user's favourite artists, so its own play-count threshold still counts "
            f"{fmt_pct(effect.loc['lastfm-2k', 'positive share'])} of its rows as positive{versus}.")

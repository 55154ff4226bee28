"""Chapter 1 (the Cranfield paradigm for recommendation): IR judgments and ratings counted alike.

A recommendation dataset read as a test collection has users for queries, items
for documents and positive ratings for relevance judgments.  :func:`spread_study`
loads the IR judgments (Cranfield, TREC-8) and the rating datasets available, and
measures how positive judgments spread over documents (:mod:`recbias.judgments`):
the share of documents relevant to a single query, the reach of the top document,
the Gini coefficient and the precision of one fixed list shown to everybody
(IRJ 2017 Sec. 5.3; Bellogín 2012, Table 4.1).  The other functions turn the study
into the page's sentences, its comparison with the published numbers
(``published/cranfield.csv``) and the findings it checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import pandas as pd

from recbias import datasets, judgments
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS
from recbias.text import fmt_number, fmt_pct

#: the IRJ section that publishes the numbers and findings of this chapter
SOURCE = "IRJ 2017 Sec. 5.3; thesis Table 4.1"
#: suffix of the collections built from a simulated world's complete relevance
TRUTH = " (true relevance)"
#: how the prose names the IR collections
IR_NAMES = {"cranfield": "Cranfield", "trec8-adhoc": "TREC-8"}


@dataclass(frozen=True)
class SpreadStudy:
    """The collections of the chapter and their statistics.

    Attributes:
        here: name of the page's dataset.
        cutoff: list length ``n`` of the fixed-list precision.
        ratings: the rating datasets, the page's first.
        stats: one row per collection (:func:`recbias.judgments.summary`), indexed by name,
            with a ``label`` column that marks the page's dataset.
        curves: the cumulative share and reach curves of every collection.
        skipped: registered rating datasets not available on this machine.
        shipped: IR collections whose judgment files are not on this machine, read from the
            spreads shipped with the package (:data:`recbias.judgments.SHIPPED_SPREADS`).
    """

    here: str
    cutoff: int
    ratings: list[Ratings]
    stats: pd.DataFrame
    curves: pd.DataFrame
    skipped: list[str]
    shipped: list[str]

    @property
    def fixed(self) -> str:
        """Name of the fixed-list precision column."""
        return f"fixed-list P@{self.cutoff}"

    @property
    def ir(self) -> pd.DataFrame:
        return self.stats[self.stats["kind"] == "IR"]

    @property
    def rated(self) -> pd.DataFrame:
        """The observed rating collections (neither IR nor a simulated truth)."""
        return self.stats[(self.stats["kind"] != "IR") & ~self.stats.index.str.endswith(TRUTH)]

    @property
    def head_share(self) -> pd.Series:
        """Share of positive judgments held by the tenth of documents most often judged relevant."""
        head = self.curves[self.curves["rank_share"] <= 0.1]
        return head.groupby("collection", sort=False)["cumulative_share"].max().reindex(self.stats.index, fill_value=0.0)


def _others(here: str, seed: int) -> list[Ratings]:
    """Every other available registered rating dataset (simulated presets at the page's scale only)."""
    chosen = []
    for name in datasets.names():
        if name == here or (name in PRESETS and name != "synthetic"):
            continue
        if datasets.available(name):
            chosen.append(datasets.load(name, **({"seed": seed} if name in PRESETS else {})))
    return chosen


def spread_study(ratings: Ratings, seed: int = 0, cutoff: int = 10, compare_all: bool = True) -> SpreadStudy:
    """Spread statistics of the IR collections, ``ratings`` and (``compare_all``) every other dataset here."""
    rating_sets = [ratings, *(_others(ratings.name, seed) if compare_all else [])]
    spreads = [judgments.ir_spread(n) for n in datasets.qrels_names()]
    spreads += [judgments.from_ratings(r) for r in rating_sets]
    spreads += [judgments.from_truth(r, f"{r.name}{TRUTH}") for r in rating_sets if r.true_relevance is not None]
    stats = judgments.summary_table(spreads, n=cutoff).set_index("collection", drop=False)
    stats["label"] = [f"{c} (this page)" if c == ratings.name else c for c in stats["collection"]]
    skipped = [n for n in datasets.names() if n not in PRESETS and not datasets.available(n)] if compare_all else []
    curves = pd.concat([judgments.cumulative_share(s) for s in spreads], ignore_index=True)
    shipped = [n for n in datasets.qrels_names() if not datasets.available(n)]
    return SpreadStudy(ratings.name, cutoff, rating_sets, stats, curves, skipped, shipped)


def availability_note(study: SpreadStudy, compare_all: bool) -> str:
    """Which collections this build could not load, and whether the comparison was limited."""
    notes = []
    if study.shipped:
        notes.append("The judgment files of " + " and ".join(IR_NAMES[n] for n in study.shipped)
                     + " are not on the machine that built this page, so their spreads come from the summary "
                     "that ships with the package, derived from the same pinned files.")
    if study.skipped:
        notes.append("Not available on the machine that built this page, hence left out: "
                     + ", ".join(f"`{n}`" for n in study.skipped) + ". The appendix on datasets says where to put their files.")
    if not compare_all:
        notes.append("This page was built with `compare_all = False`: besides the IR collections, only its own "
                     "dataset is shown.")
    return " ".join(notes)


def size_table(study: SpreadStudy) -> pd.DataFrame:
    """Size of each collection: queries (users), judgments, relevant documents, positive judgments and
    positives per query, under short headers (the caption says what they mean for ratings)."""
    return study.stats[["label", "queries", "judgments", "relevant documents", "positive judgments",
                        "positives per query"]].rename(columns={"label": "collection",
                                                                 "positives per query": "per query"})


#: headers of :func:`spread_table`, in the notation of the chapter's equations
SPREAD_HEADERS = {
    "share relevant to one query": "relevant to one query, <i>s</i><sub>1</sub>",
    "max positives per document": "max <i>p</i>(<i>d</i>)",
    "top reach": "reach<sub>1</sub>",
    "head share": "held by the top tenth",
    "gini": "Gini <i>G</i>",
}


def spread_table(study: SpreadStudy) -> pd.DataFrame:
    """The spread statistics of each collection under the names the chapter's equations give them, with the
    share of positive judgments held by the tenth of documents most often judged relevant."""
    stats = study.stats.assign(**{"head share": study.head_share})
    return stats[["label", "share relevant to one query", "max positives per document", "top reach", "head share",
                  "gini", study.fixed]].rename(columns={"label": "collection", **SPREAD_HEADERS})


def _span(values: pd.Series, fmt) -> str:
    return fmt(values.min()) if len(values) == 1 else f"{fmt(values.min())} to {fmt(values.max())}"


def spread_text(study: SpreadStudy) -> str:
    """The paragraph that reads the spread table and figure: the IR collections against the rating datasets,
    then the page's own dataset."""
    two, three = (lambda x: fmt_number(x, 2)), fmt_number
    ir, rated, head, mine = study.ir, study.rated, study.head_share, study.stats.loc[study.here]
    both = "both IR collections" if len(ir) == 2 else "the IR collections" if len(ir) else ""
    parts = [] if not len(ir) else [
        f"In {both}, the tenth of the documents most often judged relevant holds at most "
        f"{fmt_pct(head[ir.index].max())} of the positive judgments, and no document is relevant to more than "
        f"{fmt_pct(ir['top reach'].max())} of the queries."]
    if not len(ir):
        parts.append("No IR collection could be loaded on the machine that built this page.")
    sets = "rating dataset" if len(rated) == 1 else "rating datasets"
    parts.append(
        f"In the {sets} of this page, the tenth of the most-liked items holds {_span(head[rated.index], fmt_pct)} of "
        f"the likes, and the most-liked item is liked by {_span(rated['top reach'], fmt_pct)} of all users."
    )
    fixed = (f", against at most {three(ir[study.fixed].max())} for the best fixed list of an IR collection"
             if len(ir) else "")
    parts.append(
        f"On this page's dataset, `{study.here}`, the Gini coefficient is {two(mine['gini'])}, and one list of its "
        f"{study.cutoff} most-liked items, shown to every user, would reach a precision of {three(mine[study.fixed])} "
        f"if all ratings were test ratings{fixed}."
    )
    return " ".join(parts)


def ir_numbers(study: SpreadStudy) -> dict[str, str]:
    """The sentences the prose quotes about the IR collections loaded: how many of their relevant documents
    serve a single query (``single_query_ir``) and TREC-8 against the published TREC aggregate (``trec_text``)."""
    stats = study.stats
    clauses = [f"{fmt_pct(stats.loc[c, 'share relevant to one query'])} on {IR_NAMES[c]}" for c in study.ir.index]
    single = "It is " + " and ".join(clauses) + "." if clauses else "No IR collection was loaded for this page."
    if "cranfield" in stats.index:
        cran = stats.loc["cranfield"]
        single += (f" Cranfield is a small collection of {cran['queries']:,} queries on one narrow field, so its "
                   f"queries overlap more: one document is relevant to {cran['max positives per document']} of them.")
    trec = stats.loc["trec8-adhoc"] if "trec8-adhoc" in stats.index else None
    return {
        "single_query_ir": single,
        "trec_text": (
            f"TREC-8 alone has {fmt_pct(trec['share relevant to one query'])} of its relevant documents relevant to a "
            f"single topic, and at most {trec['max positives per document']} positive judgments on one document "
            f"({fmt_pct(trec['top reach'])} of its {trec['queries']} topics)."
            if trec is not None else "The TREC-8 judgments were not loaded for this page, so the TREC comparison is skipped."
        ),
    }


def truth_text(study: SpreadStudy) -> str:
    """What the first simulated world of the study shows about observed against true relevance."""
    world = next((r for r in study.ratings if r.true_relevance is not None), None)
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


def published() -> pd.DataFrame:
    """The published statistics this chapter recomputes (``published/cranfield.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/cranfield.csv").open() as handle:
        table = pd.read_csv(handle, comment="#", keep_default_na=False)
    table["ours_on"] = table["ours_on"].str.split()
    return table


def _shown(value: float, column: str) -> str:
    return f"{value:,.0f}" if column == "max positives per document" else fmt_pct(value)


def published_table(study: SpreadStudy) -> pd.DataFrame:
    """Each published statistic next to ours on every collection of this build that it applies to ("–" where
    none does); the published side is written on the first of its rows only."""
    rows = []
    for _, p in published().iterrows():
        found = [c for c in p["ours_on"] if c in study.stats.index] or [None]
        for k, c in enumerate(found):  # the published side once per statistic
            rows.append({
                "statistic": p["statistic"] if k == 0 else "", "published on": p["published_on"] if k == 0 else "",
                "published": _shown(p["value"], p["column"]) if k == 0 else "",
                "ours on": "–" if c is None else study.stats.loc[c, "label"],
                "ours": "–" if c is None else _shown(study.stats.loc[c, p["column"]], p["column"]),
            })
    return pd.DataFrame(rows)


def published_numbers(study: SpreadStudy, dataset: str) -> list[dict]:
    """Arguments of one scorecard number per published statistic: rating statistics on the page's
    dataset (comparable only on the paper's), TREC statistics on TREC-8 when it is loaded."""
    claims = []
    for _, p in published().iterrows():
        on = "trec8-adhoc" if p["paper_dataset"] == "trec" else study.here
        if on not in study.stats.index:
            continue
        claims.append({
            "key": p["key"], "ours": study.stats.loc[on, p["column"]], "paper": p["value"],
            "tolerance": p["tolerance"], "source": "IRJ Sec. 5.2", "dataset": on if on != study.here else dataset,
            "paper_dataset": p["paper_dataset"], "note": p["note"],
        })
    return claims


def findings(study: SpreadStudy) -> list[dict]:
    """The qualitative claims of the papers on this build's dataset against the IR collections:
    ``key``, ``label``, ``holds`` and ``evidence`` of each (empty without IR judgments)."""
    ir, mine, head, here, n = study.ir, study.stats.loc[study.here], study.head_share, study.here, study.cutoff
    if not len(ir):
        return []
    top, single, fixed = ir["top reach"].max(), ir["share relevant to one query"].min(), ir[study.fixed].max()
    checks = [
        ("liked-items-reach-more-users", "the most-liked item reaches a larger share of users than any IR document "
         "reaches queries", mine["top reach"] > top,
         f"{fmt_pct(mine['top reach'])} of users ({here}) vs at most {fmt_pct(top)} of queries"),
        ("likes-concentrate", "positive judgments concentrate on few items more than on few documents (higher Gini)",
         mine["gini"] > ir["gini"].max(),
         f"Gini {mine['gini']:.2f} ({here}) vs at most {ir['gini'].max():.2f} in IR"),
        ("few-single-user-items", "fewer liked items are liked by a single user than relevant documents are relevant "
         "to a single query", mine["share relevant to one query"] < single,
         f"{fmt_pct(mine['share relevant to one query'])} ({here}) vs at least {fmt_pct(single)} in IR"),
        ("head-holds-more", "the tenth of items most often liked holds a larger share of positive judgments than the "
         "tenth of documents most often judged relevant", head[here] > head[ir.index].max(),
         f"{fmt_pct(head[here])} ({here}) vs at most {fmt_pct(head[ir.index].max())} in IR"),
        ("fixed-list-works", f"one fixed list of the {n} most-liked items, shown to everybody, scores a higher "
         "precision than the IR collections' most-judged documents do as a fixed answer to every query",
         mine[study.fixed] > fixed, f"fixed-list P@{n}: {mine[study.fixed]:.3f} ({here}) vs at most {fixed:.3f} in IR"),
    ]
    return [{"key": k, "label": label, "holds": bool(holds), "evidence": evidence}
            for k, label, holds, evidence in checks]


def dataset_notes(study: SpreadStudy) -> str:
    """How the MovieLens and Last.fm releases available here compare with the papers' releases."""
    stats = study.stats
    ml = next((c for c in ("ml-1m", "ml-100k", "ml-latest-small") if c in stats.index), None)
    if ml == "ml-1m":
        notes = [f"MovieLens 1M is available here: its most-liked movie is liked by "
                 f"{fmt_pct(stats.loc['ml-1m', 'top reach'])} of the users, against 32.7% published."]
    elif ml:
        notes = [f"MovieLens 1M is not available on the machine that built this page. On `{ml}` the most-liked movie "
                 f"is liked by {fmt_pct(stats.loc[ml, 'top reach'])} of the users, against 32.7% published for "
                 "MovieLens 1M; the releases come from different periods and user populations, so only the order of "
                 "magnitude can be expected to match."]
    else:
        notes = ["No MovieLens dataset was loaded for this page."]
    lastfm = next((r for r in study.ratings if r.name == "lastfm-2k"), None)
    if lastfm is not None:
        notes.append(f"On the HetRec Last.fm release, the most-played artist is liked by "
                     f"{fmt_pct(stats.loc['lastfm-2k', 'top reach'])} of its {lastfm.n_users:,} users, far below the "
                     f"published 73%. The release lists {lastfm.n_ratings / lastfm.n_users:.1f} artists per user on "
                     f"average, and {fmt_pct(lastfm.positive.mean())} of these pairs count as positive.")
    else:
        notes.append("The HetRec Last.fm release was not loaded for this page.")
    return "\n\n".join(notes)


def threshold_sweeps(study: SpreadStudy) -> pd.DataFrame:
    """:func:`recbias.judgments.threshold_sweep` of every rating dataset of the study."""
    return pd.concat([judgments.threshold_sweep(r, n=study.cutoff).assign(collection=r.name) for r in study.ratings],
                     ignore_index=True)


def threshold_text(study: SpreadStudy, sweeps: pd.DataFrame) -> str:
    """How the page's dataset and the others react to the positive threshold."""
    own = sweeps[sweeps["default"]].set_index("collection")
    loose = sweeps.groupby("collection", sort=False)[["top reach", "gini"]].first()
    drop = 1 - own["top reach"] / loose["top reach"]
    gini_move = (own["gini"] - loose["gini"]).abs()
    here = study.here
    threshold = next(r.positive_threshold for r in study.ratings if r.name == here)
    return (
        f"On `{here}`, counting every rating as positive makes the most-liked item liked by "
        f"{fmt_pct(loose.loc[here, 'top reach'])} of the users. The dataset's own threshold ({threshold:g}, which keeps "
        f"{fmt_pct(own.loc[here, 'positive share of ratings'])} of the ratings) brings this down to "
        f"{fmt_pct(own.loc[here, 'top reach'])}, while the Gini coefficient goes from "
        f"{fmt_number(loose.loc[here, 'gini'], 2)} to {fmt_number(own.loc[here, 'gini'], 2)}. Across the rating "
        "datasets of this page, moving from 'every rating is positive' to the dataset's own threshold lowers the "
        f"reach of the top item by {fmt_pct(drop.min())} to {fmt_pct(drop.max())} of its value, and changes the Gini "
        f"coefficient by at most {fmt_number(gini_move.max(), 2)}."
    ) + _lastfm_threshold_note(own)


def _lastfm_threshold_note(own: pd.DataFrame) -> str:
    """Why Last.fm 2K keeps most of its rows at its own threshold, when it is in the sweep."""
    if "lastfm-2k" not in own.index:
        return ""
    others = own.drop(index="lastfm-2k")["positive share of ratings"]
    versus = f", against {_span(others, fmt_pct)} of the ratings of the other datasets" if len(others) else ""
    return (" Last.fm 2K lists only each user's favourite artists, so its own play-count threshold still counts "
            f"{fmt_pct(own.loc['lastfm-2k', 'positive share of ratings'])} of its rows as positive{versus}.")


def threshold_table(study: SpreadStudy, sweeps: pd.DataFrame) -> pd.DataFrame:
    """The threshold sweep of the page's dataset, one row per threshold, the statistics under the headers of
    :func:`spread_table`."""
    mine = sweeps[sweeps["collection"] == study.here]
    return mine[["threshold", "positive share of ratings", "positive judgments", "relevant documents",
                 "share relevant to one query", "top reach", "gini", study.fixed]].rename(columns={
        "positive share of ratings": "share of ratings positive", "relevant documents": "liked items",
        **SPREAD_HEADERS})


def registry_order(name: str) -> tuple[int, str]:
    """Sort key that keeps the registry's order of collections (truth after its world), so that a
    collection keeps its colour whatever the page's dataset."""
    order = [*datasets.qrels_names(), *datasets.names()]
    base = name.removesuffix(TRUTH)
    return (order.index(base) if base in order else len(order), name)


def kinds(study: SpreadStudy) -> dict[str, list[str]]:
    """Collections by kind (IR, recommendation, simulation), each in registry order."""
    grouped: dict[str, list[str]] = {}
    for name in sorted(study.stats.index, key=registry_order):
        grouped.setdefault(study.stats.loc[name, "kind"], []).append(name)
    return grouped


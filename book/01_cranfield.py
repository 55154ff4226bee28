# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The Cranfield paradigm for recommendation
#
# Ranking metrics such as precision, MAP and nDCG were designed for test collections
# in information retrieval (IR). Before asking how they behave on recommender systems,
# this chapter asks a simpler question: *what does a recommendation dataset look like
# when it is read as an IR test collection, and which assumptions of IR evaluation does
# it violate?* Part of the answer is conceptual, a mapping between the two settings;
# part of it can be measured, because IR judgments and recommendation ratings can be
# put side by side and counted the same way. The measurement shows the one difference
# that the later chapters keep returning to: in IR almost every relevant document serves
# a single query, while in recommendation a handful of items is liked by a large share
# of all users.

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
cutoff = 10  # list length n of the fixed-list precision, Eq. (eq-fixed-list), int in [1, 1000]
compare_all = True  # also load every other available rating dataset for the side-by-side comparison

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import HTML, Markdown, display

from recbias import datasets, judgments
from recbias.bookkit.page import load_dataset, say
from recbias.bookkit.plotting import COLLECTION_COLOURS, dataset_caption
from recbias.bookkit.scorecard import finding, number


def pct(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{x:.1%}"


def show_table(frame: pd.DataFrame, formats: dict[str, str]) -> None:
    styler = frame.style.format(formats, na_rep="–").hide(axis="index")
    styler = styler.set_table_styles([{"selector": "th, td", "props": "padding: 0.2em 0.7em;"}])
    display(HTML(styler.to_html()))


# %% [markdown]
# ## How an IR test collection is built
#
# The Cranfield experiments of the 1960s {cite:p}`cleverdon1967cranfield` fixed the
# recipe that TREC later scaled up {cite:p}`voorhees2005trec`: a collection of
# documents, a set of *topics* (written statements of an information need), and
# *relevance judgments* that say, for a topic and a document, whether the document
# answers the need. Judging every topic-document pair is out of reach for collections
# of hundreds of thousands of documents, so TREC judges a *pool*: the union of the top
# documents (typically the first 100) returned by the participating systems for each
# topic {cite:p}`voorhees1999overview`. Documents outside the pool are taken as not
# relevant. This is safe as long as the pool finds nearly all relevant documents; for
# judgments that are far from complete, IR designed measures such as bpref, which
# ignores unjudged documents {cite:p}`buckley2004retrieval`, and infAP, which estimates
# average precision from a random sample of judgments {cite:p}`yilmaz2006estimating`.
# The judges are assessors who read the documents; the systems under test never see
# the judgments.
#
# ## Reading a recommendation dataset as a test collection
#
# The natural mapping {cite:p}`bellogin2012thesis,bellogin2017statistical` takes each
# user as a query (one global, unstated need per user), each item as a document, and
# the ratings a user gave as that user's relevance judgments. Because collaborative
# filtering learns from ratings, the ratings have to be split: a training part that the
# systems see, and a held-out test part that serves as judgments. A held-out rating at
# or above a *positive threshold* (5 stars on MovieLens, more than two plays on
# Last.fm) marks a relevant item. The table summarises the mapping in our own terms,
# with what changes along the way.
#
# | element | ad hoc retrieval (TREC) | offline recommendation | what changes |
# |---|---|---|---|
# | information need | a topic, written out by an assessor | a user, known only through training ratings | the "query" is implicit and covers all of a person's tastes |
# | objects ranked | the documents of a fixed collection | the items of a catalogue | — |
# | candidate answers | every document, the same for every topic | a target set per user, chosen by the experimenter, without the user's training items | candidate sets differ per user, and the design choice moves metric values ({doc}`02_designs`) |
# | what the systems read | document text | training ratings, sometimes item features | systems learn from the same kind of data that judges them |
# | ground truth | pooled assessments | held-out test ratings | how much is held out is a free parameter ({doc}`03_sparsity_bias`) |
# | who judges | assessors, independent of the systems | the users themselves, who also supply the training input | judgments and input come from one process |
# | which pairs get judged | the top of every participating run (pooling) | whatever each user chose to rate | selection follows exposure and taste, not the systems' output |
# | coverage of relevance | close to complete within the pool; unjudged means not relevant | a small share of what users would like; unrated also counts as not relevant | judgments are incomplete by construction |
# | spread of relevance | flat: a relevant document nearly always serves one topic | long-tailed: a few items are liked by many users | metrics reward popular items ({doc}`04_popularity_bias`) |
#
# Four breaks matter for everything that follows.
#
# 1. **Incomplete judgments by construction.** A recommender is useful precisely
#    because users have not rated most items that they would like. Every item a user
#    has not rated counts as non-relevant, although many are relevant but unseen; and
#    which items get rated is not random {cite:p}`marlin2009collaborative`. TREC pools
#    aim at completeness; rating data cannot.
# 2. **Candidate sets that differ per user.** Each user's training items are removed
#    from that user's candidates, and experimenters often add only a sample of unrated
#    items {cite:p}`cremonesi2010performance`. Averages over users then mix rankings of
#    different sets, with different numbers of relevant items in each.
# 3. **Judgments from the people who provide the input.** Training and test ratings are
#    two halves of one record of behaviour. Collaborative filtering exploits the overlap
#    between users, and the very same overlap decides which held-out ratings exist.
# 4. **Long-tailed relevance.** The number of users who like an item varies over orders
#    of magnitude, whereas in IR few documents are relevant to more than one topic. The
#    rest of this chapter measures this difference.

# %% [markdown]
# ## How relevance spreads: the statistics
#
# Let $Q$ be the queries (users), and $J^+$ the positive judgments: the relevant
# query-document pairs of an IR collection, or the user-item pairs whose rating reaches
# the positive threshold $\theta$. For a document (item) $d$, let
# $p(d) = |\{q \in Q : (q, d) \in J^+\}|$ be the number of queries for which it is
# relevant. Keep the $m$ documents with $p(d) \ge 1$, ordered so that
# $p(d_{(1)}) \ge p(d_{(2)}) \ge \dots \ge p(d_{(m)})$. The *cumulative share* of the
# $k$ most often judged-relevant documents is
#
# $$
# F(k) = \frac{1}{|J^+|} \sum_{j=1}^{k} p\big(d_{(j)}\big), \qquad k = 1, \dots, m,
# $$ (eq-cumulative-share)
#
# which is the diagonal $F(k) = k/m$ when every document is relevant to the same number
# of queries and rises steeply when a few documents hold most judgments (the right panel
# of Fig. 5 in {cite:t}`bellogin2017statistical`). Three numbers summarise the head and
# the tail: the share of documents relevant to a single query,
#
# $$
# s_1 = \frac{|\{d : p(d) = 1\}|}{m},
# $$ (eq-single-query-share)
#
# the *reach* of the most often judged-relevant document, which for recommendation is
# the share of users who like the most-liked item,
#
# $$
# \mathrm{reach}_1 = \frac{p\big(d_{(1)}\big)}{|Q|},
# $$ (eq-top-reach)
#
# and the Gini coefficient of the counts, with $x_1 \le \dots \le x_m$ the values
# $p(d)$ in increasing order,
#
# $$
# G = \frac{2 \sum_{k=1}^{m} k\, x_k}{m \sum_{k=1}^{m} x_k} - \frac{m + 1}{m},
# $$ (eq-gini)
#
# which is 0 when all counts are equal and approaches 1 when one document holds them all.
#
# Finally, a statistic that links the spread to evaluation. Show the *same* list of $n$
# documents to every query and count every positive judgment as ground truth. Its
# precision at $n$, averaged over queries, is $\frac{1}{n|Q|}\sum_{d \in L} p(d)$ for
# the list $L$, so the best fixed list holds the $n$ documents with the largest counts:
#
# $$
# P^{\mathrm{fixed}}@n = \frac{1}{n\,|Q|} \sum_{k=1}^{n} p\big(d_{(k)}\big).
# $$ (eq-fixed-list)
#
# In an IR collection this is close to zero: no single list of documents answers many
# different topics. In a recommendation dataset it is the precision that a
# non-personalised "most liked" list would reach if all ratings were test ratings,
# an early sign of the popularity bias of {doc}`04_popularity_bias`.
#
# ## The collections
#
# Two IR collections stand for the Cranfield tradition: the Cranfield 1400 judgments
# {cite:p}`cleverdon1967cranfield`, on aeronautics, where every judged grade from 1 to
# 4 counts as relevant, and the TREC-8 ad hoc judgments
# {cite:p}`voorhees1999overview` for topics 401 to 450, where grade 1 or more is
# relevant. They are compared with every rating dataset that this build could load,
# each with its own positive threshold (see {doc}`appendix_datasets`), and with the
# simulated world, whose complete true relevance we also know. This page's dataset is
# marked in the tables and drawn with a thicker line in the figures.

# %% tags=["remove-cell"]
def rating_collections() -> list:
    """This page's ratings first, then every other available registered dataset (simulated worlds with the seed)."""
    chosen = [ratings]
    if compare_all:
        for name in datasets.names():
            if name == ratings.name or (name == "synthetic-small" and dataset != name):
                continue
            if datasets.available(name):
                chosen.append(load_dataset(name, seed))
    return chosen


ir_spreads = {
    name: judgments.from_qrels(datasets.load_qrels(name), name)
    for name in datasets.qrels_names()
    if datasets.available(name)
}
rating_sets = rating_collections()
rating_spreads = {r.name: judgments.from_ratings(r) for r in rating_sets}
truth_spreads = {f"{r.name} (true relevance)": judgments.from_truth(r) for r in rating_sets if r.true_relevance is not None}
spreads = {**ir_spreads, **rating_spreads, **truth_spreads}
stats = judgments.summary_table(list(spreads.values()), n=cutoff).set_index("collection", drop=False)
here = ratings.name
fixed = f"fixed-list P@{cutoff}"
stats["label"] = [f"{c} (this page)" if c == here else c for c in stats["collection"]]

skipped = [n for n in [*datasets.qrels_names(), *datasets.names()] if n != "synthetic-small" and not datasets.available(n)]
if not compare_all:
    skipped = [n for n in datasets.qrels_names() if not datasets.available(n)]

# %% tags=["remove-input"]
if skipped:
    display(Markdown(
        "Not available on the machine that built this page, hence left out: "
        + ", ".join(f"`{n}`" for n in skipped)
        + ". The appendix on datasets says where to put their files."
    ))
if not compare_all:
    display(Markdown("This page was built with `compare_all = False`: besides the IR collections, only its own "
                     "dataset is shown."))

# %% tags=["remove-input"]
show_table(
    stats[["label", "queries", "judgments", "relevant documents", "positive judgments", "positives per query"]]
    .rename(columns={"label": "collection", "queries": "queries / users",
                     "relevant documents": "relevant documents / liked items"}),
    {"queries / users": "{:,}", "judgments": "{:,}", "relevant documents / liked items": "{:,}",
     "positive judgments": "{:,}", "positives per query": "{:.1f}"},
)

# %% [markdown]
# The first table gives the size of each collection: its queries (users), all its
# judgments (ratings; every user-item pair for the true relevance of a simulated
# world), the documents (items) with at least one positive judgment, the positive
# judgments, and their mean number per query (user). The second table gives the
# statistics of {eq}`eq-single-query-share` to {eq}`eq-fixed-list`.

# %% tags=["remove-input"]
show_table(
    stats[["label", "share relevant to one query", "max positives per document", "top reach", "gini", fixed]]
    .rename(columns={"label": "collection", "share relevant to one query": "relevant to one query (s1)",
                     "max positives per document": "max positives on a document",
                     "top reach": "reach of the top document (reach1)", "gini": "Gini (G)"}),
    {"relevant to one query (s1)": "{:.1%}", "max positives on a document": "{:,}",
     "reach of the top document (reach1)": "{:.1%}", "Gini (G)": "{:.3f}", fixed: "{:.3f}"},
)

# %% tags=["remove-cell"]
LIGHT = {"IR": "#9ecae1", "recommendation": "#fcbba1", "simulation": "#d9d9d9"}


def collection_palette(names_by_kind: dict[str, list[str]]) -> dict[str, tuple]:
    """Shades of the kind's colour: blue for IR, red for recommendation, grey for simulation."""
    colours = {}
    for kind, names in names_by_kind.items():
        base = COLLECTION_COLOURS[kind]
        shades = sns.blend_palette(["#202020", base, LIGHT[kind]], len(names) + 2)
        colours.update(zip(names, [base] if len(names) == 1 else shades[1 : len(names) + 1]))
    return colours


registry_order = [*datasets.qrels_names(), *datasets.names()]


def registry_rank(name: str) -> tuple[int, str]:
    """Position in the registry, so that a collection keeps its colour whatever the page's dataset."""
    base = name.removesuffix(" (true relevance)")
    return (registry_order.index(base) if base in registry_order else len(registry_order), name)


kinds: dict[str, list[str]] = {}
for name in sorted(spreads, key=registry_rank):
    kinds.setdefault(spreads[name].kind, []).append(name)
colour = collection_palette(kinds)
curves = pd.concat([judgments.cumulative_share(s) for s in spreads.values()], ignore_index=True)


def line_style(name: str) -> dict:
    return {
        "color": colour[name],
        "lw": 3.2 if name == here else 1.7,
        "ls": "--" if name.endswith("(true relevance)") else "-",
        "label": f"{name} (this page)" if name == here else name,
    }


# %% tags=["remove-input"]
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 8.6))
for name, curve in curves.groupby("collection", sort=False):
    top.plot(curve["rank_share"], curve["cumulative_share"], **line_style(name))
    head = curve[curve["rank"] <= 1000]
    bottom.plot(head["rank"], head["reach"], **line_style(name))
top.plot([0, 1], [0, 1], color="#aaaaaa", lw=0.8, ls=":", label="equal spread")
top.set(xlabel="documents / items with a positive judgment, most judged first (share)",
        ylabel="share of all positive judgments", xlim=(0, 1), ylim=(0, 1.01))
top.set_title("Cumulative share of positive judgments", loc="left")
top.legend(loc="lower right", fontsize=8.5)
bottom.set(xscale="log", xlabel="popularity rank of the document / item (log scale)",
           ylabel="share of queries / users")
bottom.set_title("Reach of the k-th most-liked document or item", loc="left")
for ax, fmt in ((top, "xy"), (bottom, "y")):
    for axis in fmt:
        getattr(ax, f"{axis}axis").set_major_formatter(mticker.PercentFormatter(1.0))
    dataset_caption(ax, dataset)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Flat in IR, long-tailed in recommendation
#
# In the top panel, a curve on the diagonal means that positive judgments are spread
# evenly over the documents that have any; the further a curve rises above it, the
# more of the judgments a small head of documents or items holds. The bottom panel
# shows the same in absolute terms, as the share of queries or users reached by the
# $k$-th most often judged-relevant document. The numbers below read both panels.

# %% tags=["remove-cell"]
trec = stats.loc["trec8-adhoc"] if "trec8-adhoc" in stats.index else None
cran = stats.loc["cranfield"] if "cranfield" in stats.index else None
mine = stats.loc[here]
ir_rows = stats[stats["kind"] == "IR"]
rec_rows = stats[(stats["kind"] != "IR") & ~stats["collection"].str.endswith("(true relevance)")]


def span(column: str, fmt) -> str:
    low, high = rec_rows[column].min(), rec_rows[column].max()
    return fmt(low) if len(rec_rows) == 1 else f"between {fmt(low)} and {fmt(high)}"


three = "{:.3f}".format
two = "{:.2f}".format

# %% tags=["remove-input"]
head_share = (
    curves[curves["rank_share"] <= 0.1].groupby("collection", sort=False)["cumulative_share"].max()
    .reindex(stats.index, fill_value=0.0)
)
parts = []
if len(ir_rows):
    parts.append(
        "The tenth of the documents most often judged relevant holds "
        + " and ".join(f"{pct(head_share[c])} of the positive judgments of {c}" for c in ir_rows.index)
        + f"; the tenth of the most-liked items holds {pct(head_share[rec_rows.index].min())}"
        + (f" to {pct(head_share[rec_rows.index].max())}" if len(rec_rows) > 1 else "")
        + " of the likes in the rating datasets."
    )
if len(ir_rows):
    parts.append(
        "In the IR collections, the document relevant to the most queries reaches "
        + " and ".join(f"{pct(r['top reach'])} of the queries of {c} ({r['max positives per document']} of "
                       f"{r['queries']:,})" for c, r in ir_rows.iterrows())
        + "; the Gini coefficients are "
        + " and ".join(f"{two(r['gini'])} ({c})" for c, r in ir_rows.iterrows())
        + f"; and the best fixed list of {cutoff} documents has a precision of "
        + " and ".join(f"{three(r[fixed])} ({c})" for c, r in ir_rows.iterrows())
        + "."
    )
else:
    parts.append("No IR collection could be loaded on the machine that built this page.")
parts.append(
    f"In the rating datasets shown here, the most-liked item is liked by {span('top reach', pct)} of all users, "
    f"the Gini coefficient is {span('gini', two)}, and one list of the {cutoff} most-liked items, shown to every "
    f"user, would have a precision of {span(fixed, three)} if all ratings were test ratings. On this page's "
    f"dataset, `{here}`, the three numbers are {pct(mine['top reach'])}, {two(mine['gini'])} and "
    f"{three(mine[fixed])}."
)
display(Markdown(" ".join(parts)))

# %% tags=["remove-cell"]
say("trec_single", pct(trec["share relevant to one query"]) if trec is not None else "(not loaded)")
say("cran_single", pct(cran["share relevant to one query"]) if cran is not None else "(not loaded)")
say("cran_max", f"{cran['max positives per document']}" if cran is not None else "(not loaded)")
say("cran_queries", f"{cran['queries']:,}" if cran is not None else "(not loaded)")

# %% [markdown]
# The share of documents relevant to a single query, {eq}`eq-single-query-share`, is
# the least telling of the statistics. It is {glue:text}`trec_single` on TREC-8 and
# {glue:text}`cran_single` on Cranfield, a small collection of
# {glue:text}`cran_queries` queries on one narrow field, where queries overlap more
# (one document is relevant to {glue:text}`cran_max` of them). But a rating dataset can
# also have many items liked by a single user, because its catalogue has a long tail
# of rarely rated items. What sets recommendation data apart is the *head*: items liked
# by a sizeable share of all users, which no IR collection has.

# %% [markdown]
# ### What the judgments miss
#
# A real dataset cannot say how complete its judgments are; a simulated world can,
# because it knows which items each user would truly like.

# %% tags=["remove-input"]
simulated = [r for r in rating_sets if r.true_relevance is not None]
if simulated:
    world = simulated[0]
    observed, truth = stats.loc[world.name], stats.loc[f"{world.name} (true relevance)"]
    display(Markdown(
        f"In the simulated world `{world.name}`, only {pct(judgments.truth_coverage(world))} of the truly relevant "
        f"user-item pairs appear as positive ratings; every other relevant pair would count as a miss in an offline "
        f"evaluation. The item most users truly like is liked by {pct(truth['top reach'])} of them, whereas the "
        f"most-liked item among the observed ratings reaches {pct(observed['top reach'])}. The Gini coefficient is "
        f"{two(truth['gini'])} for the true relevance and {two(observed['gini'])} for the observed likes."
    ))
else:
    display(Markdown("No simulated world was loaded for this page (`compare_all` is off), so this part is skipped."))

# %% [markdown]
# Incompleteness is therefore not a small correction, as it is for a deep TREC pool:
# most of what is relevant is never judged, and the part that is judged was chosen by
# the users' own behaviour, which in the simulation depends on the popularity of an
# item and on how much the user likes it. {doc}`03_sparsity_bias` shows what the
# missing judgments do to the value of precision.

# %% [markdown]
# ## Against the published numbers
#
# {cite:t}`bellogin2017statistical` (Section 5.2, also {cite:t}`bellogin2012thesis`,
# Section 4.5.2) contrast their recommendation datasets with an aggregate of 30 TREC
# tracks, built by appending the judgment files: 703 queries, 129,277 documents with a
# positive judgment and 149,811 positive judgments. In that aggregate 87.2% of the
# relevant documents are relevant to one query only, and the largest number of positive
# judgments on one document is 25, that is 3.6% of the queries. The most-liked item, on
# the other hand, is liked by 20.1% of the users of Netflix, 32.7% of those of
# MovieLens 1M and 73% of those of their Last.fm sample of about 1,000 users. The table
# sets these numbers against ours.

# %% tags=["remove-cell"]
published = [
    ("documents relevant to one query", "TREC, 30 tracks", 0.872, ["trec8-adhoc", "cranfield"], "share relevant to one query", pct),
    ("max positives on one document", "TREC, 30 tracks", 25, ["trec8-adhoc", "cranfield"], "max positives per document", "{:,}".format),
    ("the same, as a share of the queries", "TREC, 30 tracks", 0.036, ["trec8-adhoc", "cranfield"], "top reach", pct),
    ("users who like the most-liked item", "MovieLens 1M", 0.327, ["ml-1m", "ml-100k", "ml-latest-small"], "top reach", pct),
    ("users who like the most-liked item", "Last.fm, ~1,000 users", 0.73, ["lastfm-2k"], "top reach", pct),
    ("users who like the most-liked item", "Netflix", 0.201, [], "top reach", pct),
]
rows = []
for statistic, source, value, candidates, column, show in published:
    found = [c for c in candidates if c in stats.index] or [None]
    for c in found:
        rows.append({"statistic": statistic, "published on": source, "published": show(value),
                     "ours on": "(no such data here)" if c is None else stats.loc[c, "label"],
                     "ours": "–" if c is None else show(stats.loc[c, column])})
comparison = pd.DataFrame(rows)

# %% tags=["remove-input"]
show_table(comparison, {})

# %% tags=["remove-cell"]
# Scorecard: one claim per published number. The recommendation numbers are computed on this
# page's dataset (comparable only when it is the paper's); the TREC numbers on TREC-8 alone.
IRJ = "IRJ Sec. 5.2"
number("top-item-reach/movielens-1m", mine["top reach"], paper=0.327, tolerance=0.0005, source=IRJ,
      dataset=dataset, paper_dataset="ml-1m", note="share of users who like the most-liked item (5 stars)")
number("top-item-reach/lastfm", mine["top reach"], paper=0.73, tolerance=0.005, source=IRJ,
      dataset=dataset, paper_dataset="lastfm-1k", note="share of users who like the most-liked artist (more than 2 plays)")
number("top-item-reach/netflix", mine["top reach"], paper=0.201, tolerance=0.0005, source=IRJ,
      dataset=dataset, paper_dataset="netflix", note="no Netflix data are registered; shown for reference")
if trec is not None:
    trec_note = "paper: 30 TREC tracks appended (703 queries); ours: TREC-8 ad hoc alone (50 topics)"
    number("trec/share-relevant-to-one-query", trec["share relevant to one query"], paper=0.872, tolerance=0.0005,
          source=IRJ, dataset="trec8-adhoc", paper_dataset="trec", note=trec_note)
    number("trec/max-positives-per-document", trec["max positives per document"], paper=25, tolerance=0,
          source=IRJ, dataset="trec8-adhoc", paper_dataset="trec", note=trec_note)
    number("trec/max-positives-share-of-queries", trec["top reach"], paper=0.036, tolerance=0.0005,
          source=IRJ, dataset="trec8-adhoc", paper_dataset="trec", note=trec_note)

# %% tags=["remove-cell"]
ir_max = ir_rows.max(numeric_only=True)
findings = [
    ("liked-items-reach-more-users", "the most-liked item reaches a larger share of users than any IR document "
     "reaches queries", mine["top reach"] > ir_max["top reach"],
     f"{pct(mine['top reach'])} of users ({here}) vs at most {pct(ir_max['top reach'])} of queries"),
    ("likes-concentrate", "positive judgments concentrate on few items more than on few documents (higher Gini)",
     mine["gini"] > ir_max["gini"], f"Gini {mine['gini']:.2f} ({here}) vs at most {ir_max['gini']:.2f} in IR"),
    ("few-single-user-items", "fewer liked items are liked by a single user than relevant documents are relevant "
     "to a single query", mine["share relevant to one query"] < ir_rows["share relevant to one query"].min(),
     f"{pct(mine['share relevant to one query'])} ({here}) vs at least "
     f"{pct(ir_rows['share relevant to one query'].min())} in IR"),
    ("head-holds-more", "the tenth of items most often liked holds a larger share of positive judgments than the "
     "tenth of documents most often judged relevant", head_share[here] > head_share[ir_rows.index].max(),
     f"{pct(head_share[here])} ({here}) vs at most {pct(head_share[ir_rows.index].max())} in IR"),
    ("fixed-list-works", f"one fixed list of the {cutoff} most-liked items, shown to everybody, scores a higher "
     "precision than the IR collections' most-judged documents do as a fixed answer to every query",
     mine[fixed] > ir_max[fixed], f"fixed-list P@{cutoff}: {mine[fixed]:.3f} ({here}) vs at most {ir_max[fixed]:.3f} in IR"),
]
for key, label, holds, evidence in findings:
    finding(key, label=label, holds=bool(holds), evidence=evidence, source="IRJ 2017 Sec. 5.3; thesis Table 4.1",
            dataset=here)

# %% tags=["remove-input"]
if trec is not None:
    display(Markdown(
        f"TREC-8 alone has {pct(trec['share relevant to one query'])} of its relevant documents relevant to a single "
        f"topic, and at most {trec['max positives per document']} positive judgments on one document "
        f"({pct(trec['top reach'])} of its {trec['queries']} topics)."
    ))
else:
    display(Markdown("The TREC-8 judgments were not loaded for this page, so the TREC comparison is skipped."))

# %% [markdown]
# One track of 50 topics, chosen to differ from one another, rarely has a document
# relevant to two of them. Appending 30 tracks brings together topics from tracks that
# search the same document collections, sometimes on related subjects, so a document can
# collect judgments from several tracks. This most likely explains why the aggregate has
# more documents relevant to several queries, and a larger maximum, than TREC-8 alone. Relative to the
# number of queries, both maxima are small, and the conclusion does not change: an IR
# collection has no head of documents shared by many queries. The scorecard lists these
# entries as *not comparable*, because the collections differ.

# %% tags=["remove-input"]
ml = next((c for c in ("ml-1m", "ml-100k", "ml-latest-small") if c in stats.index), None)
notes = []
if ml == "ml-1m":
    notes.append(f"MovieLens 1M is available here: its most-liked movie is liked by "
                 f"{pct(stats.loc['ml-1m', 'top reach'])} of the users, against 32.7% published.")
elif ml:
    notes.append(f"MovieLens 1M is not available on the machine that built this page. On `{ml}` the most-liked movie "
                 f"is liked by {pct(stats.loc[ml, 'top reach'])} of the users, against 32.7% published for MovieLens "
                 f"1M; the releases come from different periods and user populations, so only the order of magnitude "
                 f"can be expected to match.")
else:
    notes.append("No MovieLens dataset was loaded for this page.")
if "lastfm-2k" in stats.index:
    lastfm = next(r for r in rating_sets if r.name == "lastfm-2k")
    notes.append(f"On the HetRec Last.fm release, the most-played artist is liked by "
                 f"{pct(stats.loc['lastfm-2k', 'top reach'])} of its {lastfm.n_users:,} users, far below the "
                 f"published 73%. The release lists {lastfm.n_ratings / lastfm.n_users:.1f} artists per user on "
                 f"average, and {pct(lastfm.positive.mean())} of these pairs count as positive.")
else:
    notes.append("The HetRec Last.fm release was not loaded for this page.")
display(Markdown("\n\n".join(notes)))

# %% [markdown]
# Two differences between the datasets are the likely reasons for the Last.fm gap. The
# paper's sample {cite:p}`celma2010music` holds the complete listening histories of its
# users, aggregated by artist, so any artist that a user played more than twice counts
# as liked, and a widely heard artist can be liked by most users. The HetRec release {cite:p}`cantador2011hetrec` keeps
# for each user only the artists that user listened to most (up to 50), so an artist
# enters a profile only when it is among the user's favourites; it also samples a
# different set of users. No Netflix data are registered here; that published value
# is shown for reference only. The scorecard entries for the recommendation numbers are
# computed on this page's dataset, and are comparable only when the page is built on
# the paper's dataset.

# %% [markdown]
# ## What counts as positive
#
# Ratings become binary judgments through a threshold, and the threshold is a design
# choice: 5 stars on MovieLens in the papers, following
# {cite:t}`cremonesi2010performance`, and more than two plays on Last.fm. The figure
# sweeps the threshold over each rating dataset. To put stars and play counts on one
# axis, the horizontal axis is the share of ratings that a threshold counts as
# positive; a star marks each dataset's own threshold.

# %% tags=["remove-cell"]
sweeps = pd.concat(
    [judgments.threshold_sweep(r, n=cutoff).assign(collection=r.name) for r in rating_sets], ignore_index=True
)

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 1, figsize=(7.5, 8.0), sharex=True)
for ax, column, label in ((axes[0], "top reach", "users who like the most-liked item"),
                          (axes[1], "gini", "Gini coefficient of likes per item")):
    for name, sweep in sweeps.groupby("collection", sort=False):
        style = line_style(name)
        ax.plot(sweep["positive share of ratings"], sweep[column], marker="o", ms=3.5, **style)
        own = sweep[sweep["default"]]
        ax.scatter(own["positive share of ratings"], own[column], marker="*", s=200, color=style["color"],
                   edgecolor="black", linewidth=0.6, zorder=5)
    ax.set(ylabel=label, xlim=(0, 1.02))
    dataset_caption(ax, dataset)
axes[0].yaxis.set_major_formatter(mticker.PercentFormatter(1.0))
axes[0].set_title("Reach of the most-liked item against the threshold", loc="left")
axes[1].set_title("Concentration of likes against the threshold", loc="left")
axes[1].set_xlabel("share of ratings counted as positive (looser threshold to the right)")
axes[1].xaxis.set_major_formatter(mticker.PercentFormatter(1.0))
axes[0].legend(loc="upper left", fontsize=8.5)
fig.tight_layout()
plt.show()

# %% tags=["remove-input"]
ends = sweeps.groupby("collection", sort=False).agg(
    loose_reach=("top reach", "first"), loose_gini=("gini", "first"),
)
own_rows = sweeps[sweeps["default"]].set_index("collection")
ends["own_reach"], ends["own_gini"] = own_rows["top reach"], own_rows["gini"]
ends["own_share"] = own_rows["positive share of ratings"]
drop = 1 - ends["own_reach"] / ends["loose_reach"]
gini_move = (ends["own_gini"] - ends["loose_gini"]).abs()
r = ends.loc[here]
display(Markdown(
    f"On `{here}`, counting every rating as positive makes the most-liked item liked by {pct(r['loose_reach'])} of "
    f"the users. The dataset's own threshold ({ratings.positive_threshold:g}, which keeps "
    f"{pct(r['own_share'])} of the ratings) brings this down to {pct(r['own_reach'])}, while the Gini coefficient "
    f"goes from {two(r['loose_gini'])} to {two(r['own_gini'])}. Across the rating datasets of this page, moving "
    f"from 'every rating is positive' to the dataset's own threshold lowers the reach of the top item by "
    f"{pct(drop.min())} to {pct(drop.max())} of its value, and changes the Gini coefficient by at most "
    f"{two(gini_move.max())}."
))

# %% [markdown]
# A stricter threshold thins the head, since fewer users rate even the most popular
# item highly enough; the change of the Gini coefficient quoted above tells how much
# of the concentration of likes survives it, that is, how much of the skew comes from
# which items people rate at all rather than from one particular cut-off. Last.fm 2K
# lists only each user's favourite artists, so a play-count threshold removes fewer of
# its rows than a star threshold removes from MovieLens; the share each threshold keeps
# is on the horizontal axis. The table gives the sweep for this page's dataset.

# %% tags=["remove-input"]
mine_sweep = sweeps[sweeps["collection"] == here]
show_table(
    mine_sweep[["threshold", "positive share of ratings", "positive judgments", "relevant documents",
                "share relevant to one query", "top reach", "gini", fixed]]
    .rename(columns={"relevant documents": "liked items", "share relevant to one query": "liked by one user",
                     "top reach": "reach of the top item", "gini": "Gini"}),
    {"threshold": "{:g}", "positive share of ratings": "{:.1%}", "positive judgments": "{:,}",
     "liked items": "{:,}", "liked by one user": "{:.1%}", "reach of the top item": "{:.1%}",
     "Gini": "{:.3f}", fixed: "{:.3f}"},
)

# %% [markdown]
# ## What this means for designing an offline evaluation
#
# - **Report how relevance spreads in your data.** The cumulative share curve, the reach
#   of the top item and the fixed-list precision of {eq}`eq-fixed-list` take one line of
#   code each (`recbias.judgments`) and tell a reader how much a list without any
#   personalisation can score before an algorithm is run.
# - **Read absolute values as relative to the data.** Judgments cover a small,
#   self-selected part of what users like, so precision measures agreement with what
#   was rated, not with what is relevant. Comparisons within one experiment hold up
#   better than comparisons across datasets or set-ups.
# - **State the candidate sets and the threshold.** Both are design variables with a
#   visible effect on the numbers; without them a reported precision can be neither
#   reproduced nor compared.
# - **Expect popularity to pay.** Where a few items are liked by a large share of users,
#   any system that leans towards them gains precision, whether it personalises or not.
#   {doc}`04_popularity_bias` quantifies this, and {doc}`05_neutralising_designs` shows
#   designs that remove most of the advantage.
#
# ## Try it
#
# - Rebuild the chapter on another dataset: `make book CHAPTERS=1 DATASET=ml-latest-small`
#   or `make book CHAPTERS=1 DATASET=lastfm-2k`; your own ratings load with
#   `DATASET=csv:PATH`.
# - Change the list length of the fixed-list precision:
#   `.venv/bin/python -m recbias.bookkit --chapters 1 --dataset ml-100k -p cutoff 20`.
# - Show only this page's dataset next to the IR collections: `-p compare_all false`.
# - Change the seed of the simulated world (`make book CHAPTERS=1 SEED=7`) and see how
#   much of its true relevance the observed ratings cover.

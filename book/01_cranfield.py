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
from recbias.bookkit.claims import register
from recbias.bookkit.page import say, show_text
from recbias.bookkit.scorecard import findings_table
from recbias.bookkit.tables import glue_figure, glue_table
from recbias.chapters.c01_cranfield import claims, figures, report, study as spread
from recbias.text import and_list, fmt_number, fmt_pct, fmt_span

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
# which is 0 when all counts are equal. Since every one of the $m$ documents holds at
# least one positive judgment, $G$ stays below $(m-1)/m$, a bound that one document
# approaches only by holding almost every judgment while each of the others keeps a
# single one.
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
# {numref}`tbl-cranfield-settings` sets the collections and statistics of this page
# against the papers', with the reason for every departure. An IR collection whose
# judgment files are not on the machine that built this page is read from the summary
# that ships with the package, derived from the same pinned files. Rating datasets whose
# files are not on that machine are left out (here: {glue:text}`skipped`); the appendix
# on datasets says where to put their files. With `compare_all = False` the page shows
# only its own dataset besides the IR collections.
#
# ```{table} The page's setting next to the papers' (IRJ 2017 Sec. 5.2-5.3); the last column gives the reason wherever the page departs from them.
# :name: tbl-cranfield-settings
#
# | setting | this page | the papers | why it differs |
# |---|---|---|---|
# | IR collections | {glue:text}`ir_names`; read from the shipped summary: {glue:text}`shipped` | 30 TREC tracks appended, 703 queries | the papers' aggregate is not registered here |
# | rating datasets | {glue:text}`rated_names` | Netflix, MovieLens 1M, Last.fm (about 1,000 users) | those on this machine; not here: {glue:text}`skipped` |
# | simulated worlds | {glue:text}`worlds` | none | a world whose complete relevance is known shows what the judgments miss |
# | positive rating | {glue:text}`thresholds` | 5 stars (MovieLens, Netflix), more than 2 plays (Last.fm) | |
# | statistics | the papers', with the Gini coefficient, the head share and the fixed-list P@{glue:text}`cutoff` | documents relevant to one query, max positives per document, reach of the top item | the added statistics summarise the curves of Fig. 5 in one number each |
# ```

# %% tags=["remove-cell"]
study = spread.spread_study(ratings, seed, cutoff, compare_all)
values = claims.measured(study)
stats, rated, effect = study.stats, study.rated, study.threshold_effect
own = effect.loc[study.here]
say("here", study.here)
say("cutoff", f"{cutoff}")
say("ir_head", fmt_pct(values["ir_head_share"]))
say("ir_reach", fmt_pct(values["ir_top_reach"]))
say("ir_fixed", fmt_number(values["ir_fixed_list"]))
say("rated_head", fmt_span(study.head_share[rated.index].min(), study.head_share[rated.index].max(), "{:.1%}"))
say("rated_reach", fmt_span(rated["top reach"].min(), rated["top reach"].max(), "{:.1%}"))
say("here_gini", fmt_number(values["gini"], 2))
say("here_fixed", fmt_number(values["fixed_list"]))
for name, collection in (("cranfield", "cranfield"), ("trec", spread.TREC)):
    say(f"{name}_single", fmt_pct(stats.loc[collection, "share relevant to one query"]))
    say(f"{name}_max", f"{stats.loc[collection, 'max positives per document']}")
    say(f"{name}_queries", f"{stats.loc[collection, 'queries']:,}")
say("trec_reach", fmt_pct(stats.loc[spread.TREC, "top reach"]))
for name in ("loose reach", "own reach", "positive share"):
    say(name.replace(" ", "_"), fmt_pct(own[name]))
for name in ("loose gini", "own gini"):
    say(name.replace(" ", "_"), fmt_number(own[name], 2))
say("own_threshold", f"{own['threshold']:g}")
say("reach_drop", fmt_span(effect["reach drop"].min(), effect["reach drop"].max(), "{:.1%}"))
say("gini_change", fmt_number(effect["gini change"].max(), 2))
say("ir_names", and_list([spread.IR_NAMES[c] for c in study.ir.index]))
say("shipped", and_list([spread.IR_NAMES[c] for c in study.shipped]) if study.shipped else "none")
say("rated_names", ", ".join(r.name for r in study.ratings if r.true_relevance is None) or "none")
say("skipped", ", ".join(study.skipped) or "none")
say("worlds", ", ".join(r.name for r in study.ratings if r.true_relevance is not None) or "none")
say("thresholds", ", ".join(f"≥ {r.positive_threshold:g} on {r.name}" for r in study.ratings))

# %% tags=["remove-input"]
glue_table("tbl-cranfield-sizes", report.size_table(study), {
    "per query": "{:.1f}", "judged per query": "{:.1f}", "positive share": "{:.1%}",
    **dict.fromkeys(["queries", "judgments", "relevant documents", "positive judgments"], "{:,}")}, left=["collection"],
    wrap=["collection"], keep=["collection"])
headers = report.SPREAD_HEADERS
glue_table("tbl-cranfield-spread", report.spread_table(study), {
    headers["share relevant to one query"]: "{:.1%}", headers["max positives per document"]: "{:,}",
    headers["top reach"]: "{:.1%}", headers["head share"]: "{:.1%}", headers["gini"]: "{:.2f}", study.fixed: "{:.3f}"},
    left=["collection"])

# %% [markdown]
# {numref}`tbl-cranfield-sizes` gives the size of each collection: its queries (users),
# all its judgments (ratings; every user-item pair for the true relevance of a
# simulated world) and their mean number per query, the documents (items) with at least
# one positive judgment, the positive judgments, their share of all judgments, and their
# mean number per query (user).
# {numref}`tbl-cranfield-spread` gives the statistics of {eq}`eq-single-query-share` to
# {eq}`eq-fixed-list`, and the share of all positive judgments held by the tenth of the
# documents most often judged relevant, $F(\lfloor m/10 \rfloor)$ in {eq}`eq-cumulative-share`.
#
# ```{glue:figure} tbl-cranfield-sizes
# :name: tbl-cranfield-sizes
#
# Size of each collection. For the rating datasets, queries are users, documents are
# items and judgments are ratings; "judged per query" is the mean number of judgments per
# query, "relevant documents" counts the documents with at least one positive judgment,
# "positive share" is the share of the judgments that are positive, and "per query" the
# mean positive judgments per query.
# The page's own dataset is marked.
# ```
#
# ```{glue:figure} tbl-cranfield-spread
# :name: tbl-cranfield-spread
#
# How positive judgments spread over documents: the share of documents relevant to a
# single query, the largest number of positive judgments on one document and its
# reach, the share of all positive judgments held by the tenth of the documents most
# often judged relevant, the Gini coefficient, and the precision of the best fixed list.
# ```

# %% tags=["remove-cell"]
glue_figure("fig-cranfield-spread", figures.spread_figure(study))

# %% [markdown]
# ## Flat in IR, long-tailed in recommendation
#
# In the top panel, a curve on the diagonal means that positive judgments are spread
# evenly over the documents that have any; the further a curve rises above it, the
# more of the judgments a small head of documents or items holds. The bottom panel
# shows the same in absolute terms, as the share of queries or users reached by the
# $k$-th most often judged-relevant document. The paragraph after
# {numref}`fig-cranfield-spread` reads both panels with the numbers of
# {numref}`tbl-cranfield-spread`.
#
# ```{glue:figure} fig-cranfield-spread
# :name: fig-cranfield-spread
#
# Top: the cumulative share $F(k)$ of {eq}`eq-cumulative-share`, the share of positive
# judgments held by the $k$ documents or items most often judged relevant, against
# $k/m$ (the diagonal is an even spread). Bottom: the share of queries or users for
# whom the $k$-th of them is relevant, up to $k = 1{,}000$. Blues: IR collections;
# warm hues: rating datasets; greys: a simulated world, dashed with crosses for its
# complete relevance. Each collection has its own line style and marker, and the page's
# dataset is drawn thicker.
# ```

# %% [markdown]
# In both IR collections, the tenth of the documents most often judged relevant holds
# at most {glue:text}`ir_head` of the positive judgments, and no document is relevant to
# more than {glue:text}`ir_reach` of the queries. In the rating data of this page, the
# tenth of the most-liked items holds {glue:text}`rated_head` of the likes, and the
# most-liked item is liked by {glue:text}`rated_reach` of all users. On this page's
# dataset, {glue:text}`here`, the Gini coefficient ({eq}`eq-gini`) is
# {glue:text}`here_gini`, and one list of its {glue:text}`cutoff` most-liked items, shown
# to every user, would reach a precision of {glue:text}`here_fixed` ({eq}`eq-fixed-list`)
# if all ratings were test ratings, against at most {glue:text}`ir_fixed` for the best
# fixed list of an IR collection.
#
# The share of documents relevant to a single query, {eq}`eq-single-query-share`, is
# the least telling of the statistics. It is {glue:text}`cranfield_single` on Cranfield
# and {glue:text}`trec_single` on TREC-8. Cranfield is
# a small collection of {glue:text}`cranfield_queries` queries on one narrow field, so
# its queries overlap more: one document is relevant to {glue:text}`cranfield_max` of
# them. But a rating dataset can also have many items liked by a single user, because
# its catalogue has a long tail of rarely rated items. What sets recommendation data
# apart is the *head*: items liked by a sizeable share of all users, which neither IR
# collection has.
#
# The papers draw five statements from this contrast, each a comparison of a rating
# dataset with the IR collections. {numref}`tbl-cranfield-findings` checks them on this
# page's dataset against both IR collections, with the measurements of
# {numref}`tbl-cranfield-spread` behind each verdict; the {doc}`scorecard` collects them
# with those of the other chapters.

# %% tags=["remove-cell"]
found = register(claims.FINDINGS, values, dataset=ratings.name)
register(claims.RATING_NUMBERS, values, dataset=ratings.name)
register(claims.TREC_NUMBERS, values, dataset=spread.TREC)
glue_table("tbl-cranfield-findings", findings_table(found), wrap=True, left=["statement", "evidence"])

# %% [markdown]
# ```{glue:figure} tbl-cranfield-findings
# :name: tbl-cranfield-findings
#
# The statements of {cite:t}`bellogin2017statistical` (Sec. 5.3) and
# {cite:t}`bellogin2012thesis` (Table 4.1) on how relevance spreads in rating data,
# checked on this page's dataset against every IR collection.
# ```

# %% [markdown]
# ### What the judgments miss
#
# A real dataset cannot say how complete its judgments are; a simulated world can,
# because it knows which items each user would truly like.

# %% tags=["remove-input"]
show_text(claims.TRUTH.format(**study.truth) if study.truth else claims.NO_WORLD)

# %% [markdown]
# Incompleteness is therefore not a small correction, as it is for a deep TREC pool:
# most of what is relevant is never judged, and the part that is judged was chosen by
# the users' own behaviour, which in the simulation depends on the popularity of an
# item and on how much the user likes it. {doc}`03_sparsity_bias` shows what the
# missing judgments do to the value of precision.

# %% [markdown]
# ## Against the published numbers
#
# In Section 5.2 of {cite:t}`bellogin2017statistical` (and Section 4.5.2 of
# {cite:t}`bellogin2012thesis`), the authors contrast their recommendation datasets with an aggregate of 30 TREC
# tracks, 703 queries in all, built by appending the judgment files. In that aggregate
# most relevant documents serve a single query and no document is relevant to more than
# a few percent of the queries, whereas the most-liked item of each of their rating
# datasets (Netflix, MovieLens 1M and a Last.fm sample of about 1,000 users) is liked by
# a fifth to three quarters of the users. {numref}`tbl-cranfield-published` sets their
# numbers against ours.

# %% tags=["remove-cell"]
glue_table("tbl-cranfield-published", report.published_table(study), wrap=True,
           left=["published statistic", "ours on"])

# %% [markdown]
# ```{glue:figure} tbl-cranfield-published
# :name: tbl-cranfield-published
#
# Published statistics (IRJ 2017, Sec. 5.2) next to ours, on every collection of this
# build they apply to; "–" where no such collection is available here.
# ```
#
# TREC-8 alone has {glue:text}`trec_single` of its relevant documents relevant to a
# single topic, and at most {glue:text}`trec_max` positive judgments on one document
# ({glue:text}`trec_reach` of its {glue:text}`trec_queries` topics).
#
# One track of 50 topics, chosen to differ from one another, rarely has a document
# relevant to two of them. Appending 30 tracks brings together topics from tracks that
# search the same document collections, sometimes on related subjects, so a document can
# collect judgments from several tracks. This most likely explains why the aggregate has
# more documents relevant to several queries, and a larger maximum, than TREC-8 alone. Relative to the
# number of queries, both maxima are small, and the conclusion does not change: an IR
# collection has no head of documents shared by many queries. The scorecard lists these
# entries as *not comparable*, because the collections differ.
#
# MovieLens 1M can be set against its published value only where it is on the machine
# that builds the page, and the paper's Last.fm sample is not registered here. Otherwise
# {numref}`tbl-cranfield-published` sets each published value against the releases at
# hand. The other MovieLens releases come from different periods and user populations,
# so only the order of magnitude can be expected to match. The HetRec Last.fm release
# lists at most 50 artists per user, nearly all of them counted as positive:
# {numref}`tbl-cranfield-sizes` gives its judgments per query and the share of them that
# are positive.
#
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
# sweeps the threshold over each rating dataset ({numref}`fig-cranfield-threshold`). To
# put stars and play counts on one axis, the horizontal axis is the share of ratings
# that a threshold counts as positive; a star marks each dataset's own threshold.
#
# ```{glue:figure} fig-cranfield-threshold
# :name: fig-cranfield-threshold
#
# The reach of the most-liked item, {eq}`eq-top-reach` (top), and the Gini coefficient of
# likes per item, {eq}`eq-gini` (bottom), as the positive threshold moves; a star marks
# each dataset's own threshold.
# ```


# %% tags=["remove-cell"]
glue_figure("fig-cranfield-threshold", figures.threshold_figure(study))
glue_table("tbl-cranfield-effect", report.threshold_effect_table(study), {
    "threshold": "{:g}", "share of ratings positive": "{:.1%}", "reach₁, all positive": "{:.1%}", "reach₁": "{:.1%}",
    "Gini, all positive": "{:.2f}", "Gini": "{:.2f}", "reach₁ drop": "{:.1%}", "Gini change": "{:.2f}"}, index=True)

# %% [markdown]
# On {glue:text}`here`, counting every rating as positive makes the most-liked item
# liked by {glue:text}`loose_reach` of the users. The dataset's own threshold
# ({glue:text}`own_threshold`, which keeps {glue:text}`positive_share` of the ratings) brings
# this down to {glue:text}`own_reach`, while the Gini coefficient goes from
# {glue:text}`loose_gini` to {glue:text}`own_gini`. Across the rating datasets of this
# page, moving from "every rating is positive" to each dataset's own threshold lowers the
# reach of the top item by {glue:text}`reach_drop` of its value and changes the Gini
# coefficient by at most {glue:text}`gini_change` ({numref}`tbl-cranfield-effect` gives
# each dataset). Where Last.fm 2K is among them, its own play-count threshold still
# counts most of its rows as positive, because the release lists only each user's
# favourite artists.
#
# ```{glue:figure} tbl-cranfield-effect
# :name: tbl-cranfield-effect
#
# What each rating dataset's own positive threshold does against counting every rating
# as positive: the threshold, the share of ratings it counts as positive, the reach of
# the most-liked item and the Gini coefficient at both, the relative drop of the reach
# and the change of the Gini coefficient.
# ```
#
# A stricter threshold thins the head, since fewer users rate even the most popular
# item highly enough. How far the Gini coefficient moves with it tells where the
# concentration of likes comes from: a coefficient that barely changes means the skew
# lies in which items people rate at all, not in where the cut-off is drawn.
# {numref}`tbl-cranfield-threshold` gives the sweep for this page's dataset.
#
# ```{glue:figure} tbl-cranfield-threshold
# :name: tbl-cranfield-threshold
#
# The threshold sweep on this page's dataset, one row per rating value used as the
# positive threshold: the share of ratings it counts as positive, the positive
# judgments and liked items, and the statistics of {numref}`tbl-cranfield-spread`.
# ```


# %% tags=["remove-cell"]
glue_table("tbl-cranfield-threshold", report.threshold_table(study), {
    "threshold": "{:g}", "share of ratings positive": "{:.1%}", "positive judgments": "{:,}", "liked items": "{:,}",
    headers["share relevant to one query"]: "{:.1%}", headers["top reach"]: "{:.1%}", headers["gini"]: "{:.2f}",
    study.fixed: "{:.3f}"})

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

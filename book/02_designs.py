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
# # Experimental design alternatives
#
# An offline ranking evaluation asks every recommender to rank a set of *target
# items* for each user and scores the ranking against held-out ratings. Which items
# go into that set is a choice of the experimenter, and published studies make it
# differently: some rank the whole catalogue, some only items that somebody rated in
# the test set, some a handful of random items around one held-out rating. This
# chapter lays out the choices as three independent axes, following Section 3 of
# {cite:t}`bellogin2017statistical` and Section 4.3 of {cite:t}`bellogin2012thesis`,
# shows on a toy matrix which items each choice keeps, and then asks
# on real or simulated data: *do the choices change the numbers, do they change the
# ranking of systems, and how are the two main ways of computing precision related?*

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
folds = 5  # coin-flip 80/20 splits of the main comparison (the papers: 5), int in [1, 20]
test_ratio = 0.2  # share of ratings held out in each split (the papers: 0.2), float in (0, 1)
target_size = 100  # |T_u^r| in 1R: the held-out item plus target_size - 1 sampled items (the papers: 100), int in [2, 100000]
second_dataset = "lastfm-2k"  # second dataset of the comparison, "" to skip (the papers: Last.fm)
second_nonrelevant = 2500  # |N_u| of the AR TI-NN design on the second dataset (the papers: 2,500), int in [1, 1000000]
max_an_entries = 25_000_000  # target entries above which AN designs give way to NN(second_nonrelevant), int in [1, 1000000000]
sweep_users = 400  # users sampled for the |T_u^r| sweep of the lemma figure, int in [10, 10000000] or None (None keeps all eligible users)

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
from recbias import datasets
from recbias.bookkit.claims import register
from recbias.bookkit.page import design_note, load_dataset, say, say_findings, show_text
from recbias.bookkit.scorecard import DEPARTS, FAILS, HOLDS, INCONCLUSIVE, findings_table, verdict_counts
from recbias.bookkit.tables import glue_figure, glue_table
from recbias.chapters.c02_designs import claims, figures, report
from recbias.chapters.c02_designs.study import comparison, lemma, support, toy, truth
from recbias.text import and_list, fmt_count, fmt_number, fmt_pct, order_text

# %% [markdown]
# ## Three choices behind every target set
#
# We write $R_\text{train}(u)$ and $R_\text{test}(u)$ for the items user $u$ rated in
# the training and test parts of a split, and $PR_\text{test}(u)$ for the test items
# rated at or above the positive threshold: the items *relevant* to $u$. Every other
# item counts as non-relevant, whether $u$ disliked it or never saw it. The target
# set of $u$ mixes relevant items with non-relevant ones, $N_u$, and three decisions
# fix it ({numref}`tbl-designs-axes`, after IRJ Table 3).
#
# ```{table} The three axes of a target set and their options. $\mathcal{C}$ is the pool from which non-relevant items are taken.
# :name: tbl-designs-axes
#
# | axis | option | target items | used by |
# |---|---|---|---|
# | where non-relevant items may come from, $\mathcal{C}$ | **AI** (all items) | $\mathcal{C} = \mathcal{I}$, the whole catalogue | the usual IR set-up |
# | | **TI** (test items) | $\mathcal{C} = \bigcup_{v} R_\text{test}(v)$, items somebody rated in the test set | advised by the papers |
# | how many non-relevant items | **AN** (all non-relevant) | $N_u = \mathcal{C} \setminus PR_\text{test}(u) \setminus R_\text{train}(u)$ | |
# | | **NN** (a sample of $k$) | $N_u$: $k$ items drawn uniformly from that set | {cite:t}`cremonesi2010performance` ($k = 1{,}000$) |
# | how relevant items enter | **AR** (all relevant) | one set per user, $T_u = PR_\text{test}(u) \cup N_u$ | |
# | | **1R** (one relevant) | one set per relevant rating, $T_u^r = \{i_r\} \cup N_u^r$ for each $i_r \in PR_\text{test}(u)$ | {cite:t}`cremonesi2010performance` |
# ```
#
# A design is one option per axis, named like "TI-AN" (AR implied) or
# "1R TI-NN(99)": in the latter each relevant test item gets a target set of
# $|T_u^r| = 100$ items, itself and NN(99), 99 sampled non-relevant items. This is the
# 1R design of the papers, and the book writes it the same way in every chapter. The
# user's own training items never enter the target set: ranking
# them would reward a system for remembering its input. Designs that take
# $T_u = R_\text{test}(u)$, ranking only what the user rated, are left out: they tell
# the system which items are worth considering and inflate precision
# {cite:p}`bellogin2017statistical`.

# %% [markdown]
# ## A toy matrix
#
# {numref}`fig-designs-toy` builds the target sets of one user, $u$, with the
# package's own `designs.build_runs` on a hand-made matrix with the features of Fig. 1
# in {cite:t}`bellogin2017statistical`: three users, seven items, 4 or 5 stars count
# as positive, and some ratings are held out. User $u$ liked $d$ and $e$ in the test
# part and rated $f$ and $g$ in training; nobody rated $a$ in the test part. With one
# sampled non-relevant item (NN(1)) the sample depends on the seed; another seed can
# pick another item from the same pool.
#
# ```{glue:figure} fig-designs-toy
# :name: fig-designs-toy
#
# Top: the toy ratings, positive ones (4 or 5 stars) in green, test ratings circled.
# Bottom: the target set of user $u$ under each design, one row per set, aligned with
# the items above; a 1R design gives $u$ one set per relevant test item.
# ```

# %% tags=["remove-cell"]
target_sets = toy.toy_target_sets(seed)
say("toy_ai_an", target_sets[0].letters)
say("toy_ti_an", target_sets[1].letters)
glue_figure("fig-designs-toy", figures.toy_figure(target_sets))

# %% [markdown]
# The ratings above decide every target set below. Under AI-AN user $u$ ranks
# {glue:text}`toy_ai_an`: every item except the two $u$ rated in training. Under TI-AN
# the set shrinks to {glue:text}`toy_ti_an`, because $a$ has no test rating from anybody
# and so can never be relevant to anyone; TI keeps only items that could in principle
# be judged. NN keeps the relevant items and draws a fixed number of the others. 1R
# splits $u$'s two relevant items into two target sets, each with its own sample of
# non-relevant items; a system is then judged twice on $u$, once per held-out like.
# Under AR, $u$'s relevant items compete with each other for the top positions; under
# 1R they never meet.

# %% [markdown]
# ## Two ways to average: AR and 1R precision
#
# With $\operatorname{top}_s^u(T, n)$ the first $n$ items of $T$ in the order of system
# $s$ for user $u$, AR precision is the IR definition, averaged over the users who
# have a relevant test item:
#
# $$
# P_s@n = \frac{1}{|\mathcal{U}|} \sum_{u \in \mathcal{U}}
# \frac{\left|\operatorname{top}_s^u(T_u, n) \cap PR_\text{test}(u)\right|}{n}.
# $$ (eq-ar-precision)
#
# The 1R design of {cite:t}`cremonesi2010performance`, written as in Eq. 1 of
# {cite:t}`bellogin2017statistical`, averages the same precision over the
# target sets $T_u^r$, one per relevant test rating:
#
# $$
# 1RP_s@n = \frac{1}{|PR_\text{test}|} \sum_{u \in \mathcal{U}}
# \sum_{r=1}^{|PR_\text{test}(u)|} P_s^u@n\left(T_u^r\right).
# $$ (eq-1r-precision)
#
# Two differences follow directly. First, each $T_u^r$ holds a single relevant item,
# so a perfect ranking scores $1/n$, not 1: for $n = 10$ the ceiling of
# {eq}`eq-1r-precision` is 0.1. Second, the weights differ. {eq}`eq-ar-precision` gives
# every user the same weight, while {eq}`eq-1r-precision` gives every *relevant rating*
# the same weight, so users with many held-out likes dominate. Any other per-set
# metric (recall, nDCG, AP, reciprocal rank) can replace $P_s^u@n$ in
# {eq}`eq-1r-precision`.
#
# On the first split of {glue:text}`here`, AR precision averages over
# {glue:text}`weight_users`, those with at least one relevant test item. The tenth of
# them with the most relevant test items, {glue:text}`weight_top`
# ({glue:text}`weight_top_share` of them), holds {glue:text}`weight_share` of all relevant
# test ratings: that is their weight in 1R precision, against
# {glue:text}`weight_top_share` in AR precision.

# %% [markdown]
# ## The preliminary comparison
#
# The papers illustrate the design space with five recommenders (IRJ Section 3.3,
# Fig. 2): random scores, item popularity (number of training ratings), pLSA
# {cite:p}`hofmann2004latent`, matrix factorisation (MF) {cite:p}`koren2009matrix` and
# user-based kNN {cite:p}`cremonesi2010performance`. Their MF and kNN are *rating
# predictors*: trained on the rating values, they rank a user's target items by the
# rating they expect her to give. Most top-N recommenders today learn something else,
# namely which items a user rates at all: implicit-feedback matrix factorisation
# {cite:p}`hu2008collaborative` (iALS) or a kNN that adds up its neighbours' ratings
# without normalising them. An offline test asks a system to find the held-out
# ratings among unrated items, which is exactly what the second kind learns, so the
# two kinds can come out in different orders.
#
# This page therefore runs two sets of systems. **The papers' set**, on which their
# statements are checked, holds Random, Popularity, pLSA and the two rating predictors,
# rating-MF and rating-kNN. **Today's top-N set** keeps Random, Popularity and pLSA
# and puts implicit MF (top-N) and the unnormalised user-kNN (top-N) in place of the
# rating predictors;
# each statement of the papers is checked on it a second time, to see whether it
# carries over. Every system is fitted once per split on the training ratings and
# scores the target sets of every design of that split, so the three systems the sets
# share cost nothing extra. {numref}`tbl-designs-systems` lists the systems and their
# settings, and {numref}`tbl-designs-settings` sets the page's protocol against the
# papers', with the reason for every departure.
#
# ```{table} The systems of the comparison, the set each belongs to, and their settings (the presets of the package's recommenders; the papers do not state theirs).
# :name: tbl-designs-systems
#
# | system | set | model | settings |
# |---|---|---|---|
# | Popularity | both sets | number of training ratings of the item, the same for every user | {glue:text}`settings-popularity` |
# | pLSA | both sets | probabilistic latent semantic analysis fitted by EM {cite:p}`hofmann2004latent` | {glue:text}`settings-plsa` |
# | Random | both sets | scores drawn uniformly at random | {glue:text}`settings-random` |
# | rating-MF | papers' set | biased matrix factorisation predicting rating values, alternating least squares {cite:p}`koren2009matrix`; ranks by predicted rating | {glue:text}`settings-rating-mf` |
# | rating-kNN | papers' set | user-based nearest neighbours predicting ratings from mean-centred neighbours' ratings, cosine similarity {cite:p}`cremonesi2010performance`; ranks by predicted rating | {glue:text}`settings-rating-user-knn` |
# | implicit MF (top-N) | today's top-N set | matrix factorisation for implicit feedback, alternating least squares {cite:p}`hu2008collaborative`: learns which items get rated | {glue:text}`settings-mf` |
# | user-kNN (top-N) | today's top-N set | user-based nearest neighbours summing the neighbours' ratings, unnormalised (a top-N learner) | {glue:text}`settings-user-knn` |
# ```
#
# ```{table} The page's setting next to the papers' (IRJ Sec. 3.3-3.4), and what sets the page's where it may depart from them.
# :name: tbl-designs-settings
#
# | setting | this page | the papers | what sets it, and why it may differ |
# |---|---|---|---|
# | dataset | {glue:text}`here` | MovieLens 1M | the build's `dataset` (MovieLens 1M on this machine: {glue:text}`ml1m_here`) |
# | relevant | a test rating ≥ {glue:text}`threshold` | 5 stars (MovieLens), more than 2 plays (Last.fm) | the dataset's positive threshold |
# | splits | {glue:text}`splits_setting` | 5 coin-flip splits, 20% in test | the page's `folds` and `test_ratio` |
# | AR designs | {glue:text}`ar_designs` | AI-AN and TI-AN | NN in place of AN where the AN target sets would hold more than `max_an_entries` items (here {glue:text}`an_entries`) |
# | 1R design | {glue:text}`one_r_design` | 1R TI-NN(99) | the page's `target_size` |
# | systems | the papers' set, and today's top-N set beside it | Random, Popularity, pLSA, MF, user-kNN | today's top-N set is added to see whether the papers' statements carry over to it |
# | settings of the systems | the presets of `recbias.recommenders.make` | not given | the papers do not state theirs |
# | pairs of systems tested | Wilcoxon signed-rank, the user as the unit, p < {glue:text}`level` to decide a comparison | Wilcoxon signed-rank (p ≪ 0.001 for every pair) | a user's runs over all splits are one unit, not many |
# | second dataset | {glue:text}`second_name` | Last.fm, Celma's 1K users | the page's `second_dataset`: the papers' sample is not registered here |
# | its split | {glue:text}`second_split` | one temporal split | a coin flip where the data have no timestamps |
# | its AR design | {glue:text}`second_ar` | TI-NN(2500) | the page's `second_nonrelevant` |
# | users of the size sweep | {glue:text}`sweep_setting` | all | the page's `sweep_users`, which bounds the cost; the lemma holds for any users |
# ```
#
# On the main dataset each of the `folds` splits is an independent coin flip per
# rating, with probability `test_ratio` of going to test; P@10 is measured under AR
# with AI-AN and TI-AN, and under 1R with TI-NN target sets of $|T_u^r|$ = `target_size`
# items (1R TI-NN(99) by default).
# The means pool the runs of all splits (users in AR, relevant ratings in 1R, as in
# the papers' Eq. 1). Their 95% intervals treat the *user* as the independent unit:
# a user's runs, and the same user across splits, are clustered, so that many runs of
# one person do not pass for many independent observations.
#
# On Last.fm the papers used a single temporal split of Celma's 1K-user play logs,
# AR TI-NN with $|N_u| = 2{,}500$ and 1R TI-NN. The second dataset of this page
# (`second_dataset`) gets the same two designs on a single split, temporal when the data
# have timestamps. The whole comparison is one call into the chapter's package:

# %% tags=["remove-cell"]
for preset, words in report.system_settings(seed=seed).items():
    say(f"settings-{preset}", words)
skipped = comparison.second_status(second_dataset, dataset)

# %%
second = None if skipped else load_dataset(second_dataset, seed)
study = comparison.design_study(
    ratings, second, folds=folds, test_ratio=test_ratio,
    target_size=target_size, second_nonrelevant=second_nonrelevant,
    max_an_entries=max_an_entries, seed=seed,
)

# %% tags=["remove-input"]
show_text(" ".join([design_note(study.choice, ratings),
                    claims.SECOND_NOTES[study.second_split or skipped].format(second=study.second_name or second_dataset)]))
choice, here, weight = study.choice, ratings.name, comparison.relevant_weight(study.folds[0].test)
for name, text in {
    "here": here, "ml1m_here": "yes" if datasets.available("ml-1m") else "no",
    "threshold": f"{ratings.positive_threshold:g}", "ar_designs": " and ".join(choice.ar),
    "splits_setting": f"{folds} coin-flip splits, about {study.test_share:.0%} of the ratings in test",
    "an_entries": f"{choice.an_entries:,}", "one_r_design": choice.one_r, "second_name": study.second_name or "none",
    "second_split": {"temporal": "one temporal split", "coin": "one coin-flip split"}.get(study.second_split, "–"),
    "second_ar": study.second_ar or "–",
    "sweep_setting": "all" if sweep_users is None else f"at most {sweep_users:,}, sampled",
    "weight_users": fmt_count(weight.users, "user", "users"),
    "weight_top": fmt_count(weight.top_users, "user", "users"),
    "weight_top_share": fmt_pct(weight.top_users / weight.users, 0), "weight_share": fmt_pct(weight.share, 0),
}.items():
    say(name, text)
sizes = report.size_table(study)
glue_table("tbl-designs-sizes", sizes, {c: "{:,.0f}" for c in sizes.columns if c not in ("dataset", "design")},
           left=["dataset", "design"])

# %% [markdown]
# {numref}`tbl-designs-sizes` gives the size of each evaluation: the runs (users in
# AR, relevant test ratings in 1R), the users they come from, the candidate items
# $\mathcal{C}$ and the total number of items each system ranks.
#
# ```{glue:figure} tbl-designs-sizes
# :name: tbl-designs-sizes
#
# Size of the evaluation per dataset and design, means over splits. Runs are users in
# AR designs and relevant test ratings in 1R designs; "items ranked" sums the target
# sets of all runs; a run is left out (count over all splits) when its user has fewer
# candidate items than the design samples.
# ```

# %% tags=["remove-cell"]
glue_figure("fig-designs-precision", figures.precision_figure(study))
glue_table("tbl-designs-precision", report.precision_table(study), left=[("set", ""), ("system", "")],
           wrap=[("set", "")])

# %% [markdown]
# {numref}`fig-designs-precision` draws the mean P@10 of every system under every
# design, and {numref}`tbl-designs-precision` gives the numbers. On {glue:text}`here`
# under {glue:text}`ti_design`, the papers' set comes out as
# {glue:text}`ar_order_papers`, and today's top-N set as {glue:text}`ar_order_top_n`;
# under 1R the two orders are {glue:text}`one_r_order_papers` and
# {glue:text}`one_r_order_top_n`.
#
# ```{glue:figure} fig-designs-precision
# :name: fig-designs-precision
#
# Mean P@10 of every system of both sets under each design (the papers' average over
# runs), with 95% confidence intervals that take the user as the unit: a user's runs
# over all splits form one cluster. The legend groups the systems by set; today's
# top-N MF and kNN are hatched.
# ```
#
# ```{glue:figure} tbl-designs-precision
# :name: tbl-designs-precision
#
# Mean P@10 over runs (users in AR, relevant test ratings in 1R) with the half-width of
# its 95% confidence interval below it, one row per system with the set it belongs to,
# one column per design of each dataset; the unit of the interval is the user.
# ```
#
# Wilcoxon signed-rank tests compare two systems user by user. A user's runs are not
# independent observations (her 1R runs share one profile, and she is in every split),
# so the differences of all her runs over all splits are summed into one paired value
# per user before testing; the intervals above are clustered by user in the same way.
# {numref}`tbl-designs-tests` lists, per design and set, how many of the set's ten
# pairs of systems differ at the 0.001 level the papers quote, and the pair that is
# hardest to tell apart.
#
# ```{glue:figure} tbl-designs-tests
# :name: tbl-designs-tests
#
# Pairs of systems of each set whose P@10 differ under a Wilcoxon signed-rank test at
# the 0.001 level, with the user as the unit (one paired value per user), and the
# closest pair, the one with the largest p-value, with its difference in P@10 (first
# minus second system) and p-value below it.
# ```

# %% tags=["remove-cell"]
glue_table("tbl-designs-tests", report.significance_table(study), left=["dataset", "design", "set", "closest pair"])
values, second_name = claims.measured(study), str(study.second_name)
found = [*register(claims.FINDINGS, values, dataset=ratings.name),
         *register(claims.SECOND_FINDINGS, values, dataset=second_name)]
numbers = [*register(claims.MAIN_NUMBERS, values, dataset=ratings.name),
           *register(claims.SECOND_NUMBERS, values, dataset=second_name)]
glue_table("tbl-designs-papers", findings_table(found, where=True), wrap=True, left=["statement", "evidence"])
glue_table("tbl-designs-numbers", report.numbers_table(numbers), left=["published number"])
paper, (low, high) = {number.key: number.value for number in claims.NUMBERS}, study.spread("Popularity")
for name, text in {
    "ai_design": choice.ar[0], "ti_design": choice.ar[1], "ai_ti_gap": fmt_number(study.ai_ti_gap, 4),
    "untested": fmt_pct(study.untested_share), "best_one_r": fmt_number(study.best_one_r()),
    "ceiling": fmt_number(study.ceiling), "popularity_low": fmt_number(low), "popularity_high": fmt_number(high),
    "popularity_factor": f"{high / low:.1f}" if low > 0 else "unbounded",
    "paper_pop_ar": f"{paper['fig2/AR/Popularity/P@10']:g}",
    "paper_pop_ar_lastfm": f"{paper['fig2/AR-lastfm/Popularity/P@10']:g}",
    "data_main": f"{here} ({ratings.n_ratings:,} ratings by {ratings.n_users:,} users of {ratings.n_items:,} items)",
    "data_second": datasets.info(second_name).title if study.second is not None else "no second dataset",
}.items():
    say(name, text)
for which, name in ((comparison.PAPERS, "papers"), (comparison.TOP_N, "top_n")):
    say(f"pairs_significant_{name}", "{} of {}".format(*study.significant_pairs(which)))
    say(f"ar_order_{name}", order_text(study.measured(here, choice.main_ar, which)))
    say(f"one_r_order_{name}", order_text(study.measured(here, choice.one_r, which)))
for twin, name in ((False, "papers"), (True, "todays")):
    counts = verdict_counts([claim for claim in found if claim.key.endswith(claims.TWIN) == twin])
    say(f"{name}_checked", f"{counts.sum()}")
    for verdict, label in ((HOLDS, "holds"), (FAILS, "fails"), (DEPARTS, "departs"), (INCONCLUSIVE, "inconclusive")):
        say(f"{name}_{label}", f"{counts[verdict]}")

# %% [markdown]
# ### What the papers found, and what we find
#
# On MovieLens 1M the papers report pLSA first in most configurations, popularity close
# behind it, MF above kNN and random far below; AR popularity reaches about
# {glue:text}`paper_pop_ar` on MovieLens and {glue:text}`paper_pop_ar_lastfm` on
# Last.fm, where popularity is the best system under AR, and AR
# and 1R disagree on some comparisons there {cite:p}`bellogin2017statistical`. AI and
# TI gave almost the same values on MovieLens, where nearly every item has a test
# rating. {numref}`tbl-designs-papers` checks each statement on the papers' set of
# systems and, in the row after it, on today's top-N set, and
# {numref}`tbl-designs-numbers` sets their numbers against ours.
#
# A statement that one system is above another is decided by the Wilcoxon test of the
# pair, with the user as the unit: it holds or fails only when the difference is beyond
# noise (p < {glue:text}`level`), and is inconclusive otherwise. That AR and 1R
# disagree holds when some pair of systems is ordered one way by AR and the other way
# by 1R, each beyond noise, and fails only when both designs order every pair alike
# beyond noise. That AI and TI give almost the same precision is a claim of equivalence: it holds when every
# system's 95% interval of the AI − TI difference lies within ±0.01, and fails when one
# lies wholly outside. The last column names the dataset each statement was checked
# on; only a run on the papers' own dataset can confirm or contradict a number (see the
# {doc}`scorecard`). The rows on today's top-N set depart from the papers by
# construction, and so do the rows on a Last.fm release other than theirs: such a row
# says how it departs, and its failure is never counted against the papers. The full
# orders of the systems are in {numref}`tbl-designs-orders` below. {glue:md}`policy`
#
# ```{glue:figure} tbl-designs-papers
# :name: tbl-designs-papers
#
# The statements of IRJ 2017 (Sec. 3.3, Fig. 2) checked on this build: each on the
# papers' set, then (statement naming today's top-N set) on today's systems, with the
# measurements and the criterion behind each verdict and the dataset each was checked on.
# ```
#
# ```{glue:figure} tbl-designs-numbers
# :name: tbl-designs-numbers
#
# The numbers of IRJ 2017 (Sec. 3.2-3.3, Fig. 2) next to ours, with the dataset each
# was computed on; they are comparable only on the papers' own dataset.
# ```
#
# On {glue:text}`here` the largest gap between {glue:text}`ai_design` and
# {glue:text}`ti_design` over the systems is {glue:text}`ai_ti_gap`: on average
# {glue:text}`untested` of the items have no test rating in a split, and only AI can
# draw them as non-relevant items. The best 1R precision, {glue:text}`best_one_r`,
# stays under the ceiling of {glue:text}`ceiling` that a perfect ranking attains.
#
# Three things separate our run from the papers', and they are worth keeping apart.
# The data may differ (next paragraph). The systems of the papers' set are of the
# papers' kinds, rating predictors that rank by the predicted rating, but their
# settings are ours ({numref}`tbl-designs-systems`), since the papers do not give
# theirs. And whether MF and kNN predict ratings or learn which items get rated is an
# axis of its own, which the papers did not have to consider: the two sets share
# Random, Popularity and pLSA, and {numref}`tbl-designs-orders` shows where each set's
# MF and kNN land among them.
#
# Of the {glue:text}`papers_checked` statements of the papers checked on their own set
# of systems, {numref}`tbl-designs-papers` shows {glue:text}`papers_holds` holding,
# {glue:text}`papers_fails` failing, {glue:text}`papers_departs` failing where the book
# departs from the papers and {glue:text}`papers_inconclusive` inconclusive (within
# noise). Of the {glue:text}`todays_checked` checked again on today's top-N set, it
# shows {glue:text}`todays_holds` holding, {glue:text}`todays_departs` failing where the
# book departs from the papers (as every failure there does) and
# {glue:text}`todays_inconclusive` inconclusive; these count as departures, not as
# failures of the papers.
#
# As for the data, the papers used MovieLens 1M and their own Last.fm sample, while
# this page uses {glue:text}`data_main` and, in place of Last.fm,
# {glue:text}`data_second` (its split is described above). A simulated world need not
# make the systems behave as they do on real ratings, and even on MovieLens 1M the
# splits are our own draws. Across the designs and datasets of this page, the P@10 of
# Popularity alone runs from {glue:text}`popularity_low` to
# {glue:text}`popularity_high`, a factor of {glue:text}`popularity_factor`. The papers
# make the same point with Popularity's AR precision, which they see go from
# {glue:text}`paper_pop_ar` on MovieLens to {glue:text}`paper_pop_ar_lastfm` on Last.fm.

# %% tags=["remove-cell"]
supported = support.support_study(study)
for name, text in {**report.support_numbers(supported, choice.main_ar, choice.one_r),
                   "sampled_items": f"{target_size - 1:,}"}.items():
    say(name, text)
glue_table("tbl-designs-support", report.support_display(supported), left=["set", "system"])
glue_table("tbl-designs-knn", report.knn_table(supported), left=["system"])

# %% [markdown]
# (sec-designs-support)=
# ### What the papers' kNN puts on top
#
# The papers' kNN predicts the rating of item $i$ for user $u$ from the $k$ users most similar
# to $u$ among those who rated $i$, $N_k(u; i)$, those with a positive cosine similarity
# $s_{uv}$ of the users' mean-centred ratings ($k$ as in {numref}`tbl-designs-systems`):
#
# $$
# \hat r_{ui} = \mu_u + \frac{\sum_{v \in N_k(u; i)} s_{uv}\,(r_{vi} - \mu_v)}{\sum_{v \in N_k(u; i)} s_{uv}},
# $$ (eq-designs-knn)
#
# where $\mu_u$ is the user's mean training rating. The weights are normalised, so they sum
# to one however few neighbours there are. When a single neighbour has rated $i$, her
# deviation from her own mean becomes the whole correction: nothing pulls the prediction back
# towards $\mu_u$. An item rated by dozens of neighbours gets an average of dozens of
# deviations, which lands near $\mu_u$. Ranking by {eq}`eq-designs-knn` therefore favours the
# items, where a catalogue has them, that one or two like-minded users rated well above their
# own mean, and such items hold few test ratings, since test ratings fall on items in
# proportion to their ratings ({doc}`04_popularity_bias`).
#
# {numref}`tbl-designs-support` measures this on the first split of {glue:text}`here`. For each
# system it takes every user's top 10 among the items she did not rate in training, the list
# that the AI-AN design scores, and counts each item's training ratings, its *support*. The
# papers' kNN recommends items with a median of {glue:text}`support_knn_median` training
# ratings, and {glue:text}`support_knn_few` of them have {glue:text}`few` or fewer, while such
# items make up {glue:text}`catalogue_few` of the catalogue. For comparison, the median support
# is {glue:text}`support_random_median` for random and {glue:text}`support_popularity_median` for
# popularity.
#
# ```{glue:figure} tbl-designs-support
# :name: tbl-designs-support
#
# Support of the items each system recommends: training ratings of the items of every user's
# top 10 among those she did not rate in training, on the first split; median, share with at
# most {glue:text}`few` training ratings, and mean, over all users' lists. Equal scores are
# ordered by one random permutation of the catalogue.
# ```
#
# One guard against such predictions is a minimum number of neighbours per item. The
# neighbourhood scorers of LensKit {cite:p}`ekstrand2011rethinking` have one, `MinNeighbors`
# (`min_nbrs` in its Python successor): an item with fewer neighbours is left unscored, for a
# baseline to fill in. We add that rule as a variant *beside* the papers'
# kNN, never in its place: *rating-kNN (min. 2 neighbours)* is {eq}`eq-designs-knn` when at
# least two neighbours rated the item, and otherwise predicts the user's mean $\mu_u$, the value
# the papers' kNN already gives an item that no neighbour rated. Two is the smallest minimum at
# which no prediction rests on one person's rating. An item below the minimum falls back to the
# mean rather than to the bottom of the list: the kNN cannot judge it, which is not the same as
# judging it poor, and sending every such item to the bottom would turn the rule into a filter
# by popularity. The variant's items have a median support of
# {glue:text}`support_variant_median`, and {glue:text}`support_variant_few` have
# {glue:text}`few` training ratings or fewer.
#
# {numref}`tbl-designs-knn` sets the two kNNs and random side by side on every split and design
# of this page. Under {glue:text}`ti_design` the papers' kNN reaches {glue:text}`knn_ar`, its
# variant {glue:text}`variant_ar` (paired test {glue:text}`variant_ar_p`) and random
# {glue:text}`random_ar`; in 1R the three reach {glue:text}`knn_1r`,
# {glue:text}`variant_1r` ({glue:text}`variant_1r_p`) and {glue:text}`random_1r`. The
# designs expose the papers' kNN to its favourite items to different degrees. AI-AN ranks
# every item the user has not rated, so its top 10 can fill with items of one or two
# ratings; TI leaves out the items without a test rating, which an item of little support
# seldom has; and a 1R target set holds the held-out item beside {glue:text}`sampled_items`
# sampled items instead of every candidate. The statements of the papers on this page are
# checked on the papers' kNN as it is; the variant shows how much of its standing rests on a
# setting of the predictor that the papers do not report.
#
# ```{glue:figure} tbl-designs-knn
# :name: tbl-designs-knn
#
# Mean P@10 of the papers' kNN, its variant that needs two neighbours per item, and random,
# with the half-width of the 95% interval below each value, over the splits and designs of
# the page's dataset, and the Wilcoxon signed-rank p-value of the variant against the papers'
# kNN (the user as the unit).
# ```

# %% [markdown]
# ## How AR and 1R precision are tied
#
# Despite their different values, the two precisions are bound to each other. Suppose
# the non-relevant items are drawn once per user and shared by all of that user's 1R
# sets, $N_u^r = N_u$, and let $T_u = N_u \cup PR_\text{test}(u)$ be the union of the
# user's 1R sets; $P_s@n$ below is AR precision on these $T_u$. Then, as
# {cite:t}`bellogin2017statistical` show (their Eq. 2),
#
# $$
# \begin{aligned}
# 1RP_s@n &\;\ge\; \frac{|\mathcal{U}|}{|PR_\text{test}|}\, P_s@n, \\
# 1RP_s@n &\;\le\; \frac{1}{n\, |PR_\text{test}|} \sum_{u \in \mathcal{U}} m_u\, P_s^u@m_u(T_u), \\
# &\qquad \text{with } m_u = n + |PR_\text{test}(u)| - 1.
# \end{aligned}
# $$ (eq-lemma)
#
# The argument is about positions. Removing the user's other relevant items from $T_u$
# can only move a relevant item up, so every relevant item in the top $n$ of $T_u$ is
# also in the top $n$ of its own $T_u^r$: that gives the lower bound. Conversely, at
# most $|PR_\text{test}(u)| - 1$ relevant items can stand above it in $T_u$, so an item
# in the top $n$ of $T_u^r$ is in the top $m_u$ of $T_u$: that gives the upper bound.
# Both bounds are AR quantities, so 1R precision moves with AR precision: it lies
# between AR precision at the cut-off $n$ and AR precision at the deeper cut-off $m_u$,
# a sandwich rather than a fixed multiple of $P_s@n$. The gap between the bounds comes
# from users with several relevant items, so it shrinks as test ratings become
# scarcer; the papers also see it close as the target sets grow well beyond
# $|PR_\text{test}|/|\mathcal{U}|$, the mean number of relevant items per user.
#
# {numref}`fig-designs-lemma` reproduces IRJ Fig. 3 on the first split: 1R P@10
# (line) between its bounds (band) for pLSA and the papers' kNN, rating-kNN, while test ratings are
# removed at random with $|T_u^r| = $ `target_size` (left), and while $|T_u^r|$ grows
# from 100 to 1,000 (right). For the right panel we keep one population of users:
# those who still have enough candidates at the largest size, of whom we sample
# `sweep_users` to bound the cost; sizes that would leave fewer than half the users
# are dropped. {numref}`tbl-designs-lemma` gives every point.
#
# ```{glue:figure} fig-designs-lemma
# :name: fig-designs-lemma
#
# 1R P@10 (points) of pLSA and rating-kNN, two systems of the papers' set, between its
# lower (dotted) and upper (dashed) AR bounds of {eq}`eq-lemma`, as test ratings are
# removed at random (left) and as the 1R target sets grow (right), on the first split.
# ```

# %% tags=["remove-cell"]
sweep = lemma.lemma_points(study, sweep_users)
say_findings([*found, *register(claims.LEMMA_FINDINGS, claims.lemma_measured(sweep), dataset=ratings.name)])
ends = lemma.band_ends(sweep)
say("band_growth", claims.BAND_GROWTH.format(**ends) if "big" in ends else claims.NO_SIZE_SWEEP)
for name in ("full", "thin"):
    say(f"band_{name}", fmt_number(ends[name], 4))
    say(f"band_{name}_relative", fmt_pct(ends[f"{name}_relative"], 0))
say("band_removed", fmt_pct(ends["removed"], 0))
glue_figure("fig-designs-lemma", figures.lemma_figure(sweep, ratings.name))
glue_table("tbl-designs-lemma", report.lemma_table(sweep), left=[("setting", "")])

# %% [markdown]
# ```{glue:figure} tbl-designs-lemma
# :name: tbl-designs-lemma
#
# The points of {numref}`fig-designs-lemma`: for each system, the lower bound, 1R P@10
# and the upper bound of {eq}`eq-lemma`, over the runs (relevant test ratings) of the
# users counted at each point.
# ```

# %% [markdown]
# {glue:md}`says-fig3/lemma-holds` They must: with shared non-relevant items and one fixed
# order of items per user the lemma is exact (`recbias.theory.lemma_bounds` computes both
# sides, and the package tests check the inequality on random data). Averaged over the
# two systems, the band is {glue:text}`band_full` wide on the full test set
# ({glue:text}`band_full_relative` of the 1R value) and {glue:text}`band_thin`
# ({glue:text}`band_thin_relative`) once {glue:text}`band_removed` of the test ratings
# are gone. {glue:text}`band_growth` The papers saw the band close as the target sets
# grow; relative to the 1R value it need not, because precision itself falls as the
# target sets grow.
#
# As in the papers, the two designs give related but not interchangeable assessments:
# where users hold many relevant test items relative to the size of their target sets,
# the band leaves room for 1R and AR to order close systems differently.
#
# ## Beyond P@10
#
# The same runs give other metrics. {numref}`tbl-designs-metrics` shows them under the
# AR design and under 1R for the main dataset. In AR, Recall@10 and average precision
# divide by the user's number of relevant test items; in 1R each run holds exactly one
# relevant item, so Recall@10 is the hit rate of the run. nDCG uses the rating of a
# relevant item as its gain.
#
# ```{glue:figure} tbl-designs-metrics
# :name: tbl-designs-metrics
#
# Mean of each metric over the runs of all splits (users in AR, relevant test ratings
# in 1R), on the page's dataset, for every system of both sets.
# ```

# %% tags=["remove-cell"]
metrics = report.metric_table(study)
agree = comparison.same_order_as_precision(metrics)
say("metrics_agree", f"{int(agree.to_numpy().sum())} of the {agree.size}")
exceptions = [f"{metric} under {design}" for design, row in agree.iterrows()
              for metric, same in row.items() if not same]
say("metrics_exceptions", and_list(exceptions) if exceptions else "none")
say("runs_1r", f"{study.one_r_runs:,}")
say("splits", fmt_count(len(study.folds), "split", "splits"))
say("map_mrr_gap", f"{study.map_mrr_gap:.1g}")
glue_table("tbl-designs-metrics", metrics, dict.fromkeys(comparison.METRICS, "{:.3f}"), left=["design", "system", "set"],
           wrap=["set"])

# %% [markdown]
# In 1R a run holds one relevant item, so its average precision is the precision at
# that item's rank $k$, that is $1/k$: the reciprocal rank. MAP and MRR therefore
# coincide: over the {glue:text}`runs_1r` 1R runs of {glue:text}`splits`, the largest
# difference between the two is {glue:text}`map_mrr_gap`. The equality rests on
# normalising each run by the one relevant item it contains: a tool that treated a
# user as a single query and divided by all of the user's relevant test items would
# report a smaller MAP, so whoever reports "MAP under 1R" should say which denominator
# was used. The same collapse
# makes nDCG blind to rating grades in 1R (one gain cancels against its own ideal),
# whereas grades count in AR. Within each design, {glue:text}`metrics_agree` other
# metric columns of {numref}`tbl-designs-metrics` order the systems exactly as P@10
# does; the exceptions: {glue:text}`metrics_exceptions`.

# %% [markdown]
# ## Which design gets the order right?
#
# On real data nobody knows which items a user would like among those not rated, so a
# design can only be judged against another design. A simulated world knows: every
# user-item pair has a true relevance. For each system we compute the precision of its
# top 10 among *all* items the user did not rate in training, judged by the complete
# truth, averaged over all users and over the splits; this is what every offline design
# tries to estimate. We then compare, design by design, the order of systems by measured
# P@10 with the true order, within each set of systems: Kendall's $\tau$ (1 when the
# orders agree, $-1$ when they are reversed), the share of the set's ten pairs of
# systems in the true order, and whether the truly best system comes first
# ({numref}`tbl-designs-orders`).
#
# ```{glue:figure} tbl-designs-orders
# :name: tbl-designs-orders
#
# The systems of each set from best to worst by mean P@10, one row per design of each
# dataset, with the P@10 of the first. On a simulated world, each set's block opens
# with the order by true P@10 (complete relevance, mean over users and splits), and
# three more columns compare each design of that world with it: Kendall's τ, the pairs
# of systems in the true order, and whether the truly best system comes first. Observed
# data have no true order: their orders are compared with each other only.
# ```

# %% tags=["remove-input"]
check = truth.truth_check(study)
glue_table("tbl-designs-orders", report.orders_table(study, check), left=["set", "dataset", "design", report.ORDER],
           wrap=["set"])
if check is None:
    show_text(claims.NO_TRUTH.format(dataset=ratings.name))
else:
    for which, found_here in truth.readings(check).items():
        show_text(" ".join([claims.TRUTH.format(among=claims.AMONG[which], **found_here),
                            claims.SWAP.format(**found_here) if found_here["a"] else ""]))
    best, best_measured = float(check.true.max()), float(check.measured.to_numpy().max())
    show_text(claims.SCALE.format(best=best, ratio=best / best_measured) if best_measured > 0 else "")

# %% [markdown]
# The next chapter, {doc}`03_sparsity_bias`, works out how much of what users would
# like an offline test set leaves unjudged, and what that does to measured precision.
#
# ## What this means for designing an offline evaluation
#
# - **Report the design, not just the metric.** "P@10" names a family of numbers: AR or
#   1R, AI or TI, AN or NN with some $|N_u|$. Values from different designs are not
#   comparable, and 1R precision cannot exceed $1/n$.
# - **AR and 1R are tied, not interchangeable.** The lemma of {eq}`eq-lemma` bounds one
#   by the other; the gap between the bounds is widest when users have many
#   relevant test items compared with the size of their target sets.
# - **Prefer TI candidates.** Items that nobody rated in the test set can never be
#   relevant; including them (AI) adds easy negatives, and the papers find that it
#   leaves more room for the popularity bias (their Section 6).
# - **Say how metrics are averaged and normalised.** 1R weighs users by their number of
#   relevant test ratings, and MAP under 1R is just MRR.
# - **Test differences on paired units.** Runs of two systems on the same users pair
#   naturally, and a user's many runs are one unit, not many; on this page
#   {glue:text}`pairs_significant_papers` pairs of the papers' set and
#   {glue:text}`pairs_significant_top_n` of today's top-N set (over all designs and
#   datasets) differ at the 0.001 level under a Wilcoxon signed-rank test over users.
#   Report the test, since the closest pairs are the ones whose order is fragile.
# - **Say what the systems learn.** A rating predictor and a top-N learner with the
#   same name, MF or kNN, are different systems under an offline ranking test; the
#   two sets of this page show how far apart they land.
# - **Expect absolute values to mean little.** Precision moves with the design and the
#   dataset, as the spread of the same system across this page's settings shows, and
#   on a simulated world the section above sets it against what the systems achieve on
#   the complete truth. Comparisons within one design carry the information, and even
#   those are exposed to the biases of the next chapters.
#
# ## Try it
#
# - Another dataset: `make book CHAPTERS=2 DATASET=ml-latest-small`, or `DATASET=lastfm-2k`
#   (its large artist catalogue pushes the AR designs to NN sampling, see `max_an_entries`).
# - The papers' number of splits and target set size are the defaults; fewer splits make
#   the page faster:
#   `.venv/bin/python -m recbias.bookkit --chapters 2 --dataset ml-100k -p folds 2`.
# - Cremonesi's larger 1R target sets: `-p target_size 1001`.
# - A smaller Last.fm sample of non-relevant items: `-p second_nonrelevant 1000`, or skip
#   the second dataset with `-p second_dataset ""`.
# - Another seed changes the simulated world, the splits and every sample:
#   `make book CHAPTERS=2 SEED=7`.

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
# # The popularity bias
#
# Recommending the items with the most ratings to everybody is a strong baseline in
# almost every offline comparison, often close to the best personalised system and
# sometimes ahead of it. Part of that strength is real: widely liked items are a safe
# bet. Part of it is manufactured by the evaluation, because the items with many
# ratings also hold most of the held-out ratings that serve as ground truth. This
# chapter separates the two, following Section 5 of {cite:t}`bellogin2017statistical`
# and Section 4.5 of {cite:t}`bellogin2012thesis`. It derives why ranking by
# popularity is the best a non-personalised system can do on a random split, checks the derivation
# against other orderings, reproduces the simulation in which the skew of popularity
# is turned up from nothing to extreme, and then uses simulated worlds that know every
# user's taste to measure how much of popularity's offline score survives on the
# complete truth.

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
folds = 5  # coin-flip splits of the comparison of orderings (the papers: 5), int in [1, 20]
test_ratio = 0.2  # share of ratings held out in each split (the papers: 0.2), float in (0, 1)
target_size = 100  # |T_u^r| of the 1R design: the held-out item and target_size - 1 sampled ones (the papers: 100), int in [11, 1000]
sweep_alphas = "0, 1, 2"  # popularity skews of the simulated worlds, comma-separated, each in [0, 2] (0 is always run); the papers' full sweep: "0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2"
sweep_preset = "synthetic-ml1m"  # shape of the worlds of the sweep (the papers: MovieLens 1M), one of synthetic-ml1m, synthetic, synthetic-small
grid_alphas = "1, 2"  # popularity skews of the measured-vs-true grid, comma-separated, each in [0, 2]
grid_selections = "0, 1.5, 3"  # observation-bias strengths of the grid, comma-separated, each in [0, 5]
grid_preset = "synthetic"  # shape of the worlds of the grid, one of synthetic, synthetic-small

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
from recbias.bookkit.claims import register
from recbias.bookkit.page import say, say_findings
from recbias.bookkit.parameters import number_list
from recbias.bookkit.plotting import dataset_caption, palette
from recbias.bookkit.scorecard import FINDING, findings_table
from recbias.bookkit.tables import glue_figure, glue_table
from recbias.chapters.c04_popularity_bias import claims, figures, report, study

alphas = number_list(sweep_alphas, "sweep_alphas", 0, 2)
grid = (number_list(grid_alphas, "grid_alphas", 0, 2), number_list(grid_selections, "grid_selections", 0, 5))
orderings = study.ordering_study(ratings, folds=folds, test_ratio=test_ratio, target_size=target_size, seed=seed)
found = register(claims.ORDERINGS, claims.orderings_values(orderings), dataset=ratings.name)
colours = palette([*orderings.summary()["system"].unique(), *study.sweep_systems()])

# %% [markdown]
# ## Why popularity wins
#
# Write $R(i)$ for the ratings of item $i$ and $PR(i) \subseteq R(i)$ for its positive
# ones, $\sigma$ for the test ratio of a random split (each rating goes to the test set
# with probability $\sigma$), $\mathcal{C}$ for the candidate items, $\mathcal{U}$ for
# the users and $T_u$ for the target set of user $u$, of harmonic mean size $t$. Two
# expectations over the split carry the whole argument:
#
# $$
# \mathbb{E}\,|PR_\text{test}(i)| = \sigma\,|PR(i)|, \qquad
# \mathbb{E}\,|R_\text{train}(i)| = (1-\sigma)\,|R(i)|.
# $$ (eq-popularity-split)
#
# For a system $s$ whose order of items $i_1^s, i_2^s, \dots$ is the same for every user,
# the probability that the $k$-th item of $T_u$ is relevant to $u$ does not depend on $u$
# beyond the average, and the expected precision of the all-relevant (AR) design is the
# one derived in {doc}`03_sparsity_bias` (Eq. 3 of {cite:t}`bellogin2017statistical`):
#
# $$
# \mathbb{E}\left[P_s@n\right]
#   = \frac{\sigma\,|\mathcal{C}|}{n\,t\,|\mathcal{U}|}
#     \sum_{k=1}^{n} \operatorname*{avg}_{u \in \mathcal{U}} |PR(i_k^{u,s})| .
# $$ (eq-popularity-ar)
#
# Only the sum depends on the system, and it is largest when items are taken in
# decreasing order of $|PR(i)|$. A system cannot see $|PR(i)|$, but it sees
# $|R_\text{train}(i)|$, whose expectation is proportional to $|R(i)|$ by
# {eq}`eq-popularity-split`. When every item has the same share of positive ratings,
# $|PR(i)| = \pi\,|R(i)|$, the training popularity ranks items in the order that
# maximises {eq}`eq-popularity-ar`: popularity is the best non-personalised recommender
# in expectation, for statistical reasons alone. Where the share of positive ratings
# varies, counting only positive training ratings estimates $|PR(i)|$ more directly.
#
# The one-relevant (1R) design ranks each held-out positive rating in a target set
# $T_u^r$ of its own, with $|T_u^r| - 1$ sampled items (the papers take $|T_u^r| = 100$;
# this page takes {glue:text}`target-size`, the design {glue:text}`one-relevant-design`).
# Its precision is bounded by AR precision on the union $T_u$ of a user's
# target sets (the lemma of {doc}`02_designs`), and each side can be expanded with
# {eq}`eq-popularity-ar`. With $m_u = n + |PR_\text{test}(u)| - 1$:
#
# $$
# \begin{aligned}
# \mathbb{E}\left[1RP_s@n\right] &\ge \sum_{u} w_u \,
#   \frac{|\mathcal{C}|}{n\,|PR|\,|T_u|} \sum_{k=1}^{n} \mathbb{E}\,|PR(i_k^{u,s})|, \\
# \mathbb{E}\left[1RP_s@n\right] &\le \sum_{u} w_u \,
#   \frac{|\mathcal{C}|}{n\,|PR|\,|T_u|} \sum_{k=1}^{m_u} \mathbb{E}\,|PR(i_k^{u,s})|,
# \end{aligned}
# $$ (eq-popularity-bounds)
#
# where the expectation runs over the random composition of $T_u$. With equal target
# sizes $t$ the weights $w_u$ drop out and these are the bounds of the paper
# (Section 5.1). Sizes here grow with $|PR_\text{test}(u)|$, so we weight each user by her
# own share of the relevant items, $w_u = |PR_\text{test}(u)| / |PR_\text{test}|$, which
# keeps the bounds exact for a random order. The same sum $\sum_k |PR(i_k)|$ appears on
# both sides, so 1R rewards popularity just as AR does.
#
# The bounds treat the order as fixed in advance. Popularity learns its order from the
# training part of the same ratings, and that can be accounted for exactly. Condition on
# the complete ratings. The held-out item of a 1R run is item $i$ with probability
# $|PR(i)|/|PR|$, and since one of its ratings is known to be in the test set, its
# training count is $T_i^\ast \sim \mathrm{Bin}(|R(i)| - 1,\, 1-\sigma)$. A sampled item $j$
# keeps $T_j \sim \mathrm{Bin}(|R(j)|,\, 1-\sigma)$ training ratings. If $g(a)$ and $e(a)$
# are the chances that a sampled item has more, or exactly $a$, training ratings, the
# held-out item with $a$ training ratings lands in the top $n$ of its $|T_u^r|$ candidates
# with probability
#
# $$
# \begin{aligned}
# h(a) = \sum_{x=0}^{n-1} \sum_{y=0}^{K - x}
#   &\frac{K!}{x!\, y!\, (K - x - y)!}\,
#   g(a)^x\, e(a)^y\, \big(1 - g(a) - e(a)\big)^{K - x - y} \\
#   &\times \min\!\left(1, \frac{n - x}{y + 1}\right),
#   \qquad K = |T_u^r| - 1,
# \end{aligned}
# $$ (eq-popularity-top)
#
# counting the $x$ rivals ahead of it and breaking its ties with the $y$ equal ones at
# random, so that
#
# $$
# \mathbb{E}\left[1RP_\text{POP}@n\right]
#   = \frac{1}{n} \sum_{i} \frac{|PR(i)|}{|PR|} \sum_{a} \Pr(T_i^\ast = a)\, h(a).
# $$ (eq-popularity-exact)
#
# (`recbias.theory.expected_popularity_precision_1r`; it weights each sampled item by
# the chance that it is a candidate and not among the user's own ratings, and treats the
# sampled items as independent draws.)
#
# ### Popularity against other orderings
#
# We test the derivation on this page's dataset with {glue:text}`folds-text`
# ({glue:text}`test-share` of the ratings held out) and six
# orderings that are the same for every user: popularity (training ratings per item),
# the count of positive training ratings, the mean training rating, the mean shrunk
# towards the global mean by ten pseudo-ratings, random scores, and an oracle that
# orders items by their positive ratings *in the test set*, the best fixed order in
# hindsight. The 1R design draws each user's sampled items once, the lemma's
# assumption, so its bounds can be computed on the very runs that are scored.
# {numref}`fig-popularity-orderings` shows the orderings and {numref}`tbl-popularity-bounds`
# sets each one against its bounds. Two orderings are compared by a paired test of
# their precision, and every finding of this chapter is decided the same way.
# {glue:md}`policy`

# %% tags=["remove-cell"]
for name, text in report.orderings_numbers(orderings).items():
    say(name, text)
figure = figures.orderings_figure(orderings, colours)
dataset_caption(figure.axes[-1], dataset)
glue_figure("fig-popularity-orderings", figure)
glue_table("tbl-popularity-bounds", report.orderings_bounds_table(orderings), left=["ordering"])

# %% [markdown]
# ```{glue:figure} fig-popularity-orderings
# :name: fig-popularity-orderings
#
# Non-personalised orderings: mean P@10 with 95% intervals (users as clusters) in 1R
# (left) and AR (right). Shaded bars: the closed-form bounds {eq}`eq-popularity-bounds`;
# star: the exact expectation {eq}`eq-popularity-exact` for popularity; dotted line:
# random precision $1/|T_u^r|$.
# ```
#
# On {glue:text}`dataset-name` the best ordering learned from the training ratings is
# {glue:text}`best-ordering`, with a 1R precision of {glue:text}`best-ordering-precision`.
# {glue:md}`says-popularity-count-is-the-best-trained-ordering`
# The derivation ranks items by $|PR(i)|$, and counting all ratings stands in for that only
# as far as every item has the same share of positive ratings, which
# {numref}`fig-popularity-ratio` examines; here the count of positive training ratings
# reaches a 1R precision of {glue:text}`positive-1r` against {glue:text}`popularity-1r` for the
# count of all of them (paired test {glue:text}`positive-vs-all-p`).
# {glue:md}`says-popularity-close-to-oracle`
# The held-out item of a run always has a positive test rating, and the oracle knows which
# items have many of them, while the training counts only estimate it.
#
# Ordering by mean rating puts first the items with one or two enthusiastic ratings, and
# they hold almost no test ratings: here that ordering reaches {glue:text}`mean-1r` against
# popularity's {glue:text}`popularity-1r` ({glue:text}`mean-vs-popularity-p`). Shrinking each
# mean towards the global mean by ten pseudo-ratings makes it lean on the number of ratings
# again: the shrunk mean reaches {glue:text}`shrunk-1r` against the raw one's
# {glue:text}`mean-1r` ({glue:text}`shrunk-vs-mean-p`). Random sits at $1/|T_u^r|$, as the
# design fixes it.
#
# ```{glue:figure} tbl-popularity-bounds
# :name: tbl-popularity-bounds
#
# Measured 1R precision of each ordering (its 95% interval below) next to the closed-form
# bounds {eq}`eq-popularity-bounds`, where the interval lies against them (inside, above or
# below) and, for popularity and random, the exact expectation;
# then the lemma's bounds measured on the target sets of the first split, around the 1R
# precision of that split (ties broken by item code, as the lemma requires).
# ```
#
# For popularity the closed-form bounds {eq}`eq-popularity-bounds` run from
# {glue:text}`bounds-lower` to {glue:text}`bounds-upper`, and its measured 1R precision is
# {glue:text}`popularity-1r`; the exact expectation {eq}`eq-popularity-exact` gives
# {glue:text}`bounds-expected`. The 95% interval of the measured precision meets its
# closed-form bounds for {glue:text}`bounds-met` of the {glue:text}`orderings` orderings
# (the column "interval against them"). An interval may lie above its bounds: the bounds
# take the order of items as given, while these orders are learned from ratings of the same
# users (or read from the test set), so that an item ranked high tends to hold more of the
# held-out ratings than its $|PR(i)|$ alone predicts. It may also lie below them: the closed
# form treats each target set as a random subset of the candidates, while a real one always
# holds the user's relevant items and excludes her training items. The lemma's own bounds,
# computed on the target sets themselves, hold for {glue:text}`lemma-held` of the
# {glue:text}`orderings` orderings on the first split; a lemma admits no exception, so an
# ordering outside them would point to a fault in the design's shared non-relevant items.

# %% tags=["remove-cell"]
sweep = study.skew_sweep(alphas, seed=seed, preset=sweep_preset, test_ratio=test_ratio, target_size=target_size)
found += register([*claims.PUBLISHED, *claims.SWEEP], claims.sweep_values(sweep), dataset=sweep.dataset)
for name, text in {**report.sweep_numbers(sweep, ratings), **report.uniform_numbers(sweep)}.items():
    say(name, text)
glue_table("tbl-popularity-worlds", report.worlds_table(sweep))
glue_table("tbl-popularity-sweep", report.sweep_table(sweep), left=["α"])
glue_table("tbl-popularity-metrics", report.metrics_table(sweep), left=["metric"])
glue_table("tbl-popularity-uniform", report.uniform_table(sweep), left=["item counts"])
for name, draw, stamped in (("fig-popularity-sweep", figures.sweep_figure, -1),
                            ("fig-popularity-sweep-check", figures.sweep_check_figure, 0)):
    figure = draw(sweep, colours)
    dataset_caption(figure.axes[stamped], sweep.label)
    glue_figure(name, figure)

# %% [markdown]
# ## Skewness drives the bias
#
# If popularity wins through {eq}`eq-popularity-split`, its advantage should depend on
# how unequal the items' shares of ratings are, and on nothing else. The papers test
# this on artificial data with no preferences at all. Every world has
# {glue:text}`sweep-users` users, {glue:text}`sweep-items` items and
# {glue:text}`sweep-ratings` ratings (MovieLens 1M, the papers' shape, has 6,040, 3,706 and
# 1,000,209), and the item of popularity rank $k$ receives exactly
#
# $$
# |R(i_k)| = c_1 + \beta\,(c_2 + k)^{-\alpha}
# $$ (eq-popularity-law)
#
# ratings (rounded so that they add up to the total), with $\beta$ solving that
# constraint. The papers fit $c_1$ and $c_2$ to MovieLens 1M, whose ratings this build does
# not have; we keep $c_1 = 0$, so that $\alpha$ can reach 2 without negative counts, and
# $c_2$ at 8% of the items, the generator's fit to MovieLens 100K
# ({numref}`tbl-popularity-sweep-settings` lists every difference from the papers' set-up). The raters of each item are drawn in proportion
# to a long-tailed activity per user, and every rating value is drawn from a fixed
# histogram (MovieLens 1M's for that shape) independently of user and item
# (`recbias.synthetic.PREFERENCE_FREE`). Nothing in these data rewards recommending one
# item rather than another. $\alpha = 0$ gives every item the same number of ratings,
# and the larger $\alpha$, the more the head dominates; fitted with the same $c_1$ and
# $c_2$, the ratings of {glue:text}`dataset-name` give $\alpha$ = {glue:text}`alpha-here`.
# Each world is split once and the papers' five systems are fitted: random, popularity,
# pLSA, and an MF and a user-kNN that predict rating values and rank items by the
# prediction (rating-MF and rating-kNN, {cite:t}`bellogin2017statistical`, Sec. 3.3).
# Beside them, labelled "top-N", run the MF and user-kNN of today's top-N practice, which
# learn from which items a user rated. Precision at 10 is measured in 1R and in AR, the latter with
# {glue:text}`sweep-nonrelevant` sampled non-relevant items per user
# ({glue:text}`sweep-ar-design`, the AR set-up of Section 6.3 of
# {cite:t}`bellogin2017statistical`, a fraction of the cost of ranking every item); the
# mean rating is added as the one ordering that reads rating values only. To keep the
# build short this page runs {glue:text}`sweep-count` values of $\alpha$
# ({glue:text}`sweep-alphas`); the parameter `sweep_alphas` takes the papers' nine values
# (see {ref}`sec-popularity-try-it`). The papers' rating-predicting kNN ranks each user's
# items through a neighbourhood per item, and on worlds of MovieLens 1M's size that is the
# slowest part of the page: with it, this chapter needs up to 150 seconds on two cores,
# not the 90 of the other pages. {numref}`tbl-popularity-worlds` lists the worlds,
# {numref}`fig-popularity-sweep` and {numref}`tbl-popularity-sweep` give the papers'
# Fig. 5, and {numref}`fig-popularity-sweep-check` adds AR and the exact expectation.
#
# ```{glue:figure} tbl-popularity-worlds
# :name: tbl-popularity-worlds
#
# The simulated worlds: constants of the popularity law {eq}`eq-popularity-law`, the
# ratings of the most and the least rated item, and the share of all ratings held by the
# tenth of items most rated.
# ```
#
# ```{glue:figure} fig-popularity-sweep
# :name: fig-popularity-sweep
#
# Preference-free worlds of growing skew ({cite:t}`bellogin2017statistical`, Fig. 5 left
# and centre). Left: cumulative share of ratings by item popularity rank. Right: 1R P@10
# of the systems against the skew $\alpha$: the papers' set solid, today's top-N learners
# dotted, the mean rating dashed.
# ```
#
# ```{glue:figure} tbl-popularity-sweep
# :name: tbl-popularity-sweep
#
# 1R P@10 of every system in every world of {numref}`fig-popularity-sweep`.
# ```
#
# {glue:md}`says-popularity-grows-with-alpha` At $\alpha$ = {glue:text}`sweep-top` it
# reaches {glue:text}`sweep-lift` times random's 1R precision, and in AR
# {glue:text}`sweep-lift-ar` times random's, although no user prefers any item to another.
# The exact expectation {eq}`eq-popularity-exact` follows popularity's measured precision to
# within {glue:text}`sweep-expectation-gap` at every $\alpha$
# ({numref}`fig-popularity-sweep-check`). The mean rating, the one ordering that reads only
# rating values, ends at $\alpha$ = {glue:text}`sweep-top` with a 1R precision of
# {glue:text}`mean-rating-top` against random's {glue:text}`random-top` (paired test
# {glue:text}`mean-rating-p`): with popularity skewed, the items with extreme means are the
# rarely rated ones, which hold few test ratings, so this ordering cannot gain from the skew
# and may even fall below random. The papers add that recall, nDCG,
# MAP and MRR show the same bias; {numref}`tbl-popularity-metrics` measures them in the
# same 1R runs.
#
# ```{glue:figure} tbl-popularity-metrics
# :name: tbl-popularity-metrics
#
# Popularity / random in the 1R runs of {numref}`fig-popularity-sweep`, on P@10 and the
# other metrics of Sec. 5.2 of {cite:t}`bellogin2017statistical` (MAP and MRR without
# cut-off), with popularity's multiple of random below.
# ```
#
# ```{table} The set-up of the sweep against the papers', and why it differs.
# :name: tbl-popularity-sweep-settings
#
# | setting | papers | here | why it differs |
# |---|---|---|---|
# | users, items, ratings | 6,040, 3,706, 1,000,209 (MovieLens 1M) | {glue:text}`sweep-users`, {glue:text}`sweep-items`, {glue:text}`sweep-ratings` | the preset chosen with `sweep_preset` ("{glue:text}`sweep-preset`") |
# | $c_1$, $c_2$ of the law | fitted to MovieLens 1M | $c_1$ = {glue:text}`sweep-c1`, $c_2$ = {glue:text}`sweep-c2` ({glue:text}`sweep-shift` of the items) | MovieLens 1M's ratings are not available to this build; $c_2$ is the generator's fit to MovieLens 100K with $c_1$ held at 0, since a free $c_1$ is negative and turns the tail's counts negative at the steeper $\alpha$ |
# | $\alpha$ | 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2 | {glue:text}`sweep-alphas` | time: each world of this size takes tens of seconds to fit and score; `sweep_alphas` takes the nine |
# | splits | 5 random 80/20 splits | 1 random {glue:text}`sweep-train-share`/{glue:text}`test-share` split per world | time; one split per world already separates the systems from random at every $\alpha$ shown |
# | 1R target set $\lvert T_u^r \rvert$ | 100 | {glue:text}`target-size` | the `target_size` parameter |
# | MF and kNN | rating predictors ({cite:t}`koren2009matrix`; {cite:t}`cremonesi2010performance`) | rating-MF and rating-kNN; today's top-N MF and user-kNN shown beside them, labelled, in 1R only | the top-N learners are not the papers' and are left out of AR for time |
# | metrics | P@10 shown; recall, nDCG, MAP, MRR said to agree | P@10, Recall@10, nDCG@10, AP, RR | |
# ```
#
# ```{glue:figure} fig-popularity-sweep-check
# :name: fig-popularity-sweep-check
#
# The same worlds in the AR design described above (left, colours as in
# {numref}`fig-popularity-sweep`), and popularity's measured 1R precision with its 95%
# interval against the exact expectation {eq}`eq-popularity-exact` (right); the hollow
# point is a world at $\alpha = 0$ whose item counts are fixed only in expectation.
# ```
#
# pLSA models the probability that a user rates an item, which in these data depends on
# the item's popularity and nothing else, so it can only learn popularity.
# {glue:md}`says-plsa-follows-popularity` {glue:md}`says-knn-mf-near-random` A rating
# predictor reads rating values, and in these worlds the values carry no signal. It can
# even fall below random, for the reason the mean rating does: the items rated by many get
# predictions close to the global mean, so the extreme predictions, high ones included, go
# to rarely rated items, which hold few test ratings ({doc}`02_designs` counts, in
# {ref}`its section on support <sec-designs-support>`, the training ratings of the items the
# papers' kNN recommends on real data). Today's top-N learners are another matter. The
# top-N user-kNN adds up its neighbours' ratings and the top-N MF fits which pairs are rated
# (implicit alternating least squares), so their scores grow with an item's number of ratings
# whatever the rating values. Here, at $\alpha$ = {glue:text}`sweep-top`,
# the top-N MF reaches {glue:text}`mf-top` and the top-N user-kNN {glue:text}`user-knn-top`,
# against random's {glue:text}`random-top` (paired tests against random:
# {glue:text}`mf-p` and {glue:text}`user-knn-p`). A system that learns from which items are
# rated can thus inherit the popularity bias even when no user prefers anything.
#
# ### Below random when every item is equally popular
#
# At $\alpha = 0$ the papers measure popularity slightly *below* random. The expectation
# {eq}`eq-popularity-exact` explains why, and the two binomial laws in it give the size
# of the effect. Runs pick items in proportion to their ratings, so if item counts have
# mean $\mu$ and variance $V$ over items, the held-out item keeps on average
#
# $$
# \begin{aligned}
# \mathbb{E}\,T^\ast - \mathbb{E}\,T
#   &= (1-\sigma)\left(\frac{\mathbb{E}\,|R|^2}{\mu} - 1\right) - (1-\sigma)\,\mu \\
#   &= (1-\sigma)\left(\frac{V}{\mu} - 1\right)
# \end{aligned}
# $$ (eq-popularity-shift)
#
# training ratings more than a sampled item (`recbias.theory.relevant_training_shift`).
# With exactly equal counts, $V = 0$: the held-out item has lost one rating to the test
# set, $1-\sigma$ of a rating on average, which is all that ranking by training
# popularity can see, and it pushes the held-out item down. When counts vary
# like a Poisson law ($V = \mu$) the two effects cancel and popularity is random; the
# more they vary, the more the training count reveals the total and the further
# popularity rises above random, which is the sweep above. {numref}`tbl-popularity-uniform`
# sets our two worlds at $\alpha = 0$ against the papers' numbers.
#
# ```{glue:figure} tbl-popularity-uniform
# :name: tbl-popularity-uniform
#
# 1R P@10 at $\alpha = 0$: the papers' values, and ours for item counts fixed exactly (the
# papers' set-up) and only in expectation. $V/\mu$: variance of the item counts over their
# mean; shift: {eq}`eq-popularity-shift`, the held-out item's training count minus a
# sampled item's; popularity with its 95% interval below; closed form: popularity's exact
# expectation {eq}`eq-popularity-exact`; $p$: paired test of popularity against random.
# ```
#
# {glue:md}`says-popularity-below-random-at-uniform` The papers report
# {glue:text}`paper-popularity` against our {glue:text}`uniform-popularity`. The two agree
# within sampling noise when they differ by at most {glue:text}`paper-tolerance`, about three
# standard errors of their difference; the scorecard makes that comparison when the worlds
# have MovieLens 1M's shape, as the papers' did, and sets it aside on worlds of another
# shape. The closed form {eq}`eq-popularity-exact` predicts {glue:text}`uniform-closed-form`
# from the ratings alone. When item counts are fixed only in
# expectation, their variance is {glue:text}`loose-variance` times their mean, close to a
# Poisson law's, and the held-out item loses most of its handicap {eq}`eq-popularity-shift`:
# its training count lies {glue:text}`loose-shift` ratings below a sampled item's instead of
# {glue:text}`exact-shift`, and popularity measures {glue:text}`loose-popularity` against
# random's {glue:text}`loose-random` (paired test {glue:text}`loose-p`). By
# {eq}`eq-popularity-shift`, the papers' result rests on a detail of their simulation, which
# fixes each item's number of ratings exactly, as our reproduction does; the default
# generator of `recbias.synthetic` fixes it only in expectation.

# %% tags=["remove-cell"]
curves = study.positive_ratio_curves(study.real_datasets(ratings))
ratio = claims.ratio_values(curves)
found += register(claims.RATIO, ratio, dataset=ratio["movielens"])
for name, text in report.ratio_numbers(curves, ratings.name).items():
    say(name, text)
figure = figures.ratio_figure(curves, palette(list(curves["dataset"].unique())), ratings.name)
dataset_caption(figure.axes[0], ", ".join(curves["dataset"].unique()))
glue_figure("fig-popularity-ratio", figure)
glue_table("tbl-popularity-ratio", report.ratio_table(curves, ratings.name), left=["dataset", "trend"])

# %% [markdown]
# ## Do popular items have more positive ratings?
#
# Popularity counts all ratings while the derivation ranks by positive ones; the two
# orders agree only if the share of positive ratings, $|PR(i)|/|R(i)|$, is the same for
# popular and rare items. {numref}`fig-popularity-ratio` plots that share along the
# popularity ranking, averaged over 100 segments of items, for every real dataset this
# build could load ({cite:t}`bellogin2017statistical`, Fig. 7), and
# {numref}`tbl-popularity-ratio` compares its two ends.
#
# ```{glue:figure} fig-popularity-ratio
# :name: fig-popularity-ratio
#
# Share of positive ratings against item popularity rank, most rated items on the left,
# averaged over 100 popularity segments; the page's dataset is drawn thicker.
# ```
#
# ```{glue:figure} tbl-popularity-ratio
# :name: tbl-popularity-ratio
#
# The share of positive ratings on the least and the most popular tenth of items, and
# Spearman's rank correlation between popularity rank and share over the 100 segments
# (negative when the share grows with popularity) with its $p$; a trend is named when
# $p$ < {glue:text}`level`.
# ```
#
# Read from right to left, the share of positive ratings can grow with popularity, fall, or
# show no clear trend; the last column of {numref}`tbl-popularity-ratio` names the trend on
# each dataset. On {glue:text}`dataset-name` it
# goes from {glue:text}`ratio-tail` on the least popular tenth of items to
# {glue:text}`ratio-head` on the most popular tenth.
#
# Where the ratio rises with popularity, popular items are not only rated more often
# but liked more often when rated, and that gives popularity an edge that survives any
# split which equalises the number of test ratings per item. Where nearly every rating
# is positive, as in the HetRec Last.fm listening data, the edge must come from the
# number of ratings alone. {doc}`05_neutralising_designs` builds designs on
# this distinction.

# %% tags=["remove-cell"]
truth = study.observation_grid(*grid, preset=grid_preset, seed=seed, test_ratio=test_ratio, target_size=target_size)
found += register(claims.GRID, claims.grid_values(truth), dataset=claims.GRID_DATASET)
for name, text in {**report.grid_numbers(truth.precision), "grid-preset": grid_preset}.items():
    say(name, text)
figure = figures.truth_figure(truth.precision)
dataset_caption(figure.axes[0], f"simulated, {grid_preset}")
glue_figure("fig-popularity-truth", figure)
glue_table("tbl-popularity-truth", report.grid_table(truth.precision))

# %% [markdown]
# ## How much of the score is real?
#
# The papers could not say how good popularity truly is, only how the metrics treat
# it. A simulated world can, because it knows whether each user likes each item. Here
# the worlds have preferences (tastes, item quality, user generosity; see
# {doc}`01_cranfield`), and two knobs are turned: the skew $\alpha$ of item popularity,
# and the strength of the observation bias, how much more likely a user is to rate an
# item she likes (`selection` in `recbias.synthetic`; 0 means that which items get
# rated depends on popularity and activity alone). For each of
# {glue:text}`grid-worlds` worlds of the {glue:text}`grid-preset` preset we split the
# observed ratings once, fit popularity and user-kNN, and measure P@10 three ways: 1R and
# AR on the held-out ratings, and the true precision over all items the user has not
# rated, judged on the complete relevance ({numref}`fig-popularity-truth`,
# {numref}`tbl-popularity-truth`).
#
# ```{glue:figure} fig-popularity-truth
# :name: fig-popularity-truth
#
# Left: popularity's P@10 over random's (log scale), measured in 1R and AR and on the
# complete truth, as the observation bias grows; line style marks the skew $\alpha$.
# Right: popularity's P@10 as a share of user-kNN's, measured and true.
# ```
#
# ```{glue:figure} tbl-popularity-truth
# :name: tbl-popularity-truth
#
# The worlds of {numref}`fig-popularity-truth`: popularity's P@10 over random's and as a
# share of user-kNN's, measured in 1R and AR and on the complete truth.
# ```
#
# Across the grid, popularity measures {glue:text}`grid-lift-1r` times random's precision
# in 1R and {glue:text}`grid-lift-ar` times in AR, but {glue:text}`grid-lift-true` times
# on the complete truth. {glue:md}`says-one-relevant-overstates-popularity` At the
# strongest observation bias ($\alpha$ = {glue:text}`grid-strongest-alpha`, strength
# {glue:text}`grid-strongest-selection`) popularity scores {glue:text}`grid-share-1r` of
# user-kNN's 1R precision against {glue:text}`grid-share-true` of its true precision. Over
# the grid, popularity's share of user-kNN's precision measured in 1R lies on average
# {glue:text}`grid-gap-1r` from the true share, and measured in AR
# {glue:text}`grid-gap-ar` (mean absolute gaps).
#
# Two mechanisms separate the measurement from the truth. When users rate what they
# like, the items a user has rated are those she likes, so the held-out ratings are
# spread over the items that each user picked, and the most rated items collect many of
# them whether or not most users would like them. And the 1R design asks only whether
# one held-out item beats the sampled items of its target set, most of them obscure, which popular
# items do easily. Neither can be undone by looking at the observed ratings alone: only
# a truth the evaluation never sees, here the simulated one, tells how much of the
# score is real.

# %% tags=["remove-cell"]
mainstream = study.mainstream_study(ratings, seed=seed, test_ratio=test_ratio)
found += register(claims.MAINSTREAM, claims.mainstream_values(mainstream), dataset=ratings.name)
numbers = report.mainstream_numbers(mainstream)
for name, text in numbers.items():
    say(name, text)
say("mainstream-true", claims.TRUE_PRECISION[ratings.true_relevance is not None].format(**numbers))
figure = figures.mainstream_figure(mainstream, colours)
dataset_caption(figure.axes[-1], dataset)
glue_figure("fig-popularity-mainstream", figure)

# %% [markdown]
# ## Serving the majority
#
# The papers' intuition for the bias is that a mean over users rewards whatever
# satisfies most of them, however badly it serves the rest. We measure it per user. A
# user's *agreement with the crowd* is the correlation, over her training ratings,
# between her rating of an item and the mean rating the other users gave it; users with
# a relevant test item are cut into five groups of equal size by it, and
# {numref}`fig-popularity-mainstream` shows each group's mean AR precision under
# popularity and user-kNN on the first split (and, on a simulated world, the true
# precision).
#
# ```{glue:figure} fig-popularity-mainstream
# :name: fig-popularity-mainstream
#
# Per-user P@10 of popularity and user-kNN by fifths of users ordered by agreement with
# the crowd (left: least), with 95% intervals over the users of each group.
# ```
#
# On {glue:text}`dataset-name`, from the fifth of users whose ratings follow the crowd
# least to the fifth who follow it most, popularity's AR precision goes from
# {glue:text}`popularity-first` to {glue:text}`popularity-last`, and user-kNN's from
# {glue:text}`personalised-first` to {glue:text}`personalised-last` (means with their 95%
# intervals). {glue:md}`says-popularity-serves-the-mainstream` Popularity beats user-kNN for
# {glue:text}`wins-first` of the least mainstream users and {glue:text}`wins-last` of the most
# mainstream. {glue:text}`mainstream-true`

# %% tags=["remove-cell"]
say_findings(found)
glue_table("tbl-popularity-findings", findings_table([c for c in found if c.kind == FINDING], where=True),
           wrap=True, left=["statement", "evidence", "checked on"])

# %% [markdown]
# ## The claims, checked
#
# {numref}`tbl-popularity-findings` lists the statements of the papers that this chapter
# checks, and two of its own, each with its verdict on this build and the numbers behind
# it; the reproduction scorecard collects them with the other chapters' claims, and with
# the papers' numbers at $\alpha = 0$ of {numref}`tbl-popularity-uniform`. The statements
# about kNN and MF are checked on the papers' rating predictors.
#
# ```{glue:figure} tbl-popularity-findings
# :name: tbl-popularity-findings
#
# The statements of {cite:t}`bellogin2017statistical`, Section 5, and two of this
# chapter's own, checked on this build, with the evidence and the data each was checked on.
# ```
#
# ## What this means for designing an offline evaluation
#
# When a popularity baseline scores well, ask first how much of that the data and the
# design hand it.
#
# - **Check the skew before reading the baseline.** On a random split, popularity's
#   precision is set by how unequal the items' shares of ratings are
#   ({numref}`fig-popularity-sweep`). Report the cumulative share curve or the fitted
#   exponent (`recbias.synthetic.fit_popularity_curve`) with the results; a popularity
#   score several times random on a steeply skewed dataset says more about the data
#   than about users.
# - **Compare with the non-personalised ceiling, not only with random.** Among orders
#   that are the same for every user, counting ratings comes close to the best fixed
#   order in hindsight (popularity reaches {glue:text}`oracle-share` of it here,
#   {numref}`fig-popularity-orderings`). A personalised system that barely beats
#   popularity has learned little beyond the counts.
# - **Distrust systems that learn from which items are rated.** Such a system can climb
#   with the skew on data without any preference ({numref}`fig-popularity-sweep` shows how
#   far today's top-N learners climb on this build), so matching popularity offline is no
#   evidence of personalisation.
# - **Prefer designs that do not hand popularity the win.** The offline ratio of
#   popularity to a personalised system can be far from the true one
#   ({numref}`fig-popularity-truth`); designs that equalise test ratings per item
#   ({doc}`05_neutralising_designs`) remove the part that comes from counts alone.
# - **Look at users, not only means.** A mean over users hides whom a system serves; a
#   breakdown by how closely users follow the crowd ({numref}`fig-popularity-mainstream`)
#   shows where popularity earns its score.
#
# (sec-popularity-try-it)=
# ## Try it
#
# - Rebuild the chapter on another dataset: `make book CHAPTERS=4 DATASET=ml-100k`, or
#   your own ratings with `DATASET=csv:PATH`.
# - Run the papers' full sweep of Fig. 5:
#   `.venv/bin/python -m recbias.bookkit --chapters 4 -p sweep_alphas "0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2"`.
# - Widen the measured-vs-true grid, e.g. `-p grid_selections "0, 1, 2, 3, 4"`.
# - Compute the expected 1R precision of popularity for your data without fitting
#   anything: `recbias.theory.expected_popularity_precision_1r(ratings, 0.2, 100)`.

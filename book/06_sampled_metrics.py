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
# # Sampled metrics and their corrections
#
# Ranking every item of a catalogue for every test user is the honest way to compute
# a top-heavy metric, and for a large catalogue it is also the expensive way. A popular
# shortcut ranks the held-out item against a small random sample of items instead,
# typically 100, and reports the metric of that short list. This chapter asks whether
# the shortcut measures the same thing. Following {cite:t}`krichene2020sampled`, it
# shows that it does not: a sampled metric is a different metric, it can order
# recommenders differently from its exact version even with infinitely many
# repetitions, and as the sample shrinks every metric turns into AUC. It then builds
# the corrections proposed in that paper, measures how much they repair, repeats the
# paper's experiment with its own three recommenders on the dataset of this build, and
# shows, with the papers' systems of {cite:t}`bellogin2017statistical`, that the
# one-relevant-item (1R) design of {doc}`02_designs` is itself a sampled metric.

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
m = 100  # sampled irrelevant items per held-out item in the real-data experiment (paper: 100), int in [1, 100000]
repetitions = 100  # repetitions of the sampling behind Tables 3-4 (paper: 100), int in [2, 10000]
toy_repetitions = 1000  # repetitions of the sampling of the toy example, Table 2 (paper: 1,000), int in [2, 100000]
with_replacement = False  # draw the sample with replacement (binomial law) instead of without (hypergeometric)
n_tolerance = 0.05  # users whose catalogue sizes differ by less than this factor share one correction vector, float in [0, 1]
fig6_max_m = 400  # largest sample size for the corrected curve of the m sweep (the uncorrected one goes to the end), int in [1, 100000]

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
from recbias.bookkit.claims import register
from recbias.bookkit.page import say, say_findings
from recbias.bookkit.plotting import dataset_caption, palette
from recbias.bookkit.scorecard import findings_table
from recbias.bookkit.tables import glue_figure, glue_table
from recbias.text import fmt_signed
from recbias.chapters.c06_sampled_metrics import claims, figures, report
from recbias.chapters.c06_sampled_metrics.study import bridge as sb, cost as sc, real_data as sv, sweep as sw, toy as st

toy = st.toy_study(toy_repetitions, seed)
say("toy_repetitions", f"{toy_repetitions:,}")

# %% [markdown]
# ## Metrics as functions of one rank
#
# Take one evaluation instance (a user, say) with a single relevant item, and let
# $r \in \{1, \dots, n\}$ be the position a recommender gives it in a ranking of $n$
# items. Every common ranking metric is then a function of $r$ alone
# {cite:p}`krichene2020sampled`:
#
# $$
# \begin{aligned}
# \mathrm{AUC}_n(r) &= \frac{n - r}{n - 1}, \\
# \mathrm{Recall@}k(r) &= \mathbb{1}[r \le k], \\
# \mathrm{AP}(r) &= \frac{1}{r}, \\
# \mathrm{nDCG}(r) &= \frac{1}{\log_2(r + 1)} .
# \end{aligned}
# $$ (eq-sm-metrics)
#
# With one relevant item, the hit rate is Recall, the reciprocal rank is AP, and
# $\mathrm{P@}k = \mathrm{Recall@}k / k$. A truncated metric such as nDCG@10 is the
# same function set to zero beyond rank $k$. These are the metrics of the package's
# grammar (`P@10`, `Recall@10`, `nDCG@10`, `AP`, `AUC`) read on runs with one
# relevant item, and the package checks that the two readings agree. The score of a
# recommender $A$ on a set of instances $D$ is the average
#
# $$
# \overline{M}(A) = \frac{1}{|D|} \sum_{x \in D} M\big(r(A, x)\big).
# $$ (eq-sm-average)
#
# {numref}`fig-sm-metrics` draws the four functions for $n = 10{,}000$. AUC falls
# linearly: moving the relevant item from rank 5,001 to 5,000 earns as much as moving
# it from 2 to 1. The other three spend nearly all their weight on the first few dozen
# positions, which is why they are chosen when only the top of a list is seen.
#
# ```{glue:figure} fig-sm-metrics
# :name: fig-sm-metrics
#
# The four metrics of {eq}`eq-sm-metrics` as functions of the rank of the relevant item among 10,000 items: over all ranks (left) and over the top 100 (right).
# ```

# %% tags=["remove-input"]
fig = figures.metric_shapes()
dataset_caption(fig.axes[-1], claims.TOY_DATASET)
glue_figure("fig-sm-metrics", fig)
glue_table("tbl-sm-table1", report.table1(toy), "{:.3f}", index=True)

# %% [markdown]
# ### A toy example
#
# {cite:t}`krichene2020sampled` illustrate what follows with three recommenders
# evaluated on five instances each, in a catalogue of $n = 10{,}000$ items. A places
# the relevant item at rank 100 every time; B places it at rank 40 twice and very low
# three times (ranks 8,437, 9,266 and 4,482); C scores one near-perfect rank (2) and
# mediocre ranks otherwise (212, 743, 5,342 and 1,548). {numref}`tbl-sm-table1` gives
# the exact metrics of {eq}`eq-sm-average`, computed by the package, with the published
# values of their Table 1 alongside. On AUC, A is best; on the top-heavy metrics, C is
# best and A and B tie on AP.
#
# ```{glue:figure} tbl-sm-table1
# :name: tbl-sm-table1
#
# Exact metrics of the toy recommenders ($n = 10{,}000$, AP and nDCG untruncated): ours and the published Table 1.
# ```
#
# ## Sampling the irrelevant items
#
# A sampled evaluation draws $m$ items from the $n - 1$ irrelevant ones, ranks the
# relevant item among these $m + 1$ items only, and applies the metric to that short
# list. If the relevant item has true rank $r$, each irrelevant item lies above it with
# probability $(r - 1)/(n - 1)$, so its sampled rank $\tilde r$ is one plus a count of
# successes, binomial when the sample is drawn with replacement (first line) and
# hypergeometric when it is drawn without (second line):
#
# $$
# \begin{aligned}
# \tilde r - 1 &\sim \mathrm{Binomial}\!\left(m,\; \tfrac{r - 1}{n - 1}\right), \\
# \tilde r - 1 &\sim \mathrm{Hypergeometric}(n - 1,\; r - 1,\; m).
# \end{aligned}
# $$ (eq-sm-law)
#
# The sampled metric is $M(\tilde r)$ computed on the list of $m + 1$ items, and its
# expectation for a given true rank is
#
# $$
# \mathbb{E}\big[M(\tilde r) \mid r\big] = \sum_{j=1}^{m+1} p(\tilde r = j \mid r)\, M(j).
# $$ (eq-sm-expected)
#
# Both laws have $\mathbb{E}[\tilde r] = 1 + m (r - 1)/(n - 1)$, and AUC is linear in
# the rank, so the sampled AUC on $m + 1$ items is an unbiased estimate of the exact
# AUC: $\mathbb{E}[\mathrm{AUC}_{m+1}(\tilde r)] = \mathrm{AUC}_n(r)$. No other metric
# of {eq}`eq-sm-metrics` is linear, and none of them enjoys this.
#
# The paper repeated the sampling of its toy example with $m = 99$ a thousand times.
# We repeat it {glue:text}`toy_repetitions` times (binomial law, as in the paper's
# analysis) and report in {numref}`tbl-sm-table2` the mean and standard deviation of
# the five-instance average, next to the exact expectation and standard deviation of
# that average from {eq}`eq-sm-expected`, and next to the published Table 2.
#
# ```{glue:figure} tbl-sm-table2
# :name: tbl-sm-table2
#
# Sampled metrics of the toy recommenders ($m = 99$, with replacement), mean ± standard deviation of the five-instance average: simulated, exact expectation, and the published Table 2.
# ```

# %% tags=["remove-cell"]
glue_table("tbl-sm-table2", report.table2(toy))
z_table = report.toy_z_table()
glue_table("tbl-sm-toy-z", z_table, fmt_signed, index=True)
for name, text in report.toy_z_numbers(z_table).items():
    say(name, text)

# %% [markdown]
# The sampled metrics rank the recommenders in a different order from the exact ones:
# C, the best on every top-heavy exact metric, is last on sampled AP, and A, tied with
# B on exact AP, is now far ahead of it. Only AUC keeps its values and its order. These
# are expectations, not noise: the standard deviations are small next to the gaps.
#
# The published means agree with the exact expectations to within a few Monte Carlo
# standard errors ($\mathrm{sd}/\sqrt{1000}$), but not evenly. {numref}`tbl-sm-toy-z`
# expresses each published mean as a $z$-score, (published − expected) / standard
# error, under four readings of the protocol: $m = 99$ or $m = 100$, with or without
# replacement. Under the protocol the paper states ($m = 99$, with replacement) the
# published AP and nDCG of A and B all sit below the expectation, by
# {glue:text}`toy_z_low` to {glue:text}`toy_z_high` standard errors; under $m = 100$
# without replacement the largest offset of any published mean is
# {glue:text}`toy_best_z`. A one-sided pattern of this kind is what a slightly larger
# sample (or sampling without replacement) would produce, though offsets of this size
# in a few of twelve numbers are also within what chance allows. We register the
# stated protocol, with a tolerance of two standard errors, and show the offsets rather
# than pick the reading that fits best.
#
# ```{glue:figure} tbl-sm-toy-z
# :name: tbl-sm-toy-z
#
# Each published Table 2 mean as a $z$-score against our exact expectation, under four readings of the protocol (rows whose published standard deviation is 0 are left out).
# ```
#
# ### How the sample size changes the verdict
#
# {numref}`fig-sm-toy-m` repeats the toy comparison for every sample size from $m = 1$
# to $m = 9{,}999$, using the exact expectation {eq}`eq-sm-expected`; dotted lines are
# the exact metrics, reached at the right edge. AUC does not move. For AP and nDCG the
# order of A, B and C changes more than once as $m$ grows, so the conclusion of a
# sampled study depends on a parameter that has nothing to do with the recommenders.
# Recall@10 is the most sensitive: A's sampled recall stays at one until the sample is
# large enough that ten sampled items are expected to outrank rank 100, which takes
# about a thousand samples out of 10,000, and the three recommenders only settle into
# their exact order close to the full catalogue.
#
# ```{glue:figure} fig-sm-toy-m
# :name: fig-sm-toy-m
#
# Expected sampled metric of the toy recommenders against the sample size $m$ (log scale); dotted lines are the exact metrics.
# ```

# %% tags=["remove-input"]
fig = figures.toy_m_curves(st.toy_m_curves(), toy)
dataset_caption(fig.axes[-1], claims.TOY_DATASET)
glue_figure("fig-sm-toy-m", fig)
fig = figures.toy_shapes(st.toy_shape_curves())
dataset_caption(fig.axes[-1], claims.TOY_DATASET)
glue_figure("fig-sm-shape", fig)
say("p_first_50", f"{st.first_place_chance(50, 100):.2f}")

# %% [markdown]
# Seen from the other side, sampling changes the *shape* of each metric as a function
# of the true rank. {numref}`fig-sm-shape` plots $\mathbb{E}[M(\tilde r) \mid r]$ over
# the top 1,000 true ranks for several sample sizes, with the exact metric in black.
# With $m = 100$, a relevant item at true rank 50 still lands first in the sample with
# probability {glue:text}`p_first_50`, so sampled AP and nDCG decay slowly, and sampled
# Recall@10 stays close to one over the top few hundred ranks. The smaller $m$, the
# straighter every curve: the top-heavy metrics drift towards the linear AUC.
#
# ```{glue:figure} fig-sm-shape
# :name: fig-sm-shape
#
# Expected sampled metric as a function of the true rank (top 1,000 of 10,000) for four sample sizes; black: the exact metric.
# ```
#
# ### One sampled item: every metric becomes AUC
#
# With $m = 1$ the sampled rank is 1 or 2, and it is 1 exactly when the sampled item
# lies below the relevant one, which happens with probability $(n - r)/(n - 1) =
# \mathrm{AUC}_n(r)$. Whatever the metric,
#
# $$
# \mathbb{E}\big[M(\tilde r) \mid r\big] = M(2) + \big(M(1) - M(2)\big)\,\mathrm{AUC}_n(r),
# $$ (eq-sm-m1)
#
# an increasing affine function of AUC whenever $M(1) > M(2)$, so averaged over any set
# of instances it orders recommenders exactly as AUC does. A cutoff metric with
# $k \ge 2$ has $M(1) = M(2)$ and becomes a constant that cannot tell any two
# recommenders apart. {numref}`tbl-sm-m1` checks {eq}`eq-sm-m1` numerically: for each
# metric it fits the expectation, computed by the package for all 10,000 true ranks, as
# an affine function of AUC, and reports the largest residual; it then gives the
# $m = 1$ expectations of the toy recommenders and the order they imply.
#
# ```{glue:figure} tbl-sm-m1
# :name: tbl-sm-m1
#
# With one sampled item: $M(1)$, $M(2)$, the slope of the expectation on AUC and the largest residual of that affine fit, and the expected metric of each toy recommender with the order it implies.
# ```

# %% tags=["remove-cell"]
m1 = st.m1_fits()
glue_table("tbl-sm-m1", report.m1_table(m1), report.M1_FORMATS)
say("m1_residual", f"{m1['largest residual'].max():.1e}")

# %% [markdown]
# The residuals are at the level of floating-point rounding (at most
# {glue:text}`m1_residual`): at $m = 1$, AP, nDCG and AUC carry the same information,
# and Recall@10 carries none.
#
# ## Correcting a sampled metric
#
# A sampled metric is a function from the sampled rank $\tilde r \in \{1, \dots, m+1\}$
# to a number, that is, a vector $\hat M \in \mathbb{R}^{m+1}$. The uncorrected choice
# $\hat M_j = M(j)$ is one vector among many; {cite:t}`krichene2020sampled` look for
# vectors whose expectation tracks the exact metric $M(r)$. Three families:
#
# **Rank estimate.** $(\tilde r - 1)/m$ is an unbiased estimate of $(r - 1)/(n - 1)$
# under both laws {eq}`eq-sm-law`, so the metric is applied to the rescaled rank
#
# $$
# \hat M_{\tilde r} = M\!\left(\left\lfloor 1 + \frac{(n - 1)(\tilde r - 1)}{m} \right\rfloor\right).
# $$ (eq-sm-rank-estimate)
#
# The rank is unbiased, the metric of it is not, because $M$ is not linear.
#
# **Least squares.** Choose $\hat M$ to minimise the squared bias averaged over a prior
# $p(r)$ on true ranks (uniform here, as in the paper):
#
# $$
# \begin{aligned}
# \min_{\hat M \in \mathbb{R}^{m+1}} \;& \sum_{r=1}^{n} p(r)\, \mathrm{bias}(r)^2, \\
# \mathrm{bias}(r) &= \sum_{j=1}^{m+1} p(\tilde r = j \mid r)\, \hat M_j - M(r).
# \end{aligned}
# $$ (eq-sm-minimal-bias)
#
# With $m + 1$ unknowns and $n$ equations, no vector is unbiased for every $r$ when
# $m + 1 < n$. The unconstrained minimiser is badly conditioned: it reaches a small
# bias with huge alternating entries and a huge variance. Constraining $\hat M$ to be
# non-increasing in $\tilde r$ gives the *constrained least squares* (CLS) estimator.
#
# **Bias-variance trade-off.** Add the variance of the estimate, weighted by $\gamma$:
#
# $$
# \begin{aligned}
# \min_{\hat M} \; \sum_{r=1}^{n} p(r) \Big(& \big(\mathbb{E}[\hat M_{\tilde r} \mid r] - M(r)\big)^2 \\
#   &+ \gamma\, \mathrm{Var}[\hat M_{\tilde r} \mid r] \Big).
# \end{aligned}
# $$ (eq-sm-bv)
#
# The variance is the mean squared distance of $\hat M_{\tilde r}$ from $M(r)$ less the
# squared bias, so this is a least-squares problem with two blocks of rows: the bias rows of
# {eq}`eq-sm-minimal-bias`, weighted by $1 - \gamma$, and one row per sampled rank that
# pulls $\hat M_j$ towards the average of $M(r)$ over the true ranks that produce $j$,
# weighted by $\gamma$ and by how often $j$ occurs. At $\gamma = 0$ it is
# {eq}`eq-sm-minimal-bias`; at $\gamma = 1$ only the second block is left, and its
# solution is the posterior mean of the metric given the sampled rank,
#
# $$
# \begin{aligned}
# \hat M_j &= \frac{\sum_r p(r)\, p(\tilde r = j \mid r)\, M(r)}{\sum_r p(r)\, p(\tilde r = j \mid r)} \\
#          &= \mathbb{E}\big[M(r) \mid \tilde r = j\big].
# \end{aligned}
# $$ (eq-sm-posterior)
#
# The package solves the stacked problem with a singular value decomposition rather
# than through its normal equations, which are numerically singular for small
# $\gamma$, and the CLS problem as a bound-constrained least-squares problem on the
# steps $\hat M_{j} - \hat M_{j+1} \ge 0$. Below we write *BV γ* for the solution of
# {eq}`eq-sm-bv`. {numref}`fig-sm-corrections` reproduces the paper's Fig. 4 for AP
# with $n = 10{,}000$ and $m = 100$: on the left the corrected vectors over the
# sampled ranks, on the right their expectation as a function of the true rank,
# against exact AP. The uncorrected vector (not drawn on the left) starts at 1 and is
# 0.5 at $\tilde r = 2$; its expectation is the grey dashed curve on the right.
#
# ```{glue:figure} fig-sm-corrections
# :name: fig-sm-corrections
#
# Corrected AP for $n = 10{,}000$ and $m = 100$ (uniform prior). a) The correction vectors over the sampled ranks (clipped; small $\gamma$ oscillates beyond the window). b) Their expectation by true rank, with the uncorrected sampled AP (dashed) and exact AP (black).
# ```

# %% tags=["remove-input"]
corrections = st.toy_corrections()
fig = figures.corrections(corrections)
dataset_caption(fig.axes[-1], claims.TOY_DATASET)
glue_figure("fig-sm-corrections", fig)
bias_variance = st.bias_variance(corrections)
glue_table("tbl-sm-bv", report.bias_variance_table(bias_variance), report.BV_FORMATS)
minimal_bias = bias_variance.set_index("estimator").loc["BV 0"]
say("mb_largest", f"{minimal_bias['largest |entry|']:.2g}")
say("mb_sd", f"{minimal_bias['RMS sd (one instance)']:.2g}")
glue_table("tbl-sm-toy-corrected", report.toy_corrected_table(toy, corrections), index=True)

# %% [markdown]
# Small $\gamma$ buys expectations that hug exact AP further down the ranks, and pays
# with vectors that oscillate around zero. An oscillating vector is not a defect in
# itself, because only the average over many instances is reported, but its variance
# is real. {numref}`tbl-sm-bv` puts numbers on the trade-off under the uniform prior:
# the root mean squared bias $\big(\sum_r p(r)\, \mathrm{bias}(r)^2\big)^{1/2}$, the
# root mean variance of a single instance, and the largest entry of each vector in
# absolute value.
#
# ```{glue:figure} tbl-sm-bv
# :name: tbl-sm-bv
#
# Bias and variance of each AP estimator over the 10,000 true ranks (uniform prior, $m = 100$): root mean squared bias, root mean standard deviation of one instance, root mean squared error, and the largest entry of the vector.
# ```
#
# The uncorrected metric has by far the largest bias and a modest variance: it is a
# precise measurement of the wrong quantity. The unconstrained minimal-bias vector
# ($\gamma = 0$) has the smallest bias, but its entries reach {glue:text}`mb_largest`
# in absolute value and the standard deviation of a single instance is
# {glue:text}`mb_sd`, for a metric whose values lie in $[0, 1]$; the vector is also
# not unique in floating point (the package returns the minimum-norm solution), so we
# do not draw it. CLS and BV with $\gamma$ between 0.01 and 0.1 sit in between.
#
# Back to the toy example: with $m = 100$, the corrected estimators give the
# expectations of {numref}`tbl-sm-toy-corrected`, computed exactly.
#
# ```{glue:figure} tbl-sm-toy-corrected
# :name: tbl-sm-toy-corrected
#
# Expected corrected AP and Recall@10 of the toy recommenders ($m = 100$, with replacement), ± the standard deviation of the five-instance average.
# ```
#
# The corrections bring the values down to the scale of the exact metrics, but with
# five instances the order is another matter. The rank estimate and CLS still put A
# first on both metrics, BV 0.1 hardly separates the three, and only BV 0.01 puts C
# first, with standard deviations larger than the gaps (and a negative expected
# Recall@10 for A, which an unbiasedness-seeking estimator is free to report). A
# correction removes bias on average over many instances; it cannot make five sampled
# ranks say more than they hold.
#
# ## Real data: three recommenders, exact and sampled
#
# {cite:t}`krichene2020sampled` ran the comparison on binarised MovieLens 1M: every
# rating is an event, each user's most recent event is held out, and the held-out item
# is ranked among all items the user has no training event with, against $m = 100$
# sampled items, in 100 repetitions. They compared three systems of their own,
# anonymised as X, Y and Z (their appendix): X is implicit alternating least squares
# {cite:p}`hu2008collaborative`; Y and Z are item-based nearest neighbours
# {cite:p}`sarwar2001item` with cosine similarity raised to a power $q$. These are
# top-N learners of today, not the papers' set of {cite:t}`bellogin2017statistical`
# that the 1R bridge below uses. {numref}`tbl-sm-systems` lists their settings; we run
# the same protocol on this build's dataset with the package's implementations of the
# three, and {numref}`tbl-sm-settings` sets every setting of the page against the
# papers', with what can make this build depart from them.
#
# ```{glue:figure} tbl-sm-systems
# :name: tbl-sm-systems
#
# Krichene and Rendle's own three systems in the real-data experiment, with the settings of their appendix.
# ```
#
# ```{table} The settings of the three experiments of this page: the paper's value, this build's, and what sets this build's value (a dash: nothing can change it).
# :name: tbl-sm-settings
#
# | experiment | setting | paper's value | this build | set by |
# |---|---|---|---|---|
# | toy example (Krichene and Rendle, Table 2) | sampling | $m = 99$, with replacement, 1,000 repetitions | $m = 99$, with replacement, {glue:text}`toy_repetitions` repetitions | the parameter `toy_repetitions` |
# | real data (Krichene and Rendle, Sec. 6) | data | MovieLens 1M, every rating an event | {glue:text}`dataset_name`, every rating an event | the build's dataset (the paper's: `ml-1m`) |
# | | held-out item | leave-last-out | {glue:text}`split` | the dataset's timestamps |
# | | pool | the items the user has no training event with | the same | — |
# | | systems | X (iALS), Y and Z (item-kNN), the appendix's settings | the same settings, the package's implementations | — |
# | | sampled items $m$ | 100 | {glue:text}`m_used` (asked: {glue:text}`m_requested`) | the parameter `m`, at most the smallest pool without replacement |
# | | sampling law | not stated | {glue:text}`sampling_law` | the parameter `with_replacement` |
# | | repetitions | 100 | {glue:text}`repetitions` | the parameter `repetitions` |
# | | ties in scores | not stated | one random order of the items per user, shared by X, Y and Z | this book's choice |
# | | $n$ of the corrections | not stated ($n$ differs per user) | one per group of users whose $n$ lie within {glue:text}`n_tolerance`, at the group's median | the parameter `n_tolerance` |
# | 1R bridge (IRJ 2017, Sec. 3.3) | splits | 5 coin-flip 80/20 splits | the first of them | one draw of the runs, whose spread over draws is computed exactly |
# | | 1R target set | TI-NN, $\lvert T_u \rvert = 100$ (99 sampled) | TI-NN, $\lvert T_u \rvert = 101$ (100 sampled) | $m = 100$, as in Krichene and Rendle, so that their corrections apply unchanged |
# | | relevant | a test rating of 5 (MovieLens) | a test rating ≥ {glue:text}`threshold` | the dataset's positive threshold |
# | | systems | Random, Popularity, pLSA, rating-prediction MF and user-kNN | Random, Popularity, pLSA, rating-MF, rating-kNN | — |
# ```

# %% tags=["remove-cell"]
glue_table("tbl-sm-systems", report.systems_table(), left=["set", "algorithm", "settings"])
study = sv.sampled_study(ratings, seed=seed, m=m, repetitions=repetitions, with_replacement=with_replacement,
                         n_tolerance=n_tolerance)
say("threshold", f"{ratings.positive_threshold:g}")
say("sampling_law", "binomial (with replacement)" if study.replace else "hypergeometric (without replacement)")
colours = palette(list(study.labels.values()))
for name, text in report.study_numbers(study).items():
    say(name, text)

# %% [markdown]
# **On this build.** Split: {glue:text}`split` (leave-last-out holds out each user's
# most recent rating; leave-one-random-out, used when the dataset has no timestamps,
# one rating per user at random). Evaluated users: {glue:text}`n_targets`; users left
# out because their pool holds fewer than $m$ items: {glue:text}`n_dropped`. The recommenders are trained on
# all other events, whatever their rating value (the paper binarises its data the
# same way). Each held-out item is ranked among the items its user has not rated in
# training, so the catalogue size $n$ differs per user: from {glue:text}`n_min` to
# {glue:text}`n_max`, median {glue:text}`n_median`. Ties in scores are broken by a
# random order of the items, drawn per user and shared by the three recommenders.
#
# ### Exact ranks
#
# {numref}`fig-sm-ranks` shows the distribution of the exact ranks on a logarithmic
# axis (the paper's Fig. 5); {numref}`tbl-sm-rank-summary` counts users whose held-out
# item reaches the top 10 and the top 100, and those whose item lands in the bottom
# half of their catalogue.
#
# ```{glue:figure} fig-sm-ranks
# :name: fig-sm-ranks
#
# Exact rank of each user's held-out item among the items the user has not rated in training, one line per system of Krichene and Rendle (logarithmic bins).
# ```
#
# ```{glue:figure} tbl-sm-rank-summary
# :name: tbl-sm-rank-summary
#
# Users whose held-out item each of Krichene and Rendle's systems ranks in the top 10, in the top 100, or in the bottom half of the catalogue, and the median exact rank.
# ```

# %% tags=["remove-input"]
fig = figures.rank_histogram(study, colours)
dataset_caption(fig.axes[-1], dataset)
glue_figure("fig-sm-ranks", fig)
glue_table("tbl-sm-rank-summary", sv.rank_summary(study), {"median rank": "{:.0f}"})

# %% [markdown]
# On ML-1M the paper found three different profiles: Z strongest in the top 10 but
# with a heavy tail of very poor ranks, X rarely poor but less often in the top 10, Y
# in between. We register each profile as comparisons of the shares of users whose
# held-out item lands in a region of the ranking, paired over the same users
# (Bonferroni within a profile):
#
# - {glue:md}`says-z-most-often-in-top-10`
# - {glue:md}`says-y-more-often-in-top-10-than-x`
# - {glue:md}`says-x-least-often-in-bottom-half`
#
# The paper also counts some of its 6,040 users. We register that X leaves fewer than
# 300 held-out items in the bottom half. {glue:md}`says-x-under-300-in-bottom-half` Its
# count for Z, over 1,600 users in the worst bucket of its Fig. 5, is not registered,
# because the paper does not give the width of that bucket. Whatever their shape,
# recommenders that distribute ranks differently are exactly the case in which a
# top-heavy metric and its sampled version can disagree.
#
# ### Sampled metrics and their corrections
#
# For the sampled evaluation, each user's held-out item is ranked against $m$ =
# {glue:text}`m_used` items drawn uniformly from the same pool ($m$ =
# {glue:text}`m_requested` was asked for; without replacement, when fewer than ten pools
# hold that many items, $m$ is the size of the smallest pool), and the metric is
# computed on the $m + 1$ items. We do not rescore sampled items: since the exact rank
# of the held-out item among the pool is known for every recommender, the number of
# sampled items ranked above it follows {eq}`eq-sm-law`, here the
# {glue:text}`sampling_law` law. All three recommenders are judged on the *same* sample
# in each repetition, as a study with one fixed list of negatives would do; the package
# draws the counts of sampled items in each of the eight classes "ranked above the
# held-out item by X / Y / Z or not", which preserves the dependence between the three
# sampled ranks. The sampling is repeated {glue:text}`repetitions` times.
#
# The corrections need one catalogue size $n$, and ours varies per user. The paper
# does not say how it handled this. We group users whose $n$ lie within a factor of
# {glue:text}`n_tolerance` of each other, compute every correction once per group at
# the group's median $n$, and evaluate each user with its own exact law. The
# approximation only touches the correction vector, never the sampling law. The
# {glue:text}`n_targets` users fall into {glue:text}`n_bins`. As a check, the
# rank-estimate correction {eq}`eq-sm-rank-estimate`, cheap enough to compute for each
# of the {glue:text}`n_distinct` distinct catalogue sizes, gives expected Recall@10 and
# AP that differ from the grouped version by at most {glue:text}`grouping_error`
# percentage points.
#
# {numref}`tbl-sm-table3` is our Table 3: exact metrics and sampled estimates, mean ±
# standard deviation over the repetitions, in percent. {numref}`tbl-sm-table3-paper`
# gives the published Table 3 on ML-1M in the same layout.
#
# ```{glue:figure} tbl-sm-table3
# :name: tbl-sm-table3
#
# Our Table 3: exact metrics of Krichene and Rendle's systems X, Y and Z and each estimator's mean ± standard deviation over the repetitions, in percent.
# ```
#
# ```{glue:figure} tbl-sm-table3-paper
# :name: tbl-sm-table3-paper
#
# The published Table 3 (MovieLens 1M, $m = 100$, 100 repetitions), in percent.
# ```

# %% tags=["remove-cell"]
ours3 = claims.table3_values(study)
glue_table("tbl-sm-table3", report.table3(ours3), index=True)
glue_table("tbl-sm-table3-paper", report.table3(claims.paper()), index=True)
glue_table("tbl-sm-orders", report.orders_table(ours3), index=True)
glue_table("tbl-sm-right", report.rights_table(study))
glue_table("tbl-sm-reversals", report.reversal_table(study))
say("reversal_comparisons", f"{len(sv.PAIRS) * len(sv.TOP_HEAVY)}")
for name, text in report.auc_numbers(study).items():
    say(name, text)

# %% [markdown]
# The orders are what matters for a comparison. {numref}`tbl-sm-orders` lists, for
# each metric, the order of the three recommenders by the exact metric, by the
# uncorrected sampled metric and by two corrections (means over the repetitions), here
# and in the paper.
#
# ```{glue:figure} tbl-sm-orders
# :name: tbl-sm-orders
#
# Order of Krichene and Rendle's systems X, Y and Z by the exact metric and by the mean of three estimators, on this build and in the paper.
# ```
#
# An order of means is not yet a finding: the users of this build are a sample, and two
# systems whose means differ by little may swap places on other users. The paper's
# claim is that the sampled metric reverses an order *in expectation*, so
# {numref}`tbl-sm-reversals` tests it without the noise of the repetitions: for each
# pair and top-heavy metric, a paired $t$-test with the user as the unit on the exact
# metric, and another on the exact expectation of the user's sampled metric under its
# own law {eq}`eq-sm-law`. A comparison counts as reversed (or kept) only when both
# differences are beyond noise with opposite (or equal) signs, each at
# $p <$ {glue:text}`level` / {glue:text}`reversal_comparisons` (Bonferroni over
# the comparisons of the table, which one finding reads together); otherwise it is
# within noise. {glue:md}`policy`
#
# ```{glue:figure} tbl-sm-reversals
# :name: tbl-sm-reversals
#
# For each pair of Krichene and Rendle's systems and each top-heavy metric: the difference of the exact metric and of the expected uncorrected sampled metric (first minus second, percentage points), each with the p-value of its paired t-test over users, whether the two differences have the same sign, and whether both are beyond noise (the order is kept beyond noise where both columns say yes, reversed where the signs disagree and both are beyond noise).
# ```
#
# {glue:md}`says-sampled-reverses-order`
#
# Where the means keep every order, the sampled values are still far from the exact
# ones: a bias need not flip an order to mislead about the size of a difference.
#
# A single study draws one sample, so the other question is how often an estimator
# orders a pair right in one repetition. {numref}`tbl-sm-right` gives, for each
# estimator, the mean number of comparisons (pairs times top-heavy metrics, and pairs on
# AUC) that one repetition orders as the exact metric of these users does, and the
# difference from the uncorrected metric with the p-value of a paired $t$-test over the
# repetitions: every estimator reads the same samples, so the repetition is the unit.
#
# ```{glue:figure} tbl-sm-right
# :name: tbl-sm-right
#
# Comparisons of two of Krichene and Rendle's systems that each estimator orders as the exact metric does, mean per repetition, and the difference from the uncorrected metric, paired over the repetitions.
# ```
#
# In the paper the reversal is the headline: sampled Recall@10 ranks X first and Z
# last, the opposite of the exact order, and sampled nDCG and AP also put the worst
# recommender (X) first. Three more observations from the paper can be checked against
# our tables: on the top-heavy metrics the uncorrected values are several times larger
# than the exact ones; the rank estimate gives identical Recall@10 and nDCG@10, because
# only a sampled rank of 1 maps to a rescaled rank within the top 10 (whenever
# $(n - 1)/m > 9$); and sampled AUC equals exact AUC up to noise, for every estimator
# except the strongly shrunk BV 1. The published Z row is an exception: its sampled AUC
# exceeds the exact AUC by {glue:text}`paper_auc_gap` points, more than the
# unbiasedness of AUC allows. Z gives zero score to every item outside its
# neighbourhoods, so it produces many ties;
# if ties were resolved one way in the full ranking and another way in the sampled
# list, that would produce such a gap. In our runs ties are broken by the same random
# order in both, and the largest gap between the uncorrected sampled AUC and the exact
# AUC is {glue:text}`auc_gap` points ({glue:text}`auc_gap_name`),
# {glue:text}`auc_gap_z` standard errors of the mean over the repetitions. In
# expectation, computed from each user's own law {eq}`eq-sm-law`, the gap is at most
# {glue:text}`auc_expected_gap` points, rounding error. The {doc}`scorecard` therefore
# judges the unbiasedness of sampled AUC on this exact expectation; the simulated
# repetitions only illustrate it. Should the simulated gap exceed three standard errors,
# it is an excursion of the {glue:text}`repetitions` repetitions drawn for this page, of
# the kind that a comparison of three recommenders shows now and then, since the
# expectation has no gap; more repetitions shrink it.
#
# ### How often is the order right?
#
# Means over repetitions describe a study that could afford many samples. A real study
# draws one. {numref}`tbl-sm-table4` is our Table 4: out of the
# {glue:text}`repetitions` repetitions, how many order a pair of recommenders as the
# exact metric does (all of them: always right; none: always wrong; the exact metric
# is always right by definition). {numref}`tbl-sm-table4-paper` is the published
# Table 4. In the text of the paper available to us, its rows "Y vs Z" for nDCG, AP and
# AUC list six values for seven columns; rather than guess which column lost its value,
# we show them as missing and do not register them.
#
# ```{glue:figure} tbl-sm-table4
# :name: tbl-sm-table4
#
# Our Table 4: of the repetitions, how many order each pair of Krichene and Rendle's systems as the exact metric does (a dash: the exact values tie).
# ```
#
# ```{glue:figure} tbl-sm-table4-paper
# :name: tbl-sm-table4-paper
#
# The published Table 4 (MovieLens 1M, out of 100 repetitions); a dash marks the values missing from the text.
# ```

# %% tags=["remove-input"]
ours4 = sv.agreement_counts(study)
counts = dict.fromkeys(sv.METHODS, "{:.0f}")
glue_table("tbl-sm-table4", ours4, counts)
glue_table("tbl-sm-table4-paper", report.paper_table4(), counts)
for name, text in report.table4_numbers(ours4).items():
    say(name, text)

# %% [markdown]
# **On this build**, the lowest count of each estimator over the pairs and top-heavy
# metrics of {numref}`tbl-sm-table4` is {glue:text}`t4_lowest`, out of
# {glue:text}`repetitions` repetitions; among the corrections, the best worst case is
# that of {glue:text}`t4_best`. Uncorrected AUC orders every pair correctly in at least
# {glue:text}`t4_auc_lowest` of the {glue:text}`repetitions` repetitions.
#
# Two effects compete in this table. The uncorrected metric has the smallest variance,
# so when its bias points the wrong way it is wrong almost every time, and when the
# gap is large enough it is right almost every time. The corrections with small
# $\gamma$ remove most of the bias, so in expectation they order the pairs correctly,
# but a single repetition now carries real noise: when two recommenders are close, a
# low-bias estimate is right in many repetitions and wrong in many others. The paper
# found BV 0.1 the best compromise on ML-1M. The larger the catalogue relative to the
# sample, the wider the range of true ranks that a sampled rank of 1 stands for, and
# the less of a top-10 metric any correction can recover; here the median pool holds
# {glue:text}`n_over_m` times as many items as the sample.
#
# ### How large must the sample be?
#
# The last experiment on these data varies $m$ ({numref}`fig-sm-m-sweep`, the paper's
# Fig. 6): for each sample size, the exact expectation of sampled Recall@10
# (uncorrected, computed for every user from its own law) and of Recall@10 corrected by
# BV 0.1. Dotted lines are the exact values. {numref}`tbl-sm-consistency` gives, for
# each pair, the smallest sample size on the grid from which on every larger one orders
# the pair as the exact metric does.
#
# ```{glue:figure} fig-sm-m-sweep
# :name: fig-sm-m-sweep
#
# Expected Recall@10 of Krichene and Rendle's systems X, Y and Z against the sample size $m$: uncorrected (left) and corrected by BV 0.1 (right); dotted lines are the exact values.
# ```
#
# ```{glue:figure} tbl-sm-consistency
# :name: tbl-sm-consistency
#
# For each pair of Krichene and Rendle's systems, the smallest sample size of the grid from which on the expected Recall@10 orders the pair as the exact Recall@10 does.
# ```

# %% tags=["remove-input"]
sweep = sw.m_sweep(study, fig6_max_m)
register(claims.numbers("sweep"), claims.fig6_values(study, sweep), dataset=ratings.name)
fig = figures.m_sweep(study, sweep, colours)
dataset_caption(fig.axes[-1], dataset)
glue_figure("fig-sm-m-sweep", fig)
consistency = report.consistency_table(study, sweep)
glue_table("tbl-sm-consistency", consistency, {c: "{:,.0f}" for c in consistency.columns[2:]})
for name, text in report.sweep_numbers(sweep).items():
    say(name, text)

# %% [markdown]
# A dash in {numref}`tbl-sm-consistency` means that the order is still wrong (or the
# exact values tie) at the largest sample size tried. The uncorrected grid runs to
# $m$ = {glue:text}`largest_m`: the largest sample the pools allow
# ({glue:text}`largest_allowed`, the smallest pool without replacement or the largest
# catalogue with it), capped at {glue:text}`grid_cap`. The
# corrected one runs to {glue:text}`fig6_max_m`, with corrections grouped at a coarser
# {glue:text}`fig6_tolerance` for this figure only. On ML-1M the paper reports that the
# uncorrected Recall@10 needs more than 1,000 sampled items (a third of the catalogue)
# to order X and Y correctly, while BV 0.1 does so with fewer than 60.
#
# ## The 1R design is a sampled metric
#
# The 1R design of {cite:t}`bellogin2017statistical`, following
# {cite:t}`cremonesi2010performance`, builds one run per relevant test rating
# $(u, i)$: the relevant item $i$ plus a random set of items assumed non-relevant, and
# reports $\mathrm{P@}10$ averaged over runs. {doc}`02_designs` draws 99 of them,
# TI-NN(99), so that a run holds $|T_u^r| = 100$ items as in the IRJ papers; here we
# draw 100, TI-NN(100), so that the number of sampled items is $m = 100$ as in
# {cite:t}`krichene2020sampled` and the published corrections apply with the same $m$.
# The 100 other items are drawn without replacement from the candidate items (those
# with at least one test rating) that $u$ did not rate in training and does not hold
# as relevant test items. This is exactly the sampled evaluation of this chapter with
# $m = 100$, the hypergeometric law of {eq}`eq-sm-law`, and
# $\mathrm{P@}10 = \mathrm{Recall@}10 / 10$: 1R precision is a sampled metric, and the
# corrections apply to it unchanged. The quantity they estimate is the same precision
# with *all* candidate items in the run (1R TI-AN), where each relevant item is ranked
# against its whole pool. Both versions assume that the items placed next to $i$ are
# not relevant to $u$; sampling does not add that assumption, it inherits it.
#
# The experiment uses the protocol and the data of {doc}`02_designs`: the first of its
# random 80/20 splits (same seed), relevant meaning a test rating at or above the
# dataset's positive threshold. The systems are the papers' set of
# {cite:t}`bellogin2017statistical` (their Sec. 3.3): Random, Popularity, pLSA, and a
# biased matrix factorisation and a mean-centred user-based kNN that predict ratings
# (*rating-MF* and *rating-kNN*) and rank the items by the predicted rating. For each of them, {numref}`tbl-sm-bridge`
# gives the 1R TI-NN(100) precision of one draw of the runs (the number a study would
# publish), the same draw corrected by four estimators (± the standard deviation that
# comes from the random draw, computed exactly), the exact TI-AN precision they aim at,
# and, for reference, the precision with every non-training item as candidate (1R
# AI-AN). {numref}`tbl-sm-bridge-orders` orders the systems by the means of each
# estimate, and counts the pairs of systems that the estimate orders as the exact TI-AN
# precision does, or against it, when both differences are beyond noise: paired
# $t$-tests of the runs' precisions with the user as the unit (runs clustered by
# user), at $p <$ {glue:text}`level`. A pair whose exact or estimated difference
# is within noise is counted apart, whatever the order of its means.
#
# ```{glue:figure} tbl-sm-bridge
# :name: tbl-sm-bridge
#
# 1R precision (P@10) of the papers' set of systems of {cite:t}`bellogin2017statistical` (columns): one draw of 1R TI-NN(100), uncorrected and corrected by four estimators (± the standard deviation over draws), then the exact 1R TI-AN precision they estimate and 1R AI-AN, and how many times its exact TI-AN precision each system's uncorrected 1R precision is (n/a where the exact precision is zero).
# ```
#
# ```{glue:figure} tbl-sm-bridge-orders
# :name: tbl-sm-bridge-orders
#
# The papers' systems in the order of the means of each estimate of {numref}`tbl-sm-bridge`, and of the ten pairs of systems, how many each estimate orders as the exact TI-AN precision or against it (both differences beyond noise, the user as the unit), or leaves within noise.
# ```

# %% tags=["remove-input"]
bridge = sb.bridge_study(ratings, seed=seed, n_tolerance=n_tolerance)
glue_table("tbl-sm-bridge", report.bridge_table(bridge), index=True)
glue_table("tbl-sm-bridge-orders", report.bridge_orders(bridge))
for name, text in report.bridge_numbers(bridge).items():
    say(name, text)

# %% [markdown]
# **On this build**: {glue:text}`bridge_runs` runs (relevant test ratings), with pools
# of {glue:text}`bridge_pool_min` to {glue:text}`bridge_pool_max` items including the
# relevant one; {glue:text}`bridge_short` runs were left out because their pool held
# fewer than 100 non-relevant items (when no pool holds that many, the design cannot be
# formed and the tables above say so). The uncorrected 1R precision of the papers'
# personalised recommenders (pLSA, rating-MF and rating-kNN) is
# {glue:text}`bridge_ratio_span` times their exact TI-AN precision, and that of
# Popularity {glue:text}`bridge_ratio_popularity` times.
#
# Both 1R designs assume that the items placed next to the relevant one are not
# relevant. A real dataset cannot tell how many of the sampled items the user would in
# fact like; a simulated one can. The share of the items sampled as non-relevant that
# are in fact relevant to their user in the simulated world is {glue:text}`truth_share`,
# against {glue:text}`pool_share` over all pairs of the matrix (on real data both are
# unknown). The exact TI-AN precision shares this blind spot, so no correction of the
# sampling can remove it.
#
# The uncorrected 1R precision is at most 1/10, reached when every relevant item tops
# its run of 101; it measures how often the relevant item beats a hundred random
# candidates, which is much easier than reaching the top 10 of the whole pool. How much
# easier depends on the system: one that places relevant items above most of the
# catalogue but seldom at its very top, as a predictor of ratings can, gains more from
# sampling than one whose hits sit at the top, so the inflation is not a common factor
# and can change the order of the systems. The corrections bring the values back to
# the scale of the exact TI-AN precision, with the variance the previous sections
# predict. Systems whose precisions differ by less than the standard deviations shown
# cannot be ordered reliably by any of the estimators, which is what the last column of
# {numref}`tbl-sm-bridge-orders` counts.
#
# ## What sampling saves
#
# The argument for sampling is cost. We time both evaluations of recommender X on the
# data of the real-data experiment ({numref}`tbl-sm-cost`): the exact evaluation scores
# every item for every user and counts, for each held-out item, the candidates scored
# above it; the sampled evaluation draws {glue:text}`m_used` negatives per user, scores
# only those pairs and ranks each short list. Both times are the best of three runs,
# measured when this page was built.
#
# ```{glue:figure} tbl-sm-cost
# :name: tbl-sm-cost
#
# Seconds taken by each step on the machine that built this page: the best of three runs for the two evaluations and the training, one run for the corrections.
# ```

# %% tags=["remove-input"]
cost = sc.cost_study(study, seed)
glue_table("tbl-sm-cost", report.cost_table(study, cost), {"seconds": "{:.3f}"}, wrap=True, left=["step"])
for name, text in report.cost_numbers(study, cost).items():
    say(name, text)

# %% tags=["remove-cell"]
values = claims.measured(study, ours4, cost)
say("z_one_sample", fmt_signed(values["one_sample_z"]))
register(claims.numbers("toy"), claims.toy_measured(toy), dataset=claims.TOY_DATASET)
register(claims.numbers("data"), values, dataset=ratings.name)
found = register(claims.findings(study), values, dataset=ratings.name)
say_findings(found)
glue_table("tbl-sm-findings", findings_table(found), wrap=True, left=["statement", "evidence"])

# %% [markdown]
# **On this build**, the exact evaluation took {glue:text}`time_ratio` times as long as
# the sampled one (below 1: the exact one was faster), although it compares the
# held-out items with {glue:text}`n_compared_exact` candidates against sampling's
# {glue:text}`n_compared_sampled`; computing the corrections took
# {glue:text}`t_corrections`. Machine: {glue:text}`machine`.
#
# The work of the exact evaluation grows with the catalogue, that of the sampled one with $m$. With catalogues of a few thousand
# items, scoring everything is one dense matrix product per block of users, so the
# exact route stays in the range of drawing and ranking short lists (the table gives
# both, and training, on this build); sampling pays off only when catalogues reach
# millions of items and scoring all of them for every user becomes the bottleneck
# (where a top-$k$ retrieval index is the other way out). Computing the corrections is
# a one-off cost per catalogue size and sample size, shared by every recommender
# evaluated. As a check of the shortcut used above, the sampled Recall@10 of X from
# this real draw is {glue:text}`one_sample_recall`%, against
# {glue:text}`simulated_recall`% over the simulated repetitions, a $z$-score of
# {glue:text}`z_one_sample`.
#
# ## Against the paper
#
# Every value of the paper's four tables is registered on the {doc}`scorecard`: those of
# Tables 1 and 2 against the toy example, where ours must agree within the Monte Carlo error
# of the paper's own repetitions, and those of Tables 3 and 4 against this build's
# dataset, which makes them comparable only on MovieLens 1M. The paper's qualitative
# statements are checked on this build; {numref}`tbl-sm-findings` lists them with the
# measurement and the criterion behind each verdict. A statement that compares systems
# or estimators holds or fails only when the differences it rests on are beyond noise,
# with the users as the unit ({numref}`tbl-sm-reversals`) or the repetitions of the
# sampling ({numref}`tbl-sm-right`), and is inconclusive otherwise. Where this build
# departs from the paper's protocol ({numref}`tbl-sm-settings`: another dataset, split,
# sample size or number of repetitions), the statements that rest on it say so, and a
# failure there is not counted against the paper.
#
# ```{glue:figure} tbl-sm-findings
# :name: tbl-sm-findings
#
# The statements of {cite:t}`krichene2020sampled` checked on this page's dataset, with the evidence and the criterion of each verdict.
# ```
#
# ## What this means for designing an offline evaluation
#
# - A metric computed on a sample of $m$ items is a different metric from the one its
#   name suggests. Its value depends on $m$, and so can its verdict; report $m$ with
#   every sampled number and do not compare numbers obtained with different $m$ or on
#   catalogues of different sizes.
# - Low variance across repeated samples is no reassurance. The uncorrected sampled
#   metric is precise and biased, and its bias depends on the recommender.
# - AUC is the one common metric that sampling leaves unbiased; as $m$ shrinks every
#   other metric drifts towards it, so a sampled top-heavy metric mostly measures
#   overall rank quality, not quality at the top.
# - If sampling cannot be avoided, correct it: the rank estimate is a one-line change
#   and already removes much of the bias; CLS and BV with $\gamma$ around 0.01-0.1 do
#   better in expectation but add variance, so repeat the sampling with several seeds
#   and report the spread. `recbias.sampled.corrected_sampled_metric`
#   computes a corrected sampled metric of any fitted recommender on a split.
# - The 1R design with a hundred sampled non-relevant items is a sampled metric. Its
#   numbers are comparable across papers only with the same $|N_u|$ and candidate set,
#   and the corrections of this chapter estimate what the design with all candidates
#   would have reported.
# - When the full ranking is affordable, as it is for every dataset in this book,
#   compute the exact metric.
#
# ## Try it
#
# - Change the sample size and see the ordering flip or settle: `-p m 20`, `-p m 500`.
# - Sample with replacement, as in the paper's analysis: `-p with_replacement true`.
# - Fewer or more repetitions (the paper used 100): `-p repetitions 300`.
# - Tighten the grouping of catalogue sizes for the corrections: `-p n_tolerance 0.01`.
# - Run on another dataset or seed, for example one with a larger catalogue, where a
#   sampled rank stands for a wider range of true ranks ({doc}`appendix_datasets` gives
#   the sizes):
#
# ```bash
# make book CHAPTERS=6 DATASET=ml-100k SEED=1
# .venv/bin/python -m recbias.bookkit --chapters 6 \
#     --dataset lastfm-2k -p m 200
# ```

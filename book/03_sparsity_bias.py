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
# # The test-sparsity bias
#
# An IR test collection fixes its documents and its judgments once, and every system is
# measured against the same ones; the values reported on a TREC collection stay within
# a stable range for years {cite:p}`armstrong2009improvements`. A recommendation experiment builds its judgments anew each
# time, by holding out part of the ratings, and decides how many items each user must
# rank. Both choices change how many of the candidate items are relevant, and that
# share, more than any recommender, sets the scale of precision. This chapter follows
# Section 4 of {cite:t}`bellogin2017statistical` and Section 4.4 of
# {cite:t}`bellogin2012thesis`: it derives the precision of a recommender that does not personalise,
# tests the result against measurement on the book's data, reproduces the papers'
# Fig. 4 with fitted lines, extends it to recall, nDCG, MAP and MRR, asks whether the
# *order* of systems survives when test ratings become scarce, and ends with a way to
# report precision so that readers can interpret it.

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
folds = 2  # coin-flip splits of the sweeps, int in [1, 20]
test_ratio = 0.2  # share of ratings held out in each split (the papers: 0.2), float in (0, 1)
cutoff = 10  # list length n of P@n, Recall@n and nDCG@n (the papers: 10), int in [1, 99]
removed = "0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.99"  # shares of the test ratings removed (comma-separated, each in [0, 1), 0 included)
target_sizes = "100, 200, 500, 1000"  # |T_u| of the 1R size sweep (the papers: 100 to 1,000; comma-separated integers, each in [2, 100000])
target_size = 100  # |T_u| of the 1R runs: one relevant item and target_size - 1 sampled ones (the papers: 100), int in [11, 100000]
sweep_users = 1000  # users followed by each sweep and by the theory check (a uniform sample when there are more), int in [10, 10000000] or None (None keeps all users)
max_an_entries = 25_000_000  # AR target entries above which TI-AN gives way to TI-NN(an_nonrelevant), int in [1, 1000000000]
an_nonrelevant = 2500  # |N_u| of AR TI-NN on large catalogues (the papers on Last.fm: 2,500), int in [1, 1000000]
bootstrap = 200  # bootstrap resamples of users behind every interval, int in [20, 5000]
compare_all = True  # also measure the lift over random on the other available datasets
world_check = True  # also check the papers' 1R statement on synthetic-ml1m, a world of MovieLens 1M's shape (slow: fits the five systems on 1M ratings)

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
from IPython.display import Markdown
from myst_nb import glue

from recbias import datasets
from recbias.bookkit.claims import published, register
from recbias.bookkit.page import design_note, say, say_findings, show_text
from recbias.bookkit.plotting import dataset_caption, palette
from recbias.bookkit.scorecard import findings_table
from recbias.bookkit.tables import glue_figure, glue_table
from recbias.chapters.c03_sparsity_bias import claims, figures, report
from recbias.chapters.c03_sparsity_bias.study import fits, lift, sweeps, theory_check
from recbias.chapters.c03_sparsity_bias.study import world_check as world_check_module
from recbias.recommenders import PAPERS_SET
from recbias.evaluate.experiment import choose_designs

SYSTEMS, N = list(PAPERS_SET), int(cutoff)
COLOURS = palette(SYSTEMS)
levels = sweeps.parse_grid(removed, "removed", 0, 0.999)
sizes = sweeps.parse_grid(target_sizes, "target_sizes", 2, 100_000, integer=True)
choice = choose_designs(ratings, target_size=target_size, max_an_entries=max_an_entries, n_nonrelevant=an_nonrelevant)
for name, text in {"systems": ", ".join(SYSTEMS), "test_ratio": f"{test_ratio:g}", "target_size": f"{target_size}",
                   "threshold": f"{ratings.positive_threshold:g}",
                   "removed_levels": ", ".join(f"{f:.0%}" for f in levels),
                   "sizes_asked": ", ".join(f"{s:,}" for s in sizes), "bootstrap": f"{bootstrap}",
                   "check_thresholds": ", ".join(f"{t:g}" for t in theory_check.thresholds(ratings)),
                   "world_check": f"{world_check}"}.items():
    say(name, text)

# %% [markdown]
# ## Notation
#
# A split holds out each rating for testing with probability $\sigma$, the *test
# ratio*. With a positive threshold on the rating scale, $PR$ is the set of positive
# ratings of the whole dataset, $PR(i)$ those of item $i$, and $PR_\text{test}(u)$ the
# test items that user $u$ rated positively: the items *relevant* to $u$. Each user
# ranks a target set $T_u$ drawn from the candidate items $\mathcal{C}$: every item (AI)
# or the items with a test rating (TI). Under AR the target set holds all of the user's
# relevant test items and the non-relevant candidates (AN) or a sample of them (NN);
# under 1R there is one target set per relevant test rating, holding that item and
# $|T_u| - 1$ sampled ones, so that $|T_u| = 100$ means one relevant item and NN(99), as
# in {doc}`02_designs`. Three quantities carry the chapter:
#
# $$
# \frac{1}{t} = \operatorname*{avg}_{u \in \mathcal{U}} \frac{1}{|T_u|}, \qquad
# \rho_u = \frac{|T_u \cap PR_\text{test}(u)|}{|T_u|}, \qquad
# \delta = \frac{|PR|}{t\,|\mathcal{U}|}.
# $$ (eq-sparsity-notation)
#
# $t$ is the harmonic mean size of the target sets (simply $|T_u|$ when all have the
# same size), $\rho_u$ the share of relevant items in the target set of $u$, and $\delta$
# the *relevance density*: positive ratings per user, relative to the number of items
# a user must rank. Its counterpart on the test set, $\delta_\text{test} =
# |PR_\text{test}|/(t\,|\mathcal{U}|)$, is about $\sigma\delta$.
# {numref}`tbl-sparsity-settings` lists the experiments of this page.
#
# ```{table} The settings of this page. $\sigma$: test ratio; $f$: share of the test ratings removed after the split.
# :name: tbl-sparsity-settings
#
# | setting | value |
# |---|---|
# | systems | {glue:text}`systems`: the papers' five |
# | splits | {glue:text}`folds` coin-flip splits, $\sigma$ = {glue:text}`test_ratio` (the papers: 5; the default 2 saves time) |
# | relevant | a test rating ≥ {glue:text}`threshold` |
# | cut-off $n$ | {glue:text}`n` |
# | AR design | {glue:text}`ar_design` |
# | 1R designs | {glue:text}`one_r_design` and the same with AI candidates: target sets of {glue:text}`target_size` items, one relevant and the others sampled |
# | test ratings removed, $f$ | {glue:text}`removed_levels` (lines fitted up to {glue:text}`fit_max_removed`) |
# | 1R target sizes asked for | {glue:text}`sizes_asked` |
# | users followed | {glue:text}`followed` of the {glue:text}`rated` users with a relevant test item in the first split (at most `sweep_users`, drawn at random; the papers: all) |
# | theory check | $\sigma \in \{0.1, 0.4\}$ × $f \in \{0, 50\%, 90\%\}$ × thresholds {glue:text}`check_thresholds` × 5 designs |
# | intervals | 95%, bootstrap over users ({glue:text}`bootstrap` resamples) |
# | 1R on an ML-1M-shaped world | `synthetic-ml1m` in place of MovieLens 1M: all users, one split, $f \in \{0, 90\%\}$ (`world_check` = {glue:text}`world_check`) |
# ```

# %% tags=["remove-input"]
show_text(design_note(choice, ratings))

# %% [markdown]
# ## The expected precision of a recommender that does not personalise
#
# Write $i_k^{u,s}$ for the item that system $s$ ranks $k$-th in $T_u$. Averaged over the
# random split, the sampling of $T_u$ and any randomness of the system, precision at $n$
# in the AR design is
#
# $$
# \mathbb{E}\left[P_s@n\right] = \operatorname*{avg}_{u \in \mathcal{U}} \frac{1}{n}
# \sum_{k=1}^{n} p\left(\mathrm{rel} \mid i_k^{u,s}, u, T_u\right),
# $$ (eq-expected-precision)
#
# with $p(\mathrm{rel} \mid i, u, T_u)$ the probability that $i \in PR_\text{test}(u)$ given
# that $i$ is in the target set. By the definition of a conditional probability it is
# $p(i \in PR_\text{test}(u) \cap T_u) / p(i \in T_u)$. Under AR every relevant test item is
# in $T_u$, so the numerator is $p(i \in PR_\text{test}(u))$; and for an item of the
# candidate set, $p(i \in T_u) = |T_u|/|\mathcal{C}|$. Now let $s$ be *non-personalised*:
# the item it ranks at position $k$ does not depend on who the user is. Averaging over
# users then turns the probability that $u$ holds item $i$ in $PR_\text{test}(u)$ into the
# share of users who do, $\mathbb{E}[|PR_\text{test}(i)|]/|\mathcal{U}|$, and under a random
# split $\mathbb{E}[|PR_\text{test}(i)|] = \sigma|PR(i)|$. Collecting the factors, with the
# average of $1/|T_u|$ written $1/t$,
#
# $$
# \mathbb{E}\left[P_s@n\right] = \frac{\sigma\,|\mathcal{C}|}{n\, t\, |\mathcal{U}|}
# \sum_{k=1}^{n} \operatorname*{avg}_{u \in \mathcal{U}} \left|PR\left(i_k^{u,s}\right)\right|.
# $$ (eq-sparsity-eq3)
#
# This is Eq. 3 of {cite:t}`bellogin2017statistical`. It says that a list that is the
# same for everybody scores in proportion to how many positive ratings its items have,
# which is the popularity bias of {doc}`04_popularity_bias`. For a *random* ranking the
# $k$-th item is a uniform draw from $\mathcal{C}$, and every relevant test item lies in
# $\mathcal{C}$, so the average of $|PR_\text{test}(i)|$ over the candidates is
# $\sigma|PR|/|\mathcal{C}|$; the factor $|\mathcal{C}|$ cancels and
#
# $$
# \mathbb{E}\left[P_\text{RND}@n\right] \approx \frac{\sigma\,|PR|}{t\,|\mathcal{U}|} = \sigma\,\delta ,
# $$ (eq-sparsity-eq4)
#
# the paper's Eq. 4, the same for every cut-off $n$. In the 1R design every target set
# holds exactly one relevant item among $|T_u|$, so a random ranking puts it in any
# given position with probability $1/|T_u|$; with target sets of one size $t$,
#
# $$
# \mathbb{E}\left[1RP_\text{RND}@n\right] = \frac{1}{t},
# $$ (eq-sparsity-eq5)
#
# the paper's Eq. 5, again whatever $n$.
#
# Both results are instances of one exact statement. For a given target set, the
# relevant items among the first $n$ of a uniformly random order follow a
# hypergeometric law with mean $n\rho_u$, so $\mathbb{E}[P_\text{RND}@n \mid T_u] = \rho_u$
# for every $n \le |T_u|$, and the average over users is $\rho = \operatorname{avg}_u
# \rho_u$. {eq}`eq-sparsity-eq4` approximates $\rho$ in two steps: it replaces
# $\operatorname{avg}_u(|PR_\text{test}(u)| / |T_u|)$ with
# $\operatorname{avg}_u|PR_\text{test}(u)|/t$, and $|PR_\text{test}|$ with its expectation
# $\sigma|PR|$. {eq}`eq-sparsity-eq5` is exact. The same $\rho$ has a second reading: a
# system that has to rank the whole target set returns every item of it, so its precision
# at $n = |T_u|$ is $\rho_u$ *whatever its ranking*. A recommender can only move relevant
# items up or down within $T_u$; $\rho$ is what every system scores in total, random
# recommendation is what it scores without any ranking skill, and the precision of a good
# system at a small $n$ is $\rho$ plus what its ranking adds in the first positions.
#
# The consequences follow at once. Under AR, random precision grows linearly with the
# test ratio $\sigma$ and the number of positive ratings, and falls as $1/t$ as target
# sets grow; under 1R it depends on $t$ alone. None of these quantities says anything
# about a recommender: they are set by the data and the experimenter.

# %% tags=["remove-cell"]
check = theory_check.random_precision_check(ratings, theory_check.check_designs(choice), n=N, max_users=sweep_users,
                                            seed=seed)
summary = theory_check.check_summary(check)
fig = figures.check_figure(check, N)
dataset_caption(fig.axes[0], ratings.name)
glue_figure("fig-sparsity-check", fig)
glue_table("tbl-sparsity-check", report.check_table(check), left=["design"])

# %% [markdown]
# ## Theory against measurement
#
# The test is direct: rank target sets at random, measure P@$n$, and set the result
# against {eq}`eq-sparsity-eq4` or {eq}`eq-sparsity-eq5` computed from the counts of the
# same configuration. The configurations cross two test ratios ($\sigma$ = 0.1 and 0.4),
# three shares $f$ of the test ratings removed at random after the split (0, 50% and 90%,
# so that the effective test ratio $\sigma(1-f)$ runs from 0.4 down to 0.01), the
# dataset's positive threshold and the next rating value below it, and five designs: AR
# with AI and with TI candidates, and 1R with AI and TI candidates and two sizes of
# target set. In {eq}`eq-sparsity-eq4`, $|\mathcal{U}|$ is the number of users the AR
# average runs over, and $t$ the harmonic mean size of their target sets. Each
# configuration gets a random order of its own, so the points are independent draws. The
# bars show the *simulation error*: the interval, 1.96 standard deviations wide on each
# side, within which a random order lands with 95% probability given the target sets. It
# follows from the same hypergeometric law,
#
# $$
# \operatorname{Var}\left(P_u@n\right) = \frac{\rho_u\,(1-\rho_u)\,(|T_u|-n)}{n\,(|T_u|-1)},
# $$ (eq-sparsity-variance)
#
# averaged over the runs (`recbias.theory.random_precision_sd`). {numref}`fig-sparsity-check`
# shows every configuration and {numref}`tbl-sparsity-check` sums them up by design.
#
# ```{glue:figure} fig-sparsity-check
# :name: fig-sparsity-check
#
# Measured random precision against its closed form: {eq}`eq-sparsity-eq4` for AR (blue circles), {eq}`eq-sparsity-eq5` for 1R (red squares), log scales; filled markers for TI candidates, open ones for AI. Bars: 95% simulation error. Grey diamonds: the same AR measurements against {eq}`eq-sparsity-eq4` with every user who has a rating counted in $|\mathcal{U}|$. Dashed: measured = predicted.
# ```
#
# The check runs over the {glue:text}`check_configurations` configurations on *{glue:text}`dataset`* that had
# runs, measured on the runs of {glue:text}`check_users` of its {glue:text}`check_users_total` users with a
# rating (a uniform sample when there are more than `sweep_users`). Of the grid, {glue:text}`check_skipped`
# more configurations had no run (too few test ratings or candidates left for the design) and are left out,
# and {glue:text}`check_unshown` measured no relevant item at all in the random top lists, which the log scale
# of the figure cannot show. {glue:text}`check_within` of the measured random precisions lie within the 95%
# simulation band of their closed form ({glue:text}`check_within_ar` of the AR ones,
# {glue:text}`check_within_1r` of the 1R ones), and {glue:text}`check_within_rho` within the band of the exact
# $\rho$; with independent draws about 95% are expected. The largest deviation is {glue:text}`check_max_z`
# standard deviations.
#
# ```{glue:figure} tbl-sparsity-check
# :name: tbl-sparsity-check
#
# The theory check per design: the closed form, the share of configurations whose measured random precision lies within the 95% simulation band of the closed form and of the exact $\rho$, and the median ratio of the measured value to the closed form.
# ```
#
# Where theory and measurement part, the reason is one of three. The first is *which users
# are averaged*. The AR design evaluates only users with at least one relevant test item,
# as IR evaluates only queries with relevant documents. {eq}`eq-sparsity-eq4` holds with
# $|\mathcal{U}|$ counting exactly those users; counting every user who has a rating
# instead (the grey diamonds) lowers the prediction by the share of users who are left
# out, which grows as test ratings become scarce; across the AR configurations it predicts
# between {glue:text}`check_all_users_low` and {glue:text}`check_all_users_high` of the exact $\rho$.
# The second is the *approximation inside* {eq}`eq-sparsity-eq4`: it replaces the average
# of $|PR_\text{test}(u)|/|T_u|$ by a ratio of averages. Under TI-AN a user with many
# training ratings has a smaller target set and, on a random split, more relevant test
# items; the two go together and the exact $\rho$ exceeds the closed form slightly. The
# third is *the candidate pool*: TI and AI obey the same formula, but through different
# $t$. Removing test ratings removes items from the TI pool, so $t$ shrinks and the random
# precision of TI falls less than the share of test ratings kept, while under AI it
# follows that share. Beyond these, the scatter is the simulation error itself, which is
# large for AR: with a relevant share $\rho$ of a few in a thousand, a random top-$n$ list
# contains only a handful of relevant items over all users.

# %% tags=["remove-cell"]
sweep = sweeps.sparsity_sweep(ratings, PAPERS_SET, ar=choice.main_ar, folds=folds, test_ratio=test_ratio,
                              removed=levels, sizes=sizes, base_size=target_size, n=N, max_users=sweep_users, seed=seed)
stats = fits.sweep_statistics(sweep, n_boot=bootstrap, seed=seed)
density_fits = fits.density_fits(stats, SYSTEMS, f"P@{N}")
size_fits = fits.size_fits(stats, SYSTEMS, f"P@{N}")
for name, draw in (("fig-sparsity-ar", figures.ar_removal_figure), ("fig-sparsity-one-r", figures.one_r_removal_figure),
                   ("fig-sparsity-size", figures.size_figure)):
    fig = draw(stats, SYSTEMS, COLOURS, N)
    dataset_caption(fig.axes[-1], ratings.name)
    glue_figure(name, fig)
glue_table("tbl-sparsity-ar-fits", report.ar_fits_table(density_fits), left=["system"])
glue_table("tbl-sparsity-one-r-fits", report.one_r_fits_table(density_fits, size_fits), left=["system"])

# %% [markdown]
# ## Precision as the test set thins: the papers' Fig. 4
#
# If the range of precision is set by $\rho$, every system should follow it. The papers
# test this on MovieLens 1M by thinning the test set: after the split, a share of the test
# ratings is removed at random, nested so that what is gone at 20% is also gone at 40%.
# We repeat the experiment with the papers' five systems (random, popularity, pLSA, and the MF and
# user-kNN that predict ratings and rank items by the predicted rating) on
# {glue:text}`folds` coin-flip splits of *{glue:text}`dataset`*, following {glue:text}`followed` of the
# {glue:text}`rated` users with a relevant test item (a uniform sample when there are more than
# `sweep_users`). Under AR
# ({glue:text}`ar_design`) the average runs over one population, the users with a relevant
# test item in the full test set, as the average over $\mathcal{U}$ in
# {eq}`eq-sparsity-eq4` does: a user who loses every relevant test item stays in it with
# precision 0. The horizontal axis is the density of the thinned test set,
# $\delta_\text{test} = |PR_\text{test}|/(t\,|\mathcal{U}|)$ over that population. Under 1R
# ({glue:text}`one_r_design`, and the same with AI candidates) each remaining relevant
# test rating is a run, plotted against the same density. Finally, on the full test set,
# the 1R target sets grow from {glue:text}`size_low` to {glue:text}`size_high` items; a user enters that sweep
# only if the largest size fits her candidates, so that every size is measured on the same
# {glue:text}`size_users` users of the first split. Bars are 95% bootstrap intervals
# over users (users resampled with all their runs, in every fold and at every level at
# once, so that the fitted lines get intervals too). The papers' figure has three panels;
# here they are {numref}`fig-sparsity-ar`, {numref}`fig-sparsity-one-r` and
# {numref}`fig-sparsity-size`, with the fitted lines in {numref}`tbl-sparsity-ar-fits` and
# {numref}`tbl-sparsity-one-r-fits`.
#
# ```{glue:figure} fig-sparsity-ar
# :name: fig-sparsity-ar
#
# AR P@n against the density of the thinned test set (the papers' Fig. 4, left), with the fitted lines dotted. Open markers: removal levels beyond 90%, not fitted. Bars: 95% bootstrap intervals over users.
# ```

# %% [markdown]
# {glue:md}`says-ar-precision-linear-in-density` From the full test set to {glue:text}`fit_max_removed` of
# it removed, the AR P@{glue:text}`n` of every system but Random falls by {glue:text}`ar_loss`, and a straight
# line in the test density fits them with R² of {glue:text}`ar_r2`. The slopes differ
# ({glue:text}`ar_slope`): each system turns density into precision at its own rate. Random
# recommendation has slope {glue:text}`ar_random_slope` (95% interval {glue:text}`ar_random_slope_low` to
# {glue:text}`ar_random_slope_high`), to be set against the slope 1 of $\sigma\delta$ in
# {eq}`eq-sparsity-eq4`. A line through the origin would make precision proportional to the density. The
# intercept's 95% interval lies below zero for {glue:text}`ar_intercept_below` of the
# {glue:text}`ar_systems` systems: for those, precision falls a little faster than the density. The
# reason is the candidate pool: thinning the test set removes the rarely rated items
# from the TI pool first, which lowers $t$ and props up the density, but the systems never ranked
# those items near the top anyway.

# %% [markdown]
# ```{glue:figure} tbl-sparsity-ar-fits
# :name: tbl-sparsity-ar-fits
#
# The lines of {numref}`fig-sparsity-ar`, AR P@n = $a + b\,\delta_\text{test}$ over the removal levels up to 90%, with 95% bootstrap intervals below each value, and the fitted relative change of P@n from the full test set to 90% removed.
# ```
#
# ```{glue:figure} fig-sparsity-one-r
# :name: fig-sparsity-one-r
#
# 1R P@n over the same removals (the papers' Fig. 4, centre), with TI-NN candidates as in the papers (left) and AI-NN candidates (right), against the density of the AR test set at the same level. Open markers: removal levels beyond 90%. Bars: 95% bootstrap intervals over users.
# ```

# %% [markdown]
# {glue:md}`says-1r-precision-independent-of-density` With TI-NN candidates, the papers' design, the 1R
# P@{glue:text}`n` of the systems other than Random changes by {glue:text}`one_r_change` from the full
# test set to {glue:text}`fit_max_removed` removed, while AR precision loses most of its value. The
# candidate pool moves with the test set: TI draws the sampled items of a run from the items with a
# test rating, {glue:text}`pool_full` on the full test set and {glue:text}`pool_thin` at
# {glue:text}`pool_thin_level` removed. The rarely rated items leave the pool first, so the sampled
# items that remain are the more popular ones, which the systems rank high and a relevant item has to beat.
# With AI-NN candidates the pool is the whole catalogue whatever the test set, and the change is
# {glue:text}`one_r_ai_change` (95% intervals from {glue:text}`one_r_ai_change_low` up to
# {glue:text}`one_r_ai_change_high`). {glue:md}`says-1r-ai-precision-independent-of-density`

# %% tags=["remove-cell"]
world = None
if world_check:
    world_ratings = datasets.load(world_check_module.WORLD, seed=seed)
    world = world_check_module.one_r_removal_change(world_ratings, PAPERS_SET, base_size=target_size,
                                                    test_ratio=test_ratio, n=N, n_boot=bootstrap, seed=seed)
glue_table("tbl-sparsity-one-r-world", report.world_table(world), left=["system"])

# %% [markdown]
# ### Why a small dataset parts from the papers
#
# The papers observed the flat 1R line on MovieLens 1M, whose million ratings leave almost
# every item with some test rating even after most of them are removed, so the TI pool hardly
# moves. On a small dataset the pool shrinks with the test set, the sampled items become the
# popular ones, and a system that ranks popular items high loses its relevant item among them
# more often. To test the statement where the papers made it, the same two ends of the sweep
# (the full test set and {glue:text}`fit_max_removed` removed) are measured on a simulated world
# of MovieLens 1M's shape, `synthetic-ml1m` ({numref}`tbl-sparsity-one-r-world`). The statement
# holds there when every system's 95% interval of the change lies within ±10%, fails when one
# lies wholly outside, and is inconclusive otherwise. {glue:md}`policy`
#
# {glue:md}`says-1r-precision-independent-of-density-ml1m`
#
# ```{glue:figure} tbl-sparsity-one-r-world
# :name: tbl-sparsity-one-r-world
#
# 1R P@n (TI-NN) on the ML-1M-shaped world with the full test set and with 90% of the test ratings removed, the relative change with its 95% bootstrap interval over users below, and the TI candidate pool at both ends.
# ```

# %% [markdown]
# ```{glue:figure} fig-sparsity-size
# :name: fig-sparsity-size
#
# 1R P@n against the size $t$ of the target sets (the papers' Fig. 4, right), log scales, with fitted power laws (solid) and $1/t$ (dashed). Bars: 95% bootstrap intervals over users.
# ```

# %% [markdown]
# {glue:md}`says-1r-precision-inverse-to-t` Random 1R precision has exponent
# {glue:text}`size_random_exponent` (95% interval {glue:text}`size_random_exponent_low` to
# {glue:text}`size_random_exponent_high`), to be set against the $-1$ of $1/t$ in {eq}`eq-sparsity-eq5` (a
# line fitted to the logarithms of a few noisy means; {numref}`fig-sparsity-check` tests $1/t$ directly).
# The other systems have exponents of {glue:text}`size_exponent`, with 95% intervals from
# {glue:text}`size_exponent_low` up to {glue:text}`size_exponent_high`. An exponent above $-1$ means
# that precision falls more slowly than the random baseline: a system that ranks the relevant item high keeps it in its top
# {glue:text}`n` even when many more sampled items are added, and its lead over random grows with $t$.

# %% [markdown]
# ```{glue:figure} tbl-sparsity-one-r-fits
# :name: tbl-sparsity-one-r-fits
#
# The 1R sweeps in numbers: the fitted relative change of 1R P@n from the full test set to 90% removed (the slope of a line in $\delta_\text{test}$, rescaled; 0 when flat), with TI-NN and AI-NN candidates, and the exponent $e$ of $P@n \propto t^{e}$ in the size sweep ($-1$ for $1/t$), with 95% bootstrap intervals below each value.
# ```
#
# The 1R range is still fixed by the experimenter's choice of $t$: its random baseline is
# $1/t$ whatever the data, which is what could make 1R values comparable across datasets,
# up to the skill of the systems.

# %% tags=["remove-cell"]
elasticities = fits.elasticities(stats, SYSTEMS, sweep.metrics)
fig = figures.metrics_figure(stats, SYSTEMS, sweep.metrics, COLOURS)
dataset_caption(fig.axes[1], ratings.name)
glue_figure("fig-sparsity-metrics", fig)
glue_table("tbl-sparsity-elasticities", report.elasticity_table(elasticities), left=["metric"])

# %% [markdown]
# ## Beyond precision
#
# The papers omit the graphs for other metrics and describe them in a paragraph. Here they
# are, from the same runs ({numref}`fig-sparsity-metrics`). How strongly a metric $M$
# follows the density is summarised by its *elasticity*, the slope of $\log M$ against
# $\log\delta_\text{test}$: an elasticity of 1 means proportional to the density, as random
# precision is; 0 means insensitive. One convention matters here. Precision and reciprocal
# rank are 0 for a user without relevant test items (nothing to find, nothing found), so
# they can be averaged over the fixed population of {numref}`fig-sparsity-ar`. Recall,
# average precision and nDCG divide by the user's relevant items and are undefined for
# such a user; they can only be averaged over the users who still have one. To compare
# like with like, {numref}`tbl-sparsity-elasticities` also gives P@$n$ and MRR over those
# users, and the statements of the papers are checked against that version of precision
# in {numref}`tbl-sparsity-metric-claims`.
#
# ```{glue:figure} fig-sparsity-metrics
# :name: fig-sparsity-metrics
#
# Six metrics along the AR removal sweep against the density of the test set, log scales, removal levels up to 90%. P@n and MRR over all users of the full test set; Recall@n, nDCG@n, nDCG and MAP over the users with a relevant test item.
# ```
#
# ```{glue:figure} tbl-sparsity-elasticities
# :name: tbl-sparsity-elasticities
#
# Elasticity $d\log M / d\log\delta_\text{test}$ of each metric along the AR removal sweep (levels up to 90%), per system, with its 95% bootstrap interval below. Random is left out: its precision follows the density by construction ({numref}`tbl-sparsity-ar-fits`), its other metrics are noise.
# ```

# %% [markdown]
# Over all users of the full test set, P@{glue:text}`n` has an elasticity of
# {glue:text}`elasticity_p_all` for the systems other than Random. Over the users who still have a
# relevant item it is {glue:text}`elasticity_p_relevant`: the rest of the sensitivity comes from users
# who lose every relevant test item and score 0. Over those users, Recall@{glue:text}`n` has an elasticity
# of {glue:text}`elasticity_recall`, MAP of {glue:text}`elasticity_map`, nDCG without a cut-off of
# {glue:text}`elasticity_ndcg` and nDCG@{glue:text}`n` of {glue:text}`elasticity_ndcg_at_n`;
# {glue:text}`many_relevant` of the users have more than {glue:text}`n` relevant test items on the full test
# set, the case in which the papers expect nDCG@{glue:text}`n` to follow the density. Set against P@$n$ over
# the same users and resamples ({numref}`tbl-sparsity-metric-claims`):
# {glue:md}`says-recall-insensitive` {glue:md}`says-map-ndcg-slightly-sensitive`
# {glue:md}`says-ndcg-at-n-sensitive` {glue:md}`says-mrr-like-precision`

# %% [markdown]
# ```{glue:figure} tbl-sparsity-metric-claims
# :name: tbl-sparsity-metric-claims
#
# The papers' statements on other metrics, measured on every system but Random. Ratio: the metric's elasticity over that of P@n, both over the users with a relevant test item. The papers put no number on "nearly insensitive", "slightly" or "clearly", so no margin can be traced to them and the book shows the ratios without a verdict.
# ```
#
# Recall divides the hits by the number of relevant items, so when the density halves,
# numerator and denominator both halve and the ratio stays; what is left is a mild
# competition effect, a relevant item has fewer relevant rivals for the top positions.
# Average precision and nDCG without a cut-off normalise by the relevant items too, but
# reward ranks non-linearly, so they keep part of the trend. nDCG at a cut-off normalises
# by the ideal DCG of the top $n$ only, which stops growing once a user has $n$ relevant
# items. Where most users have fewer than $n$ relevant test items, that normalisation
# removes most of the density, and nDCG@$n$ behaves like the other normalised metrics; it
# follows the density as the papers describe only where many users hold more than $n$
# relevant test items, as on a denser dataset or with a larger test ratio.

# %% tags=["remove-cell"]
orders = fits.order_stability(stats, SYSTEMS, f"P@{N}")
fig = figures.order_figure(orders)
dataset_caption(fig.axes[0], ratings.name)
glue_figure("fig-sparsity-orders", fig)
glue_table("tbl-sparsity-orders", report.order_table(orders), keep=[("removed", "")])

# %% [markdown]
# ## What survives sparsity
#
# The papers conclude that thinning the test data changes the range of the values but,
# except at the extremes, not the comparison between systems. We measure the comparison
# by Kendall's $\tau$ between the order of the five systems by P@$n$ at each removal level
# and the order on the full test set, with a 95% interval from the same bootstrap over
# users (the resample enters both orders). On a simulated world we also know each system's
# precision on the complete truth: the share of truly relevant items in its top $n$ among
# every item outside the user's training ratings (`recbias.evaluate.true_quality`), which
# gives a second reference, the true order. {numref}`fig-sparsity-orders` draws $\tau$ and
# {numref}`tbl-sparsity-orders` gives it with the users left at each level.
#
# ```{glue:figure} fig-sparsity-orders
# :name: fig-sparsity-orders
#
# Kendall's $\tau$ between the order of systems by P@n at each removal level and the order on the full test set (solid, with 95% bootstrap bands). Dashed, on a simulated world only: τ against its true order.
# ```
#
# ```{glue:figure} tbl-sparsity-orders
# :name: tbl-sparsity-orders
#
# The orders behind {numref}`fig-sparsity-orders`: users evaluated at each level (AR: users with a relevant test item in the full test set; 1R: users with at least one run), Kendall's $\tau$ with its 95% interval below, and the pairs of systems ordered against the full test set (the first now above the second).
# ```
#
# Where the interval of $\tau$ stays below 1, the order changed beyond the noise of the users. Where it lies
# wholly above {glue:text}`order_one_swap`, the $\tau$ of the same order with one pair of systems swapped, the
# order was kept beyond that noise: fewer than one resample of users in forty swaps a pair. An interval that
# reaches 1 and also the $\tau$ of one swap is too wide to tell. {glue:md}`says-order-survives-sparsity` Beyond {glue:text}`fit_max_removed`
# removed, $\tau$ against the full test set is {glue:text}`order_tau_beyond`.
#
# In 1R a user without any relevant test rating has no run at all: {glue:text}`one_r_users_full`
# users have runs on the full test set and {glue:text}`one_r_users_last` at
# {glue:text}`one_r_last_level` removed, and the precision of the others is averaged as if the rest
# did not exist, so 1R hides the thinning that AR shows.
#
# {glue:md}`truth`

# %% tags=["remove-cell"]
collections = lift.lift_datasets(ratings, seed, compare_all)
lifts = lift.lift_study(collections, PAPERS_SET, max_an_entries=max_an_entries, an_nonrelevant=an_nonrelevant,
                        base_size=target_size, test_ratio=test_ratio, n=N, n_boot=bootstrap, seed=seed)
glue_figure("fig-sparsity-lift", figures.lift_figure(lifts, COLOURS, N))
glue_table("tbl-sparsity-lift", report.lift_table(lifts), left=["dataset, design"])
glue_table("tbl-sparsity-spread", report.spread_table(lifts, N), left=["system"])

# %% [markdown]
# ## Reading a number with its ρ
#
# If $\rho$ sets the range of precision, a precision should travel with its $\rho$.
# The papers go as far as saying that the value of the metric has no meaning of its own
# unless it is accompanied by the relevance ratio of its target sets, and they note that
# 1R, whose $\rho = 1/t$ is fixed by design, could make values comparable across datasets.
# The simplest way to carry both numbers in one is the *lift over random*, $P@n/\rho$:
# how many times more relevant items the system puts in its top $n$ than a random order
# would. Does it make values from different datasets and designs comparable where raw
# precision is not? We measure both numbers for the five systems under the AR design and
# under 1R with $|T_u|$ = `target_size`, on the first split of each dataset available to
# this build, with intervals from the same bootstrap over users
# ({numref}`fig-sparsity-lift`, {numref}`tbl-sparsity-lift`).
#
# ```{glue:figure} fig-sparsity-lift
# :name: fig-sparsity-lift
#
# P@n (top) and the lift over random P@n/ρ (bottom) of each system on each dataset named on the axis, under the AR design of {numref}`tbl-sparsity-lift` (left of the dotted line) and 1R (right), log scales, with 95% bootstrap intervals over users.
# ```
#
# ```{glue:figure} tbl-sparsity-lift
# :name: tbl-sparsity-lift
#
# P@n of each system with its lift over random below, and ρ, the expected precision of random recommendation on the same target sets.
# ```
#
# {numref}`tbl-sparsity-spread` condenses the comparison: for each system, how far its
# largest value lies above its smallest, across the datasets within each kind of design
# and across every dataset and design together.
#
# ```{glue:figure} tbl-sparsity-spread
# :name: tbl-sparsity-spread
#
# Largest over smallest value of each system's P@n and lift over random, across the datasets of {numref}`tbl-sparsity-lift` within the AR and the 1R design, and across all of them.
# ```

# {glue:md}`says-1r-values-comparable-across-datasets`
#
# Random precision falls as $1/t$ and a good system's more slowly ({numref}`fig-sparsity-size`), so
# the lift of a good system grows as $\rho$ shrinks: it says how far a system is above random
# *within* one experiment, and is not a scale on which experiments can be compared.

# %% [markdown]
# ```{admonition} What to report with an offline precision
# :class: tip
#
# - **The design**: AR or 1R, AI or TI candidates, AN or NN with its $|N_u|$, the cut-off,
#   the positive threshold and how users without relevant test items are averaged.
# - **The relevance ratio $\rho$** of the target sets, or the expected precision of
#   random recommendation on them (the same number): $\sigma\delta$ under AR, $1/t$ under 1R.
# - **The test data**: the test ratio, the number of test and relevant test ratings, the
#   users evaluated and the harmonic mean size $t$ of the target sets.
# - **Precision with intervals** computed with the user as the unit; the lift $P@n/\rho$
#   says how far above random a system is *within* the experiment, not across experiments.
# - **A normalised metric next to precision**, such as recall or nDCG without a cut-off:
#   they take most of the density out and travel better between set-ups.
# ```

# %% tags=["remove-cell"]
values = claims.measured(summary, sweep, density_fits, size_fits, orders, elasticities, lifts, world,
                         world_check_module.WORLD)
checked = register(claims.FINDINGS + published(claims.PUBLISHED), values, dataset=ratings.name)
say_findings(checked)
glue("truth", Markdown(claims.TRUTH["truth_tau_full" in values].format(**values)), display=False)
for name, text in report.numbers(values).items():
    say(name, text)
metric_keys = {finding.key for finding in claims.METRIC_FINDINGS}
glue_table("tbl-sparsity-metric-claims", findings_table([claim for claim in checked if claim.key in metric_keys]),
           wrap=True, left=["statement", "evidence"])
glue_table("tbl-sparsity-findings", findings_table(checked), wrap=True, left=["statement", "evidence"])

# %% [markdown]
# ## Against the paper
#
# Section 4 of the paper publishes its evidence as figures without numbers, and the
# thesis adds none, so there is no published value to reproduce here. What it states is
# qualitative, and each statement is checked on this page's data and registered on the
# scorecard; {numref}`tbl-sparsity-findings` lists them with the measurement behind each
# verdict. Where our data do not bear a statement out, the sections above say why.
#
# ```{glue:figure} tbl-sparsity-findings
# :name: tbl-sparsity-findings
#
# The statements of {cite:t}`bellogin2017statistical`, Section 4, checked on this page's dataset, with the evidence and the criterion of each verdict.
# ```
#
# ## What this means for designing an offline evaluation
#
# - **A precision value is a measurement of the test data as much as of the system.** Under
#   AR it moves with the density of relevant test items: removing 90% of the test ratings
#   cost the systems here {glue:text}`ar_loss` of their precision, without any change in
#   what they recommend.
# - **Compare systems within one experiment, not values across experiments.** Thinning the
#   test set leaves the order of clearly different systems in place until the test data are
#   sparse (here $\tau$ against the full test set is {glue:text}`order_tau` up to
#   {glue:text}`fit_max_removed` removed and {glue:text}`order_tau_beyond` beyond, under AR and 1R); close
#   systems are the first to swap, and the interval of $\tau$ says how firm an order is.
# - **Report $\rho$ next to every precision.** It tells the reader where random
#   recommendation stands. Dividing by it (the lift over random) is no cure: a good system's
#   precision falls more slowly than $\rho$, so its lift grows as $\rho$ shrinks, and lifts
#   from different set-ups are no scale to compare them on.
# - **1R fixes the range by design**: its random baseline is $1/t$ whatever the data, so
#   choose $t$ deliberately and report it. Keep the candidate pool fixed (AI) when test
#   data are thin, or the pool itself changes with the test data.
# - **Which metrics are less exposed.** A metric whose elasticity is a small part of precision's moves little
#   with the density. Here, over the users with a relevant test item, the elasticity of
#   Recall@{glue:text}`n` is {glue:text}`recall_ratio` times that of P@{glue:text}`n`, that of MAP and nDCG
#   {glue:text}`map_ndcg_ratio` times and that of nDCG@{glue:text}`n` {glue:text}`ndcg_at_n_ratio` times;
#   but these metrics can only average over users who have relevant test items: say how the others were
#   treated.
#
# ## Try it
#
# - Another dataset: `make book CHAPTERS=3 DATASET=ml-100k`, `DATASET=ml-latest-small`,
#   `DATASET=lastfm-2k` (its large artist catalogue turns AR TI-AN into TI-NN(2,500),
#   see `max_an_entries`), `DATASET=coat`, or your own ratings with `DATASET=csv:PATH`.
# - The papers' number of splits: `.venv/bin/python -m recbias.bookkit --chapters 3 --dataset ml-100k -p folds 5`.
# - Other removal levels and target sizes: `-p removed "0, 0.5, 0.9"` or
#   `-p target_sizes "50, 100, 1000, 1500"`; a longer list for precision:
#   `-p cutoff 20`.
# - Every user in the sweeps and the check: `-p sweep_users None`; tighter intervals:
#   `-p bootstrap 1000`.
# - Another seed changes the simulated world, the splits and every sample:
#   `make book CHAPTERS=3 SEED=7`.

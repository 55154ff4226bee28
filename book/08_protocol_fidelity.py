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
# # Which protocol recovers the true order of systems?
#
# The earlier chapters each took one protocol apart and showed how it distorts what
# it measures. A practitioner rarely cares about the distortion itself. The question
# behind an offline experiment is simpler: *if I compare my candidate systems with
# protocol X, will I pick the right one?* A protocol can inflate every number and
# still order systems correctly; another can look principled and still swap the two
# systems that matter. This chapter measures that directly. It needs something none
# of the papers had: the true quality of each system, independent of the biased data
# the protocols see. We take it from two places, a simulated world that knows every
# user's taste and the Coat dataset {cite:p}`schnabel2016recommendations`, whose
# users also rated items drawn for them at random.

# %% tags=["parameters"]
dataset = "synthetic"  # dataset with a ground truth (a synthetic preset or "coat"); others are replaced by a simulated world of their size
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
second_dataset = "coat"  # a second dataset with a ground truth, "" to skip; skipped with a note when not available
split_seeds = 2  # coin-flip splits per dataset, int in [1, 20]
bootstrap = 200  # bootstrap resamples of users, int in [20, 5000]
grid_alphas = "0.5, 1.4"  # popularity skews of the simulation grid (comma-separated, each in [0, 2])
grid_selections = "0, 2.5"  # observation-bias strengths of the grid (comma-separated, each in [0, 5])
grid_seeds = 1  # worlds per grid cell, int in [1, 10]

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import seaborn as sns

from recbias import datasets
from recbias.bookkit.page import say
from recbias.bookkit.plotting import dataset_caption
from recbias.bookkit.scorecard import finding
from recbias.bookkit.tables import fmt_number, glue_figure, glue_table
from recbias.experiments import fidelity, truth

world = truth.world_with_truth(ratings, seed)
field = fidelity.system_field(seed)
say("world-note", "" if world is ratings else (
    f"The dataset of this build, {ratings.name}, has no ground truth, so this page studies a simulated "
    f"world of the same size ({world.n_users:,} users, {world.n_items:,} items, {world.n_ratings:,} ratings)."))
glue_table("tbl-truth-field", fidelity.field_table(field))
glue_table("tbl-truth-protocols", truth.protocol_table(truth.protocols(world.n_items)))

# %% [markdown]
# ## Two sources of truth
#
# **Simulated worlds.** The generator of {doc}`01_cranfield` draws a complete matrix of
# true relevance and then observes ratings missing not at random: popular items and
# items a user likes are more likely to be rated. For a system fitted on the observed
# training ratings, its *true* precision for user $u$ is the share of truly relevant
# items among its top ten over every item $u$ did not rate in training,
#
# $$
# P^\ast@10(u) = \frac{1}{10} \sum_{i \in \text{top}_{10}(u)} \mathrm{rel}^\ast(u, i),
# \qquad \text{top}_{10}(u) \subset \mathcal{I} \setminus R_\text{train}(u),
# $$ (eq-true-precision)
#
# and its true nDCG@10 uses the same list with the ideal list built from the relevant
# items outside training. This is the quantity every offline design tries to estimate.
#
# **Coat.** Each of its 290 users rated 24 coats of their own choosing and 16 coats
# drawn uniformly at random for them. A system trained on the self-selected ratings
# ranks a user's random coats; because those coats are a uniform sample of the
# catalogue, precision and nDCG over them (at 5, since there are only 16) are
# unbiased estimates of the system's quality on random items
# {cite:p}`schnabel2016recommendations`. The estimate is noisy, with 16 items a user,
# and the intervals below show how noisy.
#
# {glue:text}`world-note`
#
# ## A wide field of systems
#
# The order of five systems is a weak test: a protocol that only separates good from
# bad gets most pairs right by luck. The field here has fourteen systems
# ({numref}`tbl-truth-field`) with very different reliance on popularity: the two
# baselines, pLSA, matrix factorisation at several sizes and regularisations, user-
# and item-based neighbours, and three *blends* that mix the popularity rank with the
# MF rank of each item in fixed proportions, so that a protocol that rewards
# popularity for its own sake shows it by ranking the blends too high.
#
# ```{glue:figure} tbl-truth-field
# :name: tbl-truth-field
#
# The fourteen systems of the chapter. Blends rank items by a weighted mean of their
# popularity percentile and their MF percentile for the user.
# ```
#
# ## Protocols under test
#
# Every protocol sees only the observed ratings: a coin-flip 80/20 split of them, or
# for U1R and UAR the uniform split of {doc}`05_neutralising_designs`. The list
# ({numref}`tbl-truth-protocols`) covers the standard designs of {doc}`02_designs`; the
# sampled metric of {doc}`06_sampled_metrics`, as it is and corrected by the
# bias-variance estimator; the popularity-neutralising designs of
# {doc}`05_neutralising_designs`; the metrics built for incomplete judgments (bpref,
# infAP, stratified recall) and the propensity-weighted precisions of the same chapter;
# and the discounted AUC of {doc}`07_discounted_auc`, with and without its short-head
# step. Every per-run value is first averaged over the runs of its user, so each user
# counts once. The splits are the first folds of {doc}`02_designs`, so the systems that
# chapter fits are reused here.
#
# ```{glue:figure} tbl-truth-protocols
# :name: tbl-truth-protocols
#
# The protocols, each a design on a split read with one metric. 1R target sets hold
# the held-out item and $k$ sampled items, with $k$ sized to the catalogue.
# ```

# %% tags=["remove-cell"]
studies = [truth.truth_study(world, seed=seed, split=s) for s in range(split_seeds)]
truth_metric = next(iter(studies[0].truth))
main = fidelity.fidelity_over_seeds(studies, truth_metric, n_boot=bootstrap)
glue_table("tbl-truth-main", truth.fidelity_table(main), "{:.2f}")
say("truth-metric", truth_metric)
say("best-protocol", main["protocol"].iloc[0])
say("best-tau", fmt_number(main["tau"].iloc[0], 2))
say("worst-protocol", main["protocol"].iloc[-1])
say("worst-tau", fmt_number(main["tau"].iloc[-1], 2))
figure, ax = plt.subplots(figsize=(7.5, 5.2))
sns.pointplot(data=main, y="protocol", x="tau", linestyle="none", color="#1f77b4", ax=ax)
ax.errorbar(main["tau"], range(len(main)), xerr=[main["tau"] - main["tau_low"], main["tau_high"] - main["tau"]],
            fmt="none", ecolor="#1f77b4", alpha=0.5)
ax.set(xlabel=r"Kendall $\tau_b$ with the true order", ylabel="", xlim=(-0.1, 1.0))
dataset_caption(ax, world.name)
glue_figure("fig-truth-main", figure)

# %% [markdown]
# ## Fidelity on the book's dataset
#
# {numref}`fig-truth-main` ranks the protocols by Kendall's $\tau_b$ between the order
# of the fourteen systems they produce and the true order by {glue:text}`truth-metric`,
# averaged over the coin-flip splits. {glue:text}`best-protocol` comes closest
# ($\tau_b$ = {glue:text}`best-tau`), {glue:text}`worst-protocol` is furthest away
# ($\tau_b$ = {glue:text}`worst-tau`). The bars show where $\tau_b$ falls when the
# users are resampled: they are wide, because a user population of this size already
# moves systems of similar quality past each other. Resampling also blurs close
# systems, so the bars sit slightly below the full-sample point; they describe the
# spread of the measure rather than an interval around the point.
#
# ```{glue:figure} fig-truth-main
# :name: fig-truth-main
#
# Kendall $\tau_b$ between each protocol's order of the systems and the true order
# (points: full sample, mean over splits; bars: 2.5 and 97.5 percentiles over users
# resampled with replacement).
# ```
#
# {numref}`tbl-truth-main` adds the share of system pairs ordered as the truth orders
# them, whether the truly best system comes first (mean over splits) and how often it
# does in the resamples. Picking the best system is a harder test than a good $\tau_b$:
# the top systems are close, and a protocol can order the field well while swapping
# the first two.
#
# ```{glue:figure} tbl-truth-main
# :name: tbl-truth-main
#
# Fidelity of every protocol on the book's dataset: $\tau_b$ (mean over splits, with
# its range over splits and the bootstrap percentiles over users), share of pairs in
# the true order, best system first (mean over splits) and share of user resamples in
# which it is. The unit of resampling is the user.
# ```

# %% tags=["remove-cell"]
second = datasets.load(second_dataset) if second_dataset and datasets.available(second_dataset) else None
say("second-note", f"The second dataset, {second_dataset}, is not available on this machine, so the table "
    "below shows the book's dataset only; the datasets appendix says where to put its files."
    if second_dataset and second is None else "")
second_metric, on_second = "none", None
if second is not None:
    second_studies = [truth.truth_study(second, seed=seed, split=s) for s in range(split_seeds)]
    second_metric = list(second_studies[0].truth)[-1]
    on_second = fidelity.fidelity_over_seeds(second_studies, second_metric, n_boot=bootstrap)
names = (world.name, second_dataset)
glue_table("tbl-truth-second", truth.comparison_table(main, on_second, names), "{:.2f}")
say("truths-agree", truth.agreement_text(main, on_second, names))
say("second-metric", second_metric)

# %% [markdown]
# ## A second truth: random ratings
#
# {glue:text}`second-note`
#
# When a second dataset with a truth is available (Coat by default),
# {numref}`tbl-truth-second` sets its fidelity next to the book's dataset; on Coat the
# truth is {glue:text}`second-metric` over the random coats. With 290 users and a
# field of systems that are close in quality, the user resamples spread far, so only
# large differences between protocols mean anything there.
#
# ```{glue:figure} tbl-truth-second
# :name: tbl-truth-second
#
# Kendall $\tau_b$ with the true order on the two datasets (mean over splits), in the
# order of the book's dataset, with the 2.5 and 97.5 percentiles over the second
# dataset's users resampled.
# ```
#
# {glue:text}`truths-agree`

# %% tags=["remove-cell"]
alphas = [float(a) for a in grid_alphas.split(",")]
selections = [float(s) for s in grid_selections.split(",")]
grid = truth.simulation_grid(alphas, selections, seeds=range(seed, seed + grid_seeds),
                             n_users=600, n_items=600, n_ratings=24_000)
cells = truth.grid_table(grid, main["protocol"])
figure, ax = plt.subplots(figsize=(7.5, 1.6 + 0.3 * len(cells)))
sns.heatmap(cells, annot=True, fmt=".2f", cmap="viridis", vmin=0, vmax=1, cbar_kws={"label": r"Kendall $\tau_b$"}, ax=ax)
ax.set(xlabel="popularity skew and observation bias of the world", ylabel="")
glue_figure("fig-truth-grid", figure)
say("grid-trend", truth.grid_trend(grid))

# %% [markdown]
# ## Where protocols break: a grid of worlds
#
# One world is one data point. {numref}`fig-truth-grid` repeats the study on small
# simulated worlds (600 users, 600 items, 24,000 ratings) over a grid of popularity
# skew $\alpha$ and observation bias, the strength with which a user's liking of an
# item raises the chance that the rating is observed. The default grid is small to
# keep the build fast; the parameters `grid_alphas`, `grid_selections` and
# `grid_seeds` widen it.
#
# {glue:text}`grid-trend`
#
# ```{glue:figure} fig-truth-grid
# :name: fig-truth-grid
#
# Kendall $\tau_b$ of each protocol with the true order on simulated worlds (mean over
# the worlds of a cell), for each popularity skew $\alpha$ and strength of observation
# bias; protocols in the order of {numref}`fig-truth-main`.
# ```

# %% tags=["remove-cell"]
checked = truth.findings(main, grid, world.name)
for item in checked:
    finding(item["key"], label=item["label"], holds=item["holds"], evidence=item["evidence"],
            source="recbias chapter 8", dataset=item["dataset"], anchor="fig-truth-main")
glue_table("tbl-truth-findings", truth.findings_table(checked))

# %% [markdown]
# ## The answer, as far as the evidence goes
#
# {numref}`tbl-truth-findings` states what this build's data say about each general
# claim one might make; each is registered on the scorecard and checked again on
# every rebuild.
#
# ```{glue:figure} tbl-truth-findings
# :name: tbl-truth-findings
#
# Statements about protocol fidelity and whether this build's measurements bear them
# out, with the evidence.
# ```
#
# Three practical habits follow from the whole book rather than from one table, and
# none of them depends on which protocol wins on a given dataset:
#
# | if you want to | do | report alongside |
# |---|---|---|
# | pick the best of close systems | check that the protocol separates them at all: resample users and count how often the winner stays first | the share of resamples it wins, not only the mean |
# | compare systems that lean on popularity to different degrees | run a popularity-neutralising design next to the standard one | both orders, and the pairs on which they disagree |
# | report one number | give its interval over users and the relevance ratio of its target sets | the lift over random of {doc}`03_sparsity_bias` |
#
# Where the simulation and Coat disagree, the simulation's verdict is the more
# precise and Coat's the more realistic: a simulated world follows our model of why
# ratings go missing, Coat follows real people, but with 290 of them.

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
# # Audit your own evaluation
#
# The chapters before this one measure biases on the book's data with the book's systems. This page
# turns the same instruments on *your* ratings and *your* systems: it asks how biased the data is, how
# each system scores under the protocols a paper could report, how much of each score popularity alone
# would earn, whether the order of the systems survives a change of protocol, and which protocol
# orders systems most faithfully, on the data's own truth when they have one and otherwise on a
# simulated world shaped like them. It ends with a
# protocol card to paste into a paper. Systems are preset names of the package, Python classes given as
# `module:Class`, or directories of scores written by any other program for the candidates that
# `python -m recbias prepare` lists; `python -m recbias audit` builds this page alone.

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of the splits, samples and tie-breaks, int in [0, 4294967295]
systems = "mf, item-knn"  # systems to audit, comma-separated: preset names, module:Class, or score directories
test_ratio = 0.2  # share of ratings held out by the random split, float in (0, 1)
metric = "usual"  # metric family every protocol reads at the cutoff, usual for its own; one of usual, P, Recall, HR, F1, RR, AP, nDCG
cutoff = 10  # length of the ranked list every protocol's metric reads, int in [1, 1000]
compare_all = True  # profile the other real datasets available locally beside this one
bootstrap = 200  # user resamples of the protocols' fidelity to the truth, int in [20, 5000]
summary = ""  # path of a JSON summary of the audit to write, or empty for none

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
from IPython.display import Markdown
from myst_nb import glue

from recbias.bookkit.claims import register
from recbias.bookkit.page import say, say_findings
from recbias.bookkit.scorecard import findings_table
from recbias.bookkit.tables import glue_figure, glue_table, show_table
from recbias.chapters.c09_audit import claims, figures, report
from recbias.chapters.c09_audit.study import compare, measure, profile, protocols, recommend
from recbias.recommenders.external import REFERENCES, parse_systems

audited = parse_systems(systems, seed=seed)
plan = protocols.audit_protocols(ratings.n_items, metric, cutoff)
measured = measure.measure(ratings, plan, REFERENCES | audited, seed=seed, test_ratio=test_ratio)
say("audited", ", ".join(audited))
say("audit-metric-read", claims.METRIC_READ[metric == protocols.USUAL].format(metric=metric, cutoff=cutoff))

# %% [markdown]
# ## The data's bias profile
#
# Four properties of a dataset set the scale of the biases the book describes. *Popularity skew*: when
# a few items collect most ratings, a recommender that suggests them to everybody looks good, all the
# more under designs that rank the test items only ({doc}`04_popularity_bias`). The Gini coefficient of
# the item counts and the exponent α of the shifted power law fitted to them
# ($c_1 + \beta (c_2 + k)^{-\alpha}$ for the item of rank $k$) measure it. *Positive ratio against
# popularity*: when popular items are also liked more often, popularity is partly a signal of quality,
# and neutralising it removes some genuine merit ({doc}`05_neutralising_designs`); Spearman's rank
# correlation between an item's number of ratings and its share of positive ones reads it over every
# item, the ratio of that share between the most and the least rated tenth at the two ends. *Positive
# ratio against activity*: when users rate what they expect to like, the most active users reach further
# down their tastes and their share of positive ratings falls; the same correlation over the users
# reflects this observation bias, which {doc}`08_protocol_fidelity` varies in its simulated worlds.
# *Density*: the fewer
# relevant items a target set holds, the lower every precision, whatever the system
# ({doc}`03_sparsity_bias`). {numref}`tbl-audit-profile` sets the audited data beside every other
# dataset at hand. {glue:md}`audit-alpha-bound`
#
# ```{glue:figure} tbl-audit-profile
# :name: tbl-audit-profile
#
# Bias profile of the audited data (first column) and of the other real datasets available locally,
# with the chapter that explains each number. Gini: of the item counts; α: of the fitted power law;
# top-10% share: share of the ratings on the most rated tenth of the items; positive ratio: share of
# positive ratings; positive head/tail: share of positive ratings of the most rated tenth of the items
# over that of the least rated tenth; activity–positive ρ and popularity–positive ρ: Spearman's rank
# correlation between the number of ratings and the share of positive ones, over users and over items.
# ```

# %% tags=["remove-cell"]
profiles = profile.profiles(ratings, others=compare_all)
glue_table("tbl-audit-profile", report.profile_table(profiles), left=["number", "explained in"])
data_profile = profiles.iloc[0]
glue("audit-alpha-bound", Markdown(claims.ALPHA_AT_BOUND[data_profile["α at a bound"]].format(
    alpha=data_profile["fitted α"])), display=False)

# %% [markdown]
# ## Each system under each protocol
#
# {numref}`tbl-audit-protocols` lists the protocols: the all-relevant (AR) and one-relevant (1R) designs
# over the test items, the percentile (P1R) and uniform (U1R, UAR) designs that neutralise popularity, a
# sampled metric as it is often reported and the same corrected for sampling, the whole catalogue
# ranked at once, and bpref and infAP, which read the AR runs as incomplete judgments
# ({doc}`05_neutralising_designs`). Of their metrics, {glue:text}`audit-metric-read` (the parameters `metric` and `cutoff`
# choose them). Random and Popularity are always measured as references. {numref}`tbl-audit-scores` and
# {numref}`fig-audit-scores` give every mean with a 95% interval that takes the user as the unit; the
# *relevant share* is the share of relevant items among the candidates, the test sparsity the protocol
# works at.
#
# ```{glue:figure} tbl-audit-protocols
# :name: tbl-audit-protocols
#
# The protocols of the audit and the chapters that explain them.
# ```
#
# ```{glue:figure} tbl-audit-scores
# :name: tbl-audit-scores
#
# Means over runs with 95% intervals over users.
# ```
#
# ```{glue:figure} fig-audit-scores
# :name: fig-audit-scores
#
# Each system under each protocol, with 95% intervals over users.
# ```

# %% tags=["remove-cell"]
glue_table("tbl-audit-protocols", report.protocols_table(plan, measured), left=["protocol", "design", "explained in"])
glue_table("tbl-audit-scores", report.scores_table(measured), left=["protocol"], keep=["protocol"])
glue_figure("fig-audit-scores", figures.scores_figure(measured.summary(), ratings.name))

# %% [markdown]
# ## How much of each score is popularity
#
# The *popularity index* of a protocol places Popularity on the scale from Random (0) to the best of the
# audited systems (1), $(M_\text{pop} - M_\text{rnd}) / (\max_s M_s - M_\text{rnd})$
# ({doc}`05_neutralising_designs`). A protocol with an index near 1 cannot tell a system from one that
# recommends the most rated items; the lift of each system over Popularity, $M_s / M_\text{pop}$, says
# how far each one stands above that floor. Under the neutralising designs the lift is the share of the
# score that popularity does not explain ({numref}`tbl-audit-popularity`).
#
# ```{glue:figure} tbl-audit-popularity
# :name: tbl-audit-popularity
#
# Popularity index per protocol and lift of each audited system over Popularity.
# ```

# %% tags=["remove-cell"]
means = measured.means()
share = compare.popularity_share(means)
glue_table("tbl-audit-popularity", share.reset_index(), "{:.2f}", left=["protocol"])

# %% [markdown]
# ## Does the order of the systems survive a change of protocol?
#
# A comparison is worth reporting if another reasonable protocol would not reverse it. Kendall's τ
# between the orders of the systems (references included) under every two protocols is 1 when they agree
# on every pair and −1 when they reverse every pair ({numref}`fig-audit-tau`); the pairs some protocol
# reverses are listed below it: on this data, {glue:text}`flip-count` of the {glue:text}`pair-count`
# pairs of systems change order with the protocol. {glue:text}`audit-agreement`
#
# ```{glue:figure} fig-audit-tau
# :name: fig-audit-tau
#
# Kendall's τ between the orders of the systems under every two protocols; with fewer than five systems, the
# share of the pairs of systems they order alike.
# ```

# %% tags=["remove-cell"]
tau = compare.tau_matrix(means)
flips = compare.flipped_pairs(means)
agreement, few = compare.agreement_map(means)
glue_figure("fig-audit-tau", figures.tau_figure(agreement, ratings.name, alike=few))
systems, pairs = len(means.columns), len(means.columns) * (len(means.columns) - 1) // 2
say("audit-agreement", claims.FEW_SYSTEMS[few].format(systems=systems, pairs=pairs, step=2 / pairs))
say("flip-count", str(len(flips)))
say("pair-count", str(pairs))

# %% tags=["remove-input"]
show_table(report.flips_table(flips), left=list(flips.columns), wrap=True,
           empty_note="*No protocol reverses another's order of any pair of systems.*")

# %% [markdown]
# ## Which protocol to report
#
# Which of these protocols recovers the true order of systems can only be checked where the truth
# is known. Chapter 8 ({doc}`08_protocol_fidelity`) measures it on simulated worlds and on Coat's
# ratings of random items; this page runs the same measurement with the same function and the same
# rule. Each protocol draws its target sets with a seed of its own, whatever else is measured beside it,
# so where chapter 8 reads the same truth at its default settings, this table repeats its values for
# these protocols.
# {glue:md}`audit-truth-source` {numref}`tbl-audit-world` sets the data beside the world that
# stands in for them, if one was drawn. {glue:md}`audit-world-bound` Chapter 8's field of
# {glue:text}`audit-field-size` systems, Random and Popularity among them, is fitted on
# {glue:text}`audit-splits` random splits and as many uniform splits, and each protocol's order of the
# systems is set against their true order by {glue:text}`audit-truth-metric`
# ({glue:text}`audit-truth-metric-why`): Kendall's $\tau_b$, with its spread over
# {glue:text}`audit-bootstrap` resamples of the users ({numref}`tbl-audit-fidelity`). A protocol is
# *within noise* of the most faithful one when the paired resamples do not put it behind at the
# {glue:text}`level` level; among those, the page recommends one by the rule given below.
# {glue:md}`policy`
#
# ```{glue:figure} tbl-audit-world
# :name: tbl-audit-world
#
# The audited data and the simulated world that stands in for them, in the numbers of
# {numref}`tbl-audit-profile`; the world's are measured on the ratings it drew.
# The exponent and the shift of the fitted curve trade off against each other, so the two α can differ
# where the Gini coefficients and top-10% shares agree.
# ```
#
# ```{glue:figure} tbl-audit-fidelity
# :name: tbl-audit-fidelity
#
# Kendall's $\tau_b$ between each protocol's order of the systems and their true order on the
# data's own truth or on the stand-in world, the middle 95% of its values over users resampled with replacement, its rank, and
# whether the paired resamples tell it from the most faithful protocol; the protocol to report in bold.
# $\tau_b$ moves in steps, and resampling blurs close systems and pulls it down, so the range
# describes the spread of the measure, not an interval centred on it: it can end at $\tau_b$ itself,
# as in {doc}`08_protocol_fidelity`.
# ```

# %% tags=["remove-cell"]
kept = measured.kept(plan)
on_truth = recommend.truth_fidelity(ratings, kept, seed=seed, n_boot=bootstrap,
                                   truth_metric=protocols.truth_metric(metric, cutoff))
advice = recommend.recommend(on_truth.table, kept)
caveats = recommend.caveats(advice, means, tau, on_truth, plan)
glue_table("tbl-audit-world", report.profile_table(on_truth.profiles), left=["number", "explained in"],
           empty_note="*The audited data carry their own truth: no world stands in for them.*")
glue_table("tbl-audit-fidelity", report.fidelity_table(on_truth, advice), left=["protocol"])
glue("audit-truth-source", Markdown(claims.TRUTH_SOURCE[on_truth.kind]), display=False)
glue("audit-world-bound", Markdown(report.world_bounds(on_truth.shape)), display=False)
say("audit-field-size", str(len(on_truth.systems)))
say("audit-splits", str(recommend.FIDELITY_SPLITS))
say("audit-truth-metric", on_truth.truth_metric)
say("audit-truth-metric-why", claims.TRUTH_METRIC[metric == protocols.USUAL])
say("audit-bootstrap", f"{bootstrap:,}")
say("audit-refused", on_truth.refused or "none")
for name, value in report.advice_values(advice, on_truth, share, caveats).items():
    glue(f"audit-{name}", Markdown(value), display=False)
glue("audit-ranking", Markdown(claims.RANKING[advice.ranked] if advice else ""), display=False)

# %% [markdown]
# On {glue:md}`audit-world`, the protocol closest to the true order of the
# {glue:text}`audit-field-size` systems is {glue:md}`audit-closest` ($\tau_b$ =
# {glue:md}`audit-closest-tau`). The paired resamples of users do not tell these protocols from it
# at the {glue:text}`level` level: {glue:md}`audit-tied`; clearly behind it: {glue:md}`audit-behind`.
# The protocol to report is the most faithful of these that reads the runs as they are: neither
# through a correction, a modelling choice a reader must trust, nor as an uncorrected sampled metric,
# which {doc}`06_sampled_metrics` shows to be biased; when every one of them is of those kinds, the most
# faithful corrected one, and an uncorrected sampled metric only when nothing else is left. On this data, **report {glue:md}`audit-report`**.
# {glue:md}`audit-ranking` Where no world can be drawn in the shape of the data, or its
# truth does not order the systems, no protocol's fidelity is defined, the names above read "none",
# and chapter 8's results on its simulated worlds are the guide; the generator's reason for refusing
# a world, if it did: {glue:text}`audit-refused`.
#
# Before reporting it, check what it says on your own data with your own systems:
#
# - Pairs of systems whose order under it other protocols reverse on your data:
#   {glue:md}`audit-reversed-count`, listed below; report both orders of every pair listed.
# - The lowest $\tau$ between its order of your systems and another protocol's:
#   {glue:md}`audit-furthest-tau`, under {glue:md}`audit-furthest` (1 when every protocol orders
#   them as it does).
# - Under it, Popularity reaches {glue:md}`audit-popularity-index` of the way from Random to the best
#   audited system; lift over Popularity: {glue:md}`audit-lifts`.
# - When the protocol to report does not neutralise popularity, report beside it the lift over
#   Popularity under {glue:md}`audit-companion`, the most faithful neutralising protocol on the truth,
#   so that a reader sees how much of the gain popularity explains.

# %% tags=["remove-input"]
show_table(report.reversals_table(caveats), left=["above", "below", "reversed under"], wrap=True,
           empty_note="*No other protocol reverses a pair of systems it orders.*")

# %% [markdown]
# A stand-in world copies the data's size, popularity and share of positive ratings, not the tastes
# of its users; whatever the truth, the systems it orders are the book's field, not yours: read the
# ranking as a guide to which protocols can be trusted on data of this shape. Where the protocols within
# noise of the best disagree about your systems, report their orders side by side.
#
# ## Evaluation protocol card
#
# The paragraph and {numref}`tbl-audit-card` describe this audit in the form a paper needs.
#
# > We evaluate on {glue:text}`card-data` with a random split holding out {glue:text}`card-held-out`
# > of the ratings (seed {glue:text}`card-seed`) and, where the data allow one, a split with uniform
# > test item profiles (splits used here: {glue:text}`card-split-names`). Each system ranks its
# > candidates under {glue:text}`card-protocol-count` protocols ({glue:text}`card-protocols`); we
# > report means over runs with 95% intervals that treat the user as the unit (up to
# > {glue:text}`card-users` users), beside Random and Popularity, computed with
# > {glue:text}`card-software`.
#
# ```{table} Evaluation protocol card of this audit.
# :name: tbl-audit-card
#
# | field | value |
# |---|---|
# | data | {glue:text}`card-data` |
# | systems | {glue:text}`card-systems` |
# | designs | {glue:text}`card-designs` |
# | candidate policy | test items (TI) or all items (AI) not rated in training; NN(k) samples k per run |
# | metrics | {glue:text}`card-metrics` |
# | splits | {glue:text}`card-split`; test ratio {glue:text}`card-test-ratio` |
# | seeds | {glue:text}`card-seed` (splits, samples, ties) |
# | intervals | 95%, users as the unit |
# | software | {glue:text}`card-software` |
# ```

# %% tags=["remove-cell"]
card = report.card_values(plan, measured, dataset=ratings.name, seed=seed, test_ratio=test_ratio, systems=list(audited))
for name, value in card.items():
    say(f"card-{name}", value)

# %% [markdown]
# ## What this page checked
#
# The page checks one statement of the papers on the audited data: that the neutralising designs leave
# popularity a smaller share of the scale than AR does.

# %% tags=["remove-input"]
found = register(claims.FINDINGS, claims.measured(share, plan), dataset=ratings.name)
say_findings(found)
show_table(findings_table(found), left=["statement", "evidence"], wrap=True)
settings = dict(dataset=ratings.name, seed=seed, test_ratio=test_ratio, metric=metric, cutoff=cutoff,
                systems=list(audited))
if summary:
    report.write_summary(summary, report.summary_content(measured, plan, profile.profiles(ratings, others=False),
                                                         share, tau, flips, card, on_truth, advice, settings))

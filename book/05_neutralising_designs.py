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
# # Designs that neutralise popularity
#
# {doc}`04_popularity_bias` showed why a list of the most popular items scores so well
# offline: on a random split, an item's expected number of positive test ratings is
# proportional to its positive ratings overall, so the items with the most training
# ratings also hold the most chances to be "relevant". This chapter changes the
# experiment rather than the metric. If the test set is built so that popular items no
# longer hold more test ratings than others, popularity can no longer buy precision, and
# whatever advantage remains must come from something else. We derive, build and measure
# the two designs of {cite:t}`bellogin2017statistical` (Section 6; also
# {cite:t}`bellogin2012thesis`, Section 4.6). The first draws the non-relevant items of
# each one-relevant-item target set (the 1R design of {doc}`02_designs`) from the
# popularity band, or *percentile*, of the held-out item: we call it **P1R**. The second
# builds a test set that holds the same number of ratings of every item it tests, a
# *uniform* test item profile; read with one relevant item per target set it is **U1R**,
# read with all of a user's relevant items at once (the AR design) it is **UAR**. We set
# them against the simple remedy of dropping the most popular items
# {cite:p}`cremonesi2010performance`, against metrics built for incomplete judgments
# (bpref, infAP, stratified recall), and against the inverse-propensity estimators that
# the field adopted later {cite:p}`yang2018unbiased`.

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]
folds = 5  # random and uniform splits of the main dataset (the papers: 5), int in [1, 20]
test_ratio = 0.2  # sigma, share of ratings held out (the papers: 0.2), float in (0, 1)
min_train_ratio = 0.2  # epsilon, share of each target item's ratings kept for training in U splits (the papers: 0.2), float in [0, 1)
target_size = 100  # |T_u^r| of the 1R designs (the papers: 100), int in [2, 100000]
percentiles = 10  # m, popularity percentiles of P1R (the papers: 10), int in [2, 100]
head = 0.1  # share of the most popular items removed in "1R -x% head" (the papers: 0.1), float in (0, 1)
second_dataset = "lastfm-2k"  # second dataset, reduced to its positive ratings, "" to skip (the papers: Last.fm)
second_folds = 1  # random and uniform splits of the second dataset, int in [1, 20]
nonrelevant = 2500  # |N_u| of AN designs too large for memory, sampled instead (the papers on Last.fm: 2,500), int in [1, 1000000]
bootstrap = 200  # resamples of users behind every comparison of the findings, int in [20, 5000]

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

# %% tags=["remove-cell"]
from recbias.bookkit.claims import published, register
from recbias.bookkit.page import load_dataset, say, say_findings, show_text
from recbias.bookkit.plotting import dataset_caption, palette
from recbias.bookkit.scorecard import findings_table
from recbias.bookkit.tables import glue_figure, glue_table
from recbias.chapters.c05_neutralising_designs import claims, figures, report, study
from recbias.recommenders import PAPERS_SET, TOP_N_LEARNERS
from recbias.text import and_list, fmt_number, fmt_pct

options = dict(test_ratio=test_ratio, min_train_ratio=min_train_ratio, target_size=target_size,
               percentiles=percentiles, head=head, nonrelevant=nonrelevant, seed=seed)

# %% [markdown]
# ## Where the bias comes from, in one line
#
# Write $R(i)$ for the ratings of item $i$, $PR(i)$ for its positive ones, $\sigma$ for
# the test ratio and $\mathcal{C}$ for the candidate items. For a non-personalised
# recommender $s$ that puts item $i^{u,s}_k$ at rank $k$ for user $u$, the expected AR
# precision on a random split is (Eq. 3 of {cite:t}`bellogin2017statistical`, derived in
# {doc}`04_popularity_bias`)
#
# $$
# \begin{aligned}
# \mathbb{E}[P_s@n] &= \frac{|\mathcal{C}|}{n\,t\,|\mathcal{U}|} \sum_{k=1}^{n}
#   \operatorname{avg}_{u} \mathbb{E}\big[|PR_\text{test}(i^{u,s}_k)|\big] \\
#  &= \frac{\sigma\,|\mathcal{C}|}{n\,t\,|\mathcal{U}|} \sum_{k=1}^{n}
#   \operatorname{avg}_{u} |PR(i^{u,s}_k)|,
# \end{aligned}
# $$ (eq-nz-random)
#
# with $t$ the harmonic mean target set size. The second line uses
# $\mathbb{E}[|PR_\text{test}(i)|] = \sigma |PR(i)|$, true of a coin flip per rating: the
# more positive ratings an item has, the more of them land in the test set, and ranking
# by popularity maximises the sum. Both designs of this chapter attack that factor.
#
# ## Percentiles: P1R
#
# Sort the items by popularity and cut them into $m$ groups of equal size, the
# *percentiles* $\mathcal{I}_1, \dots, \mathcal{I}_m$. In the 1R design, each held-out
# positive rating $(u, i)$ gets a target set of $i$ plus non-relevant items drawn **from
# the percentile of $i$ only**, and the metric is computed within each percentile and
# averaged over the $m$ values. With $P^u_s@n(T^r_u)$ the precision of one target set,
# as in the 1R precision $1RP_s@n$ of {doc}`02_designs`,
#
# $$
# \mathrm{P1R}\;P_s@n = \frac{1}{m} \sum_{j=1}^{m} \frac{1}{|PR_\text{test} \cap \mathcal{I}_j|}
#   \sum_{(u, i) \in PR_\text{test},\; i \in \mathcal{I}_j} P^u_s@n(T^{r}_u).
# $$ (eq-nz-p1r)
#
# Within a percentile, items differ in popularity far less than across the catalogue,
# so the number of positive test ratings per item varies by a much smaller factor
# $\Delta_j$ from the top to the bottom of the group. Popularity still ranks the held-out
# item's more popular neighbours first, but it gains only what $\Delta_j$ allows, and
# the macro-average gives the long tail the same weight as the head. The price: a target
# set cannot exceed its percentile, $|T_u| \le |\mathcal{I}|/m$ (about 370 items on
# MovieLens 1M with $m = 10$), which is why the papers use percentiles with 1R only.
#
# ## Uniform test item profiles: U1R and UAR
#
# The second design removes the factor at its source: every target item gets the *same*
# number $\eta$ of test ratings. Choose a set $T$ of target items and $\eta$ with
# $|T|\,\eta / |R| = \sigma$; an item can give $\eta$ ratings to the test set only if it
# keeps a share $\varepsilon$ of them for training, $(1 - \varepsilon)|R(i)| \ge \eta$
# ($\varepsilon \ge 1/k$ leaves room for $k$-fold cross-validation). With the items
# sorted by popularity, $i_1, i_2, \dots$, the largest $T$ is a prefix of that order:
#
# $$
# \begin{aligned}
# \zeta &= \max \Big\{ k : (1 - \varepsilon)\,|R(i_k)|\,\frac{k}{|R|} \ge \sigma \Big\}, \\
# T &= \{ i_k : k \le \zeta \}, \qquad \eta = (1 - \varepsilon)\,|R(i_\zeta)|.
# \end{aligned}
# $$ (eq-nz-uniform)
#
# $\eta$ is rounded to the nearest integer (117.6 becomes 118 on MovieLens 1M), so the
# items tied with $i_\zeta$ may keep a fraction of a rating less than $\varepsilon$ of
# theirs for training; a cut-off that would leave an item no training rating at all is
# not allowed. Items with the count of $i_\zeta$ all satisfy the condition at their larger
# ranks, so $T$ never splits a tie. Exactly $\eta$ ratings of each item of $T$, drawn at
# random, form the test set (`recbias.splits.uniform_split`).
#
# Now $\mathbb{E}[|PR_\text{test}(i)|] = \eta\,|PR(i)| / |R(i)|$ for $i \in T$, and with
# $\eta = \sigma |R| / |T|$ and $\mathcal{C} = T$ (the TI policy) {eq}`eq-nz-random`
# becomes
#
# $$
# \mathbb{E}[P_s@n] = \frac{\sigma\,|R|}{n\,t\,|\mathcal{U}|} \sum_{k=1}^{n}
#   \operatorname{avg}_{u} \frac{|PR(i^{u,s}_k)|}{|R(i^{u,s}_k)|}.
# $$ (eq-nz-uar)
#
# Popularity has left the formula; what remains is the *positive ratio*
# $|PR(i)|/|R(i)|$ of the items a system puts first. If that ratio does not depend on
# popularity, every non-personalised recommender has the precision of random,
# $\sigma\delta$ in AR and $1/t$ in 1R; if popular items are liked by a larger share of
# the people who rate them, popularity keeps exactly that much of an edge. Two
# conditions matter. First, $\mathcal{C} = T$: with candidates outside $T$ (the AI policy,
# or 1R non-relevant items drawn from all test items), those candidates can never be
# relevant, popularity ranks them last because they are the less popular ones, and the
# advantage returns (random precision shrinks by $|T|/|\mathcal{C}|$). Second, when every
# rating is positive, as in implicit feedback, the ratio is 1 for every item and
# popularity should fall to random exactly. The same argument through the AR/1R lemma of
# {doc}`02_designs` bounds the 1R precision of a non-personalised recommender between
# the sums of {eq}`eq-nz-uar` up to $n$ and up to $m_u = n + |PR_\text{test}(u)| - 1$.
# Used with 1R this design is **U1R**, with AR **UAR**.
#
# ## The splits on this page's data
#
# {numref}`fig-neutralising-splits` draws both splits over the popularity curve (the
# papers' Fig. 6), and {numref}`tbl-neutralising-plan` gives $|T|$, $\eta$ and the share
# of ratings they hold out, under the rule of {eq}`eq-nz-uniform` and under a stricter
# *floor* rule that rounds each item's capacity down before the test, so that every item
# keeps its full training share.

# %% tags=["remove-cell"]
status = study.second_status(second_dataset, dataset)
second_ratings = study.positive_only(load_dataset(second_dataset, seed)) if status == study.AVAILABLE else None
studies = [study.study_dataset(data, folds=n, **options)
           for data, n in ((ratings, folds), (second_ratings, second_folds)) if data is not None]
main = studies[0]
glue_table("tbl-neutralising-plan", report.plan_table([(s.name, s.plan) for s in studies]),
           {"σ asked": "{:g}", "largest σ": "{:.3f}", "σ used": "{:g}", "ε": "{:g}", "held out": "{:.1%}",
            "of the items": "{:.1%}", "rated items": "{:,}", "|T|": "{:,}", "|T| (floor)": "{:,}"},
           wrap=["dataset"], keep=["dataset"])
say("main_name", main.name)
say("plan_size", f"{main.plan.size:,}")
say("plan_items", f"{main.plan.n_items:,}")
say("plan_share", fmt_pct(main.plan.size / main.plan.n_items))
say("plan_eta", f"{main.plan.eta:,}")
say("plan_used", f"{main.plan.used:g}")
say("plan_floor_size", f"{main.plan.floor_size:,}")
say("plan_floor_eta", f"{main.plan.floor_eta:,}")

# %% tags=["remove-input"]
fig = figures.splits_figure(study.split_profiles(ratings, main.plan, percentiles), main.plan)
dataset_caption(fig.axes[0], dataset)
glue_figure("fig-neutralising-splits", fig)

# %% [markdown]
# ```{glue:figure} fig-neutralising-splits
# :name: fig-neutralising-splits
#
# The two splits over the popularity curve $|R(i)|$ (shaded, log scale). a) A random split holds out $\sigma |R(i)|$ ratings of item $i$ in expectation (dashed), and P1R draws non-relevant items within popularity percentiles (between dotted lines). b) A uniform split holds out exactly $\eta$ ratings of each of the $|T|$ most popular items and none of the others.
# ```
#
# ```{glue:figure} tbl-neutralising-plan
# :name: tbl-neutralising-plan
#
# The uniform split of each dataset: the test ratio $\sigma$ asked, the largest a uniform split of the dataset can hold and the one used, $\varepsilon$, $|T|$ and its share of the rated items, $\eta$ and the share of ratings held out, under the rule of {eq}`eq-nz-uniform`; $|T|$ and $\eta$ under the floor rule (0 where it finds no split).
# ```
#
# On {glue:text}`main_name`, $T$ holds the {glue:text}`plan_size` most popular of the
# {glue:text}`plan_items` rated items ({glue:text}`plan_share`), each with
# $\eta$ = {glue:text}`plan_eta` test ratings at $\sigma$ = {glue:text}`plan_used`; the floor
# rule keeps {glue:text}`plan_floor_size` items, with $\eta$ = {glue:text}`plan_floor_eta`.
# Where the popularity curve cannot hold the $\sigma$ asked, the uniform split is drawn with
# the largest $\sigma$ it holds, rounded down to two decimals;
# {numref}`tbl-neutralising-plan` gives both for every dataset.
#
# On a steep curve $T$ is the popular part of the catalogue, so a uniform split evaluates
# systems on fewer, better-known items; on a curve with a long tail of items rated once
# or twice the tail never qualifies, and the largest feasible $\sigma$ can fall below the
# usual 0.2.
#
# ## The papers' Figure 8: precision under each design
#
# The papers measured five systems: Random, Popularity, pLSA, and a matrix
# factorisation and a user-based kNN that predict rating values and rank items by the
# prediction {cite:p}`koren2009matrix,cremonesi2010performance`. The page measures
# that set (rating-MF and rating-kNN below) and, beside it, two of today's top-N
# learners, trained on which items get rated rather than on the rating values: an
# implicit matrix factorisation {cite:p}`hu2008collaborative` and an unnormalised
# user-kNN (hatched in the figures). Every statement of the papers is checked with
# the papers' set; {numref}`tbl-neutralising-settings` sets the whole setting of the
# page against the papers'.
#
# All of them are measured under seven designs, on the same
# random splits (1R, P1R, "1R −10% head", AR) and on uniform splits (U1R, UAR,
# AI-UAR) of the same dataset, with $n = 10$. As in the papers, AR uses TI-NN with
# $|N_u|$ equal to the mean number of non-relevant items of the UAR target sets, so that
# AR and UAR have the same random precision ({numref}`tbl-neutralising-sizes` gives the
# sizes); "1R −10% head" removes the tenth most popular items from the test set and from
# $\mathcal{C}$. P1R averages its percentiles as in {eq}`eq-nz-p1r`, every other design
# averages its runs; the intervals treat users as the independent units.
# {numref}`fig-neutralising-fig8` shows P@10, {numref}`fig-neutralising-fig8-ndcg`
# nDCG@10 with the rating values as gains (both are the papers' Fig. 8), and
# {numref}`tbl-neutralising-fig8` gives the P@10 values.

# %% tags=["remove-input"]
show_text(claims.SECOND_NOTES[status].format(requested=second_dataset, name=studies[-1].name))

# %% tags=["remove-cell"]
summaries = [study.fig8_summary(s) for s in studies]
colours = palette(list(study.SYSTEMS))
for name, value in dict(folds=folds, test_ratio=test_ratio, min_train_ratio=min_train_ratio, percentiles=percentiles,
                         second_folds=second_folds, n_boot=bootstrap).items():
    say(name, f"{value:,}")
say("one_r_size", f"{study.one_relevant_size(ratings, target_size, percentiles):,}")
say("head_share", f"{head:.0%}")
for name, label in dict(design_ar="AR", design_ar_an="AR TI-AN", design_1r="1R", design_1r_nr="1R -NR").items():
    say(name, main.designs[label])
say("papers_set", and_list(list(PAPERS_SET)))
say("top_n_set", and_list(list(TOP_N_LEARNERS)))
say("second_setting", f"{studies[-1].name}, its positive ratings (more than 2 plays)" if len(studies) > 1 else "none")
glue_figure("fig-neutralising-fig8", figures.fig8_figure(summaries, colours, "P@10"))
glue_figure("fig-neutralising-fig8-ndcg", figures.fig8_figure(summaries, colours, "nDCG@10"))
glue_table("tbl-neutralising-fig8", report.fig8_table(summaries), index=True)
glue_table("tbl-neutralising-sizes", report.size_table(studies), {"|C|": "{:,.0f}", "runs": "{:,.0f}",
                                                                  "|T_u|": "{:,.0f}", "left out": "{:,.0f}"},
           index=True)

# %% [markdown]
# ```{glue:figure} fig-neutralising-fig8
# :name: fig-neutralising-fig8
#
# P@10 of the papers' five systems and of today's two top-N learners (hatched) under 1R, U1R, P1R ($m$ percentiles), AR (TI-NN matched to UAR), UAR, AI-UAR and 1R without the most popular tenth of the items, with 95% confidence intervals; one panel per dataset.
# ```
#
# ```{glue:figure} fig-neutralising-fig8-ndcg
# :name: fig-neutralising-fig8-ndcg
#
# nDCG@10 with the rating values as gains, under the designs of {numref}`fig-neutralising-fig8`.
# ```
#
# ```{glue:figure} tbl-neutralising-fig8
# :name: tbl-neutralising-fig8
#
# The P@10 of {numref}`fig-neutralising-fig8`: mean over the half-width of its 95% interval, users as the units; the papers' set, then today's top-N learners.
# ```
#
# ```{table} The page's setting next to the papers' (IRJ Sections 3.3, 6 and 7); the last column gives what sets it on this page, or why the page departs from the papers.
# :name: tbl-neutralising-settings
#
# | setting | this page | the papers | set by, or why it differs |
# |---|---|---|---|
# | dataset | {glue:text}`main_name` | MovieLens 1M | the build's dataset (`dataset`) |
# | splits | {glue:text}`folds` coin-flip splits, σ = {glue:text}`test_ratio`; as many uniform splits | 5 coin-flip splits, σ = 0.2; uniform splits likewise | the page's `folds` and `test_ratio` |
# | uniform split | σ = {glue:text}`plan_used`, ε = {glue:text}`min_train_ratio` | σ = 0.2, ε = 0.2 | the page's `min_train_ratio`; a smaller σ where the popularity curve holds no larger one |
# | 1R target sets | $\lvert T_u^r \rvert$ = {glue:text}`one_r_size` | $\lvert T_u^r \rvert$ = 100 | the page's `target_size`, or half a percentile's items where a percentile holds fewer |
# | P1R percentiles | m = {glue:text}`percentiles` | m = 10 | the page's `percentiles` |
# | head removed | {glue:text}`head_share` most popular items | 10% | the page's `head` |
# | AR of Fig. 8 | {glue:text}`design_ar` | TI-NN(1,700), matched to UAR's random precision | the same rule on this page's UAR target sets |
# | AR of Fig. 9 | {glue:text}`design_ar_an` | TI-AN (MovieLens); TI-NN(2,500) (Last.fm) | TI-NN where TI-AN would not fit in memory |
# | 1R judgments | {glue:text}`design_1r_nr` (none) for bpref and infAP; our {glue:text}`design_1r` (the user's low ratings of sampled items judged) beside it | none in 1R | ours shows what the judgments would change |
# | systems | the papers' set: {glue:text}`papers_set`; today's {glue:text}`top_n_set` beside it | MF, kNN (both predicting ratings), pLSA, Popularity, Random | today's learners show whether the readings carry over to them |
# | settings of the systems | the presets of `recbias.recommenders.make` | not given | the papers do not state theirs |
# | comparisons | decided on {glue:text}`n_boot` resamples of users, two-sided p < {glue:text}`level` | read from the bars | a difference counts only where it stands out of noise |
# | second dataset | {glue:text}`second_setting` | Last.fm (Celma), play counts mapped to ratings, more than 2 plays positive | the papers' sample is not registered; the rating predictors read the play counts, the papers' mapping to ratings is not repeated |
# | its splits | {glue:text}`second_folds` coin-flip and as many uniform (`second_folds`) | one temporal split | HetRec's Last.fm has no timestamps |
# ```
#
# ```{glue:figure} tbl-neutralising-sizes
# :name: tbl-neutralising-sizes
#
# Size of each design, means over its splits: candidates $|\mathcal{C}|$, runs, target set size $|T_u|$ and the runs left out because the user had too few non-relevant candidates (in P1R, within the percentile of the held-out item).
# ```
#
# The papers read four things in their Fig. 8: popularity falls to the level of random
# under P1R and U1R, relative to the personalised systems; it drops under UAR too, by
# less, and stays above kNN there; removing the head lowers it without bringing it down
# to random; and pLSA stays the best system throughout. Designs differ in scale (random
# precision alone moves from $1/t$ in 1R to $\sigma\delta$ in AR), so we compare them
# through a *popularity index* that places popularity between random and the best
# personalised system $S$ of a set,
#
# $$
# \text{index} = \frac{M_\text{Popularity} - M_\text{Random}}{\max_{s \in S} M_s - M_\text{Random}},
# $$ (eq-nz-index)
#
# with $S = \{\text{pLSA}, \text{rating-MF}, \text{rating-kNN}\}$ for the papers' set and
# the two top-N learners for today's: 0 at random's level, 1 at the best personalised system's,
# negative when popularity falls below random. {numref}`fig-neutralising-index`,
# further down, draws it for every design and metric of the chapter. The papers say that
# P1R and U1R place popularity "by the level of random"; the book reads that as an index
# within a tenth of zero, by two one-sided tests on the resampled index (its 90%
# interval inside $\pm 0.1$), and as more than a tenth away when that interval lies
# wholly beyond.
#
# Every verdict of the chapter that compares designs or systems is decided on
# {glue:text}`n_boot` resamples of the users, drawn with replacement: each resample
# averages every design and system again over the same users (designs on the random
# and on the uniform splits share them), so a difference such as "index under AR
# minus index under UAR" has a value in every resample. Its two-sided p-value is twice
# the share of resamples on the far side of zero, counted as $(k+1)/(B+1)$ so that it
# is never 0 (with {glue:text}`n_boot` resamples it is at least
# {glue:text}`p_floor`). A statement holds when its difference has the stated sign with
# $p <$ {glue:text}`level`, fails when it has the other sign with $p <$
# {glue:text}`level`, and is inconclusive otherwise. {glue:md}`policy`

# %% tags=["remove-cell"]
indices = study.popularity_index(studies)
sweeps = study.sweep_index(studies, study.GAMMAS, study.POWERS)
values = claims.measured(studies, indices, percentiles, n_boot=bootstrap, seed=seed)
findings = register(claims.FINDINGS, values, dataset=main.name)
findings += register(claims.ON_ALL_POSITIVE, values, dataset=studies[-1].name)
say_findings(findings)
for name in [*claims.INDEX_NAMES, *claims.INCOMPLETE_NAMES]:
    say(name, fmt_number(values[name], 2))
say("index_lowest", fmt_number(min(values["index_p1r"], values["index_u1r"]), 2))
say("p_floor", fmt_number(2 / (bootstrap + 1), 3))
uncapped_share, uncapped_gap = study.bpref_caps(main)
say("bpref_uncapped_share", fmt_pct(uncapped_share))
say("bpref_uncapped_gap", fmt_number(uncapped_gap, 3))
left, kept = study.p1r_left_out(main)
say("p1r_left", f"{left:,.0f}")
say("p1r_runs", f"{left + kept:,.0f}")
say("p1r_share", fmt_pct(left / (left + kept)))
glue_table("tbl-neutralising-p10-index", report.p10_index_table(indices), "{:.2f}", index=True)
glue_table("tbl-neutralising-predictors", report.predictors_table(summaries), index=True)

# %% [markdown]
# On {glue:text}`main_name`, popularity's index is {glue:text}`index_1r` in 1R.
# {glue:md}`says-p1r-random-level` {glue:md}`says-u1r-random-level` {glue:md}`says-u1r-more-residue-than-p1r`
# {glue:md}`says-uar-reduces` {glue:md}`says-head-less-effective`
# {numref}`tbl-neutralising-p10-index` gives the index under every design of
# {numref}`fig-neutralising-fig8`, on every dataset, with each set of systems as the scale.
#
# ```{glue:figure} tbl-neutralising-p10-index
# :name: tbl-neutralising-p10-index
#
# Popularity's index of {eq}`eq-nz-index` under P@10 and each design, with the papers' set or today's top-N learners as the scale, per dataset.
# ```
#
# The papers' rating predictors show the bias from the other side. They rank by predicted
# rating, so popularity helps them little, and a design that rewards popularity can rank
# them below it. {numref}`tbl-neutralising-predictors` counts, under each design, how
# many of the two rating predictors popularity's P@10 exceeds: 2 puts popularity above
# both, 1 between them and 0 below both. Today's top-N learners, trained on which items get
# rated, pick up popularity themselves; {numref}`tbl-neutralising-p10-index` and
# {numref}`fig-neutralising-index` give the index with them as the scale too. The
# findings read the papers' set, as the papers did.
#
# ```{glue:figure} tbl-neutralising-predictors
# :name: tbl-neutralising-predictors
#
# How many of the papers' two rating predictors, rating-MF and rating-kNN, popularity's P@10 exceeds under each design of {numref}`fig-neutralising-fig8`, per dataset.
# ```
#
# P1R has a cost of its own, in {numref}`tbl-neutralising-sizes`: when a percentile holds
# few more items than $|T_u^r|$, heavy users have too few non-relevant candidates left in
# the popular percentiles, and their runs are left out. On {glue:text}`main_name`, P1R
# leaves out {glue:text}`p1r_left` of {glue:text}`p1r_runs` runs per split
# ({glue:text}`p1r_share`); the column "left out" gives the same for every design and
# dataset.
#
# ## The residual bias, predicted and measured
#
# {eq}`eq-nz-uar` predicts how much of an edge popularity keeps under UAR: the mean
# positive ratio of the ten items it ranks first, over the mean ratio of all
# candidates. Read the same way, {eq}`eq-nz-random` predicts the random split's edge
# from $|PR(i)|$. Both predictions leave out one effect. A user's candidates exclude her
# training items, and a test rating of item $i$ can only belong to a user who has no
# training rating of $i$; popular items have many training raters, so for each of the
# remaining users the chance to hold one of its test ratings is
# $\mathbb{E}[|PR_\text{test}(i)|] / (|\mathcal{U}| - |R_\text{train}(i)|)$, larger than
# the papers' $\mathbb{E}[|PR_\text{test}(i)|] / |\mathcal{U}|$.
# {numref}`fig-neutralising-ratio` shows the positive ratio along the popularity ranking
# (the papers' Fig. 7), and {numref}`tbl-neutralising-lift` sets both predictions
# against the measured ratio of popularity's P@10 to random's; U1R is read the same way,
# on its target sets of $|T_u^r|$ items.

# %% tags=["remove-cell"]
curves = [(s.name, study.positive_ratio_curve(r)) for s, r in zip(studies, (ratings, second_ratings), strict=False)]
glue_figure("fig-neutralising-ratio", figures.ratio_figure(curves))
glue_table("tbl-neutralising-lift", report.lift_table(studies), "{:.2f}", index=True)
lift = main.lift.set_index("design")["measured"]
say("lift_ar", fmt_number(lift["AR TI-AN"], 1))
say("lift_uar", fmt_number(lift["UAR"], 2))

# %% [markdown]
# ```{glue:figure} fig-neutralising-ratio
# :name: fig-neutralising-ratio
#
# Positive ratio $|PR(i)|/|R(i)|$ against popularity rank, averaged over 100 segments of the rated items (the papers' Fig. 7). A dataset reduced to its positive ratings is at 1 throughout.
# ```
#
# ```{glue:figure} tbl-neutralising-lift
# :name: tbl-neutralising-lift
#
# Popularity's P@10 over random's on the first split of each kind, AR on the random split and UAR and U1R on the uniform one: predicted from the item weight of {eq}`eq-nz-random` or {eq}`eq-nz-uar` (read the same way for U1R), without and with the training exclusion, and measured.
# ```
#
# On {glue:text}`main_name` the uniform split cuts popularity's P@10 from
# {glue:text}`lift_ar` times random's (AR) to {glue:text}`lift_uar` times (UAR). Where the
# prediction with the training exclusion lies closer to the measured ratio than the
# papers' reading, the exclusion explains part of the gap; where both predictions stay
# below the measured ratio, part of the residue has another source.
# {numref}`tbl-neutralising-lift` shows which of the two holds on each dataset and split.
# Where popular items have the higher positive ratio, that ratio explains part of what
# survives the uniform split, as the papers argue (the "predicted" column); where every
# rating is positive it predicts no advantage at all. The training exclusion does not depend on the ratings being positive, so even
# on data where every rating is positive, U1R and UAR can bring popularity close to
# random rather than exactly to it. P1R leaves less room than U1R for a second reason:
# its non-relevant items come from a band of $|\mathcal{I}|/m$ items around the held-out
# item, where U1R draws them from all of $T$, a wider range of popularity and of
# positive ratios.
#
# ## The papers' Figure 9 and the estimators that came later
#
# IR built metrics for incomplete judgments long before recommender systems needed them.
# With $NR(u)$ the judged non-relevant items of $u$ (test ratings below the threshold)
# and $\tau(i)$ the rank of $i$,
#
# $$
# \begin{aligned}
# \operatorname{bpref}(u) &= \operatorname{avg}_{i \in PR_\text{test}(u)} \Big( 1 -
#   \frac{|\{ j \in NR(u) : \tau(j) < \tau(i) \}|}{\min(|PR_\text{test}(u)|, |NR(u)|)} \Big), \\
# \operatorname{infAP}(u) &= \operatorname{avg}_{i \in PR_\text{test}(u)} \Big( \frac{1}{\tau(i)} \\
#   &\qquad + \frac{\tau(i) - 1}{\tau(i)} \cdot \frac{\operatorname{rel}(\tau(i))}{\operatorname{rel}(\tau(i)) + \operatorname{nrel}(\tau(i))} \Big),
# \end{aligned}
# $$ (eq-nz-incomplete)
#
# where rel and nrel count the relevant and the judged non-relevant items ranked above
# $\tau(i)$ {cite:p}`buckley2004retrieval,yilmaz2006estimating`. Both ignore unjudged
# candidates. We compute bpref as trec_eval does, which counts at most
# $|PR_\text{test}(u)|$ of the judged non-relevant items above $i$, so that each term stays
# between 0 and 1; the formula as IRJ prints it, above, counts all of them. The two
# differ only for a relevant item ranked below more than $\min(|PR_\text{test}(u)|, |NR(u)|)$
# judged non-relevant ones: in the AR TI-AN runs of this page that changes bpref in
# {glue:text}`bpref_uncapped_share` of the scored runs and a system's mean by at most
# {glue:text}`bpref_uncapped_gap` (the uncapped value being the lower). The IRJ form of infAP multiplies the ratio by the share of the pool among
# the items above $\tau(i)$; every candidate of a target set belongs to the pool here, so
# that share is 1. In the papers' 1R a run holds one relevant item and no
# non-relevance judgment (IRJ Section 7), so bpref is 1 for every system, and infAP
# reduces to $(\tau(i) + 1)/(2\tau(i))$, a function of the rank alone. The page builds
# that protocol as "1R −NR": the same kind of target sets with every non-relevant item
# unjudged; bpref is below 1 in {glue:text}`bpref_below_papers` of its
# {glue:text}`bpref_scored_papers` scored runs. Our own 1R keeps the judgment of any
# sampled item that the user rated below the threshold, a departure that shows what such
# judgments would do. {glue:md}`says-bpref-constant-1r-judged` Steck's popularity-stratified recall
# {cite:p}`steck2011item` weights each relevant item by $|PR(i)|^{-\gamma/(\gamma+1)}$,
# from plain recall at $\gamma = 0$ to weights $1/|PR(i)|$ as $\gamma \to \infty$:
#
# $$
# \mathrm{PSR@}n(u) = \frac{\sum_{i \in \operatorname{top}_n(u) \cap PR_\text{test}(u)} |PR(i)|^{-\gamma/(\gamma+1)}}
#   {\sum_{i \in PR_\text{test}(u)} |PR(i)|^{-\gamma/(\gamma+1)}}.
# $$ (eq-nz-psr)
#
# The later inverse-propensity estimators make the reasoning behind those weights
# explicit {cite:p}`schnabel2016recommendations,yang2018unbiased`. Suppose a relevant
# pair $(u, i)$ outside the training set shows up as a positive test rating with
# probability $p_i$, the same for every user. Then a hit weighted by $1/p_i$ counts, in
# expectation, as one hit on *complete* relevance, where every truly relevant item is
# known. We model $p_i$ as a power $\beta$ of the item's positive *training* ratings
# $n_i$, scaled so that the propensities of all pairs outside the training set add up to
# the number of test ratings: a pair is observed as often as the data show, popular
# items more often,
#
# $$
# \begin{aligned}
# p_i &= \min\big(1,\; c\,(n_i + 1)^\beta\big), \qquad
#   c = \frac{|R_\text{test}|}{\sum_j o_j\,(n_j + 1)^\beta}, \\
# \mathrm{IPS\text{-}P@}n(u) &= \frac{1}{n} \sum_{i \in \operatorname{top}_n(u) \cap PR_\text{test}(u)} \frac{1}{p_i}, \\
# \mathrm{SNIPS\text{-}Recall@}n(u) &= \frac{\sum_{i \in \operatorname{top}_n(u) \cap PR_\text{test}(u)} 1/p_i}
#   {\sum_{j \in PR_\text{test}(u)} 1/p_j}, \qquad
# \mathrm{SNIPS\text{-}P@}n(u) = \frac{|PR_\text{test}(u)|}{n}\, \mathrm{SNIPS\text{-}Recall@}n(u),
# \end{aligned}
# $$ (eq-nz-ips)
#
# with $o_j = |\mathcal{U}| - |R_\text{train}(j)|$ the pairs of item $j$ outside the
# training set; $\beta = 0$ is missing at random, every $p_i$ the test density. Each
# estimator answers a different question. IPS-P@$n$ is unbiased for **precision on
# complete relevance**, $|\operatorname{top}_n(u) \cap \mathrm{Rel}(u)|/n$, when the $p_i$
# are the true observation probabilities and the candidates do not depend on which
# relevant pairs were observed (AN designs; a package test checks it on a simulated
# world). SNIPS-Recall@$n$ is the ratio estimate of **recall on complete relevance**:
# numerator and denominator are unbiased for the complete hits and $|\mathrm{Rel}(u)|$,
# so it is biased for a user with few test ratings and consistent as they grow; it is
# blind to the scale $c$, and with exponent $\beta$ it is stratified recall with
# $\gamma = \beta/(1 - \beta)$, up to the counts it uses and the cap at 1. SNIPS-P@$n$
# is no estimate of precision: it is SNIPS-Recall@$n$ rescaled per user by
# $|PR_\text{test}(u)|/n$, and IPS-Recall@$n$ is likewise IPS-P@$n$ rescaled by
# $n/|PR_\text{test}(u)|$; the sweep below shows them for completeness.
#
# {numref}`fig-neutralising-index` places popularity with the index of {eq}`eq-nz-index`
# under every design and metric, and {numref}`tbl-neutralising-fig9` gives the values
# behind the rows of the papers' Fig. 9. As in the papers, those metrics are computed on
# the configurations of {doc}`02_designs`, AR TI-AN and the papers' 1R TI-NN without
# non-relevance judgments; where TI-AN would not fit in memory (the second dataset), AR
# uses TI-NN with $|N_u|$ = {glue:text}`nonrelevant`.

# %% tags=["remove-cell"]
glue_figure("fig-neutralising-index", figures.index_figure(indices))
glue_table("tbl-neutralising-fig9", report.fig9_table(indices), {"Popularity": "{:.4f}", "Random": "{:.4f}",
                                                                 "index": "{:.2f}"}, index=True)
glue_figure("fig-neutralising-sweep", figures.sweep_figure(sweeps))
glue_table("tbl-neutralising-sweep-ends", report.sweep_ends_table(sweeps), "{:.2f}", index=True)
say("bpref_below_papers", f"{values['bpref_below']:,}")
say("bpref_scored_papers", f"{values['bpref_scored']:,}")
say("nonrelevant", f"{nonrelevant:,}")

# %% [markdown]
# ```{glue:figure} fig-neutralising-index
# :name: fig-neutralising-index
#
# Where each design and metric puts popularity, from random's level (0, solid line) to the best personalised system's (1, dashed), one marker shape per dataset, coloured by the set of systems that sets the scale (the papers' set, today's top-N learners); grey lines separate P@10 under the designs of {numref}`fig-neutralising-fig8`, the metrics of the papers' Fig. 9, and the propensity estimators. bpref has no marker where it scores every system alike.
# ```
#
# ```{glue:figure} tbl-neutralising-fig9
# :name: tbl-neutralising-fig9
#
# The papers' Fig. 9 metrics: bpref, infAP and stratified recall ($\gamma = 1$) of popularity, random and the best personalised system of the papers' set (named below its value), with the popularity index of {eq}`eq-nz-index`; 1R is the papers' 1R, without non-relevance judgments.
# ```
#
# On {glue:text}`main_name`, AR P@10 puts popularity's index at {glue:text}`index_ar`;
# bpref puts it at {glue:text}`index_bpref` and infAP at {glue:text}`index_infap`, against
# {glue:text}`index_lowest` for the better of P1R and U1R. {numref}`tbl-neutralising-fig9`
# gives the same on every dataset; where bpref scores every system alike, it gives no
# index (a dash in the table).
#
# On MovieLens 1M the papers found that bpref and infAP do counter popularity in AR,
# though they pull pLSA down with it, and that on Last.fm they leave popularity first;
# their figure gives bars only, so the comparison with the sentences above is
# qualitative. Both metrics reward whatever has few judged non-relevant items above it.
# On implicit data, where nothing is judged non-relevant, bpref is 1 for every system and
# infAP rewards coverage rather than accuracy, as the papers observed on Last.fm.
# {numref}`fig-neutralising-sweep` follows popularity's index as the exponent of
# stratified recall and of the propensity estimators grows, and
# {numref}`tbl-neutralising-sweep-ends` gives the index at both ends of each sweep: a
# negative change means that the estimator forgives popularity more as its exponent
# grows, and its size how much more.
#
# ```{glue:figure} fig-neutralising-sweep
# :name: fig-neutralising-sweep
#
# The popularity index of {eq}`eq-nz-index` in AR for stratified recall (drawn at $\beta = \gamma/(\gamma+1)$) and for the IPS and SNIPS estimators over the propensity exponent $\beta$; one panel per dataset.
# ```
#
# ```{glue:figure} tbl-neutralising-sweep-ends
# :name: tbl-neutralising-sweep-ends
#
# Popularity's index of {eq}`eq-nz-index` in AR at the smallest and the largest exponent $\beta$ of each estimator in {numref}`fig-neutralising-sweep`, and the change between them, per dataset.
# ```
#
# The exponent decides how much popularity is forgiven, and no value of it follows from
# the data alone. Under the model behind these weights the most popular items are also
# the most often *observed*, so a large exponent claims that much of their measured
# success is an artefact; whether that is true depends on how the ratings were collected
# ({doc}`08_protocol_fidelity` tests it where the truth is known). P1R and U1R lower
# popularity's index with no such parameter, at the cost of a fixed experimental
# protocol.
#
# ## Which design for which question
#
# ```{admonition} Decision box: choosing a design that neutralises popularity
# :class: tip
#
# | question | design | what it costs |
# |---|---|---|
# | Does a system personalise beyond what popularity explains? | **P1R** ($m = 10$) | $\lvert T_u \rvert \le \lvert \mathcal{I} \rvert / m$; heavy users lose runs in the popular percentiles when percentiles are small; 1R only |
# | Same question, keeping all of a user's test items together | **UAR** (TI, $\mathcal{C} = T$) | only the $\lvert T \rvert$ most popular items are ever targets; $\sigma$ bounded by the popularity curve; items rated once or twice never tested |
# | Same question in the 1R protocol of {cite:t}`cremonesi2010performance` | **U1R** ($N_u \subset T$) | as UAR; needs its own splits, so fits on random splits cannot be reused |
# | A quick check on existing splits | "1R −10% head" | leaves much of the bias; discards the test ratings of the head |
# | An estimate of precision or recall on complete relevance | IPS-P (precision), SNIPS-Recall (recall) | unbiased (IPS-P) or consistent (SNIPS-Recall) only if the propensity model and its exponent are right, which offline data cannot confirm; SNIPS-P and IPS-Recall estimate neither |
# | A sensitivity analysis | stratified recall or SNIPS over $\gamma$ or $\beta$ | one more parameter to report; no value is "the" right one |
# | Judgments with real negatives (explicit ratings) | bpref, infAP | meaningless in 1R (bpref = 1) and on implicit data |
#
# Always report: $|T|$, $\eta$ and the achieved $\sigma$ of a uniform split, $m$ and the runs
# left out of P1R, and the random-precision baseline of each design.
# ```

# %% tags=["remove-cell"]
numbers = {claim.key: claim for claim in register(published(claims.PUBLISHED), values, dataset=main.name)}
for key, name in (("uniform/target-size", "size"), ("uniform/eta", "eta"), ("p1r/percentile-size", "per_percentile")):
    say(f"paper_{name}", f"{numbers[key].paper:,.4g}")
    say(f"ours_{name}", f"{numbers[key].ours:,.4g}")
glue_table("tbl-neutralising-findings", findings_table(findings, where=True), wrap=True,
           left=["statement", "verdict", "evidence", "checked on"])

# %% [markdown]
# ## Against the published numbers
#
# On MovieLens 1M the papers report $|T|$ = {glue:text}`paper_size` and
# $\eta$ = {glue:text}`paper_eta` for $\sigma = \varepsilon = 0.2$, and
# $|\mathcal{I}|/10 \approx$ {glue:text}`paper_per_percentile` items per percentile. On
# {glue:text}`main_name` the same quantities are {glue:text}`ours_size`,
# {glue:text}`ours_eta` and {glue:text}`ours_per_percentile` (with $m$ percentiles); the
# scorecard sets them next to the papers' values, comparable only when the page is built on
# `ml-1m`, whose ratings are not on the machines that build this book by default. The
# papers give no numbers for their Figs. 8 and 9 beyond the bars, so the comparison is
# qualitative: {numref}`tbl-neutralising-findings` lists the papers' statements and what
# this build's data say about each.
#
# ```{glue:figure} tbl-neutralising-findings
# :name: tbl-neutralising-findings
#
# The papers' findings on the designs of this chapter, checked on this build's data: the
# statement, its verdict, the measured evidence with the criterion that decided it, and the
# dataset it was checked on.
# ```
#
# ## What this means for designing an offline evaluation
#
# - **Decide whether popularity should count.** A neutralising design answers "does the
#   system personalise?", not "would users like its list?". Report both kinds of result
#   when a popularity baseline does well.
# - **Prefer P1R or U1R to removing the head.** Dropping the popular tenth throws data
#   away, and in the papers it kept more of the bias than either design (the scorecard
#   checks this on the page's data).
# - **Keep $\mathcal{C} = T$ in uniform designs.** Candidates outside $T$ can never be
#   relevant, and popularity ranks them last.
# - **Expect a residue.** The positive ratio and the training exclusion can leave
#   popularity above random even under U1R; the size of the residue is a property of the
#   data.
# - **Treat propensity weights as a model.** IPS and SNIPS are only as good as the assumed
#   observation probabilities; report their exponent and a sweep over it.
#
# ## Try it
#
# - Rebuild the chapter on another dataset: `make book CHAPTERS=5 DATASET=ml-100k`, or
#   `DATASET=csv:PATH` for your own ratings.
# - Change the percentiles or the head share:
#   `.venv/bin/python -m recbias.bookkit --chapters 5 --dataset ml-100k -p percentiles 5 -p head 0.2`.
# - Loosen or tighten the uniform split: `-p min_train_ratio 0.5` (2-fold cross-validation)
#   or `-p test_ratio 0.1`, and watch $|T|$ and $\eta$ in {numref}`tbl-neutralising-plan`.
# - Skip the second dataset with `-p second_dataset ""`, or use more of its splits with
#   `-p second_folds 5`.

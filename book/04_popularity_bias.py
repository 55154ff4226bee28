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
# Recommending the most popular items is a strong baseline in almost every offline
# comparison. Part of that strength is real, and part of it is produced by the
# evaluation itself: popular items collect most of the held-out positive ratings, so a
# system that favours them is rewarded whatever users would have liked.
# This chapter will reproduce the analysis of {cite:t}`bellogin2017statistical`
# (Section 5): the non-personalised expectation of precision, the shifted power-law
# simulation of popularity skew and its effect on the measured advantage of
# popularity (their Fig. 5), with the simulated world's ground truth as referee.
#
# ```{note}
# The experiments of this chapter are not written yet; this page already runs on
# the dataset chosen at build time, so its card below shows what they will use.
# ```

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0  # random seed of splits, samples and simulated worlds, int in [0, 4294967295]

# %% tags=["remove-input"]
from recbias.bookkit.page import open_dataset

ratings = open_dataset(dataset, seed)

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
# # A user-behaviour discounted AUC
#
# Ranking metrics weigh positions with a fixed discount, but people read a list of
# recommendations with an attention that falls off in a way that can be measured.
# {cite:t}`bobrikov2016fair` turn that observation into a metric: precision at each
# list length weighted by the probability that a user reads that far, gains from the
# rating value, and a penalty for recommending the short head, tuned to separate
# audience segments. This chapter will rebuild that metric and test how it orders
# the recommenders of the earlier chapters.
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

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
# Precision measured offline depends on how many ratings were held out for testing,
# not only on the recommender. With fewer test ratings, fewer target items are
# relevant, and every system's precision shrinks in proportion. This chapter will
# derive the expected precision of a random recommender under the AR and 1R designs
# ({cite:t}`bellogin2017statistical`, Section 4), measure how precision tracks the
# relevance density while test ratings are removed and target sets grow (their
# Fig. 4), and check which metrics (recall, nDCG, MAP) share the bias.
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

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
# # Designs that neutralise popularity: P1R, U1R, UAR
#
# If the test set is built so that every target item has the same chance of being
# relevant, popularity can no longer buy precision. This chapter will build the
# percentile-partitioned 1R design (P1R) and the uniform test item profiles (U1R,
# UAR) of {cite:t}`bellogin2017statistical` (Section 6), compare them with AR and 1R
# and with metrics designed for incomplete judgments, bpref, infAP and the
# popularity-stratified recall of {cite:t}`steck2011item` (their Figs. 8-9).
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

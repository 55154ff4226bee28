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
# ```{note}
# This chapter is being written.
# ```

# %% tags=["parameters"]
dataset = "synthetic"  # a name from recbias.datasets.names(), or "csv:PATH"
seed = 0

# %% tags=["remove-input"]
from recbias.chapter import open_dataset

ratings = open_dataset(dataset, seed)

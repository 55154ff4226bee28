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
# # Datasets
#
# Every chapter takes a `dataset` parameter. This appendix lists the registered
# datasets, what a rating means in each, how a positive judgment is defined, under
# which licence the data may be used and how it must be cited, and shows the card of
# every dataset that could be loaded when this page was built.
#
# Real data never enters the repository. Each archive is downloaded from its official
# source and checked against a pinned SHA-256 sum; to work offline, place the official
# archive (for instance `ml-1m.zip`) or its extracted files (a folder such as
# `ml-1m/`) in `data/raw/`, or in the directory named by the environment variable
# `RECBIAS_DATA_DIR`. Every file is verified before it is read, and a corrupt,
# truncated or malformed file is refused with the name of the file and line.
# Your own ratings load with `csv:PATH`, from a CSV file with a header and the columns
# `user,item` and, optionally, `rating` and `timestamp`.

# %% tags=["parameters"]
dataset = "synthetic"
seed = 0

# %% tags=["remove-input"]
from IPython.display import HTML, Markdown, display

from recbias.bookkit import appendix

display(HTML(appendix.registry_html()))

# %% [markdown]
# ## How the papers used them
#
# The papers worked on MovieLens 1M and on a Last.fm sample of about 1,000 users. Where
# those are not at hand, MovieLens 100K (same rating scale and threshold) and the
# HetRec 2011 Last.fm release of 1,892 users (same positive rule: more than two plays)
# stand in for them; a reproduced number computed on a stand-in is reported on the
# {doc}`scorecard` as *not comparable*.

# %% tags=["remove-input"]
display(HTML(appendix.usage_html()))

# %% [markdown]
# ## Cards of the datasets available for this build
#
# The card of a dataset summarises its size, density, rating scale and positive
# threshold. The simulated worlds are generated with the book's seed.

# %% tags=["remove-input"]
for heading, card in appendix.dataset_cards(seed):
    display(Markdown(heading), HTML(card))

# %% [markdown]
# ## Citations
#
# MovieLens: {cite:t}`harper2015movielens`. HetRec 2011 Last.fm:
# {cite:t}`cantador2011hetrec`, with the Last.fm website as the source of the data.
# The Cranfield judgments used in {doc}`01_cranfield` come from
# {cite:t}`cleverdon1967cranfield`, the TREC-8 ad hoc judgments from
# {cite:t}`voorhees1999overview`.

"""The systems compared across protocols: popularity's share of each score, and how the order of systems moves."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from recbias.chapters.c09_audit.study.protocols import REFERENCES
from recbias.evaluate.orderings import kendall_tau
from recbias.evaluate.popularity_index import popularity_index


def popularity_share(means: pd.DataFrame) -> pd.DataFrame:
    """Per protocol: the popularity index (:func:`recbias.evaluate.popularity_index.popularity_index`, the best
    of the audited systems as the top) and each audited system's lift over Popularity, ``M_s / M_pop``."""
    audited = [s for s in means.columns if s not in REFERENCES]
    index = popularity_index(means["Popularity"], means["Random"], means[audited].max(axis=1))
    out = pd.DataFrame({"popularity index": index}, index=means.index).rename_axis("protocol")
    with np.errstate(divide="ignore", invalid="ignore"):
        for system in audited:
            out[f"{system} / Popularity"] = means[system] / means["Popularity"]
    return out


def tau_matrix(means: pd.DataFrame) -> pd.DataFrame:
    """Kendall's τ-b between the orders of the systems under every two protocols (:func:`kendall_tau`)."""
    rows = {a: {b: kendall_tau(means.loc[a].to_dict(), means.loc[b].to_dict()) for b in means.index}
            for a in means.index}
    return pd.DataFrame(rows).T.loc[means.index, means.index]


def flipped_pairs(means: pd.DataFrame) -> pd.DataFrame:
    """Every pair of systems whose order some protocols reverse: ``first``, ``second``, the protocols that
    put ``first`` above and those that put ``second`` above (ties belong to neither)."""
    rows = []
    for a, b in itertools.combinations(means.columns, 2):
        above = means.index[means[a] > means[b]].tolist()
        below = means.index[means[a] < means[b]].tolist()
        if above and below:
            rows.append({"first": a, "second": b, "first above under": ", ".join(above),
                         "second above under": ", ".join(below)})
    return pd.DataFrame(rows, columns=["first", "second", "first above under", "second above under"])


def reversals(means: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Every pair of systems that ``protocol`` orders and some other protocol orders the other way: ``above`` and
    ``below`` as ``protocol`` orders them, and the protocols that reverse them (``reversed under``, a list)."""
    rows = []
    for a, b in itertools.combinations(means.columns, 2):
        here = means.loc[protocol, a] - means.loc[protocol, b]
        if here == 0 or pd.isna(here):
            continue
        above, below = (a, b) if here > 0 else (b, a)
        others = means.index[means[below] > means[above]].tolist()
        if others:
            rows.append({"above": above, "below": below, "reversed under": others})
    return pd.DataFrame(rows, columns=["above", "below", "reversed under"])

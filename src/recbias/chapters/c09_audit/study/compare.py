"""The systems compared across protocols: popularity's share of each score, and how the order of systems moves."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pandas as pd

from recbias.recommenders.external import REFERENCES
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


#: the fewest systems (references included) whose orders the page compares by Kendall's τ: with four, the six
#: pairs let τ take only seven values and one swapped pair moves it by a third, so the page counts pairs instead
MIN_SYSTEMS_FOR_TAU = 5


def alike_matrix(means: pd.DataFrame) -> pd.DataFrame:
    """The share of the pairs of systems that every two protocols order the same way (a pair either protocol
    ties, or leaves unmeasured, is not ordered alike).

    >>> means = pd.DataFrame({"A": [0.3, 0.3], "B": [0.2, 0.1], "C": [0.1, 0.2]}, index=["P", "Q"])
    >>> alike_matrix(means).round(3).to_dict()
    {'P': {'P': 1.0, 'Q': 0.667}, 'Q': {'P': 0.667, 'Q': 1.0}}
    """
    values = means.to_numpy(dtype=float)
    first, second = np.triu_indices(values.shape[1], 1)
    signs = np.sign(values[:, first] - values[:, second])
    alike = (signs[:, None, :] == signs[None, :, :]) & (signs[:, None, :] != 0)
    return pd.DataFrame(alike.mean(axis=2), index=means.index, columns=means.index)


def agreement_map(means: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """What the page maps between every two protocols: :func:`tau_matrix`, or :func:`alike_matrix` when the
    systems are fewer than :data:`MIN_SYSTEMS_FOR_TAU`; and whether it is the latter."""
    few = len(means.columns) < MIN_SYSTEMS_FOR_TAU
    return (alike_matrix(means) if few else tau_matrix(means)), few


def tau_matrix(means: pd.DataFrame) -> pd.DataFrame:
    """Kendall's τ-b between the orders of the systems under every two protocols (:func:`kendall_tau`)."""
    rows = {a: {b: kendall_tau(means.loc[a].to_dict(), means.loc[b].to_dict()) for b in means.index}
            for a in means.index}
    return pd.DataFrame(rows).T.loc[means.index, means.index]


def _sides(means: pd.DataFrame) -> Iterator[tuple[str, str, list[str], list[str]]]:
    """Each pair of systems (``a``, ``b``) with the protocols that put ``a`` above ``b`` and those that put ``b``
    above ``a`` (ties and missing means belong to neither)."""
    for a, b in itertools.combinations(means.columns, 2):
        yield a, b, means.index[means[a] > means[b]].tolist(), means.index[means[a] < means[b]].tolist()


def flipped_pairs(means: pd.DataFrame) -> pd.DataFrame:
    """Every pair of systems whose order some protocols reverse: ``first``, ``second``, the protocols that
    put ``first`` above and those that put ``second`` above (lists)."""
    rows = [(a, b, up, down) for a, b, up, down in _sides(means) if up and down]
    return pd.DataFrame(rows, columns=["first", "second", "first above under", "second above under"])


def reversals(means: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Every pair of systems that ``protocol`` orders and some other protocol orders the other way: ``above`` and
    ``below`` as ``protocol`` orders them, and the protocols that reverse them (``reversed under``, a list)."""
    rows = [(a, b, down) if protocol in up else (b, a, up) for a, b, up, down in _sides(means)
            if (protocol in up and down) or (protocol in down and up)]
    return pd.DataFrame(rows, columns=["above", "below", "reversed under"])

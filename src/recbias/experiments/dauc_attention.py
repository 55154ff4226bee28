"""Chapter 7 ("The user-behaviour discounted AUC"): the attention model and the position discount it implies.

A user reads on from one item to the next with probability ``p = Q^(1/m)`` (``Q`` users open page 2
of ``m`` items), so she reads exactly ``N`` items with probability ``w_N = p^(N-1) (1 - p)``
(Bobrikov et al. 2016, Eq. 5), and the metric's average of precisions over ``N`` weighs rank ``k``
by ``d_k = sum_{N >= k} w_N / N`` (:func:`recbias.metrics.position_discount`).  This module tabulates
both for several ``Q`` and sets ``d_k`` beside the discounts of rank-biased precision and nDCG.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.experiments.discounted_auc import Setting
from recbias.metrics import attention_weights, continuation_probability, position_discount
from recbias.text import fmt_number, fmt_pct

#: the three discounts of :func:`discount_curves`, as the figure's legend names them
BEHAVIOURAL, RBP, NDCG = r"behavioural AUC, $d_k/d_1$", r"RBP, $p^{k-1}$", r"nDCG, $1/\log_2(k+1)$"


def attention_curves(Qs: Sequence[float], m: int, depth: int) -> pd.DataFrame:
    """``w_N`` and ``d_N`` for ``N = 1..depth`` and every ``Q`` (untruncated): columns ``Q``, ``N``, ``w``, ``d``."""
    frames = []
    for Q in Qs:
        p = continuation_probability(Q, m)
        frames.append(pd.DataFrame({"Q": Q, "N": np.arange(1, depth + 1), "w": attention_weights(p, depth),
                                    "d": position_discount(p, depth)}))
    return pd.concat(frames, ignore_index=True)


def attention_table(Qs: Sequence[float], m: int, z: int) -> pd.DataFrame:
    """Per ``Q``: ``p``, the mean number of items read ``1/(1 - p)``, the first discount ``d_1`` and the share
    of ``sum_k d_k = 1`` on the first page and in a list of ``z`` (untruncated model)."""
    rows = []
    for Q in Qs:
        p = continuation_probability(Q, m)
        d = position_discount(p, z)
        rows.append({"Q": Q, "p": p, "items read on average": 1 / (1 - p) if p < 1 else np.inf,
                     "weight of rank 1, d₁": d[0], "weight on page 1": d[:m].sum(),
                     f"weight in the first {z}": d.sum()})
    return pd.DataFrame(rows)


#: number formats of :func:`attention_table`'s columns
ATTENTION_FORMATS = {"Q": "{:g}", "p": "{:.3f}", "items read on average": "{:.1f}", "weight of rank 1, d₁": "{:.3f}",
                     "weight on page 1": "{:.1%}"}


def attention_text(table: pd.DataFrame, m: int) -> str:
    """What :func:`attention_table` says about the smallest and largest ``Q``, in words."""
    low, high = table.iloc[0], table.iloc[-1]
    return (
        f"On pages of m = {m} items, Q = {low['Q']:g} means that a user reads "
        f"{fmt_number(low['items read on average'], 1)} items on average and the first page carries "
        f"{fmt_pct(low['weight on page 1'], 0)} of the weight; with Q = {high['Q']:g} she reads "
        f"{fmt_number(high['items read on average'], 1)} items and the first page carries "
        f"{fmt_pct(high['weight on page 1'], 0)}."
    )


def discount_curves(setting: Setting, depth: int) -> pd.DataFrame:
    """The weight of rank ``k`` relative to rank 1 under the behavioural AUC (``d_k / d_1``), rank-biased
    precision with the same ``p`` (``p^(k-1)``, Moffat and Zobel 2008) and nDCG (``1 / log2(k + 1)``)."""
    k = np.arange(1, depth + 1)
    d = position_discount(setting.p, depth, setting.z)
    return pd.concat([
        pd.DataFrame({"k": k, "discount": BEHAVIOURAL, "weight": d / d[0]}),
        pd.DataFrame({"k": k, "discount": RBP, "weight": attention_weights(setting.p, depth) / (1 - setting.p)}),
        pd.DataFrame({"k": k, "discount": NDCG, "weight": 1 / np.log2(k + 1)}),
    ], ignore_index=True)


def discount_text(discounts: pd.DataFrame, setting: Setting) -> str:
    """How fast each discount of :func:`discount_curves` falls, in words."""
    at = discounts.pivot(index="k", columns="discount", values="weight")
    own, rbp, ndcg = at[BEHAVIOURAL], at[RBP], at[NDCG]
    k = min(setting.m, len(at))
    second = ("is the steepest of the three at the very top: rank 2 keeps only "
              f"{fmt_pct(own.loc[2], 0)} of the weight of rank 1, because the readers who stop after the first item "
              "give all their weight to it" if own.loc[2] < min(rbp.loc[2], ndcg.loc[2]) else
              f"keeps {fmt_pct(own.loc[2], 0)} of the weight of rank 1 at rank 2, against {fmt_pct(rbp.loc[2], 0)} "
              f"under rank-biased precision and {fmt_pct(ndcg.loc[2], 0)} under nDCG")
    return (
        f"With Q = {setting.Q:g} and m = {setting.m}, rank {k} keeps {fmt_pct(own.loc[k], 0)} of the weight of rank 1 "
        f"under the behavioural AUC, {fmt_pct(rbp.loc[k], 0)} under rank-biased precision and "
        f"{fmt_pct(ndcg.loc[k], 0)} under nDCG. The behavioural discount {second}."
    )

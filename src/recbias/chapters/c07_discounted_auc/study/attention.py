"""The attention model and the position discount it implies.

A user reads on from one item to the next with probability ``p = Q^(1/m)`` (``Q`` users open page 2
of ``m`` items), so she reads exactly ``N`` items with probability ``w_N = p^(N-1) (1 - p)``
(Bobrikov et al. 2016, Eq. 5), and the metric's average of precisions over ``N`` weighs rank ``k``
by ``d_k = sum_{N >= k} w_N / N`` (:func:`recbias.metrics.position_discount`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c07_discounted_auc.study.setting import Setting
from recbias.metrics import attention_weights, continuation_probability, position_discount


def attention_curves(Qs: Sequence[float], m: int, depth: int) -> pd.DataFrame:
    """``w_N`` and ``d_N`` for ``N = 1..depth`` and every ``Q`` (untruncated): columns ``Q``, ``N``, ``w``, ``d``."""
    frames = []
    for Q in Qs:
        p = continuation_probability(Q, m)
        frames.append(pd.DataFrame({"Q": Q, "N": np.arange(1, depth + 1), "w": attention_weights(p, depth),
                                    "d": position_discount(p, depth)}))
    return pd.concat(frames, ignore_index=True)


def attention_summary(Qs: Sequence[float], m: int, z: int) -> pd.DataFrame:
    """Per ``Q`` (untruncated model): ``p``, the mean number of items read ``1/(1 - p)`` (``read``), the
    first discount ``d_1`` (``d1``) and the share of ``sum_k d_k = 1`` on the first page (``page``) and in
    a list of ``z`` items (``list``)."""
    rows = []
    for Q in Qs:
        p = continuation_probability(Q, m)
        d = position_discount(p, z)
        rows.append({"Q": Q, "p": p, "read": 1 / (1 - p) if p < 1 else np.inf, "d1": d[0], "page": d[:m].sum(),
                     "list": d.sum()})
    return pd.DataFrame(rows)


def discount_curves(setting: Setting, depth: int) -> pd.DataFrame:
    """The weight of rank ``k`` relative to rank 1 (columns ``k``, ``discount``, ``weight``) under the
    behavioural AUC (``d_k / d_1``, truncated at ``z``), rank-biased precision with the same ``p``
    (``p^(k-1)``, Moffat and Zobel 2008) and nDCG (``1 / log2(k + 1)``)."""
    k = np.arange(1, depth + 1)
    d = position_discount(setting.p, depth, setting.z)
    weights = {"behavioural": d / d[0], "rbp": attention_weights(setting.p, depth) / (1 - setting.p),
               "ndcg": 1 / np.log2(k + 1)}
    return pd.concat([pd.DataFrame({"k": k, "discount": name, "weight": weight}) for name, weight in weights.items()],
                     ignore_index=True)

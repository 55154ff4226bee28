"""Ranking metrics as functions of the rank of the single relevant item.

When an instance has exactly one relevant item, placed at 1-based rank ``r``
among ``n`` ranked items, every common ranking metric is a plain function of
``r`` (Krichene & Rendle 2020, Eq. 7-13).  Representing a metric by its value
at every possible rank turns expectations under sampling into matrix products,
which is what the rest of :mod:`recbias.sampled` builds on.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from recbias.sampled.distribution import check_true_ranks

#: canonical family name for every accepted spelling; for one relevant item the
#: hit ratio is recall and the reciprocal rank is average precision (paper, Sec. 3.1)
_FAMILY_ALIASES = {
    "AUC": "AUC",
    "PRECISION": "Precision",
    "PREC": "Precision",
    "P": "Precision",
    "RECALL": "Recall",
    "HR": "Recall",
    "AP": "AP",
    "RR": "AP",
    "NDCG": "NDCG",
}
_NEEDS_CUTOFF = frozenset({"Precision", "Recall"})
_NAME_PATTERN = re.compile(r"^\s*([A-Za-z]+)\s*(?:@\s*(\d+))?\s*$")


@dataclass(frozen=True)
class RankMetric:
    """A metric of the rank of one relevant item, with an optional cutoff ``k``.

    Attributes:
        family: ``"AUC"``, ``"Precision"``, ``"Recall"``, ``"AP"`` or ``"NDCG"``.
        k: cutoff; required for Precision and Recall, optional for AP and NDCG
            (``None`` means untruncated, Eq. 12-13), forbidden for AUC.
    """

    family: str
    k: int | None = None

    def __post_init__(self) -> None:
        if self.family not in _NEEDS_CUTOFF | {"AUC", "AP", "NDCG"}:
            raise ValueError(f"unknown metric family {self.family!r}")
        if self.k is None:
            if self.family in _NEEDS_CUTOFF:
                raise ValueError(f"{self.family} needs a cutoff, e.g. {self.family}@10")
            return
        if self.family == "AUC":
            raise ValueError("AUC takes no cutoff")
        if operator.index(self.k) < 1:
            raise ValueError(f"cutoff k must be >= 1, got {self.k}")

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``"NDCG@10"`` or ``"AP"``."""
        return self.family if self.k is None else f"{self.family}@{self.k}"

    def values(self, ranks: ArrayLike, n: int) -> np.ndarray:
        """Metric value at each 1-based rank among ``n`` items (Eq. 7-13).

        AUC ``(n - r) / (n - 1)`` (Eq. 7); Precision@k ``[r <= k] / k`` (Eq. 8);
        Recall@k ``[r <= k]`` (Eq. 9); AP ``[r <= k] / r`` (Eq. 10, 12);
        NDCG ``[r <= k] / log2(r + 1)`` (Eq. 11, 13), with ``k = n`` when untruncated.
        """
        n = operator.index(n)
        if n < 1 or (self.family == "AUC" and n < 2):
            raise ValueError(f"{self.name} needs at least {2 if self.family == 'AUC' else 1} items, got n={n}")
        r = check_true_ranks(ranks, n, "ranks").astype(np.float64)
        if self.family == "AUC":
            return (n - r) / (n - 1)
        hit = r <= (n if self.k is None else self.k)
        if self.family == "Precision":
            return hit / self.k
        if self.family == "Recall":
            return hit.astype(np.float64)
        if self.family == "AP":
            return hit / r
        return hit / np.log2(r + 1.0)


def parse_metric(metric: str | RankMetric) -> RankMetric:
    """Parse names such as ``"AUC"``, ``"Recall@10"``, ``"ndcg@10"``, ``"AP"``.

    Case-insensitive; ``HR`` is read as Recall and ``RR`` as AP, which coincide
    with them for one relevant item.  A :class:`RankMetric` is returned unchanged.
    """
    if isinstance(metric, RankMetric):
        return metric
    match = _NAME_PATTERN.match(metric) if isinstance(metric, str) else None
    if match is None or match.group(1).upper() not in _FAMILY_ALIASES:
        raise ValueError(
            f"unknown metric {metric!r}; expected one of AUC, Precision@k, Recall@k, AP[@k], NDCG[@k]"
        )
    cutoff = match.group(2)
    return RankMetric(_FAMILY_ALIASES[match.group(1).upper()], None if cutoff is None else int(cutoff))


def metric_vector(metric: str | RankMetric, n: int) -> np.ndarray:
    """The metric's value at every rank ``1..n`` among ``n`` items, as a length-``n`` vector."""
    return parse_metric(metric).values(np.arange(1, operator.index(n) + 1), n)

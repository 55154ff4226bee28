"""Ranking metrics as functions of the rank of the single relevant item.

When an instance has exactly one relevant item, placed at 1-based rank ``r``
among ``n`` ranked items, every common ranking metric is a plain function of
``r`` (Krichene & Rendle 2020, Eq. 7-13).  Representing a metric by its value
at every possible rank turns expectations under sampling into matrix products,
which is what the rest of :mod:`recbias.sampled` builds on.

Metric names follow the package's one grammar, :func:`recbias.metrics.parse_metric`
(``"P@10"``, ``"Recall@10"``, ``"HR@10"``, ``"nDCG@10"``, ``"AP"``, ``"RR"``, ``"AUC"``, ...);
a :class:`RankMetric` is the view of such a :class:`~recbias.metrics.MetricSpec` on
runs with one relevant item.  Its values equal those of the run metrics of
:mod:`recbias.metrics` on such runs (tested on 1R runs).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from recbias.metrics import MetricSpec, parse_metric
from recbias.sampled.distribution import check_true_ranks

#: metrics that are a function of the rank of one relevant item, by canonical name
RANK_FAMILIES = ("P", "Recall", "HR", "F1", "Rprec", "RR", "AP", "nDCG", "AUC")


@dataclass(frozen=True)
class RankMetric:
    """A metric of the grammar read as a function of the rank of one relevant item.

    Attributes:
        spec: the parsed metric (its parameters, e.g. nDCG's gain or AP's
            normaliser, make no difference with one relevant item).

    >>> RankMetric(parse_metric("nDCG@2")).values([1, 2, 3], n=3).round(4).tolist()  # 1, 1/log2(3), 0
    [1.0, 0.6309, 0.0]
    """

    spec: MetricSpec

    def __post_init__(self) -> None:
        if self.spec.name not in RANK_FAMILIES:
            raise ValueError(
                f"{self.spec.label!r} is not a function of the rank of one relevant item; "
                f"use one of {', '.join(RANK_FAMILIES)}"
            )

    @property
    def family(self) -> str:
        """Canonical name without cutoff: ``"P"``, ``"Recall"``, ``"nDCG"``, ``"AUC"``, ..."""
        return self.spec.name

    @property
    def k(self) -> int | None:
        """Cutoff (``None``: untruncated)."""
        return self.spec.cutoff

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``"nDCG@10"`` or ``"AP"``."""
        return self.family if self.k is None else f"{self.family}@{self.k}"

    def values(self, ranks: ArrayLike, n: int | ArrayLike) -> np.ndarray:
        """Metric value at each 1-based rank among ``n`` items (one ``n``, or one per rank).

        AUC ``(n - r) / (n - 1)`` (Eq. 7); P@k ``[r <= k] / k`` (Eq. 8); Recall@k and
        HR@k ``[r <= k]`` (Eq. 9); F1@k ``2 [r <= k] / (k + 1)``; R-precision ``[r = 1]``;
        AP and RR ``[r <= k] / r`` (Eq. 10, 12); nDCG ``[r <= k] / log2(r + 1)``
        (Eq. 11, 13); untruncated metrics use ``k = n``.
        """
        sizes = np.asarray(n)
        if not np.issubdtype(sizes.dtype, np.integer):
            raise TypeError(f"n must be integers, got dtype {sizes.dtype}")
        least = 2 if self.family == "AUC" else 1
        if sizes.size and sizes.min() < least:
            raise ValueError(f"{self.name} needs at least {least} items, got n={sizes.min()}")
        r = check_true_ranks(ranks, int(sizes.max(initial=1)), "ranks")
        if sizes.ndim and np.any(r > sizes):
            raise ValueError("every rank must lie in 1..n of its own catalogue")
        r = r.astype(np.float64)
        if self.family == "AUC":
            return (sizes - r) / (sizes - 1.0)
        hit = r <= (1 if self.family == "Rprec" else sizes if self.k is None else self.k)
        if self.family == "P":
            return hit / self.k
        if self.family == "F1":
            return 2.0 * hit / (self.k + 1)
        if self.family in ("Recall", "HR", "Rprec"):
            return hit.astype(np.float64)
        if self.family in ("AP", "RR"):
            return hit / r
        return hit / np.log2(r + 1.0)


def rank_metric(metric: str | MetricSpec | RankMetric) -> RankMetric:
    """The rank view of a metric name of :func:`recbias.metrics.parse_metric` (or of a parsed one).

    >>> metric = rank_metric("P@2")
    >>> metric.name, metric.values([1, 3], n=5).tolist()
    ('P@2', [0.5, 0.0])
    """
    if isinstance(metric, RankMetric):
        return metric
    return RankMetric(metric if isinstance(metric, MetricSpec) else parse_metric(metric))


def metric_vector(metric: str | MetricSpec | RankMetric, n: int) -> np.ndarray:
    """The metric's value at every rank ``1..n`` among ``n`` items, as a length-``n`` vector.

    >>> metric_vector("AUC", 3).tolist()  # (3 - r) / 2
    [1.0, 0.5, 0.0]
    """
    n = operator.index(n)
    return rank_metric(metric).values(np.arange(1, n + 1), n)

"""Orders of systems compared with a reference order.

A protocol is judged by whether it orders systems as a reference does (the true
quality of a simulated world, the exact metric behind a sampled one).  Three
readings of the agreement, all from the signs of the pairwise differences
``d_ij = x_i - x_j`` of the two orders:

* Kendall's tau-b, ``sum_{i<j} sgn(d^m_ij) sgn(d^t_ij) / sqrt(n_m n_t)``, with ``n_m`` and
  ``n_t`` the pairs not tied in each order (Kendall 1945; the statistic of
  :func:`scipy.stats.kendalltau`);
* the share of pairs ordered strictly as the reference orders them (a pair tied on
  either side does not count as ordered right);
* whether the system first in the reference is first in the measured order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["OrderAgreement", "discordant_pairs", "first_consistent", "kendall_tau", "order_agreement", "pair_agreement"]


@dataclass(frozen=True)
class OrderAgreement:
    """Agreement of each row of measured values with its reference row.

    Attributes:
        tau: Kendall's tau-b per row (NaN when either row is constant).
        pairs: share of system pairs ordered strictly as the reference orders them.
        best: whether the reference's best system is the measured best.
    """

    tau: np.ndarray
    pairs: np.ndarray
    best: np.ndarray


def order_agreement(measured: np.ndarray, reference: np.ndarray) -> OrderAgreement:
    """Row-wise agreement of ``measured`` with ``reference``, both ``rows x systems`` (or one row each).

    Vectorised over rows, so bootstrap resamples are compared in one call.
    """
    measured = np.atleast_2d(np.asarray(measured, dtype=np.float64))
    reference = np.atleast_2d(np.asarray(reference, dtype=np.float64))
    if measured.shape[1] != reference.shape[1] or measured.shape[1] < 2:
        raise ValueError(f"need the same systems (at least two) on both sides, got {measured.shape} and {reference.shape}")
    i, j = np.triu_indices(measured.shape[1], k=1)
    dm = np.sign(measured[:, i] - measured[:, j])
    dr = np.sign(reference[:, i] - reference[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (dm * dr).sum(axis=1) / np.sqrt((dm != 0).sum(axis=1) * (dr != 0).sum(axis=1))
    pairs = (dm * dr > 0).mean(axis=1)
    best = np.argmax(measured, axis=1) == np.argmax(reference, axis=1)
    return OrderAgreement(tau=tau, pairs=pairs, best=best)


def _aligned(measured: Mapping[str, float], reference: Mapping[str, float]) -> tuple[list[str], np.ndarray, np.ndarray]:
    names = [name for name in measured if name in reference]
    if len(names) < 2:
        raise ValueError("need at least two systems in both orders")
    return names, np.array([measured[s] for s in names], float), np.array([reference[s] for s in names], float)


def kendall_tau(measured: Mapping[str, float], reference: Mapping[str, float]) -> float:
    """Kendall's tau-b between the orders of the systems both mappings name."""
    _, m, r = _aligned(measured, reference)
    return float(order_agreement(m, r).tau[0])


def discordant_pairs(measured: Mapping[str, float], reference: Mapping[str, float]) -> list[tuple[str, str]]:
    """Pairs ``(a, b)`` with ``a`` measured strictly above ``b`` while strictly below it in the reference.

    Pairs tied on either side are not counted.  Listed by decreasing measured value of
    ``a``, then of ``b``.
    """
    names, _, _ = _aligned(measured, reference)
    names.sort(key=lambda name: -measured[name])
    return [
        (a, b)
        for k, a in enumerate(names)
        for b in names[k + 1 :]
        if measured[a] > measured[b] and reference[a] < reference[b]
    ]


def pair_agreement(values: np.ndarray, reference: np.ndarray, a: int, b: int) -> int:
    """Rows of ``values`` (``rows x systems``) that order systems ``a`` and ``b`` strictly as ``reference`` does.

    A row tied on the pair never agrees; a reference tied on the pair raises.
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    direction = np.sign(reference[a] - reference[b])
    if direction == 0:
        raise ValueError("the reference values of the two systems are tied; no order to agree with")
    return int(np.count_nonzero(np.sign(values[:, a] - values[:, b]) == direction))


def first_consistent(grid: Sequence[float], values: np.ndarray, reference: np.ndarray, a: int, b: int) -> float | None:
    """Smallest grid value from which on every row of ``values`` orders ``a`` and ``b`` as ``reference``.

    ``values`` has one row per grid value (e.g. expected sampled metrics per sample
    size ``m``, increasing).  ``None`` when even the last grid value orders them wrongly.
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    right = np.sign(values[:, a] - values[:, b]) == np.sign(reference[a] - reference[b])
    if not right[-1]:
        return None
    wrong = np.flatnonzero(~right)
    return grid[0] if len(wrong) == 0 else grid[wrong[-1] + 1]

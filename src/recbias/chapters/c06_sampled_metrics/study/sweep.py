"""How large the sample must be (the paper's Fig. 6).

For a grid of sample sizes ``m``, :func:`m_sweep` computes the exact expectation of sampled
Recall@10, uncorrected and corrected by BV 0.1, of the three systems of the real-data study, each
user under its own law; :func:`consistent_from` finds the smallest ``m`` from which on a pair is
ordered as the exact metric orders it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recbias import sampled
from recbias.chapters.c06_sampled_metrics.study.real_data import SampledStudy
from recbias.evaluate.orderings import first_consistent

#: sample sizes of the corrected curve of the m sweep
BV_GRID = (2, 5, 10, 20, 30, 40, 60, 80, 100, 150, 200, 300, 400, 600, 800)

#: the uncorrected grid stops here even when the pools allow larger samples
GRID_CAP = 20_000

#: the corrections of the sweep group catalogue sizes at least this coarsely
SWEEP_TOLERANCE = 0.1


@dataclass(frozen=True)
class MSweep:
    """Expected Recall@10 of each system for a grid of sample sizes (the paper's Fig. 6).

    ``uncorrected`` and ``corrected`` (by BV 0.1) are ``(grid, 3)``, over the grids ``uncorrected_m`` and
    ``corrected_m``; ``largest_m`` is the largest sample size any target allows; ``tolerance`` the grouping of
    catalogue sizes of the corrected curve.
    """

    uncorrected_m: np.ndarray
    uncorrected: np.ndarray
    corrected_m: np.ndarray
    corrected: np.ndarray
    largest_m: int
    tolerance: float


def m_sweep(study: SampledStudy, max_m: int, points: int = 40) -> MSweep:
    """Exact expectations (Eq. sm-expected) of uncorrected and BV 0.1-corrected Recall@10 for ``m`` from 1 up
    (corrected up to ``max_m``, corrections grouped at the sweep's tolerance), each target with its own law."""
    ranks, sizes, replace = study.ranks, study.sizes, study.replace
    largest = int(sizes.min() - 1) if not replace else int(sizes.max())
    ms = np.unique(np.round(np.geomspace(1, min(largest, GRID_CAP), points)).astype(int))
    uncorrected = np.array([[sampled.expected_sampled_hits(ranks[:, k], sizes, int(m), 10, replace).mean()
                             for k in range(3)] for m in ms])
    corrected_ms = np.array([m for m in BV_GRID if m <= min(max_m, largest)])
    tolerance = max(study.n_tolerance, SWEEP_TOLERANCE)
    bins, bin_sizes = sampled.catalogue_bins(sizes, tolerance)
    corrected = []
    for m in corrected_ms:
        (table,) = sampled.correction_tables(["BV 0.1"], ["Recall@10"], bin_sizes, int(m), replace).values()
        corrected.append([sampled.estimator_moments(table[bins], ranks[:, k], sizes, replace).average
                          for k in range(3)])
    return MSweep(ms, uncorrected, corrected_ms, np.array(corrected).reshape(-1, 3), largest, tolerance)


def consistent_from(study: SampledStudy, sweep: MSweep, a: int, b: int) -> tuple[float | None, float | None]:
    """The smallest grid ``m`` from which on every larger one orders systems ``a`` and ``b`` as the exact
    Recall@10 does: uncorrected, and corrected by BV 0.1 (None when they never do, or tie exactly)."""
    exact = study.exact["Recall@10"]
    if exact[a] == exact[b]:
        return None, None
    corrected = first_consistent(sweep.corrected_m, sweep.corrected, exact, a, b) if len(sweep.corrected_m) else None
    return first_consistent(sweep.uncorrected_m, sweep.uncorrected, exact, a, b), corrected

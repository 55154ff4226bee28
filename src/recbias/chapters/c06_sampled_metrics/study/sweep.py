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

    Attributes:
        uncorrected_m, uncorrected: grid and ``(grid, 3)`` expected uncorrected sampled Recall@10.
        corrected_m, corrected: grid and expectations of Recall@10 corrected by BV 0.1.
        largest_m: the largest sample size any target allows.
        tolerance: the grouping of catalogue sizes used for the corrected curve.
    """

    uncorrected_m: np.ndarray
    uncorrected: np.ndarray
    corrected_m: np.ndarray
    corrected: np.ndarray
    largest_m: int
    tolerance: float


def _uncorrected(study: SampledStudy, ms: np.ndarray) -> np.ndarray:
    """``(len(ms), 3)`` expected uncorrected sampled Recall@10 (Eq. sm-expected), each target under its own law."""
    return np.array([[sampled.expected_sampled_hits(study.ranks[:, k], study.sizes, int(m), 10, study.replace).mean()
                      for k in range(3)] for m in ms])


def _corrected(study: SampledStudy, ms: np.ndarray, tolerance: float) -> np.ndarray:
    """``(len(ms), 3)`` expected Recall@10 corrected by BV 0.1, corrections grouped at ``tolerance``."""
    bins, bin_sizes = sampled.catalogue_bins(study.sizes, tolerance)
    corrected = []
    for m in ms:
        table = sampled.correction_tables(["BV 0.1"], ["Recall@10"], bin_sizes, int(m), study.replace)[
            ("BV 0.1", "Recall@10")]
        corrected.append([sampled.estimator_moments(table[bins], study.ranks[:, k], study.sizes, study.replace).average
                          for k in range(3)])
    return np.array(corrected).reshape(-1, 3)


def m_sweep(study: SampledStudy, max_m: int, points: int = 40) -> MSweep:
    """Exact expectations of uncorrected and BV 0.1-corrected Recall@10 for ``m`` from 1 up (corrected
    up to ``max_m``), each target with its own law."""
    largest = int(study.sizes.min() - 1) if not study.replace else int(study.sizes.max())
    ms = np.unique(np.round(np.geomspace(1, min(largest, GRID_CAP), points)).astype(int))
    corrected_ms = np.array([m for m in BV_GRID if m <= min(max_m, largest)])
    tolerance = max(study.n_tolerance, SWEEP_TOLERANCE)
    return MSweep(ms, _uncorrected(study, ms), corrected_ms, _corrected(study, corrected_ms, tolerance), largest,
                  tolerance)


def consistent_from(study: SampledStudy, sweep: MSweep, a: int, b: int) -> tuple[float | None, float | None]:
    """The smallest grid ``m`` from which on every larger one orders systems ``a`` and ``b`` as the exact
    Recall@10 does: uncorrected, and corrected by BV 0.1 (None when they never do, or tie exactly)."""
    exact = study.exact["Recall@10"]
    if exact[a] == exact[b]:
        return None, None
    corrected = first_consistent(sweep.corrected_m, sweep.corrected, exact, a, b) if len(sweep.corrected_m) else None
    return first_consistent(sweep.uncorrected_m, sweep.uncorrected, exact, a, b), corrected

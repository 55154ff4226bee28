"""Chapter 6 ("Sampled metrics and their corrections"): how large the sample must be (the paper's Fig. 6).

For a grid of sample sizes ``m``, :func:`m_sweep` computes the exact expectation of sampled
Recall@10, uncorrected and corrected by BV 0.1, of the three systems of the real-data study,
each user under its own law; :func:`consistency_table` finds the smallest ``m`` from which on
each pair is ordered as the exact metric orders it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import sampled
from recbias.evaluate.orderings import first_consistent
from recbias.experiments.sampled_vs_exact import PAIRS, SampledStudy
from recbias.text import fmt_pct, order_text


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


#: sample sizes of the corrected curve of the m sweep
BV_GRID = (2, 5, 10, 20, 30, 40, 60, 80, 100, 150, 200, 300, 400, 600, 800)


def m_sweep(study: SampledStudy, max_m: int, points: int = 40) -> MSweep:
    """Exact expectations of uncorrected and BV 0.1-corrected Recall@10 for ``m`` from 1 up
    (corrected up to ``max_m``), each target with its own law; corrections grouped at least 10% wide."""
    ranks, sizes, replace = study.ranks, study.sizes, study.replace
    largest = int(sizes.min() - 1) if not replace else int(sizes.max())
    ms = np.unique(np.round(np.geomspace(1, min(largest, 20_000), points)).astype(int))
    uncorrected = np.array([[sampled.expected_sampled_hits(ranks[:, k], sizes, int(m), 10, replace).mean()
                             for k in range(3)] for m in ms])
    corrected_ms = np.array([m for m in BV_GRID if m <= min(max_m, largest)])
    tolerance = max(study.n_tolerance, 0.1)
    bins, bin_sizes = sampled.catalogue_bins(sizes, tolerance)
    corrected = []
    for m in corrected_ms:
        table = sampled.correction_tables(["BV 0.1"], ["Recall@10"], bin_sizes, int(m), replace)[("BV 0.1", "Recall@10")]
        corrected.append([sampled.estimator_moments(table[bins], ranks[:, k], sizes, replace).average for k in range(3)])
    return MSweep(ms, uncorrected, corrected_ms, np.array(corrected).reshape(-1, 3), largest, tolerance)


def consistency_table(study: SampledStudy, sweep: MSweep) -> pd.DataFrame:
    """Per pair, the smallest grid ``m`` from which on every larger one orders it as the exact Recall@10."""
    exact = study.exact["Recall@10"]
    rows = []
    for a, b in PAIRS:
        rows.append({
            "pair": f"{study.names[a]} vs {study.names[b]}",
            "exact order": order_text({study.names[a]: exact[a], study.names[b]: exact[b]}),
            "uncorrected: consistent from m =": first_consistent(sweep.uncorrected_m, sweep.uncorrected, exact, a, b)
            if exact[a] != exact[b] else None,
            "BV 0.1: consistent from m =": first_consistent(sweep.corrected_m, sweep.corrected, exact, a, b)
            if len(sweep.corrected_m) and exact[a] != exact[b] else None,
        })
    return pd.DataFrame(rows).astype(object)


def sweep_numbers(sweep: MSweep, replace: bool) -> dict[str, str]:
    end = int(sweep.uncorrected_m.max())
    why = "the grid's cap" if end < sweep.largest_m else "the largest catalogue" if replace else "the smallest pool"
    return {
        "largest_m": f"{end:,} ({why})",
        "fig6_max_m": f"{sweep.corrected_m.max() if len(sweep.corrected_m) else 0}",
        "fig6_tolerance": fmt_pct(sweep.tolerance, 0),
    }


def sweep_note(consistency: pd.DataFrame) -> str:
    """What a dash in the consistency table means, when it has one."""
    if not consistency.iloc[:, 2:].isna().to_numpy().any():
        return ""
    return ("A dash in the table means that the order is still wrong (or the exact values tie) at the largest sample "
            "size tried.")

"""The sweep over the sample size: the pairs' consistency table and the numbers and note around it."""

from __future__ import annotations

import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.real_data import PAIRS, SampledStudy
from recbias.chapters.c06_sampled_metrics.study.sweep import MSweep, consistent_from
from recbias.text import fmt_pct, order_text

STILL_WRONG = ("A dash in the table means that the order is still wrong (or the exact values tie) at the largest sample "
               "size tried.")


def consistency_table(study: SampledStudy, sweep: MSweep) -> pd.DataFrame:
    """Per pair, the smallest grid ``m`` from which on every larger one orders it as the exact Recall@10."""
    exact = study.exact["Recall@10"]
    rows = []
    for a, b in PAIRS:
        uncorrected, corrected = consistent_from(study, sweep, a, b)
        rows.append({"pair": f"{study.names[a]} vs {study.names[b]}",
                     "exact order": order_text({study.names[a]: exact[a], study.names[b]: exact[b]}),
                     "uncorrected: consistent from m =": uncorrected, "BV 0.1: consistent from m =": corrected})
    return pd.DataFrame(rows).astype(object)


def sweep_numbers(sweep: MSweep, replace: bool) -> dict[str, str]:
    """Where the two grids end, and why, and the grouping of the corrected curve."""
    why = "the grid's cap" if sweep.capped else "the largest catalogue" if replace else "the smallest pool"
    return {
        "largest_m": f"{int(sweep.uncorrected_m.max()):,} ({why})",
        "fig6_max_m": f"{sweep.corrected_m.max() if len(sweep.corrected_m) else 0}",
        "fig6_tolerance": fmt_pct(sweep.tolerance, 0),
    }


def sweep_note(consistency: pd.DataFrame) -> str:
    """What a dash in the consistency table means, when it has one."""
    return STILL_WRONG if consistency.iloc[:, 2:].isna().to_numpy().any() else ""

"""What sampling saves: the table of timings, the numbers the prose quotes, and which evaluation was faster."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.cost import Cost, Machine, one_sample_z
from recbias.chapters.c06_sampled_metrics.study.real_data import METHODS, METRICS, SampledStudy
from recbias.text import fmt_count, fmt_signed

#: a ratio of times within this factor of 1 counts as "about as long"
SAME_SPEED = 1.05

SAMPLING_FASTER = "sampling was {ratio:.1f} times faster than the exact evaluation, which compares the held-out items with {counts}"
EXACT_FASTER = ("the exact evaluation was {ratio:.1f} times faster than sampling, although it compares the held-out items "
                "with {counts}")
AS_LONG = "the two evaluations took about as long, though the exact one compares the held-out items with {counts}"
COUNTS = "{exact:,} candidates against sampling's {sampled:,}"
CORRECTIONS_SLOWER = "; computing the corrections took longer than either"


def machine_text(machine: Machine) -> str:
    return f"{machine.processor}, {machine.cores} logical cores, BLAS threads {machine.blas_threads}"


def cost_table(study: SampledStudy, cost: Cost) -> pd.DataFrame:
    """Seconds of each step: the two evaluations, the corrections and training X."""
    groups = fmt_count(len(study.bin_sizes), "catalogue group", "catalogue groups")
    return pd.DataFrame([
        {"step": f"exact ranks of {cost.n_exact:,} held-out items among all non-training items",
         "seconds": cost.exact_seconds},
        {"step": f"sampled ranks among {study.m} negatives (draw, score, rank)", "seconds": cost.sampled_seconds},
        {"step": f"corrections for {groups} × {len(METRICS)} metrics × {len(METHODS) - 1} estimators "
                 "(once per dataset and m)", "seconds": study.correction_seconds},
        {"step": "training X (iALS) once, for scale", "seconds": cost.fit_seconds},
    ])


def cost_text(study: SampledStudy, cost: Cost) -> str:
    """Which evaluation was faster on this build, against how many candidates each compares."""
    ratio = cost.exact_seconds / cost.sampled_seconds if cost.sampled_seconds > 0 else np.inf
    counts = COUNTS.format(exact=cost.n_compared_exact, sampled=cost.n_compared_sampled)
    if ratio >= SAME_SPEED:
        text = SAMPLING_FASTER.format(ratio=ratio, counts=counts)
    elif ratio <= 1 / SAME_SPEED:
        text = EXACT_FASTER.format(ratio=1 / ratio, counts=counts)
    else:
        text = AS_LONG.format(counts=counts)
    if study.correction_seconds > max(cost.exact_seconds, cost.sampled_seconds):
        text += CORRECTIONS_SLOWER
    return f"**On this build**, {text}."


def cost_numbers(study: SampledStudy, cost: Cost) -> dict[str, str]:
    """The machine, and the one real sample's Recall@10 of X against the simulated repetitions."""
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    return {"machine": machine_text(cost.machine), "one_sample_recall": f"{100 * cost.one_sample_recall:.2f}",
            "simulated_recall": f"{100 * simulated.mean():.2f} ± {100 * simulated.std(ddof=1):.2f}",
            "z_one_sample": fmt_signed(one_sample_z(study, cost))}

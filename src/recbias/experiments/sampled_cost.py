"""Chapter 6 ("Sampled metrics and their corrections"): what sampling saves.

:func:`cost_study` times the exact and the sampled evaluation of system X on the real-data
study's split (best of three runs each), with its training and the corrections for scale.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import pool_ranks, rank_positions, relevant_ranks, score_runs
from recbias.experiments.sampled_vs_exact import METHODS, METRICS, SYSTEMS, SampledStudy
from recbias.recommenders import make
from recbias.text import fmt_count, fmt_signed


@dataclass(frozen=True)
class Cost:
    """Seconds (best of three) of exact and sampled evaluation of X, and what they compared.

    Attributes:
        exact_seconds, sampled_seconds, fit_seconds: ranking every held-out item among its pool;
            drawing, scoring and ranking ``m`` sampled items per user; fitting X once.
        n_exact, n_compared_exact, n_compared_sampled: held-out items ranked exactly, and
            candidates compared with them in each evaluation.
        one_sample_recall: Recall@10 of X from the one real sample drawn.
        machine: processor, cores and BLAS threads of the machine that built the page.
    """

    exact_seconds: float
    sampled_seconds: float
    fit_seconds: float
    n_exact: int
    n_compared_exact: int
    n_compared_sampled: int
    one_sample_recall: float
    machine: str


def _best_of_three(function: Callable[[], object]) -> tuple[float, object]:
    times, result = [], None
    for _ in range(3):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def machine() -> str:
    """Processor, logical cores and BLAS threads, as the page reports them."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            name = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), name)
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} logical cores, BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"


def cost_study(study: SampledStudy, seed: int = 0) -> Cost:
    """Time exact against sampled evaluation of X on the study's split (best of three runs each)."""
    model, train, test, m = study.models[0], study.train, study.test, study.m

    def sampled_evaluation() -> np.ndarray:
        runs = build_runs(train, test, f"1R AI-NN({m})", seed=seed, threshold=-np.inf, on_shortage="exclude")
        return relevant_ranks(rank_positions(runs, score_runs(model, runs), ties="random", seed=seed))

    fit_seconds, _ = _best_of_three(lambda: make(SYSTEMS["X"], seed=seed).fit(train))
    exact_seconds, exact = _best_of_three(lambda: pool_ranks(model, train, test, seed=seed))
    sampled_seconds, positions = _best_of_three(sampled_evaluation)
    return Cost(exact_seconds, sampled_seconds, fit_seconds, exact.n_targets, int((exact.sizes - 1).sum()),
                len(positions) * m, float(np.mean(positions <= 10)), machine())


def cost_table(study: SampledStudy, cost: Cost) -> pd.DataFrame:
    return pd.DataFrame([
        {"step": f"exact ranks of {cost.n_exact:,} held-out items among all non-training items",
         "seconds": cost.exact_seconds},
        {"step": f"sampled ranks among {study.m} negatives (draw, score, rank)", "seconds": cost.sampled_seconds},
        {"step": f"corrections for {fmt_count(len(study.bin_sizes), 'catalogue group', 'catalogue groups')} × "
                 f"{len(METRICS)} metrics × {len(METHODS) - 1} estimators (once per dataset and m)",
         "seconds": study.correction_seconds},
        {"step": "training X (iALS) once, for scale", "seconds": cost.fit_seconds},
    ])


def one_sample_z(study: SampledStudy, cost: Cost) -> float:
    """The one real sample's Recall@10 of X as a z-score among the simulated repetitions."""
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    return float((cost.one_sample_recall - simulated.mean()) / simulated.std(ddof=1))


def cost_text(study: SampledStudy, cost: Cost) -> str:
    """Which evaluation was faster on this build, against how many candidates each compares."""
    ratio = cost.exact_seconds / cost.sampled_seconds if cost.sampled_seconds > 0 else np.inf
    counts = f"{cost.n_compared_exact:,} candidates against sampling's {cost.n_compared_sampled:,}"
    if ratio >= 1.05:
        text = f"sampling was {ratio:.1f} times faster than the exact evaluation, which compares the held-out items with {counts}"
    elif ratio <= 1 / 1.05:
        text = (f"the exact evaluation was {1 / ratio:.1f} times faster than sampling, although it compares the held-out "
                f"items with {counts}")
    else:
        text = f"the two evaluations took about as long, though the exact one compares the held-out items with {counts}"
    if study.correction_seconds > max(cost.exact_seconds, cost.sampled_seconds):
        text += "; computing the corrections took longer than either"
    return f"**On this build**, {text}."


def cost_numbers(study: SampledStudy, cost: Cost) -> dict[str, str]:
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    return {"machine": cost.machine, "one_sample_recall": f"{100 * cost.one_sample_recall:.2f}",
            "simulated_recall": f"{100 * simulated.mean():.2f} ± {100 * simulated.std(ddof=1):.2f}",
            "z_one_sample": fmt_signed(one_sample_z(study, cost))}

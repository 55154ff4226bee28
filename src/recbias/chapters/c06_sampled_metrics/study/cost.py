"""What sampling saves: :func:`cost_study` times the exact and the sampled evaluation of system X on
the real-data study's split (best of three runs each), with its training for scale."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from recbias.chapters.c06_sampled_metrics.study.real_data import SYSTEMS, SampledStudy
from recbias.designs import build_runs
from recbias.evaluate import pool_ranks, rank_positions, relevant_ranks, score_runs
from recbias.recommenders import make


@dataclass(frozen=True)
class Cost:
    """Seconds (best of three) of exact and sampled evaluation of X, and what they compared.

    The seconds are of ranking every held-out item among its pool, of drawing, scoring and ranking ``m`` sampled
    items per user, and of fitting X once; ``n_exact`` held-out items are ranked exactly, against
    ``n_compared_exact`` candidates in all (``n_compared_sampled`` sampled); ``one_sample_recall`` is X's
    Recall@10 from the one real sample drawn; ``machine`` is the machine that built the page (:func:`machine`).
    """

    exact_seconds: float
    sampled_seconds: float
    fit_seconds: float
    n_exact: int
    n_compared_exact: int
    n_compared_sampled: int
    one_sample_recall: float
    machine: tuple[str, int | None, str]


def best_of_three(function: Callable[[], object]) -> tuple[float, object]:
    """The shortest of three timed calls of ``function`` (seconds), and its last result."""
    times, result = [], None
    for _ in range(3):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def machine() -> tuple[str, int | None, str]:
    """Processor (from ``/proc/cpuinfo`` where there is one), logical cores and BLAS threads (``"unset"`` when
    ``OPENBLAS_NUM_THREADS`` is not set)."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            name = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), name)
    except OSError:
        pass
    return name, os.cpu_count(), os.environ.get("OPENBLAS_NUM_THREADS", "unset")


def cost_study(study: SampledStudy, seed: int = 0) -> Cost:
    """Time exact against sampled evaluation of X on the study's split (best of three runs each)."""
    model, train, test, m = study.models[0], study.train, study.test, study.m

    def sampled_evaluation() -> np.ndarray:
        runs = build_runs(train, test, f"1R AI-NN({m})", seed=seed, threshold=-np.inf, on_shortage="exclude")
        return relevant_ranks(rank_positions(runs, score_runs(model, runs), ties="random", seed=seed))

    fit_seconds, _ = best_of_three(lambda: make(SYSTEMS["X"], seed=seed).fit(train))
    exact_seconds, exact = best_of_three(lambda: pool_ranks(model, train, test, seed=seed))
    sampled_seconds, positions = best_of_three(sampled_evaluation)
    return Cost(exact_seconds, sampled_seconds, fit_seconds, exact.n_targets, int((exact.sizes - 1).sum()),
                len(positions) * m, float(np.mean(positions <= 10)), machine())


def one_sample_z(study: SampledStudy, cost: Cost) -> float:
    """The one real sample's Recall@10 of X as a z-score among the simulated repetitions."""
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    return float((cost.one_sample_recall - simulated.mean()) / simulated.std(ddof=1))

"""Benchmark (a): time to evaluate five metrics on every run of a design, once scores exist.

Worlds: MovieLens 100K (when ``recbias.datasets`` finds it; set ``RECBIAS_DATA_DIR``)
and a synthetic world of MovieLens 1M size (6,040 users, 3,706 items, 1,000,000
ratings), split 80/20 at random.  Designs: 1R TI-NN(100) (``|T_u| = 101``) and
AR TI-AN.  Systems: Popularity (many tied scores) and matrix factorisation.
Prints, per (world, design, system), the seconds spent scoring (not part of the
target), ranking with random tie-breaking, computing the metrics, and the whole
``evaluate_runs`` call (ranking + metrics + table).  Target: under 2 s for the
ML-1M-sized 1R evaluation.  Run with ``.venv/bin/python benchmarks/bench_metrics.py``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from recbias import datasets
from recbias.designs import build_runs
from recbias.evaluate import DEFAULT_METRICS, evaluate_runs, rank_runs, score_runs
from recbias.metrics import compute_metrics
from recbias.ratings import Ratings
from recbias.recommenders import ALS, Popularity
from recbias.splits import random_split

DESIGNS = ("1R TI-NN(100)", "AR TI-AN")


def worlds() -> Iterator[tuple[str, Ratings]]:
    if datasets.available("ml-100k"):
        yield "ml-100k", datasets.load("ml-100k")
    else:
        print("ml-100k not found (set RECBIAS_DATA_DIR to the folder holding ml-100k/); skipped")
    yield "ML-1M-sized synthetic", datasets.load("synthetic", n_users=6040, n_items=3706, n_ratings=1_000_000, seed=0)


def seconds(task):
    start = time.perf_counter()
    result = task()
    return result, time.perf_counter() - start


def main() -> None:
    print(f"metrics: {', '.join(DEFAULT_METRICS)}; random tie-breaking")
    print(
        f"{'world':<22} {'design':<14} {'system':<11} {'runs':>9} {'entries':>11} "
        f"{'score s':>8} {'rank s':>7} {'metrics s':>9} {'evaluate s':>10} {'P@10':>7}"
    )
    for world, ratings in worlds():
        train, test = random_split(ratings, 0.2, seed=0)
        systems = {"Popularity": Popularity().fit(train), "MF": ALS(factors=64).fit(train)}
        for design in DESIGNS:
            runs = build_runs(train, test, design, seed=0)
            for system, recommender in systems.items():
                scores, score_s = seconds(lambda: score_runs(recommender, runs))
                ranked, rank_s = seconds(lambda: rank_runs(runs, scores))
                _, metrics_s = seconds(lambda: compute_metrics(ranked, DEFAULT_METRICS))
                table, evaluate_s = seconds(lambda: evaluate_runs(runs, scores, DEFAULT_METRICS))
                print(
                    f"{world:<22} {design:<14} {system:<11} {runs.n_runs:>9,} {len(runs.items):>11,} "
                    f"{score_s:>8.2f} {rank_s:>7.2f} {metrics_s:>9.2f} {evaluate_s:>10.2f} {table['P@10'].mean():>7.4f}"
                )


if __name__ == "__main__":
    main()

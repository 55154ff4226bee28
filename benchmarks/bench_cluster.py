"""Benchmark (g): chapter 2's experiment on a local Dask cluster of one worker, then of two.

One ``run_experiment`` of chapter 2's shape (coin-flip folds, AI-AN, TI-AN and
1R TI-NN(99); Popularity, MF, user-kNN and pLSA, the systems of ``bench_scale.py``;
P@10, Recall@10, nDCG@10, MAP and MRR; no fit cache) is run on a ``LocalCluster`` of one
worker and then of two (one thread each, as the appendix on clusters advises), each fresh.
Each worker's compiled kernels (BLAS, OpenMP, numba) get one thread, so that a worker stands
for one core, as it would on a machine of its own.  Printed: the wall seconds of each, the
speed-up, and whether the two runs' per-run tables are identical (they must be: where a task
runs never changes a number).

Goal on two cores: at least 1.6 times faster on two workers than on one, on
``synthetic-ml10m``.  Fits and user blocks are independent tasks, so the speed-up is bounded
by the longest single task (often one fit) and by what the page's own process does alone
(loading the data, drawing the folds, gathering the tables).

Run with ``.venv/bin/python benchmarks/bench_cluster.py [--dataset synthetic-ml10m] [--folds 2]``.
"""

from __future__ import annotations

import argparse
import os
import time

import pandas as pd

from recbias import datasets
from recbias.bookkit.pipeline import THREAD_VARIABLES
from recbias.evaluate.experiment import Experiment, run_experiment
from recbias.ratings import Ratings

DESIGNS = ["AI-AN", "TI-AN", "1R TI-NN(99)"]
SYSTEMS = {"Popularity": "popularity", "MF": "mf", "user-kNN": "user-knn", "pLSA": "plsa"}
METRICS = ["P@10", "Recall@10", "nDCG@10", "MAP", "MRR"]


def on_cluster(ratings: Ratings, workers: int, folds: int, memory: str) -> tuple[Experiment, float]:
    """The experiment on a fresh local cluster of ``workers`` single-threaded workers, and its wall seconds."""
    import distributed

    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit=memory) as cluster, distributed.Client(cluster) as client:
        start = time.perf_counter()
        experiment = run_experiment(ratings, DESIGNS, SYSTEMS, folds=folds, metrics=METRICS, cache=False,
                                    scheduler=client)
        return experiment, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="synthetic-ml10m")
    parser.add_argument("--folds", type=int, default=2, help="coin-flip folds (chapter 2 at the papers' setting: 5)")
    parser.add_argument("--memory", default="10GiB", help="memory limit of each worker")
    args = parser.parse_args()
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))  # read by each worker as it starts: one thread each
    ratings = datasets.load(args.dataset)
    print(f"{args.dataset}: {ratings.n_ratings:,} ratings, {args.folds} fold(s), {', '.join(DESIGNS)}, "
          f"{', '.join(SYSTEMS)}")
    one, one_seconds = on_cluster(ratings, 1, args.folds, args.memory)
    print(f"  1 worker   {one_seconds:8.1f} s", flush=True)
    two, two_seconds = on_cluster(ratings, 2, args.folds, args.memory)
    print(f"  2 workers  {two_seconds:8.1f} s")
    print(f"  speed-up   {one_seconds / two_seconds:8.2f}x")
    try:
        pd.testing.assert_frame_equal(one.runs, two.runs, check_exact=True)
        pd.testing.assert_frame_equal(one.reports, two.reports, check_exact=True)
        print("  per-run tables identical: yes")
    except AssertionError as error:
        print(f"  per-run tables identical: NO ({str(error).splitlines()[0]})")


if __name__ == "__main__":
    main()

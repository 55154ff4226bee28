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

Run with ``.venv/bin/python benchmarks/bench_cluster.py [--dataset synthetic-ml10m] [--folds 2]``; with
``--record book/measured/cluster_speedup.md`` the measurement is also written as the Markdown that the appendix on
clusters includes, so that the page shows what the script measured and nothing typed by hand.
"""

from __future__ import annotations

import argparse
import datetime
import os
import time
from pathlib import Path

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
    parser.add_argument("--record", type=Path, help="also write the measurement as Markdown for the appendix")
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
        identical = True
        print("  per-run tables identical: yes")
    except AssertionError as error:
        identical = False
        print(f"  per-run tables identical: NO ({str(error).splitlines()[0]})")
    if args.record is not None:
        args.record.write_text(record(args.dataset, args.folds, one_seconds, two_seconds, identical))
        print(f"  recorded in {args.record}")


def record(dataset: str, folds: int, one_seconds: float, two_seconds: float, identical: bool) -> str:
    """The measurement as the Markdown the appendix on clusters includes: when, where and how it was taken, the
    wall seconds of each cluster, the speed-up and whether the two runs agree."""
    tables = "give identical per-run tables" if identical else "do NOT give identical per-run tables"
    today = datetime.date.today()
    return (f"Measured on {today.day} {today:%B %Y}, on a machine with {os.cpu_count()} cores "
            f"(`benchmarks/bench_cluster.py --dataset {dataset} --folds {folds}`):\n\n"
            f"| workers | wall seconds |\n|---|---|\n| 1 | {one_seconds:.0f} |\n| 2 | {two_seconds:.0f} |\n\n"
            f"Two workers finish {one_seconds / two_seconds:.2f} times faster, and both runs {tables}.\n")


if __name__ == "__main__":
    main()

"""Benchmark (f): chapter 2's core experiment from 100 thousand to 20 million ratings.

One ``run_experiment`` of chapter 2's shape (one coin-flip fold, AI-AN, TI-AN and
1R TI-NN(99); Popularity, MF, user-kNN and pLSA; P@10, Recall@10, nDCG@10, MAP and MRR;
no fit cache) on the simulated presets of growing size: ``synthetic`` (120 thousand
ratings), ``synthetic-ml1m`` (1 million), ``synthetic-ml10m`` (10 million) and
``synthetic-ml20m`` (20 million).  Each size runs in a fresh process.  Printed per size:
seconds and peak resident memory of every stage (fit, designs, scores, ranks, metrics; a
thread samples the memory every 50 ms and reads which stage the experiment is in, and which
system it fits, from its call stack), the CPU seconds of each system's fit, the user blocks,
the total, and the cost per rating (total seconds over ratings, in microseconds), in wall time
and in CPU time of all the process's threads (the latter is what the experiment costs when
other work shares the machine).  Drawing the data
is not part of the stages.

Goals on two cores: cost per rating flat from 1 M to 20 M ratings (within a factor of 2),
peak memory at most 8 GiB at 20 M.  The AN designs rank every item a user has not rated, so
their candidates grow with users x items, faster than the ratings on sparser data.  Beside the
cost per rating the benchmark therefore prints each cost per the unit its work follows: each
fit's CPU time per rating, the evaluation's (design, score, rank, metrics) CPU time per ranked
candidate (one candidate entry of one design, ranked by one system), and the user-kNN fit's per
co-rating pair (two users who rated one item: an exact neighbour search meets every such pair, those
through the items most users rated in one dense product per block of users, the others one by one;
their number grows with the square of the ratings of popular items).

Run with ``.venv/bin/python benchmarks/bench_scale.py [--sizes 100k 1m 10m 20m]``; for long runs,
``--one SIZE > SIZE.json`` measures one size and ``--results *.json`` prints the tables.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import psutil

if TYPE_CHECKING:
    from recbias.ratings import Ratings

#: size label -> dataset
SIZES = {"100k": "synthetic", "1m": "synthetic-ml1m", "10m": "synthetic-ml10m", "20m": "synthetic-ml20m"}
DESIGNS = ["AI-AN", "TI-AN", "1R TI-NN(99)"]
SYSTEMS = {"Popularity": "popularity", "MF": "mf", "user-kNN": "user-knn", "pLSA": "plsa"}
METRICS = ["P@10", "Recall@10", "nDCG@10", "MAP", "MRR"]
STAGES = ("fit", "design", "score", "rank", "metrics")
#: function on the experiment's call stack -> the stage it belongs to (innermost wins)
STAGE_OF_FUNCTION = {"_fit_one": "fit", "plan_runs": "design", "materialise": "design", "score": "score",
                     "rank_positions": "rank", "compute_metrics": "metrics"}


class StageMonitor:
    """Samples the stage the main thread is in, the process's resident memory and its CPU time.

    The CPU seconds (all threads, user and system) between two samples go to the stage of the
    later one; on a machine shared with other work they measure the experiment's own cost,
    which wall time does not.
    """

    def __init__(self, interval: float = 0.05) -> None:
        self.interval, self.peaks, self.cpu = interval, dict.fromkeys(STAGES, 0), dict.fromkeys(STAGES, 0.0)
        self.fits: dict[str, float] = {}  # CPU seconds of each system's fit
        self.process, self.main = psutil.Process(), threading.main_thread().ident
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _stage(self) -> tuple[str | None, str | None]:
        """The stage of the main thread and, while it fits, the label of the system it fits."""
        frame = sys._current_frames().get(self.main)
        while frame is not None:
            stage = STAGE_OF_FUNCTION.get(frame.f_code.co_name)
            if stage is not None:
                return stage, frame.f_locals.get("label") if stage == "fit" else None
            frame = frame.f_back
        return None, None

    def _cpu_seconds(self) -> float:
        times = self.process.cpu_times()
        return times.user + times.system

    def _sample(self) -> None:
        used = self._cpu_seconds()
        while self.running:
            time.sleep(self.interval)
            (stage, system), now = self._stage(), self._cpu_seconds()
            if stage is not None:
                self.peaks[stage] = max(self.peaks[stage], self.process.memory_info().rss)
                self.cpu[stage] += now - used
            if system is not None:
                self.fits[system] = self.fits.get(system, 0.0) + now - used
            used = now

    def __enter__(self) -> StageMonitor:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.running = False
        self.thread.join()


def co_rating_pairs(train: Ratings) -> int:
    """``sum_i n_i^2`` over the items of the training ratings ``train`` (``n_i`` of item ``i``): the pairs
    of users who rated one item, which an exact neighbour search of users compares."""
    counts = train.item_counts().astype(np.int64)
    return int(counts @ counts)


def measure(size: str) -> dict:
    """Run the experiment on one size in this process; its figures."""
    from recbias import datasets
    from recbias.evaluate.experiment import run_experiment
    from recbias.splits import make_folds

    clock = time.perf_counter()
    ratings = datasets.load(SIZES[size], seed=0)
    drawn = time.perf_counter() - clock
    with StageMonitor() as monitor:
        clock = time.perf_counter()
        folds = make_folds(ratings, folds=1, seed=0)  # the split run_experiment draws with folds=1
        experiment = run_experiment(ratings, DESIGNS, SYSTEMS, folds=folds, metrics=METRICS, cache=False, seed=0)
        wall = time.perf_counter() - clock
    return {"size": size, "dataset": ratings.name, "ratings": ratings.n_ratings, "users": ratings.n_users,
            "items": ratings.n_items, "draw": drawn, "wall": wall, "blocks": experiment.blocks,
            "seconds": experiment.seconds, "cpu": monitor.cpu, "fits": monitor.fits, "peaks": monitor.peaks,
            "peak": _max_rss(), "runs": len(experiment.runs),
            "candidates": int(experiment.reports["candidates"].sum()), "pairs": co_rating_pairs(folds[0].train)}


def _max_rss() -> int:
    """Largest resident memory of this process so far (drawing the data included), in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def table(rows: list[dict], kind: str) -> str:
    """One line per size: the seconds of every stage (``kind``: ``"seconds"`` wall time, ``"cpu"``
    CPU time), their total and its cost per rating; for the wall time also the users, items and
    blocks, and the peak memory of every stage and of the process."""
    wall = kind == "seconds"
    header = (f"{'size':>5} {'ratings':>11} " + (f"{'users':>8} {'items':>7} {'blocks':>6} " if wall else "")
              + " ".join(f"{s + ' s':>9}" for s in STAGES) + f" {'total s':>9} {'us/rating':>9}"
              + ("".join(f" {s + ' GiB':>11}" for s in STAGES) + f" {'peak GiB':>8}" if wall else ""))
    lines = [header]
    for row in rows:
        total = sum(row[kind][s] for s in STAGES)
        lines.append(
            f"{row['size']:>5} {row['ratings']:>11,} "
            + (f"{row['users']:>8,} {row['items']:>7,} {row['blocks']:>6} " if wall else "")
            + " ".join(f"{row[kind][s]:9.1f}" for s in STAGES)
            + f" {total:9.1f} {total / row['ratings'] * 1e6:9.2f}"
            + ("".join(f" {row['peaks'][s] / 2**30:11.2f}" for s in STAGES) + f" {row['peak'] / 2**30:8.2f}"
               if wall else ""))
    return "\n".join(lines)


#: the stages whose work follows the candidates, not the ratings
EVALUATION = ("design", "score", "rank", "metrics")


def unit_costs(rows: list[dict]) -> str:
    """One line per size: the candidate entries of every design, the evaluation's CPU nanoseconds per
    ranked candidate, each fit's CPU microseconds per rating of the data, and the user-kNN fit's CPU
    nanoseconds per co-rating pair (:func:`co_rating_pairs`)."""
    systems = list(SYSTEMS)
    lines = [f"{'size':>5} {'candidates':>14} {'ns/ranked candidate':>20} "
             + " ".join(f"{s + ' us/rating':>18}" for s in systems) + f" {'pairs':>16} {'user-kNN ns/pair':>17}"]
    for row in rows:
        if "candidates" not in row:
            continue
        evaluation = sum(row["cpu"][s] for s in EVALUATION)
        per_candidate = evaluation / (row["candidates"] * len(systems)) * 1e9
        lines.append(f"{row['size']:>5} {row['candidates']:>14,} {per_candidate:20.1f} "
                     + " ".join(f"{row['fits'].get(s, 0.0) / row['ratings'] * 1e6:18.2f}" for s in systems)
                     + (f" {row['pairs']:>16,} {row['fits'].get('user-kNN', 0.0) / row['pairs'] * 1e9:17.2f}"
                        if "pairs" in row else ""))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", choices=list(SIZES), default=list(SIZES))
    parser.add_argument("--one", choices=list(SIZES), help="measure one size in this process, print its figures")
    parser.add_argument("--results", nargs="+", metavar="FILE", help="print the tables of sizes measured with --one")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    if args.results:
        report([json.loads(Path(name).read_text().strip().splitlines()[-1]) for name in args.results])
        return
    rows = []
    for size in args.sizes:
        child = subprocess.run([sys.executable, __file__, "--one", size], capture_output=True, text=True)
        if child.returncode != 0:
            raise RuntimeError(f"size {size} failed:\n{child.stderr[-3000:]}")
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
        print(f"{size}: drawn in {rows[-1]['draw']:.0f} s, experiment {rows[-1]['wall']:.0f} s wall; "
              f"{json.dumps(rows[-1])}", flush=True)  # every figure of the size, kept if a later size fails
    report(rows)


def report(rows: list[dict]) -> None:
    """The tables of wall and CPU time, the ratio of costs per rating and the fits' CPU seconds."""
    for kind, title in (("seconds", "wall time"), ("cpu", "CPU time (all threads)")):
        print(f"\n{title} per stage\n{table(rows, kind)}")
        flat = [sum(r[kind][s] for s in STAGES) / r["ratings"] for r in rows if r["ratings"] >= 1_000_000]
        if len(flat) > 1:
            print(f"cost per rating from 1 M up: largest / smallest = {max(flat) / min(flat):.2f} (goal: at most 2)")
    print(f"\nCPU cost per unit of work\n{unit_costs(rows)}")
    print("\nCPU seconds of each system's fit")
    for row in rows:
        print(f"{row['size']:>5} " + "  ".join(f"{system} {seconds:.1f}" for system, seconds in row["fits"].items()))


if __name__ == "__main__":
    main()

"""Benchmark (e): the whole book at the papers' scale and on MovieLens 100K.

For each dataset (default: ``synthetic-ml1m``, the shape of ML-1M, and
``ml-100k``) and each number of jobs (default: 1, then 2), the whole book is
executed through the book pipeline, in a scratch copy of the book and on an
empty fit cache, so that no fit made by an earlier build is reused and the
project's own pages and results are left alone; the pages read the project's
datasets, as a build in the project does.  The builds share the scratch
book, so each after the first starts its pages longest first by the times the
one before recorded, as any rebuild does (:mod:`recbias.bookkit.schedule`); the
first build of a fresh book runs them in book order.  Printed per page: wall
seconds and processor seconds (user and system, of the page's worker and its
kernel, as the pipeline reports them) and peak resident memory (of its worker
and kernel, sampled every 0.2 s); then the build's wall time, its processor
seconds (the pages' and the build tool's), the peak memory of the whole process tree (two pages at once with two
jobs), the fits the build made per system (how many, their processor seconds and their share of the build's,
from :data:`recbias.recommenders.base.FIT_LOG_VARIABLE`), and the speed-up of the largest number of jobs over one.
Then one ``run_experiment`` of chapter 2's shape (two folds, AI-AN, TI-AN and 1R TI-NN(99), the five systems of
the papers, no fit cache) is profiled and the share of its time in fitting, design building,
scoring, ranking and metrics is printed.

Targets on two quiet cores: every page at most 90 s on ``synthetic`` and
``ml-100k`` (150 s where a page says its papers' setting needs it); the whole
book on ``synthetic-ml1m`` at the papers' settings within 5 minutes and 560
processor seconds with two jobs, and at least 1.7 times faster with two jobs
than with one; every page's peak memory at most 8 GiB.

Run with ``.venv/bin/python benchmarks/bench_book.py [--datasets ...] [--jobs 1 2] [--chapters ...]``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from recbias import datasets
from recbias.evaluate.experiment import run_experiment
from recbias.paths import data_dir
from recbias.recommenders import PAPERS_SET
from recbias.recommenders.base import FIT_LOG_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
BOOK_FILES = ("_config.yml", "_toc.yml", "references.bib")
#: the pipeline's line for an executed page: its name, wall seconds and processor seconds
PAGE_LINE = re.compile(r"executed (\S+)\s+([\d.]+) s\s+([\d.]+) s CPU")

#: (module file, profiled function) -> stage it stands for in the breakdown
STAGES = {
    ("experiment.py", "_fit_on_fold"): "fit",
    ("experiment.py", "_design_source"): "designs",
    ("scoring.py", "score"): "score",
    ("ranking.py", "rank_positions"): "rank",
    ("spec.py", "compute_metrics"): "metrics",
}


def scratch_book(where: Path) -> Path:
    """A copy of the book's sources (pages, table of contents, configuration) under ``where``."""
    for name in BOOK_FILES:
        shutil.copy(ROOT / name, where / name)
    shutil.copytree(ROOT / "book", where / "book", ignore=shutil.ignore_patterns("*.ipynb", "_build"))
    return where


def children_seconds() -> float:
    """User and system seconds of this process's children that have ended (a build and all it ran)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _rss(processes: list[psutil.Process]) -> int:
    """The summed resident memory of ``processes`` (those that ended meanwhile count 0)."""
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total


def peak_memory(process: subprocess.Popen) -> tuple[int, dict[str, int]]:
    """Wait for the build ``process``; the peak resident memory of it and all its descendants, and per page
    the peak of the page's worker and kernel (a worker's last argument is its staging directory, named
    after the page), in bytes."""
    root = psutil.Process(process.pid)
    peak, pages = 0, {}
    while process.poll() is None:
        try:
            workers = root.children()
            peak = max(peak, _rss([root, *root.children(recursive=True)]))
            for worker in workers:
                arguments = worker.cmdline()
                if not arguments:  # a worker being started or reaped shows no command line
                    continue
                page = Path(arguments[-1]).name
                pages[page] = max(pages.get(page, 0), _rss([worker, *worker.children(recursive=True)]))
        except psutil.Error:
            pass
        time.sleep(0.2)
    return peak, pages


@dataclass(frozen=True)
class BookRun:
    """One build's times and memory: per page wall and processor seconds and peak bytes, and the whole build's
    (its processor seconds count the build tool's own too)."""

    pages: dict[str, tuple[float, float, int]]
    wall: float
    processor: float
    peak: int
    fits: dict[str, tuple[int, float]]  # system -> fits made and their processor seconds


def build_environment(cache: str, fit_log: Path) -> dict[str, str]:
    """The measured build's variables: the empty fit ``cache``, the ``fit_log``, and this project's datasets
    (``RECBIAS_DATA_DIR``, else its ``data/raw``): the pages run in the scratch book, which has none, and without
    them would skip every section on real data."""
    return os.environ | {"RECBIAS_CACHE_DIR": cache, FIT_LOG_VARIABLE: str(fit_log),
                         "RECBIAS_DATA_DIR": str(data_dir(ROOT))}


def time_book(root: Path, dataset: str, jobs: int, chapters: list[str] | None) -> BookRun:
    """Execute the book (or ``chapters``) through the pipeline with ``jobs`` jobs on an empty fit cache."""
    command = [sys.executable, "-m", "recbias.bookkit", "--root", str(root), "--no-html", "--jobs", str(jobs),
               "--dataset", dataset, *(["--chapters", *chapters] if chapters else [])]
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryFile("w+") as log:
        fit_log = Path(cache) / "fits.jsonl"
        start, before = time.perf_counter(), children_seconds()
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True,
                                   env=build_environment(cache, fit_log))
        peak, page_peaks = peak_memory(process)
        wall = time.perf_counter() - start
        log.seek(0)
        output = log.read()
        fits = fits_by_system(fit_log.read_text() if fit_log.exists() else "")
    pages = {name: (float(seconds), float(cpu), page_peaks.get(name, 0))
             for name, seconds, cpu in PAGE_LINE.findall(output)}
    if process.returncode != 0 or not pages:
        raise RuntimeError(f"the book on {dataset} with {jobs} job(s) failed:\n{output[-3000:]}")
    return BookRun(pages, wall, children_seconds() - before, peak, fits)


def fits_by_system(lines: str) -> dict[str, tuple[int, float]]:
    """The fits a build made (the JSON lines of :data:`~recbias.recommenders.base.FIT_LOG_VARIABLE`): per
    system, how many and their processor seconds, the costliest first."""
    totals: dict[str, tuple[int, float]] = {}
    for line in lines.splitlines():
        fit = json.loads(line)
        count, seconds = totals.get(fit["system"], (0, 0.0))
        totals[fit["system"]] = (count + 1, seconds + fit["cpu"])
    return dict(sorted(totals.items(), key=lambda item: -item[1][1]))


def print_run(dataset: str, jobs: int, run: BookRun) -> None:
    print(f"\n{dataset}, {jobs} job(s), empty cache: page   wall s    CPU s  peak GiB")
    for name, (seconds, cpu, peak) in run.pages.items():
        print(f"  {name:<30} {seconds:8.1f} {cpu:8.1f} {peak / 2**30:9.2f}")
    print(f"  {'whole build':<30} {run.wall:8.1f} {run.processor:8.1f} {run.peak / 2**30:9.2f}")
    print(f"  {'fits made, by system':<30} {'fits':>8} {'CPU s':>8} {'share':>9}")
    for system, (count, seconds) in run.fits.items():
        print(f"  {system:<30} {count:8d} {seconds:8.1f} {seconds / run.processor:9.1%}")
    total = sum(seconds for _, seconds in run.fits.values())
    print(f"  {'all fits':<30} {sum(count for count, _ in run.fits.values()):8d} {total:8.1f} "
          f"{total / run.processor:9.1%}", flush=True)


def stage_shares(dataset: str) -> None:
    """Profile one run_experiment of chapter 2's shape and print the time per stage."""
    ratings = datasets.load(dataset)
    designs = ["AI-AN", "TI-AN", "1R TI-NN(99)"]
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.runcall(run_experiment, ratings, designs, PAPERS_SET, folds=2, cache=False,
                    metrics=["P@10", "nDCG@10", "Recall@10", "MAP", "MRR"])
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    seconds = {stage: cumulative for (path, _, function), (_, _, _, cumulative, _) in stats.items()
               if (stage := STAGES.get((Path(path).name, function)))}
    missing = sorted(set(STAGES.values()) - set(seconds))
    if missing:
        raise RuntimeError(f"no profiled function stands for the stages {missing}: update STAGES to the code")
    print(f"\nrun_experiment on {dataset} (2 folds, {', '.join(designs)}, 5 systems): {total:.1f} s")
    for stage, spent in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<8} {spent:7.1f} s  {spent / total:6.1%}")
    print(f"  {'other':<8} {total - sum(seconds.values()):7.1f} s  {1 - sum(seconds.values()) / total:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["synthetic-ml1m", "ml-100k"])
    parser.add_argument("--jobs", nargs="+", type=int, default=[1, 2], help="numbers of jobs to build with, in order")
    parser.add_argument("--chapters", nargs="+", default=None, help="only these pages (default: the whole book)")
    parser.add_argument("--no-profile", action="store_true", help="skip the stage breakdown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = scratch_book(Path(folder))
        for dataset in args.datasets:
            if not datasets.available(dataset):
                print(f"\n{dataset}: not on this machine, skipped")
                continue
            runs = {jobs: time_book(root, dataset, jobs, args.chapters) for jobs in args.jobs}
            for jobs, run in runs.items():
                print_run(dataset, jobs, run)
            if 1 in runs and len(runs) > 1:
                most = max(runs)
                print(f"  speed-up of {most} jobs over 1: {runs[1].wall / runs[most].wall:.2f}x")
    if not args.no_profile:
        stage_shares(args.datasets[0])


if __name__ == "__main__":
    main()

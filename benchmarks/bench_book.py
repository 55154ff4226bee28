"""Benchmark (e): the book's chapters at the papers' scale and on MovieLens 100K.

For each dataset (default: ``synthetic-ml1m``, the shape of ML-1M, and
``ml-100k``), every chapter (or those named with ``--chapters``) is executed
one after the other through the book pipeline, in a scratch copy of the book
so that the project's own pages and results are left alone.  Printed per
chapter: execution seconds (as the pipeline reports them) and the peak
resident memory of the process tree (pipeline, papermill and kernel, sampled
every 0.2 s).  Then one ``run_experiment`` of chapter 2's shape (two folds,
AI-AN, TI-AN and 1R TI-NN(99), the five systems of the papers, no fit cache) is
profiled and the share of its time in fitting, design building, scoring,
ranking and metrics is printed.

Targets on two cores: every chapter at most 90 s on ``synthetic`` and
``ml-100k`` (150 s where a page says its papers' setting needs it); on
``synthetic-ml1m`` every chapter at most 60 s and the whole book at most
4 minutes with two jobs; peak memory at most 8 GiB.

Run with ``.venv/bin/python benchmarks/bench_book.py [--datasets ...] [--chapters ...]``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from recbias import datasets
from recbias.evaluate.experiment import run_experiment
from recbias.recommenders import PAPERS_SET

ROOT = Path(__file__).resolve().parents[1]
BOOK_FILES = ("_config.yml", "_toc.yml", "references.bib")

#: (module file, profiled function) -> stage it stands for in the breakdown
STAGES = {
    ("runner.py", "fit_systems"): "fit",
    ("build.py", "build_runs"): "designs",
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


def peak_tree_rss(process: subprocess.Popen) -> int:
    """Wait for ``process`` and return the largest resident memory of it and its descendants, in bytes."""
    root = psutil.Process(process.pid)
    peak = 0
    while process.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.2)
    return peak


def time_chapter(root: Path, dataset: str, chapter: str) -> tuple[float, int]:
    """Execute one chapter through the pipeline; its execution seconds and peak memory."""
    command = [sys.executable, "-m", "recbias.bookkit", "--root", str(root), "--no-html", "--jobs", "1",
               "--dataset", dataset, "--chapters", chapter]
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
        peak = peak_tree_rss(process)
        log.seek(0)
        output = log.read()
    found = re.search(r"executed \S+\s+([\d.]+) s", output)
    if process.returncode != 0 or found is None:
        raise RuntimeError(f"chapter {chapter} on {dataset} failed:\n{output[-3000:]}")
    return float(found.group(1)), peak


def chapter_numbers(root: Path) -> list[str]:
    """Numbers of the executable chapters, in book order."""
    return sorted(path.name[:2] for path in (root / "book").glob("[0-9][0-9]_*.py"))


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
    print(f"\nrun_experiment on {dataset} (2 folds, {', '.join(designs)}, 5 systems): {total:.1f} s")
    for (path, _, function), (_, _, _, cumulative, _) in sorted(stats.items(), key=lambda kv: -kv[1][3]):
        stage = STAGES.get((Path(path).name, function))
        if stage:
            print(f"  {stage:<8} {cumulative:7.1f} s  {cumulative / total:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["synthetic-ml1m", "ml-100k"])
    parser.add_argument("--chapters", nargs="+", default=None)
    parser.add_argument("--no-profile", action="store_true", help="skip the stage breakdown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = scratch_book(Path(folder))
        chapters = args.chapters or chapter_numbers(root)
        for dataset in args.datasets:
            if not datasets.available(dataset):
                print(f"\n{dataset}: not on this machine, skipped")
                continue
            print(f"\n{dataset}: chapter   seconds   peak memory")
            total = 0.0
            for chapter in chapters:
                seconds, peak = time_chapter(root, dataset, chapter)
                total += seconds
                print(f"  {chapter:>8} {seconds:9.1f}   {peak / 2**30:6.2f} GiB", flush=True)
            print(f"  {'total':>8} {total:9.1f}")
    if not args.no_profile:
        stage_shares(args.datasets[0])


if __name__ == "__main__":
    main()

"""Benchmark (c): the five metrics of benchmark (a) next to trec_eval (pytrec_eval).

Three run sets: 200,000 one-relevant-item runs of 101 candidates (1R TI-NN(100)
at several times ML-1M's size), the all-items runs of an ML-1M-sized world
(TI-AN, about 3,500 candidates per run, MF scores) and 2,000 small runs of 20
to 200 candidates, where fixed costs dominate.
recbias ranks the scores and computes P@10, Recall@10, nDCG@10, MAP and MRR;
trec_eval gets the same runs as qrels (grade for relevant candidates, 0 for
judged non-relevant, -1 for unjudged, plus unretrieved relevant documents up to
``n_relevant``) and as scores that reproduce recbias' order (``|T_u| - position``,
no ties).  nDCG is computed by trec_eval on qrels restricted to the candidates,
because recbias' ideal ranking is the run's own (see ``recbias.metrics.ndcg``).
Prints, per run set, both times (trec_eval with and without building its input
dictionaries), the speed ratio (target: at least 30x on the 1R runs, above 1x on
the small ones) and the largest absolute difference per metric (target: identical).  Run with ``.venv/bin/python benchmarks/bench_oracle.py``.
"""

from __future__ import annotations

import time

import numpy as np
import pytrec_eval

from recbias import datasets
from recbias.designs import build_runs
from recbias.evaluate import DEFAULT_METRICS, evaluate_runs, rank_runs, score_runs
from recbias.recommenders import ALS
from recbias.runs import Runs
from recbias.splits import random_split

#: recbias metric -> (trec_eval measure to request, its result name, which qrels it uses)
TREC_NAMES = {
    "P@10": ("P.10", "P_10", "full"),
    "Recall@10": ("recall.10", "recall_10", "full"),
    "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10", "candidates"),
    "MAP": ("map", "map", "full"),
    "MRR": ("recip_rank", "recip_rank", "full"),
}


def trec_inputs(ranked: Runs) -> tuple[dict, dict, dict]:
    """qrels with unretrieved relevant documents, qrels of the candidates only, and the run."""
    full, candidates, run = {}, {}, {}
    sizes = ranked.sizes
    positions = np.arange(len(ranked.items)) - np.repeat(ranked.offsets[:-1], sizes)
    value = np.where(ranked.labels, ranked.grades, np.where(ranked.judged, 0, -1)).astype(int).tolist()
    score = (np.repeat(sizes, sizes) - positions).astype(float).tolist()
    docs = [f"i{item}" for item in ranked.items.tolist()]
    in_run = np.bincount(ranked.run_of_entry, weights=ranked.labels, minlength=ranked.n_runs)
    outside = (ranked.n_relevant - in_run).astype(int)
    bounds = ranked.offsets.tolist()
    for k in range(ranked.n_runs):
        lo, hi = bounds[k], bounds[k + 1]
        query = f"q{k}"
        candidates[query] = dict(zip(docs[lo:hi], value[lo:hi], strict=True))
        full[query] = candidates[query] | {f"x{extra}": 1 for extra in range(outside[k])}
        run[query] = dict(zip(docs[lo:hi], score[lo:hi], strict=True))
    return full, candidates, run


def random_runs(rng: np.random.Generator, n_runs: int, low: int, high: int, one_relevant: bool) -> Runs:
    """``n_runs`` runs of ``low..high`` candidates, distinct items, graded relevance and partial judgments."""
    sizes = rng.integers(low, high + 1, n_runs)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    total = int(offsets[-1])
    items = np.arange(total) - np.repeat(offsets[:-1], sizes)  # distinct within a run, as document ids must be
    if one_relevant:
        labels = np.zeros(total, dtype=bool)
        labels[offsets[:-1] + rng.integers(0, sizes)] = True
    else:
        labels = rng.random(total) < 0.05
    grades = np.where(labels, rng.integers(1, 6, total), 0)
    judged = labels | (rng.random(total) < 0.1)
    n_relevant = np.bincount(np.repeat(np.arange(n_runs), sizes), weights=labels, minlength=n_runs)
    return Runs.from_arrays(offsets, np.arange(n_runs), items, labels, grades, judged, np.maximum(n_relevant, 1))


def compare(label: str, runs: Runs, scores: np.ndarray) -> None:
    """Time recbias and pytrec_eval on the same runs and scores, and print the differences."""
    start = time.perf_counter()
    ours = evaluate_runs(runs, scores, DEFAULT_METRICS)
    ours_s = time.perf_counter() - start

    ranked = rank_runs(runs, scores)  # the same order evaluate_runs used (same seed)
    start = time.perf_counter()
    full, candidates, run = trec_inputs(ranked)
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    trec = {}
    for kind, qrels in (("full", full), ("candidates", candidates)):
        measures = {request for request, _, uses in TREC_NAMES.values() if uses == kind}
        trec[kind] = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    trec_s = time.perf_counter() - start

    print(f"\n{label}: {runs.n_runs:,} runs, {len(runs.items):,} candidates")
    print(f"recbias evaluate_runs (rank + 5 metrics): {ours_s:.2f} s")
    print(f"pytrec_eval: {trec_s:.2f} s evaluating, {build_s:.2f} s building its inputs")
    print(f"speed ratio: {trec_s / ours_s:.1f}x (evaluation only), {(trec_s + build_s) / ours_s:.1f}x (with inputs)")
    for metric, (_, name, kind) in TREC_NAMES.items():
        theirs = np.array([trec[kind][f"q{k}"][name] for k in range(runs.n_runs)])
        gap = np.abs(ours[metric].to_numpy() - theirs).max()
        print(
            f"  {metric:<10} mean {ours[metric].mean():.6f}   trec_eval {name:<12} mean {theirs.mean():.6f}"
            f"   max |diff| {gap:.2e}"
        )


def main() -> None:
    rng = np.random.default_rng(0)
    one_relevant = random_runs(rng, 200_000, 101, 101, one_relevant=True)
    compare("1R runs of 101 candidates, random scores", one_relevant, rng.random(len(one_relevant.items)))

    ratings = datasets.load("synthetic-ml1m", seed=0)
    train, test = random_split(ratings, 0.2, seed=0)
    runs = build_runs(train, test, "TI-AN", seed=0)
    keep = np.arange(runs.n_runs) < 1000  # trec_eval's input dictionaries of all 5,500 runs take minutes
    runs = Runs.from_arrays(
        runs.offsets[: 1001], runs.users[keep], runs.items[: runs.offsets[1000]], runs.labels[: runs.offsets[1000]],
        runs.grades[: runs.offsets[1000]], runs.judged[: runs.offsets[1000]], runs.n_relevant[keep], design="TI-AN",
    )
    compare("AR runs (TI-AN, first 1,000 users of an ML-1M-sized world), MF scores", runs,
            score_runs(ALS(factors=64).fit(train), runs))

    small = random_runs(rng, 2_000, 20, 200, one_relevant=False)
    compare("2,000 small runs of 20-200 candidates, tied integer scores", small,
            rng.integers(0, 50, len(small.items)).astype(float))


if __name__ == "__main__":
    main()

"""Benchmark (c): the five metrics of benchmark (a) next to trec_eval (pytrec_eval).

Same world, split, design (1R TI-NN(100)) and system (MF) as benchmark (a).
recbias ranks the scores and computes P@10, Recall@10, nDCG@10, MAP and MRR;
trec_eval gets the same runs as qrels (grade for relevant candidates, 0 for
judged non-relevant, -1 for unjudged, plus unretrieved relevant documents up to
``n_relevant``) and as scores that reproduce recbias' order (``|T_u| - position``,
no ties).  nDCG is computed by trec_eval on qrels restricted to the candidates,
because recbias' ideal ranking is the run's own (see ``recbias.metrics.ndcg``).
Prints both times (trec_eval with and without building its input dictionaries),
the speed ratio (target >= 10x) and the largest absolute difference per metric
(target: identical).  Run with ``.venv/bin/python benchmarks/bench_oracle.py``.
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


def main() -> None:
    ratings = datasets.load("synthetic", n_users=6040, n_items=3706, n_ratings=1_000_000, seed=0)
    train, test = random_split(ratings, 0.2, seed=0)
    runs = build_runs(train, test, "1R TI-NN(100)", seed=0)
    scores = score_runs(ALS(factors=64).fit(train), runs)

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

    print(f"{runs.n_runs:,} runs of {runs.design}, {len(runs.items):,} candidates; MF scores")
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


if __name__ == "__main__":
    main()

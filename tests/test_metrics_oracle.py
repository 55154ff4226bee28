"""Agreement with trec_eval (through pytrec_eval) on thousands of random runs without ties.

Each run becomes a trec_eval query: candidates are documents scored ``size - position``
(distinct, so trec_eval's order is ours), relevant candidates have their grade as qrels
value, judged non-relevant ones 0 and unjudged ones -1 (pooled but unjudged).  The
``n_relevant - relevant candidates`` relevant items outside the run become unretrieved
relevant documents of grade 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from runs_factory import random_runs

from recbias import metrics as M
from recbias.runs import Runs

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 3, 5, 10, 20)


def trec_inputs(runs: Runs, outside_relevant: bool = True) -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for k in range(runs.n_runs):
        s = slice(runs.offsets[k], runs.offsets[k + 1])
        labels, grades, judged = runs.labels[s], runs.grades[s], runs.judged[s]
        size = len(labels)
        qrels[f"q{k}"] = {
            f"d{j}": int(grades[j]) if labels[j] else (0 if judged[j] else -1) for j in range(size)
        }
        if outside_relevant:
            for extra in range(int(runs.n_relevant[k] - labels.sum())):
                qrels[f"q{k}"][f"x{extra}"] = 1
        run[f"q{k}"] = {f"d{j}": float(size - j) for j in range(size)}
    return qrels, run


def evaluate(qrels: dict, run: dict, measures: set[str], n_runs: int) -> dict[str, np.ndarray]:
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = results["q0"].keys()
    return {name: np.array([results[f"q{k}"][name] for k in range(n_runs)]) for name in names}


@pytest.fixture(scope="module")
def runs() -> Runs:
    return random_runs(np.random.default_rng(2024), n_runs=3000, min_size=1, max_size=40)


@pytest.fixture(scope="module")
def trec(runs: Runs) -> dict[str, np.ndarray]:
    cut = ",".join(map(str, CUTOFFS))
    measures = {f"P.{cut}", f"recall.{cut}", f"map_cut.{cut}", f"success.{cut}", "map", "recip_rank", "Rprec"}
    measures |= {"bpref", "infAP"}
    return evaluate(*trec_inputs(runs), measures, runs.n_runs)


@pytest.fixture(scope="module")
def trec_ndcg(runs: Runs) -> dict[str, np.ndarray]:
    """nDCG with the ideal ranking over the run's candidates only (see recbias.metrics.ndcg)."""
    cut = ",".join(map(str, CUTOFFS))
    return evaluate(*trec_inputs(runs, outside_relevant=False), {"ndcg", f"ndcg_cut.{cut}"}, runs.n_runs)


def agree(ours: np.ndarray, theirs: np.ndarray) -> None:
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


@pytest.mark.parametrize("n", CUTOFFS)
def test_cutoff_metrics(runs: Runs, trec: dict, trec_ndcg: dict, n: int) -> None:
    agree(M.precision(runs, n), trec[f"P_{n}"])
    agree(M.recall(runs, n), trec[f"recall_{n}"])
    agree(M.average_precision(runs, n), trec[f"map_cut_{n}"])
    agree(M.hit_rate(runs, n), trec[f"success_{n}"])
    agree(M.ndcg(runs, n), trec_ndcg[f"ndcg_cut_{n}"])


def test_whole_run_metrics(runs: Runs, trec: dict, trec_ndcg: dict) -> None:
    agree(M.average_precision(runs), trec["map"])
    agree(M.reciprocal_rank(runs), trec["recip_rank"])
    agree(M.r_precision(runs), trec["Rprec"])
    agree(M.bpref(runs), trec["bpref"])
    agree(M.infap(runs, epsilon=M.TREC_EVAL_INFAP_EPSILON), trec["infAP"])
    agree(M.ndcg(runs), trec_ndcg["ndcg"])


def test_documented_differences_from_trec_eval(runs: Runs, trec: dict) -> None:
    """Where the conventions differ on purpose, the difference is what the docs say."""
    # infAP: epsilon = 0 (the IRJ formula) differs from trec_eval by epsilon-order amounts only
    gap = np.abs(M.infap(runs) - trec["infAP"])
    assert 0 < gap.max() < 1e-4
    # nDCG: trec_eval's ideal also ranks relevant items outside the run, so it can only be lower
    trec_full = evaluate(*trec_inputs(runs), {"ndcg"}, runs.n_runs)["ndcg"]
    outside = runs.n_relevant > np.bincount(runs.run_of_entry, weights=runs.labels, minlength=runs.n_runs)
    ours = M.ndcg(runs)
    assert np.all(trec_full <= ours + 1e-12)
    assert np.all(trec_full[outside & (ours > 0)] < ours[outside & (ours > 0)])
    agree(trec_full[~outside], ours[~outside])
    # AP@n normalised by min(R, n) (Krichene & Rendle Eq. 5) rescales trec_eval's map_cut by R / min(R, n)
    for n in CUTOFFS:
        scale = runs.n_relevant / np.maximum(np.minimum(runs.n_relevant, n), 1)
        agree(M.average_precision(runs, n, normalise="cutoff"), trec[f"map_cut_{n}"] * scale)

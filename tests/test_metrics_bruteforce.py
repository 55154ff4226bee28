"""Vectorised metrics against per-run Python loops on random runs (sizes 0..30, graded, partly judged)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import scipy.sparse as sp
from runs_factory import (
    bf_auc,
    bf_average_precision,
    bf_bpref,
    bf_f1,
    bf_hit_rate,
    bf_infap,
    bf_ndcg,
    bf_precision,
    bf_r_precision,
    bf_recall,
    bf_reciprocal_rank,
    bf_stratified_recall,
    random_runs,
    split_runs,
)

from recbias import metrics as M
from recbias.runs import Runs


@pytest.fixture(scope="module")
def runs() -> Runs:
    return random_runs(np.random.default_rng(7), n_runs=400)


CASES: list[tuple[str, Callable, Callable]] = [
    ("P@1", lambda r: M.precision(r, 1), lambda d: bf_precision(d, 1)),
    ("P@5", lambda r: M.precision(r, 5), lambda d: bf_precision(d, 5)),
    ("Recall@5", lambda r: M.recall(r, 5), lambda d: bf_recall(d, 5)),
    ("F1@5", lambda r: M.f1(r, 5), lambda d: bf_f1(d, 5)),
    ("HR@3", lambda r: M.hit_rate(r, 3), lambda d: bf_hit_rate(d, 3)),
    ("Rprec", M.r_precision, bf_r_precision),
    ("RR", M.reciprocal_rank, bf_reciprocal_rank),
    ("RR@4", lambda r: M.reciprocal_rank(r, 4), lambda d: bf_reciprocal_rank(d, 4)),
    ("AP", M.average_precision, bf_average_precision),
    ("AP@5", lambda r: M.average_precision(r, 5), lambda d: bf_average_precision(d, 5)),
    (
        "AP@5 cutoff",
        lambda r: M.average_precision(r, 5, normalise="cutoff"),
        lambda d: bf_average_precision(d, 5, "cutoff"),
    ),
    (
        "AP candidates",
        lambda r: M.average_precision(r, normalise="candidates"),
        lambda d: bf_average_precision(d, None, "candidates"),
    ),
    ("nDCG", M.ndcg, bf_ndcg),
    ("nDCG@5", lambda r: M.ndcg(r, 5), lambda d: bf_ndcg(d, 5)),
    ("nDCG@5 exp", lambda r: M.ndcg(r, 5, gain="exponential"), lambda d: bf_ndcg(d, 5, "exponential")),
    ("AUC", M.auc, bf_auc),
    ("bpref", M.bpref, bf_bpref),
    ("bpref as IRJ prints it", lambda r: M.bpref(r, cap="none"), lambda d: bf_bpref(d, cap="none")),
    ("infAP", M.infap, bf_infap),
    ("infAP eps", lambda r: M.infap(r, epsilon=1e-3), lambda d: bf_infap(d, 1e-3)),
]


@pytest.mark.parametrize(("name", "vectorised", "brute_force"), CASES, ids=[c[0] for c in CASES])
def test_metric_matches_brute_force(runs: Runs, name: str, vectorised: Callable, brute_force: Callable) -> None:
    expected = [brute_force(run) for run in split_runs(runs)]
    np.testing.assert_allclose(vectorised(runs), expected, rtol=0, atol=1e-12)


def test_stratified_recall_matches_brute_force(runs: Runs) -> None:
    rng = np.random.default_rng(3)
    n_items = 1000
    positive_counts = rng.integers(1, 50, size=n_items).astype(float)
    # the user's relevant test items: those of the run plus n_relevant - in-run extra ones
    rows, cols = [], []
    split = split_runs(runs)
    for user, run in enumerate(split):
        relevant = [i for i, label in zip(run["items"], run["labels"], strict=True) if label]
        outside = rng.choice(np.setdiff1d(np.arange(n_items), run["items"]), run["R"] - len(relevant), replace=False)
        rows += [user] * run["R"]
        cols += relevant + outside.tolist()
    test_positive = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(runs.n_runs, n_items))
    popularity = M.ItemPopularity(positive_counts, positive_counts, runs.n_runs, test_positive)
    for gamma in (0.0, 0.5, 2.0):
        weight = {i: positive_counts[i] ** (-gamma / (gamma + 1)) for i in range(n_items)}
        totals = [sum(weight[i] for i in test_positive[u].indices) for u in range(runs.n_runs)]
        expected = [bf_stratified_recall(run, 5, weight, total) for run, total in zip(split, totals, strict=True)]
        np.testing.assert_allclose(M.stratified_recall(runs, 5, popularity, gamma), expected, rtol=0, atol=1e-12)


def test_infap_equals_ap_when_every_candidate_is_judged() -> None:
    runs = random_runs(np.random.default_rng(11), n_runs=300, judged_share=1.0)
    assert runs.judged.all()
    np.testing.assert_allclose(M.infap(runs), M.average_precision(runs), rtol=0, atol=1e-15)
    # trec_eval's smoothing moves it by at most epsilon-order amounts
    gap = np.abs(M.infap(runs, epsilon=M.TREC_EVAL_INFAP_EPSILON) - M.average_precision(runs))
    assert 0 < gap.max() < 1e-5


def test_one_relevant_item_reduces_metrics_to_rank_functions() -> None:
    """Krichene & Rendle 2020, Eq. 7-13: with one relevant item at rank r among t candidates."""
    rng = np.random.default_rng(5)
    t, n_runs = 40, 300
    ranks = rng.integers(1, t + 1, size=n_runs)
    labels = np.zeros(n_runs * t, dtype=bool)
    labels[np.arange(n_runs) * t + ranks - 1] = True
    runs = Runs.from_arrays(np.arange(n_runs + 1) * t, np.arange(n_runs), np.tile(np.arange(t), n_runs), labels)
    np.testing.assert_allclose(M.auc(runs), (t - ranks) / (t - 1), atol=1e-14)
    np.testing.assert_allclose(M.average_precision(runs), 1 / ranks, atol=1e-14)
    np.testing.assert_allclose(M.reciprocal_rank(runs), 1 / ranks, atol=1e-14)
    # IRJ Section 6: in 1R runs MAP = MRR once AP is normalised by the run's relevant candidates
    one_r = Runs.from_arrays(runs.offsets, runs.users, runs.items, runs.labels, n_relevant=rng.integers(1, 5, n_runs))
    np.testing.assert_allclose(M.average_precision(one_r, normalise="candidates"), 1 / ranks, atol=1e-14)
    np.testing.assert_allclose(M.average_precision(one_r), 1 / ranks / one_r.n_relevant, atol=1e-14)
    np.testing.assert_allclose(M.ndcg(runs), 1 / np.log2(ranks + 1), atol=1e-14)
    np.testing.assert_allclose(M.ndcg(runs, 10), (ranks <= 10) / np.log2(ranks + 1), atol=1e-14)
    np.testing.assert_allclose(M.recall(runs, 10), ranks <= 10, atol=0)
    np.testing.assert_allclose(M.precision(runs, 10), (ranks <= 10) / 10, atol=0)

"""Rank metrics of one relevant item: definitions, the metric grammar, the run metrics on 1R runs, published toy values."""

import numpy as np
import pytest
import pytrec_eval

from recbias.metrics import parse_metric
from recbias.runs import Runs
from recbias.sampled import RANK_FAMILIES, metric_vector, rank_metric

N_SMALL = 25


def _trec_eval_by_rank(n: int, measures: set[str]) -> dict[str, np.ndarray]:
    """trec_eval measures for one query per rank r = 1..n, its single relevant doc at rank r."""
    qrels = {f"q{r}": {f"d{r}": 1} for r in range(1, n + 1)}
    run = {f"q{r}": {f"d{j}": float(n - j) for j in range(1, n + 1)} for r in range(1, n + 1)}
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    return {
        measure: np.array([results[f"q{r}"][measure] for r in range(1, n + 1)])
        for measure in next(iter(results.values()))
    }


def test_metrics_match_trec_eval():
    trec = _trec_eval_by_rank(N_SMALL, {"P.5,10", "recall.5,10", "map", "map_cut.5,10", "ndcg", "ndcg_cut.5,10"})
    pairs = {
        "P@5": "P_5",
        "P@10": "P_10",
        "Recall@5": "recall_5",
        "Recall@10": "recall_10",
        "AP": "map",
        "AP@5": "map_cut_5",
        "AP@10": "map_cut_10",
        "nDCG": "ndcg",
        "nDCG@5": "ndcg_cut_5",
        "nDCG@10": "ndcg_cut_10",
    }
    for ours, theirs in pairs.items():
        np.testing.assert_allclose(metric_vector(ours, N_SMALL), trec[theirs], atol=1e-4, err_msg=ours)


def test_auc_matches_pairwise_definition():
    # Eq. 2 with |R| = 1: fraction of irrelevant items ranked below the relevant one
    n = 17
    positions = np.arange(1, n + 1)
    brute = np.array([(positions > r).sum() / (n - 1) for r in positions])
    np.testing.assert_allclose(metric_vector("AUC", n), brute)


def test_hand_worked_values():
    np.testing.assert_allclose(metric_vector("AP", 4), [1, 1 / 2, 1 / 3, 1 / 4])
    np.testing.assert_allclose(metric_vector("nDCG@2", 4), [1, 1 / np.log2(3), 0, 0])
    np.testing.assert_allclose(metric_vector("P@3", 5), [1 / 3, 1 / 3, 1 / 3, 0, 0])
    np.testing.assert_allclose(metric_vector("AUC", 5), [1, 0.75, 0.5, 0.25, 0])


def test_table1_exact_metrics():
    # Krichene & Rendle 2020, Table 1 (n = 10,000; AP and NDCG untruncated): published values
    n = 10_000
    table1 = {
        "A": ([100, 100, 100, 100, 100], {"AUC": 0.990, "AP": 0.010, "NDCG": 0.150, "Recall@10": 0.000}),
        "B": ([40, 40, 8437, 9266, 4482], {"AUC": 0.555, "AP": 0.010, "NDCG": 0.122, "Recall@10": 0.000}),
        "C": ([212, 2, 743, 5342, 1548], {"AUC": 0.843, "AP": 0.101, "NDCG": 0.208, "Recall@10": 0.200}),
    }
    for recommender, (ranks, published) in table1.items():
        for metric, value in published.items():
            ours = metric_vector(metric, n)[np.array(ranks) - 1].mean()
            assert round(ours, 3) == pytest.approx(value, abs=1e-9), (recommender, metric, ours)


def test_names_follow_the_metric_grammar():
    assert rank_metric("ndcg@10").name == "nDCG@10"
    assert rank_metric(" Recall @ 5 ").name == "Recall@5"
    assert rank_metric("Precision@3").name == "P@3"
    assert rank_metric("MAP").name == "AP"
    assert rank_metric("MRR@3").name == "RR@3"
    assert rank_metric("auc").name == "AUC"
    assert rank_metric(parse_metric("nDCG@10(gain=exponential)")).name == "nDCG@10"
    metric = rank_metric("AP@7")
    assert rank_metric(metric) is metric
    assert metric.family == "AP" and metric.k == 7


@pytest.mark.parametrize("name", ["AUC@10", "Recall", "Precision", "NDCG@0", "NDCG@-1", "", "AP@x", "bpref", "PSR@10"])
def test_bad_or_non_rank_names_raise(name):
    with pytest.raises(ValueError):
        rank_metric(name)


SPECS = ["P@1", "P@10", "Recall@10", "HR@10", "F1@5", "Rprec", "RR", "RR@5", "AP", "AP@5", "AP@5(normalise=cutoff)",
         "nDCG", "nDCG@10", "nDCG@10(gain=exponential)", "AUC"]


@pytest.mark.parametrize("text", SPECS)
def test_rank_values_equal_the_run_metrics_on_1r_runs(text):
    """The closed forms against recbias.metrics on runs with one relevant item at rank r among t."""
    rng = np.random.default_rng(5)
    t, n_runs = 40, 400
    ranks = rng.integers(1, t + 1, size=n_runs)
    labels = np.zeros(n_runs * t, dtype=bool)
    labels[np.arange(n_runs) * t + ranks - 1] = True
    grades = labels * rng.integers(1, 6, size=n_runs * t).astype(float)
    runs = Runs.from_arrays(np.arange(n_runs + 1) * t, np.arange(n_runs), np.tile(np.arange(t), n_runs), labels, grades)
    spec = parse_metric(text)
    np.testing.assert_allclose(rank_metric(spec).values(ranks, t), spec.compute(runs), atol=1e-14)
    assert spec.name in RANK_FAMILIES


def test_values_with_one_catalogue_per_target():
    np.testing.assert_allclose(rank_metric("AUC").values(np.array([1, 10]), np.array([10, 19])), [1.0, 0.5])
    np.testing.assert_allclose(rank_metric("Recall@10").values(np.array([10, 11]), np.array([50, 50])), [1.0, 0.0])
    np.testing.assert_allclose(rank_metric("AP").values(np.array([4]), np.array([50])), [0.25])
    np.testing.assert_allclose(rank_metric("nDCG").values(np.array([3, 3]), np.array([3, 90])), 0.5)
    with pytest.raises(ValueError, match="own catalogue"):
        rank_metric("AUC").values(np.array([5, 5]), np.array([10, 4]))


def test_values_reject_bad_ranks():
    metric = rank_metric("AP")
    with pytest.raises(ValueError, match="1..5"):
        metric.values([0, 1], 5)
    with pytest.raises(ValueError, match="1..5"):
        metric.values([6], 5)
    with pytest.raises(TypeError):
        metric.values([1.5], 5)
    with pytest.raises(ValueError, match="at least 2"):
        metric_vector("AUC", 1)

"""Rank metrics of one relevant item: definitions, parser, published toy values."""

import numpy as np
import pytest
import pytrec_eval

from recbias.sampled import RankMetric, metric_vector, parse_metric

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
        "Precision@5": "P_5",
        "Precision@10": "P_10",
        "Recall@5": "recall_5",
        "Recall@10": "recall_10",
        "AP": "map",
        "AP@5": "map_cut_5",
        "AP@10": "map_cut_10",
        "NDCG": "ndcg",
        "NDCG@5": "ndcg_cut_5",
        "NDCG@10": "ndcg_cut_10",
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
    np.testing.assert_allclose(metric_vector("NDCG@2", 4), [1, 1 / np.log2(3), 0, 0])
    np.testing.assert_allclose(metric_vector("Precision@3", 5), [1 / 3, 1 / 3, 1 / 3, 0, 0])
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


def test_parser_names_aliases_and_case():
    assert parse_metric("ndcg@10") == RankMetric("NDCG", 10)
    assert parse_metric(" Recall @ 5 ") == RankMetric("Recall", 5)
    assert parse_metric("HR@10") == RankMetric("Recall", 10)
    assert parse_metric("RR") == RankMetric("AP")
    assert parse_metric("auc").name == "AUC"
    assert parse_metric("P@3").name == "Precision@3"
    metric = RankMetric("AP", 7)
    assert parse_metric(metric) is metric


@pytest.mark.parametrize("name", ["AUC@10", "Recall", "Precision", "MRR@3", "NDCG@0", "NDCG@-1", "", "AP@x"])
def test_parser_rejects_bad_names(name):
    with pytest.raises(ValueError):
        parse_metric(name)


def test_values_reject_bad_ranks():
    metric = parse_metric("AP")
    with pytest.raises(ValueError, match="1..5"):
        metric.values([0, 1], 5)
    with pytest.raises(ValueError, match="1..5"):
        metric.values([6], 5)
    with pytest.raises(TypeError):
        metric.values([1.5], 5)
    with pytest.raises(ValueError, match="at least 2"):
        metric_vector("AUC", 1)

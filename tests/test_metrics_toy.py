"""Every metric on small runs worked out by hand from its definition."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from recbias import metrics as M
from recbias.runs import Runs

L3, L5 = math.log2(3), math.log2(5)


@pytest.fixture
def toy() -> Runs:
    """Three ranked runs (position 0 first).

    A (user 0): items 10..15, relevant at ranks 2 (grade 4) and 4 (grade 5), judged
       non-relevant at ranks 1 and 5, unjudged at 3 and 6; R = 3 (item 20 is a
       relevant test item outside the run).
    B (user 1): items 16, 17, 18, relevant at rank 1 (grade 5), the rest unjudged; R = 1.
    C (user 2): items 19..22, nothing relevant; R = 0.
    """
    return Runs.from_arrays(
        offsets=[0, 6, 9, 13],
        users=[0, 1, 2],
        items=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22],
        labels=[0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        grades=[0, 4, 0, 5, 0, 0, 5, 0, 0, 0, 0, 0, 0],
        judged=[1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0],
        n_relevant=[3, 1, 0],
    )


def check(values: np.ndarray, expected: list[float]) -> None:
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)


def test_precision_recall_f1_hit_rate(toy: Runs) -> None:
    check(M.precision(toy, 3), [1 / 3, 1 / 3, 0])  # one hit in the top 3 of A and of B
    check(M.precision(toy, 10), [2 / 10, 1 / 10, 0])  # divides by n even past the run's end
    check(M.recall(toy, 3), [1 / 3, 1 / 1, 0])  # A: 1 of R = 3; C: R = 0 -> 0
    check(M.recall(toy, 4), [2 / 3, 1, 0])
    # F1 = 2PR / (P + R): A: 2(1/3)(1/3)/(2/3) = 1/3; B: 2(1/3)(1)/(4/3) = 1/2
    check(M.f1(toy, 3), [1 / 3, 1 / 2, 0])
    check(M.hit_rate(toy, 1), [0, 1, 0])
    check(M.hit_rate(toy, 2), [1, 1, 0])


def test_rank_based(toy: Runs) -> None:
    check(M.r_precision(toy), [1 / 3, 1, 0])  # A: top R = 3 holds one relevant
    check(M.reciprocal_rank(toy), [1 / 2, 1, 0])
    check(M.reciprocal_rank(toy, 1), [0, 1, 0])
    # AP(A) = (P@2 + P@4) / R = (1/2 + 2/4) / 3 = 1/3
    check(M.average_precision(toy), [1 / 3, 1, 0])
    # AP@3(A) = P@2 / R = (1/2) / 3; with normalise="cutoff" AP@2 = (1/2) / min(3, 2)
    check(M.average_precision(toy, 3), [1 / 6, 1, 0])
    check(M.average_precision(toy, 2, normalise="cutoff"), [1 / 4, 1, 0])
    # normalised by the 2 relevant candidates of A: (1/2 + 2/4) / 2
    check(M.average_precision(toy, normalise="candidates"), [1 / 2, 1, 0])
    # AUC(A): 2 relevant x 4 non-relevant pairs; rank 2 beats ranks 3, 5, 6 and rank 4
    # beats ranks 5, 6 -> 5/8.  B: its relevant item beats both others -> 1.  C: no pairs -> 0.
    check(M.auc(toy), [5 / 8, 1, 0])


def test_ndcg(toy: Runs) -> None:
    # A, linear gains: DCG = 4/log2(3) + 5/log2(5), ideal = 5/log2(2) + 4/log2(3)
    dcg, idcg = 4 / L3 + 5 / L5, 5 + 4 / L3
    check(M.ndcg(toy), [dcg / idcg, 1, 0])
    check(M.ndcg(toy, 2), [(4 / L3) / idcg, 1, 0])  # ideal@2 = the whole ideal here
    check(M.ndcg(toy, 1), [0, 1, 0])
    # exponential gains 2^4 - 1 = 15 and 2^5 - 1 = 31
    check(M.ndcg(toy, gain="exponential"), [(15 / L3 + 31 / L5) / (31 + 15 / L3), 1, 0])


def test_bpref_and_infap(toy: Runs) -> None:
    # A: R = 3, N = 2 judged non-relevant (ranks 1 and 5).  Rank 2 and rank 4 each have one
    # judged non-relevant above -> each 1 - min(1, 3)/min(2, 3) = 1/2; bpref = (1/2 + 1/2)/3.
    # B: no judged non-relevant above its relevant item -> 1.
    check(M.bpref(toy), [1 / 3, 1, 0])
    # infAP(A): rank 2: 1/2 + (1/2)(0 relevant / 1 judged above) = 1/2;
    #           rank 4: 1/4 + (3/4)(1 / 2 judged above) = 5/8;  (1/2 + 5/8) / 3 = 3/8.
    check(M.infap(toy), [3 / 8, 1, 0])
    eps = M.TREC_EVAL_INFAP_EPSILON
    a = (0.5 + 0.5 * eps / (1 + 2 * eps) + 0.25 + 0.75 * (1 + eps) / (2 + 2 * eps)) / 3
    check(M.infap(toy, epsilon=eps), [a, 1, 0])


def test_infap_without_judged_items_above_uses_one_half() -> None:
    # one run: unjudged, relevant -> rank 2: 1/2 + (1/2)(1/2) = 3/4 with R = 1
    runs = Runs.from_arrays([0, 2], [0], [0, 1], labels=[0, 1], judged=[0, 1])
    check(M.infap(runs), [3 / 4])


def test_popularity_stratified_recall(toy: Runs) -> None:
    positive_counts = np.zeros(25)
    positive_counts[[11, 13, 16, 20]] = [4, 1, 4, 9]
    # positive test ratings: user 0 -> 11, 13, 20; user 1 -> 16
    test_positive = sp.csr_matrix((np.ones(4), ([0, 0, 0, 1], [11, 13, 20, 16])), shape=(3, 25))
    popularity = M.ItemPopularity(positive_counts, positive_counts, 3, test_positive)
    # gamma = 1: w = |PR|^(-1/2): w11 = 1/2, w13 = 1, w20 = 1/3; top 3 of A holds item 11
    check(M.stratified_recall(toy, 3, popularity, gamma=1), [0.5 / (0.5 + 1 + 1 / 3), 1, 0])
    check(M.stratified_recall(toy, 4, popularity, gamma=1), [1.5 / (0.5 + 1 + 1 / 3), 1, 0])
    check(M.stratified_recall(toy, 3, popularity, gamma=0), M.recall(toy, 3))  # gamma = 0 is recall
    # gamma = inf: w = 1/|PR|: (1/4) / (1/4 + 1 + 1/9) = 9/49
    check(M.stratified_recall(toy, 3, popularity, gamma=np.inf), [9 / 49, 1, 0])


def test_stratified_recall_needs_the_test_ratings_when_runs_miss_relevant_items(toy: Runs) -> None:
    counts = np.ones(25)
    with pytest.raises(ValueError, match="n_relevant exceeds"):
        M.stratified_recall(toy, 3, M.ItemPopularity(counts, counts, 3), gamma=1)
    complete = Runs.from_arrays([0, 3], [0], [1, 2, 3], labels=[0, 1, 1])
    counts[[2, 3]] = [4, 16]  # gamma = 1: w2 = 1/2, w3 = 1/4; top 2 holds item 2
    check(M.stratified_recall(complete, 2, M.ItemPopularity(counts, counts, 3), gamma=1), [0.5 / 0.75])


def test_novelty(toy: Runs) -> None:
    rating_counts = np.zeros(25)
    rating_counts[10:23] = [8, 4, 2, 1, 1, 1, 8, 8, 8, 2, 2, 2, 2]
    popularity = M.ItemPopularity(rating_counts, rating_counts, n_users=8)
    # -log2(count / 8): item 10 -> 0, 11 -> 1, 12 -> 2, 13 -> 3; B: all 0 bits; C: 2 bits each
    check(M.novelty(toy, 3, popularity), [(0 + 1 + 2) / 3, 0, 2])
    check(M.novelty(toy, 4, popularity), [(0 + 1 + 2 + 3) / 4, 0, 2])  # B has only 3 items


def test_coverage_and_gini() -> None:
    # four one-item lists over a catalogue of 4: items 0, 0, 0, 1 -> counts (3, 1, 0, 0)
    runs = Runs.from_arrays([0, 1, 2, 3, 4], [0, 1, 2, 3], [0, 0, 0, 1], labels=[0, 0, 0, 0])
    assert M.catalogue_coverage(runs, 1, 4) == 2 / 4
    # sorted counts (0, 0, 1, 3), G = sum (2j - 5) c_j / (4 * 4) = (1*1 + 3*3) / 16
    assert M.gini_index(runs, 1, 4) == pytest.approx(10 / 16, abs=1e-15)
    even = Runs.from_arrays([0, 1, 2, 3, 4], [0, 1, 2, 3], [0, 1, 2, 3], labels=[0, 0, 0, 0])
    assert M.gini_index(even, 1, 4) == 0
    assert M.catalogue_coverage(even, 1, 4) == 1
    single = Runs.from_arrays([0, 1, 2], [0, 1], [2, 2], labels=[0, 0])
    assert M.gini_index(single, 1, 4) == pytest.approx(3 / 4, abs=1e-15)  # (n - 1) / n
    with pytest.raises(ValueError, match="outside the catalogue"):
        M.catalogue_coverage(runs, 1, 1)


def test_empty_and_degenerate_runs_score_zero() -> None:
    runs = Runs.from_arrays([0, 0, 2], [0, 1], [3, 4], labels=[0, 0])
    for values in (M.precision(runs, 5), M.ndcg(runs), M.auc(runs), M.bpref(runs), M.infap(runs)):
        check(values, [0, 0])


def test_bad_input_raises(toy: Runs) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        M.precision(toy, 0)
    with pytest.raises(ValueError, match="positive integer"):
        M.precision(toy, None)
    with pytest.raises(ValueError, match="normalise"):
        M.average_precision(toy, 3, normalise="min")
    with pytest.raises(ValueError, match="gain"):
        M.ndcg(toy, gain="cubic")
    with pytest.raises(ValueError, match="epsilon"):
        M.infap(toy, epsilon=-1)
    with pytest.raises(TypeError, match="Runs"):
        M.precision([1, 0], 1)
    short = Runs.from_arrays([0, 2], [0], [1, 2], labels=[1, 1], n_relevant=[1])
    with pytest.raises(ValueError, match="n_relevant"):
        M.recall(short, 1)
    negative = Runs.from_arrays([0, 2], [0], [1, 2], labels=[1, 0], grades=[-1, 0])
    with pytest.raises(ValueError, match="non-negative"):
        M.ndcg(negative)

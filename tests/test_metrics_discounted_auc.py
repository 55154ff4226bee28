"""The user-behaviour discounted AUC (Bobrikov et al. 2016) against its definition, hand-worked lists and the grammar."""

from __future__ import annotations

import math

import numpy as np
import pytest
from runs_factory import random_runs, split_runs

from recbias import metrics as M
from recbias.evaluate import evaluate_runs, rank_runs
from recbias.metrics import ItemPopularity
from recbias.runs import Runs


def brute_force(run: dict, p: float, z: int | None, gain: str = "binary", base: float = 0.0,
                head: frozenset[int] = frozenset(), depth_limit: int = 4000) -> float:
    """Eq. 15 read literally: sum over list lengths N of w_N / N times the gains among the first N items.

    w_N = p^(N-1) (1 - p) for N < z and the remaining probability 1 - sum_{N<z} w_N at N = z;
    untruncated, the sum runs to ``depth_limit``, far beyond any run (p^4000 is negligible here).
    """
    gains = [
        (1.0 if gain == "binary" else grade - base) * (item not in head) if label else 0.0
        for label, grade, item in zip(run["labels"], run["grades"], run["items"], strict=True)
    ]
    last = depth_limit if z is None else z
    total, mass = 0.0, 0.0
    for n in range(1, last + 1):
        weight = p ** (n - 1) * (1 - p) if n < last or z is None else 1.0 - mass
        mass += weight
        total += weight * sum(gains[:n]) / n
    return total


@pytest.fixture(scope="module")
def runs() -> Runs:
    return random_runs(np.random.default_rng(16), n_runs=300, max_size=40)


@pytest.mark.parametrize(("Q", "m", "z"), [(0.3, 10, None), (0.3, 10, 20), (0.05, 5, 7), (0.8, 4, None), (0.9, 1, 3)])
def test_binary_metric_matches_the_sum_over_list_lengths(runs: Runs, Q: float, m: int, z: int | None) -> None:
    p = Q ** (1 / m)
    expected = [brute_force(run, p, z) for run in split_runs(runs)]
    np.testing.assert_allclose(M.discounted_auc(runs, z, Q=Q, m=m), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("z", [None, 15])
def test_rating_gain_and_short_head_match_eq_15(runs: Runs, z: int | None) -> None:
    counts = np.random.default_rng(3).integers(0, 50, size=1000)
    popularity = ItemPopularity(positive_counts=counts, rating_counts=counts, n_users=100)
    head = frozenset(np.argsort(-counts, kind="stable")[:120].tolist())
    values = M.discounted_auc(runs, z, popularity, Q=0.4, m=10, gain="rating", base=0.5, s=120)
    expected = [brute_force(run, 0.4**0.1, z, "rating", 0.5, head) for run in split_runs(runs)]
    np.testing.assert_allclose(values, expected, rtol=1e-10, atol=1e-12)
    assert values.max() > 0


def test_hand_worked_list() -> None:
    """Hit, miss, hit with p = 1/2: d_1 = ln 2, d_2 = ln 2 - 1/2, d_3 = ln 2 - 1/2 - 1/8."""
    one = Runs.from_arrays([0, 3], [0], [7, 8, 9], [True, False, True], grades=[5.0, 0.0, 4.0])
    p_half = {"Q": 0.5, "m": 1}
    assert M.discounted_auc(one, **p_half)[0] == pytest.approx(2 * math.log(2) - 0.625, abs=1e-14)
    assert M.discounted_auc(one, 2, **p_half)[0] == pytest.approx(0.5 * 1 + 0.5 * 0.5)  # tail 1/2 at N = 2
    rating = M.discounted_auc(one, gain="rating", base=3.0, **p_half)[0]
    assert rating == pytest.approx(2 * math.log(2) + (math.log(2) - 0.625), abs=1e-14)
    np.testing.assert_allclose(M.position_discount(0.5, 3), [math.log(2), math.log(2) - 0.5, math.log(2) - 0.625])


def test_the_extremes_of_q_are_precision_at_one_and_at_z(runs: Runs) -> None:
    np.testing.assert_array_equal(M.discounted_auc(runs, Q=0.0), M.precision(runs, 1))
    np.testing.assert_allclose(M.discounted_auc(runs, 12, Q=1.0), M.precision(runs, 12), rtol=1e-12)


def test_the_discount_identity() -> None:
    """sum_N w_N (1/N) sum_{k<=N} g_k = sum_k g_k d_k for any gains, and the discount sums to one."""
    rng = np.random.default_rng(5)
    for p, z in [(0.7, None), (0.93, 25), (0.2, 1), (0.999, None)]:
        n = 30
        gains = rng.random(n) * (rng.random(n) < 0.5)
        depth = n if z is None else z
        weights = M.attention_weights(p, depth, z)
        by_length = sum(weights[k] / (k + 1) * gains[: k + 1].sum() for k in range(depth))
        if z is None:  # lengths beyond n see every gain
            lengths = np.arange(n + 1, 200_000)
            by_length += gains.sum() * np.sum(p ** (lengths - 1.0) * (1 - p) / lengths)
        discount = M.position_discount(p, n, z)
        assert discount @ gains == pytest.approx(by_length, rel=1e-9)
        assert M.position_discount(p, 100_000 if z is None else z, z).sum() == pytest.approx(1.0, abs=1e-9)
        if z is None:
            np.testing.assert_allclose(-np.diff(discount), M.attention_weights(p, n - 1) / np.arange(1, n), rtol=1e-9)


def test_truncation_converges_to_the_untruncated_metric(runs: Runs) -> None:
    untruncated = M.discounted_auc(runs, Q=0.3, m=10)
    deep = M.discounted_auc(runs, 400, Q=0.3, m=10)
    np.testing.assert_allclose(deep, untruncated, atol=1e-14)
    assert not np.allclose(M.discounted_auc(runs, 5, Q=0.3, m=10), untruncated)


def test_the_attention_model() -> None:
    assert M.continuation_probability(0.3, 10) ** 10 == pytest.approx(0.3)
    np.testing.assert_allclose(M.attention_weights(0.5, 4), [0.5, 0.25, 0.125, 0.0625])
    np.testing.assert_allclose(M.attention_weights(0.5, 4, 3), [0.5, 0.25, 0.25, 0.0])
    np.testing.assert_array_equal(M.position_discount(0.0, 3), [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="nobody stops reading"):
        M.position_discount(1.0, 3)
    with pytest.raises(ValueError, match="page size m"):
        M.continuation_probability(0.3, 0)


def test_short_head_breaks_ties_by_item_code() -> None:
    np.testing.assert_array_equal(M.short_head(np.array([3, 9, 3, 1]), 2), [True, True, False, False])
    assert not M.short_head(np.array([3, 9]), 0).any()
    with pytest.raises(ValueError, match="short-head size"):
        M.short_head(np.array([3, 9]), 3)


def test_penalised_items_count_as_misses(runs: Runs) -> None:
    counts = np.zeros(1000, dtype=int)
    first_relevant = runs.items[np.flatnonzero(runs.labels)[0]]
    counts[first_relevant] = 10
    popularity = ItemPopularity(positive_counts=counts, rating_counts=counts, n_users=10)
    relabelled = Runs.from_arrays(runs.offsets, runs.users, runs.items, runs.labels & (runs.items != first_relevant),
                                  runs.grades, runs.judged, runs.n_relevant)
    np.testing.assert_allclose(M.discounted_auc(runs, popularity=popularity, s=1), M.discounted_auc(relabelled))


@pytest.mark.parametrize(
    ("text", "params"),
    [
        ("bAUC", {"Q": 0.3, "m": 10, "gain": "binary", "base": None, "s": 0}),
        ("bAUC(Q=0.3,m=10)", {"Q": 0.3, "m": 10, "gain": "binary", "base": None, "s": 0}),
        ("bauc@50(Q=0.1, m=20, gain=rating, base=3, s=40)", {"Q": 0.1, "m": 20, "gain": "rating", "base": 3.0, "s": 40}),
    ],
)
def test_grammar_names(text: str, params: dict) -> None:
    spec = M.parse_metric(text)
    assert spec.name == "bAUC" and spec.params == params
    assert spec.needs_popularity == (params["s"] > 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bAUC(Q=1)", "nobody stops reading"),
        ("bAUC(Q=1.5)", "parameter Q: expected a number in"),
        ("bAUC(m=2.5)", "parameter m"),
        ("bAUC(gain=rating)", "needs base"),
        ("bAUC(gain=stars)", "expected one of binary, rating"),
        ("bAUC(s=-2)", "parameter s"),
        ("bAUC(p=0.9)", "parameters of bAUC: Q, m, gain, base, s"),
    ],
)
def test_bad_names_raise_when_parsed(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        M.parse_metric(text)


def test_evaluate_runs_computes_the_named_metric(runs: Runs) -> None:
    scores = np.random.default_rng(2).random(len(runs.items))
    counts = np.arange(1000)
    popularity = ItemPopularity(positive_counts=counts, rating_counts=counts, n_users=10)
    names = ["bAUC(Q=0.3,m=10)", "bAUC@20(Q=0.3,m=10,gain=rating,base=0,s=100)", "P@1"]
    table = evaluate_runs(runs, scores, names, item_popularity=popularity)
    ranked = rank_runs(runs, scores)
    np.testing.assert_allclose(table[names[0]], M.discounted_auc(ranked, Q=0.3, m=10), rtol=1e-12)
    np.testing.assert_allclose(
        table[names[1]], M.discounted_auc(ranked, 20, popularity, gain="rating", base=0.0, s=100), rtol=1e-12
    )
    np.testing.assert_array_equal(table["P@1"], M.precision(ranked, 1))
    with pytest.raises(ValueError, match="needs item popularity"):
        evaluate_runs(runs, scores, names[1:2])
    with pytest.raises(ValueError, match="gains must be positive"):
        evaluate_runs(runs, scores, ["bAUC(gain=rating,base=1)"])
    assert table[names[0]].between(0, 1).all()

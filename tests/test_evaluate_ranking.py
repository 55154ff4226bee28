"""Scores -> rank order, and the tie policies."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from runs_factory import random_runs

from recbias import metrics as M
from recbias.metrics._view import RankedView
from recbias.evaluate import rank_runs, ranking
from recbias.runs import Runs


def test_sorts_each_run_by_decreasing_score_and_keeps_runs_apart() -> None:
    runs = Runs.from_arrays([0, 3, 5], [7, 8], items=[1, 2, 3, 4, 5], labels=[0, 1, 0, 1, 0], grades=[0, 4, 0, 5, 0])
    ranked = rank_runs(runs, np.array([0.1, 0.9, 0.5, 2.0, 3.0]))
    np.testing.assert_array_equal(ranked.items, [2, 3, 1, 5, 4])
    np.testing.assert_array_equal(ranked.labels, [1, 0, 0, 0, 1])
    np.testing.assert_array_equal(ranked.grades, [4, 0, 0, 0, 5])
    np.testing.assert_array_equal(ranked.offsets, runs.offsets)
    np.testing.assert_array_equal(ranked.users, runs.users)


def test_tie_policies_on_a_hand_example() -> None:
    # one run: item 0 scores highest, items 1 (relevant, grade 3), 2, 3 (relevant, grade 5) tie
    runs = Runs.from_arrays([0, 4], [0], [0, 1, 2, 3], labels=[0, 1, 0, 1], grades=[0, 3, 0, 5])
    scores = np.array([2.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(rank_runs(runs, scores, "optimistic").items, [0, 3, 1, 2])
    np.testing.assert_array_equal(rank_runs(runs, scores, "pessimistic").items, [0, 2, 1, 3])
    assert rank_runs(runs, scores, "random", seed=0).items[0] == 0


@pytest.fixture(scope="module")
def tied() -> tuple[Runs, np.ndarray]:
    """Random runs scored on a coarse grid, so that most runs hold ties."""
    rng = np.random.default_rng(9)
    runs = random_runs(rng, n_runs=500, max_size=25, judged_share=0.5)
    return runs, rng.integers(0, 4, size=len(runs.items)).astype(float)


def test_optimistic_random_pessimistic_are_ordered(tied: tuple[Runs, np.ndarray]) -> None:
    runs, scores = tied
    specs = ["P@5", "Recall@5", "RR", "MAP", "nDCG", "nDCG@5", "AUC", "bpref", "infAP"]
    best = M.compute_metrics(rank_runs(runs, scores, "optimistic"), specs)
    worst = M.compute_metrics(rank_runs(runs, scores, "pessimistic"), specs)
    for seed in range(3):
        middle = M.compute_metrics(rank_runs(runs, scores, "random", seed=seed), specs)
        for spec in specs:
            assert np.all(best[spec] >= middle[spec] - 1e-12), spec
            assert np.all(middle[spec] >= worst[spec] - 1e-12), spec
    assert np.mean(best["MAP"]) > np.mean(worst["MAP"])


def test_random_ties_are_deterministic_by_seed(tied: tuple[Runs, np.ndarray]) -> None:
    runs, scores = tied
    first, again = rank_runs(runs, scores, seed=1), rank_runs(runs, scores, seed=1)
    np.testing.assert_array_equal(first.items, again.items)
    assert not np.array_equal(first.items, rank_runs(runs, scores, seed=2).items)
    np.testing.assert_array_equal(rank_runs(runs, scores).items, rank_runs(runs, scores, "random", 0).items)


def test_random_tie_breaking_is_uniform() -> None:
    # 6,000 runs of three tied candidates: each of the 6 orders should appear ~1,000 times
    n_runs = 6000
    offsets = np.arange(n_runs + 1) * 3
    runs = Runs.from_arrays(offsets, np.arange(n_runs), np.tile([0, 1, 2], n_runs), np.zeros(3 * n_runs))
    ranked = rank_runs(runs, np.zeros(3 * n_runs), seed=4)
    counts = Counter(map(tuple, ranked.items.reshape(-1, 3)))
    assert len(counts) == 6
    # binomial(6000, 1/6): sd = 28.9; 4.5 sd bounds
    assert all(870 < c < 1130 for c in counts.values()), counts


def test_all_tied_scorer_gets_the_expected_random_precision() -> None:
    """A constant scorer under random ties is a Random recommender: E[P@n] = n * (m / t) / n."""
    n_runs, t, m, n = 3000, 20, 5, 5
    rng = np.random.default_rng(0)
    labels = np.zeros((n_runs, t), dtype=bool)
    labels[np.arange(n_runs)[:, None], np.argsort(rng.random((n_runs, t)), axis=1)[:, :m]] = True
    offsets = np.arange(n_runs + 1) * t
    runs = Runs.from_arrays(offsets, np.arange(n_runs), np.tile(np.arange(t), n_runs), labels.ravel())
    scores = np.ones(n_runs * t)
    precision = M.precision(rank_runs(runs, scores, seed=3), n)
    # hits ~ hypergeometric(t, m, n): var = n (m/t)(1 - m/t)(t - n)/(t - 1); SE of the mean P@n
    expected = m / t
    se = np.sqrt(n * expected * (1 - expected) * (t - n) / (t - 1)) / n / np.sqrt(n_runs)
    assert abs(precision.mean() - expected) < 4 * se
    assert M.precision(rank_runs(runs, scores, "optimistic"), n).mean() == 1.0
    assert M.precision(rank_runs(runs, scores, "pessimistic"), n).mean() == 0.0


def test_bad_input_raises() -> None:
    runs = Runs.from_arrays([0, 2], [0], [1, 2], labels=[0, 1])
    with pytest.raises(ValueError, match="NaN"):
        rank_runs(runs, np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="shape"):
        rank_runs(runs, np.array([1.0]))
    with pytest.raises(ValueError, match="unknown tie policy 'first'"):
        rank_runs(runs, np.array([1.0, 2.0]), ties="first")


def test_infinite_scores_rank_at_the_ends() -> None:
    runs = Runs.from_arrays([0, 4], [0], [0, 1, 2, 3], labels=[0, 0, 1, 0])
    ranked = rank_runs(runs, np.array([-np.inf, 1.0, np.inf, -np.inf]), "optimistic")
    np.testing.assert_array_equal(ranked.items[:2], [2, 1])
    assert set(ranked.items[2:]) == {0, 3}


@pytest.mark.parametrize("block_entries", [16, 200, 1 << 22])
def test_order_matches_a_python_sort_whatever_the_block_size(
    monkeypatch: pytest.MonkeyPatch, block_entries: int
) -> None:
    """Sizes 0..60 (several size classes); small blocks force many padded batches."""
    rng = np.random.default_rng(21)
    runs = random_runs(rng, n_runs=150, max_size=60)
    scores = rng.integers(0, 6, size=len(runs.items)).astype(float)
    reference = {ties: rank_runs(runs, scores, ties, seed=8) for ties in ("random", "optimistic", "pessimistic")}
    monkeypatch.setattr(ranking, "BLOCK_ENTRIES", block_entries)
    for sign, ties in ((-1, "optimistic"), (1, "pessimistic")):
        ranked = rank_runs(runs, scores, ties)
        for k in range(runs.n_runs):
            entries = range(runs.offsets[k], runs.offsets[k + 1])
            expected = sorted(entries, key=lambda e: (-scores[e], sign * runs.labels[e], sign * runs.grades[e], e))
            np.testing.assert_array_equal(ranked.items[runs.offsets[k] : runs.offsets[k + 1]], runs.items[expected])
    for ties, ranked in reference.items():
        np.testing.assert_array_equal(rank_runs(runs, scores, ties, seed=8).items, ranked.items)
    random = reference["random"]
    for k in range(runs.n_runs):
        span = slice(runs.offsets[k], runs.offsets[k + 1])
        score_of = dict(zip(runs.items[span].tolist(), scores[span].tolist(), strict=True))
        ranked_scores = [score_of[item] for item in random.items[span].tolist()]
        assert ranked_scores == sorted(ranked_scores, reverse=True)


@pytest.mark.parametrize("ties", ["random", "optimistic", "pessimistic"])
@pytest.mark.parametrize("distinct_scores", [True, False])
def test_counted_positions_give_the_same_metrics_as_the_full_sort(ties: str, distinct_scores: bool) -> None:
    """rank_positions (counted) and rank_runs (sorted) agree exactly on every metric, top-n lists included."""
    rng = np.random.default_rng(11)
    runs = random_runs(rng, 300, max_size=60, extra_relevant=0, n_items=80)
    scores = rng.random(len(runs.items)) if distinct_scores else rng.integers(0, 4, len(runs.items)).astype(float)
    names = ["P@5", "Recall@10", "nDCG@5", "nDCG", "AP", "RR@3", "AUC", "bpref", "infAP", "Rprec", "HR@2",
             "novelty@4", "PSR@5(gamma=0.5)"]
    popularity = M.ItemPopularity(positive_counts=np.arange(1, 81), rating_counts=np.arange(2, 82), n_users=500)
    counted = ranking.rank_positions(runs, scores, ties, seed=4)
    sorted_runs = rank_runs(runs, scores, ties, seed=4)
    by_count, by_sort = M.compute_metrics(counted, names, popularity), M.compute_metrics(sorted_runs, names, popularity)
    for name in names:
        np.testing.assert_array_equal(by_count[name], by_sort[name], err_msg=name)
    for n in (1, 3, 100):
        np.testing.assert_array_equal(M.recommendation_counts(counted, n, 80), M.recommendation_counts(sorted_runs, n, 80))
    view = RankedView(counted)
    np.testing.assert_array_equal(sorted_runs.items[view.relevant], view.relevant_items)


@pytest.mark.parametrize("ties", ["random", "pessimistic"])
def test_metrics_that_ignore_judged_items_do_not_need_their_positions(ties: str) -> None:
    """evaluate_runs skips the positions of judged non-relevant candidates unless a metric reads them, with
    the same values as a ranking that counts every marked candidate."""
    from recbias.evaluate import evaluate_runs

    rng = np.random.default_rng(12)
    runs = random_runs(rng, 300, max_size=60, extra_relevant=0, n_items=80, judged_share=0.6)
    scores = rng.integers(0, 4, len(runs.items)).astype(float)
    popularity = M.ItemPopularity(positive_counts=np.arange(1, 81), rating_counts=np.arange(2, 82), n_users=500)
    names = ["P@5", "Recall@10", "nDCG@5", "AP", "RR@3", "AUC", "HR@2", "novelty@4", "PSR@5(gamma=0.5)",
             "bAUC@20(Q=0.3,m=5)"]
    everything = M.compute_metrics(ranking.rank_positions(runs, scores, ties, seed=4), names, popularity)
    table = evaluate_runs(runs, scores, names, ties=ties, seed=4, item_popularity=popularity)
    for name in names:
        np.testing.assert_array_equal(table[name].to_numpy(), everything[name], err_msg=name)
    assert not any(M.parse_metric(name).reads_judged for name in names)
    assert M.parse_metric("bpref").reads_judged and M.parse_metric("infAP").reads_judged
    with_bpref = evaluate_runs(runs, scores, ["bpref", "P@5"], ties=ties, seed=4)
    np.testing.assert_array_equal(with_bpref["bpref"].to_numpy(),
                                  M.compute_metrics(ranking.rank_positions(runs, scores, ties, seed=4), ["bpref"])["bpref"])


def test_tie_keys_kept_across_systems_are_drawn_once_and_rank_as_fresh_ones(monkeypatch) -> None:
    runs = random_runs(np.random.default_rng(3), n_runs=40, max_size=30)
    rng = np.random.default_rng(4)
    systems = [rng.integers(0, 3, len(runs.items)).astype(float) for _ in range(3)]  # many ties
    fresh = [ranking.rank_positions(runs, scores, seed=9, first_entry=5) for scores in systems]
    draws = []
    original = ranking.tie_draws
    monkeypatch.setattr(ranking, "tie_draws", lambda *args: draws.append(args) or original(*args))
    keys = ranking.TieKeys(runs, "random", 9, first_entry=5)
    kept = [ranking.rank_positions(runs, scores, seed=9, first_entry=5, tie_keys=keys) for scores in systems]
    assert len(draws) == 1
    for a, b in zip(fresh, kept, strict=True):
        assert np.array_equal(a.positions, b.positions) and np.array_equal(a.top_entries(3), b.top_entries(3))
    for other in ({"seed": 8, "first_entry": 5}, {"seed": 9, "first_entry": 0}):
        with pytest.raises(ValueError, match="tie keys given for other runs"):
            ranking.rank_positions(runs, systems[0], tie_keys=keys, **other)
    with pytest.raises(ValueError, match="tie keys given for other runs"):
        ranking.rank_positions(runs, systems[0], ties="optimistic", seed=9, first_entry=5, tie_keys=keys)
    # under a policy that reads the judgments, keys are those of the very labels and grades ranked
    judged = ranking.TieKeys(runs, "optimistic", 9, first_entry=5)
    same = ranking.rank_positions(runs, systems[0], ties="optimistic", seed=9, first_entry=5, tie_keys=judged)
    assert np.array_equal(same.positions, ranking.rank_positions(runs, systems[0], ties="optimistic", seed=9,
                                                                  first_entry=5).positions)
    with pytest.raises(ValueError, match="tie keys given for other runs"):
        ranking.rank_positions(replace(runs, grades=runs.grades * 2), systems[0], ties="optimistic", seed=9,
                               first_entry=5, tie_keys=judged)

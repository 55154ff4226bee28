"""Sampled vs exact evaluation with per-user catalogue sizes: brute force, laws, corrections, orderings."""

from __future__ import annotations

import numpy as np
import pytest
from runs_factory import FactorModel, make_ratings

from recbias.designs import build_runs
from recbias.evaluate import full_catalogue_ranks, rank_runs, score_runs
from recbias.ratings import Ratings
from recbias.sampled import (
    bias_variance_correction,
    constrained_least_squares_correction,
    metric_vector,
    rank_estimate_correction,
    sampled_metric_moments,
    sampled_rank_matrix,
)
from recbias.sampled_experiment import (
    bias_variance_bank,
    catalogue_bins,
    correction_tables,
    exact_metric,
    expected_estimates,
    expected_sampled_hits,
    leave_one_random_out,
    parse_method,
    pool_ranks,
    rank_law,
    run_positions,
    simulate_common_sampled_ranks,
)

N_USERS, N_ITEMS = 30, 80


@pytest.fixture(scope="module")
def world() -> tuple[list[FactorModel], Ratings, Ratings]:
    """Two scorers on a coarse grid (ties) and one continuous; 1-6 test ratings per user, stars 1-5."""
    rng = np.random.default_rng(3)
    coarse = [rng.integers(-2, 3, size=(n, 2)).astype(float) for n in (N_USERS, N_ITEMS)]
    smooth = [rng.normal(size=(n, 3)) for n in (N_USERS, N_ITEMS)]
    shifted = [rng.integers(-1, 2, size=(n, 2)).astype(float) for n in (N_USERS, N_ITEMS)]
    rated = rng.random((N_USERS, N_ITEMS)) < 0.35
    in_test = rated & (rng.random((N_USERS, N_ITEMS)) < 0.2)
    in_test[np.arange(N_USERS), rng.integers(0, N_ITEMS, N_USERS)] = True
    rated |= in_test
    train_u, train_i = np.nonzero(rated & ~in_test)
    test_u, test_i = np.nonzero(in_test)
    shape = (N_USERS, N_ITEMS)
    train = make_ratings(train_u, train_i, shape)
    test = make_ratings(test_u, test_i, shape, values=rng.integers(1, 6, len(test_u)).astype(float))
    models = [FactorModel(*coarse).fit(train), FactorModel(*smooth).fit(train), FactorModel(*shifted).fit(train)]
    for k, model in enumerate(models):
        model.name = f"m{k}"
    return models, train, test


def brute_force(model: FactorModel, train: Ratings, test: Ratings, threshold: float | None, candidates: np.ndarray):
    """Per relevant test rating: pool size, items scoring higher and items tied, by direct loops."""
    scores = model.score_users(np.arange(N_USERS))
    seen = train.matrix("binary").toarray() > 0
    relevant = np.ones(test.n_ratings, bool) if threshold is None else test.values >= threshold
    relevant_of = np.zeros((N_USERS, N_ITEMS), bool)
    relevant_of[test.users[relevant], test.items[relevant]] = True
    out = []
    for u, i in zip(test.users[relevant], test.items[relevant], strict=True):
        pool = candidates & ~seen[u] & ~relevant_of[u]
        out.append((pool.sum() + 1, np.sum(pool & (scores[u] > scores[u, i])), np.sum(pool & (scores[u] == scores[u, i]))))
    return np.array(out)


@pytest.mark.parametrize("threshold", [None, 4.0])
def test_pool_ranks_equal_brute_force(world, threshold) -> None:
    models, train, test = world
    candidates = np.random.default_rng(0).random(N_ITEMS) < 0.8
    candidates[test.items] = True
    result = pool_ranks(models, train, test, candidates=candidates, threshold=threshold, patterns=True, seed=1, chunk_size=7)
    for k, model in enumerate(models):
        expected = brute_force(model, train, test, threshold, candidates)
        np.testing.assert_array_equal(result.sizes, expected[:, 0])
        assert np.all(result.ranks[:, k] >= 1 + expected[:, 1])
        assert np.all(result.ranks[:, k] <= 1 + expected[:, 1] + expected[:, 2])
    # pattern counts partition the pool and add up to every recommender's rank
    assert result.patterns.shape == (result.n_targets, 8)
    np.testing.assert_array_equal(result.patterns.sum(axis=1), result.sizes - 1)
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1
    np.testing.assert_array_equal(1 + result.patterns @ bits, result.ranks)


def test_pool_ranks_match_full_catalogue_without_ties(world) -> None:
    models, train, test = world
    smooth = models[1]
    single = test.subset(np.isin(np.arange(test.n_ratings), np.unique(test.users, return_index=True)[1]))
    result = pool_ranks([smooth], train, single)
    np.testing.assert_array_equal(result.ranks[:, 0], full_catalogue_ranks(smooth, train, single, ties="optimistic"))


def test_tie_breaking_is_uniform_over_the_tied_range(world) -> None:
    models, train, test = world
    coarse = models[0]
    expected = brute_force(coarse, train, test, None, np.ones(N_ITEMS, bool))
    draws = np.stack([pool_ranks([coarse], train, test, seed=s).ranks[:, 0] for s in range(300)])
    low, tied = 1 + expected[:, 1], expected[:, 2]
    centre = low + tied / 2
    assert np.all(np.abs(draws.mean(axis=0) - centre) <= 0.1 + 0.1 * tied)  # about 6 standard errors
    uniform_variance = ((tied + 1) ** 2 - 1) / 12  # variance of a uniform draw on 0..tied
    assert tied.max() > 2
    np.testing.assert_allclose(draws.var(axis=0)[tied > 2], uniform_variance[tied > 2], rtol=0.35)


def test_leave_one_random_out() -> None:
    users = np.array([0, 0, 0, 1, 2, 2, 3, 3, 3, 3])
    items = np.array([0, 1, 2, 0, 1, 3, 0, 1, 2, 3])
    ratings = make_ratings(users, items, (4, 4))
    train, test = leave_one_random_out(ratings, seed=4)
    assert sorted(test.users.tolist()) == [0, 2, 3]
    assert train.n_ratings + test.n_ratings == ratings.n_ratings
    again = leave_one_random_out(ratings, seed=4)[1]
    np.testing.assert_array_equal(again.items, test.items)
    chosen = {tuple(leave_one_random_out(ratings, seed=s)[1].items.tolist()) for s in range(30)}
    assert len(chosen) > 1


@pytest.mark.parametrize("replace", [True, False])
def test_rank_law_matches_single_catalogue_matrix(replace) -> None:
    ranks = np.array([1, 5, 40, 120])
    law = rank_law(ranks, np.full(4, 120), 30, replace)
    np.testing.assert_allclose(law, sampled_rank_matrix(120, 30, replace, ranks), atol=1e-12)
    mixed = rank_law(np.array([3, 3]), np.array([50, 200]), 20, replace)
    np.testing.assert_allclose(mixed[1], sampled_rank_matrix(200, 20, replace, [3])[0], atol=1e-12)
    np.testing.assert_allclose(mixed.sum(axis=1), 1.0)


@pytest.mark.parametrize("replace", [True, False])
def test_common_sampled_ranks_have_the_exact_marginal_law(world, replace) -> None:
    models, train, test = world
    result = pool_ranks(models, train, test, patterns=True)
    m = int(min(result.sizes.min() - 1, 12))
    draws = simulate_common_sampled_ranks(result.patterns, m, replace, 4000, np.random.default_rng(0))
    assert draws.shape == (4000, result.n_targets, 3)
    for k in range(3):
        law = rank_law(result.ranks[:, k], result.sizes, m, replace)
        expected_mean = law @ np.arange(1, m + 2)
        np.testing.assert_allclose(draws[..., k].mean(axis=0), expected_mean, atol=0.15)
        frequencies = (draws[..., k] == 1).mean(axis=0)
        np.testing.assert_allclose(frequencies, law[:, 0], atol=0.04)


def test_sampling_the_whole_pool_without_replacement_gives_the_exact_ranks(world) -> None:
    models, train, test = world
    result = pool_ranks(models, train, test, patterns=True)
    small = result.sizes == result.sizes.min()
    m = int(result.sizes.min() - 1)
    draws = simulate_common_sampled_ranks(result.patterns[small], m, False, 3, np.random.default_rng(1))
    np.testing.assert_array_equal(draws, np.broadcast_to(result.ranks[small], draws.shape))


@pytest.mark.parametrize(("metric", "gamma", "replace"), [("AP", 0.1, True), ("Recall@10", 0.01, False), ("NDCG@10", 1.0, True), ("AUC", 0.0, False)])
def test_bank_equals_package_correction(metric, gamma, replace) -> None:
    bank = bias_variance_bank([metric, "Recall@5"], 400, 25, replace, [gamma])
    reference = bias_variance_correction(metric, 400, 25, replace, gamma)
    if gamma == 0.0:  # the minimal-bias problem is ill-conditioned: compare what it does, not the vector
        law = sampled_rank_matrix(400, 25, replace)
        np.testing.assert_allclose(law @ bank[(metric, gamma)], law @ reference, atol=1e-6)
    else:
        np.testing.assert_allclose(bank[(metric, gamma)], reference, rtol=1e-7, atol=1e-9)


def test_catalogue_bins_respect_the_tolerance() -> None:
    sizes = np.random.default_rng(2).integers(900, 1700, size=500)
    bins, representative = catalogue_bins(sizes, 0.05)
    ratio = sizes / representative[bins]
    assert ratio.max() <= 1.05 + 1e-12 and ratio.min() >= 1 / 1.05 - 1e-12
    assert len(representative) < 20
    bins0, representative0 = catalogue_bins(sizes, 0.0)
    np.testing.assert_array_equal(representative0[bins0], sizes)
    with pytest.raises(ValueError):
        catalogue_bins(sizes, -0.1)


def test_correction_tables_rows_per_bin() -> None:
    methods = ["sampled", "rank estimate", "CLS", "BV 0.1"]
    tables = correction_tables(methods, ["AP", "Recall@10"], np.array([300, 500]), 20, False)
    np.testing.assert_array_equal(tables[("sampled", "AP")][1], metric_vector("AP", 21))
    np.testing.assert_array_equal(tables[("rank estimate", "AP")][0], rank_estimate_correction("AP", 300, 20))
    np.testing.assert_allclose(tables[("CLS", "Recall@10")][1], constrained_least_squares_correction("Recall@10", 500, 20, False), atol=1e-10)
    np.testing.assert_allclose(tables[("BV 0.1", "AP")][0], bias_variance_correction("AP", 300, 20, False, 0.1), rtol=1e-7, atol=1e-10)
    assert parse_method("BV 0.001") == ("BV", 0.001)
    for bad in ("BV 2", "median", "BV x"):
        with pytest.raises(ValueError):
            parse_method(bad)


@pytest.mark.parametrize("replace", [True, False])
def test_expected_estimates_match_single_catalogue_moments(replace) -> None:
    ranks = np.array([1, 2, 9, 30, 150, 299])
    table = metric_vector("NDCG@10", 41)[None, :]
    mean, variance = expected_estimates(table, np.zeros(6, int), ranks, np.full(6, 300), 40, replace)
    reference = sampled_metric_moments("NDCG@10", ranks, 300, 40, replace)
    np.testing.assert_allclose(mean, reference.mean, atol=1e-12)
    np.testing.assert_allclose(variance, reference.variance, atol=1e-12)


def test_exact_metric_uses_each_targets_catalogue() -> None:
    np.testing.assert_allclose(exact_metric("AUC", np.array([1, 10]), np.array([10, 19])), [1.0, 0.5])
    np.testing.assert_allclose(exact_metric("Recall@10", np.array([10, 11]), np.array([50, 50])), [1.0, 0.0])
    np.testing.assert_allclose(exact_metric("AP", np.array([4]), np.array([50])), [0.25])


def test_run_positions_of_a_1r_design(world) -> None:
    models, train, test = world
    runs = build_runs(train, test, "1R TI-NN(5)", seed=0, threshold=4.0, on_shortage="exclude")
    ranked = rank_runs(runs, score_runs(models[1], runs), ties="optimistic")
    positions = run_positions(ranked)
    assert positions.shape == (runs.n_runs,)
    assert positions.min() >= 1 and positions.max() <= 6
    scores = score_runs(models[1], runs)
    for k in range(runs.n_runs):
        s = scores[runs.offsets[k] : runs.offsets[k + 1]]
        own = s[runs.labels[runs.offsets[k] : runs.offsets[k + 1]]][0]
        assert positions[k] == 1 + np.sum(s > own)


@pytest.mark.parametrize("replace", [True, False])
def test_expected_sampled_hits_is_the_expected_sampled_recall(replace) -> None:
    ranks, sizes = np.array([1, 3, 12, 60, 200]), np.array([90, 150, 200, 210, 400])
    table = metric_vector("Recall@10", 41)[None, :]
    mean, _ = expected_estimates(table, np.zeros(5, int), ranks, sizes, 40, replace)
    np.testing.assert_allclose(expected_sampled_hits(ranks, sizes, 40, 10, replace), mean, atol=1e-12)

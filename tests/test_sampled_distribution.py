"""Law of the sampled rank: exhaustive enumeration, scipy oracles, per-target catalogues, samplers, errors."""

import itertools
from math import comb

import numpy as np
import pytest
from scipy import stats

from recbias.sampled import (
    sampled_rank_distribution,
    sampled_rank_matrix,
    simulate_common_sampled_ranks,
    simulate_sampled_ranks,
)
from recbias.sampled.distribution import hypergeometric_pmf


def _enumerated_matrix(n: int, m: int, replace: bool) -> np.ndarray:
    """p(r~ | r) by listing every equally likely sample of irrelevant items (the literal procedure)."""
    matrix = np.zeros((n, m + 1))
    for r in range(1, n + 1):
        irrelevant = [position for position in range(1, n + 1) if position != r]
        draws = itertools.product(irrelevant, repeat=m) if replace else itertools.combinations(irrelevant, m)
        for sample in draws:
            matrix[r - 1, sum(position < r for position in sample)] += 1
    return matrix / matrix.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("replace", [True, False])
def test_matrix_equals_exhaustive_enumeration(replace):
    n, m = 9, 4
    np.testing.assert_allclose(sampled_rank_matrix(n, m, replace), _enumerated_matrix(n, m, replace), atol=1e-12)


def test_binomial_rows_match_closed_form():
    n, m, r = 50, 7, 13
    p = (r - 1) / (n - 1)
    expected = [comb(m, j) * p**j * (1 - p) ** (m - j) for j in range(m + 1)]
    np.testing.assert_allclose(sampled_rank_distribution(r, n, m, replace=True), expected, rtol=1e-12)


def test_hypergeometric_rows_match_scipy_pmf():
    n, m = 300, 40
    ranks = np.array([1, 2, 17, 150, 299, 300])
    expected = stats.hypergeom.pmf(np.arange(m + 1)[None, :], n - 1, (ranks - 1)[:, None], m)
    np.testing.assert_allclose(sampled_rank_matrix(n, m, False, ranks), expected, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("replace", [True, False])
def test_rows_are_distributions_with_the_eq15_mean(replace):
    n, m = 1000, 60
    matrix = sampled_rank_matrix(n, m, replace)
    assert matrix.shape == (n, m + 1)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    mean_rank = matrix @ np.arange(1, m + 2)
    np.testing.assert_allclose(mean_rank, 1 + m * (np.arange(n)) / (n - 1), atol=1e-9)


@pytest.mark.parametrize("replace", [True, False])
def test_extreme_ranks(replace):
    n, m = 40, 10
    assert sampled_rank_distribution(1, n, m, replace) == pytest.approx(np.eye(m + 1)[0])
    assert sampled_rank_distribution(n, n, m, replace) == pytest.approx(np.eye(m + 1)[-1])


def test_sampling_everything_without_replacement_reveals_the_true_rank():
    np.testing.assert_allclose(sampled_rank_matrix(30, 29, replace=False), np.eye(30), atol=1e-12)


@pytest.mark.parametrize("replace", [True, False])
def test_simulation_follows_the_matrix(replace):
    n, m, draws = 200, 15, 40_000
    rng = np.random.default_rng(7)
    for r in (2, 60, 181):
        sample = simulate_sampled_ranks(np.full(draws, r), n, m, replace, rng)
        probabilities = sampled_rank_distribution(r, n, m, replace)
        observed = np.bincount(sample - 1, minlength=m + 1)
        keep = probabilities * draws >= 5  # pool sparse cells into one, as the chi-square test needs
        counts = np.append(observed[keep], observed[~keep].sum())
        expected = np.append(probabilities[keep], probabilities[~keep].sum()) * draws
        counts, expected = counts[expected > 0], expected[expected > 0]
        assert stats.chisquare(counts, expected).pvalue > 1e-3, r


def test_simulation_keeps_shape_and_is_deterministic():
    ranks = np.array([[1, 5], [9, 10]])
    first = simulate_sampled_ranks(ranks, 10, 4, False, np.random.default_rng(3))
    second = simulate_sampled_ranks(ranks, 10, 4, False, np.random.default_rng(3))
    assert first.shape == ranks.shape
    np.testing.assert_array_equal(first, second)
    assert first[0, 0] == 1 and first[1, 1] == 5


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sampled_rank_distribution(0, 10, 3, True), "1..10"),
        (lambda: sampled_rank_distribution(11, 10, 3, True), "1..10"),
        (lambda: sampled_rank_matrix(10, 10, False), "without replacement"),
        (lambda: sampled_rank_matrix(10, 0, True), "at least one"),
        (lambda: sampled_rank_matrix(1, 3, True), "at least 2"),
        (lambda: simulate_sampled_ranks([3, 12], 10, 3, True, np.random.default_rng(0)), "1..10"),
    ],
)
def test_impossible_settings_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("replace", [True, False])
def test_one_catalogue_per_target_uses_each_targets_law(replace):
    ranks, sizes = np.array([3, 3, 1, 7]), np.array([6, 7, 5, 7])
    law = sampled_rank_matrix(sizes, 3, replace, ranks)
    for k in range(len(ranks)):  # against the enumeration of each target's own catalogue
        np.testing.assert_allclose(law[k], _enumerated_matrix(sizes[k], 3, replace)[ranks[k] - 1], atol=1e-12)
    mixed = sampled_rank_matrix(np.array([50, 200]), 20, replace, [3, 3])
    np.testing.assert_allclose(mixed[1], sampled_rank_matrix(200, 20, replace, [3])[0], atol=1e-12)
    np.testing.assert_allclose(mixed.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="own catalogue"):
        sampled_rank_matrix(np.array([10, 5]), 3, True, [6, 6])
    with pytest.raises(ValueError, match="true rank of every target"):
        sampled_rank_matrix(np.array([10, 5]), 3, True)
    if not replace:
        with pytest.raises(ValueError, match="without replacement"):
            sampled_rank_matrix(np.array([10, 3]), 3, False, [1, 1])


def _random_patterns(rng: np.random.Generator, targets: int, n_rec: int) -> np.ndarray:
    """Pool items of each target by the set of recommenders ranking them above it."""
    return rng.integers(0, 6, size=(targets, 2**n_rec))


@pytest.mark.parametrize("replace", [True, False])
def test_common_sampled_ranks_have_the_exact_marginal_law(replace):
    patterns = _random_patterns(np.random.default_rng(4), 25, 3)
    sizes = patterns.sum(axis=1) + 1
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1
    ranks = 1 + patterns @ bits
    m = int(min(sizes.min() - 1, 12))
    draws = simulate_common_sampled_ranks(patterns, m, replace, 4000, np.random.default_rng(0))
    assert draws.shape == (4000, 25, 3)
    for k in range(3):
        law = sampled_rank_matrix(sizes, m, replace, ranks[:, k])
        np.testing.assert_allclose(draws[..., k].mean(axis=0), law @ np.arange(1, m + 2), atol=0.15)
        np.testing.assert_allclose((draws[..., k] == 1).mean(axis=0), law[:, 0], atol=0.04)


def test_common_sampled_ranks_share_the_sample():
    # two recommenders that place the same items above the target get the same sampled rank in every draw
    patterns = np.zeros((10, 4), dtype=np.int64)
    patterns[:, 0], patterns[:, 3] = 30, np.arange(10)
    draws = simulate_common_sampled_ranks(patterns, 8, False, 50, np.random.default_rng(2))
    np.testing.assert_array_equal(draws[..., 0], draws[..., 1])
    assert draws[..., 0].std() > 0


def test_sampling_the_whole_pool_without_replacement_gives_the_exact_ranks():
    patterns = _random_patterns(np.random.default_rng(5), 12, 2)
    patterns[:, 0] += 10 - patterns.sum(axis=1)  # every pool of 10 + a few items
    patterns = np.maximum(patterns, 0)
    small = patterns.sum(axis=1) == patterns.sum(axis=1).min()
    bits = (np.arange(4)[:, None] >> np.arange(2)) & 1
    m = int(patterns.sum(axis=1).min())
    draws = simulate_common_sampled_ranks(patterns[small], m, False, 3, np.random.default_rng(1))
    np.testing.assert_array_equal(draws, np.broadcast_to(1 + patterns[small] @ bits, draws.shape))
    with pytest.raises(ValueError, match="exceeds the pool"):
        simulate_common_sampled_ranks(patterns, m + 1, False, 3, np.random.default_rng(1))
    with pytest.raises(ValueError, match="2\\*\\*K"):
        simulate_common_sampled_ranks(patterns[:, :3], 2, True, 3, np.random.default_rng(1))


def test_non_integer_ranks_raise():
    with pytest.raises(TypeError):
        sampled_rank_matrix(10, 3, True, [2.5])


def test_many_samples_with_replacement_are_allowed():
    assert sampled_rank_matrix(5, 12, True).shape == (5, 13)


def test_hypergeometric_pmf_equals_exact_binomial_coefficients_on_large_catalogues():
    population = np.array([3705, 3705, 3705, 2293, 40000, 12, 12, 12])
    successes = np.array([0, 1, 1800, 2292, 20000, 12, 5, 0])
    draws = 12
    got = hypergeometric_pmf(population, successes, draws)
    exact = np.array([[comb(k, j) * comb(n - k, draws - j) / comb(n, draws) for j in range(draws + 1)]
                      for n, k in zip(population.tolist(), successes.tolist())])  # exact integers, one rounding
    np.testing.assert_allclose(got, exact, rtol=1e-9, atol=0)
    assert np.array_equal(got == 0, exact == 0)  # zero exactly outside the support


def test_hypergeometric_pmf_rejects_impossible_urns():
    with pytest.raises(ValueError, match="successes <= population"):
        hypergeometric_pmf([10], [11], 3)
    with pytest.raises(ValueError, match="draws = 11 <= population"):
        hypergeometric_pmf([10], [5], 11)
    with pytest.raises(ValueError, match="2 populations for 1 success counts"):
        hypergeometric_pmf([10, 10], [5], 3)

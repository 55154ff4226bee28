"""Law of the sampled rank: exhaustive enumeration, scipy oracles, sampler, errors."""

import itertools
from math import comb

import numpy as np
import pytest
from scipy import stats

from recbias.sampled import sampled_rank_distribution, sampled_rank_matrix, simulate_sampled_ranks


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


def test_non_integer_ranks_raise():
    with pytest.raises(TypeError):
        sampled_rank_matrix(10, 3, True, [2.5])


def test_many_samples_with_replacement_are_allowed():
    assert sampled_rank_matrix(5, 12, True).shape == (5, 13)

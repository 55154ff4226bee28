"""Corrections of sampled metrics: rank estimate, minimal bias, CLS, bias-variance trade-off, tables per catalogue size."""

import numpy as np
import pytest
from scipy.optimize import nnls

from recbias.sampled import (
    apply_correction,
    bias_variance_correction,
    bias_variance_corrections,
    catalogue_bins,
    constrained_least_squares_correction,
    correction_objective,
    correction_tables,
    estimator_moments,
    metric_vector,
    minimal_bias_correction,
    parse_method,
    rank_estimate_correction,
    sampled_rank_matrix,
    simulate_sampled_ranks,
)


def _skewed_prior(n: int) -> np.ndarray:
    weights = 1.0 / np.sqrt(np.arange(1, n + 1))
    return weights / weights.sum()


def test_rank_estimate_by_hand():
    # n = 10, m = 4: r^ = 1 + 9 (r~ - 1) / 4 = 1, 3.25, 5.5, 7.75, 10
    np.testing.assert_allclose(rank_estimate_correction("AP", 10, 4), [1, 1 / 3, 1 / 5, 1 / 7, 1 / 10])
    interpolated = rank_estimate_correction("AP", 10, 4, rounding="interpolate")
    by_hand = [1, 1 / 3 + 0.25 * (1 / 4 - 1 / 3), (1 / 5 + 1 / 6) / 2, 1 / 7 + 0.75 * (1 / 8 - 1 / 7), 1 / 10]
    np.testing.assert_allclose(interpolated, by_hand)


def test_rank_estimate_floor_is_exact_on_integer_estimates():
    # n - 1 = 10 m: every r^ is an integer, so floor must not lose one to rounding error
    n, m = 1001, 100
    np.testing.assert_allclose(rank_estimate_correction("AP", n, m), 1 / (1 + 10 * np.arange(m + 1)))


def test_rank_estimate_makes_recall_and_ndcg_at_10_identical_when_samples_are_sparse():
    # Sec. 6.3: with floor rounding and (n - 1)/m >= 10, only r~ = 1 maps into the top 10
    n, m = 3706, 100
    recall = rank_estimate_correction("Recall@10", n, m)
    np.testing.assert_array_equal(recall, rank_estimate_correction("nDCG@10", n, m))
    np.testing.assert_array_equal(recall, np.eye(m + 1)[0])


@pytest.mark.parametrize("replace", [True, False])
def test_interpolated_rank_estimate_is_unbiased_for_auc(replace):
    n, m = 700, 25
    correction = rank_estimate_correction("AUC", n, m, rounding="interpolate")
    moments = estimator_moments(correction, np.arange(1, n + 1), n, replace)
    np.testing.assert_allclose(moments.mean, metric_vector("AUC", n), atol=1e-12)


def test_interpolated_rank_estimate_is_unbiased_for_auc_by_simulation():
    n, m, repetitions = 2000, 30, 20_000
    true_ranks = np.array([5, 300, 1200, 1999])
    rng = np.random.default_rng(5)
    sampled = simulate_sampled_ranks(np.tile(true_ranks, (repetitions, 1)), n, m, False, rng)
    corrected = apply_correction(rank_estimate_correction("AUC", n, m, rounding="interpolate"), sampled)
    standard_error = corrected.std(axis=0) / np.sqrt(repetitions)
    exact = metric_vector("AUC", n)[true_ranks - 1]
    assert np.all(np.abs(corrected.mean(axis=0) - exact) <= 4 * standard_error + 1e-12)


@pytest.mark.parametrize("metric", ["AP", "nDCG@5", "Recall@3"])
def test_minimal_bias_is_exact_when_the_system_is_square(metric):
    # n = m + 1 with replacement: Bernstein polynomials at n distinct points are a basis
    n, m = 8, 7
    correction = minimal_bias_correction(metric, n, m, replace=True)
    assert correction_objective(correction, metric, n, True) < 1e-20
    np.testing.assert_allclose(sampled_rank_matrix(n, m, True) @ correction, metric_vector(metric, n), atol=1e-9)


def test_minimal_bias_is_the_metric_itself_when_everything_is_sampled():
    n = 40
    correction = minimal_bias_correction("nDCG@10", n, n - 1, replace=False)
    np.testing.assert_allclose(correction, metric_vector("nDCG@10", n), atol=1e-10)


@pytest.mark.parametrize("replace", [True, False])
def test_minimal_bias_recovers_the_unbiased_auc(replace):
    # AUC is linear in the rank, so the sampled AUC is an exactly unbiased solution (Sec. 4.4.1)
    n, m = 200, 10
    correction = minimal_bias_correction("AUC", n, m, replace, prior=_skewed_prior(n))
    np.testing.assert_allclose(correction, metric_vector("AUC", m + 1), atol=1e-8)
    assert correction_objective(correction, "AUC", n, replace) < 1e-20


@pytest.mark.parametrize("metric", ["AP", "nDCG@10", "Recall@10"])
def test_minimal_bias_beats_every_other_estimator_on_bias(metric):
    n, m = 2000, 30
    rng = np.random.default_rng(1)
    best = minimal_bias_correction(metric, n, m, True)
    floor = correction_objective(best, metric, n, True)
    rivals = [
        metric_vector(metric, m + 1),
        rank_estimate_correction(metric, n, m),
        constrained_least_squares_correction(metric, n, m, True),
        bias_variance_correction(metric, n, m, True, 0.1),
    ] + [best + 1e-3 * rng.standard_normal(m + 1) for _ in range(5)]
    for rival in rivals:
        assert floor <= correction_objective(rival, metric, n, True) * (1 + 1e-9)


def test_bias_variance_at_gamma_zero_is_minimal_bias():
    # Eq. 25 at gamma = 0 reduces to Eq. 21-22
    n, m, prior = 500, 12, _skewed_prior(500)
    np.testing.assert_allclose(
        bias_variance_correction("AP", n, m, False, 0.0, prior), minimal_bias_correction("AP", n, m, False, prior)
    )


@pytest.mark.parametrize("replace", [True, False])
def test_bias_variance_at_gamma_one_is_the_posterior_mean(replace):
    # Eq. 26: c_j = sum_r p(r | r~ = j) M(r), computed here by Bayes' rule row by row
    n, m, prior = 300, 9, _skewed_prior(300)
    joint = prior[:, None] * sampled_rank_matrix(n, m, replace)
    posterior = joint / joint.sum(axis=0, keepdims=True)
    expected = posterior.T @ metric_vector("nDCG", n)
    np.testing.assert_allclose(bias_variance_correction("nDCG", n, m, replace, 1.0, prior), expected, rtol=1e-10)


@pytest.mark.parametrize("gamma", [0.05, 0.3, 0.8])
def test_bias_variance_solves_eq25(gamma):
    # Eq. 23 and 25 solved as written, on a problem small enough for the normal equations
    n, m = 120, 5
    prior = _skewed_prior(n)
    transition = sampled_rank_matrix(n, m, True)
    a = np.sqrt(prior)[:, None] * transition
    b = np.sqrt(prior) * metric_vector("AP", n)
    c = prior @ transition
    expected = np.linalg.solve((1 - gamma) * a.T @ a + gamma * np.diag(c), a.T @ b)
    np.testing.assert_allclose(bias_variance_correction("AP", n, m, True, gamma, prior), expected, rtol=1e-8)


@pytest.mark.parametrize("gamma", [0.001, 0.1, 1.0])
def test_bias_variance_minimises_its_objective(gamma):
    n, m, metric = 3000, 40, "nDCG@10"
    rng = np.random.default_rng(2)
    best = bias_variance_correction(metric, n, m, True, gamma)
    value = correction_objective(best, metric, n, True, gamma)
    rivals = [metric_vector(metric, m + 1), constrained_least_squares_correction(metric, n, m, True)]
    rivals += [best + 1e-3 * rng.standard_normal(m + 1) for _ in range(5)]
    for rival in rivals:
        assert value <= correction_objective(rival, metric, n, True, gamma) * (1 + 1e-9)


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("metric", ["AP", "nDCG", "nDCG@10", "Recall@10", "P@5"])
def test_constrained_least_squares_is_monotone(metric, replace):
    correction = constrained_least_squares_correction(metric, 3706, 100, replace)
    assert np.all(np.diff(correction) <= 0)


def test_constrained_least_squares_matches_an_nnls_oracle():
    # Lawson-Hanson NNLS on c = t+ - t- + sum of non-negative steps: an independent active-set solver
    n, m, metric = 400, 12, "AP"
    prior = _skewed_prior(n)
    a = np.sqrt(prior)[:, None] * sampled_rank_matrix(n, m, True)
    b = np.sqrt(prior) * metric_vector(metric, n)
    steps = np.triu(np.ones((m + 1, m)))
    basis = np.hstack([np.ones((m + 1, 1)), -np.ones((m + 1, 1)), steps])
    oracle = basis @ nnls(a @ basis, b)[0]
    ours = constrained_least_squares_correction(metric, n, m, True, prior)
    assert correction_objective(ours, metric, n, True, prior=prior) <= correction_objective(
        oracle, metric, n, True, prior=prior
    ) * (1 + 1e-8)
    np.testing.assert_allclose(ours, oracle, atol=1e-6)


def test_constrained_least_squares_sits_between_minimal_bias_and_monotone_rivals():
    n, m, metric = 5000, 50, "AP"
    value = correction_objective(constrained_least_squares_correction(metric, n, m, True), metric, n, True)
    assert correction_objective(minimal_bias_correction(metric, n, m, True), metric, n, True) <= value
    for monotone_rival in (metric_vector(metric, m + 1), rank_estimate_correction(metric, n, m)):
        assert value <= correction_objective(monotone_rival, metric, n, True)


def test_constrained_least_squares_keeps_an_already_monotone_solution():
    n, m = 300, 10
    np.testing.assert_allclose(
        constrained_least_squares_correction("AUC", n, m, True), minimal_bias_correction("AUC", n, m, True), atol=1e-8
    )


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["AP", "nDCG@10", "Recall@10"])
def test_corrections_reduce_the_bias_of_the_sampled_metric(metric):
    # Sec. 5.4 and Fig. 4 (n = 10,000, m = 100, uniform prior): every correction is closer in expectation
    n, m = 10_000, 100
    uncorrected = correction_objective(metric_vector(metric, m + 1), metric, n, True)
    for correction in (
        rank_estimate_correction(metric, n, m),
        constrained_least_squares_correction(metric, n, m, True),
        bias_variance_correction(metric, n, m, True, 0.1),
        bias_variance_correction(metric, n, m, True, 0.01),
    ):
        assert correction_objective(correction, metric, n, True) < uncorrected


def test_apply_correction():
    correction = np.array([0.9, 0.5, 0.1])
    np.testing.assert_allclose(apply_correction(correction, [[1, 3], [2, 2]]), [[0.9, 0.1], [0.5, 0.5]])
    with pytest.raises(ValueError, match="sampled ranks must lie in 1..3"):
        apply_correction(correction, [4])


@pytest.mark.parametrize("gamma", [-0.1, 1.5, np.nan])
def test_gamma_outside_unit_interval_raises(gamma):
    with pytest.raises(ValueError, match="gamma"):
        bias_variance_correction("AP", 50, 5, True, gamma)


@pytest.mark.parametrize(
    ("prior", "message"),
    [
        (np.full(49, 1 / 49), "shape"),
        (np.r_[-0.1, np.full(49, 1.1 / 49)], "non-negative"),
        (np.full(50, 0.03), "sum to 1"),
        (np.r_[np.nan, np.full(49, 1 / 49)], "finite"),
    ],
)
def test_bad_priors_raise(prior, message):
    with pytest.raises(ValueError, match=message):
        minimal_bias_correction("AP", 50, 5, True, prior)


def test_other_bad_inputs_raise():
    with pytest.raises(ValueError, match="rounding"):
        rank_estimate_correction("AP", 50, 5, rounding="round")
    with pytest.raises(ValueError, match="without replacement"):
        minimal_bias_correction("AP", 50, 50, False)
    with pytest.raises(ValueError, match="unknown metric"):
        constrained_least_squares_correction("DCG@3", 50, 5, True)


def test_several_metrics_and_gammas_solve_each_problem_on_its_own():
    bank = bias_variance_corrections(["AP", "Recall@5", "nDCG@10"], 400, 25, False, [0.01, 0.1, 1.0])
    assert bank.shape == (3, 3, 26)
    for g, gamma in enumerate([0.01, 0.1, 1.0]):
        for j, metric in enumerate(["AP", "Recall@5", "nDCG@10"]):
            np.testing.assert_allclose(bank[g, j], bias_variance_correction(metric, 400, 25, False, gamma), rtol=1e-7, atol=1e-9)
    monotone = bias_variance_corrections(["AP", "Recall@5"], 400, 25, True, [0.0], monotone=True)
    np.testing.assert_allclose(monotone[0, 1], constrained_least_squares_correction("Recall@5", 400, 25, True), atol=1e-10)


def test_catalogue_bins_respect_the_tolerance():
    sizes = np.random.default_rng(2).integers(900, 1700, size=500)
    bins, representative = catalogue_bins(sizes, 0.05)
    ratio = sizes / representative[bins]
    assert ratio.max() <= 1.05 + 1e-12 and ratio.min() >= 1 / 1.05 - 1e-12
    assert len(representative) < 20
    for b, n in enumerate(representative):
        assert n == round(np.median(sizes[bins == b]))
    bins0, representative0 = catalogue_bins(sizes, 0.0)
    np.testing.assert_array_equal(representative0[bins0], sizes)
    with pytest.raises(ValueError):
        catalogue_bins(sizes, -0.1)


def test_correction_tables_rows_per_bin():
    methods = ["sampled", "rank estimate", "CLS", "BV 0.1"]
    tables = correction_tables(methods, ["AP", "Recall@10"], np.array([300, 500]), 20, False)
    assert set(tables) == {(method, metric) for method in methods for metric in ("AP", "Recall@10")}
    np.testing.assert_array_equal(tables[("sampled", "AP")][1], metric_vector("AP", 21))
    np.testing.assert_array_equal(tables[("rank estimate", "AP")][0], rank_estimate_correction("AP", 300, 20))
    np.testing.assert_allclose(tables[("CLS", "Recall@10")][1], constrained_least_squares_correction("Recall@10", 500, 20, False), atol=1e-10)
    np.testing.assert_allclose(tables[("BV 0.1", "AP")][0], bias_variance_correction("AP", 300, 20, False, 0.1), rtol=1e-7, atol=1e-10)
    # keys use the canonical names of the metric grammar
    assert ("BV 0.1", "nDCG@10") in correction_tables(["BV 0.1"], ["ndcg@10"], [300], 20, False)


def test_parse_method():
    assert parse_method("BV 0.001") == ("BV", 0.001)
    assert parse_method("CLS") == ("CLS", None)
    for bad in ("BV 2", "median", "BV x", "BV 1e"):
        with pytest.raises(ValueError):
            parse_method(bad)

"""Exact moments of sampled metrics: Monte Carlo, closed forms, m = 1 collapse, Tables 1-2."""

import numpy as np
import pytest
from scipy import stats

from recbias.sampled import (
    estimator_moments,
    expected_sampled_hits,
    metric_vector,
    sampled_metric_moments,
    sampled_rank_distribution,
    sampled_rank_matrix,
    simulate_sampled_ranks,
)

METRICS = ["AUC", "P@5", "Recall@5", "AP", "AP@5", "nDCG", "nDCG@5"]
Z_LIMIT = 4.0


@pytest.mark.parametrize("replace", [True, False])
def test_exact_moments_agree_with_monte_carlo(replace):
    n, m, repetitions = 300, 20, 20_000
    true_ranks = np.array([1, 3, 8, 15, 40, 90, 150, 299, 300, 22])
    rng = np.random.default_rng(11)
    sampled = simulate_sampled_ranks(np.tile(true_ranks, (repetitions, 1)), n, m, replace, rng)
    for metric in METRICS:
        values = metric_vector(metric, m + 1)[sampled - 1]
        exact = sampled_metric_moments(metric, true_ranks, n, m, replace)
        # per true rank: mean and variance within Z_LIMIT standard errors (computed from the exact law)
        transition = sampled_rank_matrix(n, m, replace, true_ranks)
        deviations = metric_vector(metric, m + 1)[None, :] - exact.mean[:, None]
        fourth_moment = np.einsum("ij,ij->i", transition, deviations**4)
        mean_se = np.sqrt(exact.variance / repetitions)
        variance_se = np.sqrt(np.maximum(fourth_moment - exact.variance**2, 0.0) / repetitions)
        assert np.all(np.abs(values.mean(axis=0) - exact.mean) <= Z_LIMIT * mean_se + 1e-12), metric
        sample_variance = ((values - exact.mean) ** 2).mean(axis=0)
        assert np.all(np.abs(sample_variance - exact.variance) <= Z_LIMIT * variance_se + 1e-12), metric
        # the data-set average: its mean and its variance across repetitions
        averages = values.mean(axis=1)
        assert abs(averages.mean() - exact.average) <= Z_LIMIT * exact.average_std / np.sqrt(repetitions), metric
        centred = averages - exact.average
        average_var_se = np.sqrt(((centred**4).mean() - exact.average_variance**2) / repetitions)
        assert abs((centred**2).mean() - exact.average_variance) <= Z_LIMIT * average_var_se, metric


@pytest.mark.parametrize("replace", [True, False])
def test_sampled_auc_is_unbiased(replace):
    # Sec. 4.4.1: the AUC on m + 1 items has the exact AUC as its expectation
    n, m = 500, 30
    ranks = np.arange(1, n + 1)
    np.testing.assert_allclose(sampled_metric_moments("AUC", ranks, n, m, replace).mean, metric_vector("AUC", n))


@pytest.mark.parametrize("replace", [True, False])
def test_sampled_recall_is_a_cdf(replace):
    # Eq. 18: E[Recall@k] = P(at most k - 1 sampled items above the relevant one)
    n, m, k = 800, 50, 10
    ranks = np.array([1, 10, 100, 400, 800])
    if replace:
        expected = stats.binom.cdf(k - 1, m, (ranks - 1) / (n - 1))
    else:
        expected = stats.hypergeom.cdf(k - 1, n - 1, ranks - 1, m)
    np.testing.assert_allclose(sampled_metric_moments(f"Recall@{k}", ranks, n, m, replace).mean, expected, atol=1e-12)


def test_sampled_ap_closed_form():
    # Eq. 19, sampling with replacement: (1 - ((n - r)/(n - 1))^(m + 1)) / ((r - 1)(m + 1)/(n - 1)), and 1 at r = 1
    n, m = 1000, 40
    ranks = np.arange(2, n + 1)
    closed = (1 - ((n - ranks) / (n - 1)) ** (m + 1)) / ((ranks - 1) * (m + 1) / (n - 1))
    np.testing.assert_allclose(sampled_metric_moments("AP", ranks, n, m, True).mean, closed, rtol=1e-10)
    assert sampled_metric_moments("AP", [1], n, m, True).mean[0] == pytest.approx(1.0)


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("metric", METRICS + ["P@1", "nDCG@1"])
def test_one_sample_collapses_every_metric_to_affine_auc(metric, replace):
    # Sec. 4.4.4: with m = 1, E[M(r~)] = M(2) + (M(1) - M(2)) AUC_n(r) for every metric
    n = 400
    ranks = np.arange(1, n + 1)
    expected_metric = sampled_metric_moments(metric, ranks, n, 1, replace).mean
    at_one, at_two = metric_vector(metric, 2)
    np.testing.assert_allclose(expected_metric, at_two + (at_one - at_two) * metric_vector("AUC", n), atol=1e-12)
    design = np.column_stack([np.ones(n), metric_vector("AUC", n)])
    residual = expected_metric - design @ np.linalg.lstsq(design, expected_metric, rcond=None)[0]
    assert np.abs(residual).max() < 1e-12


@pytest.mark.parametrize("replace", [True, False])
def test_moments_with_one_catalogue_and_one_estimator_per_target_agree_with_monte_carlo(replace):
    rng = np.random.default_rng(8)
    ranks, sizes, m, repetitions = np.array([1, 2, 9, 30, 150, 299]), np.array([40, 300, 90, 31, 400, 300]), 20, 20_000
    table = rng.normal(size=(len(ranks), m + 1))
    moments = estimator_moments(table, ranks, sizes, replace)
    draws = np.column_stack([simulate_sampled_ranks(np.full(repetitions, r), n, m, replace, rng)
                             for r, n in zip(ranks, sizes, strict=True)])
    values = table[np.arange(len(ranks)), draws - 1]
    mean_se = np.sqrt(moments.variance / repetitions)
    assert np.all(np.abs(values.mean(axis=0) - moments.mean) <= Z_LIMIT * mean_se + 1e-12)
    np.testing.assert_allclose(values.var(axis=0), moments.variance, rtol=0.06, atol=1e-12)
    # one shared vector and one catalogue size: the per-distinct-rank route gives the same moments
    shared = estimator_moments(table[0], ranks, 300, replace)
    per_target = estimator_moments(np.tile(table[0], (len(ranks), 1)), ranks, np.full(len(ranks), 300), replace)
    np.testing.assert_allclose(shared.mean, per_target.mean, atol=1e-12)
    np.testing.assert_allclose(shared.variance, per_target.variance, atol=1e-12)


@pytest.mark.parametrize("replace", [True, False])
def test_expected_sampled_hits_is_the_expected_sampled_recall(replace):
    ranks, sizes = np.array([1, 3, 12, 60, 200]), np.array([90, 150, 200, 210, 400])
    expected = sampled_metric_moments("Recall@10", ranks, sizes, 40, replace).mean
    np.testing.assert_allclose(expected_sampled_hits(ranks, sizes, 40, 10, replace), expected, atol=1e-12)
    with pytest.raises(ValueError, match="own catalogue"):
        expected_sampled_hits(np.array([100]), np.array([90]), 40, 10, replace)


def test_estimator_moments_by_hand():
    # n = 3, m = 1: p(r~ = 1 | r) = (3 - r) / 2
    moments = estimator_moments([4.0, 2.0], [1, 2, 3], 3, replace=True)
    np.testing.assert_allclose(moments.mean, [4.0, 3.0, 2.0])
    np.testing.assert_allclose(moments.variance, [0.0, 1.0, 0.0])
    assert moments.average == pytest.approx(3.0)
    assert moments.average_variance == pytest.approx(1 / 9)


def test_duplicate_ranks_keep_their_order():
    moments = sampled_metric_moments("AP", [50, 2, 50, 7], 100, 10, True)
    singles = [sampled_metric_moments("AP", [r], 100, 10, True).mean[0] for r in (50, 2, 50, 7)]
    np.testing.assert_allclose(moments.mean, singles)


def test_bad_estimators_raise():
    with pytest.raises(ValueError, match="length m \\+ 1"):
        estimator_moments([1.0], [1], 10, True)
    with pytest.raises(ValueError, match="finite"):
        estimator_moments([1.0, np.nan], [1], 10, True)
    with pytest.raises(ValueError, match="at least one"):
        estimator_moments([1.0, 0.0], [], 10, True)
    with pytest.raises(ValueError, match="rows for"):
        estimator_moments(np.ones((3, 4)), [1, 2], 10, True)


# Krichene & Rendle 2020, Table 1 (ranks) and Table 2 (m = 99 sampled irrelevant items, n = 10,000,
# 1,000 repetitions; "mean ± standard deviation" of the five-instance average).  Published values.
TOY_RANKS = {
    "A": [100, 100, 100, 100, 100],
    "B": [40, 40, 8437, 9266, 4482],
    "C": [212, 2, 743, 5342, 1548],
}
TABLE2 = {
    ("A", "AUC"): (0.990, 0.004),
    ("A", "AP"): (0.630, 0.129),
    ("A", "nDCG"): (0.724, 0.097),
    ("A", "Recall@10"): (1.000, 0.000),
    ("B", "AUC"): (0.555, 0.014),
    ("B", "AP"): (0.336, 0.073),
    ("B", "nDCG"): (0.444, 0.054),
    ("B", "Recall@10"): (0.400, 0.000),
    ("C", "AUC"): (0.843, 0.014),
    ("C", "AP"): (0.325, 0.050),
    ("C", "nDCG"): (0.460, 0.039),
    ("C", "Recall@10"): (0.567, 0.092),
}
TOY_N, TOY_M, TOY_REPETITIONS = 10_000, 99, 1_000
ROUNDING = 0.0005


def _paper_standard_error(paper_sd: float) -> float:
    """Standard error of the paper's 1,000-repetition mean, allowing for the rounding of the sd."""
    return (paper_sd + ROUNDING) / np.sqrt(TOY_REPETITIONS)


@pytest.mark.parametrize("replace", [True, False])
def test_table2_exact_expectations(replace):
    for (recommender, metric), (paper_mean, paper_sd) in TABLE2.items():
        exact = sampled_metric_moments(metric, TOY_RANKS[recommender], TOY_N, TOY_M, replace)
        gap = abs(exact.average - paper_mean)
        assert gap <= paper_sd + ROUNDING, (recommender, metric, exact.average)
        assert gap <= 3 * _paper_standard_error(paper_sd) + ROUNDING, (recommender, metric, exact.average)
        # the spread of the average: the paper's sd is itself estimated from 1,000 repetitions
        assert abs(exact.average_std - paper_sd) <= ROUNDING + 4 * paper_sd / np.sqrt(2 * TOY_REPETITIONS), (
            recommender,
            metric,
            exact.average_std,
        )


@pytest.mark.parametrize("replace", [True, False])
def test_table2_simulation(replace):
    rng = np.random.default_rng(2020)
    for recommender, ranks in TOY_RANKS.items():
        sampled = simulate_sampled_ranks(np.tile(ranks, (TOY_REPETITIONS, 1)), TOY_N, TOY_M, replace, rng)
        for metric in ("AUC", "AP", "nDCG", "Recall@10"):
            paper_mean, paper_sd = TABLE2[(recommender, metric)]
            averages = metric_vector(metric, TOY_M + 1)[sampled - 1].mean(axis=1)
            gap = abs(averages.mean() - paper_mean)
            assert gap <= paper_sd + ROUNDING, (recommender, metric, averages.mean())
            # two independent 1,000-repetition means: standard error sqrt(2) times the paper's
            assert gap <= 3 * np.sqrt(2) * _paper_standard_error(paper_sd) + ROUNDING, (recommender, metric)


def test_table2_sampled_order_differs_from_exact():
    # Sec. 4.2: exact AP ranks C first; sampled AP ranks A first and C last, while AUC keeps its order
    sampled_ap = {name: sampled_metric_moments("AP", r, TOY_N, TOY_M, True).average for name, r in TOY_RANKS.items()}
    exact_ap = {name: metric_vector("AP", TOY_N)[np.array(r) - 1].mean() for name, r in TOY_RANKS.items()}
    assert max(exact_ap, key=exact_ap.get) == "C"
    assert sorted(sampled_ap, key=sampled_ap.get) == ["C", "B", "A"]
    sampled_auc = {name: sampled_metric_moments("AUC", r, TOY_N, TOY_M, True).average for name, r in TOY_RANKS.items()}
    exact_auc = {name: metric_vector("AUC", TOY_N)[np.array(r) - 1].mean() for name, r in TOY_RANKS.items()}
    assert sorted(sampled_auc, key=sampled_auc.get) == sorted(exact_auc, key=exact_auc.get)


def test_distribution_and_moments_agree():
    r, n, m = 37, 120, 9
    metric = metric_vector("nDCG", m + 1)
    probabilities = sampled_rank_distribution(r, n, m, True)
    moments = sampled_metric_moments("nDCG", [r], n, m, True)
    assert moments.mean[0] == pytest.approx(probabilities @ metric)
    assert moments.variance[0] == pytest.approx(probabilities @ metric**2 - (probabilities @ metric) ** 2)


@pytest.mark.parametrize(
    ("m", "order"),
    [(30, ["A", "C", "B"]), (200, ["A", "B", "C"]), (500, ["C", "A", "B"])],
)
def test_figure2_ap_order_changes_with_the_sample_size(m, order):
    # Sec. 4.2 on Fig. 2: expected sampled AP orders the toy recommenders A > C > B below m = 50,
    # A > B > C near m = 200 and C > A > B near m = 500
    expected = {name: sampled_metric_moments("AP", r, TOY_N, m, True).average for name, r in TOY_RANKS.items()}
    assert sorted(expected, key=expected.get, reverse=True) == order


def test_figure2_recall_needs_thousands_of_samples():
    # Sec. 4.2: sampled Recall@10 only comes close to the exact values (C 0.2, A = B = 0) from about m = 5,000
    exact = metric_vector("Recall@10", TOY_N)

    def largest_bias(m):
        return max(
            abs(sampled_metric_moments("Recall@10", r, TOY_N, m, True).average - exact[np.array(r) - 1].mean())
            for r in TOY_RANKS.values()
        )

    assert largest_bias(1000) > 0.4
    assert largest_bias(2000) > 0.2
    assert largest_bias(5000) < 0.01

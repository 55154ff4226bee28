"""Chapter 6's computations: the toy example against its exact moments, the real-data study against
theory, the sweep over m, the bridge's pools and the reading of the corrected toy table."""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from recbias import datasets, sampled
from recbias.bookkit.claims import LEVEL
from recbias.chapters.c06_sampled_metrics.study import bridge as sb
from recbias.chapters.c06_sampled_metrics.study import cost as sc
from recbias.chapters.c06_sampled_metrics.study import real_data as sv
from recbias.chapters.c06_sampled_metrics.study import sweep as sw
from recbias.chapters.c06_sampled_metrics.study import toy as st
from recbias.designs import build_runs
from recbias.evaluate import pool_ranks
from recbias.recommenders import PAPERS_PERSONALISED, make
from recbias.splits import make_folds

REPETITIONS = 40


@pytest.fixture(scope="module")
def ratings():
    return datasets.load("synthetic-small", seed=1)


@pytest.fixture(scope="module")
def study(ratings) -> sv.SampledStudy:
    return sv.sampled_study(ratings, seed=1, m=20, repetitions=REPETITIONS)


@pytest.fixture(scope="module")
def toy() -> st.ToyStudy:
    return st.toy_study(200, seed=3)


def test_toy_exact_metrics_are_the_rank_functions_of_the_five_instances(toy) -> None:
    """Eq. sm-metrics by hand for recommender C (ranks 212, 2, 743, 5342, 1548 of 10,000)."""
    ranks = np.array(st.TOY_RANKS["C"])
    assert toy.exact.loc["C", "AUC"] == pytest.approx(np.mean((st.TOY_N - ranks) / (st.TOY_N - 1)))
    assert toy.exact.loc["C", "AP"] == pytest.approx(np.mean(1 / ranks))
    assert toy.exact.loc["C", "nDCG"] == pytest.approx(np.mean(1 / np.log2(ranks + 1)))
    assert toy.exact.loc["C", "Recall@10"] == pytest.approx(0.2)  # only rank 2 is in the top 10


def test_toy_simulation_agrees_with_its_exact_moments(toy) -> None:
    for key, draws in toy.simulated.items():
        moments = toy.expected[key]
        assert abs(draws.mean() - moments.average) <= 4 * moments.average_std / np.sqrt(len(draws)) + 1e-12, key


def test_the_m1_fits_find_every_metric_affine_in_auc() -> None:
    fits = st.m1_fits().set_index("metric")
    assert fits["largest residual"].max() < 1e-12
    # Eq. sm-m1: the slope on AUC is M(1) - M(2); a cutoff metric with k >= 2 is constant
    np.testing.assert_allclose(fits["slope on AUC"], fits["M(1)"] - fits["M(2)"], atol=1e-12)
    np.testing.assert_allclose(fits.loc["Recall@10", ["E[A]", "E[B]", "E[C]"]].astype(float), 1.0)


def test_first_place_chance_is_the_binomial_chance_that_no_sampled_item_beats_the_rank() -> None:
    assert st.first_place_chance(50, 100) == pytest.approx((1 - 49 / 9999) ** 100)


def test_the_toy_corrections_read_as_the_page_says() -> None:
    """The prose on the corrected toy table: rank estimate and CLS keep A first, BV 0.1 separates nothing
    beyond one standard deviation, BV 0.01 puts C first, gives A a negative Recall@10 and standard
    deviations larger than its gaps."""
    corrections = st.toy_corrections()
    for metric in ("AP", "Recall@10"):
        moments = {method: st.corrected_moments(corrections, method, metric)
                   for method in ("rank estimate", "CLS", "BV 0.1", "BV 0.01")}
        mean = {method: {name: m.average for name, m in by.items()} for method, by in moments.items()}
        sd = {method: {name: m.average_std for name, m in by.items()} for method, by in moments.items()}
        for method in ("rank estimate", "CLS"):
            assert max(mean[method], key=mean[method].get) == "A"
        gap = max(mean["BV 0.1"].values()) - min(mean["BV 0.1"].values())
        assert gap < min(sd["BV 0.1"].values())
        assert max(mean["BV 0.01"], key=mean["BV 0.01"].get) == "C"
        assert max(mean["BV 0.01"].values()) - min(mean["BV 0.01"].values()) < max(sd["BV 0.01"].values())
    assert mean["BV 0.01"]["A"] < 0  # Recall@10, the last metric of the loop
    table = st.bias_variance(corrections).set_index("estimator")
    # the uncorrected vector has the largest bias, the minimal-bias vector the smallest and the largest entries
    assert table["RMS bias"].idxmax() == "sampled" and table["RMS bias"].idxmin() == "BV 0"
    assert table["largest |entry|"].idxmax() == "BV 0"
    np.testing.assert_allclose(table["RMS error"] ** 2, table["RMS bias"] ** 2 + table["RMS sd (one instance)"] ** 2)


def test_the_study_holds_exact_metrics_of_its_exact_ranks(study) -> None:
    assert study.names == ("X", "Y", "Z") and study.labels["X"] == "X (iALS)"
    np.testing.assert_allclose(study.exact["Recall@10"], (study.ranks <= 10).mean(axis=0))
    np.testing.assert_allclose(study.exact["AUC"], ((study.sizes[:, None] - study.ranks) / (study.sizes[:, None] - 1)).mean(axis=0))
    assert study.m == 20 and study.keep.all()
    assert study.estimates[("sampled", "AP")].shape == (REPETITIONS, 3)
    assert study.split in (sv.LEAVE_LAST_OUT, sv.LEAVE_ONE_RANDOM_OUT)


def test_simulated_estimates_agree_with_their_exact_expectation(study) -> None:
    """Every estimator's mean over the repetitions against its exact expectation under each user's own law."""
    for method in sv.METHODS:
        for metric in ("Recall@10", "AP"):
            table = study.tables[(method, metric)][study.bins]
            for k in range(3):
                moments = sampled.estimator_moments(table, study.ranks[:, k], study.sizes, study.replace)
                values = study.estimates[(method, metric)][:, k]
                # the repetitions share one sample per user, so their spread is that of the average
                assert abs(values.mean() - moments.average) <= 4.5 * moments.average_std / np.sqrt(REPETITIONS) + 1e-12, (
                    method, metric, k)
    # the uncorrected sampled AUC is unbiased in expectation
    np.testing.assert_allclose(sv.auc_expected_gaps(study), 0, atol=1e-12)


def test_the_study_is_deterministic(ratings, study) -> None:
    again = sv.sampled_study(ratings, seed=1, m=20, repetitions=REPETITIONS)
    np.testing.assert_array_equal(again.estimates[("BV 0.1", "nDCG@10")], study.estimates[("BV 0.1", "nDCG@10")])


def test_m_shrinks_to_the_smallest_pool_without_replacement(ratings) -> None:
    small = sv.sampled_study(ratings, seed=1, m=100_000, repetitions=2)
    assert small.m == small.pool.sizes.min() - 1 and small.m_requested == 100_000
    with pytest.raises(ValueError, match="repetitions"):
        sv.sampled_study(ratings, repetitions=1)


def test_sample_size_shrinks_only_when_too_few_pools_hold_m_items() -> None:
    sizes = np.full(sv.MIN_FULL_POOLS, 21)
    assert sv.sample_size(sizes, 20, False) == 20  # exactly MIN_FULL_POOLS pools hold 20 others
    assert sv.sample_size(np.r_[sizes[1:], 5], 20, False) == 4
    assert sv.sample_size(np.array([5]), 20, True) == 20  # with replacement any pool will do


def test_agreement_counts_count_the_repetitions_that_order_each_pair_right(study) -> None:
    table = sv.agreement_counts(study)
    row = table[(table["pair"] == "X vs Z") & (table["metric"] == "AP")].iloc[0]
    values, exact = study.estimates[("CLS", "AP")], study.exact["AP"]
    assert row["CLS"] == np.sum(np.sign(values[:, 0] - values[:, 2]) == np.sign(exact[0] - exact[2]))
    assert table[list(sv.METHODS)].stack().between(0, REPETITIONS).all()


def test_repetition_rights_sum_table_4_and_pair_each_estimator_with_the_uncorrected(study) -> None:
    rights = sv.repetition_rights(study).set_index("estimator")
    table4 = sv.agreement_counts(study)
    top_heavy = table4["metric"].isin(sv.TOP_HEAVY)
    for method in sv.METHODS:  # Table 4 counts per comparison what the rights count per repetition
        assert rights.loc[method, "top-heavy right"] * REPETITIONS == pytest.approx(table4.loc[top_heavy, method].sum())
        assert rights.loc[method, "AUC right"] * REPETITIONS == pytest.approx(table4.loc[~top_heavy, method].sum())
    assert rights.loc["sampled", "difference from uncorrected"] == 0 and rights.loc["sampled", "p"] == 1
    bv = sv.rights_per_repetition(study, "BV 0.1", sv.TOP_HEAVY)
    baseline = sv.rights_per_repetition(study, "sampled", sv.TOP_HEAVY)
    expected_p = 1.0 if np.array_equal(bv, baseline) else stats.ttest_rel(bv, baseline).pvalue
    assert rights.loc["BV 0.1", "p"] == pytest.approx(expected_p)


def test_m_sweep_starts_where_every_cutoff_metric_is_constant(study) -> None:
    sweep = sw.m_sweep(study, max_m=20)
    assert sweep.uncorrected_m[0] == 1
    np.testing.assert_allclose(sweep.uncorrected[0], 1.0)  # one sampled item: Recall@10 is always a hit
    assert sweep.corrected_m.max() <= 20 and sweep.largest_m == study.sizes.min() - 1
    # more sampled items can only push the held-out item down: expected sampled recall falls with m
    assert np.all(np.diff(sweep.uncorrected, axis=0) <= 1e-12)
    assert sweep.uncorrected[-1].min() < 1
    assert sweep.uncorrected_m.max() == sweep.largest_m  # the pools are smaller than the grid's cap
    for a, b in sv.PAIRS:
        uncorrected, _ = sw.consistent_from(study, sweep, a, b)
        assert uncorrected is None or uncorrected in sweep.uncorrected_m


def test_pool_sizes_of_1r_runs_match_the_exact_pools(ratings) -> None:
    fold = make_folds(ratings, folds=1, test_ratio=0.2, seed=2)[0]
    model = make("popularity").fit(fold.train)
    threshold = ratings.positive_threshold
    for candidates in (np.ones(ratings.n_items, bool), fold.test.item_counts() > 0):
        runs = build_runs(fold.train, fold.test, "1R TI-NN(5)" if not candidates.all() else "1R AI-NN(5)", seed=0,
                          threshold=threshold, on_shortage="exclude")
        exact = pool_ranks(model, fold.train, fold.test, candidates=candidates, threshold=threshold,
                           exclude_other_targets=True)
        rows = sb.rows_of(exact, runs, ratings.n_items)
        np.testing.assert_array_equal(sampled.one_relevant_pool_sizes(fold.train, fold.test, runs, candidates, threshold),
                                      exact.sizes[rows])


def test_bridge_on_the_small_world(ratings) -> None:
    bridge = sb.bridge_study(ratings, seed=1)
    assert bridge.formed
    assert bridge.names == tuple(sb.PAPERS_SET) and set(PAPERS_PERSONALISED) < set(bridge.names)
    for name, value in bridge.values["sampled"].items():
        assert 0 <= value <= 0.1  # one relevant item among 101: P@10 is at most 1/10
        assert bridge.values["AI-AN"][name] <= 0.1
    # the exact precision of a run is 1/10 when the relevant item is in the top 10 of its pool, else 0
    assert set(np.unique(bridge.per_run["TI-AN"])) <= {0.0, 0.1}
    assert (bridge.sizes >= sb.BRIDGE_SIZE + 1).all()
    assert 0 <= bridge.truth_share <= 1
    counts = sb.pair_counts(bridge).set_index("estimator")
    assert list(counts.index) == list(sb.BRIDGE_METHODS)
    assert (counts[["kept", "reversed", "within noise"]].sum(axis=1) == 10).all()  # 10 pairs of 5 systems


KEPT, REVERSED, WITHIN_NOISE = (True, False), (False, True), (False, False)


@pytest.mark.parametrize("exact, estimate, outcome", [
    ((0.02, 0.001), (0.05, 0.049), KEPT),
    ((-0.02, 0.001), (-0.05, 0.001), KEPT),
    ((0.02, 0.001), (-0.05, 0.049), REVERSED),
    ((0.02, 0.0), (-0.05, 0.001), REVERSED),  # an exact difference known without noise
    ((0.02, 0.001), (-0.05, 0.05), WITHIN_NOISE),  # the level itself is not beyond noise
    ((0.02, 0.05), (-0.05, 0.001), WITHIN_NOISE),  # nor is an exact difference within noise
    ((0.0, 0.001), (0.05, 0.001), WITHIN_NOISE),
    ((0.02, 0.001), (0.0, 0.001), WITHIN_NOISE),
])
def test_a_pair_is_decided_only_when_both_differences_are_beyond_noise(exact, estimate, outcome) -> None:
    kept, reversed_ = sv.decided(np.array([exact[0]]), np.array([exact[1]]), np.array([estimate[0]]),
                                    np.array([estimate[1]]))
    assert (bool(kept[0]), bool(reversed_[0])) == outcome


def test_decided_reads_the_books_level_by_default_and_a_lower_one_when_given() -> None:
    args = np.array([0.02, 0.02]), np.array([0.001, 0.001]), np.array([0.05, -0.05]), np.array([0.03, 0.03])
    assert [k.tolist() for k in sv.decided(*args)] == [[True, False], [False, True]]
    assert [k.tolist() for k in sv.decided(*args, level=0.05 / 9)] == [[False, False], [False, False]]


def test_user_values_are_each_users_exact_metric_and_sampled_expectation(study) -> None:
    exact = sv.user_values(study, "exact", "Recall@10")
    np.testing.assert_array_equal(exact, (study.ranks <= 10).astype(float))
    # the expected uncorrected sampled Recall@10 is the hypergeometric CDF of the count above the held-out item
    expected = sv.user_values(study, "sampled", "Recall@10")
    for k in range(3):
        np.testing.assert_allclose(expected[:, k], stats.hypergeom.cdf(9, study.sizes - 1, study.ranks[:, k] - 1,
                                                                       study.m), atol=1e-12)


def test_reversal_tests_are_paired_t_tests_over_users_at_a_bonferroni_level(study) -> None:
    tests = sv.reversal_tests(study).set_index(["pair", "metric"])
    assert len(tests) == 9 and set(tests.index.get_level_values("metric")) == set(sv.TOP_HEAVY)
    exact, expected = (sv.user_values(study, method, "AP") for method in ("exact", "sampled"))
    row = tests.loc[("X vs Z", "AP")]
    assert row["exact difference"] == pytest.approx(exact[:, 0].mean() - exact[:, 2].mean())
    assert row["exact p"] == pytest.approx(stats.ttest_rel(exact[:, 0], exact[:, 2]).pvalue)
    assert row["expected p"] == pytest.approx(stats.ttest_rel(expected[:, 0], expected[:, 2]).pvalue)
    kept, reversed_ = sv.decided(tests["exact difference"], tests["exact p"], tests["expected difference"],
                                    tests["expected p"], LEVEL / 9)
    assert tests["kept"].tolist() == kept.tolist() and tests["reversed"].tolist() == reversed_.tolist()
    assert not (tests["kept"] & tests["reversed"]).any()


def _repetitions_study(estimates: dict, exact: dict) -> SimpleNamespace:
    return SimpleNamespace(estimates=estimates, exact=exact, repetitions=len(next(iter(estimates.values()))),
                           names=("X", "Y", "Z"))


def test_rights_per_repetition_count_strict_agreements_and_skip_exact_ties() -> None:
    # exact AP: X 0.3 > Y 0.2, Z ties with Y (that pair is left out); two repetitions
    estimates = {("sampled", "AP"): np.array([[0.5, 0.6, 0.1], [0.5, 0.4, 0.4]])}
    study = _repetitions_study(estimates, {"AP": np.array([0.3, 0.2, 0.2])})
    # repetition 1: X < Y (wrong), X > Z (right); repetition 2: X > Y (right), X > Z (right)
    np.testing.assert_array_equal(sv.rights_per_repetition(study, "sampled", ("AP",)), [1, 2])
    assert sv.comparisons(study, ("AP",)) == 2


def test_the_auc_order_is_kept_only_beyond_the_noise_of_the_repetitions() -> None:
    rng = np.random.default_rng(0)
    clear = np.column_stack([0.80 + rng.normal(0, 0.01, 50), 0.70 + rng.normal(0, 0.01, 50), np.full(50, 0.60)])
    study = _repetitions_study({("sampled", "AUC"): clear}, {"AUC": np.array([0.8, 0.7, 0.6])})
    tests = sv.auc_order_tests(study)
    assert tests["kept"].tolist() == [True] * 3 and not tests["reversed"].any()
    # Y and Z swapped in the sampled means by far more than their noise: a reversal
    swapped = clear[:, [0, 2, 1]]
    tests = sv.auc_order_tests(_repetitions_study({("sampled", "AUC"): swapped}, {"AUC": np.array([0.8, 0.7, 0.6])}))
    assert tests["kept"].tolist() == [True, True, False] and tests["reversed"].tolist() == [False, False, True]
    # Y and Z equal on average, with noise: within it
    close = clear.copy()
    close[:, 2] = close[:, 1] + rng.normal(0, 0.01, 50)
    close[:, 2] -= close[:, 2].mean() - close[:, 1].mean() - 1e-4
    tests = sv.auc_order_tests(_repetitions_study({("sampled", "AUC"): close}, {"AUC": np.array([0.8, 0.7, 0.6])}))
    assert not tests["kept"].iloc[2] and not tests["reversed"].iloc[2]


def test_one_sample_z_places_the_real_sample_among_the_repetitions(study) -> None:
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    machine = ("cpu", 2, "1")
    at_mean = sc.Cost(0.1, 0.05, 0.2, 10, 100, 50, float(simulated.mean()), machine)
    one_sd_up = sc.Cost(0.1, 0.05, 0.2, 10, 100, 50, float(simulated.mean() + simulated.std(ddof=1)), machine)
    assert sc.one_sample_z(study, at_mean) == pytest.approx(0, abs=1e-12)
    assert sc.one_sample_z(study, one_sd_up) == pytest.approx(1)


def test_best_of_three_returns_the_shortest_time_and_the_last_result() -> None:
    calls = iter(range(3))
    seconds, result = sc.best_of_three(lambda: next(calls))
    assert result == 2 and seconds >= 0


def test_the_machine_names_its_processor_cores_and_blas_threads(monkeypatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert sc.machine()[1:] == (os.cpu_count(), "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    assert sc.machine()[2] == "unset" and sc.machine()[0]

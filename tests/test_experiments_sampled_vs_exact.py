"""Chapter 6's drivers: the toy example against the paper, the real-data study against theory, the bridge's
pools, the chapter-8 call against the exact expectation, and the sentences at their edge values."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from recbias import datasets, sampled
from recbias.designs import build_runs
from recbias.evaluate import pool_ranks
from recbias.experiments import sampled_bridge as sb
from recbias.experiments import sampled_claims as claims
from recbias.experiments import sampled_cost as sc
from recbias.experiments import sampled_published as sp
from recbias.experiments import sampled_sweep as sw
from recbias.experiments import sampled_toy as st
from recbias.experiments import sampled_vs_exact as sv
from recbias.splits import make_folds
from recbias.recommenders import make

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


def test_published_numbers_are_read_from_the_data_file() -> None:
    table = sp.published()
    assert table["key"].is_unique
    assert table.groupby("table").size().to_dict() == {1: 12, 2: 24, 3: 156, 4: 63}
    assert set(table["metric"]) == {"AUC", "AP", "nDCG", "Recall@10", "nDCG@10"}
    assert all(sampled.rank_metric(metric) for metric in table["metric"].unique())  # names of the grammar


def test_the_toy_example_reproduces_tables_1_and_2(toy, study) -> None:
    toy_claims = [c for c in claims.published_numbers(toy, study, sv.table4(study), "synthetic-small")
                  if c["dataset"] == "toy"]
    assert len(toy_claims) == 36
    for claim in toy_claims:
        assert abs(claim["ours"] - claim["paper"]) <= claim["tolerance"], claim["key"]
    shown = st.table1(toy)
    np.testing.assert_allclose(shown[("AP", "ours")], shown[("AP", "paper")], atol=5e-4)


def test_toy_simulation_agrees_with_its_exact_moments(toy) -> None:
    for key, draws in toy.simulated.items():
        moments = toy.expected[key]
        assert abs(draws.mean() - moments.average) <= 4 * moments.average_std / np.sqrt(len(draws)) + 1e-12, key


def test_the_m1_table_finds_every_metric_affine_in_auc() -> None:
    table = st.m1_table().set_index("metric")
    assert table["largest residual"].max() < 1e-12
    assert table.loc["Recall@10", "order"] == "A = B = C"
    assert table.loc["AP", "order"] == table.loc["AUC", "order"] == "A > C > B"


def test_toy_z_numbers_follow_the_sign_of_the_offsets() -> None:
    z = st.toy_z_table()
    numbers = st.toy_z_numbers(z)
    assert numbers["toy_z_side"] == "below"  # the paper's AP and nDCG of A and B are all below our expectation
    assert float(numbers["toy_z_low"]) <= float(numbers["toy_z_high"])
    assert ("C", "Recall@10") in z.index and ("A", "Recall@10") not in z.index  # sd 0: no z-score


def test_the_study_holds_exact_metrics_of_its_exact_ranks(study) -> None:
    assert study.names == ("X", "Y", "Z") and study.labels["X"] == "X (iALS)"
    np.testing.assert_allclose(study.exact["Recall@10"], (study.ranks <= 10).mean(axis=0))
    np.testing.assert_allclose(study.exact["AUC"], ((study.sizes[:, None] - study.ranks) / (study.sizes[:, None] - 1)).mean(axis=0))
    assert study.m == 20 and study.keep.all()
    assert study.estimates[("sampled", "AP")].shape == (REPETITIONS, 3)


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
    vector = sampled.metric_vector("AUC", study.m + 1)
    for k in range(3):
        expected = sampled.estimator_moments(vector, study.ranks[:, k], study.sizes, study.replace).average
        assert expected == pytest.approx(study.exact["AUC"][k], abs=1e-12)


def test_the_study_is_deterministic(ratings, study) -> None:
    again = sv.sampled_study(ratings, seed=1, m=20, repetitions=REPETITIONS)
    np.testing.assert_array_equal(again.estimates[("BV 0.1", "nDCG@10")], study.estimates[("BV 0.1", "nDCG@10")])


def test_m_shrinks_to_the_smallest_pool_without_replacement(ratings) -> None:
    small = sv.sampled_study(ratings, seed=1, m=100_000, repetitions=2)
    assert small.m == small.pool.sizes.min() - 1 and small.m_requested == 100_000
    assert "smallest pool" in sv.study_numbers(small)["m_note"]
    with pytest.raises(ValueError, match="repetitions"):
        sv.sampled_study(ratings, repetitions=1)


def test_table4_counts_the_repetitions_that_order_each_pair_right(study) -> None:
    table = sv.table4(study)
    row = table[(table["pair"] == "X vs Z") & (table["metric"] == "AP")].iloc[0]
    values, exact = study.estimates[("CLS", "AP")], study.exact["AP"]
    assert row["CLS"] == np.sum(np.sign(values[:, 0] - values[:, 2]) == np.sign(exact[0] - exact[2]))
    assert table[list(sv.METHODS)].stack().between(0, REPETITIONS).all()


def test_m_sweep_starts_where_every_cutoff_metric_is_constant(study) -> None:
    sweep = sw.m_sweep(study, max_m=20)
    assert sweep.uncorrected_m[0] == 1
    np.testing.assert_allclose(sweep.uncorrected[0], 1.0)  # one sampled item: Recall@10 is always a hit
    assert sweep.corrected_m.max() <= 20 and sweep.largest_m == study.sizes.min() - 1
    # more sampled items can only push the held-out item down: expected sampled recall falls with m
    assert np.all(np.diff(sweep.uncorrected, axis=0) <= 1e-12)
    assert sweep.uncorrected[-1].min() < 1


def test_pool_sizes_of_1r_runs_match_the_exact_pools(ratings) -> None:
    fold = make_folds(ratings, folds=1, test_ratio=0.2, seed=2)[0]
    model = make("popularity").fit(fold.train)
    threshold = ratings.positive_threshold
    for candidates in (np.ones(ratings.n_items, bool), fold.test.item_counts() > 0):
        runs = build_runs(fold.train, fold.test, "1R TI-NN(5)" if not candidates.all() else "1R AI-NN(5)", seed=0,
                             threshold=threshold, on_shortage="exclude")
        exact = pool_ranks(model, fold.train, fold.test, candidates=candidates, threshold=threshold,
                           exclude_other_targets=True)
        rows = sb._rows_of(exact, runs, ratings.n_items)
        np.testing.assert_array_equal(sampled.one_relevant_pool_sizes(fold.train, fold.test, runs, candidates, threshold),
                                      exact.sizes[rows])


def test_bridge_on_the_small_world(ratings) -> None:
    bridge = sb.bridge_study(ratings, seed=1)
    assert bridge.formed
    assert set(bridge.values["TI-AN"]) == {"Popularity", "pLSA", "MF", "user-kNN", "Random"}
    for name, value in bridge.values["sampled"].items():
        assert 0 <= value <= 0.1  # one relevant item among 101: P@10 is at most 1/10
        assert bridge.values["AI-AN"][name] <= 0.1
    assert (bridge.sizes >= sb.BRIDGE_SIZE + 1).all()
    assert 0 <= bridge.truth_share <= 1
    assert "left out" not in sb.bridge_text(bridge) or bridge.runs.report.shortage_runs > 0
    orders = sb.bridge_orders(bridge)
    assert orders.loc[0, "estimate"] == "exact 1R TI-AN" and set(orders["same as exact"][1:]) <= {"yes", "no"}


def _table4_like(worst_sampled: int, auc: int) -> pd.DataFrame:
    rows = [{"pair": "X vs Y", "metric": "AP", **dict.fromkeys(sv.METHODS, 70.0), "sampled": float(worst_sampled)},
            {"pair": "X vs Y", "metric": "AUC", **dict.fromkeys(sv.METHODS, float(auc))}]
    return pd.DataFrame(rows)


def test_table4_text_reads_right_at_the_edges() -> None:
    reps = SimpleNamespace(repetitions=100)
    none = sv.table4_text(reps, _table4_like(0, 100))
    assert "in none of the 100 repetitions" in none and "in all 100 repetitions" in none
    some = sv.table4_text(reps, _table4_like(1, 97))
    assert "in 1 of the 100" in some and "at least 97 of 100" in some and " 0 of" not in some
    assert "can only lose" in sv.table4_text(reps, _table4_like(100, 100))


def test_numbers_never_show_a_signed_zero_or_a_count_of_zero(study) -> None:
    numbers = sv.auc_numbers(study)
    assert not numbers["auc_gap_z"].startswith(("-0.0", "+0.0"))
    assert sv.study_numbers(study)["dropped_note"] == ""
    assert sw.sweep_note(pd.DataFrame({"a": [1], "b": [2], "c": [3], "d": [4]})) == ""
    assert "dash" in sw.sweep_note(pd.DataFrame({"a": [1], "b": [2], "c": [None], "d": [4]}))


def test_findings_name_the_tables_that_show_them(study) -> None:
    cost = sc.Cost(0.1, 0.05, 0.2, 10, 100, 50, float(study.estimates[("sampled", "Recall@10")][:, 0].mean()), "cpu")
    found = claims.findings(study, cost)
    assert {c["key"] for c in found} == {"sampled-reverses-order", "correction-helps", "sampled-auc-keeps-order",
                                          "sampled-auc-unbiased", "one-sample-matches-simulation"}
    assert all(c["anchor"].startswith("tbl-sm-") for c in found)
    assert next(c for c in found if c["key"] == "one-sample-matches-simulation")["holds"]
    # sampled AUC is judged on its exact expectation, which is unbiased whatever the simulated repetitions say
    assert next(c for c in found if c["key"] == "sampled-auc-unbiased")["holds"]


def test_systems_table_reads_the_presets() -> None:
    table = sv.systems_table().set_index("system")
    assert table.loc["X", "settings"] == "16 factors, λ = 10, α = 0.2"
    assert table.loc["Z", "settings"] == "q = 1, 10 neighbours per item"


def test_cost_text_says_which_evaluation_was_faster(study) -> None:
    def cost(exact: float, sampled_seconds: float) -> sc.Cost:
        return sc.Cost(exact, sampled_seconds, 0.2, 10, 2_000_000, 50_000, 0.5, "cpu")

    assert "sampling was 4.0 times faster" in sc.cost_text(study, cost(0.4, 0.1))
    assert "exact evaluation was 2.0 times faster than sampling, although" in sc.cost_text(study, cost(0.1, 0.2))
    assert "about as long" in sc.cost_text(study, cost(0.1, 0.1))
    assert "2,000,000 candidates against sampling's 50,000" in sc.cost_text(study, cost(0.1, 0.1))


def test_the_toy_corrections_read_as_the_page_says() -> None:
    """Chapter 6's prose on the corrected toy table: rank estimate and CLS keep A first, BV 0.1 separates
    nothing beyond one standard deviation, BV 0.01 puts C first, gives A a negative Recall@10 and
    standard deviations larger than its gaps."""
    corrections = st.toy_corrections()
    for metric in ("AP", "Recall@10"):
        moments = {method: {name: sampled.estimator_moments(corrections.vector(method, metric), ranks, st.TOY_N, True)
                            for name, ranks in st.TOY_RANKS.items()}
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


def test_the_published_auc_gap_of_z_comes_from_table_3() -> None:
    assert sp.published_auc_gap("Z") == "0.31"  # 75.04 sampled against 74.73 exact
    with pytest.raises(KeyError, match="0 published values"):
        sp.published_auc_gap("W")

"""Chapter 6's tables and the numbers its prose quotes: values against the paper's data, the study's frames and
hand-made inputs."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c06_sampled_metrics import claims
from recbias.chapters.c06_sampled_metrics import report as r
from recbias.chapters.c06_sampled_metrics.study import cost as sc
from recbias.chapters.c06_sampled_metrics.study import real_data as sv
from recbias.chapters.c06_sampled_metrics.study import sweep as sw
from recbias.chapters.c06_sampled_metrics.study import toy as st
from recbias.chapters.c06_sampled_metrics.study.bridge import Bridge
from recbias.text import order_text


@pytest.fixture(scope="module")
def study() -> sv.SampledStudy:
    return sv.sampled_study(datasets.load("synthetic-small", seed=1), seed=1, m=20, repetitions=40)


# ---------------------------------------------------------------- the toy example


def test_table1_sets_our_exact_metrics_next_to_the_papers() -> None:
    shown = r.table1(st.toy_study(20, seed=3))
    np.testing.assert_allclose(shown[("AP", "ours")], shown[("AP", "paper")], atol=5e-4)
    assert list(shown[("AUC", "paper")]) == [0.99, 0.555, 0.843]  # Table 1 of the paper


def test_table2_shows_simulated_expected_and_published_values() -> None:
    table = r.table2(st.toy_study(20, seed=3)).set_index(["recommender", "metric"])
    assert table.loc[("A", "Recall@10"), "published"] == "1.000 ± 0.000"
    assert table.loc[("C", "AP"), "published"] == "0.325 ± 0.050"
    assert table.loc[("A", "AUC"), "exact (Table 1)"] == "0.990"
    assert len(table) == 12


def test_toy_z_numbers_follow_the_sign_of_the_offsets() -> None:
    z = r.toy_z_table()
    numbers = r.toy_z_numbers(z)
    # the page says the paper's AP and nDCG of A and B all sit below our expectation
    assert (z.loc[(["A", "B"], ["AP", "nDCG"]), ("m = 99", "with repl.")] < 0).all()
    assert float(numbers["toy_z_low"]) <= float(numbers["toy_z_high"])
    assert ("C", "Recall@10") in z.index and ("A", "Recall@10") not in z.index  # sd 0: no z-score
    # A's published AUC mean 0.99 against the expectation 0.990099 (AUC is unbiased), sd 0.004 over 1,000 draws
    assert z.loc[("A", "AUC"), ("m = 99", "with repl.")] == pytest.approx((0.99 - 100 / 101) / (0.004 / np.sqrt(1000)))


def test_toy_z_numbers_give_the_smallest_and_largest_offset_and_the_best_reading() -> None:
    index = pd.MultiIndex.from_product([["A", "B"], ["AP", "nDCG"]], names=["recommender", "metric"])
    columns = pd.MultiIndex.from_tuples([("m = 99", "with repl."), ("m = 100", "without")])
    z = pd.DataFrame({columns[0]: [-1.5, -2.0, -2.5, -3.0], columns[1]: [0.2, -0.7, 0.1, 0.0]}, index=index)
    assert r.toy_z_numbers(z) == {"toy_z_low": "1.5", "toy_z_high": "3.0", "toy_best_z": "0.7"}


def test_the_m1_table_orders_the_toy_recommenders() -> None:
    fits = st.m1_fits()
    table = r.m1_table(fits).set_index("metric")
    assert table.loc["Recall@10", "order"] == "A = B = C"
    assert table.loc["AP", "order"] == table.loc["AUC", "order"] == "A > C > B"


def test_bias_variance_table_names_the_minimal_bias_vector() -> None:
    table = pd.DataFrame({"estimator": ["sampled", "BV 0"], "RMS bias": [0.3, 1e-4],
                          "RMS sd (one instance)": [0.05, 123.0], "RMS error": [0.3, 123.0],
                          "largest |entry|": [1.0, 4.56e3]})
    assert list(r.bias_variance_table(table)["estimator"]) == ["sampled", r.MINIMAL_BIAS]


def test_toy_corrected_table_has_a_row_per_metric_and_recommender() -> None:
    toy = st.toy_study(20, seed=3)
    tables = {(method, metric): np.ones((1, st.FIG4_M + 1)) for method in st.FIG4_METHODS for metric in ("AP", "Recall@10")}
    corrections = st.ToyCorrections(tables, {})
    table = r.toy_corrected_table(toy, corrections, methods=("sampled", "CLS"))
    assert list(table.columns) == ["exact", "sampled", "CLS"] and len(table) == 6
    # a vector of ones has expectation 1 and no variance, whatever the ranks
    assert table.loc[("AP", "B"), "CLS"] == "1.000<br><small>± 0.000</small>"


# ---------------------------------------------------------------- the real-data study


def test_systems_table_reads_the_presets() -> None:
    table = r.systems_table().set_index("system")
    assert table.loc["X", "settings"] == "16 factors, λ = 10, α = 0.2"
    assert set(table["set"]) == {r.KR_SET}
    assert table.loc["Z", "settings"] == "q = 1, 10 neighbours per item"


def _fake_study(*, keep, m=100, m_requested=100, replace=False) -> SimpleNamespace:
    sizes = np.array([150, 200, 250, 300])
    return SimpleNamespace(sizes=sizes[np.asarray(keep)], keep=np.asarray(keep), dataset="synthetic",
                           split=sv.LEAVE_LAST_OUT, m=m, m_requested=m_requested, replace=replace, repetitions=100,
                           n_tolerance=0.05, bin_sizes=np.array([200]), correction_seconds=1.5)


def test_study_numbers_count_the_users_pools_and_groups(monkeypatch) -> None:
    monkeypatch.setattr(r, "grouping_error", lambda study: (0.0001234, 4))
    full = r.study_numbers(_fake_study(keep=[True] * 4))
    assert (full["dataset_name"], full["split"], full["n_dropped"]) == ("synthetic", "leave-last-out", "0")
    assert (full["n_targets"], full["n_min"], full["n_max"], full["n_median"]) == ("4", "150", "300", "225")
    assert full["n_bins"] == "1 group" and full["n_tolerance"] == "5%" and full["n_over_m"] == "2"
    assert full["grouping_error"] == "0.012" and full["n_distinct"] == "4"  # percentage points
    one_out = r.study_numbers(_fake_study(keep=[False, True, True, True]))
    assert one_out["n_dropped"] == "1" and one_out["n_targets"] == "3" and one_out["n_min"] == "200"
    shrunk = r.study_numbers(_fake_study(keep=[True] * 4, m=149, m_requested=100_000))
    assert (shrunk["m_used"], shrunk["m_requested"]) == ("149", "100000")


def test_grouping_error_of_a_study(study) -> None:
    error, distinct = sv.grouping_error(study)
    assert error >= 0 and distinct == len(np.unique(study.sizes))


def test_table3_shows_percent_means_and_sds(study) -> None:
    ours = r.table3(claims.table3_values(study))
    values = 100 * study.estimates[("CLS", "AP")][:, 1]
    assert ours.loc[("AP", "Y"), "CLS"] == f"{values.mean():.2f}<br><small>± {values.std(ddof=1):.2f}</small>"
    assert "BV 0.001" not in ours.columns  # the paper's Table 3 has no BV 0.001
    paper = r.table3(claims.paper())
    assert paper.loc[("Recall@10", "X"), "exact"] == "7.60"
    assert paper.loc[("AUC", "Z"), "sampled"] == "75.04<br><small>± 0.23</small>"


def test_orders_table_reads_the_papers_reversal(study) -> None:
    orders = r.orders_table(claims.table3_values(study))
    # ML-1M, Table 3: exact Recall@10 9.42 (Z) > 8.84 (Y) > 7.6 (X); sampled 66.19 (X) > 56.51 (Y) > 54.2 (Z)
    assert orders.loc[("paper (ML-1M)", "Recall@10"), "exact"] == "Z > Y > X"
    assert orders.loc[("paper (ML-1M)", "Recall@10"), "sampled"] == "X > Y > Z"
    assert set(orders.loc["ours"].index) == set(sv.METRICS)
    means = study.estimates[("sampled", "AP")].mean(axis=0)
    assert orders.loc[("ours", "AP"), "sampled"] == order_text(dict(zip(study.names, means)))


def test_reversal_table_shows_percentage_points_and_p_values(study) -> None:
    table = r.reversal_table(study).set_index(["pair", "metric"])
    tests = sv.reversal_tests(study).set_index(["pair", "metric"])
    row, raw = table.loc[("X vs Y", "AP")], tests.loc[("X vs Y", "AP")]
    assert row["exact difference (pp)"] == f"{100 * raw['exact difference']:+.2f}"
    assert len(table) == 9
    same = np.sign(tests["exact difference"]) == np.sign(tests["expected difference"])
    signs = same.map({True: "yes", False: "no"})
    assert table["signs agree"].tolist() == signs.tolist()
    beyond = table["both beyond noise"] == "yes"
    assert beyond.tolist() == (tests["kept"] | tests["reversed"]).tolist()
    # kept where both say yes, reversed where the signs disagree and both are beyond noise
    assert (beyond & (table["signs agree"] == "yes")).tolist() == tests["kept"].tolist()


def test_the_reversal_table_reads_a_reversal_from_hand_made_tests(monkeypatch) -> None:
    tests = pd.DataFrame({"pair": ["X vs Y", "X vs Z"], "metric": "AP", "exact difference": [0.01, 0.01],
                          "exact p": 0.001, "expected difference": [0.02, -0.02], "expected p": [0.001, 0.3],
                          "kept": [True, False], "reversed": [False, False]})
    monkeypatch.setattr(r, "reversal_tests", lambda study: tests)
    table = r.reversal_table(None)
    assert table["signs agree"].tolist() == ["yes", "no"] and table["both beyond noise"].tolist() == ["yes", "no"]
    assert table["exact difference (pp)"].tolist() == ["+1.00", "+1.00"] and table["p (sampled)"][1] == "0.300"


def test_rights_table_leaves_the_uncorrected_rows_comparison_empty(study) -> None:
    table = r.rights_table(study).set_index("estimator")
    assert table.loc["sampled", "minus uncorrected"] == "" and table.loc["sampled", "p (paired over repetitions)"] == ""
    top = sv.comparisons(study, sv.TOP_HEAVY)
    rights = sv.repetition_rights(study).set_index("estimator")
    assert table.loc["CLS", f"top-heavy right (of {top})"] == f"{rights.loc['CLS', 'top-heavy right']:.2f}"
    assert table.loc["BV 0.1", "minus uncorrected"].startswith(("+", "-"))


def test_auc_numbers_never_show_a_signed_zero(study) -> None:
    numbers = r.auc_numbers(study)
    assert not numbers["auc_gap_z"].startswith(("-0.0", "+0.0"))
    assert numbers["auc_gap_name"] in study.names
    assert numbers["auc_expected_gap"] == "0" or float(numbers["auc_expected_gap"]) < 1e-8
    assert numbers["paper_auc_gap"] == "0.31"  # Z's 75.04 sampled against 74.73 exact in the paper's Table 3


def test_paper_table4_leaves_the_cells_the_text_does_not_give_empty() -> None:
    table = r.paper_table4().set_index(["pair", "metric"])
    assert table.loc[("X vs Y", "Recall@10"), "sampled"] == 0 and table.loc[("X vs Y", "AP"), "BV 0.1"] == 68
    assert table.loc[("Y vs Z", "nDCG@10")].isna().all() and table.loc[("Y vs Z", "Recall@10")].notna().all()


def _table4_like(worst_sampled: int, auc: int) -> pd.DataFrame:
    rows = [{"pair": "X vs Y", "metric": "AP", **dict.fromkeys(sv.METHODS, 70.0), "sampled": float(worst_sampled)},
            {"pair": "X vs Y", "metric": "AUC", **dict.fromkeys(sv.METHODS, float(auc))}]
    return pd.DataFrame(rows)


def test_table4_numbers_give_each_estimators_lowest_count_and_the_best_worst_case() -> None:
    numbers = r.table4_numbers(_table4_like(1, 97))
    assert numbers["t4_lowest"].startswith("1 (sampled), 70 (rank estimate), 70 (CLS)")
    assert numbers["t4_best"] == "rank estimate"  # ties in the worst case go to the first estimator
    assert numbers["t4_auc_lowest"] == "97"
    table = _table4_like(0, 100)
    table.loc[0, "BV 0.1"] = 80.0
    assert r.table4_numbers(table)["t4_best"] == "BV 0.1"


def test_consistency_table_and_the_sweep_numbers(study) -> None:
    sweep = sw.m_sweep(study, max_m=20)
    table = r.consistency_table(study, sweep)
    assert list(table["pair"]) == ["X vs Y", "X vs Z", "Y vs Z"]
    for (a, b), row in zip(sv.PAIRS, table.itertuples(index=False), strict=True):
        expected = sw.consistent_from(study, sweep, a, b)  # None (never consistent) is shown as missing
        assert [None if pd.isna(value) else value for value in (row[2], row[3])] == list(expected)
    numbers = r.sweep_numbers(sweep)
    assert numbers["largest_m"] == f"{int(sweep.uncorrected_m.max()):,}" == numbers["largest_allowed"]
    assert numbers["fig6_max_m"] == "20" and numbers["fig6_tolerance"] == "10%" and numbers["grid_cap"] == "20,000"


# ---------------------------------------------------------------- the bridge


#: the systems of the hand-made bridges: the papers' set
PAPERS = ("Random", "Popularity", "pLSA", "rating-MF", "rating-kNN")


def _bridge(*, shortage: int = 0, truth: float = np.nan, n_runs: int = 250, exact=(0.0, 0.01, 0.02, 0.01, 0.01),
            uncorrected=(0.01, 0.038, 0.048, 0.024, 0.027)) -> Bridge:
    """A bridge whose every run of a system has the same P@10 (the values given, in the order of ``PAPERS``)."""
    values = {"sampled": uncorrected, "rank estimate": (0.0, 0.03, 0.02, 0.01, 0.01), "CLS": exact, "BV 0.1": exact,
              "BV 0.01": exact, "TI-AN": exact, "AI-AN": (0.0, 0.005, 0.01, 0.005, 0.005)}
    per_run = {method: np.tile(np.array(row, dtype=float), (4, 1)) for method, row in values.items()}
    sds = {method: dict.fromkeys(PAPERS, 0.001) for method in values if method not in ("TI-AN", "AI-AN")}
    runs = SimpleNamespace(n_runs=n_runs, report=SimpleNamespace(shortage_runs=shortage), users=np.array([0, 1, 2, 3]))
    return Bridge(runs, np.array([150, 420]), PAPERS, per_run, sds, truth, 0.08)


def test_bridge_numbers_count_the_runs_and_pools() -> None:
    numbers = r.bridge_numbers(_bridge(shortage=1))
    assert (numbers["bridge_runs"], numbers["bridge_short"]) == ("250", "1")
    assert (numbers["bridge_pool_min"], numbers["bridge_pool_max"]) == ("150", "420")
    empty = _bridge(n_runs=0)
    assert r.bridge_numbers(empty)["bridge_runs"] == "0" and r.bridge_numbers(empty)["bridge_ratio_span"] == "—"
    assert list(r.bridge_table(empty).iloc[:, 0]) == ["no user has 100 non-relevant candidates on this dataset"]


def test_the_ratio_spans_the_personalised_systems_and_gives_popularity_apart() -> None:
    # pLSA 0.048 / 0.02, rating-MF 0.024 / 0.01, rating-kNN 0.027 / 0.01; Popularity 0.038 / 0.01 lies outside
    numbers = r.bridge_numbers(_bridge())
    assert (numbers["bridge_ratio_span"], numbers["bridge_ratio_popularity"]) == ("2.4 to 2.7", "3.8")
    assert r.bridge_numbers(_bridge(uncorrected=(0.01, 0.038, 0.05, 0.025, 0.025)))["bridge_ratio_span"] == "2.5"
    # a system with no exact precision has no ratio: left out of the span, a dash in the table
    zero = _bridge(exact=(0.0, 0.01, 0.02, 0.0, 0.01))
    assert r.bridge_numbers(zero)["bridge_ratio_span"] == "2.4 to 2.7"
    assert r.bridge_table(zero).loc[r.RATIO].tolist() == ["n/a", "3.8", "2.4", "n/a", "2.7"]
    assert r.bridge_numbers(_bridge(exact=(0.0,) * 5))["bridge_ratio_popularity"] == "—"


def test_the_truth_shares_are_measured_only_in_a_simulated_world() -> None:
    real = r.bridge_numbers(_bridge())
    assert (real["truth_share"], real["pool_share"]) == ("unknown", "8.0%")
    assert r.bridge_numbers(_bridge(truth=0.123))["truth_share"] == "12.3%"


def test_bridge_tables_show_each_estimate_and_the_pairs_it_orders_beyond_noise() -> None:
    bridge = _bridge()
    orders = r.bridge_orders(bridge).set_index("estimate")
    assert orders.loc[r.EXACT, "order of the means"] == "pLSA > Popularity = rating-MF = rating-kNN > Random"
    # constant runs: every non-zero difference is beyond noise, a tie is within it; exact has 7 unequal pairs of 10
    assert orders.loc["CLS", ["pairs ordered as exact", "pairs reversed", "pairs within noise"]].tolist() == [7, 0, 3]
    # the rank estimate (0, 0.03, 0.02, 0.01, 0.01) puts Popularity above pLSA: one pair reversed
    assert orders.loc["rank estimate", "pairs reversed"] == 1
    table = r.bridge_table(bridge)
    assert list(table.columns) == list(PAPERS)
    assert table.loc[r.UNCORRECTED, "pLSA"] == "0.0480<br><small>± 0.0010</small>"
    assert table.loc["1R AI-AN", "Popularity"] == "0.0050"


# ---------------------------------------------------------------- the cost


def _cost(exact: float, sampled_seconds: float) -> sc.Cost:
    return sc.Cost(exact, sampled_seconds, 0.2, 10, 2_000_000, 50_000, 0.5, ("cpu", 2, "1"))


def test_cost_table_and_numbers() -> None:
    study = _fake_study(keep=[True] * 4)
    table = r.cost_table(study, _cost(0.4, 0.1))
    assert table["seconds"].tolist() == [0.4, 0.1, 1.5, 0.2]
    assert table.loc[2, "step"] == "corrections for 1 catalogue group × 4 metrics × 6 estimators (once per dataset and m)"
    study.estimates = {("sampled", "Recall@10"): np.array([[0.4], [0.6]])}
    numbers = r.cost_numbers(study, _cost(0.4, 0.1))
    assert numbers["machine"] == "cpu, 2 logical cores, BLAS threads 1"
    assert numbers["one_sample_recall"] == "50.00" and numbers["simulated_recall"] == "50.00 ± 14.14"
    assert numbers["time_ratio"] == "4.0" and numbers["t_corrections"] == "1.50 s"
    assert (numbers["n_compared_exact"], numbers["n_compared_sampled"]) == ("2,000,000", "50,000")

"""Chapter 6's tables and sentences: values against the paper's data and hand-made inputs, and every
sentence at its edge values."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c06_sampled_metrics.report import bridge as rb
from recbias.chapters.c06_sampled_metrics.report import cost as rc
from recbias.chapters.c06_sampled_metrics.report import noise as rn
from recbias.chapters.c06_sampled_metrics.report import real_data as rr
from recbias.chapters.c06_sampled_metrics.report import settings as rs
from recbias.chapters.c06_sampled_metrics.report import sweep as rw
from recbias.chapters.c06_sampled_metrics.report import toy as rt
from recbias.chapters.c06_sampled_metrics.study import cost as sc
from recbias.chapters.c06_sampled_metrics.study import noise
from recbias.chapters.c06_sampled_metrics.study import real_data as sv
from recbias.chapters.c06_sampled_metrics.study import sweep as sw
from recbias.chapters.c06_sampled_metrics.study import toy as st
from recbias.chapters.c06_sampled_metrics.study.bridge import Bridge
from recbias.chapters.c06_sampled_metrics.study.noise import KEPT, REVERSED, WITHIN_NOISE


@pytest.fixture(scope="module")
def study() -> sv.SampledStudy:
    return sv.sampled_study(datasets.load("synthetic-small", seed=1), seed=1, m=20, repetitions=40)


# ---------------------------------------------------------------- the toy example


def test_table1_sets_our_exact_metrics_next_to_the_papers() -> None:
    shown = rt.table1(st.toy_study(20, seed=3))
    np.testing.assert_allclose(shown[("AP", "ours")], shown[("AP", "paper")], atol=5e-4)
    assert list(shown[("AUC", "paper")]) == [0.99, 0.555, 0.843]  # Table 1 of the paper


def test_table2_shows_simulated_expected_and_published_values() -> None:
    table = rt.table2(st.toy_study(20, seed=3)).set_index(["recommender", "metric"])
    assert table.loc[("A", "Recall@10"), "published"] == "1.000 ± 0.000"
    assert table.loc[("C", "AP"), "published"] == "0.325 ± 0.050"
    assert table.loc[("A", "AUC"), "exact (Table 1)"] == "0.990"
    assert len(table) == 12


def test_toy_z_numbers_follow_the_sign_of_the_offsets() -> None:
    z = rt.toy_z_table()
    numbers = rt.toy_z_numbers(z)
    assert numbers["toy_z_side"] == "below"  # the paper's AP and nDCG of A and B are all below our expectation
    assert float(numbers["toy_z_low"]) <= float(numbers["toy_z_high"])
    assert ("C", "Recall@10") in z.index and ("A", "Recall@10") not in z.index  # sd 0: no z-score
    # A's published AUC mean 0.99 against the expectation 0.990099 (AUC is unbiased), sd 0.004 over 1,000 draws
    assert z.loc[("A", "AUC"), ("m = 99", "with repl.")] == pytest.approx((0.99 - 100 / 101) / (0.004 / np.sqrt(1000)))


@pytest.mark.parametrize("signs, side", [((-1, -1, -1, -1), "below"), ((1, 1, 1, 1), "above"),
                                         ((-1, 1, -1, -1), "on both sides of")])
def test_toy_z_side_names_where_the_offsets_lie(signs, side) -> None:
    index = pd.MultiIndex.from_product([["A", "B"], ["AP", "nDCG"]], names=["recommender", "metric"])
    columns = pd.MultiIndex.from_tuples([("m = 99", "with repl."), ("m = 100", "without")])
    z = pd.DataFrame({columns[0]: np.array(signs) * np.array([1.5, 2.0, 2.5, 3.0]), columns[1]: [0.2, -0.7, 0.1, 0.0]},
                     index=index)
    numbers = rt.toy_z_numbers(z)
    assert numbers == {"toy_z_low": "1.5", "toy_z_high": "3.0", "toy_z_side": side, "toy_best_z": "0.7"}


def test_the_m1_table_orders_the_toy_recommenders() -> None:
    fits = st.m1_fits()
    table = rt.m1_table(fits).set_index("metric")
    assert table.loc["Recall@10", "order"] == "A = B = C"
    assert table.loc["AP", "order"] == table.loc["AUC", "order"] == "A > C > B"
    assert rt.m1_numbers(pd.DataFrame({"largest residual": [2e-16, 3.3e-16]})) == {"m1_residual": "3.3e-16"}


def test_bias_variance_table_names_the_minimal_bias_vector() -> None:
    table = pd.DataFrame({"estimator": ["sampled", "BV 0"], "RMS bias": [0.3, 1e-4],
                          "RMS sd (one instance)": [0.05, 123.0], "RMS error": [0.3, 123.0],
                          "largest |entry|": [1.0, 4.56e3]})
    assert list(rt.bias_variance_table(table)["estimator"]) == ["sampled", rt.MINIMAL_BIAS]
    assert rt.bias_variance_numbers(table) == {"mb_largest": "4.6e+03", "mb_sd": "1.2e+02"}


def test_toy_corrected_table_has_a_row_per_metric_and_recommender() -> None:
    toy = st.toy_study(20, seed=3)
    tables = {(method, metric): np.ones((1, st.FIG4_M + 1)) for method in st.FIG4_METHODS for metric in ("AP", "Recall@10")}
    corrections = st.ToyCorrections(tables, {})
    table = rt.toy_corrected_table(toy, corrections, methods=("sampled", "CLS"))
    assert list(table.columns) == ["exact", "sampled", "CLS"] and len(table) == 6
    # a vector of ones has expectation 1 and no variance, whatever the ranks
    assert table.loc[("AP", "B"), "CLS"] == "1.000<br><small>± 0.000</small>"


# ---------------------------------------------------------------- the real-data study


def test_systems_table_reads_the_presets() -> None:
    table = rr.systems_table().set_index("system")
    assert table.loc["X", "settings"] == "16 factors, λ = 10, α = 0.2"
    assert set(table["set"]) == {rr.KR_SET}
    assert table.loc["Z", "settings"] == "q = 1, 10 neighbours per item"


def _fake_study(*, keep, m=100, m_requested=100, replace=False) -> SimpleNamespace:
    sizes = np.array([150, 200, 250, 300])
    return SimpleNamespace(sizes=sizes[np.asarray(keep)], keep=np.asarray(keep), split=sv.LEAVE_LAST_OUT, m=m,
                           m_requested=m_requested, replace=replace, repetitions=100, n_tolerance=0.05,
                           bin_sizes=np.array([200]), correction_seconds=1.5)


def test_study_numbers_speak_of_dropped_users_and_a_shrunk_sample_only_when_there_are_some() -> None:
    full = rr.study_numbers(_fake_study(keep=[True] * 4))
    assert full["dropped_note"] == "" and full["m_note"] == ""
    assert full["split_label"] == "leave-last-out: each user's most recent rating is held out"
    assert (full["n_targets"], full["n_min"], full["n_max"], full["n_median"]) == ("4", "150", "300", "225")
    assert full["n_bins"] == "1 group" and full["n_tolerance"] == "5%" and full["n_over_m"] == "2"
    one_out = rr.study_numbers(_fake_study(keep=[False, True, True, True]))
    assert one_out["dropped_note"] == " (1 user whose pool is smaller than m, left out)"
    shrunk = rr.study_numbers(_fake_study(keep=[True] * 4, m=149, m_requested=100_000))
    assert "smallest pool" in shrunk["m_note"] and "m = 100000 was asked for" in shrunk["m_note"]


def test_grouping_numbers_of_a_study(study) -> None:
    numbers = rr.grouping_numbers(study)
    assert float(numbers["grouping_error"]) >= 0
    assert numbers["n_distinct"] == f"{len(np.unique(study.sizes)):,}"


def test_table3_shows_percent_means_and_sds(study) -> None:
    ours = rr.table3(study)
    values = 100 * study.estimates[("CLS", "AP")][:, 1]
    assert ours.loc[("AP", "Y"), "CLS"] == f"{values.mean():.2f}<br><small>± {values.std(ddof=1):.2f}</small>"
    assert "BV 0.001" not in ours.columns  # the paper's Table 3 has no BV 0.001
    paper = rr.paper_table3()
    assert paper.loc[("Recall@10", "X"), "exact"] == "7.60"
    assert paper.loc[("AUC", "Z"), "sampled"] == "75.04<br><small>± 0.23</small>"


def test_orders_table_reads_the_papers_reversal(study) -> None:
    orders = rr.orders_table(study)
    # ML-1M, Table 3: exact Recall@10 9.42 (Z) > 8.84 (Y) > 7.6 (X); sampled 66.19 (X) > 56.51 (Y) > 54.2 (Z)
    assert orders.loc[("paper (ML-1M)", "Recall@10"), "exact"] == "Z > Y > X"
    assert orders.loc[("paper (ML-1M)", "Recall@10"), "sampled"] == "X > Y > Z"
    assert set(orders.loc["ours"].index) == set(sv.METRICS)


def _reversals(outcomes: list[str], exact_signs: list[int], expected_signs: list[int]) -> pd.DataFrame:
    """A reversal table of the three pairs on AP with the given outcomes and signs of the two differences."""
    return pd.DataFrame({"pair": ["X vs Y", "X vs Z", "Y vs Z"], "metric": "AP",
                         "exact difference": np.array(exact_signs) * 0.01, "exact p": 0.001,
                         "expected difference": np.array(expected_signs) * 0.02, "expected p": 0.3,
                         "outcome": outcomes})


@pytest.mark.parametrize("outcomes, exact_signs, expected_signs, starts", [
    ([KEPT, REVERSED, WITHIN_NOISE], [1, 1, 1], [1, -1, -1], "**On this build**, the uncorrected sampled metric "
     "reverses the exact order of 1 pair in expectation, beyond noise: X and Z on AP."),
    ([KEPT, WITHIN_NOISE, WITHIN_NOISE], [1, 1, -1], [1, -1, -1], "**On this build**, the expected uncorrected sampled "
     "metric reverses the exact order of 1 pair (X and Z on AP), but within noise: with 4 users"),
    ([KEPT, KEPT, WITHIN_NOISE], [1, 1, 1], [1, 1, 1], "**On this build**, the expected uncorrected sampled metric "
     "keeps the exact order of every pair on every top-heavy metric; 2 of the 3 comparisons are kept beyond noise."),
])
def test_reversal_text_at_its_edges(monkeypatch, outcomes, exact_signs, expected_signs, starts) -> None:
    monkeypatch.setattr(rn, "reversal_tests", lambda study: _reversals(outcomes, exact_signs, expected_signs))
    assert rn.reversal_text(_fake_study(keep=[True] * 4)).startswith(starts)


def test_reversal_table_shows_percentage_points_and_p_values(study) -> None:
    table = rn.reversal_table(study).set_index(["pair", "metric"])
    tests = noise.reversal_tests(study).set_index(["pair", "metric"])
    row, raw = table.loc[("X vs Y", "AP")], tests.loc[("X vs Y", "AP")]
    assert row["exact difference (pp)"] == f"{100 * raw['exact difference']:+.2f}"
    assert row["outcome"] == raw["outcome"] and len(table) == 9
    assert rn.reversal_numbers() == {"reversal_comparisons": "9", "reversal_level": "0.05"}


def test_rights_table_leaves_the_uncorrected_rows_comparison_empty(study) -> None:
    table = rn.rights_table(study).set_index("estimator")
    assert table.loc["sampled", "minus uncorrected"] == "" and table.loc["sampled", "p (paired over repetitions)"] == ""
    top = noise.comparisons(study, sv.TOP_HEAVY)
    rights = noise.repetition_rights(study).set_index("estimator")
    assert table.loc["CLS", f"top-heavy right (of {top})"] == f"{rights.loc['CLS', 'top-heavy right']:.2f}"
    assert table.loc["BV 0.1", "minus uncorrected"].startswith(("+", "-"))


def test_settings_table_names_every_departure_with_its_reason() -> None:
    paper = SimpleNamespace(dataset="ml-1m", split=sv.LEAVE_LAST_OUT, m=100, m_requested=100, repetitions=100,
                            replace=False, n_tolerance=0.05)
    table = rs.settings_table(paper, 1000, 5.0).droplevel(0)
    kr = rs.settings_table(paper, 1000, 5.0).loc[rs.KR]
    assert set(kr.loc[kr["departure"] != rs.UNSTATED, "departure"]) == {rs.SAME}
    assert table.loc["relevant", "departure"] == rs.SAME and table.loc["sampling", "departure"] == rs.SAME
    assert table.loc["sampling law", "this build"] == "without replacement (hypergeometric)"
    elsewhere = SimpleNamespace(dataset="coat", split=sv.LEAVE_ONE_RANDOM_OUT, m=80, m_requested=100_000,
                                repetitions=30, replace=True, n_tolerance=0.1)
    table = rs.settings_table(elsewhere, 200, 4.0).droplevel(0)
    assert table.loc["data", "departure"] == rs.REASONS["dataset"]
    assert table.loc["held-out item", "departure"] == rs.REASONS["split"]
    assert table.loc["sampled items m", "departure"] == rs.M_SHRUNK.format(asked=100_000)
    assert table.loc["repetitions", ["this build", "departure"]].tolist() == ["30", rs.REASONS["repetitions"]]
    assert table.loc["sampling", "departure"] == "the parameter toy_repetitions"
    assert table.loc["relevant", "departure"] == "the positive threshold of this dataset"
    assert "within 10%" in table.loc["n of the corrections", "this build"]
    assert table.loc["1R target set", "this build"] == "TI-NN, |T_u| = 101 (100 sampled)"
    asked = SimpleNamespace(**{**vars(elsewhere), "m_requested": 80})
    assert rs.settings_table(asked, 1000, 5.0).loc[(rs.KR, "sampled items m"), "departure"] == rs.M_ASKED


def test_auc_numbers_never_show_a_signed_zero(study) -> None:
    numbers = rr.auc_numbers(study)
    assert not numbers["auc_gap_z"].startswith(("-0.0", "+0.0"))
    assert numbers["auc_gap_name"] in study.names
    assert numbers["auc_expected_gap"] == "0" or float(numbers["auc_expected_gap"]) < 1e-8


def test_auc_gap_note_appears_only_beyond_three_standard_errors(study) -> None:
    z = sv.auc_gaps(study)[1]
    assert (rr.auc_gap_note(study) == "") == bool(np.all(np.abs(z) < 3))


@pytest.mark.parametrize("exact_x, shown", [(0.475, True), (0.485, False), (0.545, True)])
def test_auc_gap_note_at_its_edges(exact_x, shown) -> None:
    """Sampled AUC of X at 50% and 52% in two repetitions: mean 51, one standard error of 1 point."""
    fake = SimpleNamespace(estimates={("sampled", "AUC"): np.array([[0.50, 0.60, 0.70], [0.52, 0.62, 0.72]])},
                           exact={"AUC": np.array([exact_x, 0.61, 0.71])}, repetitions=2)
    note = rr.auc_gap_note(fake)
    assert (note == rr.AUC_EXCURSION.format(repetitions=2)) if shown else note == ""


def test_the_published_auc_gap_of_z_comes_from_table_3() -> None:
    assert rr.paper_auc_gap("Z") == "0.31"  # 75.04 sampled against 74.73 exact
    with pytest.raises(KeyError, match="W"):
        rr.paper_auc_gap("W")


def test_paper_table4_leaves_the_cells_the_text_does_not_give_empty() -> None:
    table = rr.paper_table4().set_index(["pair", "metric"])
    assert table.loc[("X vs Y", "Recall@10"), "sampled"] == 0 and table.loc[("X vs Y", "AP"), "BV 0.1"] == 68
    assert table.loc[("Y vs Z", "nDCG@10")].isna().all() and table.loc[("Y vs Z", "Recall@10")].notna().all()


def _table4_like(worst_sampled: int, auc: int) -> pd.DataFrame:
    rows = [{"pair": "X vs Y", "metric": "AP", **dict.fromkeys(sv.METHODS, 70.0), "sampled": float(worst_sampled)},
            {"pair": "X vs Y", "metric": "AUC", **dict.fromkeys(sv.METHODS, float(auc))}]
    return pd.DataFrame(rows)


def test_table4_text_reads_right_at_the_edges() -> None:
    none = rr.table4_text(100, _table4_like(0, 100))
    assert "in none of the 100 repetitions" in none and "in all 100 repetitions" in none
    some = rr.table4_text(100, _table4_like(1, 97))
    assert "in 1 of the 100" in some and "at least 97 of 100" in some and " 0 of" not in some
    assert "*rank estimate*: at least 70 of 100" in some  # ties in the worst case go to the first estimator
    always = rr.table4_text(100, _table4_like(100, 100))
    assert "can only lose" in always and "70 (rank estimate)" in always


def test_consistency_table_and_the_sweep_numbers(study) -> None:
    sweep = sw.m_sweep(study, max_m=20)
    table = rw.consistency_table(study, sweep)
    assert list(table["pair"]) == ["X vs Y", "X vs Z", "Y vs Z"]
    for (a, b), row in zip(sv.PAIRS, table.itertuples(index=False), strict=True):
        expected = sw.consistent_from(study, sweep, a, b)  # None (never consistent) is shown as missing
        assert [None if pd.isna(value) else value for value in (row[2], row[3])] == list(expected)
    numbers = rw.sweep_numbers(sweep, replace=False)
    assert numbers["largest_m"] == f"{int(sweep.uncorrected_m.max()):,} (the smallest pool)"
    assert numbers["fig6_max_m"] == "20" and numbers["fig6_tolerance"] == "10%"


def test_sweep_note_explains_a_dash_only_when_there_is_one() -> None:
    assert rw.sweep_note(pd.DataFrame({"a": [1], "b": [2], "c": [3], "d": [4]})) == ""
    assert "dash" in rw.sweep_note(pd.DataFrame({"a": [1], "b": [2], "c": [None], "d": [4]}))


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


def test_bridge_text_at_its_edges() -> None:
    full = rb.bridge_text(_bridge())
    assert "250 runs" in full and "pools of 150 to 420 items" in full and "every pool held at least 100" in full
    short = rb.bridge_text(_bridge(shortage=1))
    assert "1 run left out because the pool held fewer than 100 items" in short
    empty = _bridge(n_runs=0)
    assert "cannot be formed" in rb.bridge_text(empty)
    assert list(rb.bridge_table(empty).iloc[:, 0]) == ["no user has 100 non-relevant candidates on this dataset"]


def test_the_ratio_covers_the_personalised_systems_and_names_popularity_apart() -> None:
    # pLSA 0.048 / 0.02, rating-MF 0.024 / 0.01, rating-kNN 0.027 / 0.01; Popularity 0.038 / 0.01 lies outside
    assert rb.ratio_text(_bridge()) == (" The uncorrected 1R precision of the papers' personalised recommenders (pLSA, "
                                        "rating-MF and rating-kNN) is 2.4 to 2.7 times their exact TI-AN precision; "
                                        "that of Popularity, 3.8 times.")
    # equal ratios print once; Random (0.01 over 0) never enters
    same = rb.ratio_text(_bridge(uncorrected=(0.01, 0.038, 0.05, 0.025, 0.025)))
    assert "is 2.5 times their exact" in same
    # a personalised system with no exact precision is named, not divided by zero; the others keep their span
    zero = rb.ratio_text(_bridge(exact=(0.0, 0.01, 0.02, 0.0, 0.01)))
    assert "recommenders (pLSA and rating-kNN) is 2.4 to 2.7 times" in zero
    assert zero.endswith("; the exact TI-AN precision of rating-MF is zero, so no ratio.")
    one = rb.ratio_text(_bridge(exact=(0.0, 0.0, 0.02, 0.0, 0.0)))
    assert one == (" The uncorrected 1R precision of the papers' personalised recommender (pLSA) is 2.4 times its exact "
                   "TI-AN precision; the exact TI-AN precision of rating-MF and rating-kNN is zero, so no ratio.")
    # Popularity alone opens the sentence
    alone = rb.ratio_text(_bridge(exact=(0.0, 0.01, 0.0, 0.0, 0.0)))
    assert alone.startswith(" The uncorrected 1R precision of Popularity is 3.8 times its exact TI-AN precision; the")
    assert rb.ratio_text(_bridge(exact=(0.0,) * 5)) == (" The exact TI-AN precision of pLSA, rating-MF and rating-kNN is "
                                                         "zero, so no ratio.")


def test_truth_text_measures_the_assumption_only_in_a_simulated_world() -> None:
    assert rb.truth_text(_bridge()) == rb.REAL_WORLD
    simulated = rb.truth_text(_bridge(truth=0.123))
    assert "12.3% of the items sampled as non-relevant" in simulated and "is 8.0%" in simulated


def test_bridge_tables_show_each_estimate_and_the_pairs_it_orders_beyond_noise() -> None:
    bridge = _bridge()
    orders = rb.bridge_orders(bridge).set_index("estimate")
    assert orders.loc[rb.EXACT, "order of the means"] == "pLSA > Popularity = rating-MF = rating-kNN > Random"
    # constant runs: every non-zero difference is beyond noise, a tie is within it; exact has 7 unequal pairs of 10
    assert orders.loc["CLS", list(rb.PAIR_COLUMNS.values())].tolist() == [7, 0, 3]
    # the rank estimate (0, 0.03, 0.02, 0.01, 0.01) puts Popularity above pLSA: one pair reversed
    assert orders.loc["rank estimate", "pairs reversed"] == 1
    table = rb.bridge_table(bridge)
    assert list(table.columns) == list(PAPERS)
    assert table.loc[rb.UNCORRECTED, "pLSA"] == "0.0480<br><small>± 0.0010</small>"
    assert table.loc["1R AI-AN", "Popularity"] == "0.0050"


# ---------------------------------------------------------------- the cost


def _cost(exact: float, sampled_seconds: float) -> sc.Cost:
    return sc.Cost(exact, sampled_seconds, 0.2, 10, 2_000_000, 50_000, 0.5, sc.Machine("cpu", 2, "1"))


def test_cost_text_says_which_evaluation_was_faster() -> None:
    study = _fake_study(keep=[True] * 4)
    assert "sampling was 4.0 times faster" in rc.cost_text(study, _cost(0.4, 0.1))
    assert "exact evaluation was 2.0 times faster than sampling, although" in rc.cost_text(study, _cost(0.1, 0.2))
    assert "about as long" in rc.cost_text(study, _cost(0.1, 0.104))
    assert "2,000,000 candidates against sampling's 50,000" in rc.cost_text(study, _cost(0.1, 0.1))
    assert rc.cost_text(study, _cost(0.1, 0.1)).endswith("; computing the corrections took longer than either.")
    assert "corrections took longer" not in rc.cost_text(study, _cost(2.0, 0.1))


def test_cost_table_and_numbers() -> None:
    study = _fake_study(keep=[True] * 4)
    table = rc.cost_table(study, _cost(0.4, 0.1))
    assert table["seconds"].tolist() == [0.4, 0.1, 1.5, 0.2]
    assert table.loc[2, "step"] == "corrections for 1 catalogue group × 4 metrics × 6 estimators (once per dataset and m)"
    study.estimates = {("sampled", "Recall@10"): np.array([[0.4], [0.6]])}
    numbers = rc.cost_numbers(study, _cost(0.4, 0.1))
    assert numbers["machine"] == "cpu, 2 logical cores, BLAS threads 1"
    assert numbers["one_sample_recall"] == "50.00" and numbers["simulated_recall"] == "50.00 ± 14.14"
    assert numbers["z_one_sample"] == "0.0"

"""Chapter 2's study: the toy target sets, the designs and the comparison, the lemma's sweeps and the
orders of systems against the truth, each against hand-worked values or a direct computation."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from designs_study import one_dataset, small, supported, two_datasets
from recbias.bookkit.page import design_note
from recbias.chapters.c02_designs.study import comparison, lemma, support, toy, truth
from recbias.designs import build_runs
from recbias.evaluate import experiment as runner
from recbias.evaluate import true_quality
from recbias.evaluate.experiment import fit_systems
from recbias.evaluate.support import support_table
from recbias.ratings import Ratings
from recbias.splits import make_folds


@pytest.fixture(scope="module", autouse=True)
def scratch_cache(tmp_path_factory):
    """Fits of this module go to a scratch cache, not to the repository's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


# ------------------------------------------------------------------------------- toy


def test_fig1_toy_target_sets_of_u() -> None:
    train, test = toy.fig1_toy()
    u = toy.TOY_USERS.index("u")
    names = toy.TOY_ITEMS

    def sets(design: str) -> list[str]:
        runs = build_runs(train, test, design, seed=0)
        return [
            "".join(names[i] for i in runs.items[runs.offsets[k] : runs.offsets[k + 1]])
            for k in np.flatnonzero(runs.users == u)
        ]

    assert sets("AI-AN") == ["abcde"]
    assert sets("TI-AN") == ["bcde"]
    nn = sets("1R TI-NN(1)")
    assert len(nn) == 2 and nn[0][-1] == "d" and nn[1][-1] == "e" and all(s[0] in "bc" for s in nn)
    assert all(s[0] in "abc" for s in sets("1R AI-NN(1)"))


def test_toy_target_sets_list_every_set_of_u_and_its_relevant_items() -> None:
    sets = toy.toy_target_sets(seed=0)
    assert [(t.design, t.index) for t in sets] == [
        ("AI-AN", 0), ("TI-AN", 0), ("AI-NN(1)", 0), ("TI-NN(1)", 0), ("1R AI-NN(1)", 1), ("1R AI-NN(1)", 2),
        ("1R TI-NN(1)", 1), ("1R TI-NN(1)", 2)]
    d, e = toy.TOY_ITEMS.index("d"), toy.TOY_ITEMS.index("e")
    assert sets[0].letters == "{a, b, c, d, e}" and sets[1].letters == "{b, c, d, e}"
    assert all(t.relevant == {d, e} for t in sets[:4])
    assert [t.relevant for t in sets[4:]] == [{d}, {e}, {d}, {e}]
    assert all(len(t.items) == 2 for t in sets[4:])  # one relevant item and NN(1)


# --------------------------------------------------------------------- the designs


def test_an_entries_count_users_with_a_liked_item_times_the_catalogue() -> None:
    users = len(set(small().users[small().values >= small().positive_threshold].tolist()))
    assert runner.an_entries(small()) == users * small().n_items


def test_an_designs_give_way_to_nn_only_above_the_limit() -> None:
    entries = runner.an_entries(small())
    at_limit = runner.choose_designs(small(), target_size=100, max_an_entries=entries, n_nonrelevant=50)
    assert at_limit.designs == ["AI-AN", "TI-AN", "1R TI-NN(99)"] and not at_limit.sampled
    assert design_note(at_limit, small()) == ""
    above = runner.choose_designs(small(), target_size=20, max_an_entries=entries - 1, n_nonrelevant=50)
    assert above.designs == ["AI-NN(50)", "TI-NN(50)", "1R TI-NN(19)"] and above.sampled
    assert above.main_ar == "TI-NN(50)"
    assert f"about {entries:,} items" in design_note(above, small())


def test_impossible_designs_are_refused_early() -> None:
    with pytest.raises(ValueError, match="target_size = 5000 exceeds"):
        runner.choose_designs(small(), target_size=5000, max_an_entries=10**9, n_nonrelevant=50)
    with pytest.raises(ValueError, match="at least 2"):
        runner.choose_designs(small(), target_size=1, max_an_entries=10**9, n_nonrelevant=50)
    with pytest.raises(ValueError, match="lower the sample size"):
        runner.choose_designs(small(), target_size=20, max_an_entries=1, n_nonrelevant=small().n_items)
    with pytest.raises(ValueError, match="second_nonrelevant = 5000 leaves no run on synthetic-small"):
        comparison.design_study(small(), small(), folds=1, second_nonrelevant=5000)


def test_the_second_dataset_runs_unless_it_is_missing_the_page_s_own_or_unavailable() -> None:
    assert comparison.second_status("", "synthetic") == "empty"
    assert comparison.second_status("ml-100k", "ml-100k") == "same"
    assert comparison.second_status("csv:/no/such/file.csv", "synthetic") == "unavailable"
    assert comparison.second_status("synthetic-small", "synthetic") == ""
    with pytest.raises(ValueError, match="no-such-dataset"):
        comparison.second_status("no-such-dataset", "synthetic")


def test_the_second_dataset_is_split_by_time_when_it_has_timestamps() -> None:
    assert small().timestamps is not None and comparison.second_split(small()) == "temporal"
    train, _ = toy.fig1_toy()
    assert train.timestamps is None and comparison.second_split(train) == "coin"


def test_relevant_weight_matches_a_count_by_hand() -> None:
    # relevant test ratings per user: 5, 1, 1, 1 (user 4 has none); the top tenth is one user
    users = np.array([0, 0, 0, 0, 0, 1, 2, 3, 4, 0])
    values = np.array([5, 5, 5, 5, 5, 5, 5, 5, 2, 2], dtype=float)
    test = Ratings.from_codes(users, np.arange(10), values, (5, 10), positive_threshold=5)
    assert comparison.relevant_weight(test) == comparison.RelevantWeight(4, 1, 5 / 8)
    with pytest.raises(ValueError, match="no relevant rating"):
        comparison.relevant_weight(Ratings.from_codes(users, np.arange(10), values * 0 + 1, (5, 10), positive_threshold=5))


def test_the_1r_ceiling_is_one_over_n() -> None:
    (fold,) = make_folds(small(), folds=1, seed=2)
    assert comparison.one_r_ceiling(fold.train, fold.test, "1R TI-NN(49)", n=10) == pytest.approx(0.1)
    assert comparison.one_r_ceiling(fold.train, fold.test, "1R TI-NN(49)", n=4) == pytest.approx(0.25)


# ------------------------------------------------------------------ the comparison


def test_the_study_runs_every_design_on_both_datasets() -> None:
    study = two_datasets()
    assert study.choice.designs == ["AI-AN", "TI-AN", "1R TI-NN(49)"]
    assert study.panels == [("synthetic-small", "AI-AN"), ("synthetic-small", "TI-AN"),
                            ("synthetic-small", "1R TI-NN(49)"), ("other", "TI-NN(100)"), ("other", "1R TI-NN(49)")]
    assert study.second_split == "coin" and study.second_name == "other" and study.second_ar == "TI-NN(100)"
    summary = study.summary
    assert list(zip(summary["dataset"], summary["design"], strict=True))[::7] == study.panels
    assert summary["system"].tolist() == study.systems * len(study.panels)
    # the first split of the study is fold 0 of the page's dataset, as every chapter draws it
    first = make_folds(small(), folds=1, seed=3)[0]
    assert np.array_equal(study.folds[0].test.items, first.test.items)


def test_orders_and_pairs_read_the_measured_means() -> None:
    study = two_datasets()
    values = study.measured("synthetic-small", "TI-AN")
    assert study.order("synthetic-small", "TI-AN") == sorted(values, key=lambda s: -values[s])
    forward, p = study.pair("synthetic-small", "TI-AN", "pLSA", "rating-MF")
    backward, q = study.pair("synthetic-small", "TI-AN", "rating-MF", "pLSA")
    assert forward == -backward and p == q
    assert forward == pytest.approx(values["pLSA"] - values["rating-MF"])
    papers = study.measured("synthetic-small", "TI-AN", comparison.PAPERS)
    assert list(papers) == ["Popularity", "pLSA", "Random", "rating-MF", "rating-kNN"]
    assert set(study.order("synthetic-small", "TI-AN", comparison.TOP_N)) == set(comparison.TOP_N_SET)
    with pytest.raises(ValueError, match="unknown set of systems 'mine'"):
        study.members("mine")


def test_every_system_belongs_to_the_papers_set_todays_or_both() -> None:
    assert [comparison.set_of(s) for s in comparison.SYSTEMS] == ["both"] * 3 + [comparison.PAPERS] * 2 + [
        comparison.TOP_N] * 2
    assert comparison.PAPERS_SET["rating-MF"] == "rating-mf" and comparison.TOP_N_SET["implicit MF (top-N)"] == "mf"
    with pytest.raises(ValueError, match="in neither set"):
        comparison.set_of("item-kNN")


def test_pair_tests_count_the_significant_pairs_of_each_design_within_a_set() -> None:
    study = two_datasets()
    tests = study.tests(comparison.TOP_N)
    assert (tests["pairs"] == 10).all() and len(tests) == len(study.panels)
    found = study.main.comparison("P@10", study.members(comparison.TOP_N))
    on_ti = found[found["design"] == "TI-AN"]
    row = tests[(tests["dataset"] == "synthetic-small") & (tests["design"] == "TI-AN")].iloc[0]
    assert row["significant"] == (on_ti["wilcoxon_pvalue"] < 1e-3).sum()
    assert row["p"] == on_ti["wilcoxon_pvalue"].max()
    hardest = on_ti.loc[on_ti["wilcoxon_pvalue"].idxmax()]
    assert row["closest pair"] == (hardest["system_a"], hardest["system_b"])
    assert study.significant_pairs(comparison.TOP_N) == (int(tests["significant"].sum()), 50)
    assert len(study.comparisons) == 21 * len(study.panels)  # every two of the seven systems


def test_the_gaps_and_spreads_match_a_direct_computation() -> None:
    study = two_datasets()
    ai, ti = study.measured("synthetic-small", "AI-AN"), study.measured("synthetic-small", "TI-AN")
    assert study.ai_ti_gap == pytest.approx(max(abs(ai[s] - ti[s]) for s in study.systems))
    reports = study.main.reports[study.main.reports["design"] == "TI-AN"]
    assert study.untested_share == pytest.approx(1 - reports["n_candidates"].mean() / small().n_items)
    assert study.best_one_r() == max(study.measured("synthetic-small", "1R TI-NN(49)").values()) <= study.ceiling
    popularity = [study.measured(*panel)["Popularity"] for panel in study.panels]
    assert study.spread("Popularity") == (min(popularity), max(popularity))


def per_run(rows: list[tuple[str, int, int, float]]) -> pd.DataFrame:
    """A per-run table of one system from (design, fold, user, P@10)."""
    frame = pd.DataFrame(rows, columns=["design", "fold", "user", "P@10"])
    return frame.assign(system="s", run=frame.groupby(["design", "fold"]).cumcount())


def test_design_differences_pair_the_runs_of_a_user_and_cluster_by_user() -> None:
    # user 0 in two folds (differences 0.2 and 0.0), users 1 and 2 once (0.1, -0.1); user 3 only under AI
    runs = per_run([("AI", 0, 0, 0.3), ("AI", 1, 0, 0.1), ("AI", 0, 1, 0.2), ("AI", 0, 2, 0.0), ("AI", 0, 3, 1.0),
                    ("TI", 0, 0, 0.1), ("TI", 1, 0, 0.1), ("TI", 0, 1, 0.1), ("TI", 0, 2, 0.1)])
    (row,) = comparison.design_differences(runs, "AI", "TI", ["s"]).to_dict("records")
    assert row["difference"] == pytest.approx(0.2 / 4) and row["users"] == 3
    # clustered by user: sums of residuals 0.2 - 2 m, 0.1 - m, -0.1 - m with m = 0.05, over N = 4, G = 3
    m = 0.05
    se = np.sqrt(3 / 2 * ((0.2 - 2 * m) ** 2 + (0.1 - m) ** 2 + (-0.1 - m) ** 2) / 16)
    half = stats.t.ppf(0.975, 2) * se
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(m - half), pytest.approx(m + half))
    with pytest.raises(ValueError, match="one run per fold"):
        comparison.design_differences(pd.concat([runs, runs]), "AI", "TI", ["s"])


def test_the_ai_ti_differences_of_the_study_pair_its_ar_runs() -> None:
    study = two_datasets()
    found = study.ai_ti.set_index("system")
    ai, ti = study.measured("synthetic-small", "AI-AN"), study.measured("synthetic-small", "TI-AN")
    assert found.index.tolist() == study.systems
    for system in study.systems:  # AN designs keep every user with a relevant test item: the means pair exactly
        assert found.loc[system, "difference"] == pytest.approx(ai[system] - ti[system])
        assert found.loc[system, "ci_low"] <= found.loc[system, "difference"] <= found.loc[system, "ci_high"]


def comparisons(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    """Rows of paired tests from (design, system_a, system_b, difference, p)."""
    frame = pd.DataFrame(rows, columns=["design", "system_a", "system_b", "difference", "wilcoxon_pvalue"])
    return frame.assign(dataset="d")


def test_reversals_need_both_designs_beyond_noise_in_opposite_ways() -> None:
    found = comparison.reversals(comparisons([
        ("AR", "a", "b", 0.1, 0.01), ("1R", "a", "b", -0.1, 0.049),  # reversed, each beyond noise
        ("AR", "a", "c", 0.1, 0.01), ("1R", "a", "c", -0.1, 0.05),  # reversed in the means, 1R within noise
        ("AR", "b", "c", 0.1, 0.01), ("1R", "b", "c", 0.2, 0.001),  # alike
        ("AR", "a", "d", 0.0, 0.001), ("1R", "a", "d", 0.1, 0.001),  # no difference under AR
        ("AR", "c", "d", 0.1, 0.001),  # tested under AR only
    ]), "d", "AR", "1R")
    found = found.set_index(["system_a", "system_b"])
    assert found["reversed"].to_dict() == {("a", "b"): True, ("a", "c"): False, ("b", "c"): False, ("a", "d"): False}
    assert found["alike"].to_dict() == {("a", "b"): False, ("a", "c"): False, ("b", "c"): True, ("a", "d"): False}


def metric_table(**columns: list[float]) -> pd.DataFrame:
    frame = pd.DataFrame({"design": ["AR"] * 3 + ["1R"] * 3, "system": ["a", "b", "c"] * 2})
    return frame.assign(**{"P@10": [3, 2, 1, 3, 2, 1]}, **{m: columns.get(m, [3, 2, 1, 3, 2, 1])
                                                            for m in comparison.METRICS[1:]})


def test_each_metric_is_checked_for_the_order_of_p_at_10_within_each_design() -> None:
    agree = comparison.same_order_as_precision(metric_table())
    assert agree.index.tolist() == ["AR", "1R"] and agree.columns.tolist() == list(comparison.METRICS[1:])
    assert agree.to_numpy().all()
    one_off = comparison.same_order_as_precision(metric_table(MRR=[1, 2, 3, 3, 2, 1]))
    assert not one_off.loc["AR", "MRR"] and one_off.to_numpy().sum() == 7
    tied = comparison.same_order_as_precision(metric_table(MAP=[3, 3, 1, 3, 2, 1]))  # a tie is another order
    assert tied.loc["AR", "MAP"] == False and tied.loc["1R", "MAP"] == True  # noqa: E712


def test_under_1r_map_equals_mrr_on_every_run() -> None:
    study = two_datasets()
    one_r = study.main.runs[study.main.runs["design"] == "1R TI-NN(49)"]
    assert study.one_r_runs == one_r.groupby(["fold", "run"]).ngroups
    assert study.map_mrr_gap < 1e-12


def test_without_a_second_dataset_the_study_holds_the_main_one_only() -> None:
    alone = one_dataset()
    assert alone.second is None and alone.second_name is None and alone.second_split is None
    assert [d for d, _ in alone.panels] == ["synthetic-small"] * 3


# ------------------------------------------------------------------------------ lemma


def test_lemma_sweep_bounds_hold_everywhere() -> None:
    (fold,) = make_folds(small(), folds=1, seed=0)
    systems = fit_systems({"pLSA": "plsa", "Popularity": "popularity"}, fold.train, cache=False)
    sweep = lemma.lemma_sweep(
        fold.train, fold.test, systems, target_sizes=(20, 50, 100, 250), removed=(0.0, 0.5), base_size=20, max_users=40
    )
    assert sweep["holds"].all()
    assert (sweep["lower"] <= sweep["value"]).all() and (sweep["value"] <= sweep["upper"]).all()
    growth = sweep[sweep["sweep"] == "target size"]
    assert growth["users"].nunique() == 1 and growth["users"].iloc[0] <= 40  # one population along the sweep
    assert growth["x"].max() < 250  # a size beyond most users' candidates is dropped
    removal = sweep[sweep["sweep"] == "removed test ratings"]
    runs_by_x = removal.groupby("x")["runs"].first()
    assert runs_by_x.loc[0.5] < runs_by_x.loc[0.0]


def test_the_growth_population_keeps_enough_users_at_the_largest_size() -> None:
    (fold,) = make_folds(small(), folds=1, seed=0)
    sizes, users = lemma.growth_population(fold.train, fold.test, (20, 50, 100, 250), max_users=None, min_share=0.5,
                                           seed=0)
    liked = len(np.unique(fold.test.users[fold.test.values >= fold.test.positive_threshold]))
    assert sizes[:2] == [20, 50] and 250 not in sizes and len(users) >= 0.5 * liked
    sampled = lemma.growth_population(fold.train, fold.test, (20, 50), max_users=10, min_share=0.5, seed=0)[1]
    assert len(sampled) == 10 and set(sampled) <= set(users)


def sweep_frame(rows: list[tuple[str, float, str, float, float, float]]) -> pd.DataFrame:
    """A sweep table as :func:`lemma.lemma_sweep` returns it, from (sweep, x, system, lower, value, upper)."""
    frame = pd.DataFrame(rows, columns=["sweep", "x", "system", "lower", "value", "upper"])
    return frame.assign(runs=100, users=40, holds=(frame["lower"] <= frame["value"]) & (frame["value"] <= frame["upper"]))


def test_the_band_is_measured_at_the_ends_of_each_sweep_averaged_over_systems() -> None:
    sweep = sweep_frame([
        ("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("removed test ratings", 0.0, "b", 0.2, 0.4, 0.4),
        ("removed test ratings", 0.2, "a", 0.0, 0.5, 0.9),  # a point between the ends does not count
        ("removed test ratings", 0.5, "a", 0.1, 0.1, 0.1), ("removed test ratings", 0.5, "b", 0.3, 0.3, 0.4),
        ("target size", 100.0, "a", 0.1, 0.2, 0.2), ("target size", 100.0, "b", 0.1, 0.2, 0.2),
        ("target size", 400.0, "a", 0.1, 0.1, 0.2), ("target size", 400.0, "b", 0.1, 0.1, 0.1),
    ])
    ends = lemma.band_ends(sweep)
    assert ends["full"] == pytest.approx((0.2 + 0.2) / 2) and ends["full_relative"] == pytest.approx((1 + 0.5) / 2)
    assert ends["thin"] == pytest.approx(0.05) and ends["thin_relative"] == pytest.approx((0 + 0.1 / 0.3) / 2)
    assert ends["removed"] == 0.5 and ends["users"] == 40
    assert (ends["small"], ends["small_relative"], ends["small_size"]) == (pytest.approx(0.1), pytest.approx(0.5), 100)
    assert (ends["big"], ends["big_relative"], ends["big_size"]) == (pytest.approx(0.05), pytest.approx(0.5), 400)
    no_growth = lemma.band_ends(sweep[sweep["sweep"] == "removed test ratings"])
    assert "big" not in no_growth and "users" not in no_growth and no_growth["removed"] == 0.5


# --------------------------------------------------------------------------- support


def test_the_support_of_every_system_and_of_the_variant_is_counted_on_the_first_split() -> None:
    study, found = two_datasets(), supported()
    fold = make_folds(small(), folds=1, seed=3)[0]
    systems = {**study.presets, **support.SUPPORTED_KNN}
    order = ["Popularity", "pLSA", "Random", "rating-MF", "rating-kNN", "rating-kNN (min. 2 neighbours)",
             "implicit MF (top-N)", "user-kNN (top-N)"]
    fitted = fit_systems({label: systems[label] for label in order}, fold.train, seed=3, cache=False)
    pd.testing.assert_frame_equal(found.support, support_table(fitted, fold.train, n=10, few=2, seed=3))
    assert found.catalogue_few == pytest.approx(np.mean(np.bincount(fold.train.items, minlength=small().n_items) <= 2))


def test_the_two_knns_and_random_are_measured_on_the_study_s_own_target_sets() -> None:
    study, found = two_datasets(), supported()
    for design in study.choice.designs:
        mine, theirs = found.measured(design), study.measured("synthetic-small", design)
        assert list(mine) == list(support.KNN_SYSTEMS)
        assert (mine["rating-kNN"], mine["Random"]) == (theirs["rating-kNN"], theirs["Random"])  # the same runs
        # Wilcoxon's test on each user's sum of the differences of her runs over the splits
        runs = found.knn.runs[found.knn.runs["design"] == design].sort_values(["fold", "run"])
        papers, variant = (runs[runs["system"] == s] for s in ("rating-kNN", "rating-kNN (min. 2 neighbours)"))
        assert np.array_equal(papers["user"], variant["user"])
        _, user = np.unique(papers["user"], return_inverse=True)
        sums = np.bincount(user, weights=papers["P@10"].to_numpy() - variant["P@10"].to_numpy())
        assert found.pvalue(design) == pytest.approx(stats.wilcoxon(sums).pvalue if sums.any() else 1.0, rel=1e-9)


# ------------------------------------------------------------------------------ truth


def test_truth_check_matches_a_direct_computation() -> None:
    study = two_datasets()
    check = truth.truth_check(study)
    per_split = []
    for fold in make_folds(small(), folds=2, seed=3):
        fitted = fit_systems(study.presets, fold.train, seed=3, cache=False)
        per_split.append(true_quality(fitted, fold.train, small().true_relevance, n=10, seed=3)["P@10"].mean())
    pd.testing.assert_series_equal(check.true, (per_split[0] + per_split[1]) / 2, check_names=False)
    assert check.measured.columns.tolist() == study.choice.designs
    tau, share, best = check.agreement("TI-AN")
    assert -1 <= tau <= 1 and 0 <= share <= 1 and best == (check.measured["TI-AN"].idxmax() == check.true.idxmax())


def test_observed_data_have_no_truth_to_check() -> None:
    study = two_datasets()
    observed = dataclasses.replace(study, ratings=dataclasses.replace(study.ratings, true_relevance=None))
    assert truth.truth_check(observed) is None


TRUE = pd.Series({"a": 0.30, "b": 0.29, "c": 0.10})
SET = {"toy set": ("a", "b", "c")}


@pytest.mark.parametrize("measured, right, a, b, gap", [
    ({"right": {"a": 0.3, "b": 0.2, "c": 0.1}}, 1, None, None, 0.0),
    ({"right": {"a": 0.3, "b": 0.2, "c": 0.1}, "close swap": {"a": 0.2, "b": 0.3, "c": 0.1}}, 1, "b", "a", 0.01 / 0.3),
    ({"far swap": {"a": 0.2, "b": 0.1, "c": 0.3}}, 0, "c", "a", 0.2 / 0.3),
])
def test_readings_find_the_widest_pair_a_design_puts_in_the_wrong_order(measured, right, a, b, gap) -> None:
    (found,) = truth.readings(truth.TruthCheck("toy", TRUE, pd.DataFrame(measured)), SET).values()
    assert (found["order"], found["right"], found["designs"]) == ("a > b > c", right, len(measured))
    assert (found["a"], found["b"], found["gap"]) == (a, b, pytest.approx(gap))
    assert (found["true_a"], found["true_b"]) == ((TRUE[a], TRUE[b]) if a else (0.0, 0.0))


def test_readings_leave_out_a_set_with_fewer_than_two_systems_of_the_check() -> None:
    check = truth.TruthCheck("toy", TRUE, pd.DataFrame({"d": {"a": 0.3, "b": 0.2, "c": 0.1}}))
    found = truth.readings(check, {"first": ("a", "b"), "lonely": ("c", "z")})
    assert list(found) == ["first"] and found["first"]["order"] == "a > b"
    both = truth.readings(truth.truth_check(two_datasets()))
    assert list(both) == [comparison.PAPERS, comparison.TOP_N]
    assert set(re.split(" > | = ", both[comparison.TOP_N]["order"])) == set(comparison.TOP_N_SET)

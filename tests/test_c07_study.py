"""Chapter 7's computations: the setting, the systems' scores, the attention model, the four cases and the
sweep over Q, the short-head search, new users and the truth, on hand-made inputs and a small world."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c07_discounted_auc import study
from recbias.chapters.c07_discounted_auc.study import new_users, scored, setting, short_head, systems, truth
from recbias.evaluate import bootstrap_counts
from recbias.metrics import position_discount
from recbias.ratings import Ratings
from recbias.splits import new_user_splits

SETTING = study.Setting(Q=0.3, m=10, z=50, base=3.0)


@pytest.fixture(scope="module")
def world() -> Ratings:
    return study.judged_at(datasets.load("synthetic-small", seed=1), 4.0, seed=1)


@pytest.fixture(scope="module")
def three(world: Ratings) -> study.SystemStudy:
    return study.system_study(world, seed=1, systems={"Popularity": "popularity", "MF": "mf", "Random": "random"})


def toy_with_attributes() -> Ratings:
    """Two women (users 0, 1) and one man (user 2); positive means 4 stars or more."""
    rows = [(0, 0, 5), (0, 1, 4), (1, 0, 5), (1, 2, 2), (2, 2, 5), (2, 1, 1), (2, 3, 4)]
    users, items, values = (np.array(column) for column in zip(*rows, strict=True))
    ratings = Ratings.from_codes(users, items, values.astype(float), (3, 4), positive_threshold=4, name="toy")
    table = pd.DataFrame({"gender": ["F", "F", "M"], "age": [20, 50, 30]}, index=pd.Index(range(3), name="user"))
    return dataclasses.replace(ratings, user_attributes=table)


# ------------------------------------------------------------------------------ setting


def test_the_setting_names_the_metric_in_the_grammar():
    assert SETTING.metric() == "bAUC@50(Q=0.3,m=10,gain=rating,base=3,s=0)"
    assert SETTING.metric(s=7, gain="binary", Q=1.0) == "bAUC@50(Q=1,m=10,gain=binary,s=7)"
    assert SETTING.p == pytest.approx(0.3 ** 0.1)


def test_judged_at_regenerates_the_truth_and_keeps_out_of_scale_thresholds(world: Ratings):
    assert world.positive_threshold == 4.0
    observed = world.true_relevance[world.users, world.items]
    assert np.array_equal(observed, world.values >= 4)
    implicit = Ratings.from_codes(np.array([0, 1]), np.array([0, 1]), np.ones(2), (2, 2), positive_threshold=1,
                                  scale=(1.0, 1.0))
    assert study.judged_at(implicit, 4.0) is implicit  # above its scale: the data keep their own threshold
    assert study.judged_at(world, None) is world
    with pytest.raises(ValueError, match="makes every rating"):
        study.judged_at(world, 1.0)


def test_segmentations_are_every_attribute_and_every_pair():
    toy = toy_with_attributes()
    assert setting.segmentations(dataclasses.replace(toy, user_attributes=None)) == []
    assert setting.segmentations(toy) == [("gender",), ("age",), ("gender", "age")]


def test_feasible_known_leaves_ratings_for_the_test():
    ratings = Ratings.from_codes(np.repeat(np.arange(8), 24), np.tile(np.arange(24), 8), np.full(192, 4.0), (8, 24),
                                 positive_threshold=4)
    assert setting.feasible_known(ratings, 30) == 24 - setting.MIN_TEST
    assert setting.feasible_known(ratings, 5) == 5
    few = Ratings.from_codes(np.repeat(np.arange(8), 10), np.tile(np.arange(10), 8), np.full(80, 4.0), (8, 10),
                             positive_threshold=4)
    assert setting.feasible_known(few, 30) == 0  # nobody has more than MIN_TEST ratings


def test_segmentations_leave_out_attributes_with_one_value():
    coded = dataclasses.replace(toy_with_attributes(), user_attributes=pd.DataFrame({"region": ["a", "b", "a"],
                                                                                     "country": ["x", "x", "x"]}))
    assert study.segmentations(coded) == [("region",)]


# ------------------------------------------------------------------------ the attention model


def test_the_attention_summary_follows_the_geometric_model():
    summary = study.attention_summary([0.05, 0.9], 10, 100)
    p = np.array([0.05, 0.9]) ** 0.1
    np.testing.assert_allclose(summary["p"], p)
    np.testing.assert_allclose(summary["read"], 1 / (1 - p))  # mean of a geometric law
    np.testing.assert_allclose(summary["d1"], (1 - p) / p * np.log(1 / (1 - p)))  # the closed form of d_1
    brute = [sum(q ** (n - 1) * (1 - q) / n * min(n, 10) for n in range(1, 20000)) for q in p]  # d_1..d_10 summed
    np.testing.assert_allclose(summary["page"], brute, rtol=1e-9)
    assert (summary["page"] <= summary["list"]).all() and (summary["list"] <= 1 + 1e-12).all()


def test_attention_curves_are_the_weights_and_discounts_of_each_q():
    curves = study.attention_curves([0.1, 0.5], 5, 12)
    assert curves.groupby("Q").size().tolist() == [12, 12]
    half = curves[curves["Q"] == 0.5]
    p = 0.5 ** 0.2
    np.testing.assert_allclose(half["w"], p ** np.arange(12) * (1 - p))
    np.testing.assert_allclose(half["d"], position_discount(p, 12))


def test_discount_curves_are_relative_to_rank_one():
    discounts = study.discount_curves(SETTING, 15).pivot(index="k", columns="discount", values="weight")
    assert list(discounts.columns) == sorted(["behavioural", "ndcg", "rbp"])
    np.testing.assert_allclose(discounts.loc[1], 1.0)
    np.testing.assert_allclose(discounts["rbp"], SETTING.p ** np.arange(15))
    np.testing.assert_allclose(discounts["ndcg"], 1 / np.log2(np.arange(2, 17)))
    d = position_discount(SETTING.p, 15, SETTING.z)
    np.testing.assert_allclose(discounts["behavioural"], d / d[0])


# --------------------------------------------------------------------------- four cases


def test_the_four_cases_add_up(three: study.SystemStudy):
    cases = study.four_cases(three, [5, 20])
    for n in (5, 20):
        rows = cases[cases["list"] == n]
        np.testing.assert_allclose(rows["hits"] + rows["mishits"] + rows["recommended, not rated"], n)
    liked = three.scored.runs.n_relevant.mean()
    np.testing.assert_allclose(cases["hits"] + cases["liked, not recommended"], liked)


def test_mishit_runs_swap_relevance_for_negative_test_ratings(three: study.SystemStudy):
    runs = three.scored.runs
    swapped = scored.mishit_runs(runs)
    assert np.array_equal(swapped.labels, runs.judged & ~runs.labels) and np.array_equal(swapped.judged, runs.judged)
    effect = study.mishit_effect(three, SETTING, confidence=0.9).set_index("system")
    assert (effect["mishits at -1"] <= effect["mishits ignored"]).all()
    with pytest.raises(ValueError, match="same entries"):
        three.scored.values(["P@5"], scored.liked_only(runs))


def test_mishit_effect_ranks_the_systems_under_both_counts(three: study.SystemStudy):
    effect = study.mishit_effect(three, SETTING, confidence=0.9)
    for value, rank in (("mishits ignored", "rank ignored"), ("mishits at -1", "rank at -1")):
        order = effect.sort_values(value, ascending=False, kind="stable")
        assert order[rank].tolist() == sorted(order[rank]) and set(effect[rank]) <= set(range(1, len(effect) + 1))
        assert effect.loc[effect[value].idxmax(), rank] == 1
    np.testing.assert_allclose(effect["change"], effect["mishits at -1"] / effect["mishits ignored"] - 1)


def test_the_change_of_each_system_has_an_interval_over_resampled_users(three: study.SystemStudy):
    effect = study.mishit_effect(three, SETTING, confidence=0.9, n_boot=200)
    assert (effect["change low"] <= effect["change"]).all() and (effect["change"] <= effect["change high"]).all()
    wider = study.mishit_effect(three, SETTING, confidence=0.99, n_boot=200)
    assert (wider["change high"] - wider["change low"] >= effect["change high"] - effect["change low"]).all()


def test_resampled_means_leave_out_what_is_not_finite():
    counts = np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0], [0.0, 3.0, 0.0]])
    means = systems._resampled(counts, pd.Series([0.2, 0.4, math.nan]))
    np.testing.assert_allclose(means, [0.3, 0.2, 0.4])


def test_equal_values_share_the_better_rank():
    ranks = systems._ranks(pd.Series([0.3, 0.5, 0.3 + 1e-15, 0.1], index=list("ABCD")))
    assert ranks.tolist() == [2, 1, 2, 4]


def test_mishits_per_hit_on_the_first_page_leave_the_non_personalised_lists_out():
    cases = pd.DataFrame({"system": ["MF", "pLSA", "Popularity", "Random"] * 2, "list": [10] * 4 + [100] * 4,
                          "mishits per hit": [0.2, 0.3, 0.05, 0.7, 0.9, 0.9, 0.9, 0.9]})
    assert study.mishits_per_hit(cases, 10) == (0.2, 0.3, 0.7)  # Popularity's 0.05 is not a personalised system's


# ---------------------------------------------------------------------------- the Q sweep


def test_q_sweep_reads_the_metric_and_its_ends_are_precisions(three: study.SystemStudy):
    sweep = study.q_sweep(three, SETTING, (0.0, 0.3, 1.0))
    expected = three.scored.means([SETTING.metric(Q=Q) for Q in (0.0, 0.3, 1.0)])
    np.testing.assert_allclose(sweep.to_numpy(), expected.to_numpy())
    ends = three.scored.means([SETTING.metric(Q=0.0, gain="binary"), "P@1", SETTING.metric(Q=1.0, gain="binary"),
                               f"P@{SETTING.z}"]).to_numpy()
    np.testing.assert_allclose(ends[:, 0], ends[:, 1])
    np.testing.assert_allclose(ends[:, 2], ends[:, 3])
    runs = study.order_runs(sweep)
    assert runs["tau first"].iloc[0] == 1.0 and runs["tau last"].iloc[-1] == 1.0
    assert (runs["order"].iloc[1:].to_numpy() != runs["order"].iloc[:-1].to_numpy()).all()  # one row per order


def test_order_runs_merge_consecutive_equal_orders():
    sweep = pd.DataFrame({0.0: [3.0, 2.0, 1.0], 0.5: [3.0, 2.5, 1.0], 0.7: [2.0, 3.0, 1.0], 1.0: [1.0, 3.0, 2.0]},
                         index=["A", "B", "C"])
    runs = study.order_runs(sweep)
    assert runs[["from", "to"]].values.tolist() == [[0.0, 0.5], [0.7, 0.7], [1.0, 1.0]]
    assert runs["values"].tolist() == [2, 1, 1]
    assert runs["order"].tolist() == ["A > B > C", "B > A > C", "B > C > A"]
    np.testing.assert_allclose(runs["tau first"], [1.0, 1 / 3, -1 / 3])  # 3, 2 and 1 of 3 pairs in the first order
    np.testing.assert_allclose(runs["tau last"], [-1 / 3, 1 / 3, 1.0])


def test_ranking_means_add_the_step_only_when_there_is_one(three: study.SystemStudy):
    plain = study.ranking_means(three, SETTING, 0)
    assert list(plain.columns) == ["P@10", "nDCG@10", systems.NO_STEP]
    stepped = study.ranking_means(three, SETTING, 10)
    assert list(stepped.columns) == ["P@10", "nDCG@10", systems.NO_STEP, systems.STEP]
    expected = three.scored.means([SETTING.metric(s=10)])[SETTING.metric(s=10)]
    np.testing.assert_allclose(stepped[systems.STEP], expected)


# --------------------------------------------------------------------- short-head search


def test_the_search_measures_eq_13_and_scales_it_by_resampling(three: study.SystemStudy):
    segments = [("gender",), ("age",)]
    search = study.sensitivity_search(three, SETTING, segments, sizes=[0, 3, 15], n_boot=40, seed=2)
    lists = short_head.segment_systems(segments)
    for recommender in lists.values():
        recommender.fit(three.fold.train)
    values_of = scored.Scored.of(lists, three.fold.train, three.scored.runs, three.scored.seed)
    counts = bootstrap_counts(three.scored.runs.n_runs, 40, 2) / three.scored.runs.n_runs
    for s in (0, 3, 15):
        name = SETTING.metric(s=s)
        values = {label: frame[name].to_numpy() for label, frame in values_of.values([name]).items()}
        for label in ("gender", "age"):
            cell = search.cells[(search.cells["segmentation"] == label) & (search.cells["s"] == s)].iloc[0]
            increase = values[label].mean() / values["global"].mean() - 1
            resampled = (counts @ values[label]) / (counts @ values["global"]) - 1
            assert cell["relative increase"] == pytest.approx(increase)
            assert cell["z"] == pytest.approx(increase / resampled.std(ddof=1))
            assert cell["wins"] == pytest.approx((resampled > 0).mean())
    curve = search.curve.set_index("s")
    assert search.chosen == curve["sensitivity"].idxmax()
    assert search.literal_choice == curve["relative increase"].idxmax()
    assert set(search.cells["segmentation"]) == {"gender", "age"}
    summary = study.summary(search).set_index("rule")
    assert summary["s"].tolist() == [0, search.chosen, search.literal_choice]
    chosen = search.cells[search.cells["s"] == search.chosen]
    row = summary.loc[short_head.CHOSEN]
    assert row["wins"] == chosen["wins"].min() and row["segmentations"] == 2
    assert row["contain zero"] == ((chosen["low"] <= 0) & (chosen["high"] >= 0)).sum()
    assert row["global kept"] == pytest.approx(curve.loc[search.chosen, "global"] / curve.loc[0, "global"])


def test_without_segments_there_is_no_search_and_no_step(three: study.SystemStudy):
    assert study.sensitivity_search(three, SETTING, []) is None


def test_head_sizes_are_shares_of_the_catalogue():
    assert short_head.head_sizes(300) == [0, 1, 2, 3, 6, 9, 15, 22, 30, 45, 60, 90]
    assert short_head.head_sizes(4, (0.0, 0.5, 1.0)) == [0, 2]


def test_head_shares_and_the_step(three: study.SystemStudy):
    shares = study.head_shares(study.ranking_means(three, SETTING, 10)).set_index("system")
    assert (shares["penalised"] <= shares["unpenalised"] + 1e-12).all()
    assert shares.loc["Popularity", "short-head share"] > shares.loc["Random", "short-head share"]
    np.testing.assert_allclose(shares["short-head share"], 1 - shares["penalised"] / shares["unpenalised"])
    np.testing.assert_allclose(shares["penalised"], three.scored.means([SETTING.metric(s=10)])[SETTING.metric(s=10)])
    np.testing.assert_allclose(shares["unpenalised"], three.scored.means([SETTING.metric()])[SETTING.metric()])
    assert study.head_shares(study.ranking_means(three, SETTING, 0)) is None


# ---------------------------------------------------------------------------- new users


def test_the_crossing_is_where_a_curve_stays_above_the_line():
    known = [1, 2, 3, 5]
    curves = np.array([[0.1, 0.3, 0.2, 0.4], [0.5, 0.6, 0.7, 0.8], [0.1, 0.1, 0.1, 0.1]])
    crossing = new_users.crossing(curves, np.array([0.25, 0.2, 0.3]), known)
    assert crossing[:2].tolist() == [5.0, 1.0] and math.isnan(crossing[2])


def test_new_user_study_on_a_small_world(world: Ratings):
    found = study.new_user_study(world, SETTING, 5, max_known=6, groups=2, n_boot=20, seed=3)
    assert found.known == [1, 2, 3, 4, 5, 6]
    assert set(found.lines["list"]) == {new_users.GLOBAL, new_users.DEMOGRAPHIC}
    assert found.attributes == ("gender", "age") and found.step == 5
    assert len(found.crossings) == 2 and found.headline["metric"] == new_users.STEP
    groups = new_user_splits(world, 2, 6, setting.MIN_TEST, seed=3)  # the study's groups of newcomers
    assert found.n_users == sum(len(split.new_users) for split in groups)
    assert (found.heads["count"] >= 0).all() and (found.heads["count"] <= SETTING.m).all()
    assert found.heads["k"].isna().sum() == 2 and set(found.heads["k"].dropna()) == {1.0, 6.0}
    curve = found.curves[(found.curves["metric"] == new_users.STEP)].set_index("k")["value"]
    line = found.lines.set_index(["metric", "list"])["value"][new_users.STEP, new_users.DEMOGRAPHIC]
    np.testing.assert_equal(found.headline["crossing"],  # NaN when MF never stays above the list
                            new_users.crossing(curve.to_numpy()[None, :], np.array([line]), found.known)[0])


def test_new_users_without_demographics_or_a_step(world: Ratings):
    bare = dataclasses.replace(world, user_attributes=None)
    found = study.new_user_study(bare, SETTING, 0, max_known=3, groups=2, n_boot=10, seed=3)
    assert found.attributes == () and list(found.metrics) == [new_users.NO_STEP]
    assert set(found.lines["list"]) == {new_users.GLOBAL} and found.crossings.empty and found.headline is None


def test_no_new_user_study_without_users_with_enough_ratings():
    few = Ratings.from_codes(np.repeat(np.arange(8), 10), np.tile(np.arange(10), 8), np.full(80, 4.0), (8, 10),
                             positive_threshold=4)
    assert study.new_user_study(few, SETTING, 0) is None


def test_system_presets_name_the_recommenders():
    assert study.system_presets("mf, user-knn") == {"implicit MF (top-N)": "mf", "user-kNN (top-N)": "user-knn"}
    assert study.system_presets("rating-mf, item-knn") == {"rating-MF": "rating-mf", "item-kNN": "item-knn"}
    with pytest.raises(ValueError, match="unknown recommender 'svd'"):
        study.system_presets("mf, svd")
    with pytest.raises(ValueError, match="no recommender preset"):
        study.system_presets(" , ")


# ------------------------------------------------------------------------------- truth


def test_no_truth_agreement_without_complete_relevance(three: study.SystemStudy, world: Ratings):
    assert study.truth_agreement(three, dataclasses.replace(world, true_relevance=None), SETTING, 5) is None


def test_truth_agreement_rows_cover_every_truth_and_observed_metric(three: study.SystemStudy, world: Ratings):
    agreement = study.truth_agreement(three, world, SETTING, 5, seed=1, n_boot=20)
    observed = [*systems.CLASSICAL, systems.NO_STEP, systems.STEP]
    assert agreement["observed metric"].tolist() == observed * 3
    assert agreement["truth"].tolist() == [name for name in ("P@10", "nDCG@10", truth.BEHAVIOURAL) for _ in observed]
    assert ((agreement["tau"] >= -1) & (agreement["tau"] <= 1)).all()
    assert (agreement["tau_low"] <= agreement["tau_high"]).all() and set(agreement["best"]) <= {0.0, 1.0}

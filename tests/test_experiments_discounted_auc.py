"""Chapter 7's driver and the pieces it added: segment lists, the short-head search, new users, truths."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.evaluate import bootstrap_counts, true_quality
from recbias.experiments import dauc_new_users as newcomers, dauc_short_head as short_head, dauc_systems as systems
from recbias.experiments import discounted_auc as dauc
from recbias.metrics import position_discount
from recbias.ratings import Ratings
from recbias.recommenders import SegmentPopularity, attribute_levels, make
from recbias.splits import new_user_splits

SETTING = dauc.Setting(Q=0.3, m=10, z=50, base=3.0)


@pytest.fixture(scope="module")
def world() -> Ratings:
    return dauc.judged_at(datasets.load("synthetic-small", seed=1), 4.0, seed=1)


@pytest.fixture(scope="module")
def study(world: Ratings) -> dauc.Study:
    return dauc.system_study(world, seed=1, systems={"Popularity": "popularity", "MF": "mf", "Random": "random"})


def toy_with_attributes() -> Ratings:
    """Two women (users 0, 1) and one man (user 2); positive means 4 stars or more."""
    rows = [(0, 0, 5), (0, 1, 4), (1, 0, 5), (1, 2, 2), (2, 2, 5), (2, 1, 1), (2, 3, 4)]
    users, items, values = (np.array(column) for column in zip(*rows, strict=True))
    ratings = Ratings.from_codes(users, items, values.astype(float), (3, 4), positive_threshold=4, name="toy")
    table = pd.DataFrame({"gender": ["F", "F", "M"], "age": [20, 50, 30]}, index=pd.Index(range(3), name="user"))
    return dataclasses.replace(ratings, user_attributes=table)


# ------------------------------------------------------------------------- segment lists


def test_the_global_list_ranks_items_by_positive_ratings():
    toy = toy_with_attributes()
    scores = SegmentPopularity(()).fit(toy).score_users(np.arange(3))
    positives = np.array([2, 1, 1, 1])  # item 0 liked twice, items 1-3 once each
    np.testing.assert_allclose(scores, np.log((positives + 1) / (positives.sum() + 4))[None, :].repeat(3, axis=0))


def test_a_segment_list_is_bayes_rule_with_the_audience_shrunk_towards_everybody():
    """P(i | F) ∝ P(i) (n+(i, F) + λ π_F) / (n+(i) + λ), worked by hand for λ = 2."""
    toy = toy_with_attributes()
    scores = SegmentPopularity(("gender",), smoothing=2.0).fit(toy).score_users(np.array([0, 2]))
    prior = np.log((np.array([2, 1, 1, 1]) + 1) / 9)
    pi_f, pi_m = 3 / 5, 2 / 5  # women gave 3 of the 5 positive ratings
    women = np.log((np.array([2, 1, 0, 0]) + 2 * pi_f) / (np.array([2, 1, 1, 1]) + 2))
    men = np.log((np.array([0, 0, 1, 1]) + 2 * pi_m) / (np.array([2, 1, 1, 1]) + 2))
    np.testing.assert_allclose(scores, np.vstack([prior + women, prior + men]))


def test_attributes_combine_as_naive_bayes():
    toy = toy_with_attributes()
    both = SegmentPopularity(("gender", "age"), smoothing=1.0).fit(toy).score_users(np.arange(3))
    gender = SegmentPopularity(("gender",), smoothing=1.0).fit(toy).score_users(np.arange(3))
    age = SegmentPopularity(("age",), smoothing=1.0).fit(toy).score_users(np.arange(3))
    plain = SegmentPopularity((), smoothing=1.0).fit(toy).score_users(np.arange(3))
    np.testing.assert_allclose(both, gender + age - plain)


def test_numeric_attributes_are_banded_and_missing_values_get_a_level():
    levels, names = attribute_levels(pd.Series([18, 25, 33, 41, 52, 60, 70, np.nan]))
    assert len(names) == 6 and names[-1] == "unknown" and levels[-1] == 5
    assert np.all(np.diff(levels[:-1]) >= 0)  # bands follow the ages
    levels, names = attribute_levels(pd.Series(["M", "F", "M"]))
    assert names == ["F", "M"] and levels.tolist() == [1, 0, 1]


def test_segment_lists_name_what_is_missing():
    toy = toy_with_attributes()
    with pytest.raises(ValueError, match="no user attribute 'occupation'; its attributes: gender, age"):
        SegmentPopularity(("occupation",)).fit(toy)
    with pytest.raises(ValueError, match="has no user attributes"):
        SegmentPopularity(("gender",)).fit(dataclasses.replace(toy, user_attributes=None))
    assert short_head.segmentations(dataclasses.replace(toy, user_attributes=None)) == []
    assert short_head.segmentations(toy) == [("gender",), ("age",), ("gender", "age")]


# --------------------------------------------------------------------- short-head search


def test_the_search_measures_eq_13_and_scales_it_by_resampling(study: dauc.Study, world: Ratings):
    segments = [("gender",), ("age",)]
    search = short_head.sensitivity_search(study, SETTING, segments, sizes=[0, 3, 15], n_boot=40, seed=2)
    systems = short_head.segment_systems(segments)
    for recommender in systems.values():
        recommender.fit(study.fold.train)
    scored = dauc.Scored.of(systems, study.fold.train, study.scored.runs, study.scored.seed)
    counts = bootstrap_counts(study.scored.runs.n_runs, 40, 2) / study.scored.runs.n_runs
    for s in (0, 3, 15):
        name = SETTING.metric(s=s)
        values = {label: frame[name].to_numpy() for label, frame in scored.values([name]).items()}
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


def test_the_search_needs_segments(study: dauc.Study):
    with pytest.raises(ValueError, match="needs user attributes"):
        short_head.sensitivity_search(study, SETTING, [])


def test_head_sizes_are_shares_of_the_catalogue():
    assert short_head.head_sizes(300) == [0, 1, 2, 3, 6, 9, 15, 22, 30, 45, 60, 90]
    assert short_head.head_sizes(4, (0.0, 0.5, 1.0)) == [0, 2]


def test_head_shares_and_the_step(study: dauc.Study):
    shares = short_head.head_shares(study, SETTING, 10).set_index("system")
    assert (shares["penalised"] <= shares["unpenalised"] + 1e-12).all()
    assert shares.loc["Popularity", "short-head share"] > shares.loc["Random", "short-head share"]


# -------------------------------------------------------------------------- four cases


def test_the_four_cases_add_up(study: dauc.Study):
    cases = systems.four_cases(study, [5, 20])
    for n in (5, 20):
        rows = cases[cases["list"] == n]
        np.testing.assert_allclose(rows["hits"] + rows["mishits"] + rows["recommended, not rated"], n)
    liked = study.scored.runs.n_relevant.mean()
    np.testing.assert_allclose(cases["hits"] + cases["liked, not recommended"], liked)


def test_mishit_runs_swap_relevance_for_negative_test_ratings(study: dauc.Study):
    runs = study.scored.runs
    swapped = dauc.mishit_runs(runs)
    assert np.array_equal(swapped.labels, runs.judged & ~runs.labels) and np.array_equal(swapped.judged, runs.judged)
    effect = systems.mishit_effect(study, SETTING).set_index("system")
    assert (effect["mishits at -1"] <= effect["mishits ignored"]).all()
    with pytest.raises(ValueError, match="same entries"):
        study.scored.values(["P@5"], dauc.liked_only(runs))


def test_q_sweep_reads_the_metric_and_its_ends_are_precisions(study: dauc.Study):
    sweep = systems.q_sweep(study, SETTING, (0.0, 0.3, 1.0))
    expected = study.scored.means([SETTING.metric(Q=Q) for Q in (0.0, 0.3, 1.0)])
    np.testing.assert_allclose(sweep.to_numpy(), expected.to_numpy())
    ends = study.scored.means([SETTING.metric(Q=0.0, gain="binary"), "P@1", SETTING.metric(Q=1.0, gain="binary"),
                               f"P@{SETTING.z}"]).to_numpy()
    np.testing.assert_allclose(ends[:, 0], ends[:, 1])
    np.testing.assert_allclose(ends[:, 2], ends[:, 3])
    orders = systems.q_orders(sweep)
    assert orders["τ with the order at Q = 0"].iloc[0] == 1.0 and orders["τ with the order at Q = 1"].iloc[-1] == 1.0
    assert (orders["order"].iloc[1:].to_numpy() != orders["order"].iloc[:-1].to_numpy()).all()  # one row per order


# ---------------------------------------------------------------------------- new users


def test_new_user_groups_are_disjoint_and_reveal_the_first_ratings_in_time_order(world: Ratings):
    splits = new_user_splits(world, groups=2, max_known=5, min_test=3, seed=4)
    eligible = np.flatnonzero(world.user_counts() >= 8)
    assert sorted(np.concatenate([s.new_users for s in splits]).tolist()) == eligible.tolist()
    split = splits[0]
    user = int(split.new_users[0])
    times = np.sort(world.timestamps[world.users == user], kind="stable")
    known = split.train(2)
    assert np.sort(known.timestamps[known.users == user]).tolist() == times[:2].tolist()
    assert split.test.n_ratings == sum(int(world.user_counts()[u]) - 5 for u in split.new_users)
    other = int(np.setdiff1d(np.arange(world.n_users), split.new_users)[0])
    assert (known.users == other).sum() == world.user_counts()[other]
    with pytest.raises(ValueError, match="known must be an integer in"):
        split.train(6)
    with pytest.raises(ValueError, match="groups of new users need at least"):
        new_user_splits(world, groups=world.n_users + 1, max_known=5, min_test=3)


def test_the_crossing_is_where_a_curve_stays_above_the_line():
    known = [1, 2, 3, 5]
    curves = np.array([[0.1, 0.3, 0.2, 0.4], [0.5, 0.6, 0.7, 0.8], [0.1, 0.1, 0.1, 0.1]])
    crossing = newcomers._crossing(curves, np.array([0.25, 0.2, 0.3]), known)
    assert crossing[:2].tolist() == [5.0, 1.0] and math.isnan(crossing[2])


def test_feasible_known_leaves_ratings_for_the_test():
    ratings = Ratings.from_codes(np.repeat(np.arange(8), 24), np.tile(np.arange(24), 8), np.full(192, 4.0), (8, 24),
                                 positive_threshold=4)
    assert newcomers.feasible_known(ratings, 30) == 24 - newcomers.MIN_TEST
    assert newcomers.feasible_known(ratings, 5) == 5


def test_new_user_study_on_a_small_world(world: Ratings):
    new_users = newcomers.new_user_study(world, SETTING, 5, max_known=6, groups=2, n_boot=20, seed=3)
    assert new_users.known == [1, 2, 3, 4, 5, 6]
    assert set(new_users.lines["list"]) == {"the global list", "the list for gender and age"}
    assert len(new_users.crossings) == 2 and new_users.headline["metric"] == "step at s = 5"
    assert new_users.n_users == sum(len(s.new_users) for s in new_users.splits)
    assert (new_users.heads >= 0).all() and (new_users.heads <= SETTING.m).all()


# ------------------------------------------------------------------------------ truths


def test_true_quality_weighs_hits_by_a_discount(world: Ratings, study: dauc.Study):
    fitted = {"MF": study.systems["MF"]}
    flat = np.full(10, 0.1)
    discount = position_discount(SETTING.p, 20, 20)
    truths = true_quality(fitted, study.fold.train, world.true_relevance, n=10, seed=None,
                          discounts={"flat": flat, "behavioural": discount})
    np.testing.assert_allclose(truths["flat"]["MF"], truths["P@10"]["MF"])
    scores = fitted["MF"].score_users(np.arange(world.n_users))
    rated = study.fold.train.matrix("binary").toarray() > 0
    scores[rated] = -np.inf
    top = np.argsort(-scores, axis=1, kind="stable")[:, :20]
    hits = np.take_along_axis(world.true_relevance, top, axis=1) & ~np.take_along_axis(rated, top, axis=1)
    np.testing.assert_allclose(truths["behavioural"]["MF"], hits @ discount)


def test_judged_at_regenerates_the_truth_and_keeps_out_of_scale_thresholds(world: Ratings):
    assert world.positive_threshold == 4.0
    observed = world.true_relevance[world.users, world.items]
    assert np.array_equal(observed, world.values >= 4)
    implicit = Ratings.from_codes(np.array([0, 1]), np.array([0, 1]), np.ones(2), (2, 2), positive_threshold=1,
                                  scale=(1.0, 1.0))
    assert dauc.judged_at(implicit, 4.0) is implicit
    assert "keeps the dataset's own threshold" in dauc.threshold_note(implicit, implicit, 4.0)
    with pytest.raises(ValueError, match="makes every rating"):
        dauc.judged_at(world, 1.0)


def test_system_presets_name_the_recommenders():
    assert newcomers.system_presets("mf, user-knn") == {"MF": "mf", "user-kNN": "user-knn"}
    with pytest.raises(ValueError, match="unknown recommender preset"):
        newcomers.system_presets("mf, svd")


def test_bootstrap_counts_draw_every_unit_with_replacement():
    counts = bootstrap_counts(50, 400, seed=1)
    assert counts.shape == (400, 50) and (counts.sum(axis=1) == 50).all()
    assert counts.mean() == pytest.approx(1.0) and np.array_equal(counts, bootstrap_counts(50, 400, seed=1))
    assert counts.var() == pytest.approx(1 - 1 / 50, rel=0.1)  # binomial(50, 1/50)
    with pytest.raises(ValueError, match="n_boot must be a positive integer"):
        bootstrap_counts(5, 0)

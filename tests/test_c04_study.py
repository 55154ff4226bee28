"""Chapter 4's studies: the non-personalised orderings, the preference-free sweep, the positive ratio,
the measured-vs-true grid and the per-user study (recbias.chapters.c04_popularity_bias.study)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from c04_fixtures import TARGET, grid, grid_study, hand_orderings, hand_sweep, mainstream, orderings, small, sweep

from recbias.bookkit.parameters import ParameterError, number_list
from recbias.chapters.c04_popularity_bias import study
from recbias.chapters.c04_popularity_bias.study import orderings as ordering_module
from recbias.chapters.c04_popularity_bias.study import PERSONALISED, ratio, skew, truth
from recbias.evaluate import compare, summarize
from recbias.evaluate.experiment import run_experiment
from recbias.ratings import Ratings
from recbias.synthetic import PREFERENCE_FREE, generate

ONE = f"1R TI-NN({TARGET - 1})"

# ------------------------------------------------------------------- orderings


def test_ordering_study_covers_every_ordering_design_and_fold() -> None:
    summary = orderings().summary()
    assert set(summary["design"]) == {ONE, "TI-AN"}
    assert list(summary["system"].unique()) == ["Popularity", "Positive count", "Mean rating", "Mean rating (+10)",
                                                "Random", "Test-set oracle"]
    assert set(orderings().runs["fold"]) == {0, 1}
    one = summary[summary["design"] == ONE].set_index("system")
    # random ranking in 1R: 1/|T_u^r| within its interval
    assert one.loc["Random", "ci_low"] <= 1 / TARGET <= one.loc["Random", "ci_high"]


def test_lemma_bounds_hold_for_every_ordering() -> None:
    b = orderings().bounds
    assert (b["lemma lower"] <= b["1R P@10 (ties by code)"]).all()
    assert (b["1R P@10 (ties by code)"] <= b["lemma upper"]).all()
    assert (b["closed-form lower"] < b["closed-form upper"]).all()


def test_popularity_expectation_is_close_to_its_measurement() -> None:
    one = orderings().summary().set_index(["design", "system"]).loc[(ONE, "Popularity")]
    assert one["ci_low"] - 0.01 <= orderings().expected_popularity <= one["ci_high"] + 0.01


def test_ordering_study_rejects_a_target_set_shorter_than_the_list() -> None:
    with pytest.raises(ValueError, match="target_size"):
        study.ordering_study(small(), folds=1, target_size=10)


def test_the_best_trained_ordering_leaves_out_the_oracle_and_tests_are_symmetric() -> None:
    s = orderings()
    means = s.means(ONE)
    assert s.best_trained(ONE) == means.drop("Test-set oracle").idxmax()
    assert s.comparison(ONE, "Popularity", "Random")["t_pvalue"] == pytest.approx(
        s.comparison(ONE, "Random", "Popularity")["t_pvalue"])
    versus = compare(s.runs, ["P@10"], ("design",), baseline="Popularity", average="run")
    row = versus[(versus["design"] == ONE) & (versus["system_b"] == "Test-set oracle")].iloc[0]
    assert s.comparison(ONE, "Popularity", "Test-set oracle").equals(row)



def test_the_relative_interval_at_one_minus_p_touches_zero_and_is_centred_on_the_difference() -> None:
    row = pd.Series({"difference": 0.01, "t_statistic": 2.0, "users": 101, "mean_b": 0.1})
    p = 2 * stats.t.sf(2.0, 100)  # the two-sided p-value of that t
    low, high = ordering_module.relative_interval(row, 1 - p)
    assert low == pytest.approx(0, abs=1e-12) and (low + high) / 2 == pytest.approx(0.1)  # 0.01 over a mean of 0.1


def _popularity_bounds_row(low: float, high: float) -> pd.Series:
    """Users' P@10 of 0.1 and 0.2 (mean 0.15) against closed-form bounds ``[low, high]``."""
    values = np.tile([0.1, 0.2], 10)
    table = ordering_module.bounds_table(hand_orderings({"Popularity": values, "Random": values / 10},
                                                        {"Popularity": (low, high), "Random": (0.0, 1.0)}))
    assert table.set_index("system").loc["Random", "exact expectation"] == 1 / 100
    return table.set_index("system").loc["Popularity"]


def test_bounds_table_places_the_interval_against_the_bounds_at_its_edges() -> None:
    interval = _popularity_bounds_row(0.0, 1.0)
    low, high = interval["ci_low"], interval["ci_high"]
    assert 0.1 < low < 0.15 < high < 0.2 and interval["position"] == ordering_module.INSIDE
    assert _popularity_bounds_row(0.0, low)["position"] == ordering_module.INSIDE  # touching counts as meeting
    assert _popularity_bounds_row(0.0, np.nextafter(low, 0))["position"] == ordering_module.ABOVE
    assert _popularity_bounds_row(high, 1.0)["position"] == ordering_module.INSIDE
    assert _popularity_bounds_row(np.nextafter(high, 1), 1.0)["position"] == ordering_module.BELOW


def test_bounds_table_says_whether_the_lemma_holds_at_its_edges() -> None:
    values = np.tile([0.1, 0.2], 10)
    hand = hand_orderings({"Popularity": values, "Random": values / 10}, {"Popularity": (0, 1), "Random": (0, 1)})
    split = hand.bounds["1R P@10 (ties by code)"].to_numpy()
    hand.bounds["lemma upper"] = [split[0], np.nextafter(split[1], 0)]  # touching holds, just below does not
    table = ordering_module.bounds_table(hand).set_index("system")
    assert list(table["lemma holds"]) == [True, False]


# ----------------------------------------------------------------------- sweep


def test_sweep_always_runs_uniform_popularity_in_both_count_regimes() -> None:
    s = sweep()
    assert s.alphas == [0.0, 1.0] and s.top == 1.0 and s.skewed == [1.0]
    assert set(s.expected["counts"]) == {study.EXACT, study.IN_EXPECTATION}
    # exact counts: only the rounding to integers (16 or 17 ratings here) leaves a variance, at most 1/4
    assert s.uniform(study.EXACT)["item count variance / mean"] < 0.25 / 16
    assert s.uniform(study.IN_EXPECTATION)["item count variance / mean"] > 0.5
    assert s.all_relevant == "TI-NN(150)"
    worlds = s.worlds.set_index("alpha")
    assert worlds.loc[1.0, "top 10% share"] > worlds.loc[0.0, "top 10% share"]
    assert worlds.loc[0.0, "most"] - worlds.loc[0.0, "fewest"] <= 1
    assert s.dataset == "preference-free worlds of synthetic-small"


def test_sweep_measures_what_the_closed_form_expects() -> None:
    exact = sweep().expected[sweep().expected["counts"] == study.EXACT]
    for _, row in exact.iterrows():
        width = row["Popularity high"] - row["Popularity low"]
        assert abs(row["Popularity"] - row["Popularity expected"]) <= width
    gaps = (exact["Popularity expected"] / exact["Popularity"] - 1).abs()
    assert skew.expectation_gap(sweep()) == pytest.approx(gaps.max())


def test_preference_free_worlds_leave_knn_and_mf_at_random_level() -> None:
    """Without preferences, with every item equally popular in expectation and counts that
    scatter like Poisson draws (so that training counts say nothing about test counts),
    nothing is left to learn: kNN, MF and pLSA rank at random (95% intervals hold 1/|T_u^r|)."""
    world = generate(preset="synthetic", alpha=0.0, seed=0, **PREFERENCE_FREE)
    systems = {"MF": "mf", "user-kNN": "user-knn", "pLSA": "plsa", "Random": "random"}
    experiment = run_experiment(world, ["1R TI-NN(99)"], systems, folds=1, metrics=["P@10"], cache=False)
    summary = experiment.summary(average="run").set_index("system")
    for system in systems:
        assert summary.loc[system, "ci_low"] <= 0.01 <= summary.loc[system, "ci_high"], system


def test_with_exact_uniform_counts_knn_falls_below_random_like_popularity() -> None:
    """Exact equal counts: the held-out item has lost a rating to the test set, and user-kNN,
    which sums its neighbours' ratings, ranks it down as popularity does."""
    uniform = study.skew_sweep([0.0], preset="synthetic", target_size=100, all_relevant=False, cache=False)
    knn = uniform.precision[uniform.precision["system"] == PERSONALISED].iloc[0]
    assert knn["ci_high"] < 0.01
    assert uniform.uniform(study.EXACT)["Popularity high"] < 0.01
    assert uniform.all_relevant is None and uniform.skewed == []
    assert np.isnan(skew.plsa_gap(uniform))


def test_our_knn_learns_popularity_without_preferences() -> None:
    """What the chapter explains: user-kNN adds up neighbours' ratings, so with skewed
    popularity it rises above random even though no user prefers anything."""
    knn, random = sweep().series(PERSONALISED, "ci_low")[1.0], sweep().series("Random", "ci_high")[1.0]
    assert knn > random
    lift = sweep().difference("Random", PERSONALISED).loc[1.0]
    assert lift["difference"] > 0 and lift["p"] < 0.05


def test_the_rating_predictors_do_not_learn_popularity_without_preferences() -> None:
    """The papers' rating-MF and rating-kNN read rating values, which carry nothing here: neither rises above
    random beyond noise (paired test), and both stay far below popularity at the skewed world."""
    for system in ("rating-MF", "rating-kNN"):
        versus = sweep().difference("Random", system)
        assert not ((versus["difference"] > 0) & (versus["p"] < 0.05)).any()
        behind = sweep().difference("Popularity", system).loc[1.0]
        assert behind["difference"] < 0 and behind["p"] < 0.05


def test_the_paired_differences_are_the_differences_of_the_run_means() -> None:
    """Brute force: with the run as the unit, a paired difference is the difference of the two systems' means."""
    means = sweep().metrics.set_index(["alpha", "system", "metric"])["mean"]
    for system, metric in (("rating-MF", "P@10"), ("Popularity", "nDCG@10"), ("pLSA", "RR")):
        got = sweep().difference("Random", system, metric).loc[1.0, "difference"]
        assert got == pytest.approx(means[(1.0, system, metric)] - means[(1.0, "Random", metric)])


def test_independent_difference_is_welch_t_with_one_run_per_user() -> None:
    rng = np.random.default_rng(1)
    first, second = rng.normal(0.1, 0.05, 300), rng.normal(0.11, 0.08, 200)

    def per_user(values: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"runs": 1, "total": values})

    difference, p = skew.independent_difference(per_user(first), per_user(second))
    assert difference == pytest.approx(second.mean() - first.mean())
    assert p == pytest.approx(stats.ttest_ind(second, first, equal_var=False).pvalue)
    assert skew.independent_difference(per_user(np.full(3, 0.1)), per_user(np.full(3, 0.1))) == (0.0, 1.0)


def test_run_average_weighs_runs_and_treats_users_as_clusters() -> None:
    runs = pd.DataFrame({"user": [0, 0, 0, 1, 2, 2], "P@10": [0.1, 0.2, 0.0, 0.4, 0.3, 0.1]})
    per_user = runs.groupby("user")["P@10"].agg(runs="size", total="sum")
    mean, variance, users = skew.run_average(per_user)
    summary = summarize(runs.assign(system="s", run=range(6)), ["P@10"], average="run").iloc[0]
    assert (mean, users) == (pytest.approx(1.1 / 6), 3)
    assert summary["ci_high"] - summary["mean"] == pytest.approx(stats.t.ppf(0.975, 2) * np.sqrt(variance))


def test_sweep_steps_read_the_per_user_precision() -> None:
    s = sweep()
    steps = s.steps("Popularity")
    popularity = s.series("Popularity")
    assert list(steps.index) == s.alphas[1:] and list(steps["from"]) == s.alphas[:-1]
    np.testing.assert_allclose(steps["difference"], np.diff(popularity.to_numpy()))
    assert steps["p"].between(0, 1).all()


def test_sweep_readings_on_a_hand_made_sweep() -> None:
    """pLSA's gap at its edge."""
    hand = hand_sweep({"Popularity": {0.0: (0.008, 0.007, 0.009), 1.0: (0.04, 0.03, 0.05), 2.0: (0.08, 0.07, 0.09)},
                       "pLSA": {0.0: (0.01, 0.009, 0.011), 1.0: (0.046, 0.01, 0.05), 2.0: (0.068, 0.0101, 0.07)},
                       "Random": {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.009, 0.011), 2.0: (0.01, 0.009, 0.011)},
                       "rating-MF": {0.0: (0.01, 0.01, 0.02), 1.0: (0.02, 0.0100001, 0.03), 2.0: (0.01, 0.005, 0.01)},
                       "rating-kNN": {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.0, 0.1), 2.0: (0.02, 0.01, 0.03)},
                       "implicit MF (top-N)": {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.0, 0.1), 2.0: (0.02, 0.01, 0.03)},
                       PERSONALISED: {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.0, 0.1), 2.0: (0.02, 0.01, 0.03)}})
    assert skew.plsa_gap(hand) == pytest.approx(0.15)  # |0.046 / 0.04 - 1| and |0.068 / 0.08 - 1|


def test_fitted_alpha_places_a_generated_world_on_the_axis() -> None:
    world = generate(seed=2, preset="synthetic", alpha=1.4, exact_counts="items", **PREFERENCE_FREE)
    assert f"{skew.fitted_alpha(world):.2f}" == "1.40"


def test_sweep_rejects_an_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown synthetic preset 'nope'"):
        study.skew_sweep([1.0], preset="nope")


# ------------------------------------------------------------------- ratio


def test_positive_ratio_curves_flag_constant_ratios() -> None:
    everything_positive = Ratings.from_codes([0, 1, 2, 0], [0, 0, 1, 2], [5, 5, 5, 5], (3, 3), positive_threshold=4,
                                             name="all-positive")
    curves = study.positive_ratio_curves([everything_positive], segments=3)
    trends = study.ratio_trends(curves)
    assert trends["Spearman (segment, ratio)"].iloc[0] == 0 and trends["p"].iloc[0] == 1
    assert trends["trend"].iloc[0] == ratio.NO_TREND


def _curve(name: str, ratios: list[float], rho: float, p: float) -> pd.DataFrame:
    return pd.DataFrame({"segment": np.arange(1, len(ratios) + 1), "positive_ratio": ratios, "dataset": name,
                         "spearman": rho, "p": p, "rank_share": np.linspace(0.05, 1, len(ratios))})


def test_ratio_trends_read_both_ends_and_name_a_trend_only_below_the_level() -> None:
    curves = pd.concat([_curve("a", [0.5] * 10 + [0.1] * 10, -0.9, 0.0499), _curve("b", [0.2] * 20, -0.9, 0.05),
                        _curve("c", [0.1] * 5, 0.4, 0.01)], ignore_index=True)
    trends = study.ratio_trends(curves).set_index("dataset")
    assert trends.loc["a", "head ratio"] == 0.5 and trends.loc["a", "tail ratio"] == 0.1  # the first and last 2
    assert list(trends["trend"]) == [ratio.GROWS, ratio.NO_TREND, ratio.FALLS]


# ------------------------------------------------------------ truth, users


def test_mainstream_scores_match_pandas_correlations() -> None:
    ratings = generate(seed=3, preset="synthetic-small")
    frame = ratings.to_frame()
    sums = frame.groupby("item")["rating"].transform("sum")
    counts = frame.groupby("item")["rating"].transform("count")
    frame = frame.assign(others=(sums - frame["rating"]) / (counts - 1))[counts > 1]
    expected = frame.groupby("user")[["rating", "others"]].apply(lambda g: g["rating"].corr(g["others"]))
    scores = truth.mainstream_scores(ratings)
    defined = expected.dropna()
    np.testing.assert_allclose(scores[defined.index.to_numpy()], defined.to_numpy(), atol=1e-9)
    # a user who rates exactly like the crowd's leave-one-out mean scores 1
    crowd = Ratings.from_codes([0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 1, 2] * 3, [1, 3, 5, 1, 3, 5, 1, 3, 5], (3, 3),
                               positive_threshold=4)
    assert truth.mainstream_scores(crowd) == pytest.approx([1.0, 1.0, 1.0])


def test_observation_grid_has_every_cell_system_and_measure() -> None:
    g = grid()
    assert len(g) == 2 * len(truth.TRUTH_SYSTEMS) * len(truth.MEASURES)
    assert set(g["measure"]) == set(truth.MEASURES)
    assert g["mean"].between(0, 1).all()
    relative = truth.popularity_over(g, study.PERSONALISED)
    assert relative.shape == (2, len(truth.MEASURES))
    cell = g[(g["selection"] == 2.0) & (g["measure"] == "AR")].set_index("system")["mean"]
    assert relative.loc[(1.0, 2.0), "AR"] == pytest.approx(cell["Popularity"] / cell[study.PERSONALISED])


def test_the_grid_compares_the_measured_and_true_shares_world_by_world() -> None:
    shares = grid_study().shares.set_index(["alpha", "selection"])
    over = truth.popularity_over(grid(), study.PERSONALISED)
    np.testing.assert_allclose(shares["1R"], over["1R"])
    np.testing.assert_allclose(shares["true"], over["true"])
    np.testing.assert_allclose(shares["difference"], over["1R"] - over["true"])
    assert shares["p"].between(0, 1).all()


def _share_inputs(true_popularity: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """200 users, two 1R runs each, where popularity and the personalised system measure alike (share 1), and a
    truth in which the personalised system is right half the time and popularity ``true_popularity`` of it."""
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(200), 2)
    one = pd.concat([pd.DataFrame({"user": users, "system": system, "P@10": rng.binomial(10, 0.3, users.size) / 10})
                     for system in ("Popularity", PERSONALISED)], ignore_index=True)
    true = pd.DataFrame({"Popularity": rng.binomial(10, true_popularity, 200) / 10,
                         PERSONALISED: rng.binomial(10, 0.5, 200) / 10, "Random": 0.0})
    return one, true


@pytest.mark.parametrize("true_popularity, beyond", [(0.2, True), (0.5, False)])
def test_share_test_resamples_the_users_of_a_world(true_popularity, beyond) -> None:
    one, true = _share_inputs(true_popularity)
    result = truth.share_test(one, true, n_boot=400)
    assert result["1R"] == pytest.approx(one.loc[one["system"] == "Popularity", "P@10"].mean()
                                         / one.loc[one["system"] == PERSONALISED, "P@10"].mean())
    assert result["true"] == pytest.approx(true["Popularity"].mean() / true[PERSONALISED].mean())
    assert result["difference"] == pytest.approx(result["1R"] - result["true"])
    assert (result["p"] < 0.05) == beyond


def test_mainstream_study_splits_users_into_equal_groups() -> None:
    table = study.mainstream_study(small(), groups=4, cache=False)
    assert set(table["measure"]) == {"measured", "true"}
    users = table.drop_duplicates("group")["users"]
    assert users.max() - users.min() <= 1
    assert (table.groupby("group")["mainstream low"].first().diff().dropna() > 0).all()
    wins = table[table["measure"] == "measured"].pivot_table(index="group", columns="system", values="wins")
    assert (wins.sum(axis=1) <= 1).all()  # strictly better for one system or the other, never both
    assert set(mainstream()["group"]) == {1, 2, 3, 4, 5}


# ----------------------------------------------------------- page parameters


def test_number_list_parses_and_refuses() -> None:
    assert number_list("0, 1.5,2", "x", 0, 2) == [0.0, 1.5, 2.0]
    for bad in ("", "a, 1", "0, 3"):
        with pytest.raises(ParameterError, match="x"):
            number_list(bad, "x", 0, 2)

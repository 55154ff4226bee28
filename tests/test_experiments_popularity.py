"""Chapter 4's driver: non-personalised orderings, the preference-free sweep, the truth grid, the per-user study."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from recbias import datasets
from recbias.bookkit.parameters import ParameterError, number_list
from recbias.experiments import popularity_findings, popularity_orderings, popularity_ratio, popularity_skew
from recbias.experiments import popularity_truth
from recbias.ratings import Ratings
from recbias.synthetic import PREFERENCE_FREE, generate


@pytest.fixture(scope="module")
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=0)


@pytest.fixture(scope="module")
def study(small: Ratings) -> popularity_orderings.OrderingStudy:
    return popularity_orderings.ordering_study(small, folds=2, target_size=40, seed=0)


@pytest.fixture(scope="module")
def sweep() -> popularity_skew.SkewSweep:
    return popularity_skew.skew_sweep([1.0], preset="synthetic-small", target_size=40, seed=0, cache=False)


# ------------------------------------------------------------------- orderings


def test_ordering_study_covers_every_ordering_design_and_fold(study: popularity_orderings.OrderingStudy) -> None:
    summary = study.summary()
    assert set(summary["design"]) == {"1R TI-NN(39)", "TI-AN"}
    assert list(summary["system"].unique()) == ["Popularity", "Positive count", "Mean rating", "Mean rating (+10)",
                                                "Random", "Test-set oracle"]
    assert set(study.runs["fold"]) == {0, 1}
    one = summary[summary["design"] == "1R TI-NN(39)"].set_index("system")
    # random ranking in 1R: 1/|T_u^r| within its interval
    assert one.loc["Random", "ci_low"] <= 1 / 40 <= one.loc["Random", "ci_high"]


def test_lemma_bounds_hold_for_every_ordering(study: popularity_orderings.OrderingStudy) -> None:
    b = study.bounds
    assert (b["lemma lower"] <= b["1R P@10 (ties by code)"]).all()
    assert (b["1R P@10 (ties by code)"] <= b["lemma upper"]).all()
    assert (b["closed-form lower"] < b["closed-form upper"]).all()


def test_popularity_expectation_is_close_to_its_measurement(study: popularity_orderings.OrderingStudy) -> None:
    one = study.summary().set_index(["design", "system"]).loc[("1R TI-NN(39)", "Popularity")]
    assert one["ci_low"] - 0.01 <= study.expected_popularity <= one["ci_high"] + 0.01


def test_ordering_study_rejects_a_target_set_shorter_than_the_list(small: Ratings) -> None:
    with pytest.raises(ValueError, match="target_size"):
        popularity_orderings.ordering_study(small, folds=1, target_size=10)


# ----------------------------------------------------------------------- sweep


def test_sweep_always_runs_uniform_popularity_in_both_count_regimes(sweep: popularity_skew.SkewSweep) -> None:
    assert sweep.alphas == [0.0, 1.0]
    assert set(sweep.expected["counts"]) == {popularity_skew.EXACT, popularity_skew.IN_EXPECTATION}
    # exact counts: only the rounding to integers (16 or 17 ratings here) leaves a variance, at most 1/4
    assert sweep.uniform(popularity_skew.EXACT)["item count variance / mean"] < 0.25 / 16
    assert sweep.uniform(popularity_skew.IN_EXPECTATION)["item count variance / mean"] > 0.5
    assert sweep.all_relevant == "TI-NN(150)"
    worlds = sweep.worlds.set_index("alpha")
    assert worlds.loc[1.0, "top 10% share"] > worlds.loc[0.0, "top 10% share"]
    assert worlds.loc[0.0, "most"] - worlds.loc[0.0, "fewest"] <= 1


def test_sweep_measures_what_the_closed_form_expects(sweep: popularity_skew.SkewSweep) -> None:
    exact = sweep.expected[sweep.expected["counts"] == popularity_skew.EXACT]
    for _, row in exact.iterrows():
        width = row["Popularity high"] - row["Popularity low"]
        assert abs(row["Popularity"] - row["Popularity expected"]) <= width


def test_published_numbers_are_comparable_only_on_ml1m_shaped_worlds(sweep: popularity_skew.SkewSweep) -> None:
    claims = popularity_skew.published_numbers(sweep)
    assert {c["key"] for c in claims} == set(popularity_skew.published()["key"])
    assert all(c["dataset"] != c["paper_dataset"] for c in claims)  # synthetic-small is not the papers' shape
    assert {c["paper"] for c in claims} == {0.0077, 0.0100}


def test_preference_free_worlds_leave_knn_and_mf_at_random_level() -> None:
    """Without preferences, with every item equally popular in expectation and counts that
    scatter like Poisson draws (so that training counts say nothing about test counts),
    nothing is left to learn: kNN, MF and pLSA rank at random (95% intervals hold 1/|T_u^r|)."""
    from recbias.evaluate.experiment import run_experiment

    world = generate(preset="synthetic", alpha=0.0, seed=0, **PREFERENCE_FREE)
    systems = {"MF": "mf", "user-kNN": "user-knn", "pLSA": "plsa", "Random": "random"}
    experiment = run_experiment(world, ["1R TI-NN(99)"], systems, folds=1, metrics=["P@10"], cache=False)
    summary = experiment.summary(average="run").set_index("system")
    for system in systems:
        assert summary.loc[system, "ci_low"] <= 0.01 <= summary.loc[system, "ci_high"], system


def test_with_exact_uniform_counts_knn_falls_below_random_like_popularity() -> None:
    """Exact equal counts: the held-out item has lost a rating to the test set, and user-kNN,
    which sums its neighbours' ratings, ranks it down as popularity does."""
    uniform = popularity_skew.skew_sweep([0.0], preset="synthetic", target_size=100, all_relevant=False, cache=False)
    knn = uniform.precision[uniform.precision["system"] == "user-kNN"].iloc[0]
    assert knn["ci_high"] < 0.01
    assert uniform.uniform(popularity_skew.EXACT)["Popularity high"] < 0.01


def test_our_knn_learns_popularity_without_preferences(sweep: popularity_skew.SkewSweep) -> None:
    """What the chapter explains: user-kNN adds up neighbours' ratings, so with skewed
    popularity it rises above random even though no user prefers anything."""
    knn, random = sweep.series("user-kNN", "ci_low")[1.0], sweep.series("Random", "ci_high")[1.0]
    assert knn > random


# ---------------------------------------------------------- ratio, truth, users


def test_positive_ratio_curves_flag_constant_ratios() -> None:
    everything_positive = Ratings.from_codes([0, 1, 2, 0], [0, 0, 1, 2], [5, 5, 5, 5], (3, 3), positive_threshold=4,
                                             name="all-positive")
    curves = popularity_ratio.positive_ratio_curves([everything_positive], segments=3)
    trends = popularity_ratio.ratio_trends(curves)
    assert trends["Spearman (segment, ratio)"].iloc[0] == 0 and trends["p"].iloc[0] == 1


def test_mainstream_scores_match_pandas_correlations() -> None:
    ratings = generate(seed=3, preset="synthetic-small")
    frame = ratings.to_frame()
    sums = frame.groupby("item")["rating"].transform("sum")
    counts = frame.groupby("item")["rating"].transform("count")
    frame = frame.assign(others=(sums - frame["rating"]) / (counts - 1))[counts > 1]
    expected = frame.groupby("user")[["rating", "others"]].apply(lambda g: g["rating"].corr(g["others"]))
    scores = popularity_truth.mainstream_scores(ratings)
    defined = expected.dropna()
    np.testing.assert_allclose(scores[defined.index.to_numpy()], defined.to_numpy(), atol=1e-9)
    # a user who rates exactly like the crowd's leave-one-out mean scores 1
    crowd = Ratings.from_codes([0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 1, 2] * 3, [1, 3, 5, 1, 3, 5, 1, 3, 5], (3, 3),
                               positive_threshold=4)
    assert popularity_truth.mainstream_scores(crowd) == pytest.approx([1.0, 1.0, 1.0])


def test_observation_grid_has_every_cell_system_and_measure() -> None:
    grid = popularity_truth.observation_grid([1.0], [0.0, 2.0], preset="synthetic-small", target_size=40, cache=False)
    assert len(grid) == 2 * len(popularity_truth.TRUTH_SYSTEMS) * len(popularity_truth.MEASURES)
    assert set(grid["measure"]) == set(popularity_truth.MEASURES)
    assert grid["mean"].between(0, 1).all()
    relative = popularity_truth.relative_scores(grid)
    assert len(relative) == 2 * len(popularity_truth.MEASURES)


def test_mainstream_study_splits_users_into_equal_groups(small: Ratings) -> None:
    table = popularity_truth.mainstream_study(small, groups=4, cache=False)
    assert set(table["measure"]) == {"measured", "true"}
    users = table.drop_duplicates("group")["users"]
    assert users.max() - users.min() <= 1
    assert (table.groupby("group")["mainstream low"].first().diff().dropna() > 0).all()
    wins = table[table["measure"] == "measured"].pivot_table(index="group", columns="system", values="wins")
    assert (wins.sum(axis=1) <= 1).all()  # strictly better for one system or the other, never both


def test_number_list_parses_and_refuses() -> None:
    assert number_list("0, 1.5,2", "x", 0, 2) == [0.0, 1.5, 2.0]
    for bad in ("", "a, 1", "0, 3"):
        with pytest.raises(ParameterError, match="x"):
            number_list(bad, "x", 0, 2)


def test_findings_have_verdicts_and_evidence(study, sweep, small) -> None:
    curves = popularity_ratio.positive_ratio_curves([small])
    grid = popularity_truth.observation_grid([1.0], [0.0], preset="synthetic-small", target_size=40, cache=False)
    users = popularity_truth.mainstream_study(small, cache=False)
    claims = popularity_findings.findings(study, sweep, curves, grid, users, small.name)
    assert len({c["key"] for c in claims}) == len(claims) >= 9
    assert all(isinstance(c["holds"], bool) and c["evidence"] and c["anchor"] for c in claims)
    page = (Path(__file__).resolve().parents[1] / "book" / "04_popularity_bias.py").read_text()
    assert all(f":name: {claim['anchor']}\n" in page for claim in claims)


def test_fitted_alpha_text_places_a_generated_world_on_the_axis() -> None:
    world = generate(seed=2, preset="synthetic", alpha=1.4, exact_counts="items", **PREFERENCE_FREE)
    assert popularity_skew.fitted_alpha_text(world).endswith("α = 1.40")

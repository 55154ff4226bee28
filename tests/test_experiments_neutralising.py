"""Chapter 5's drivers: uniform plans, the split profiles, the positive-ratio curve, the study and its claims."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import splits
from recbias.experiments import make_folds
from recbias.experiments import neutralising as nz
from recbias.experiments import neutralising_claims as claims
from recbias.experiments import neutralising_index as ix
from recbias.experiments import neutralising_splits as ns
from recbias.ratings import Ratings
from recbias.synthetic import generate


def counts_ratings(counts: list[int], positive_share: float = 1.0, seed: int = 0) -> Ratings:
    items = np.repeat(np.arange(len(counts)), counts)
    users = np.concatenate([np.arange(c) for c in counts])
    values = np.where(np.random.default_rng(seed).random(len(items)) < positive_share, 5.0, 1.0)
    return Ratings.from_codes(users, items, values, (max(counts), len(counts)), positive_threshold=4,
                              scale=(1, 5), name="curve")


def test_uniform_plan_lowers_sigma_only_when_infeasible() -> None:
    ratings = counts_ratings([40, 30, 20, 10, 5, 5, 1, 1])
    plan = ns.uniform_plan(ratings, 0.2, 0.2)
    assert plan.used == 0.2 and (plan.size, plan.eta) == tuple(
        (len(t), e) for t, e in [splits.uniform_target(ratings.item_counts(), 0.2, 0.2)])[0]
    assert plan.achieved == pytest.approx(plan.size * plan.eta / ratings.n_ratings)
    largest = splits.largest_uniform_ratio(ratings.item_counts(), 0.2)
    lowered = ns.uniform_plan(ratings, 0.9, 0.2)
    assert lowered.used == pytest.approx(np.floor(100 * largest) / 100) and lowered.used < 0.9


def test_split_profiles_follow_the_two_splits() -> None:
    ratings = counts_ratings([50, 10, 30, 20, 5])
    plan = ns.uniform_plan(ratings, 0.2, 0.2)
    profiles = ns.split_profiles(ratings, plan, percentiles=2)
    np.testing.assert_array_equal(profiles["ratings"], [50, 30, 20, 10, 5])
    np.testing.assert_allclose(profiles["random test"], 0.2 * profiles["ratings"])
    assert (profiles["uniform test"] > 0).sum() == plan.size
    assert set(profiles["uniform test"][profiles["uniform test"] > 0]) == {plan.eta}
    np.testing.assert_array_equal(profiles["percentile"], [0, 0, 0, 1, 1])


def test_positive_ratio_curve_is_one_when_every_rating_is_positive() -> None:
    curve = ns.positive_ratio_curve(counts_ratings([40, 30, 20, 10, 5, 3], positive_share=1.0), segments=3)
    np.testing.assert_allclose(curve["ratio"], 1.0)
    assert len(curve) == 3
    mixed = ns.positive_ratio_curve(counts_ratings([400, 300, 200], positive_share=0.5, seed=1), segments=3)
    assert np.all((mixed["ratio"] > 0.4) & (mixed["ratio"] < 0.6))


def test_one_relevant_size_respects_the_percentile_limit() -> None:
    ratings = counts_ratings([3] * 300)
    assert nz.one_relevant_size(ratings, 100, 10) == 15  # 30 items per percentile: half of them
    assert nz.one_relevant_size(counts_ratings([3] * 2000), 100, 10) == 100


@pytest.fixture(scope="module")
def study() -> nz.DatasetStudy:
    world = generate(preset="synthetic-small", seed=3)
    return nz.study_dataset(world, folds=2, target_size=30, percentiles=4, seed=3, gammas=(0.0, 1.0),
                            powers=(0.0, 0.5))


def test_study_runs_every_design_and_matches_random_precision(study: nz.DatasetStudy) -> None:
    assert set(nz.FIG8) <= set(study.runs["label"])
    summary = nz.fig8_summary(study, ["P@10"]).set_index(["label", "system"])["mean"]
    # AR TI-NN is matched to UAR: random precision of the same order (both sigma delta with the same t)
    assert summary[("AR", "Random")] == pytest.approx(summary[("UAR", "Random")], rel=0.6)
    # 1R-type designs: random precision is 1/t = 1/30 up to sampling noise
    for label in ("1R", "U1R", "P1R"):
        assert summary[(label, "Random")] == pytest.approx(1 / 30, rel=0.35)
    # with gamma = 0 stratified recall is recall, and with beta = 0 SNIPS-P is precision
    ar = study.runs[study.runs["label"] == "AR TI-AN"]
    np.testing.assert_allclose(ar["SNIPS-P@10(power=0)"], ar["P@10"])
    np.testing.assert_allclose(ar["IPS-P@10(power=0)"], ar["P@10"])


def test_p1r_averages_percentiles_not_runs(study: nz.DatasetStudy) -> None:
    runs = study.runs[(study.runs["label"] == "P1R") & (study.runs["system"] == "Popularity")]
    expected = runs.groupby("group")["P@10"].mean().mean()
    got = nz.fig8_summary(study, ["P@10"]).set_index(["label", "system"]).loc[("P1R", "Popularity"), "mean"]
    assert got == pytest.approx(expected)


def test_popularity_index_and_findings(study: nz.DatasetStudy) -> None:
    indices = ix.popularity_index(study)
    row = indices.set_index("method").loc["1R, P@10"]
    assert row["index"] == pytest.approx((row["Popularity"] - row["Random"]) / (row["best personalised"] - row["Random"]))
    found = claims.findings(study, indices)
    assert {c["key"] for c in found} >= {"p1r-random-level", "bpref-constant-1r", "uar-reduces"}
    bpref = next(c for c in found if c["key"] == "bpref-constant-1r")
    one_r = study.runs.loc[study.runs["label"] == "1R", "bpref"]
    # a 1R run scores bpref < 1 only when its sample drew a judged non-relevant item ranked above the relevant one
    assert bpref["holds"] == bool((one_r == 1).all()) and (one_r == 1).mean() > 0.5
    numbers = claims.published_numbers(study, 4, "synthetic-small")
    assert {n["key"] for n in numbers} == {"uniform/target-size", "uniform/eta", "p1r/percentile-size"}
    assert next(n for n in numbers if n["key"] == "uniform/eta")["ours"] == study.plan.eta


def test_lift_prediction_is_one_for_a_constant_weight_and_grows_with_popularity(study: nz.DatasetStudy) -> None:
    """Eq. (3) read as a ratio: a weight that does not depend on the item predicts no advantage."""
    world = generate(preset="synthetic-small", seed=3)
    fold = make_folds(world, folds=1, seed=3)[0]
    constant, popular = nz._lift_prediction(fold, "TI-AN", 3, [np.ones(world.n_items), world.item_counts() + 0.0])
    assert constant == pytest.approx(1.0)
    assert popular > 1.5
    assert set(study.lift["design"]) == {"AR TI-AN", "UAR"}

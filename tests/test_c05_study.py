"""Chapter 5's computation: uniform plans, the split profiles, the positive-ratio curve, the designs of
Figs. 8 and 9 on a small world, the residual advantage and the popularity index."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from neutralising_world import TARGET_SIZE, small_study

from recbias import splits
from recbias.chapters.c05_neutralising_designs import study
from recbias.ratings import Ratings
from recbias.splits import make_folds
from recbias.synthetic import generate


def counts_ratings(counts: list[int], positive_share: float = 1.0, seed: int = 0) -> Ratings:
    items = np.repeat(np.arange(len(counts)), counts)
    users = np.concatenate([np.arange(c) for c in counts])
    values = np.where(np.random.default_rng(seed).random(len(items)) < positive_share, 5.0, 1.0)
    return Ratings.from_codes(users, items, values, (max(counts), len(counts)), positive_threshold=4,
                              scale=(1, 5), name="curve")


# ------------------------------------------------------------------------------ plan


def test_uniform_plan_lowers_sigma_only_when_infeasible() -> None:
    ratings = counts_ratings([40, 30, 20, 10, 5, 5, 1, 1])
    plan = study.uniform_plan(ratings, 0.2, 0.2)
    assert plan.used == 0.2 and (plan.size, plan.eta) == tuple(
        (len(t), e) for t, e in [splits.uniform_target(ratings.item_counts(), 0.2, 0.2)])[0]
    assert plan.achieved == pytest.approx(plan.size * plan.eta / ratings.n_ratings)
    largest = splits.largest_uniform_ratio(ratings.item_counts(), 0.2)
    lowered = study.uniform_plan(ratings, 0.9, 0.2)
    assert lowered.used == pytest.approx(np.floor(100 * largest) / 100) and lowered.used < 0.9


def test_split_profiles_follow_the_two_splits() -> None:
    ratings = counts_ratings([50, 10, 30, 20, 5])
    plan = study.uniform_plan(ratings, 0.2, 0.2)
    profiles = study.split_profiles(ratings, plan, percentiles=2)
    np.testing.assert_array_equal(profiles["ratings"], [50, 30, 20, 10, 5])
    np.testing.assert_allclose(profiles["random test"], 0.2 * profiles["ratings"])
    assert (profiles["uniform test"] > 0).sum() == plan.size
    assert set(profiles["uniform test"][profiles["uniform test"] > 0]) == {plan.eta}
    np.testing.assert_array_equal(profiles["percentile"], [0, 0, 0, 1, 1])


def test_positive_ratio_curve_is_one_when_every_rating_is_positive() -> None:
    curve = study.positive_ratio_curve(counts_ratings([40, 30, 20, 10, 5, 3], positive_share=1.0), segments=3)
    np.testing.assert_allclose(curve["ratio"], 1.0)
    assert len(curve) == 3 and list(curve["segment"]) == [0, 1, 2]
    mixed = study.positive_ratio_curve(counts_ratings([400, 300, 200], positive_share=0.5, seed=1), segments=3)
    assert np.all((mixed["ratio"] > 0.4) & (mixed["ratio"] < 0.6))


# --------------------------------------------------------------------------- designs


def test_one_relevant_size_respects_the_percentile_limit() -> None:
    ratings = counts_ratings([3] * 300)
    assert study.one_relevant_size(ratings, 100, 10) == 15  # 30 items per percentile: half of them
    assert study.one_relevant_size(counts_ratings([3] * 2000), 100, 10) == 100
    assert study.one_relevant_size(counts_ratings([3] * 20), 100, 10) == 2  # never below a relevant and one more


def test_all_items_are_too_big_only_above_the_entry_budget() -> None:
    ratings = counts_ratings([4, 3, 2])  # 4 users with a positive rating, 3 items: 12 entries
    assert not study.designs.too_big_for_all_items(ratings, 12)
    assert study.designs.too_big_for_all_items(ratings, 11)


def test_matched_nonrelevant_is_the_mean_non_relevant_count_of_the_design() -> None:
    reports = pd.DataFrame({"design": ["UAR TI-AN", "UAR TI-AN", "other"], "candidates": [1000, 1300, 5],
                            "relevant": [100, 100, 5], "n_runs": [10, 10, 1]})
    assert study.designs.matched_nonrelevant(reports, "UAR TI-AN") == 105  # (90 + 120) / 2
    empty = reports.assign(candidates=[100, 100, 5])
    assert study.designs.matched_nonrelevant(empty, "UAR TI-AN") == 1  # never below one


def test_the_second_dataset_is_studied_only_when_asked_for_distinct_and_available() -> None:
    assert study.second_status("", "synthetic") == "skipped"
    assert study.second_status("synthetic", "synthetic") == "same"
    assert study.second_status("synthetic-small", "synthetic") == study.AVAILABLE
    assert study.second_status("csv:/no/such/file.csv", "synthetic") == "unavailable"


def test_positive_only_keeps_the_positive_ratings() -> None:
    ratings = counts_ratings([40, 30, 20], positive_share=0.5, seed=2)
    kept = study.positive_only(ratings)
    assert kept.n_ratings == int(ratings.positive.sum()) and bool(kept.positive.all())


def test_study_runs_every_design_and_matches_random_precision() -> None:
    small = small_study()
    assert set(study.FIG8) | {"AR TI-AN", "1R -NR"} == set(small.runs["label"])
    assert set(small.runs["system"]) == set(study.SYSTEMS) == set(study.PAPERS_SET) | set(study.TOP_N_LEARNERS)
    assert small.designs["1R -NR"] == small.designs["1R"] + " -NR"
    summary = study.fig8_summary(small, ["P@10"]).set_index(["label", "system"])["mean"]
    # AR TI-NN is matched to UAR: random precision of the same order (both sigma delta with the same t)
    assert summary[("AR", "Random")] == pytest.approx(summary[("UAR", "Random")], rel=0.6)
    # 1R-type designs: random precision is 1/t = 1/30 up to sampling noise
    for label in ("1R", "U1R", "P1R"):
        assert summary[(label, "Random")] == pytest.approx(1 / TARGET_SIZE, rel=0.35)
    # with gamma = 0 stratified recall is recall, and with beta = 0 SNIPS-P is precision
    ar = small.runs[small.runs["label"] == "AR TI-AN"]
    np.testing.assert_allclose(ar["SNIPS-P@10(power=0)"], ar["P@10"])
    # ... and IPS-P is precision over the fold's test density: one ratio per fold, far above 1
    hit = ar[ar["P@10"] > 0]
    ratios = (hit["IPS-P@10(power=0)"] / hit["P@10"]).groupby(hit["fold"])
    assert (ratios.std() < 1e-9 * ratios.mean()).all() and (ratios.mean() > 10).all()


def test_p1r_averages_percentiles_not_runs() -> None:
    small = small_study()
    runs = small.runs[(small.runs["label"] == "P1R") & (small.runs["system"] == "Popularity")]
    expected = runs.groupby("group")["P@10"].mean().mean()
    got = study.fig8_summary(small, ["P@10"]).set_index(["label", "system"]).loc[("P1R", "Popularity"), "mean"]
    assert got == pytest.approx(expected)


def test_p1r_left_out_counts_the_shortage_runs_per_split() -> None:
    reports = pd.DataFrame({"label": ["P1R", "P1R", "1R"], "shortage_runs": [4, 6, 99], "n_runs": [96, 94, 1]})
    assert study.p1r_left_out(SimpleNamespace(reports=reports)) == (5.0, 95.0)


def test_bpref_below_one_counts_the_scored_1r_runs() -> None:
    small = small_study()
    ones = SimpleNamespace(runs=small.runs.assign(bpref=1.0))
    assert study.bpref_below_one(ones)[0] == 0
    below, scored = study.bpref_below_one(small)
    assert scored == int((small.runs["label"] == "1R").sum()) and 0 <= below <= scored
    one_r = small.runs.loc[small.runs["label"] == "1R", "bpref"]
    assert below == int((one_r < 1).sum()) and below > 0  # our 1R judges the user's low ratings of sampled items
    # the papers' 1R has no non-relevance judgment: bpref is 1 for every run of every system
    papers_below, papers_scored = study.bpref_below_one(small, "1R -NR")
    assert papers_below == 0 and papers_scored == int((small.runs["label"] == "1R -NR").sum()) > 0


# -------------------------------------------------------------------------- residual


def test_lift_prediction_is_one_for_a_constant_weight_and_grows_with_popularity() -> None:
    """Eq. (3) read as a ratio: a weight that does not depend on the item predicts no advantage."""
    world = generate(preset="synthetic-small", seed=3)
    fold = make_folds(world, folds=1, seed=3)[0]
    constant, popular = study.lift_prediction(fold, "TI-AN", 3, [np.ones(world.n_items), world.item_counts() + 0.0])
    assert constant == pytest.approx(1.0)
    assert popular > 1.5
    lift = small_study().lift
    assert list(lift["design"]) == ["AR TI-AN", "UAR", "U1R"]
    assert list(lift["item weight"]) == ["|PR(i)|", "|PR(i)| / |R(i)|", "|PR(i)| / |R(i)|"]


def test_the_measured_lift_is_popularity_over_random() -> None:
    small = small_study()
    p10 = study.design_summary(small.runs, ["P@10"]).set_index(["design", "system"])["mean"]
    uar = small.designs["UAR"]
    measured = small.lift.set_index("design").loc["UAR", "measured"]
    assert measured == pytest.approx(p10[(uar, "Popularity")] / p10[(uar, "Random")])


# ----------------------------------------------------------------------------- index


def test_popularity_index_places_popularity_between_random_and_the_best_personalised_system() -> None:
    indices = study.popularity_index([small_study()])
    assert list(dict.fromkeys(indices["set"])) == [study.PAPERS, study.TOP_N]
    for name, systems in study.PERSONALISED.items():
        rows = indices[indices["set"] == name].set_index("method")
        assert list(rows.index) == [row for row, _, _ in study.INDEX_ROWS]
        row = rows.loc["1R, P@10"]
        assert row["index"] == pytest.approx((row["Popularity"] - row["Random"])
                                             / (row["best personalised"] - row["Random"]))
        assert row["best system"] in systems


def test_the_index_of_a_hand_made_cell_and_its_tie() -> None:
    systems = ["Popularity", "Random", "pLSA", "rating-MF", "rating-kNN", "implicit MF (top-N)", "user-kNN (top-N)"]
    runs = pd.DataFrame({"dataset": "toy", "design": "D", "system": systems, "user": 0, "group": 0, "fold": 0,
                         "run": 0, "P@10": [0.3, 0.1, 0.5, 0.5, 0.2, 0.9, 0.6]})
    toy = SimpleNamespace(name="toy", designs={"x": "D"}, runs=runs)
    indices = study.popularity_index([toy], [("x, P@10", "x", "P@10")])
    papers = indices[indices["set"] == study.PAPERS].iloc[0]
    assert papers["index"] == pytest.approx((0.3 - 0.1) / (0.5 - 0.1)) and papers["best system"] == "tie"
    top_n = indices[indices["set"] == study.TOP_N].iloc[0]
    assert top_n["index"] == pytest.approx((0.3 - 0.1) / (0.9 - 0.1)) and top_n["best system"] == "implicit MF (top-N)"


def test_the_sweep_reads_stratified_recall_as_a_propensity_exponent() -> None:
    sweeps = study.sweep_index([small_study()], (0.0, 1.0), (0.0, 0.5))
    psr = sweeps[sweeps["family"] == "PSR"].set_index("parameter")["beta"]
    assert psr.to_dict() == {0.0: 0.0, 1.0: 0.5}  # beta = gamma / (gamma + 1)
    assert set(sweeps["family"]) == set(study.FAMILIES)
    ips = sweeps[sweeps["family"] == "IPS-P"]
    np.testing.assert_array_equal(ips["beta"], ips["parameter"])


def test_an_infinite_gamma_weighs_by_one_over_the_count() -> None:
    systems = ["Popularity", "Random", "pLSA", "rating-MF", "rating-kNN"]
    runs = pd.DataFrame({"dataset": "toy", "design": "TI-AN", "system": systems, "user": 0, "group": 0, "fold": 0,
                         "run": 0, "PSR@10(gamma=inf)": [0.3, 0.1, 0.5, 0.4, 0.2]})
    toy = SimpleNamespace(name="toy", designs={"AR TI-AN": "TI-AN"}, runs=runs)
    row = study.sweep_index([toy], (np.inf,), ()).iloc[0]
    assert (row["family"], row["parameter"], row["beta"], row["set"]) == ("PSR", np.inf, 1.0, study.PAPERS)
    assert row["index"] == pytest.approx(0.5) and row["best system"] == "pLSA"


# ----------------------------------------------------------------------------- noise


def _resampling_toy() -> SimpleNamespace:
    """Two users, two designs ("A" with two percentile groups, "B" with one), every system of the papers' set."""
    rows = []
    values = {  # (label, group) -> system -> (user 0, user 1)
        ("A", 0): {"Popularity": (0.4, 0.2), "Random": (0.1, 0.1), "pLSA": (0.5, 0.3), "rating-MF": (0.2, 0.2),
                   "rating-kNN": (0.1, 0.3)},
        ("A", 1): {"Popularity": (0.0, 0.0), "Random": (0.1, 0.1), "pLSA": (0.3, 0.1), "rating-MF": (0.2, 0.2),
                   "rating-kNN": (0.1, 0.1)},
        ("B", -1): {"Popularity": (0.2, 0.6), "Random": (0.2, 0.2), "pLSA": (0.4, 0.4), "rating-MF": (0.1, 0.1),
                    "rating-kNN": (0.6, 0.2)},
    }
    for (label, group), systems in values.items():
        for system, per_user in systems.items():
            rows += [{"label": label, "design": label, "system": system, "user": u, "group": group, "fold": 0,
                      "run": u, "P@10": v} for u, v in enumerate(per_user)]
    return SimpleNamespace(runs=pd.DataFrame(rows))


def test_mean_draws_average_percentiles_and_resample_users() -> None:
    means = study.mean_draws(_resampling_toy(), n_boot=40, seed=1)
    # full sample: A averages its two groups' run means, B its runs
    assert means.loc[("A", "Popularity"), 0] == pytest.approx((0.3 + 0.0) / 2)
    assert means.loc[("B", "rating-kNN"), 0] == pytest.approx(0.4)
    # a resample holds user 0 twice, user 1 twice, or one of each: B's popularity is 0.2, 0.6 or 0.4
    assert set(np.round(means.loc[("B", "Popularity")].to_numpy()[1:], 9)) <= {0.2, 0.4, 0.6}
    # every design reads the same draw of users: A's popularity is 0.2 when B's is 0.2 (user 0 alone)
    only_first = np.isclose(means.loc[("B", "Popularity")].to_numpy(), 0.2)
    np.testing.assert_allclose(means.loc[("A", "Popularity")].to_numpy()[only_first], 0.2)


def test_index_and_lead_draws_by_hand() -> None:
    means = study.mean_draws(_resampling_toy(), n_boot=10, seed=2)
    index = study.index_draws(means, ["A", "B"], ("pLSA", "rating-MF", "rating-kNN"))
    # B, full sample: popularity 0.4, random 0.2, best personalised max(0.4, 0.1, 0.4) = 0.4 -> index 1
    assert index.loc["B", 0] == pytest.approx(1.0)
    # A: popularity (0.3 + 0) / 2, random 0.1, pLSA (0.4 + 0.2) / 2 = 0.3 the best -> (0.15 - 0.1) / 0.2
    assert index.loc["A", 0] == pytest.approx(0.25)
    lead = study.lead_draws(means, ["A", "B"], "pLSA", ["Popularity", "rating-MF", "rating-kNN", "Random"])
    assert lead.loc["A", 0] == pytest.approx(0.3 - 0.2) and lead.loc["B", 0] == pytest.approx(0.0)
    assert index.shape == lead.shape == (2, 11)


def test_the_caps_of_bpref_are_compared_where_they_differ():
    runs = pd.DataFrame({"label": ["AR TI-AN"] * 4 + ["1R"], "system": ["a", "a", "b", "b", "a"],
                         "bpref": [0.5, 0.0, 1.0, 0.8, 1.0], study.UNCAPPED_BPREF: [0.5, -2.0, 1.0, 0.8, 0.0]})
    share, gap = study.bpref_caps(SimpleNamespace(runs=runs))
    assert share == 0.25 and gap == 1.0  # one AR run of four; system a's mean falls from 0.25 to -0.75

"""Chapter 5's drivers: uniform plans, the split profiles, the positive-ratio curve, the study and its claims."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
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
    # ... and IPS-P is precision over the fold's test density: one ratio per fold, far above 1
    hit = ar[ar["P@10"] > 0]
    ratios = (hit["IPS-P@10(power=0)"] / hit["P@10"]).groupby(hit["fold"])
    assert (ratios.std() < 1e-9 * ratios.mean()).all() and (ratios.mean() > 10).all()


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
    assert set(study.lift["design"]) == {"AR TI-AN", "UAR", "U1R"}


def test_plan_text_reads_right_when_sigma_is_lowered_and_when_the_floor_rule_agrees() -> None:
    same = ns.UniformPlan(0.2, 0.2, 0.31, 0.2, 891, 27, 0.2005, 891, 27, 2000)
    text = ns.plan_text(same, "world")
    assert text.startswith("On world, $T$ holds the 891 most popular") and "draws the same split" in text
    lowered = ns.UniformPlan(0.2, 0.14, 0.1432, 0.2, 503, 26, 0.1425, 502, 28, 17388)
    text = ns.plan_text(lowered, "curve")
    assert "at most $\\sigma = 0.143$" in text and "$\\sigma = 0.14$" in text and "keeps 1 item fewer" in text
    assert "finds no split" in ns.plan_text(ns.UniformPlan(0.2, 0.2, 0.2, 0.2, 10, 5, 0.2, 0, 0, 50), "x")


def test_fig8_table_lists_the_designs_in_the_papers_order(study: nz.DatasetStudy) -> None:
    table = nz.fig8_table([nz.fig8_summary(study)])
    assert list(table.columns) == list(nz.PAPER_SYSTEMS)
    assert [label for _, label in table.index] == [d.replace("-head", "−10% head") for d in nz.FIG8]
    assert all("<small>±" in cell for cell in table.to_numpy().ravel())


def _lift(ar: tuple[float, float, float], uar: tuple[float, float, float]) -> SimpleNamespace:
    rows = [{"design": d, "predicted (paper)": p, "predicted (training excluded)": e, "measured": m}
            for d, (p, e, m) in (("AR TI-AN", ar), ("UAR", uar))]
    return SimpleNamespace(name="world", lift=pd.DataFrame(rows))


def test_residual_text_follows_which_prediction_is_closer() -> None:
    both = nz.residual_text(_lift((9.0, 10.0, 11.0), (1.2, 1.5, 1.9)))
    assert "On both splits the training exclusion brings" in both and "another source" in both
    one = nz.residual_text(_lift((9.0, 14.0, 11.0), (1.2, 1.5, 1.4)))
    assert "Only on the uniform split does" in one and "another source" not in one
    assert "On neither split does" in nz.residual_text(_lift((11.0, 14.0, 11.0), (1.4, 1.5, 1.4)))


def _indices(values: dict[str, float], name: str = "world") -> pd.DataFrame:
    return pd.DataFrame([{"dataset": name, "method": m, "index": v} for m, v in values.items()])


def test_the_index_sentences_read_right_at_their_edges() -> None:
    base = {"1R, P@10": 0.8, "P1R, P@10": -0.04, "U1R, P@10": 0.3, "AR, P@10": 0.4, "UAR, P@10": 0.2,
            "1R -10% head, P@10": 0.6}
    text = claims.fig8_text(SimpleNamespace(name="world"), _indices(base))
    assert "-0.04 under P1R (random's level)" in text and "0.30 under U1R (above random's level)" in text
    assert "UAR lowers it" in text and "more of it than either" in text
    assert "between the two" in claims.fig8_text(SimpleNamespace(name="world"), _indices(base | {"1R -10% head, P@10": 0.1}))
    raised = ix.incomplete_text(_indices(base | {"AR, bpref": np.nan, "AR, infAP": 0.5}))
    assert "infAP raises it to 0.50" in raised and "gives no index" in raised and "it does not come" in raised
    lowered = ix.incomplete_text(_indices(base | {"AR, bpref": 0.3, "AR, infAP": -0.1}))
    assert "bpref and infAP both lower it, to 0.30 and -0.10" in lowered and "infAP comes as close" in lowered


def test_sweep_text_names_the_estimators_that_move_popularity_most_and_least() -> None:
    rows = [{"dataset": "world", "family": f, "beta": b, "index": 0.5 - drop * b}
            for f, drop in (("PSR", 0.1), ("IPS-P", 0.6), ("SNIPS-P", 0.3)) for b in (0.0, 0.5, 1.0)]
    text = ix.sweep_text(pd.DataFrame(rows))
    assert "every estimator lowers" in text and "IPS-P@10 moves it furthest, from 0.50 to -0.10" in text
    assert "stratified recall least" in text


def test_bpref_text_reads_right_when_no_run_drops_below_one(study: nz.DatasetStudy) -> None:
    ones = SimpleNamespace(runs=study.runs.assign(bpref=1.0))
    assert claims.bpref_below_one(ones)[0] == 0 and "1R bpref is 1 throughout" in claims.bpref_text(ones)
    below, scored = claims.bpref_below_one(study)
    assert scored == int((study.runs["label"] == "1R").sum()) and 0 <= below <= scored
    assert claims.bpref_text(study).endswith("which sets their bpref to 0.") == (below > 0)

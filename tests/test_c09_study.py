"""Chapter 9's study: the profile, the measurements, the comparisons across protocols and the recommendation,
against hand-worked values, and the recommendation against chapter 8's fidelity on worlds whose truth is known."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recbias import datasets, protocol_study, synthetic
from recbias.ratings import Ratings
from recbias.chapters.c08_protocol_fidelity import study as chapter8
from recbias.bookkit.claims import LEVEL
from recbias.chapters.c09_audit.study import compare, measure, profile, protocols, recommend
from recbias.protocol_study import Protocol
from recbias.recommenders.external import REFERENCES
from recbias.synthetic import generate
from test_datasets_support import load_real


@pytest.fixture(scope="module")
def measured():
    ratings = datasets.load("synthetic-small", seed=1)
    plan = protocols.audit_protocols(ratings.n_items)
    return ratings, plan, measure.measure(ratings, plan, REFERENCES | {"MF": "mf"}, seed=1)


def test_every_protocol_measures_every_system_with_intervals_around_the_mean(measured) -> None:
    ratings, plan, result = measured
    summary = result.summary()
    assert set(summary["protocol"]) == {p.label for p in plan if p.label in result.relevant_share.index}
    assert set(summary["system"]) == {"Random", "Popularity", "MF"}
    assert (summary["ci_low"] <= summary["mean"]).all() and (summary["mean"] <= summary["ci_high"]).all()
    assert result.means().shape == (len(result.relevant_share), 3)


def test_the_audit_measures_ten_of_the_fidelity_protocols_each_explained_by_a_page() -> None:
    plan = protocols.audit_protocols(1682)
    core = {p.label: p for p in protocol_study.protocols(1682)}
    assert [p.label for p in plan] == list(protocols.EXPLAINED_IN) and all(p == core[p.label] for p in plan)
    book = Path(__file__).resolve().parents[1] / "book"
    assert all((book / f"{page}.py").exists() for page in protocols.EXPLAINED_IN.values())
    assert protocols.explained_in(plan) == protocols.EXPLAINED_IN
    assert protocols.neutralising(plan) == ("P1R(10) P@10", "U1R P@10", "UAR P@10")
    assert protocols.ar_protocol(plan) == "AR TI-AN P@10"
    assert [p.label for p in plan if p.correction is not None] == ["sampled HR@10, corrected (BV 0.1)"]
    assert [p.label for p in plan if p.family == protocols.OWN_METRIC] == ["bpref", "infAP"]


def test_one_metric_and_cutoff_replace_every_protocols_own_and_name_it() -> None:
    usual, ndcg = protocols.audit_protocols(1682), protocols.audit_protocols(1682, "ndcg", 5)
    assert [p.metric for p in usual][-2:] == ["bpref", "infAP"]  # their own metrics, without a cutoff
    usual = [p for p in usual if p.family != protocols.OWN_METRIC]  # measured under the usual metrics only
    assert [p.metric for p in ndcg] == ["nDCG@5"] * len(usual)
    assert [p.label for p in ndcg][:2] == ["AR TI-AN nDCG@5", "1R nDCG@5"]
    assert [p.label for p in ndcg][5:7] == ["sampled nDCG@5", "sampled nDCG@5, corrected (BV 0.1)"]
    assert [dataclasses.replace(p, label="", metric="") for p in ndcg] == [
        dataclasses.replace(p, label="", metric="") for p in usual]  # the same designs, splits and corrections
    assert list(protocols.explained_in(ndcg).values()) == list(protocols.EXPLAINED_IN.values())[:-2]
    assert protocols.neutralising(ndcg) == ("P1R(10) nDCG@5", "U1R nDCG@5", "UAR nDCG@5")
    assert protocols.ar_protocol(ndcg) == "AR TI-AN nDCG@5"
    twenty = protocols.audit_protocols(1682, protocols.USUAL, 20)
    assert [p.metric for p in twenty][-6:] == ["P@20", "HR@20", "HR@20", "nDCG@20", "bpref", "infAP"]
    for metric, cutoff, message in (("AUC", 10, "cutoff"), ("PSR", 10, "rank of one relevant item"),
                                    ("bleu", 10, "unknown metric"), ("P", 0, "positive integer")):
        with pytest.raises(ValueError, match=message):
            protocols.audit_protocols(1682, metric, cutoff)


def test_the_page_offers_every_metric_a_sampled_protocol_can_correct_at_a_cutoff() -> None:
    """The metrics of the page's ``metric`` parameter are the rank metrics that take a cutoff."""
    from recbias.bookkit.parameters import parse_parameters
    from recbias.bookkit.pipeline import parameters_cell
    from recbias.metrics import parse_metric
    from recbias.sampled.rank_metrics import RANK_FAMILIES

    def takes_a_cutoff(name: str) -> bool:
        try:
            return parse_metric(f"{name}@3").cutoff == 3
        except ValueError:
            return False

    page = Path(__file__).resolve().parents[1] / "book" / "09_audit.py"
    offered = parse_parameters(parameters_cell(page))["metric"].choices
    assert offered == (protocols.USUAL, *[name for name in RANK_FAMILIES if takes_a_cutoff(name)])


def test_only_the_protocols_measured_are_kept(measured) -> None:
    _, plan, result = measured
    assert [p.label for p in result.kept(plan)] == list(result.relevant_share.index)
    narrowed = measure.Measured(result.experiment, result.relevant_share.drop("U1R P@10"), result.splits)
    assert "U1R P@10" not in [p.label for p in narrowed.kept(plan)] and len(narrowed.kept(plan)) == len(plan) - 1


def test_the_one_relevant_share_is_one_over_the_target_size(measured) -> None:
    ratings, plan, result = measured
    k = next(p for p in plan if p.label == "1R P@10").design.split("(")[1].rstrip(")")
    assert result.relevant_share["1R P@10"] == pytest.approx(1 / (int(k) + 1))


def test_mean_of_the_per_run_table_is_the_summary(measured) -> None:
    _, _, result = measured
    runs = result.experiment.runs
    part = runs[(runs["design"] == "AR TI-AN P@10") & (runs["system"] == "MF")]
    row = result.summary().query("protocol == 'AR TI-AN P@10' and system == 'MF'")
    assert row["mean"].iloc[0] == pytest.approx(part["value"].mean())


def test_the_profile_matches_hand_counts() -> None:
    ratings = datasets.load("synthetic-small", seed=1)
    row = profile.bias_profile(ratings)
    counts = np.bincount(ratings.items, minlength=ratings.n_items)
    assert row["density"] == pytest.approx(ratings.n_ratings / (ratings.n_users * ratings.n_items))
    top = np.sort(counts)[::-1][: ratings.n_items // 10].sum() / counts.sum()
    assert row["top-10% share"] == pytest.approx(top)
    assert row["positive ratio"] == pytest.approx(np.mean(ratings.values >= ratings.positive_threshold))
    assert row["fitted α"] > 0


def test_the_popularity_share_and_the_orders_on_a_hand_made_table() -> None:
    means = pd.DataFrame({"Random": [0.1, 0.1], "Popularity": [0.5, 0.2], "A": [0.9, 0.6], "B": [0.3, 0.7]},
                         index=["X", "Y"])
    share = compare.popularity_share(means)
    assert share.loc["X", "popularity index"] == pytest.approx(0.5)   # (0.5 - 0.1) / (0.9 - 0.1)
    assert share.loc["Y", "popularity index"] == pytest.approx(1 / 6)  # (0.2 - 0.1) / (0.7 - 0.1)
    assert share.loc["X", "B / Popularity"] == pytest.approx(0.6)
    tau = compare.tau_matrix(means)
    # X: A > Pop > B > Rnd; Y: B > A > Pop > Rnd -> pairs (A,B), (Pop,B) reversed of 6: tau = (4 - 2) / 6
    assert tau.loc["X", "Y"] == pytest.approx(1 / 3)
    flips = compare.flipped_pairs(means)
    assert sorted(zip(flips["first"], flips["second"])) == [("A", "B"), ("Popularity", "B")]


def test_the_profile_compares_with_real_datasets_only() -> None:
    others = datasets.available_real(besides="ml-100k")
    assert "ml-100k" not in others and not set(others) & set(synthetic.PRESETS)
    assert all(datasets.available(name) for name in others)
    loaded = []
    profile.profiles(datasets.load("synthetic-small"), load=lambda name: loaded.append(name) or datasets.load(name))
    assert loaded == datasets.available_real(besides="synthetic-small")


# --------------------------------------------------------------------- which protocol to report


def fidelity_table(draws: dict[str, tuple[float, np.ndarray]]) -> pd.DataFrame:
    """A fidelity table, most faithful first: protocol -> (tau on the full sample, tau on each resample)."""
    return pd.DataFrame([{"protocol": p, "tau": tau, "tau_draws": d} for p, (tau, d) in draws.items()])


def plan_of(labels, corrected=()) -> list[Protocol]:
    return [Protocol(label, "TI-AN", "P@10", "coin", "standard", "BV 0.1" if label in corrected else None)
            for label in labels]


def test_the_recommendation_keeps_the_best_and_its_ties_and_leaves_out_the_clearly_worse() -> None:
    # 39 resamples; p = 2 (k + 1) / 40 with k the resamples on the smaller side of zero
    table = fidelity_table({
        "best": (0.9, np.full(39, 0.9)),
        "tie": (0.85, np.r_[np.full(35, 0.8), np.full(4, 0.95)]),     # above best in 4: p = 0.25, within noise
        "edge": (0.6, np.r_[np.full(38, 0.6), 0.95]),                 # above in 1: p = 0.1, within noise at 5%
        "worse": (0.5, np.full(39, 0.5)),                             # never above: p = 0.05, not below 5% either
    })
    advice = recommend.recommend(table, plan_of(table["protocol"]))
    assert advice.protocol == "best"
    assert advice.tied == ["best", "tie", "edge", "worse"]
    strict = recommend.recommend(table, plan_of(table["protocol"]), level=0.2)
    assert strict.tied == ["best", "tie"]  # edge and worse are behind: p 0.1 and 0.05 < 0.2
    many = fidelity_table({"best": (0.9, np.full(79, 0.9)), "worse": (0.5, np.full(79, 0.5))})
    assert recommend.recommend(many, plan_of(["best", "worse"])).tied == ["best"]  # p = 2 / 80 = 0.025


def test_among_ties_the_recommendation_prefers_a_protocol_without_correction() -> None:
    table = fidelity_table({"corrected": (0.9, np.full(39, 0.9)),
                            "plain": (0.85, np.r_[np.full(35, 0.8), np.full(4, 0.95)]),
                            "behind": (0.2, np.full(39, 0.2))})
    advice = recommend.recommend(table, plan_of(table["protocol"], corrected={"corrected"}))
    assert (advice.tied[0], advice.protocol) == ("corrected", "plain")
    # a protocol without correction clearly behind is not preferred to the corrected best
    alone = table[table["protocol"] != "plain"].reset_index(drop=True).assign(
        tau_draws=[np.full(79, 0.9), np.full(79, 0.2)])
    advice = recommend.recommend(alone, plan_of(["corrected", "behind"], corrected={"corrected"}))
    assert advice.protocol == "corrected" and advice.tied == ["corrected"]


def test_no_recommendation_without_a_defined_fidelity() -> None:
    assert recommend.recommend(fidelity_table({}).reindex(columns=["protocol", "tau", "tau_draws"]), []) is None
    undefined = fidelity_table({"a": (np.nan, np.full(9, np.nan))})
    assert recommend.recommend(undefined, plan_of(["a"])) is None


def test_the_reversals_of_one_protocol_on_a_hand_made_table() -> None:
    means = pd.DataFrame({"Random": [0.1, 0.1, 0.1], "Popularity": [0.5, 0.2, 0.5], "A": [0.9, 0.6, 0.4],
                          "B": [0.3, 0.7, 0.3]}, index=["X", "Y", "Z"])
    # X: A > Pop > B > Rnd; Y reverses (A, B) and (Pop, B); Z reverses (A, Pop)
    found = compare.reversals(means, "X")
    assert sorted(zip(found["above"], found["below"], found["reversed under"])) == [
        ("A", "B", ["Y"]), ("A", "Popularity", ["Z"]), ("Popularity", "B", ["Y"])]
    tied = means.assign(B=[0.9, 0.7, 0.3])  # X ties A and B: not an order X gives
    assert ("A", "B") not in set(zip(*[compare.reversals(tied, "X")[c] for c in ("above", "below")]))


def test_the_caveats_of_the_recommended_protocol() -> None:
    means = pd.DataFrame({"Random": [0.1, 0.1, 0.1], "Popularity": [0.5, 0.2, 0.5], "A": [0.9, 0.6, 0.4]},
                         index=["AR TI-AN P@10", "UAR P@10", "P1R(10) P@10"])
    tau = compare.tau_matrix(means)
    stand_in = recommend.TruthFidelity("w", {}, pd.DataFrame({"protocol": ["UAR P@10", "AR TI-AN P@10",
                                                                             "P1R(10) P@10"]}))
    plan = protocols.audit_protocols(1000)
    found = recommend.caveats(recommend.Recommendation("AR TI-AN P@10", ["AR TI-AN P@10"]), means, tau, stand_in, plan)
    # AR: A > Pop > Rnd, as under UAR; P1R puts Pop above A
    pairs = found["reversed_pairs"]
    assert list(zip(pairs["above"], pairs["below"], pairs["reversed under"])) == [("A", "Popularity", ["P1R(10) P@10"])]
    assert found["companion"] == "UAR P@10"  # the most faithful neutralising protocol on the stand-in world
    assert found["furthest"] == ("P1R(10) P@10", pytest.approx(1 / 3))  # 3 pairs, 1 reversed: (2 - 1) / 3
    alone = recommend.caveats(recommend.Recommendation("UAR P@10", ["UAR P@10"]), means.loc[["UAR P@10"]],
                              tau.loc[["UAR P@10"], ["UAR P@10"]], stand_in, plan)
    assert alone["furthest"] is None and alone["reversed_pairs"].empty  # no other protocol to compare with
    assert recommend.caveats(None, means, tau, stand_in, plan) == {}


def test_data_without_non_positive_ratings_gets_no_world_and_no_recommendation() -> None:
    data = datasets.load("synthetic-small", seed=1)
    liked = dataclasses.replace(data, name="liked", true_relevance=None, positive_threshold=1.0)
    plan = protocols.audit_protocols(liked.n_items)
    found = recommend.truth_fidelity(liked, plan)
    assert found.table.empty and "positive ratio is 1" in found.refused and found.world == ""
    assert recommend.recommend(found.table, plan) is None


@pytest.mark.slow
@pytest.mark.parametrize("world", [dict(preset="synthetic-small", seed=0),
                                   dict(preset="synthetic-small", alpha=0.8, selection=2.5, seed=0)],
                         ids=["default-small", "flat-strongly-selected"])
def test_the_recommended_protocol_is_among_the_most_faithful_of_chapter_8_on_a_world_with_known_truth(world):
    """The audit sees the world's ratings without their truth and recommends a protocol from its stand-in world;
    chapter 8 measures every one of its protocols against the world's own truth, with its field of systems:
    the recommended protocol is one the paired resamples do not tell from chapter 8's most faithful."""
    truth = generate(**world)
    audited = dataclasses.replace(truth, name="audited", true_relevance=None)
    plan = protocols.audit_protocols(audited.n_items)
    advice = recommend.recommend(recommend.truth_fidelity(audited, plan).table, plan)
    main, _ = chapter8.protocol_fidelity(truth)
    assert advice.protocol in chapter8.leaders(main, LEVEL)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["synthetic", pytest.param("coat", marks=pytest.mark.realdata)])
def test_on_data_with_a_truth_the_advice_is_among_the_leaders_of_chapter_8_on_that_truth(name) -> None:
    """The book's default dataset and Coat carry a truth: the audit reads it, and the protocol it recommends is
    one the paired resamples do not tell from the most faithful of chapter 8's protocols, with the page's settings
    of chapter 8 (its field, two splits, 200 resamples)."""
    ratings = datasets.load(name, seed=0) if name == "synthetic" else load_real(name)
    plan = protocols.audit_protocols(ratings.n_items)
    found = recommend.truth_fidelity(ratings, plan)
    assert found.kind == ("complete relevance" if name == "synthetic" else "random items")
    assert found.own_truth and found.world == ratings.name and found.shape == {} and found.profiles.empty
    assert found.truth_metric == ("P@10" if name == "synthetic" else "nDCG@5")
    advice = recommend.recommend(found.table, plan)
    main, _ = chapter8.protocol_fidelity(ratings, splits=2, n_boot=200)
    assert advice.protocol in chapter8.leaders(main, LEVEL)


def test_the_truth_reads_the_metric_the_protocols_read_when_one_is_chosen() -> None:
    """With ``--metric Recall --cutoff 5`` the systems' true order is by Recall@5 on the world's complete relevance;
    with the usual metrics it stays chapter 8's P@10."""
    world = datasets.load("synthetic-small", seed=0)
    plan = protocols.audit_protocols(world.n_items, "Recall", 5)
    found = recommend.truth_fidelity(world, plan, splits=1, n_boot=20, truth_metric=protocols.truth_metric("Recall", 5))
    assert found.truth_metric == "Recall@5" and list(found.table["protocol"]) != []
    study = protocol_study.truth_study(world, plan=plan[:1], truth_metric="Recall@5")
    assert {"P@10", "nDCG@10", "Recall@5"} <= set(study.truth)
    assert protocols.truth_metric(protocols.USUAL, 20) is None


def test_when_the_data_cannot_rank_the_protocols_the_rule_picks_and_says_so() -> None:
    plan = protocols.audit_protocols(1000)
    draws = {"sampled HR@10": 0.9, "sampled HR@10, corrected (BV 0.1)": 0.9, "AR TI-AN P@10": 0.9}
    table = pd.DataFrame({"protocol": list(draws), "tau": list(draws.values()),
                          "tau_draws": [np.full(79, tau) for tau in draws.values()]})
    advice = recommend.recommend(table, plan)
    assert advice.tied == list(draws) and not advice.ranked  # all within noise: a set, not a winner
    assert advice.protocol == "AR TI-AN P@10"  # neither corrected nor an uncorrected sampled metric
    only_sampled = recommend.recommend(table.iloc[:2], plan)
    assert only_sampled.protocol == "sampled HR@10, corrected (BV 0.1)" and not only_sampled.ranked


def test_a_popularity_exponent_fitted_at_the_end_of_its_range_is_flagged() -> None:
    counts = np.arange(100, 0, -1)  # a straight line of counts: the power law's exponent runs to its upper end
    items = np.repeat(np.arange(100), counts)
    linear = Ratings.from_codes(np.arange(len(items)) % 200, items, np.full(len(items), 4.0), shape=(200, 100),
                                name="linear", positive_threshold=4.0)
    row = profile.bias_profile(linear)
    assert row["fitted α"] == pytest.approx(5.0) and row["α at a bound"]
    skewed = synthetic.generate(n_users=300, n_items=200, n_ratings=6000, seed=0)
    assert not profile.bias_profile(skewed)["α at a bound"]


def test_pairs_ordered_alike_are_counted_as_by_hand_and_replace_tau_below_five_systems() -> None:
    rng = np.random.default_rng(3)
    means = pd.DataFrame(rng.integers(0, 4, (4, 5)).astype(float), index=list("PQRS"), columns=list("abcde"))
    means.iloc[1, 2] = np.nan
    alike = compare.alike_matrix(means)
    for p in means.index:
        for q in means.index:
            pairs = [(a, b) for i, a in enumerate(means.columns) for b in means.columns[i + 1:]]
            same = [np.sign(means.at[p, a] - means.at[p, b]) == np.sign(means.at[q, a] - means.at[q, b]) != 0
                    for a, b in pairs]
            assert alike.at[p, q] == pytest.approx(sum(same) / len(pairs))
    assert compare.agreement_map(means)[1] is False  # five systems: τ
    shown, few = compare.agreement_map(means.iloc[:, :4])
    assert few and shown.equals(compare.alike_matrix(means.iloc[:, :4]))

"""Chapter 3's findings: each criterion decides at its edges, and the measured values come from the study's
results as the statements mean them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from c03_inputs import density_fits, elasticities, lift_frame, orders, size_fits, summary, sweep

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, MEASURED, NOT_CHECKED, evaluate, published, register
from recbias.chapters.c03_sparsity_bias import claims
from recbias.chapters.c03_sparsity_bias.claims import Span

BY_KEY = {finding.key: finding for finding in claims.FINDINGS}

#: (key, values, outcome): every criterion on both sides of each of its edges
EDGES = [
    ("random-precision-is-eq4-eq5", {"check_within": 0.9}, HOLDS),
    ("random-precision-is-eq4-eq5", {"check_within": 0.8999}, FAILS),
    # one interval per system: all within ±10% holds, one wholly outside fails, one straddling a bound cannot tell
    ("1r-precision-independent-of-density", {"one_r_change_low": Span([-0.1, -0.05]),
                                             "one_r_change_high": Span([0.02, 0.1])}, HOLDS),
    ("1r-precision-independent-of-density", {"one_r_change_low": Span([-0.1001, -0.05]),
                                             "one_r_change_high": Span([0.02, 0.1])}, INCONCLUSIVE),
    ("1r-precision-independent-of-density", {"one_r_change_low": Span([-0.1, -0.05]),
                                             "one_r_change_high": Span([0.02, 0.1001])}, INCONCLUSIVE),
    ("1r-precision-independent-of-density", {"one_r_change_low": Span([-0.3, -0.05]),
                                             "one_r_change_high": Span([-0.1001, 0.1])}, FAILS),
    ("1r-precision-independent-of-density", {"one_r_change_low": Span([-0.3, 0.1001]),
                                             "one_r_change_high": Span([0.0, 0.2])}, FAILS),
    ("1r-ai-precision-independent-of-density", {"one_r_ai_change_low": Span([-0.1, -0.05]),
                                                "one_r_ai_change_high": Span([0.02, 0.1])}, HOLDS),
    ("1r-ai-precision-independent-of-density", {"one_r_ai_change_low": Span([-0.1001, -0.05]),
                                                "one_r_ai_change_high": Span([0.02, 0.1])}, INCONCLUSIVE),
    ("1r-ai-precision-independent-of-density", {"one_r_ai_change_low": Span([-0.3, -0.05]),
                                                "one_r_ai_change_high": Span([-0.1001, 0.1])}, FAILS),
    ("1r-precision-independent-of-density-ml1m", {"world_change_low": Span([-0.1]), "world_change_high": Span([0.1])},
     HOLDS),
    ("1r-precision-independent-of-density-ml1m", {"world_change_low": Span([-0.12]), "world_change_high": Span([0.0])},
     INCONCLUSIVE),
    ("1r-precision-independent-of-density-ml1m", {"world_change_low": Span([-0.2]), "world_change_high": Span([-0.11])},
     FAILS),
    # counts of levels (order_values): every one kept holds, one changed fails, one too wide to tell cannot tell
    ("order-survives-sparsity", {"order_changed": 0, "order_kept": 3, "order_levels": 3}, HOLDS),
    ("order-survives-sparsity", {"order_changed": 1, "order_kept": 2, "order_levels": 3}, FAILS),
    ("order-survives-sparsity", {"order_changed": 0, "order_kept": 2, "order_levels": 3}, INCONCLUSIVE),
    # each ratio's 95% interval: within the range holds, wholly outside fails, straddling an end cannot tell
    # the share of resamples in which 1R spreads less than AR for every system: 95% holds, 5% fails
    ("1r-values-comparable-across-datasets", {"spread_below_share": 0.95}, HOLDS),
    ("1r-values-comparable-across-datasets", {"spread_below_share": 0.94}, INCONCLUSIVE),
    ("1r-values-comparable-across-datasets", {"spread_below_share": 0.06}, INCONCLUSIVE),
    ("1r-values-comparable-across-datasets", {"spread_below_share": 0.05}, FAILS),
]


@pytest.mark.parametrize("key, values, outcome", EDGES, ids=[f"{k}-{o}-{i}" for i, (k, _, o) in enumerate(EDGES)])
def test_each_criterion_decides_at_its_edges(key, values, outcome) -> None:
    assert BY_KEY[key].criterion(values) == outcome


def test_every_finding_is_on_the_edge_table_and_points_at_the_page() -> None:
    unjudged = {finding.key for finding in claims.METRIC_FINDINGS}  # measured, no verdict: no edges
    unjudged |= {"ar-precision-linear-in-density", "1r-precision-inverse-to-t"}
    assert {key for key, _, _ in EDGES} == set(BY_KEY) - unjudged
    assert len(BY_KEY) == len(claims.FINDINGS)  # keys are unique
    page = (Path(__file__).resolve().parents[1] / "book" / "03_sparsity_bias.py").read_text()
    assert all(f":name: {finding.anchor}\n" in page for finding in claims.FINDINGS)
    assert all(finding.source == "IRJ 2017 Sec. 4" for finding in claims.FINDINGS)
    assert published(claims.PUBLISHED) == []  # Section 4 publishes no number


def test_the_shapes_without_a_traceable_margin_are_measured_without_a_verdict() -> None:
    beyond = claims.fit_values(density_fits(ar_r2=(0.95, 0.9499, 0.1), scatter=(9.0, 2.001, 9.0)), size_fits())
    assert list(beyond["ar_r2"]) == [0.95, 0.9499] and list(beyond["ar_scatter"]) == [9.0, 2.001]  # Random left out
    for key in ("ar-precision-linear-in-density", "1r-precision-inverse-to-t"):
        assert evaluate(BY_KEY[key], beyond | {"n": 10}, dataset="d").outcome == MEASURED
    assert beyond["ar_intercept_below"] == 2 and f"{beyond['ar_loss']:.0%}" == "90% to 91%"
    assert (beyond["ar_random_slope"], beyond["ar_random_slope_low"], beyond["ar_random_slope_high"]) == \
        (1.1, Span([0.7]), Span([1.6]))


def test_the_levels_are_counted_as_kept_changed_or_too_wide_at_the_ends_of_tau() -> None:
    def counted(lows, highs):
        frame = pd.DataFrame({"sweep": "AR, test ratings removed", "x": [0.0, 0.5, 0.9][:len(lows)], "tau": 1.0, "users": 5,
                              "tau_ci": list(zip(lows, highs, strict=True)), "tau_truth": np.nan, "systems": 4})
        values = claims.order_values(frame)
        assert list(values["order_one_swap"]) == pytest.approx([2 / 3] * len(lows))  # four systems, one pair of six swapped
        return values["order_kept"], values["order_changed"], values["order_unclear"], values["order_levels"]

    one_swap = 1 - 4 / 12
    # above the tau of one swap: kept beyond noise; at it: too wide to tell; below 1 throughout: changed
    assert counted([1.0, one_swap + 1e-9, 0.7], [1.0, 1.0, 1.0]) == (3, 0, 0, 3)
    assert counted([1.0, one_swap, 0.5], [1.0, 1.0, 0.999]) == (1, 1, 1, 3)
    assert counted([0.9, 0.9], [0.95, 0.99]) == (0, 2, 0, 2)  # wholly above one swap, yet below 1: changed


def test_a_span_is_tested_element_by_element_and_shown_as_a_range() -> None:
    assert f"{Span([0.999, 1.0, 0.9995]):.3f}" == "0.999 to 1.000"
    assert f"{Span([0.8, 0.8]):.2f}" == "0.80" and f"{Span([-0.25, -0.18]):+.0%}" == "-25% to -18%"
    assert f"{Span([]):.2f}" == "n/a" and Span(0.5).shape == (1,)
    assert np.asarray(Span([1, 2])).dtype == float


def test_metric_claims_apply_their_criteria() -> None:
    values = claims.metric_ratios(elasticities(), 10)
    assert values["n"] == 10 and list(values["recall_ratio"]) == pytest.approx([0.05 / 0.8] * 2)
    assert sorted(values["map_ndcg_ratio"]) == pytest.approx([0.25, 0.25, 0.3125, 0.3125])  # MAP and nDCG, A and B
    verdicts = {f.key: evaluate(f, values, dataset="d").outcome for f in claims.METRIC_FINDINGS}
    assert set(verdicts.values()) == {MEASURED}  # the papers give no number: shown without a verdict
    without_recall = elasticities().query("metric != 'Recall@10'")
    assert "recall_ratio" not in claims.metric_ratios(without_recall, 10)


def test_measured_values_read_the_systems_but_random() -> None:
    values = claims.measured(summary(), sweep(), density_fits(), size_fits(), orders(), elasticities(), lift_frame())
    assert list(values["ar_r2"]) == [0.999, 0.9996] and list(values["one_r_change"]) == [-0.25, -0.18]
    assert list(values["one_r_ai_change"]) == [-0.02, -0.01]
    assert list(values["one_r_change_low"]) == pytest.approx([-0.3, -0.23])
    assert list(values["one_r_change_high"]) == pytest.approx([-0.2, -0.13])
    assert list(values["order_tau_low"]) == pytest.approx([0.8, 0.8, 1 / 3 - 0.2, 0.8, 0.8, 0.8])
    assert list(values["size_exponent_low"]) == [-0.7, -0.5] and list(values["size_exponent_high"]) == [-0.6, -0.4]
    assert list(values["order_tau"]) == pytest.approx([1, 1, 1 / 3, 1, 1, 1])
    assert list(values["order_tau_beyond"]) == pytest.approx([1 / 3, 1]) and list(values["order_tau_high"]) == [1] * 6
    assert values["lift_datasets"] == 2 and list(values["spread_1r"]) == pytest.approx([1.2, 1.2])
    assert list(values["spread_ar"]) == pytest.approx([4.0, 4.0]) and values["spread_below_share"] == 1.0
    assert (values["check_within"], values["check_configurations"], values["check_max_z"]) == (0.93, 60, 3.14)
    assert (values["check_users"], values["check_users_total"], values["check_skipped"]) == (10, 12, 2)
    # the sweep's bookkeeping: the TI pool at the full test set and at 80%, the last level fitted (95% is beyond)
    assert (values["pool_full"], values["pool_thin"], values["pool_thin_level"]) == (244, 114, 0.8)
    assert values["pool_kept"] == pytest.approx(114 / 244) and values["many_relevant"] == 0.25
    assert (values["followed"], values["rated"], values["size_low"], values["size_high"]) == (60, 106, 23, 226)
    assert (values["one_r_users_full"], values["one_r_users_last"], values["one_r_last_level"]) == (100, 12, 0.99)
    assert f"{values['elasticity_p_all']:.2f}" == "1.40 to 1.68" and f"{values['elasticity_recall']:.2f}" == \
        "0.05 to 0.06"
    assert (values["rho_low"], values["rho_low_dataset"], values["rho_high_dataset"]) == (0.001, "a", "b")
    assert values["one_r_t"] == pytest.approx(100) and f"{values['spread_ar_lift']:.1f}" == "2.0"


def test_registered_evidence_reads_as_the_measurement() -> None:
    values = claims.measured(summary(), sweep(), density_fits(), size_fits(), orders(), elasticities(), lift_frame())
    checked = {claim.key: claim for claim in register(claims.FINDINGS, values, dataset="synthetic")
               if claim.outcome != NOT_CHECKED}
    assert list(checked) == [f.key for f in claims.FINDINGS if f.key != "1r-precision-independent-of-density-ml1m"]
    assert checked["random-precision-is-eq4-eq5"].evidence.startswith(
        "93% of 60 configurations within the 95% simulation band; largest |z| = 3.1 (criterion: ")
    assert checked["ar-precision-linear-in-density"].label == \
        "AR P@10 of every system decreases linearly with the relevance density"
    assert checked["ar-precision-linear-in-density"].evidence.startswith(
        "R² of the line in δ: 0.999 to 1.000; scatter about it 0.9 to 1.1 times the points' sampling noise (")
    assert checked["1r-precision-independent-of-density"].evidence.startswith(
        "fitted change from the full test set to 90% removed, systems but Random: -25% to -18% with TI-NN candidates "
        "(95% intervals from -30% to -23% up to -20% to -13%), -2% to -1% with AI-NN (criterion: ")
    assert checked["1r-precision-inverse-to-t"].evidence.startswith(
        "fitted exponents -0.63 to -0.45 for the systems but Random (")
    assert checked["order-survives-sparsity"].evidence.startswith(
        "Kendall's τ against the full test set: 0.33 to 1.00 up to 90% removed (95% intervals from 0.13 to 0.80 up "
        "to 1.00); 0.33 to 1.00 beyond 90% (")
    assert checked["recall-insensitive"].evidence.startswith("elasticity over P@10's: 0.06 (")
    assert checked["1r-values-comparable-across-datasets"].evidence.startswith(
        "largest over smallest value across 2 datasets, systems but Random: 1R 1.2, AR 4.0; 1R below AR for every "
        "system in 100.0% of the resamples (")
    outcomes = {key: claim.outcome for key, claim in checked.items()}
    assert "1r-precision-independent-of-density-ml1m" not in outcomes  # the world check was switched off
    assert outcomes["1r-precision-independent-of-density"] == FAILS and outcomes["1r-precision-inverse-to-t"] == MEASURED
    # AR at 50% removed: τ's interval (0.13 to 1) reaches the τ of one swap among three systems (1/3): too wide
    assert outcomes["order-survives-sparsity"] == INCONCLUSIVE
    assert outcomes["1r-values-comparable-across-datasets"] == HOLDS
    # with AI-NN candidates every interval (the change ± 5%) lies within ±10%: the design, not the pool, sets 1R
    assert outcomes["1r-ai-precision-independent-of-density"] == HOLDS
    assert checked["1r-ai-precision-independent-of-density"].sentence.endswith(
        "**1R precision is set by the design, as long as the candidates stay the same.**")
    assert checked["1r-ai-precision-independent-of-density"].departs


def test_claims_without_their_measurement_are_left_out() -> None:
    empty = pd.DataFrame(columns=["sweep", "system", "change", "r2"])
    values = claims.measured(summary(), sweep(), empty, pd.DataFrame(columns=["system", "exponent", "exponent_ci"]),
                             pd.DataFrame(columns=["sweep", "x", "tau", "tau_ci"]), elasticities(),
                             lift_frame(("a",)))
    registered = register(claims.FINDINGS, values, dataset="d")
    keys = {claim.key for claim in registered if claim.outcome != NOT_CHECKED}
    assert keys == {"random-precision-is-eq4-eq5", "recall-insensitive", "map-ndcg-slightly-sensitive",
                    "ndcg-at-n-sensitive", "mrr-like-precision"}
    # what the page says in place of the others: the parts switched off say how to switch them on
    assert claims.UNMEASURED["1r-precision-independent-of-density-ml1m"].startswith("The check was not run")
    assert claims.UNMEASURED["1r-values-comparable-across-datasets"].startswith("Only this page's dataset")
    assert set(claims.UNMEASURED) < set(BY_KEY) - keys
    sentences = {claim.key: claim.sentence for claim in registered}
    assert sentences["1r-values-comparable-across-datasets"] == claims.UNMEASURED["1r-values-comparable-across-datasets"]
    assert sentences["order-survives-sparsity"] == claims.NOT_MEASURED


def test_the_world_check_reads_the_systems_but_random_and_decides_on_their_intervals() -> None:
    world = pd.DataFrame({"system": ["A", "B", "Random"], "change": [-0.06, -0.08, 0.4],
                          "change_ci": [(-0.09, -0.03), (-0.12, -0.04), (0.1, 0.7)], "pool_full": 3700,
                          "pool_thinned": 3500, "users": 5000})
    values = claims.world_values(world, "synthetic-ml1m", 0.9) | claims.sweep_values(sweep())
    assert list(values["world_change_low"]) == [-0.09, -0.12] and list(values["world_change_high"]) == [-0.03, -0.04]
    (claim,) = register([BY_KEY["1r-precision-independent-of-density-ml1m"]], values, dataset="synthetic")
    assert claim.outcome == INCONCLUSIVE  # B's interval straddles -10%
    assert claim.evidence.startswith("on synthetic-ml1m, change from the full test set to 90% removed, systems but "
                                     "Random: -8% to -6% (95% intervals from -12% to -9% up to -4% to -3%); TI pool "
                                     "3,700 to 3,500 items (criterion: ")
    assert claim.departs and claims.world_values(None, "synthetic-ml1m", 0.9) == {}
    assert claim.sentence == ("On synthetic-ml1m the 1R P@n of the systems other than Random changes by -8% to -6% "
                              "(5,000 users followed), and the test cannot tell there: an interval straddles ±10%. "
                              "Its TI pool keeps 95% of its items at 90% removed, against 47% on tiny.")


#: a value of every name any finding's sentence reads, for the sentences of the outcomes not reached above
EVERY_VALUE = claims.measured(summary(), sweep(), density_fits(), size_fits(), orders(), elasticities(), lift_frame(),
                              pd.DataFrame({"system": ["A"], "change": [-0.05], "change_ci": [(-0.08, -0.02)],
                                            "pool_full": 3700, "pool_thinned": 3330, "users": 5000}), "w")


@pytest.mark.parametrize("key, outcome", sorted({(key, outcome) for key, _, outcome in EDGES}))
def test_a_finding_that_says_something_says_it_of_every_outcome_it_reaches(key, outcome) -> None:
    finding = BY_KEY[key]
    if key == "random-precision-is-eq4-eq5":
        assert set(finding.says) == {NOT_CHECKED}  # the page states its numbers instead
        return
    sentence = finding.sentence(outcome, EVERY_VALUE)
    assert sentence and "{" not in sentence and sentence.rstrip("*").endswith(".")


def test_the_sentences_name_the_outcome_they_are_printed_for() -> None:
    line = BY_KEY["ar-precision-linear-in-density"]
    assert set(line.says) == {MEASURED, NOT_CHECKED}  # no verdict: only what was measured is said
    assert line.sentence(MEASURED, EVERY_VALUE).startswith("**AR precision follows the density.** The papers call")
    assert BY_KEY["1r-precision-independent-of-density"].says[HOLDS] == "**1R precision does not follow the test data.**"
    order = BY_KEY["order-survives-sparsity"]
    assert order.sentence(FAILS, EVERY_VALUE | {"order_changed": 1, "order_levels": 6}).startswith(
        "Up to 90% removed, under AR and 1R, the order changed beyond the noise of the users at 1 of the 6 levels")
    recall = BY_KEY["recall-insensitive"]
    assert recall.sentence(MEASURED, EVERY_VALUE).startswith(
        "The papers say that *Recall@10 is nearly insensitive to the density*; here its elasticity over P@10's is 0.06")
    lift = BY_KEY["1r-values-comparable-across-datasets"]
    assert "1R values are the more comparable" in lift.sentence(HOLDS, EVERY_VALUE)
    assert "fixing t does not make 1R values more comparable" in lift.sentence(FAILS, EVERY_VALUE)
    assert lift.sentence(HOLDS, EVERY_VALUE).startswith("Across the datasets, ρ under AR ranges from 0.0010 (a) to "
                                                        "0.0020 (b); under 1R it is 1/100 everywhere.")


def test_the_true_order_is_stated_on_a_simulated_world_and_its_absence_on_observed_data() -> None:
    truth = claims.measured(summary(), sweep(), density_fits(), size_fits(), orders(truth=True), elasticities(),
                            lift_frame())
    assert claims.TRUTH[True].format(**truth).startswith(
        "Against the true order of the simulated world, AR on the full test set has τ = 1.00, and τ against the truth "
        "takes values of 0.60 to 1.00 across the levels")
    assert "truth_tau_full" not in EVERY_VALUE
    assert claims.TRUTH[False].format(**EVERY_VALUE).startswith("*tiny* is observed data without a complete truth")

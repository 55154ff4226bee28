"""Chapter 8's findings: every criterion at its edges on hand-made values, the evidence they print, and the
values measured from hand-made fidelity tables and grids."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, LEVEL, evaluate, published
from recbias.chapters.c08_protocol_fidelity import claims, study

FINDING = {f.key: f for f in claims.ON_GRID + claims.PAPERS_ON_GRID + claims.FINDINGS + claims.PAPERS_FINDINGS
           + claims.ON_SECOND}
#: values under which every finding holds
HOLDING = {
    "strongest": 2.5, "grid_neutralising": 0.77, "grid_standard": 0.70, "grid_worlds": 2, "neutralising_gain": 0.07,
    "neutralising_gain_p": 0.01, "skew_loss": 0.19, "skew_loss_p": 0.01, "skew_taus": "α 0.5: 0.73, α 1.4: 0.54",
    "papers_strongest": 2.5, "papers_grid_neutralising": 0.8, "papers_grid_standard": 0.6, "papers_grid_worlds": 2,
    "papers_neutralising_gain": 0.2, "papers_neutralising_gain_p": 0.02,
    "tau_full": 0.78, "tau_sampled": 0.62, "tau_corrected": 0.7, "tau_snips": 0.8, "tau_ar": 0.75, "tau_dauc": 0.76,
    "tau_dauc_off": 0.47, "gap_full_vs_sampled": 0.16, "gap_corrected_vs_sampled": 0.08, "gap_snips_vs_ar": 0.05,
    "gap_dauc_vs_off": 0.29, "share_full_vs_sampled": 0.98, "share_corrected_vs_sampled": 0.99,
    "share_snips_vs_ar": 0.99, "share_dauc_vs_off": 1.0, "p_full_vs_sampled": 0.03, "p_corrected_vs_sampled": 0.02,
    "p_snips_vs_ar": 0.02, "p_dauc_vs_off": 0.01,
    "main_neutralising": 0.8, "main_standard": 0.7, "main_neutralising_gain": 0.1, "main_neutralising_gain_p": 0.01,
    "papers_main_neutralising": 0.7, "papers_main_standard": 0.5, "papers_main_neutralising_gain": 0.2,
    "papers_main_neutralising_gain_p": 0.03,
    "standard_best_share": 0.97, "standard_first": "truly best system first in 97% of the user resamples under 1R P@10",
    "papers_standard_best_share": 1.0, "papers_standard_first": "truly best system first in 100% ...",
    "tau_max": 0.88, "tau_max_protocol": "infAP",
    "dataset": "synthetic", "second": "coat", "leaders_margin": 0.1, "leaders_margin_p": 0.01,
    "leaders_on_second": "τ on coat minus the median τ there (0.56): infAP +0.10 (p = 0.010)",
    "bias_gain": 0.3, "bias_gain_p": 0.01, "bias_low": 0.49, "bias_high": 0.79, "weakest": 0.0,
    "truths_n": 18, "truths_rho": 0.6, "truths_top": "infAP and bpref", "truths_furthest": "UAR P@10",
    "truths_rank_first": "2nd", "truths_rank_second": "16th", "truths_apart": 0, "truths_higher_first": 0,
    "truths_higher_second": 0, "truths_noisier": "coat",
}
EDGES = [
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain_p": 0.0499}, HOLDS),
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain_p": 0.05}, INCONCLUSIVE),
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain": -0.01}, FAILS),
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain": math.nan}, INCONCLUSIVE),
    ("neutralising-beats-standard-under-strong-bias-papers-set", {"papers_neutralising_gain": -0.2}, FAILS),
    ("neutralising-beats-standard-under-strong-bias-papers-set", {"papers_neutralising_gain_p": 0.5}, INCONCLUSIVE),
    ("skew-hurts-fidelity", {"skew_loss": 0.0}, INCONCLUSIVE),
    ("skew-hurts-fidelity", {"skew_loss": -0.3}, FAILS),
    ("full-catalogue-beats-sampled", {"gap_full_vs_sampled": -1e-9}, FAILS),
    ("full-catalogue-beats-sampled", {"p_full_vs_sampled": 0.2}, INCONCLUSIVE),
    ("correction-helps-sampled", {"gap_corrected_vs_sampled": 0.0}, INCONCLUSIVE),
    ("correction-helps-sampled", {"gap_corrected_vs_sampled": -0.1}, FAILS),
    ("snips-beats-plain", {"gap_snips_vs_ar": -0.02}, FAILS),
    ("snips-beats-plain", {"p_snips_vs_ar": 0.9}, INCONCLUSIVE),
    ("step-hurts-discounted-auc", {"gap_dauc_vs_off": -0.1}, FAILS),
    ("step-hurts-discounted-auc", {"p_dauc_vs_off": math.nan}, INCONCLUSIVE),
    ("neutralising-beats-standard", {"main_neutralising_gain": -0.1}, FAILS),
    ("neutralising-beats-standard", {"main_neutralising_gain_p": 0.06}, INCONCLUSIVE),
    ("neutralising-beats-standard-papers-set", {"papers_main_neutralising_gain": -0.1}, FAILS),
    ("neutralising-beats-standard-papers-set", {"papers_main_neutralising_gain_p": 0.06}, INCONCLUSIVE),
    ("standard-protocols-pick-the-best", {"standard_best_share": 0.95}, HOLDS),
    ("standard-protocols-pick-the-best", {"standard_best_share": 0.949}, INCONCLUSIVE),
    ("standard-protocols-pick-the-best", {"standard_best_share": 0.051}, INCONCLUSIVE),
    ("standard-protocols-pick-the-best", {"standard_best_share": 0.05}, FAILS),
    ("standard-protocols-pick-the-best-papers-set", {"papers_standard_best_share": 0.0}, FAILS),
    ("standard-protocols-pick-the-best-papers-set", {"papers_standard_best_share": 0.5}, INCONCLUSIVE),
    ("no-protocol-is-exact", {"tau_max": 1.0}, FAILS),
    ("no-protocol-is-exact", {"tau_max": 0.9999}, HOLDS),
    ("no-protocol-is-exact", {"tau_max": -1.0}, HOLDS),
    ("leaders-hold-on-second-truth", {"leaders_margin": -0.1}, FAILS),
    ("leaders-hold-on-second-truth", {"leaders_margin_p": 0.3}, INCONCLUSIVE),
    ("bias-helps-fidelity", {"bias_gain": -0.3}, FAILS),
    ("bias-helps-fidelity", {"bias_gain_p": 0.05}, INCONCLUSIVE),
    ("truths-rank-protocols-alike", {"truths_rho": 0.5}, HOLDS),
    ("truths-rank-protocols-alike", {"truths_rho": 0.4999}, FAILS),
    ("truths-agree-on-every-protocol", {"truths_apart": 1}, FAILS),
]


def test_every_finding_holds_on_the_holding_values() -> None:
    assert {key: f.criterion(HOLDING) for key, f in FINDING.items()} == {key: HOLDS for key in FINDING}


@pytest.mark.parametrize(("key", "changed", "outcome"), EDGES, ids=[f"{k}-{o}-{i}" for i, (k, _, o) in enumerate(EDGES)])
def test_each_criterion_at_its_edge(key: str, changed: dict, outcome: str) -> None:
    assert FINDING[key].criterion(HOLDING | changed) == outcome


def test_every_finding_is_tested_at_an_edge_and_keys_are_the_scorecards() -> None:
    assert {key for key, _, _ in EDGES} == set(FINDING)
    assert list(FINDING) == ["neutralising-beats-standard-under-strong-bias", "skew-hurts-fidelity",
                             "bias-helps-fidelity", "neutralising-beats-standard-under-strong-bias-papers-set",
                             "full-catalogue-beats-sampled", "correction-helps-sampled", "snips-beats-plain",
                             "step-hurts-discounted-auc", "neutralising-beats-standard",
                             "standard-protocols-pick-the-best", "no-protocol-is-exact",
                             "neutralising-beats-standard-papers-set", "standard-protocols-pick-the-best-papers-set",
                             "leaders-hold-on-second-truth", "truths-rank-protocols-alike",
                             "truths-agree-on-every-protocol"]


def test_the_evidence_and_statements_quote_the_measured_values() -> None:
    record = evaluate(FINDING["full-catalogue-beats-sampled"], HOLDING, dataset="synthetic")
    assert record.evidence.startswith("τ 0.78 (full-catalogue nDCG@10) against 0.62 (sampled HR@10); higher in 98% "
                                      "of paired user resamples, p = 0.030 (criterion: τ of full-catalogue")
    assert record.criterion.endswith("above zero, p < 0.05 with the user as the unit")
    record = evaluate(FINDING["neutralising-beats-standard-under-strong-bias"], HOLDING, dataset=claims.GRID)
    assert record.evidence.startswith("mean Kendall's τ at bias strength 2.5 over 2 worlds: neutralising 0.77, "
                                      "standard 0.70; p = 0.010 (")
    assert record.label.endswith("(today's field)")
    record = evaluate(FINDING["neutralising-beats-standard-under-strong-bias-papers-set"], HOLDING, dataset="grid")
    assert record.label.endswith("(the papers' five systems)") and "neutralising 0.80, standard 0.60" in record.evidence
    record = evaluate(FINDING["leaders-hold-on-second-truth"], HOLDING, dataset="coat")
    assert record.label == "the protocols that are most faithful on synthetic are at least median on coat"
    assert record.evidence.startswith("τ on coat minus the median τ there (0.56): infAP +0.10 (p = 0.010) (")
    record = evaluate(FINDING["standard-protocols-pick-the-best"], HOLDING, dataset="x")
    assert record.criterion.endswith("at least 0.95 to hold, at most 0.05 to fail")
    assert evaluate(FINDING["no-protocol-is-exact"], HOLDING, dataset="x").evidence.startswith(
        "highest mean τ 0.88 (infAP) (")


def test_the_findings_that_speak_on_the_page_say_every_outcome_they_reach() -> None:
    def said(key: str, changed: dict) -> str:
        return evaluate(FINDING[key], HOLDING | changed, dataset="x").sentence

    assert said("bias-helps-fidelity", {}).startswith("In this grid fidelity rises with observation bias (mean "
                                                      "Kendall's τ over protocols 0.49 at strength 0 and 0.79 at 2.5). "
                                                      "Under strong selection")
    assert said("bias-helps-fidelity", {"bias_gain": -0.3}).startswith("In this grid fidelity falls with observation")
    assert said("bias-helps-fidelity", {"bias_gain_p": 0.3}).startswith(
        "In this grid fidelity does not rise with observation bias beyond resampling noise (mean Kendall's τ")
    agreement = ("over the 18 protocols, the rank correlation between their τ on the one and on the other is 0.60. "
                 "In the top third on both: infAP and bpref. They disagree most on UAR P@10 (2nd of 18 on synthetic, "
                 "16th on coat).")
    assert said("truths-rank-protocols-alike", {}) == "The two truths rank the protocols alike: " + agreement
    assert said("truths-rank-protocols-alike", {"truths_rho": 0.03}).startswith(
        "The two truths rank the protocols differently: over the 18 protocols, the rank correlation between their τ "
        "on the one and on the other is 0.03.")
    assert said("truths-agree-on-every-protocol", {}).endswith("coat cannot settle the finer distinctions of synthetic.")
    parted = said("truths-agree-on-every-protocol", {"truths_apart": 13, "truths_higher_first": 12,
                                                     "truths_higher_second": 1})
    assert parted.startswith("The two truths part beyond resampling noise on 13 of the 18 protocols (marked in the "
                             "table): synthetic gives the higher τ on 12 of them and coat on 1.")
    assert "as coat's is with its wider intervals" in parted
    assert all(said(key, {}) == "" for key in FINDING if not FINDING[key].says)


def test_the_chapter_publishes_no_number() -> None:
    assert published(claims.PUBLISHED) == []


def fidelity_table(taus: dict[str, float], best_share: dict[str, float], draws: dict[str, list[float]],
                   behind: dict[str, float] | None = None) -> pd.DataFrame:
    return pd.DataFrame([{"protocol": p, "tau": t, "tau_low": t - 0.15, "tau_high": t + 0.15,
                          "best_share": best_share.get(p, 0.0),
                          "tau_draws": np.array(draws.get(p, [t] * 4), dtype=float),
                          "behind_best": (behind or {}).get(p, 0.0)} for p, t in taus.items()])


def test_the_values_of_the_build_truth_from_a_fidelity_table() -> None:
    taus = {"infAP": 0.9, "full-catalogue nDCG@10": 0.8, "sampled HR@10": 0.6, "AR TI-AN P@10": 0.7,
            "1R P@10": 0.5, "SNIPS-P@10 (power 0.5)": 0.7, "UAR P@10": 0.8, "P1R(10) P@10": 0.6}
    draws = {"full-catalogue nDCG@10": [0.8, 0.6, 0.7, 0.9], "sampled HR@10": [0.7, 0.7, 0.6, 0.6],
             "AR TI-AN P@10": [0.7, 0.7, 0.7, 0.7], "SNIPS-P@10 (power 0.5)": [0.6, 0.8, 0.7, 0.7],
             "1R P@10": [0.5, 0.4, 0.6, 0.5], "UAR P@10": [0.8, 0.9, 0.7, 0.8], "P1R(10) P@10": [0.6, 0.6, 0.5, 0.7]}
    main = fidelity_table(taus, {"AR TI-AN P@10": 0.9, "1R P@10": 0.97, "infAP": 1.0}, draws)
    values = claims.measured_main(main)
    assert values["tau_full"] == 0.8 and values["gap_full_vs_sampled"] == pytest.approx(0.2)
    assert values["share_full_vs_sampled"] == 0.75  # higher in three of the four paired resamples
    # differences 0.1, -0.1, 0.1, 0.3: one at or below zero, so p = 2 (1 + 1) / 5
    assert values["p_full_vs_sampled"] == pytest.approx(0.8)
    assert values["gap_snips_vs_ar"] == 0.0 and values["share_snips_vs_ar"] == 0.25
    assert "gap_dauc_vs_off" not in values  # a comparison of protocols not measured is left out
    # neutralising (UAR, P1R) 0.7 against standard (full-catalogue, AR TI-AN, 1R) 2/3; per resample the
    # gap is 0.7 - 2/3, 0.75 - 1.7/3, 0.6 - 2/3, 0.75 - 0.7: one of four below zero, so p = 2 (1 + 1) / 5
    assert (values["main_neutralising"], values["main_standard"]) == (pytest.approx(0.7), pytest.approx(2 / 3))
    assert values["main_neutralising_gain"] == pytest.approx(0.7 - 2 / 3)
    assert values["main_neutralising_gain_p"] == pytest.approx(0.8)
    assert values["standard_best_share"] == 0.97
    assert values["standard_first"].startswith("truly best system first in 97% of the user resamples under 1R P@10")
    assert (values["tau_max"], values["tau_max_protocol"]) == (0.9, "infAP")
    papers = claims.measured_main(main, claims.PAPERS_PREFIX)
    assert set(papers) == {claims.PAPERS_PREFIX + name for name in values}
    assert FINDING["snips-beats-plain"].criterion(values) == INCONCLUSIVE  # equal tau is not closer


def test_the_values_of_the_grid_compare_kinds_draw_by_draw() -> None:
    rows = []
    for p, tau in (("AR TI-AN P@10", 0.6), ("UAR P@10", 0.7), ("bpref", 0.2)):
        for a in (0.5, 1.5):
            for s in (0.0, 2.0):
                centre = tau - 0.1 * a + 0.05 * s
                rows.append({"protocol": p, "alpha": a, "selection": s, "seed": 0, "tau": centre,
                             "tau_draws": centre + np.array([0.0, 0.01, -0.01, 0.02])})
    grid = pd.DataFrame(rows)
    values = claims.measured_grid(grid)
    assert values["strongest"] == 2.0 and values["grid_worlds"] == 2
    assert values["grid_neutralising"] == pytest.approx(0.7 - 0.1 + 0.1)
    assert values["grid_standard"] == pytest.approx(0.6 - 0.1 + 0.1)
    assert values["neutralising_gain"] == pytest.approx(0.1)
    assert values["neutralising_gain_p"] == pytest.approx(2 / 5)  # 0.1 in every one of the four resamples
    assert values["skew_loss"] == pytest.approx(0.1) and values["skew_taus"] == "α 0.5: 0.50, α 1.5: 0.40"
    assert values["skew_loss_p"] == pytest.approx(2 / 5)
    # a bias of 2 adds 0.1 to every world: the strongest against the weakest, 0.1 in every resample too
    assert (values["bias_low"], values["bias_high"]) == (pytest.approx(0.4), pytest.approx(0.5))
    assert values["bias_gain"] == pytest.approx(0.1) and values["bias_gain_p"] == pytest.approx(2 / 5)
    assert (values["weakest"], values["strongest"]) == (0.0, 2.0)
    papers = claims.measured_grid(grid, claims.PAPERS_PREFIX)
    assert papers["papers_neutralising_gain"] == values["neutralising_gain"]
    unbiased = claims.measured_grid(grid[(grid["selection"] == 0) & (grid["alpha"] == 0.5)])
    assert unbiased == {}  # neither finding of the grid can be checked


def test_the_values_of_the_second_truth_read_the_weakest_leader() -> None:
    # 79 resamples: c and d are always below a (p = 2 / 80), b is above it in ten (p = 2 (10 + 1) / 80)
    main = fidelity_table({"a": 0.9, "b": 0.85, "c": 0.5, "d": 0.3}, {},
                          {"a": [0.9] * 79, "b": [0.85] * 69 + [0.95] * 10, "c": [0.5] * 79, "d": [0.3] * 79})
    assert study.leaders(main, LEVEL) == ["a", "b"]
    draws = {"a": [0.2, 0.1, 0.3, 0.2], "b": [0.8, 0.7, 0.9, 0.8], "c": [0.6, 0.6, 0.6, 0.6], "d": [0.1, 0.2, 0.0, 0.1]}
    second = fidelity_table({"a": 0.2, "b": 0.8, "c": 0.6, "d": 0.1}, {}, draws)
    values = claims.measured_second(main, second, ("world", "coat"))
    # median 0.4 in the full sample and in every resample: a is below it beyond noise, so the finding fails on a
    assert values["leaders_margin"] == pytest.approx(-0.2) and values["leaders_margin_p"] == pytest.approx(2 / 5)
    assert values["leaders_on_second"] == ("τ on coat minus the median τ there (0.40): a -0.20 (p = 0.400); "
                                           "b +0.40 (p = 0.400)")
    assert FINDING["leaders-hold-on-second-truth"].criterion(values | {"leaders_margin_p": 0.01}) == FAILS
    # the intervals are tau ± 0.15: a (0.9 against 0.2) and d (0.3 against 0.1) part, both higher on the world
    assert (values["truths_n"], values["truths_apart"], values["truths_higher_first"]) == (4, 2, 2)
    assert values["truths_furthest"] == "a" and values["truths_top"] == "none"  # a leads on one, b on the other
    assert FINDING["truths-agree-on-every-protocol"].criterion(values) == FAILS
    kept = claims.measured_second(main, second.assign(tau=[0.9, 0.8, 0.1, 0.0],
                                                      tau_draws=[np.array([0.9, 0.8, 0.9, 0.9])] * 2
                                                      + [np.array([0.1, 0.0, 0.1, 0.1])] * 2), ("world", "coat"))
    assert kept["leaders_margin"] > 0  # both leaders above the median: the weaker is the one with the larger p
    assert claims.measured_second(main, None, ("world", "")) == {}  # no second truth, no value of its findings

"""Chapter 8's findings: every criterion at its edges on hand-made values, the evidence they print, and the
values measured from hand-made fidelity tables and grids."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from recbias.bookkit.claims import FAILS, HOLDS, evaluate, published
from recbias.chapters.c08_protocol_fidelity import claims, study

FINDING = {f.key: f for f in claims.ON_GRID + claims.FINDINGS + claims.ON_SECOND}
#: values under which every finding holds
HOLDING = {
    "strongest": 2.5, "grid_neutralising": 0.77, "grid_standard": 0.76, "neutralising_gain": 0.01,
    "skew_loss": 0.19, "skew_taus": "α 0.5: 0.73, α 1.4: 0.54",
    "tau_full": 0.78, "tau_sampled": 0.62, "tau_corrected": 0.7, "tau_snips": 0.8, "tau_ar": 0.75, "tau_dauc": 0.76,
    "tau_dauc_off": 0.47, "gap_full_vs_sampled": 0.16, "gap_corrected_vs_sampled": 0.08, "gap_snips_vs_ar": 0.05,
    "gap_dauc_vs_off": 0.29, "share_full_vs_sampled": 0.98, "share_corrected_vs_sampled": 0.96,
    "share_snips_vs_ar": 0.7, "share_dauc_vs_off": 1.0,
    "standard_best_first": 1.0, "standard_first": "truly best system first under 1R P@10",
    "tau_max": 0.88, "tau_max_protocol": "infAP",
    "dataset": "synthetic", "second": "coat", "leaders_below_median": 0,
    "leaders_on_second": "all of infAP and bpref reach the median τ (0.56) on coat",
}
EDGES = [
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain": 1e-9}, HOLDS),
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain": 0.0}, FAILS),
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain": math.nan}, FAILS),
    ("neutralising-beats-standard-under-strong-bias", {"neutralising_gain": 2.0}, HOLDS),
    ("skew-hurts-fidelity", {"skew_loss": 1e-9}, HOLDS),
    ("skew-hurts-fidelity", {"skew_loss": 0.0}, FAILS),
    ("skew-hurts-fidelity", {"skew_loss": -0.3}, FAILS),
    ("full-catalogue-beats-sampled", {"gap_full_vs_sampled": 1e-9}, HOLDS),
    ("full-catalogue-beats-sampled", {"gap_full_vs_sampled": 0.0}, FAILS),
    ("correction-helps-sampled", {"gap_corrected_vs_sampled": 0.0}, FAILS),
    ("correction-helps-sampled", {"gap_corrected_vs_sampled": 2.0}, HOLDS),
    ("snips-beats-plain", {"gap_snips_vs_ar": -0.02}, FAILS),
    ("snips-beats-plain", {"gap_snips_vs_ar": 1e-9}, HOLDS),
    ("step-hurts-discounted-auc", {"gap_dauc_vs_off": 0.0}, FAILS),
    ("step-hurts-discounted-auc", {"gap_dauc_vs_off": math.nan}, FAILS),
    ("standard-protocols-pick-the-best", {"standard_best_first": 0.999}, FAILS),
    ("standard-protocols-pick-the-best", {"standard_best_first": math.nan}, FAILS),
    ("no-protocol-is-exact", {"tau_max": 1.0}, FAILS),
    ("no-protocol-is-exact", {"tau_max": 0.9999}, HOLDS),
    ("no-protocol-is-exact", {"tau_max": -1.0}, HOLDS),
    ("leaders-hold-on-second-truth", {"leaders_below_median": 1}, FAILS),
]


def test_every_finding_holds_on_the_holding_values() -> None:
    assert {key: f.criterion(HOLDING) for key, f in FINDING.items()} == {key: HOLDS for key in FINDING}


@pytest.mark.parametrize(("key", "changed", "outcome"), EDGES, ids=[f"{k}-{o}-{i}" for i, (k, _, o) in enumerate(EDGES)])
def test_each_criterion_at_its_edge(key: str, changed: dict, outcome: str) -> None:
    assert FINDING[key].criterion(HOLDING | changed) == outcome


def test_every_finding_is_tested_at_an_edge_and_keys_are_the_scorecards() -> None:
    assert {key for key, _, _ in EDGES} == set(FINDING)
    assert list(FINDING) == ["neutralising-beats-standard-under-strong-bias", "skew-hurts-fidelity",
                             "full-catalogue-beats-sampled", "correction-helps-sampled", "snips-beats-plain",
                             "step-hurts-discounted-auc", "standard-protocols-pick-the-best", "no-protocol-is-exact",
                             "leaders-hold-on-second-truth"]


def test_the_evidence_and_statements_quote_the_measured_values() -> None:
    record = evaluate(FINDING["full-catalogue-beats-sampled"], HOLDING, dataset="synthetic")
    assert record.evidence.startswith("τ 0.78 (full-catalogue nDCG@10) against 0.62 (sampled HR@10); higher in 98% "
                                      "of paired user resamples (criterion: 0 < τ of full-catalogue")
    record = evaluate(FINDING["neutralising-beats-standard-under-strong-bias"], HOLDING, dataset=claims.GRID)
    assert record.evidence.startswith("mean Kendall's τ at bias strength 2.5: neutralising 0.77, standard 0.76 (")
    record = evaluate(FINDING["leaders-hold-on-second-truth"], HOLDING, dataset="coat")
    assert record.label == "the protocols that are most faithful on synthetic are at least median on coat"
    assert record.evidence.startswith("all of infAP and bpref reach the median τ (0.56) on coat (criterion: ")
    assert evaluate(FINDING["no-protocol-is-exact"], HOLDING, dataset="x").evidence.startswith(
        "highest mean τ 0.88 (infAP) (")


def test_the_chapter_publishes_no_number() -> None:
    assert published(claims.PUBLISHED) == []


def fidelity_table(taus: dict[str, float], best: dict[str, float], draws: dict[str, list[float]],
                   behind: dict[str, float] | None = None) -> pd.DataFrame:
    return pd.DataFrame([{"protocol": p, "tau": t, "best": best.get(p, 0.0), "tau_draws": np.array(draws.get(p, [t])),
                          "behind_best": (behind or {}).get(p, 0.0)} for p, t in taus.items()])


def test_the_values_of_the_build_truth_from_a_fidelity_table() -> None:
    taus = {"infAP": 0.9, "full-catalogue nDCG@10": 0.8, "sampled HR@10": 0.6, "AR TI-AN P@10": 0.7,
            "1R P@10": 0.5, "SNIPS-P@10 (power 0.5)": 0.7}
    draws = {"full-catalogue nDCG@10": [0.8, 0.6, 0.7, 0.9], "sampled HR@10": [0.7, 0.7, 0.6, 0.6],
             "AR TI-AN P@10": [0.7, 0.7, 0.7, 0.7], "SNIPS-P@10 (power 0.5)": [0.6, 0.8, 0.7, 0.7]}
    main = fidelity_table(taus, {"AR TI-AN P@10": 1.0, "1R P@10": 1.0, "infAP": 1.0}, draws)
    values = claims.measured_main(main)
    assert values["tau_full"] == 0.8 and values["gap_full_vs_sampled"] == pytest.approx(0.2)
    assert values["share_full_vs_sampled"] == 0.75  # higher in three of the four paired resamples
    assert values["gap_snips_vs_ar"] == 0.0 and values["share_snips_vs_ar"] == 0.25
    assert "gap_dauc_vs_off" not in values  # a comparison of protocols not measured is left out
    assert values["standard_best_first"] == 1.0
    assert values["standard_first"] == "truly best system first under AR TI-AN P@10 and 1R P@10"
    assert (values["tau_max"], values["tau_max_protocol"]) == (0.9, "infAP")
    none_first = claims.measured_main(fidelity_table(taus, {"AR TI-AN P@10": 0.5}, draws))
    assert none_first["standard_first"] == "no standard protocol puts it first on every split"
    assert FINDING["standard-protocols-pick-the-best"].criterion(none_first) == FAILS
    assert FINDING["snips-beats-plain"].criterion(values) == FAILS  # equal tau is not closer


def test_the_values_of_the_grid_need_a_biased_cell_and_two_skews() -> None:
    grid = pd.DataFrame([{"protocol": p, "alpha": a, "selection": s, "tau": tau - 0.1 * a + 0.05 * s}
                         for p, tau in (("AR TI-AN P@10", 0.6), ("UAR P@10", 0.7), ("bpref", 0.2))
                         for a in (0.5, 1.5) for s in (0.0, 2.0)])
    values = claims.measured_grid(grid)
    assert values["strongest"] == 2.0
    assert values["grid_neutralising"] == pytest.approx(0.7 - 0.1 + 0.1)
    assert values["grid_standard"] == pytest.approx(0.6 - 0.1 + 0.1)
    assert values["neutralising_gain"] == pytest.approx(0.1)
    assert values["skew_loss"] == pytest.approx(0.1) and values["skew_taus"] == "α 0.5: 0.50, α 1.5: 0.40"
    unbiased = claims.measured_grid(grid[(grid["selection"] == 0) & (grid["alpha"] == 0.5)])
    assert unbiased == {}  # neither finding of the grid can be checked


def test_the_values_of_the_second_truth_name_the_leaders_below_its_median() -> None:
    main = fidelity_table({"a": 0.9, "b": 0.85, "c": 0.5, "d": 0.3}, {}, {}, behind={"c": 0.99, "d": 1.0})
    second = fidelity_table({"a": 0.2, "b": 0.8, "c": 0.6, "d": 0.1}, {}, {})
    values = claims.measured_second(main, second, ("world", "coat"))
    assert values["leaders_below_median"] == 1  # median 0.4: a is below it, b is not
    assert values["leaders_on_second"] == "below the median τ (0.40) on coat: a"
    kept = claims.measured_second(main, second.assign(tau=[0.9, 0.8, 0.1, 0.0]), ("world", "coat"))
    assert kept["leaders_on_second"] == "all of a and b reach the median τ (0.45) on coat"
    assert set(claims.measured(main, pd.DataFrame({"protocol": ["a"], "alpha": [1.0], "selection": [0.0],
                                                   "tau": [0.5]}), None, ("world", ""))) & set(values) == set()

"""Chapter 5's findings: every criterion at its edges on hand-made values, the evidence they print, and the
values measured on a small study."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from neutralising_world import small_study

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, NOT_CHECKED, evaluate, published
from recbias.chapters.c05_neutralising_designs import claims, study

#: values under which every finding of the page's dataset holds
HOLDING = {
    "index_1r": 0.81, "index_p1r": -0.04, "index_u1r": 0.1, "index_ar": 0.42, "index_uar": 0.19,
    "index_ai_uar": 0.27, "index_head": 0.66, "index_p1r_low": -0.0999, "index_p1r_high": 0.02,
    "index_u1r_low": 0.03, "index_u1r_high": 0.0999, "u1r_residue": 0.14, "u1r_residue_p": 0.01,
    "uar_drop": 0.23, "uar_drop_p": 0.01,
    "ai_uar_excess": 0.08, "ai_uar_excess_p": 0.03, "head_excess": 0.56, "head_excess_p": 0.01,
    "uar_popularity_lead": 0.002, "uar_popularity_lead_p": 0.04, "uar_popularity": 0.03, "uar_knn": 0.028,
    **{f"plsa_lead_{key}": 0.01 for key in claims.LEAD_KEYS.values()},
    **{f"plsa_lead_{key}_p": 0.01 for key in claims.LEAD_KEYS.values()},
    "plsa_leads": "U1R +0.0100 (p = 0.010)",
    "bpref_below": 0, "bpref_scored": 500, "bpref_below_judged": 0, "bpref_scored_judged": 500, "one_r_runs": 100,
    "bpref_mean_judged": 1.0, "bpref_share_judged": 0.0,
    **{f"{name}{end}": value for name in ("counter_bpref", "counter_infap", "plsa_behind_bpref", "plsa_behind_infap",
                                          *(f"psr_{which}_{design}" for design in ("ar", "1r")
                                            for which in ("first_over_popularity", "popularity_over_second")))
       for end, value in (("", 0.02), ("_p", 0.01))},
    "order_bpref": "Popularity > pLSA", "order_infap": "Popularity > pLSA", "order_psr_ar": "pLSA > Popularity",
    "order_psr_1r": "pLSA > Popularity",
}
SECOND = {"second_name": "lastfm-2k", "second_index_u1r": 0.07, "second_index_u1r_low": 0.04,
          "second_index_u1r_high": 0.09, "u1r_popularity": 0.0116, "u1r_random": 0.0098, "u1r_p": 1.3e-5,
          "u1r_p_clause": "p = 1.3e-05", "second_popularity_lead_bpref": 0.1, "second_popularity_lead_bpref_p": 0.01,
          "second_popularity_lead_infap": 0.1, "second_popularity_lead_infap_p": 0.01, "second_random_lead_bpref": 0.05,
          "second_random_lead_bpref_p": 0.01, "second_order_bpref": "Random > Popularity",
          "second_order_infap": "Popularity > pLSA"}
LEAD = {f"plsa_lead_{key}": 0.01 for key in claims.LEAD_KEYS.values()}

#: (finding, changed values, outcome): each criterion just inside and just outside its edge
EDGES = [
    # "at random's level": the 90% interval of the index inside ±0.1 holds, touching a margin cannot tell, wholly
    # beyond one fails, below random as well as above it
    ("p1r-random-level", {"index_p1r_low": -0.1}, INCONCLUSIVE),
    ("p1r-random-level", {"index_p1r_high": 0.1}, INCONCLUSIVE),
    ("p1r-random-level", {"index_p1r_low": -0.3, "index_p1r_high": -0.1}, FAILS),
    ("p1r-random-level", {"index_p1r_low": 0.1, "index_p1r_high": 0.3}, FAILS),
    ("u1r-random-level", {"index_u1r_low": 0.1, "index_u1r_high": 0.2}, FAILS),
    ("u1r-random-level", {"index_u1r_low": 0.05, "index_u1r_high": 0.2}, INCONCLUSIVE),
    ("u1r-more-residue-than-p1r", {"u1r_residue": -0.05}, FAILS),
    ("u1r-more-residue-than-p1r", {"u1r_residue_p": 0.05}, INCONCLUSIVE),
    ("fig9/incomplete-metrics-counter-popularity", {"counter_infap": -0.1}, FAILS),
    ("fig9/incomplete-metrics-counter-popularity", {"counter_bpref_p": 0.05}, INCONCLUSIVE),
    ("fig9/incomplete-metrics-drag-plsa", {"plsa_behind_bpref": -0.01}, FAILS),  # pLSA first by bpref beyond noise
    ("fig9/incomplete-metrics-drag-plsa", {"plsa_behind_infap_p": 0.2}, INCONCLUSIVE),
    ("fig9/stratified-recall-popularity-second", {"psr_popularity_over_second_1r": -0.01}, FAILS),
    ("fig9/stratified-recall-popularity-second", {"psr_first_over_popularity_ar_p": 0.06}, INCONCLUSIVE),
    ("uar-reduces", {"uar_drop": 1e-9}, HOLDS),
    ("uar-reduces", {"uar_drop": -0.2}, FAILS),
    ("uar-reduces", {"uar_drop_p": 0.5}, INCONCLUSIVE),
    ("uar-popularity-above-knn", {"uar_popularity_lead": -0.01}, FAILS),
    ("uar-popularity-above-knn", {"uar_popularity_lead_p": 0.051}, INCONCLUSIVE),
    ("ai-uar-more-bias", {"ai_uar_excess": -1e-9}, FAILS),
    ("ai-uar-more-bias", {"ai_uar_excess_p": 0.06}, INCONCLUSIVE),
    ("head-less-effective", {"head_excess": -0.1}, FAILS),
    ("head-less-effective", {"head_excess_p": math.nan}, INCONCLUSIVE),
    ("plsa-stays-best", {"plsa_lead_uar_p": 0.2}, INCONCLUSIVE),
    ("plsa-stays-best", {"plsa_lead_head": -0.01}, FAILS),
    ("plsa-stays-best", {"plsa_lead_head": -0.01, "plsa_lead_uar_p": 0.2}, FAILS),  # a failure outweighs doubt
    ("plsa-stays-best", {"plsa_lead_p1r": 0.0}, INCONCLUSIVE),
    ("bpref-constant-1r", {"bpref_below": 1}, FAILS),
    ("bpref-constant-1r-judged", {"bpref_below_judged": 1}, FAILS),
    ("all-positive-u1r-random", {"second_index_u1r_high": 0.1}, INCONCLUSIVE),
    ("all-positive-u1r-random", {"second_index_u1r_low": 0.1, "second_index_u1r_high": 0.2}, FAILS),
    ("all-positive-u1r-random", {"second_index_u1r_low": -0.2, "second_index_u1r_high": -0.1}, FAILS),
    ("all-positive-u1r-random", {"u1r_p": 1e-9}, HOLDS),
    ("fig9/lastfm-popularity-first-incomplete", {"second_popularity_lead_infap": -0.1}, FAILS),
    ("fig9/lastfm-popularity-first-incomplete", {"second_popularity_lead_bpref_p": 0.3}, INCONCLUSIVE),
    ("fig9/lastfm-random-top-by-bpref", {"second_random_lead_bpref": -0.05}, FAILS),
    ("fig9/lastfm-random-top-by-bpref", {"second_random_lead_bpref_p": 0.05}, INCONCLUSIVE),  # a difference beyond noise may still be within the margin
]
FINDING = {finding.key: finding for finding in claims.FINDINGS + claims.ON_ALL_POSITIVE}


def test_every_finding_holds_on_the_holding_values() -> None:
    for finding in claims.FINDINGS:
        assert finding.criterion(HOLDING) == HOLDS, finding.key
    for finding in claims.ON_ALL_POSITIVE:
        assert finding.criterion(SECOND) == HOLDS, finding.key


@pytest.mark.parametrize(("key", "changed", "outcome"), EDGES, ids=[f"{k}-{o}-{i}" for i, (k, _, o) in enumerate(EDGES)])
def test_each_criterion_at_its_edge(key: str, changed: dict, outcome: str) -> None:
    base = SECOND if key in {finding.key for finding in claims.ON_ALL_POSITIVE} else HOLDING
    assert FINDING[key].criterion(base | changed) == outcome


def test_every_finding_is_tested_at_an_edge_and_keys_are_the_scorecards() -> None:
    assert {key for key, _, _ in EDGES} == set(FINDING)
    assert list(FINDING) == ["p1r-random-level", "u1r-random-level", "u1r-more-residue-than-p1r", "uar-reduces", "uar-popularity-above-knn",
                             "ai-uar-more-bias", "head-less-effective", "plsa-stays-best", "bpref-constant-1r",
                             "bpref-constant-1r-judged", "fig9/incomplete-metrics-counter-popularity",
                             "fig9/incomplete-metrics-drag-plsa", "fig9/stratified-recall-popularity-second",
                             "all-positive-u1r-random", "fig9/lastfm-popularity-first-incomplete",
                             "fig9/lastfm-random-top-by-bpref"]
    assert [f.key for f in claims.FINDINGS if f.departs] == ["bpref-constant-1r-judged"]


def test_the_evidence_quotes_the_measured_values_and_the_criterion() -> None:
    record = evaluate(FINDING["p1r-random-level"], HOLDING, dataset="toy")
    assert record.evidence.startswith(
        "popularity index -0.04 under P1R (1R: 0.81) against the papers' set, 90% interval -0.10 to +0.02 (criterion: "
        "popularity's index under P1R's 90% interval within ±0.1 (two one-sided tests at 0.05); fails wholly beyond a "
        "margin, inconclusive across one [0.1: a tenth of the value compared")
    assert record.evidence.endswith("in units of the span from random to the best personalised system])")
    record = evaluate(FINDING["head-less-effective"], HOLDING, dataset="toy")
    assert record.evidence.startswith("popularity index 0.66 (-10% head) vs -0.04 (P1R) and 0.10 (U1R) against ")
    record = evaluate(FINDING["plsa-stays-best"], HOLDING, dataset="toy")
    assert record.criterion.endswith("above zero under each, p < 0.05 with the user as the unit")
    record = evaluate(FINDING["bpref-constant-1r-judged"], HOLDING | {"bpref_below_judged": 1234,
                                                                    "bpref_scored_judged": 50_000}, dataset="x")
    assert record.evidence.startswith("our 1R bpref is below 1 in 1,234 of the 50,000 scored runs (100 runs, each")
    assert record.outcome == FAILS and record.departs and record.verdict == "fails where the book departs"
    record = evaluate(FINDING["bpref-constant-1r"], HOLDING | {"bpref_below": 3}, dataset="x")
    assert record.outcome == FAILS and not record.departs and record.verdict == "does not hold"
    record = evaluate(FINDING["all-positive-u1r-random"], SECOND, dataset="lastfm-2k")
    assert record.evidence.startswith("lastfm-2k: popularity index 0.07 under U1R against the papers' set (90% "
                                      "interval +0.04 to +0.09); P@10 0.0116 (Popularity) vs 0.0098 (Random), "
                                      "p = 1.3e-05 for their difference (")


def test_the_published_numbers_read_in_the_common_schema() -> None:
    numbers = {number.key: number for number in published(claims.PUBLISHED)}
    assert set(numbers) == {"uniform/target-size", "uniform/eta", "p1r/percentile-size"}
    assert (numbers["uniform/target-size"].value, numbers["uniform/eta"].value) == (1703, 118)
    assert numbers["p1r/percentile-size"].tolerance == 1 and numbers["uniform/eta"].paper_dataset == "ml-1m"
    assert {number.anchor for number in numbers.values()} == {"tbl-neutralising-plan"}


def test_measured_values_on_a_small_study() -> None:
    small = small_study()
    indices = study.popularity_index([small])
    values = claims.measured([small], indices, 4, n_boot=40, seed=5)
    index = indices[indices["set"] == study.PAPERS].set_index("method")["index"]
    assert values["index_p1r"] == index["P1R, P@10"] and values["index_head"] == index["1R -10% head, P@10"]
    assert values["index_ar"] == index["AR, P@10"] and values["index_infap"] == index["AR, infAP"]
    # the differences the findings read are those of the indices on the full sample
    assert values["uar_drop"] == pytest.approx(index["AR, P@10"] - index["UAR, P@10"])
    assert values["head_excess"] == pytest.approx(index["1R -10% head, P@10"]
                                                  - max(index["P1R, P@10"], index["U1R, P@10"]))
    assert values["u1r_residue"] == pytest.approx(index["U1R, P@10"] - index["P1R, P@10"])
    # Fig. 9: the indices by bpref and infAP are those of the index table, and the orders those of the AR means
    assert values["counter_bpref"] == pytest.approx(index["AR, P@10"] - index["AR, bpref"])
    assert values["counter_infap"] == pytest.approx(index["AR, P@10"] - index["AR, infAP"])
    def means(metric: str) -> pd.Series:
        full = study.mean_draws(small, metric, n_boot=40, seed=5).loc["AR TI-AN", 0]
        return full.loc[list(study.PAPERS_SET)].sort_values(ascending=False)  # the papers' five systems only

    by_bpref = means("bpref")
    assert values["order_bpref"] == " > ".join(by_bpref.index)
    assert values["plsa_behind_bpref"] == pytest.approx(by_bpref.drop("pLSA").max() - by_bpref["pLSA"])
    by_psr = means("PSR@10(gamma=1)")
    first, third = [s for s in by_psr.index if s != "Popularity"][:2]
    assert values["psr_popularity_over_second_ar"] == pytest.approx(by_psr["Popularity"] - by_psr[third])
    assert values["index_p1r_low"] <= values["index_p1r"] <= values["index_p1r_high"]
    # ... and their p-values lie between the smallest 40 resamples allow and 1
    p_values = [v for k, v in values.items() if k.endswith("_p")]
    assert len(p_values) == 18 and all(2 / 41 - 1e-12 <= p <= 1 for p in p_values)
    p10 = study.fig8_summary(small, ["P@10"]).set_index(["label", "system"])["mean"]
    for label, key in claims.LEAD_KEYS.items():
        rivals = [s for s in study.PAPERS_SET if s != "pLSA"]
        assert values[f"plsa_lead_{key}"] == pytest.approx(p10[(label, "pLSA")] - p10.loc[label][rivals].max())
    assert values["uar_popularity_lead"] == pytest.approx(p10[("UAR", "Popularity")] - p10[("UAR", "rating-kNN")])
    assert values["plsa_leads"].startswith("U1R ") and ", 1R -10% head " in values["plsa_leads"]
    # every key the findings read is measured, so all of them are checked
    checked = [evaluate(finding, values, dataset="synthetic-small") for finding in claims.FINDINGS]
    assert NOT_CHECKED not in {record.outcome for record in checked}
    outcome = {record.key: record.outcome for record in checked}
    assert outcome["bpref-constant-1r"] == HOLDS and outcome["bpref-constant-1r-judged"] == FAILS
    assert values["uniform/eta"] == small.plan.eta and values["uniform/target-size"] == small.plan.size
    assert values["p1r/percentile-size"] == small.plan.n_items / 4
    assert not set(values) & {"second_name", "u1r_p"}  # no second study: its finding is left out
    assert set(claims.measured([small, small], indices, 4, n_boot=40)) == set(values) | set(SECOND)


def test_the_all_positive_finding_reads_the_u1r_index_and_the_comparison_of_popularity_and_random() -> None:
    rows = []
    for u in range(40):
        for system, value in (("Popularity", 0.2 + 0.01 * (u % 3)), ("Random", 0.1), ("pLSA", 0.9), ("rating-MF", 0.5),
                              ("rating-kNN", 0.3)):
            rows.append({"label": "U1R", "system": system, "fold": 0, "run": u, "user": u, "group": -1, "P@10": value})
    rows += [{"label": "1R", "system": "Popularity", "fold": 0, "run": 0, "user": 0, "group": -1, "P@10": 1.0}]
    second = SimpleNamespace(name="positive", runs=pd.DataFrame(rows))
    values = claims.measured_all_positive(second, n_boot=30, seed=1)
    popularity = 0.2 + 0.01 * np.mean(np.arange(40) % 3)
    assert values["second_name"] == "positive"
    assert values["u1r_popularity"] == pytest.approx(popularity) and values["u1r_random"] == pytest.approx(0.1)
    assert values["u1r_p"] < 1e-10 and values["u1r_p_clause"].startswith("p ")
    # the index against pLSA, the best of the papers' set: (popularity - 0.1) / (0.9 - 0.1), about 0.14
    assert values["second_index_u1r"] == pytest.approx((popularity - 0.1) / 0.8)
    # every resample's index lies in [0.125, 0.15): the 90% interval lies wholly beyond a tenth of random's level
    assert 0.125 <= values["second_index_u1r_low"] <= values["second_index_u1r_high"] < 0.15
    assert claims.ON_ALL_POSITIVE[0].criterion(values) == FAILS


#: (finding, changed values, outcome, the sentence the page prints): every outcome of every finding that speaks
SAYS = [
    ("p1r-random-level", {}, HOLDS, "Under P1R it falls to -0.04, random's level within a tenth."),
    ("p1r-random-level", {"index_p1r_low": -0.3, "index_p1r_high": -0.1}, FAILS,
     "Under P1R it is -0.04, more than a tenth from random's level."),
    ("p1r-random-level", {"index_p1r_low": -0.2}, INCONCLUSIVE,
     "Under P1R it is -0.04; whether within a tenth of random's level, the noise does not tell."),
    ("u1r-random-level", {}, HOLDS, "Under U1R it falls to 0.10, random's level within a tenth."),
    ("u1r-more-residue-than-p1r", {}, HOLDS, "U1R leaves more of it than P1R, as the papers found."),
    ("u1r-more-residue-than-p1r", {"u1r_residue": -0.1}, FAILS, "Unlike in the papers, P1R leaves more of it than U1R."),
    ("uar-reduces", {}, HOLDS, "UAR lowers it, from 0.42 in AR to 0.19."),
    ("uar-reduces", {"uar_drop": -0.2}, FAILS, "UAR raises it, from 0.42 in AR to 0.19."),
    ("uar-reduces", {"uar_drop_p": 0.5}, INCONCLUSIVE,
     "UAR does not clearly lower it: 0.42 in AR, 0.19 under UAR, a difference within noise."),
    ("head-less-effective", {}, HOLDS, "Removing the head leaves more of it than either, 0.66."),
    ("head-less-effective", {"head_excess": -0.1}, FAILS,
     "Removing the head leaves less of it than the larger of the two, 0.66."),
    ("head-less-effective", {"head_excess_p": 0.3}, INCONCLUSIVE,
     "Removing the head leaves 0.66, too close to the larger of the two to tell beyond noise."),
    ("bpref-constant-1r-judged", {}, HOLDS,
     "On this page no such item is ranked above the relevant one, so 1R bpref is 1 throughout."),
    ("bpref-constant-1r-judged", {"bpref_below_judged": 3, "bpref_scored_judged": 40, "bpref_share_judged": 0.075},
     FAILS, "On this page such an item is ranked above the relevant one in 3 of the 40 scored 1R runs (7.50%), "
     "which sets their bpref to 0."),
]


@pytest.mark.parametrize(("key", "changed", "outcome", "sentence"), SAYS, ids=[f"{k}-{o}" for k, _, o, _ in SAYS])
def test_each_finding_the_page_quotes_says_its_outcome(key: str, changed: dict, outcome: str, sentence: str) -> None:
    record = evaluate(FINDING[key], HOLDING | changed, dataset="toy")
    assert (record.outcome, record.sentence) == (outcome, sentence)


def test_the_findings_that_speak_say_every_outcome_their_criterion_reaches() -> None:
    speaking = {finding.key: set(finding.says) for finding in claims.FINDINGS if finding.says}
    assert {key for key, *_ in SAYS} == set(speaking)
    assert speaking.pop("bpref-constant-1r-judged") == {HOLDS, FAILS}  # at_most is never inconclusive
    assert all(outcomes == {HOLDS, FAILS, INCONCLUSIVE} for outcomes in speaking.values())


def test_the_second_note_names_the_dataset_for_every_status() -> None:
    note = {status: template.format(requested="coat", name="lastfm-2k")
            for status, template in claims.SECOND_NOTES.items()}
    assert set(note) == {study.dataset.SKIPPED, study.dataset.SAME, study.dataset.UNAVAILABLE, study.AVAILABLE}
    assert "`second_dataset` is empty" in note["skipped"] and "*coat*, is this page's own" in note["same"]
    assert "*coat*, is not available" in note["unavailable"]
    assert note["available"].startswith("The second dataset is lastfm-2k, reduced to its positive ratings")

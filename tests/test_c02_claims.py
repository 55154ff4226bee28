"""Chapter 2's claims: each finding decides at its edges (beyond noise where it compares two systems), its
evidence and its sentences are filled in from the measured values, the published numbers are recomputed where
they apply, and the page's templates fill from what the study gives them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from designs_study import one_dataset, two_datasets
from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, NOT_CHECKED, register
from recbias.chapters.c02_designs import claims
from recbias.chapters.c02_designs.study import comparison, lemma, truth


@pytest.fixture(scope="module", autouse=True)
def scratch_cache(tmp_path_factory):
    """Fits of this module go to a scratch cache, not to the repository's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


FINDINGS = {f.key: f for f in claims.FINDINGS + claims.SECOND_FINDINGS + claims.LEMMA_FINDINGS}
#: a lead beyond noise, a deficit beyond noise, and a lead within noise
AHEAD, BEHIND, UNCLEAR = {"d": 0.01, "p": 0.049}, {"d": -0.01, "p": 0.049}, {"d": 0.01, "p": 0.05}


def lead(name: str, case: dict) -> dict:
    return {name: case["d"], f"{name}_p": case["p"]}


COMPARED = [("fig2/AR/pLSA-first", "ar_plsa_lead"), ("fig2/1R/pLSA-first", "one_r_plsa_lead"),
            ("fig2/AR/MF-above-kNN", "ar_mf_over_knn"), ("fig2/1R/MF-above-kNN", "one_r_mf_over_knn"),
            ("fig2/AR-lastfm/Popularity-first", "second_popularity_lead")]


@pytest.mark.parametrize("key, name", COMPARED + [(key + claims.TWIN, name + "_top_n") for key, name in COMPARED])
@pytest.mark.parametrize("case, outcome", [(AHEAD, HOLDS), (BEHIND, FAILS), (UNCLEAR, INCONCLUSIVE),
                                           ({"d": 0.0, "p": 0.001}, INCONCLUSIVE)])
def test_comparisons_of_two_systems_are_decided_beyond_noise(key: str, name: str, case: dict, outcome: str) -> None:
    assert FINDINGS[key].criterion(lead(name, case)) == outcome


@pytest.mark.parametrize("sfx", ["", "_top_n"])
@pytest.mark.parametrize("above, below, outcome", [
    (AHEAD, AHEAD, HOLDS),  # one system above Popularity, Popularity above the others
    (BEHIND, AHEAD, FAILS),  # Popularity first
    (AHEAD, BEHIND, FAILS),  # Popularity third or lower
    (AHEAD, UNCLEAR, INCONCLUSIVE),
    (UNCLEAR, BEHIND, FAILS),
])
def test_popularity_is_second_when_one_system_is_above_it_and_the_others_below(sfx, above, below, outcome) -> None:
    values = lead(f"ar_first_over_popularity{sfx}", above) | lead(f"ar_popularity_over_second{sfx}", below)
    key = "fig2/AR/Popularity-second" + (claims.TWIN if sfx else "")
    assert FINDINGS[key].criterion(values) == outcome


def disagreeing(reversed_pairs: int, alike: int, pairs: int = 10, sfx: str = "") -> dict:
    return {f"second_reversed{sfx}": reversed_pairs, f"second_alike{sfx}": alike, f"second_pairs{sfx}": pairs}


@pytest.mark.parametrize("key, values, outcome", [
    ("fig2/AI-TI-alike", {"ai_ti_outer": 0.0, "ai_ti_inner": 0.0}, HOLDS),
    ("fig2/AI-TI-alike", {"ai_ti_outer": 0.0099, "ai_ti_inner": 0.0}, HOLDS),
    ("fig2/AI-TI-alike", {"ai_ti_outer": 0.01, "ai_ti_inner": 0.0}, INCONCLUSIVE),  # an interval reaches the margin
    ("fig2/AI-TI-alike", {"ai_ti_outer": 0.02, "ai_ti_inner": 0.0099}, INCONCLUSIVE),
    ("fig2/AI-TI-alike", {"ai_ti_outer": 0.02, "ai_ti_inner": 0.01}, FAILS),  # one interval wholly beyond ±0.01
    ("fig2/all-pairs-significant", {"pair_p": np.array([1e-30, 0.00099])}, HOLDS),
    ("fig2/all-pairs-significant", {"pair_p": np.array([1e-30, 0.001])}, FAILS),
    ("fig2/all-pairs-significant/todays-set", {"pair_p_top_n": np.array([1e-30, 0.001])}, FAILS),
    ("fig2/lastfm/AR-1R-disagree", disagreeing(1, 9), HOLDS),
    ("fig2/lastfm/AR-1R-disagree", disagreeing(0, 10), FAILS),
    ("fig2/lastfm/AR-1R-disagree", disagreeing(0, 9), INCONCLUSIVE),  # one pair undecided in a design
    ("fig2/lastfm/AR-1R-disagree", disagreeing(0, 0, pairs=0), INCONCLUSIVE),  # no pair tested in both designs
    ("fig2/lastfm/AR-1R-disagree/todays-set", disagreeing(1, 0, sfx="_top_n"), HOLDS),
    ("fig2/lastfm/AR-1R-disagree/todays-set", disagreeing(0, 10, sfx="_top_n"), FAILS),
    ("fig3/lemma-holds", {"lemma_holds": np.array([True, True])}, HOLDS),
    ("fig3/lemma-holds", {"lemma_holds": np.array([True, False])}, FAILS),
])
def test_the_other_findings_decide_at_their_edges(key: str, values: dict, outcome: str) -> None:
    assert FINDINGS[key].criterion(values) == outcome


PAPERS_KEYS = {"fig2/AR/pLSA-first", "fig2/1R/pLSA-first", "fig2/AR/Popularity-second", "fig2/AR/MF-above-kNN",
               "fig2/1R/MF-above-kNN", "fig2/all-pairs-significant", "fig2/AR-lastfm/Popularity-first",
               "fig2/lastfm/AR-1R-disagree"}


def test_every_finding_is_tested_at_its_edges_and_each_statement_on_systems_has_its_twin() -> None:
    assert set(FINDINGS) == PAPERS_KEYS | {key + claims.TWIN for key in PAPERS_KEYS} | {
        "fig2/AI-TI-alike", "fig3/lemma-holds"}
    keys = [f.key for f in claims.FINDINGS]
    assert keys[:2] == ["fig2/AR/pLSA-first", "fig2/AR/pLSA-first/todays-set"]  # each twin after its statement


def test_findings_depart_only_on_todays_systems_or_on_another_lastfm() -> None:
    departing = {key for key, finding in FINDINGS.items() if finding.departs}
    assert departing == {key + claims.TWIN for key in PAPERS_KEYS} | {
        "fig2/AR-lastfm/Popularity-first", "fig2/lastfm/AR-1R-disagree"}
    assert all(FINDINGS[key + claims.TWIN].departs.startswith(claims.TODAYS_DEPARTS) for key in PAPERS_KEYS)
    assert claims.SECOND_DEPARTS in FINDINGS["fig2/lastfm/AR-1R-disagree/todays-set"].departs
    assert "today's top-N set" in FINDINGS["fig2/AR/pLSA-first/todays-set"].statement
    assert FINDINGS["fig2/AR/MF-above-kNN"].statement == "MF (rating-MF) beats kNN (rating-kNN) under AR"


def test_the_lemma_fails_where_a_point_leaves_its_bounds_and_says_so() -> None:
    (checked,) = register(claims.LEMMA_FINDINGS, claims.lemma_measured(pd.DataFrame({"holds": [True, False]})),
                          dataset="toy")
    assert checked.outcome == FAILS and checked.evidence.startswith("1 of 2 points within the bounds (criterion: ")
    assert checked.sentence.startswith("The bounds hold on 1 of the 2 points only: a violation means")
    (checked,) = register(claims.LEMMA_FINDINGS, claims.lemma_measured(pd.DataFrame({"holds": [True] * 3})),
                          dataset="toy")
    assert checked.outcome == HOLDS and checked.sentence == "The bounds hold on all 3 points."


def test_claims_follow_the_measured_orders_of_each_set() -> None:
    study = two_datasets()
    values = claims.measured(study)
    checked = {c.key: c for c in register(claims.FINDINGS, values, dataset="synthetic-small")}
    for which, sfx, twin in ((comparison.PAPERS, "", ""), (comparison.TOP_N, "_top_n", claims.TWIN)):
        ar_order = study.order("synthetic-small", "TI-AN", which)
        assert set(ar_order) == set(comparison.SETS[which])
        lead = checked["fig2/AR/pLSA-first" + twin]
        assert lead.evidence.startswith(f"AR TI-AN order: {' > '.join(ar_order)} (criterion: ")
        assert lead.outcome != HOLDS or ar_order[0] == "pLSA"
        assert lead.outcome != FAILS or ar_order[0] != "pLSA"
        best_other = next(s for s in ar_order if s != "pLSA")
        means = study.measured("synthetic-small", "TI-AN")
        assert values[f"ar_plsa_lead{sfx}"] == pytest.approx(means["pLSA"] - means[best_other])
        assert values[f"ar_plsa_lead{sfx}_p"] == study.pair("synthetic-small", "TI-AN", "pLSA", best_other)[1]
        place = ar_order.index("Popularity") + 1
        assert checked["fig2/AR/Popularity-second" + twin].evidence.startswith(f"Popularity is {place}")
        assert checked["fig2/AR/Popularity-second" + twin].outcome != HOLDS or place == 2
        mf, knn = comparison.ROLES[which]
        assert values[f"ar_mf_over_knn{sfx}"] == pytest.approx(means[mf] - means[knn])
        tests = study.set_comparisons(which)
        tests = tests[tests["dataset"] == "synthetic-small"]
        assert values[f"significant_pairs{sfx}"] == (tests["wilcoxon_pvalue"] < 1e-3).sum()
        assert values[f"tested_pairs{sfx}"] == 30
        pairs = comparison.reversals(study.set_comparisons(which), "other", "TI-NN(100)", "1R TI-NN(49)")
        assert values[f"second_pairs{sfx}"] == 10
        assert values[f"second_reversed{sfx}"] == pairs["reversed"].sum()
    ai_ti = study.ai_ti[study.ai_ti["system"].isin(comparison.SETS[comparison.PAPERS])]
    assert values["ai_ti_outer"] == max(ai_ti["ci_low"].abs().max(), ai_ti["ci_high"].abs().max())
    assert 0 <= values["ai_ti_inner"] <= values["ai_ti_gap"] <= values["ai_ti_outer"]
    on_second = {c.key: c for c in register(claims.SECOND_FINDINGS, values, dataset="other")}
    second_ar = study.order("other", "TI-NN(100)", comparison.PAPERS)
    assert on_second["fig2/AR-lastfm/Popularity-first"].dataset == "other"
    assert on_second["fig2/AR-lastfm/Popularity-first"].outcome != HOLDS or second_ar[0] == "Popularity"
    assert on_second["fig2/lastfm/AR-1R-disagree"].evidence.startswith(f"AR: {' > '.join(second_ar)}; 1R: ")


def test_the_disagreement_names_the_pairs_reversed_beyond_noise() -> None:
    study = two_datasets()
    rows = study.comparisons
    pair = (rows["dataset"] == "other") & (rows["system_a"] == "Popularity") & (rows["system_b"] == "Random")
    flip, ar = pair & (rows["design"] == "1R TI-NN(49)"), pair & (rows["design"] == "TI-NN(100)")
    assert flip.sum() == 1 and ar.sum() == 1
    assert (rows.loc[ar, "difference"] > 0).all() and (rows.loc[ar, "wilcoxon_pvalue"] < 0.05).all()
    forced = rows.copy()
    forced.loc[flip, ["difference", "wilcoxon_pvalue"]] = [-0.5, 1e-6]  # 1R now puts Random above Popularity
    flipped = dataclasses.replace(study)
    flipped.comparisons = forced  # the cached paired tests of a copy of the study
    values = claims.measured(flipped)
    assert "Popularity vs Random" in values["second_reversed_pairs"] and values["second_reversed"] >= 1
    (checked, _) = register(claims.SECOND_FINDINGS[2:], values, dataset="other")
    assert checked.outcome == HOLDS and "reversed beyond noise: " in checked.evidence


def test_published_numbers_are_recomputed_where_they_apply() -> None:
    study = two_datasets()
    values = claims.measured(study)
    numbers = {c.key: c for c in register(claims.MAIN_NUMBERS, values, dataset="synthetic-small")
               + register(claims.SECOND_NUMBERS, values, dataset="other")}
    assert set(numbers) == {n.key for n in claims.NUMBERS}
    assert numbers["fig2/1R/ceiling"].ours == pytest.approx(0.1)
    assert numbers["fig2/AR/Popularity/P@10"].ours == study.measured("synthetic-small", "TI-AN")["Popularity"]
    assert numbers["fig2/AR-lastfm/Popularity/P@10"].dataset == "other"
    assert numbers["fig2/AR-lastfm/Popularity/P@10"].ours == study.measured("other", "TI-NN(100)")["Popularity"]


def test_without_a_second_dataset_its_claims_are_left_out() -> None:
    values = claims.measured(one_dataset())
    assert not any(key.startswith("second_") or "lastfm" in key for key in values)
    assert {claim.verdict for claim in register(claims.SECOND_NUMBERS, values, dataset="none")} == {
        "not checkable on this build"}
    assert {claim.outcome for claim in register(claims.SECOND_FINDINGS, values, dataset="none")} == {NOT_CHECKED}
    assert {c.key for c in register(claims.MAIN_NUMBERS, values, dataset="synthetic-small")
            if c.verdict != "not checkable on this build"} == {"fig2/AR/Popularity/P@10", "fig2/1R/ceiling"}
    assert len(register(claims.FINDINGS, values, dataset="synthetic-small")) == len(claims.FINDINGS)


def test_the_second_note_covers_every_reason_to_skip_and_every_split() -> None:
    reasons = {comparison.second_status(name, "synthetic") for name in ("", "synthetic", "csv:/no/such/file.csv")}
    splits = {comparison.second_split(one_dataset().ratings), comparison.second_split(dataclasses.replace(
        one_dataset().ratings, timestamps=None))}
    assert set(claims.SECOND_NOTES) == reasons | splits == {"empty", "same", "unavailable", "temporal", "coin"}
    assert claims.SECOND_NOTES["coin"].format(second="other").startswith("The second dataset, *other*, was split")
    assert "no timestamps" in claims.SECOND_NOTES["coin"] and "no timestamps" not in claims.SECOND_NOTES["temporal"]


def test_the_band_growth_reads_the_ends_of_the_size_sweep() -> None:
    sweep = pd.DataFrame({"sweep": ["removed test ratings"] + ["target size"] * 2, "x": [0.0, 100.0, 1000.0],
                          "system": "a", "lower": [0.1, 0.1, 0.01], "value": [0.2, 0.2, 0.02],
                          "upper": [0.3, 0.3, 0.05], "runs": 100, "users": 1234, "holds": True})
    assert claims.BAND_GROWTH.format(**lemma.band_ends(sweep)) == (
        "Along the size sweep, on a fixed population of 1,234 users, it goes from 0.2000 (100%) with target sets "
        "of 100 items to 0.0400 (200%) with 1,000.")


def test_the_truth_sentences_fill_from_the_readings_of_each_set() -> None:
    check = truth.TruthCheck("toy", pd.Series({"a": 0.30, "b": 0.29, "c": 0.10}),
                             pd.DataFrame({"x": {"a": 0.2, "b": 0.3, "c": 0.1}, "y": {"a": 0.3, "b": 0.2, "c": 0.1}}))
    (found,) = truth.readings(check, {comparison.PAPERS: ("a", "b", "c")}).values()
    assert claims.TRUTH.format(among=claims.AMONG[comparison.PAPERS], **found) == (
        "Among the papers' five systems, the true order is **a > b > c**, and 1 of the 2 designs order the systems "
        "as the truth does.")
    assert claims.SWAP.format(**found).startswith("The widest pair a design swaps is b and a: b is measured above "
                                                  "a, although its true P@10 is 3.3% lower (0.2900 against 0.3000).")
    assert claims.NO_TRUTH.format(dataset="ml-100k").startswith("*ml-100k* is observed data")

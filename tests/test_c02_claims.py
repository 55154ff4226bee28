"""Chapter 2's claims: each finding decides at its edges (beyond noise where it compares two systems), its
evidence is filled in from the measured values, and the published numbers are recomputed where they apply."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from designs_study import one_dataset, two_datasets
from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, register
from recbias.chapters.c02_designs import claims


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


@pytest.mark.parametrize("key, name", [
    ("fig2/AR/pLSA-first", "ar_plsa_lead"), ("fig2/1R/pLSA-first", "one_r_plsa_lead"),
    ("fig2/AR/MF-above-kNN", "ar_mf_over_knn"), ("fig2/1R/MF-above-kNN", "one_r_mf_over_knn"),
    ("fig2/AR-lastfm/Popularity-first", "second_popularity_lead"),
])
@pytest.mark.parametrize("case, outcome", [(AHEAD, HOLDS), (BEHIND, FAILS), (UNCLEAR, INCONCLUSIVE),
                                           ({"d": 0.0, "p": 0.001}, INCONCLUSIVE)])
def test_comparisons_of_two_systems_are_decided_beyond_noise(key: str, name: str, case: dict, outcome: str) -> None:
    assert FINDINGS[key].criterion(lead(name, case)) == outcome


@pytest.mark.parametrize("above, below, outcome", [
    (AHEAD, AHEAD, HOLDS),  # one system above Popularity, Popularity above the others
    (BEHIND, AHEAD, FAILS),  # Popularity first
    (AHEAD, BEHIND, FAILS),  # Popularity third or lower
    (AHEAD, UNCLEAR, INCONCLUSIVE),
    (UNCLEAR, BEHIND, FAILS),
])
def test_popularity_is_second_when_one_system_is_above_it_and_the_others_below(above, below, outcome) -> None:
    values = lead("ar_first_over_popularity", above) | lead("ar_popularity_over_second", below)
    assert FINDINGS["fig2/AR/Popularity-second"].criterion(values) == outcome


@pytest.mark.parametrize("key, values, outcome", [
    ("fig2/AI-TI-alike", {"ai_ti_gap": 0.0}, HOLDS),
    ("fig2/AI-TI-alike", {"ai_ti_gap": 0.0099}, HOLDS),
    ("fig2/AI-TI-alike", {"ai_ti_gap": 0.01}, FAILS),
    ("fig2/all-pairs-significant", {"pair_p": np.array([1e-30, 0.00099])}, HOLDS),
    ("fig2/all-pairs-significant", {"pair_p": np.array([1e-30, 0.001])}, FAILS),
    ("fig2/lastfm/AR-1R-disagree", {"second_orders_differ": True}, HOLDS),
    ("fig2/lastfm/AR-1R-disagree", {"second_orders_differ": False}, FAILS),
    ("fig3/lemma-holds", {"lemma_holds": np.array([True, True])}, HOLDS),
    ("fig3/lemma-holds", {"lemma_holds": np.array([True, False])}, FAILS),
])
def test_the_other_findings_decide_at_their_edges(key: str, values: dict, outcome: str) -> None:
    assert FINDINGS[key].criterion(values) == outcome


def test_every_finding_is_tested_at_its_edges() -> None:
    assert set(FINDINGS) == {"fig2/AR/pLSA-first", "fig2/1R/pLSA-first", "fig2/AR/Popularity-second",
                             "fig2/AR/MF-above-kNN", "fig2/1R/MF-above-kNN", "fig2/AI-TI-alike",
                             "fig2/all-pairs-significant", "fig2/AR-lastfm/Popularity-first",
                             "fig2/lastfm/AR-1R-disagree", "fig3/lemma-holds"}


def test_findings_on_the_systems_say_how_the_book_departs() -> None:
    departing = {key for key, finding in FINDINGS.items() if finding.departs}
    assert departing == set(FINDINGS) - {"fig2/AI-TI-alike", "fig3/lemma-holds"}


def test_the_lemma_fails_where_a_point_leaves_its_bounds() -> None:
    sweep = pd.DataFrame({"holds": [True, False]})
    values = claims.lemma_measured(sweep)
    (checked,) = register(claims.LEMMA_FINDINGS, values, dataset="toy")
    assert checked.outcome == FAILS and checked.evidence.startswith("1 of 2 points within the bounds (criterion: ")


def test_claims_follow_the_measured_orders() -> None:
    study = two_datasets()
    values = claims.measured(study)
    ar_order = study.order("synthetic-small", "TI-AN")
    checked = {c.key: c for c in register(claims.FINDINGS, values, dataset="synthetic-small")}
    assert checked["fig2/AR/pLSA-first"].evidence.startswith(f"AR TI-AN order: {' > '.join(ar_order)} (criterion: ")
    assert checked["fig2/AR/pLSA-first"].outcome != HOLDS or ar_order[0] == "pLSA"
    assert checked["fig2/AR/pLSA-first"].outcome != FAILS or ar_order[0] != "pLSA"
    best_other = next(s for s in ar_order if s != "pLSA")
    assert values["ar_plsa_lead"] == pytest.approx(study.measured("synthetic-small", "TI-AN")["pLSA"]
                                                   - study.measured("synthetic-small", "TI-AN")[best_other])
    assert values["ar_plsa_lead_p"] == study.pair("synthetic-small", "TI-AN", "pLSA", best_other)[1]
    place = ar_order.index("Popularity") + 1
    assert checked["fig2/AR/Popularity-second"].evidence.startswith(f"Popularity is {place}")
    assert checked["fig2/AR/Popularity-second"].outcome != HOLDS or place == 2
    tests = study.comparisons[study.comparisons["dataset"] == "synthetic-small"]
    assert values["significant_pairs"] == (tests["wilcoxon_pvalue"] < 1e-3).sum() and values["tested_pairs"] == 30
    on_second = {c.key: c for c in register(claims.SECOND_FINDINGS, values, dataset="other")}
    second_ar = study.order("other", "TI-NN(100)")
    assert on_second["fig2/AR-lastfm/Popularity-first"].dataset == "other"
    assert on_second["fig2/AR-lastfm/Popularity-first"].outcome != HOLDS or second_ar[0] == "Popularity"
    assert values["second_orders_differ"] == (second_ar != study.order("other", "1R TI-NN(49)"))


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
    assert register(claims.SECOND_FINDINGS + claims.SECOND_NUMBERS, values, dataset="none") == []
    assert {c.key for c in register(claims.MAIN_NUMBERS, values, dataset="synthetic-small")} == {
        "fig2/AR/Popularity/P@10", "fig2/1R/ceiling"}
    assert len(register(claims.FINDINGS, values, dataset="synthetic-small")) == len(claims.FINDINGS)


def test_published_values_are_quoted_from_the_data_file() -> None:
    assert claims.published_value("fig2/AR/Popularity/P@10") == 0.08
    assert claims.published_value("fig2/AR-lastfm/Popularity/P@10") == 0.35
    with pytest.raises(KeyError, match="no published number 'fig9'"):
        claims.published_value("fig9")

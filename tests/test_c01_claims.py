"""Chapter 1's claims: each finding decides at its edges, its words come from its criterion, and the
published numbers are recomputed on the collections they apply to."""

from __future__ import annotations

import pytest

from recbias import datasets
from recbias.bookkit.claims import FAILS, HOLDS, NOT_CHECKED, register
from recbias.chapters.c01_cranfield import claims
from recbias.chapters.c01_cranfield import study as spread

FINDINGS = {finding.key: finding for finding in claims.FINDINGS}
#: a page's dataset whose every statistic sits just on the papers' side of the IR collections
BEYOND_IR = {"dataset": "toy", "cutoff": 10, "top_reach": 0.0801, "ir_top_reach": 0.08, "gini": 0.3101,
             "ir_gini": 0.31, "single_query_share": 0.4709, "ir_single_query_share": 0.471, "head_share": 0.2451,
             "ir_head_share": 0.245, "fixed_list": 0.0501, "ir_fixed_list": 0.05}


@pytest.mark.parametrize("key, changed, outcome", [
    ("liked-items-reach-more-users", {}, HOLDS),
    ("liked-items-reach-more-users", {"top_reach": 0.08}, FAILS),  # a tie is not a larger reach
    ("liked-items-reach-more-users", {"top_reach": 0.0799}, FAILS),
    ("likes-concentrate", {}, HOLDS),
    ("likes-concentrate", {"gini": 0.31}, FAILS),
    ("few-single-user-items", {}, HOLDS),
    ("few-single-user-items", {"single_query_share": 0.471}, FAILS),
    ("few-single-user-items", {"single_query_share": 0.5}, FAILS),
    ("head-holds-more", {}, HOLDS),
    ("head-holds-more", {"head_share": 0.245}, FAILS),
    ("fixed-list-works", {}, HOLDS),
    ("fixed-list-works", {"fixed_list": 0.05}, FAILS),
    ("fixed-list-works", {"fixed_list": 0.01}, FAILS),
])
def test_each_finding_decides_at_its_edges(key: str, changed: dict, outcome: str) -> None:
    assert FINDINGS[key].criterion(BEYOND_IR | changed) == outcome


def test_every_finding_is_tested_at_its_edges() -> None:
    assert set(FINDINGS) == {"liked-items-reach-more-users", "likes-concentrate", "few-single-user-items",
                             "head-holds-more", "fixed-list-works"}


def test_statements_and_evidence_are_filled_in_and_name_the_criterion() -> None:
    checked = {c.key: c for c in register(claims.FINDINGS, BEYOND_IR, dataset="toy")}
    assert checked["fixed-list-works"].label.startswith("one fixed list of the 10 most-liked items")
    assert checked["liked-items-reach-more-users"].evidence == (
        "8.0% of users (toy) vs at most 8.0% of queries (criterion: the page's reach₁ above every IR collection's)")
    assert checked["few-single-user-items"].evidence.startswith("47.1% (toy) vs at least 47.1% in IR (criterion: ")
    assert checked["fixed-list-works"].evidence.startswith("fixed-list P@10: 0.050 (toy) vs at most 0.050 in IR")
    assert all(c.source == claims.SOURCE and c.anchor == claims.ANCHOR for c in checked.values())


def test_without_ir_collections_no_finding_is_checked() -> None:
    alone = {k: v for k, v in BEYOND_IR.items() if not k.startswith("ir_")}
    assert {claim.outcome for claim in register(claims.FINDINGS, alone, dataset="toy")} == {NOT_CHECKED}


@pytest.fixture(scope="module")
def study() -> spread.SpreadStudy:
    return spread.spread_study(datasets.load("synthetic-small", seed=0), seed=0, cutoff=5, compare_all=False)


def test_measured_values_come_from_the_study(study: spread.SpreadStudy) -> None:
    values, stats, mine = claims.measured(study), study.stats, study.mine
    assert values["dataset"] == "synthetic-small" and values["cutoff"] == 5
    assert values["ir_top_reach"] == max(stats.loc["cranfield", "top reach"], stats.loc["trec8-adhoc", "top reach"])
    assert values["ir_single_query_share"] == min(stats.loc[["cranfield", "trec8-adhoc"], "share relevant to one query"])
    assert values["fixed_list"] == mine["fixed-list P@5"] and values["head_share"] == study.head_share["synthetic-small"]
    mine_gini_above = FINDINGS["likes-concentrate"].criterion(values) == HOLDS
    assert mine_gini_above == bool(mine["gini"] > study.ir["gini"].max())


def test_published_numbers_come_from_the_data_file_and_apply_where_they_should(study: spread.SpreadStudy) -> None:
    assert {"trec/max-positives-per-document", "top-item-reach/movielens-1m"} <= {n.key for n in claims.NUMBERS}
    assert {n.key for n in claims.TREC_NUMBERS} == {k for k in claims.STATISTIC if k.startswith("trec/")}
    assert set(claims.STATISTIC) == set(claims.COMPARED_ON) == {n.key for n in claims.NUMBERS}
    values = claims.measured(study)
    on_trec = {c.key: c for c in register(claims.TREC_NUMBERS, values, dataset=spread.TREC)}
    assert on_trec["trec/max-positives-per-document"].dataset == "trec8-adhoc"
    assert on_trec["trec/max-positives-per-document"].ours == study.stats.loc["trec8-adhoc", "max positives per document"]
    assert on_trec["trec/max-positives-per-document"].paper == 25
    # IRJ's aggregate of 30 tracks against TREC-8 alone: the counts of its summary, never comparable
    trec8 = study.stats.loc["trec8-adhoc"]
    assert [on_trec[f"trec/{k}"].ours for k in ("queries", "relevant-documents", "positive-judgments")] == [
        trec8["queries"], trec8["relevant documents"], trec8["positive judgments"]]
    assert on_trec["trec/queries"].paper == 703 and on_trec["trec/queries"].verdict == "not comparable"
    here = {c.key: c for c in register(claims.RATING_NUMBERS, values, dataset="synthetic-small")}
    assert here["top-item-reach/netflix"].dataset == "synthetic-small"
    assert here["top-item-reach/netflix"].ours == study.mine["top reach"]
    assert here["top-item-reach/movielens-1m"].verdict == "not comparable"


def test_the_truth_sentence_quotes_the_worlds_statistics(study: spread.SpreadStudy) -> None:
    truth = study.truth
    text = claims.TRUTH.format(**truth)
    assert text.startswith(f"In the simulated world `synthetic-small`, only {truth['coverage']:.1%} of the truly ")
    assert f"liked by {truth['true_reach']:.1%} of them" in text and f"reaches {truth['observed_reach']:.1%}." in text
    assert text.endswith(f"is {truth['true_gini']:.2f} for the true relevance and {truth['observed_gini']:.2f} for "
                         "the observed likes.")
    assert "`compare_all` is off" in claims.NO_WORLD

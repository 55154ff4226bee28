"""Chapter 5's findings: every criterion at its edges on hand-made values, the evidence they print, and the
values measured on a small study."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from neutralising_world import small_study

from recbias.bookkit.claims import FAILS, HOLDS, evaluate, published
from recbias.chapters.c05_neutralising_designs import claims, study

#: values under which every finding of the page's dataset holds
HOLDING = {
    "index_1r": 0.81, "index_p1r": -0.04, "index_u1r": 0.1, "index_ar": 0.42, "index_uar": 0.19,
    "index_ai_uar": 0.27, "index_head": 0.66, "uar_drop": 0.23, "ai_uar_excess": 0.08, "head_excess": 0.56,
    "leaders": "1R MF, U1R MF", "n_leaders": 1, "lead_over_popularity": np.array([0.01, 0.02, 0.3, 0.1, 0.2]),
    "bpref_below": 0, "bpref_scored": 500, "one_r_runs": 100, "bpref_mean": 1.0,
}
SECOND = {"second_name": "lastfm-2k", "u1r_popularity": 0.0116, "u1r_random": 0.0098, "u1r_p": 0.3,
          "u1r_p_clause": "p = 0.300"}

#: (finding, changed values, outcome): each criterion just inside and just outside its edge
EDGES = [
    ("p1r-random-level", {"index_p1r": 0.15}, HOLDS),
    ("p1r-random-level", {"index_p1r": 0.1500001}, FAILS),
    ("p1r-random-level", {"index_p1r": math.nan}, FAILS),
    ("u1r-random-level", {"index_u1r": 0.15}, HOLDS),
    ("u1r-random-level", {"index_u1r": 0.16}, FAILS),
    ("uar-reduces", {"uar_drop": 1e-9}, HOLDS),
    ("uar-reduces", {"uar_drop": 0.0}, FAILS),
    ("uar-reduces", {"uar_drop": -0.2}, FAILS),
    ("uar-reduces", {"uar_drop": math.nan}, FAILS),
    ("ai-uar-more-bias", {"ai_uar_excess": 1e-9}, HOLDS),
    ("ai-uar-more-bias", {"ai_uar_excess": 0.0}, FAILS),
    ("head-less-effective", {"head_excess": 1e-9}, HOLDS),
    ("head-less-effective", {"head_excess": 0.0}, FAILS),
    ("head-less-effective", {"head_excess": math.nan}, FAILS),
    ("best-keeps-lead", {"n_leaders": 2}, FAILS),
    ("best-keeps-lead", {"lead_over_popularity": np.array([0.01, 0.0, 0.3, 0.1, 0.2])}, FAILS),
    ("best-keeps-lead", {"lead_over_popularity": np.array([0.01, -0.1, 0.3, 0.1, 0.2])}, FAILS),
    ("bpref-constant-1r", {"bpref_below": 1}, FAILS),
    ("all-positive-u1r-random", {"u1r_p": 0.05}, FAILS),
    ("all-positive-u1r-random", {"u1r_p": 0.0500001}, HOLDS),
    ("all-positive-u1r-random", {"u1r_p": 1.0}, HOLDS),
    ("all-positive-u1r-random", {"u1r_p": 1e-5}, FAILS),
    ("all-positive-u1r-random", {"u1r_p": math.nan}, FAILS),
]
FINDING = {finding.key: finding for finding in claims.FINDINGS + claims.ON_ALL_POSITIVE}


def test_every_finding_holds_on_the_holding_values() -> None:
    for finding in claims.FINDINGS:
        assert finding.criterion(HOLDING) == HOLDS, finding.key
    assert claims.ON_ALL_POSITIVE[0].criterion(SECOND) == HOLDS


@pytest.mark.parametrize(("key", "changed", "outcome"), EDGES, ids=[f"{k}-{o}-{i}" for i, (k, _, o) in enumerate(EDGES)])
def test_each_criterion_at_its_edge(key: str, changed: dict, outcome: str) -> None:
    base = SECOND if key == "all-positive-u1r-random" else HOLDING
    assert FINDING[key].criterion(base | changed) == outcome


def test_every_finding_is_tested_at_an_edge_and_keys_are_the_scorecards() -> None:
    assert {key for key, _, _ in EDGES} == set(FINDING)
    assert list(FINDING) == ["p1r-random-level", "u1r-random-level", "uar-reduces", "ai-uar-more-bias",
                             "head-less-effective", "best-keeps-lead", "bpref-constant-1r", "all-positive-u1r-random"]


def test_the_evidence_quotes_the_measured_values_and_the_criterion() -> None:
    record = evaluate(FINDING["p1r-random-level"], HOLDING, dataset="toy")
    assert record.evidence == ("popularity index -0.04 under P1R (1R: 0.81) "
                               "(criterion: popularity index under P1R at most 0.15)")
    record = evaluate(FINDING["head-less-effective"], HOLDING, dataset="toy")
    assert record.evidence.startswith("popularity index 0.66 (-10% head) vs -0.04 (P1R) and 0.10 (U1R) (criterion: ")
    assert record.criterion.endswith("above 0")
    record = evaluate(FINDING["bpref-constant-1r"], HOLDING | {"bpref_below": 1234, "bpref_scored": 50_000}, dataset="x")
    assert record.evidence.startswith("1R bpref is below 1 in 1,234 of the 50,000 scored runs (100 runs, each scored")
    assert record.outcome == FAILS and record.departs and record.verdict == "fails where the book departs"
    record = evaluate(FINDING["all-positive-u1r-random"], SECOND, dataset="lastfm-2k")
    assert record.evidence.startswith("lastfm-2k: U1R P@10 0.0116 (Popularity) vs 0.0098 (Random), p = 0.300 (")


def test_the_published_numbers_read_in_the_common_schema() -> None:
    numbers = {number.key: number for number in published(claims.PUBLISHED)}
    assert set(numbers) == {"uniform/target-size", "uniform/eta", "p1r/percentile-size"}
    assert (numbers["uniform/target-size"].value, numbers["uniform/eta"].value) == (1703, 118)
    assert numbers["p1r/percentile-size"].tolerance == 1 and numbers["uniform/eta"].paper_dataset == "ml-1m"
    assert {number.anchor for number in numbers.values()} == {"tbl-neutralising-plan"}


def test_measured_values_on_a_small_study() -> None:
    small = small_study()
    indices = study.popularity_index(small)
    values = claims.measured([small], indices, 4)
    index = indices.set_index("method")["index"]
    assert values["index_p1r"] == index["P1R, P@10"] and values["index_head"] == index["1R -10% head, P@10"]
    assert values["uar_drop"] == pytest.approx(index["AR, P@10"] - index["UAR, P@10"])
    assert values["head_excess"] == pytest.approx(index["1R -10% head, P@10"]
                                                  - max(index["P1R, P@10"], index["U1R, P@10"]))
    # every key the findings read is measured, so all of them are checked
    checked = [evaluate(finding, values, dataset="synthetic-small") for finding in claims.FINDINGS]
    assert all(record is not None for record in checked)
    one_r = small.runs.loc[small.runs["label"] == "1R", "bpref"]
    # a 1R run scores bpref < 1 only when its sample drew a judged non-relevant item ranked above the relevant one
    bpref = next(r for r in checked if r.key == "bpref-constant-1r")
    assert (bpref.outcome == HOLDS) == bool((one_r == 1).all()) and (one_r == 1).mean() > 0.5
    assert values["uniform/eta"] == small.plan.eta and values["uniform/target-size"] == small.plan.size
    assert values["p1r/percentile-size"] == small.plan.n_items / 4
    p10 = study.fig8_summary(small, ["P@10"]).set_index(["label", "system"])["mean"]
    leaders = {d: p10.loc[d][list(study.PERSONALISED)].idxmax() for d in study.NEUTRALISING}
    assert values["n_leaders"] == len(set(leaders.values()))
    assert values["leaders"].split(", ")[0].startswith("1R ")
    assert not set(values) & {"second_name", "u1r_p"}  # no second study: its finding is left out
    assert set(claims.measured([small, small], indices, 4)) == set(values) | set(SECOND)


def test_the_all_positive_finding_reads_the_u1r_comparison_of_popularity_and_random() -> None:
    users = np.arange(40)
    rows = [{"label": "U1R", "system": system, "fold": 0, "run": u, "user": u, "group": 0, "P@10": value}
            for u in users for system, value in (("Popularity", 0.2 + 0.01 * (u % 3)), ("Random", 0.1))]
    rows += [{"label": "1R", "system": "Popularity", "fold": 0, "run": 0, "user": 0, "group": 0, "P@10": 1.0}]
    second = SimpleNamespace(name="positive", runs=pd.DataFrame(rows))
    values = claims.measured_all_positive(second)
    assert values["second_name"] == "positive"
    assert values["u1r_popularity"] == pytest.approx(0.2 + 0.01 * np.mean(users % 3))
    assert values["u1r_random"] == pytest.approx(0.1)
    assert values["u1r_p"] < 1e-10 and values["u1r_p_clause"].startswith("p ")
    assert claims.ON_ALL_POSITIVE[0].criterion(values) == FAILS

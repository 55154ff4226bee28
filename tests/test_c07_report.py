"""Chapter 7's tables, with their rendered cells checked, at the edges of what the data allow."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import c07_examples as examples
from recbias.bookkit.scorecard import FINDING, NUMBER, Claim
from recbias.chapters.c07_discounted_auc import claims, report
from recbias.chapters.c07_discounted_auc.study import Setting, systems, truth
from recbias.ratings import Ratings

NAN = math.nan
SETTING = Setting(Q=0.3, m=10, z=100, base=3.0)


def toy(threshold: float = 4.0, name: str = "toy") -> Ratings:
    """Four ratings 2, 3, 4 and 5 of two users on a five-star scale."""
    return Ratings.from_codes(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([2.0, 3.0, 4.0, 5.0]),
                              (2, 2), positive_threshold=threshold, name=name, scale=(1.0, 5.0))


# ------------------------------------------------------------------- settings and attention


def test_the_settings_table_sets_the_page_beside_the_paper():
    table = report.settings_table(SETTING, toy()).set_index("setting")
    assert table.loc["positive rating", "this page"] == "r ≥ 4"
    assert table.loc["gain of a hit", "this page"] == "r − 3"
    assert table.loc["continuation probability p = Q<sup>1/m</sup>", "this page"] == f"{0.3 ** 0.1:.3f}"
    assert table.loc["list length z", "this page"] == "100" and table.loc["gain of a hit", "paper"] == "r − 5"


def test_the_attention_table():
    summary = pd.DataFrame({"Q": [0.05, 0.9], "p": [0.741, 0.9895], "read": [3.86, 95.41], "d1": [0.47, 0.0436],
                            "page": [0.9903, 0.2849], "list": [1.0, 0.8312]})
    table = report.attention_table(summary, 100)
    assert table.iloc[0].tolist() == ["0.05", "0.741", "3.9", "0.470", "99.0%", "100.0%"]
    assert list(table.columns)[-1] == "weight in the first 100"


# ------------------------------------------------------------------------ cases and mishits


def test_the_cases_and_mishit_tables_format_every_count():
    cases = examples.cases()
    cases["mishits per hit"] = cases["mishits per hit"].where(cases["system"] != "Random")
    table = report.cases_table(cases)
    assert table["list"].unique().tolist() == ["first 10", "first 100"]
    assert table.iloc[0]["hits"] == "0.40" and table.iloc[-1]["mishits per hit"] == "–"
    mishits = report.mishit_table(examples.effect()).set_index("system")
    assert mishits.loc["MF"].tolist() == ["0.5000 (1)", "0.4000 (2)", "-20.0%"]  # user-kNN overtakes MF
    assert mishits.loc["user-kNN"].tolist() == ["0.4500 (2)", "0.4200 (1)", "-6.7%"]


@pytest.mark.parametrize("outcome, verdict", [("holds", "holds"), ("fails", "does not hold")])
def test_the_findings_table_shows_the_findings_only(outcome, verdict):
    checked = [Claim(kind=NUMBER, key="short-head-share", label="", source="", dataset="toy"),
               Claim(kind=FINDING, key="mishits-are-negligible", label="mishits are rare", source="", dataset="toy",
                     outcome=outcome, evidence="lowers MF by 20%")]
    table = report.findings_table(checked)
    assert table.columns.tolist() == ["statement", "kind", "verdict", "evidence"]
    assert table.values.tolist() == [["mishits are rare", "statement of a paper", verdict, "lowers MF by 20%"]]


def test_the_findings_table_names_where_the_book_departs_from_the_paper():
    checked = [Claim(kind=FINDING, key="mishits-are-negligible", label="mishits are rare", source="", dataset="toy",
                     outcome="fails", evidence="lowers MF by 20%", departs="another step")]
    table = report.findings_table(checked)
    assert table.values.tolist() == [["mishits are rare", "statement of a paper", "fails where the book departs",
                                      "lowers MF by 20% Departs: another step"]]


# --------------------------------------------------------------------------- the Q sweep


def test_the_orders_table_shows_runs_of_q():
    runs = pd.DataFrame({"from": [0.0, 0.7], "to": [0.5, 1.0], "order": ["A > B", "B > A"], "tau first": [1.0, -1.0],
                         "tau last": [-1.0, 1.0]})
    table = report.q_orders_table(runs)
    assert table.columns.tolist() == ["Q", "order", "τ with the order at Q = 0", "τ with the order at Q = 1"]
    assert table["Q"].tolist() == ["0 to 0.5", "0.7 to 1"] and table.iloc[1, 2] == "-1.00"


# ---------------------------------------------------------------------------- short head


def test_the_search_table_at_three_steps():
    table = report.search_table(examples.search(), 2000)
    assert table.columns.tolist() == ["step", "s", "increase", "mean z", "fewest wins", "with 0", "below 0",
                                      "global keeps"]
    assert table["step"].tolist() == ["no step", "our rule", "Eq. 14 literally"]
    assert table["s"].tolist() == ["0 (0.0%)", "20 (1.0%)", "80 (4.0%)"]
    # one decimal below 10%, none above; the literal choice is the largest mean increase (s = 80)
    assert table["increase"].tolist() == ["7.1%", "317%", "4000%"]
    assert table["mean z"].tolist() == ["1.5", "9.0", "7.0"] and table["fewest wins"].tolist() == [
        "90%", "100%", "90%"]
    # at s = 0 gender's interval (-0.02, 0.10) contains zero, age's (0.01, 0.12) does not
    assert table["with 0"].tolist() == ["1 of 2", "0 of 2", "0 of 2"]
    assert table["global keeps"].tolist() == ["100.0%", "4.8%", "1.2%"]  # 1/21 and 1/81 of the value at s = 0
    assert report.search_table(None, 2000).empty


def test_the_search_table_marks_undefined_intervals_and_tiny_shares():
    search = examples.search(intervals={0: [(-0.3, -0.1), (-0.01, 0.12)], 80: [(math.nan, math.nan)] * 2})
    search.curve["global"] = [0.5, 0.1, 0.05, 0.0002]
    table = report.search_table(search, 2000).set_index("step")
    assert table.loc["no step", "with 0"] == "1 of 2" and table.loc["no step", "below 0"] == "1"
    literal = table.loc["Eq. 14 literally"]
    assert (literal["with 0"], literal["below 0"], literal["global keeps"]) == ("–", "–", "< 0.1%")


def test_the_head_table():
    table = report.head_table(examples.shares()).set_index("system")
    assert table.loc["MF"].tolist() == ["0.5000", "0.2100", "58.0%"]
    assert report.head_table(None).empty


# ----------------------------------------------------------------------------- new users


def test_the_crossing_table():
    table = report.crossing_table(examples.new_user_study((20.0, NAN)))
    assert table.columns.tolist() == ["metric", "system", "from 30 ratings", "global list", "list for gender and age",
                                      "above it from k", "95% of resamples"]
    assert table["metric"].tolist() == ["no step", "step at s = 40"]
    assert table.iloc[0].tolist()[2:] == ["0.400", "0.200", "0.250", "20", "20 to 22"]
    assert table.iloc[1]["above it from k"] == "never"
    assert report.crossing_table(None).empty
    bare = report.crossing_table(examples.new_user_study(attributes=()))
    assert "above it from k" not in bare.columns and "list for " not in bare.columns


def test_the_heads_table():
    table = report.heads_table(examples.new_user_study())
    assert table.values.tolist() == [["global list", "–", "10.0"], ["list for gender and age", "–", "8.5"],
                                     ["MF", "1", "2.3"], ["MF", "30", "6.1"]]
    assert report.heads_table(examples.new_user_study(step=0)).empty and report.heads_table(None).empty


# ---------------------------------------------------------------------- systems and truth


def means(stepped: list[float] | None) -> pd.DataFrame:
    index = pd.Index(["Popularity", "pLSA", "MF", "Random"], name="system")
    frame = pd.DataFrame({"P@10": [0.1, 0.2, 0.3, 0.01], "nDCG@10": [0.1, 0.25, 0.3, 0.01],
                          systems.NO_STEP: [0.4, 0.3, 0.2, 0.02]}, index=index)
    return frame if stepped is None else frame.assign(**{systems.STEP: stepped})


def test_the_ranking_table_gives_each_mean_its_rank():
    table = report.ranking_table(means([0.01, 0.2, 0.3, 0.02]), 40)
    assert table.columns.tolist() == ["system", "P@10", "nDCG@10", "bAUC, no step", "bAUC, step at s = 40"]
    assert table.set_index("system").loc["Popularity"].tolist() == ["0.1000 (3)", "0.1000 (3)", "0.4000 (1)",
                                                                    "0.0100 (4)"]


def test_the_truth_table():
    table = report.truth_table(examples.agreement(), 40)
    assert table.columns.tolist() == ["observed metric", "true P@10", "true nDCG@10", f"true {truth.BEHAVIOURAL}",
                                      "mean τ", "best system first"]
    assert table["observed metric"].tolist() == ["P@10", "nDCG@10", "behavioural AUC without a step",
                                                 "behavioural AUC, step at s = 40"]
    assert table.iloc[2, 1] == "0.67<br><small>[0.62, 0.72]</small>" and table["best system first"].tolist() == [
        "no", "no", "yes", "no"]
    assert table["mean τ"].tolist() == ["0.56", "0.63", "0.69", "0.36"]  # (0.67 + 0.71 + 0.70) / 3 = 0.693
    assert report.truth_table(None, 0).empty


def test_the_published_table_shows_what_this_build_estimates():
    table = report.published_table(claims.NUMBERS, {"short-head-share": 0.7297})
    assert table["paper (Imhonet)"].tolist() == ["80%", "5", "27"]
    assert table["this build"].tolist() == ["73%", "–", "–"]  # Sec. 8.2's new items are never measured here
    both = report.published_table(claims.NUMBERS, {"short-head-share": 0.5, "demographics-worth-ratings": 1.0})
    assert both["this build"].tolist() == ["50%", "1", "–"]

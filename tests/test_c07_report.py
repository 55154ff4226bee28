"""Chapter 7's tables, notes and sentences, with their values checked, at the edges of what the data allow."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import c07_examples as examples
from recbias.bookkit.scorecard import FINDING, NUMBER, Claim
from recbias.chapters.c07_discounted_auc import claims, report
from recbias.chapters.c07_discounted_auc.study import Capabilities, Setting, systems, truth
from recbias.ratings import Ratings

NAN = math.nan
SETTING = Setting(Q=0.3, m=10, z=100, base=3.0)


def toy(threshold: float = 4.0, name: str = "toy") -> Ratings:
    """Four ratings 2, 3, 4 and 5 of two users on a five-star scale."""
    return Ratings.from_codes(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([2.0, 3.0, 4.0, 5.0]),
                              (2, 2), positive_threshold=threshold, name=name, scale=(1.0, 5.0))


ABLE = Capabilities(segmentations=(("gender",),), demographics=("gender", "age"), timestamps=True, known=30, truth=True,
                    threshold_fits=True)


# ------------------------------------------------------------------------------- notes


def test_a_dataset_that_has_everything_gets_no_note():
    assert set(report.missing_notes(ABLE, toy(), 4.0).values()) == {""}


@pytest.mark.parametrize("change, shown", [
    ({"threshold_fits": False}, {"threshold"}),
    ({"segmentations": (), "demographics": ()}, {"attributes"}),  # the demographic list goes with the attributes
    ({"demographics": ()}, {"demographics"}),
    ({"timestamps": False}, {"timestamps"}),
    ({"known": 0, "timestamps": False, "demographics": ()}, {"new users"}),  # no newcomers: nothing else to say
    ({"truth": False}, {"truth"}),
])
def test_one_note_per_missing_capability(change, shown):
    notes = report.missing_notes(dataclasses.replace(ABLE, **change), toy(name="lastfm"), 6.0)
    assert {key for key, note in notes.items() if note} == shown
    key = shown.pop()
    assert notes[key].startswith("**Not in lastfm: ") and notes[key].count("**") == 2


def test_the_threshold_note_names_the_scale_and_both_thresholds():
    notes = report.missing_notes(dataclasses.replace(ABLE, threshold_fits=False), toy(), 6.0)
    assert notes["threshold"] == ("**Not in toy: ratings up to 6.** Its ratings go up to 5 only, so the page keeps its "
                                  "own positive threshold, 4, instead of 6.")
    assert report.missing_notes(dataclasses.replace(ABLE, known=0), toy(), 4.0)["new users"] == (
        "**Not in toy: users with enough ratings to play newcomers.** Too few users have more than 10 ratings, so "
        "the new-user study does not apply.")
    assert report.missing_notes(dataclasses.replace(ABLE, timestamps=False), toy(), 4.0)["timestamps"].startswith(
        "**Not in toy: timestamps.** Each newcomer reveals her ratings in a random order")


def test_the_threshold_sentence_appears_only_for_another_threshold():
    original = toy(threshold=5.0)
    assert report.threshold_note(original, original) == ""
    text = report.threshold_note(original, original.with_threshold(3.0))
    assert "own threshold, 5; this page counts ratings of 3 and above as positive, 75.0% of them" in text


# ------------------------------------------------------------------- settings and attention


def test_the_settings_table_sets_the_page_beside_the_paper():
    table = report.settings_table(SETTING, toy()).set_index("setting")
    assert table.loc["positive rating", "this page"] == "r ≥ 4"
    assert table.loc["gain of a hit", "this page"] == "r − 3"
    assert table.loc["continuation probability p = Q<sup>1/m</sup>", "this page"] == f"{0.3 ** 0.1:.3f}"
    assert table.loc["list length z", "this page"] == "100" and table.loc["gain of a hit", "paper"] == "r − 5"


def test_the_attention_table_and_its_quoted_numbers():
    summary = pd.DataFrame({"Q": [0.05, 0.9], "p": [0.741, 0.9895], "read": [3.86, 95.41], "d1": [0.47, 0.0436],
                            "page": [0.9903, 0.2849], "list": [1.0, 0.8312]})
    table = report.attention_table(summary, 100)
    assert table.iloc[0].tolist() == ["0.05", "0.741", "3.9", "0.470", "99.0%", "100.0%"]
    assert list(table.columns)[-1] == "weight in the first 100"
    assert report.attention_numbers(summary) == {"dauc-q-low": "0.05", "dauc-read-low": "3.9", "dauc-page-low": "99%",
                                                 "dauc-q-high": "0.9", "dauc-read-high": "95.4",
                                                 "dauc-page-high": "28%"}


def discounts(second: tuple[float, float, float]) -> pd.DataFrame:
    """Relative discounts over 12 ranks whose rank 2 keeps ``second`` (behavioural, RBP, nDCG); rank 10 keeps
    8%, 34% and 29%."""
    rows = []
    for name, at_two, at_ten in zip(("behavioural", "rbp", "ndcg"), second, (0.08, 0.34, 0.29), strict=True):
        weight = np.linspace(at_two, at_ten / 2, 11)
        weight[8] = at_ten
        rows.append(pd.DataFrame({"k": np.arange(1, 13), "discount": name, "weight": [1.0, *weight]}))
    return pd.concat(rows, ignore_index=True)


def test_the_discount_sentence_says_when_the_behavioural_discount_is_the_steepest():
    steep = report.discount_numbers(discounts((0.59, 0.89, 0.63)), SETTING)
    assert (steep["dauc-Q"], steep["dauc-m"]) == ("0.3", "10")
    assert steep["dauc-k"] == "10" and (steep["dauc-own-k"], steep["dauc-rbp-k"], steep["dauc-ndcg-k"]) == (
        "8%", "34%", "29%")
    assert steep["dauc-second-rank"].startswith("is the steepest of the three at the very top: rank 2 keeps only 59%")
    flat = report.discount_numbers(discounts((0.7, 0.69, 0.63)), SETTING)["dauc-second-rank"]
    assert flat == ("keeps 70% of the weight of rank 1 at rank 2, against 69% under rank-biased precision and 63% "
                    "under nDCG")


# ------------------------------------------------------------------------ cases and mishits


def test_the_cases_and_mishit_tables_format_every_count():
    cases = examples.cases()
    cases["mishits per hit"] = cases["mishits per hit"].where(cases["system"] != "Random")
    table = report.cases_table(cases)
    assert table["list"].unique().tolist() == ["first 10", "first 100"]
    assert table.iloc[0]["hits"] == "0.40" and table.iloc[-1]["mishits per hit"] == "–"
    mishits = report.mishit_table(examples.effect()).set_index("system")
    assert mishits.loc["MF"].tolist() == ["0.5000", "0.4000", "-20.0%"]


def test_the_quoted_mishit_numbers():
    numbers = report.cases_numbers(examples.cases(), examples.effect(), 10)
    assert numbers == {"dauc-mishits-personal": "0.20 to 0.30", "dauc-mishits-random": "0.75",
                       "dauc-mishit-system": "MF", "dauc-mishit-drop": "20%",
                       "dauc-mishit-order": "changes the order of the systems"}
    kept = examples.effect(counted=(0.27, 0.38, 0.47, 0.44, 0.01))
    assert report.cases_numbers(examples.cases(), kept, 10)["dauc-mishit-order"] == \
        "leaves the order of the systems as it was"


@pytest.mark.parametrize("outcome, start", [("holds", "the paper's choice is harmless"),
                                            ("fails", "mishits are not rare enough to ignore")])
def test_the_mishit_verdict_follows_the_registered_finding(outcome, start):
    checked = [Claim(kind=NUMBER, key="short-head-share", label="", source="", dataset="toy"),
               Claim(kind=FINDING, key="mishits-are-negligible", label="", source="", dataset="toy", outcome=outcome)]
    assert report.mishit_verdict(checked).startswith(start)
    assert report.findings_table(checked)["verdict"].tolist() == ["holds" if outcome == "holds" else "does not hold"]


# --------------------------------------------------------------------------- the Q sweep


def test_the_orders_table_shows_runs_of_q():
    runs = pd.DataFrame({"from": [0.0, 0.7], "to": [0.5, 1.0], "order": ["A > B", "B > A"], "tau first": [1.0, -1.0],
                         "tau last": [-1.0, 1.0]})
    table = report.q_orders_table(runs)
    assert table.columns.tolist() == ["Q", "order", "τ with the order at Q = 0", "τ with the order at Q = 1"]
    assert table["Q"].tolist() == ["0 to 0.5", "0.7 to 1"] and table.iloc[1, 2] == "-1.00"


@pytest.mark.parametrize("values, expected", [
    ({0.0: [2, 1], 1.0: [3, 1]}, "The order of the systems is A > B for every Q from 0 to 1"),
    ({0.0: [2, 1], 0.5: [1, 2], 1.0: [1, 2]}, "The first change comes at Q = 0.5, and these are the only two orders"),
    ({0.0: [2, 1, 0], 0.5: [1, 2, 0], 1.0: [0, 2, 1]}, "and 3 different orders appear along the sweep."),
])
def test_the_q_sentence_follows_the_orders(values, expected):
    sweep = pd.DataFrame(values, index=["A", "B", "C"][:len(next(iter(values.values())))])
    assert expected in report.q_text(sweep)


# ---------------------------------------------------------------------------- short head


def test_the_segments_sentence_counts_attributes_and_pairs():
    ratings = toy(name="coat")
    assert report.segments_note(ratings, []) == ""
    assert report.segments_note(ratings, [("gender",)]) == ("The users of coat carry one attribute, gender, the only "
                                                            "segmentation of the search.")
    three = [("a",), ("b",), ("c",), ("a", "b"), ("a", "c"), ("b", "c")]
    assert "carry a, b and c; the search uses each attribute alone and every pair of them, 6 segmentations" in \
        report.segments_note(ratings, three)


def test_the_search_sentence():
    text = report.search_text(examples.search(), 2000)
    assert text.startswith("Without the step, the segment lists beat the global list by 7.1% on average (1.5 "
                           "resampling")
    assert "settles on s = 20 (1.0% of the catalogue), where the increase is 317% (9.0 standard deviations)" in text
    assert "beats the global list in every resample" in text
    assert text.endswith("would pick s = 80, where the global list keeps 1.2% of its unpenalised value.")  # 1/81
    assert report.search_text(None, 2000) == ""


def test_the_search_sentence_when_the_segments_trail_and_some_resamples_lose():
    search = examples.search()
    search.curve.loc[0, "relative increase"] = -0.2
    search.cells["wins"] = 0.93
    search.curve["global"] = [0.5, 0.1, 0.05, 0.0002]
    text = report.search_text(search, 2000)
    assert "the segment lists trail the global list by 20% on average" in text
    assert "in at least 93% of the resamples" in text and "keeps less than 0.1% of its unpenalised value" in text


@pytest.mark.parametrize("at_zero, expected", [
    ([(-0.02, 0.10), (0.01, 0.12)], "Without the step, 1 of the 2 intervals contain zero; at s = 20, no interval"),
    ([(-0.02, 0.10), (-0.01, 0.12)], "Without the step, all 2 intervals contain zero;"),
    ([(-0.3, -0.1), (0.01, 0.12)], "no interval contains zero and 1 lies entirely below it (the segment lists lose)"),
])
def test_the_instability_sentence_counts_intervals(at_zero, expected):
    search = examples.search(intervals={0: at_zero, 20: [(0.5, 3.0), (1.0, 4.0)]})
    assert expected in report.instability_text(search)
    assert report.instability_text(None) == ""


def test_the_head_table_and_sentence():
    table = report.head_table(examples.shares()).set_index("system")
    assert table.loc["MF"].tolist() == ["0.5000", "0.2100", "58.0%"]
    assert report.head_table(None).empty
    text = report.head_text(examples.search(), examples.shares(), 2000, 0.8)
    assert text == ("The 20 most-rated items, 1.0% of the catalogue, supply between 58% (MF) and 99% (Popularity) of "
                    "the unpenalised metric of the non-random systems, 73% in the median. The paper puts the short "
                    "head's contribution on Imhonet at about 80%, without saying where its head ends.")
    assert report.head_text(examples.search(), None, 2000, 0.8).startswith("The search chose no step (s = 0)")
    assert report.head_text(None, None, 2000, 0.8) == ""


# ----------------------------------------------------------------------------- new users


def test_the_new_user_setup_sentence():
    study = examples.new_user_study()
    assert report.new_user_setup_text(study, 30) == (
        "Here 988 users play the newcomers, in 2 groups; they reveal up to 30 ratings. The system that learns from "
        "them is MF.")
    assert "up to 30 ratings (at most 30, so that enough users keep 10 ratings for the test)" in \
        report.new_user_setup_text(study, 50)
    two = examples.new_user_study(systems=("MF", "user-kNN"))
    assert "The systems that learn from them are MF and user-kNN." in report.new_user_setup_text(two, 30)
    assert report.new_user_setup_text(None, 30) == ""


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


def test_the_crossing_sentences():
    text = report.crossing_text(examples.new_user_study((20.0, 1.0)))
    assert text == ("Without the step, MF stays above the list for gender and age from k = 20 known ratings on. With "
                    "the step at s = 40, MF stays above the list for gender and age from k = 1 known rating on.")
    never = report.crossing_text(examples.new_user_study((NAN, 1.0)))
    assert never.startswith("Without the step, MF does not stay above the list for gender and age at any k up to 30.")
    assert report.crossing_text(examples.new_user_study(attributes=())) == "" and report.crossing_text(None) == ""


def test_the_heads_sentence():
    text = report.heads_text(examples.new_user_study(), 10)
    assert text == ("The step's 40 items are not spread evenly over the lists. On the first page of 10 items, the "
                    "global list shows 10.0, the list for gender and age shows 8.5, MF with 1 known rating shows 2.3, "
                    "MF with 30 known ratings shows 6.1 of them on average, and every such slot is worth nothing under "
                    "the step.")
    assert report.heads_text(examples.new_user_study(step=0), 10) == "" and report.heads_text(None, 10) == ""


@pytest.mark.parametrize("crossings, expected", [
    ((20.0, 1.0), "On these data the step brings the crossing of MF forward, from k = 20 to k = 1."),
    ((NAN, 3.0), "On these data the step brings the crossing of MF forward, from no k of the study to k = 3."),
    ((2.0, 5.0), "On these data the step does not bring the crossing of MF forward"),
    ((2.0, NAN), "Even with the step, MF does not stay above the demographic list within the 30 ratings"),
])
def test_the_step_effect_sentence(crossings, expected):
    assert report.step_effect_text(examples.new_user_study(crossings)).startswith(expected)


def test_no_step_effect_without_a_step_or_demographics():
    assert report.step_effect_text(examples.new_user_study(step=0, crossings=(3.0,))) == ""
    assert report.step_effect_text(examples.new_user_study(attributes=())) == ""
    assert report.step_effect_text(None) == ""


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


def test_the_ranking_sentence():
    assert report.ranking_text(means(None)) == ("Without a step, the metric orders the systems Popularity > pLSA > MF > "
                                                "Random.")
    assert report.ranking_text(means([0.01, 0.2, 0.3, 0.02])) == (
        "The step moves Popularity from 1st to 4th place, MF from 3rd to 1st place, Random from 4th to 3rd place. "
        "Popularity ends 4th of 4, below Random.")
    assert report.ranking_text(means([0.4, 0.3, 0.2, 0.02])) == "The step moves no system. Popularity ends 1st of 4."


def test_the_truth_table_and_sentence():
    table = report.truth_table(examples.agreement(), 40)
    assert table.columns.tolist() == ["observed metric", "true P@10", "true nDCG@10", f"true {truth.BEHAVIOURAL}",
                                      "best system first"]
    assert table["observed metric"].tolist() == ["P@10", "nDCG@10", "behavioural AUC without a step",
                                                 "behavioural AUC with the step at s = 40"]
    assert table.iloc[2, 1] == "0.67<br><small>[0.62, 0.72]</small>" and table["best system first"].tolist() == [
        "no", "no", "yes", "no"]
    assert report.truth_text(examples.agreement(), 40) == (
        "On this world, behavioural AUC without a step orders the systems closest to the truth (Kendall's τ 0.67 to "
        "0.71 over the three true orders), followed by nDCG@10 (0.60 to 0.65), P@10 (0.54 to 0.58) and behavioural "
        "AUC with the step at s = 40 (0.34 to 0.38).")
    assert report.truth_table(None, 0).empty and report.truth_text(None, 0) == ""


def test_the_published_table_shows_what_this_build_estimates():
    table = report.published_table(claims.NUMBERS, {"short-head-share": 0.7297})
    assert table["paper (Imhonet)"].tolist() == ["80%", "5"] and table["this build"].tolist() == ["73%", "–"]
    both = report.published_table(claims.NUMBERS, {"short-head-share": 0.5, "demographics-worth-ratings": 1.0})
    assert both["this build"].tolist() == ["50%", "1"]

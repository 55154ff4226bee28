"""Chapter 9's report: tables, card and JSON summary."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.chapters.c09_audit import report
from recbias.chapters.c09_audit.study import measure, protocols, readings, recommend
from recbias.chapters.c09_audit.study.recommend import Caveats, Recommendation, StandInFidelity
from recbias.protocol_study import Protocol


#: three protocols of a hand-made fidelity table; the most faithful needs a correction
PLAN = [Protocol("sampled, corrected", "1R AI-NN(9)", "HR@10", "coin", "sampled", "BV 0.1"),
        Protocol("AR", "TI-AN", "P@10", "coin", "standard"), Protocol("UAR", "UAR TI-AN", "P@10", "uniform",
                                                                      "neutralising")]


def table() -> pd.DataFrame:
    """A fidelity table: AR within noise of the corrected best (above it in 4 of 39 resamples), UAR clearly behind
    (p = 2 / 80)."""
    return pd.DataFrame({"protocol": ["sampled, corrected", "AR", "UAR"], "tau": [0.9, 0.8, 0.4],
                         "tau_low": [0.7, 0.6, 0.2], "tau_high": [1.0, 0.9, 0.5],
                         "tau_draws": [np.full(79, 0.9), np.r_[np.full(75, 0.8), np.full(4, 0.95)], np.full(79, 0.4)],
                         "rank": pd.array([1, 2, 3], dtype="Int64")})


def test_the_card_and_the_summary_describe_what_was_measured(tmp_path) -> None:
    ratings = datasets.load("synthetic-small", seed=2)
    plan = protocols.audit_protocols(ratings.n_items)
    measured = measure.measure(ratings, plan, protocols.REFERENCES | {"MF": "mf"}, seed=2)
    card = report.card_table(plan, measured, dataset=ratings.name, seed=2, test_ratio=0.2, systems=["MF"])
    fields = dict(zip(card["field"], card["value"]))
    assert "1R TI-NN" in fields["designs"] and "seeds" in fields and "recbias" in fields["software"]
    assert report.scores_table(measured).shape[0] == len(measured.relevant_share)
    paragraph = report.card_paragraph(plan, measured, dataset=ratings.name, seed=2, test_ratio=0.2)
    assert ratings.name in paragraph and "20%" in paragraph
    means = measured.means()
    share, tau, flips = readings.popularity_share(means), readings.tau_matrix(means), readings.flipped_pairs(means)
    stand_in = StandInFidelity("w", {"alpha": 1.2}, table())
    advice = recommend.recommend(stand_in.table, PLAN)
    report.write_summary(tmp_path / "s.json", measured, pd.DataFrame([{"dataset": ratings.name}]), share, tau, flips,
                         card, stand_in, advice)
    written = json.loads((tmp_path / "s.json").read_text())
    assert len(written["summary"]) == len(measured.summary())
    assert written["stand_in"]["recommended"] == "AR" and written["stand_in"]["shape"] == {"alpha": 1.2}
    assert [row["protocol"] for row in written["stand_in"]["fidelity"]] == ["sampled, corrected", "AR", "UAR"]


def test_the_flips_sentence_counts_pairs() -> None:
    assert report.flips_sentence(pd.DataFrame(columns=["first", "second"])).startswith("Every protocol")
    assert report.flips_sentence(pd.DataFrame({"first": ["A"], "second": ["B"]})).startswith("1 pair")


def test_the_recommendation_in_words_gives_its_reason() -> None:
    stand_in = StandInFidelity("data-shaped world", {}, table(), systems=["a", "b", "c"])
    advice = recommend.recommend(stand_in.table, PLAN)
    text = report.recommendation_text(advice, stand_in, PLAN)
    assert text.startswith("On the data-shaped world, *sampled, corrected* comes closest to the true order of the 3 "
                           "systems (τ = 0.90).")
    assert "do not tell *AR* from it at the 5% level; *UAR* is clearly behind." in text
    assert text.endswith("**Report *AR***: it is as faithful as *sampled, corrected* within noise and, unlike it, "
                         "needs no correction.")
    alone = Recommendation("sampled, corrected", "sampled, corrected", ["sampled, corrected"], ["AR", "UAR"], 0.05)
    text = report.recommendation_text(alone, stand_in, PLAN)
    assert "Every other protocol is clearly behind it" in text and text.endswith("needs a correction too: name it.")
    tied = Recommendation("AR", "AR", ["AR", "UAR"], [], 0.05)
    text = report.recommendation_text(tied, stand_in, PLAN)
    assert ("No other protocol is clearly behind it: the paired resamples of users do not tell *UAR* from it at the "
            "5% level.") in text
    assert text.endswith("it is the most faithful here and needs no correction.")
    shared = StandInFidelity("w", {}, table().assign(rank=pd.array([1, 1, 3], dtype="Int64")), systems=["a", "b"])
    assert report.recommendation_text(tied, shared, PLAN).startswith(
        "On the w, *sampled, corrected* and *AR* tie for closest to the true order of the 2 systems")
    refused = StandInFidelity("x-shaped world", {}, pd.DataFrame(), refused="the positive ratio is 1")
    assert report.recommendation_text(None, refused, PLAN).startswith(
        "No world could be drawn in the shape of this data (the positive ratio is 1)")
    assert report.recommendation_text(None, stand_in, PLAN).startswith("On the stand-in world the truth does not")


def test_the_fidelity_table_marks_the_protocol_to_report_and_its_ties() -> None:
    stand_in = StandInFidelity("w", {}, table())
    shown = report.fidelity_table(stand_in, recommend.recommend(stand_in.table, PLAN))
    assert shown["protocol"].tolist() == ["sampled, corrected", "<b>AR</b>", "UAR"]
    assert shown["within noise of the best"].tolist() == ["yes", "yes", "no"]
    assert shown["rank"].tolist() == ["1", "2", "3"]
    assert shown["τ with the truth"].iloc[1] == "0.80<br><small>[0.60, 0.90]</small>"


def test_the_world_table_sets_the_data_beside_its_world() -> None:
    profiles = pd.DataFrame([{"dataset": "d", "users": 943, "items": 1682, "ratings": 100_000, "Gini": 0.629,
                              "fitted α": 5.0, "top-10% share": 0.427, "positive ratio": 0.212},
                             {"dataset": "d-shaped world", "users": 943, "items": 1682, "ratings": 100_000,
                              "Gini": 0.621, "fitted α": 4.9, "top-10% share": 0.433, "positive ratio": 0.212}])
    shown = report.world_table(StandInFidelity("d-shaped world", {}, pd.DataFrame(), profiles=profiles))
    assert list(shown.columns) == ["", "d", "d-shaped world"]
    assert shown.set_index("").loc["ratings"].tolist() == ["100,000", "100,000"]
    assert shown.set_index("").loc["Gini"].tolist() == ["0.63", "0.62"]
    assert shown.set_index("").loc["positive ratio"].tolist() == ["21.2%", "21.2%"]


def test_the_caveats_in_words() -> None:
    pairs = pd.DataFrame({"above": ["A"], "below": ["Popularity"], "reversed under": [["P1R", "UAR"]]})
    found = Caveats("AR", pairs, ("P1R", 1 / 3), 0.5, {"A": 1.8, "B": 1.1}, "UAR")
    lines = report.caveats_text(found).split("\n")
    assert lines[0] == ("- On your data, other protocols reverse *AR*'s order of 1 pair of systems: A above "
                        "Popularity (reversed under *P1R* and *UAR*). Report both orders of this pair.")
    assert lines[1] == "- Of the other protocols, *P1R* orders your systems least like *AR* does (τ = 0.33)."
    assert lines[2].startswith("- Under *AR*, Popularity reaches 50% of the way from Random to the best audited "
                               "system; lift over Popularity: A 1.80× and B 1.10×. Report beside it the lift over "
                               "Popularity under *UAR*")
    calm = Caveats("UAR", pairs.iloc[:0], None, 0.1, {}, None)
    lines = report.caveats_text(calm).split("\n")
    assert lines[0] == "- No other protocol reverses *UAR*'s order of any pair of systems on your data."
    assert len(lines) == 2 and lines[1].endswith("lift over Popularity: none audited.")
    assert report.caveats_text(None) == ""


def test_the_profile_table_has_a_column_per_dataset_and_links_each_number_to_its_chapter() -> None:
    profiles = pd.DataFrame([{"dataset": "mine", "users": 1500, "items": 2000, "ratings": 120000, "density": 0.04,
                              "Gini": 0.5444, "fitted α": 1.46, "top-10% share": 0.4281, "positive ratio": 0.2121,
                              "positive head/tail": float("nan")},
                             {"dataset": "ml-100k", "users": 943, "items": 1682, "ratings": 100000, "density": 0.063,
                              "Gini": 0.629, "fitted α": 5.0, "top-10% share": 0.427, "positive ratio": 0.212,
                              "positive head/tail": 2.5}])
    table = report.profile_table(profiles).set_index("number")
    assert list(table.columns) == ["<b>mine</b> (audited)", "ml-100k", "explained in"]
    assert table.loc["users", "<b>mine</b> (audited)"] == "1,500" and table.loc["density", "ml-100k"] == "0.0630"
    assert table.loc["positive head/tail", "<b>mine</b> (audited)"] == "–"
    assert table.loc["Gini", "explained in"] == '<a href="04_popularity_bias.html">chapter 4</a>'
    assert table.loc["users", "explained in"] == ""

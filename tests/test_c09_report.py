"""Chapter 9's report: tables, the values the advice and the card quote, and the JSON summary."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.chapters.c09_audit import report
from recbias.chapters.c09_audit.study import compare, measure, protocols, recommend
from recbias.chapters.c09_audit.study.recommend import Recommendation, StandInFidelity
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
    card = report.card_values(plan, measured, dataset=ratings.name, seed=2, test_ratio=0.2, systems=["MF"])
    assert "1R TI-NN" in card["designs"] and card["software"].startswith("recbias ")
    assert (card["data"], card["held-out"], card["seed"], card["test-ratio"]) == (ratings.name, "20%", "2", "0.2")
    assert card["protocol-count"] == str(len(measured.kept(plan))) and card["split-names"] == "coin and uniform"
    assert card["users"] == f"{measured.summary()['users'].max():,}" and card["metrics"] == "P@10, HR@10, nDCG@10"
    assert report.scores_table(measured).shape[0] == len(measured.relevant_share)
    means = measured.means()
    share, tau, flips = compare.popularity_share(means), compare.tau_matrix(means), compare.flipped_pairs(means)
    stand_in = StandInFidelity("w", {"alpha": 1.2}, table())
    advice = recommend.recommend(stand_in.table, PLAN)
    report.write_summary(tmp_path / "s.json", measured, pd.DataFrame([{"dataset": ratings.name}]), share, tau, flips,
                         card, stand_in, advice)
    written = json.loads((tmp_path / "s.json").read_text())
    assert len(written["summary"]) == len(measured.summary()) and written["card"] == card
    assert written["stand_in"]["recommended"] == "AR" and written["stand_in"]["shape"] == {"alpha": 1.2}
    assert [row["protocol"] for row in written["stand_in"]["fidelity"]] == ["sampled, corrected", "AR", "UAR"]


def test_the_advice_values_name_the_protocols_and_the_caveats() -> None:
    stand_in = StandInFidelity("data-shaped world", {}, table(), systems=["a", "b", "c"])
    advice = recommend.recommend(stand_in.table, PLAN)
    share = pd.DataFrame({"popularity index": [0.5, 0.2], "A / Popularity": [1.8, 3.0], "B / Popularity": [1.1, 2.0]},
                         index=["AR", "UAR"])
    pairs = pd.DataFrame({"above": ["A"], "below": ["Popularity"], "reversed under": [["P1R", "UAR"]]})
    caveats = {"reversed_pairs": pairs, "furthest": ("P1R", 1 / 3), "companion": "UAR"}
    values = report.advice_values(advice, stand_in, share, caveats)
    assert values == {"world": "data-shaped world", "closest": "*sampled, corrected*", "closest-tau": "0.90",
                      "tied": "*AR*", "behind": "*UAR*", "report": "*AR*", "reversed-count": "1", "furthest": "*P1R*",
                      "furthest-tau": "0.33", "popularity-index": "50%", "lifts": "A 1.80× and B 1.10×",
                      "companion": "*UAR*"}
    assert report.reversals_table(caveats).to_dict("list") == {"above": ["A"], "below": ["Popularity"],
                                                                "reversed under": ["P1R, UAR"]}
    shared = StandInFidelity("w", {}, table().assign(rank=pd.array([1, 1, 3], dtype="Int64")))
    alone = report.advice_values(Recommendation("AR", ["sampled, corrected", "AR", "UAR"]), shared, share,
                                 caveats | {"furthest": None, "companion": None})
    assert alone["closest"] == "*sampled, corrected* and *AR*" and alone["behind"] == "none"
    assert (alone["furthest"], alone["furthest-tau"], alone["companion"]) == ("none", "–", "none")
    refused = StandInFidelity("", {}, pd.DataFrame(), refused="the positive ratio is 1")
    nothing = report.advice_values(None, refused, share, {})
    assert nothing["world"] == nothing["report"] == nothing["lifts"] == "none" and nothing["closest-tau"] == "–"
    assert report.reversals_table({}).empty


def test_the_fidelity_table_marks_the_protocol_to_report_and_its_ties() -> None:
    stand_in = StandInFidelity("w", {}, table())
    shown = report.fidelity_table(stand_in, recommend.recommend(stand_in.table, PLAN))
    assert shown["protocol"].tolist() == ["sampled, corrected", "<b>AR</b>", "UAR"]
    assert shown["within noise of the best"].tolist() == ["yes", "yes", "no"]
    assert shown["rank"].tolist() == ["1", "2", "3"]
    assert shown["τ with the truth"].iloc[1] == "0.80<br><small>[0.60, 0.90]</small>"


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

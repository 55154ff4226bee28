"""Chapter 9's report: tables, the values the advice and the card quote, and the JSON summary."""

from __future__ import annotations

import json
from types import SimpleNamespace

import jsonschema
import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.bookkit.tables import COLUMN_EM, table_html, table_width
from recbias.chapters.c09_audit import report
from recbias.chapters.c09_audit.study import compare, measure, profile, protocols, recommend
from recbias.chapters.c09_audit.study.recommend import Recommendation, TruthFidelity
from recbias.protocol_study import Protocol
from recbias.recommenders.external import REFERENCES


#: three protocols of a hand-made fidelity table; the most faithful needs a correction
PLAN = [Protocol("sampled, corrected", "1R AI-NN(9)", "HR@10", "coin", "sampled", "BV 0.1"),
        Protocol("AR", "TI-AN", "P@10", "coin", "standard"), Protocol("UAR", "UAR TI-AN", "P@10", "uniform",
                                                                      "neutralising")]


def table() -> pd.DataFrame:
    """A fidelity table: AR within noise of the corrected best (above it in 4 of 79 resamples: p = 2 (4 + 1) / 80),
    UAR clearly behind (p = 2 / 80)."""
    return pd.DataFrame({"protocol": ["sampled, corrected", "AR", "UAR"], "tau": [0.9, 0.8, 0.4],
                         "tau_seed_min": [0.9, 0.8, 0.4], "tau_seed_max": [0.9, 0.8, 0.4],
                         "tau_low": [0.7, 0.6, 0.2], "tau_high": [1.0, 0.9, 0.5], "pairs": [0.95, 0.9, 0.7],
                         "best": [1.0, 1.0, 0.0], "best_share": [0.9, 0.8, 0.1], "behind_best": [0.0, 75 / 79, 1.0],
                         "tau_draws": [np.full(79, 0.9), np.r_[np.full(75, 0.8), np.full(4, 0.95)], np.full(79, 0.4)],
                         "rank": pd.array([1, 2, 3], dtype="Int64")})


def schema_properties(node: dict, where: str = "") -> list[tuple[str, dict]]:
    """Every field a schema describes (named properties and property patterns, at any depth), with its schema."""
    found = []
    for key in ("properties", "patternProperties"):
        for name, child in node.get(key, {}).items():
            found += [(f"{where}/{name}", child)] + schema_properties(child, f"{where}/{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            found += schema_properties(node[key], f"{where}[]")
    return found


def test_the_card_and_the_summary_describe_what_was_measured(tmp_path) -> None:
    ratings = datasets.load("synthetic-small", seed=2)
    plan = protocols.audit_protocols(ratings.n_items)
    measured = measure.measure(ratings, plan, REFERENCES | {"MF": "mf"}, seed=2)
    card = report.card_values(plan, measured, dataset=ratings.name, seed=2, test_ratio=0.2, systems=["MF"])
    assert "1R TI-NN" in card["designs"] and card["software"].startswith("recbias ")
    assert (card["data"], card["held-out"], card["seed"], card["test-ratio"]) == (ratings.name, "20%", "2", "0.2")
    assert card["protocol-count"] == str(len(measured.kept(plan)))
    assert card["split-names"] == "coin-flip and uniform test item profiles"
    coin, uniform = measured.splits["coin"], measured.splits["uniform"]
    assert card["split"] == (f"used: coin-flip ({len(coin.train):,} training / {len(coin.test):,} test ratings) and "
                             f"uniform test item profiles ({len(uniform.train):,} training / {len(uniform.test):,} "
                             "test ratings); offered, not used: k-fold, temporal, leave-last-out, leave-one-random-out "
                             "and new users")
    assert card["users"] == f"{measured.summary()['users'].max():,}" and card["metrics"] == "P@10, HR@10, nDCG@10, bpref, infAP"
    assert report.scores_table(measured).shape[0] == len(measured.relevant_share)
    means = measured.means()
    share, tau, flips = compare.popularity_share(means), compare.tau_matrix(means), compare.flipped_pairs(means)
    stand_in = TruthFidelity("w", {"alpha": 1.2}, table())
    advice = recommend.recommend(stand_in.table, PLAN)
    settings = {"dataset": ratings.name, "seed": 2, "test_ratio": 0.2, "metric": "usual", "cutoff": 10,
                "systems": ["MF"]}
    content = report.summary_content(measured, plan, pd.DataFrame([{"dataset": ratings.name}]), share, tau, flips,
                                     card, stand_in, advice, settings)
    report.write_summary(tmp_path / "s.json", content)
    written = json.loads((tmp_path / "s.json").read_text())
    assert written["version"] == report.SUMMARY_VERSION and written["settings"] == settings
    assert len(written["summary"]) == len(measured.summary()) and written["card"] == card
    assert [p["label"] for p in written["protocols"]] == [p.label for p in measured.kept(plan)]
    assert [(s["name"], s["used"]) for s in written["splits"]][:3] == [("coin", True), ("kfold", False),
                                                                         ("temporal", False)]
    assert written["splits"][0]["test_ratings"] == len(coin.test) and written["splits"][1]["test_ratings"] is None
    assert written["stand_in"]["recommended"] == "AR" and written["stand_in"]["shape"] == {"alpha": 1.2}
    rows = written["stand_in"]["fidelity"]
    assert [row["protocol"] for row in rows] == ["sampled, corrected", "AR", "UAR"]
    assert [row["behind_best_share"] for row in rows] == [row["behind_best"] for row in rows] == [0.0, 75 / 79, 1.0]
    # paired differences from the best: none, 4 of 79 below zero, none below zero
    assert [row["p_value_vs_best"] for row in rows] == pytest.approx([1.0, 2 * 5 / 80, 2 / 80])


def test_a_summary_is_strict_json_and_valid_with_every_field_described(tmp_path) -> None:
    """Undefined numbers are null, never NaN; the summary validates against its schema, which describes every
    field; renamed fields keep their old name, marked deprecated, for readers of the unversioned form."""
    schema = json.loads(report.SUMMARY_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    undescribed = [where for where, child in schema_properties(schema) if not child.get("description")]
    assert undescribed == []
    fields = dict(schema_properties(schema))
    assert fields["/stand_in/fidelity[]/behind_best"]["deprecated"]
    assert fields["/version"]["const"] == report.SUMMARY_VERSION
    ratings = datasets.load("synthetic-small", seed=2)
    plan = protocols.audit_protocols(ratings.n_items, "nDCG", 5)
    measured = measure.measure(ratings, plan, REFERENCES | {"MF": "mf"}, seed=2)
    means = measured.means().assign(Popularity=0.0)  # lifts over Popularity are then undefined
    share, tau, flips = compare.popularity_share(means), compare.tau_matrix(means), compare.flipped_pairs(means)
    card = report.card_values(plan, measured, dataset=ratings.name, seed=2, test_ratio=0.2, systems=["MF"])
    settings = {"dataset": ratings.name, "seed": 2, "test_ratio": 0.2, "metric": "nDCG", "cutoff": 5,
                "systems": ["MF"]}
    stand_in = TruthFidelity("w", {}, table().assign(tau=[0.9, 0.8, np.nan]))
    content = report.summary_content(measured, plan, profile.profiles(ratings, others=False), share, tau, flips,
                                     card, stand_in, recommend.recommend(stand_in.table, PLAN), settings)
    report.write_summary(tmp_path / "s.json", content)

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the summary")

    written = json.loads((tmp_path / "s.json").read_text(), parse_constant=refuse)
    jsonschema.validate(written, schema, cls=jsonschema.Draft202012Validator)
    assert {row["MF / Popularity"] for row in written["popularity"]} == {None}
    assert written["stand_in"]["fidelity"][2]["tau"] is None
    assert {p["metric"] for p in written["protocols"]} == {"nDCG@5"}
    assert all(isinstance(pair["first_above"], list) for pair in written["flipped_pairs"])
    broken = json.loads(json.dumps(written)) | {"version": report.SUMMARY_VERSION + 1}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft202012Validator)
    undocumented = json.loads(json.dumps(written))
    undocumented["stand_in"]["fidelity"][0]["extra"] = 1
    with pytest.raises(jsonschema.ValidationError, match="extra"):
        jsonschema.validate(undocumented, schema, cls=jsonschema.Draft202012Validator)


def test_the_flipped_pairs_are_shown_with_their_protocols_joined() -> None:
    flips = pd.DataFrame({"first": ["A"], "second": ["B"], "first above under": [["X", "Y, corrected"]],
                          "second above under": [["Z"]]})
    assert report.flips_table(flips).iloc[0].tolist() == ["A", "B", "X; Y, corrected", "Z"]


def test_the_advice_values_name_the_protocols_and_the_caveats() -> None:
    stand_in = TruthFidelity("data-shaped world", {}, table(), systems=["a", "b", "c"])
    advice = recommend.recommend(stand_in.table, PLAN)
    share = pd.DataFrame({"popularity index": [0.5, 0.2], "A / Popularity": [1.8, 3.0], "B / Popularity": [1.1, 2.0]},
                         index=["AR", "UAR"])
    pairs = pd.DataFrame({"above": ["A"], "below": ["Popularity"], "reversed under": [["P1R", "UAR"]]})
    caveats = {"reversed_pairs": pairs, "furthest": ("P1R", 1 / 3), "companion": "UAR"}
    values = report.advice_values(advice, stand_in, share, caveats)
    assert values == {"world": "the data-shaped world", "closest": "*sampled, corrected*", "closest-tau": "0.90",
                      "tied": "*AR*", "behind": "*UAR*", "report": "*AR*", "reversed-count": "1", "furthest": "*P1R*",
                      "furthest-tau": "0.33", "popularity-index": "50%", "lifts": "A 1.80× and B 1.10×",
                      "companion": "*UAR*"}
    assert report.reversals_table(caveats).to_dict("list") == {"above": ["A"], "below": ["Popularity"],
                                                                "reversed under": ["P1R; UAR"]}
    shared = TruthFidelity("w", {}, table().assign(rank=pd.array([1, 1, 3], dtype="Int64")))
    alone = report.advice_values(Recommendation("AR", ["sampled, corrected", "AR", "UAR"]), shared, share,
                                 caveats | {"furthest": None, "companion": None})
    assert alone["closest"] == "*sampled, corrected* and *AR*" and alone["behind"] == "none"
    assert (alone["furthest"], alone["furthest-tau"], alone["companion"]) == ("none", "–", "none")
    refused = TruthFidelity("", {}, pd.DataFrame(), refused="the positive ratio is 1")
    nothing = report.advice_values(None, refused, share, {})
    assert nothing["report"] == nothing["lifts"] == "none" and nothing["closest-tau"] == "–"
    assert nothing["world"] == "no world"
    own = report.advice_values(None, TruthFidelity("coat", {}, pd.DataFrame(), kind="random items"), share, {})
    assert own["world"] == "the truth of *coat*"
    assert report.reversals_table({}).empty


def test_the_fidelity_table_marks_the_protocol_to_report_and_its_ties() -> None:
    stand_in = TruthFidelity("w", {}, table())
    shown = report.fidelity_table(stand_in, recommend.recommend(stand_in.table, PLAN))
    assert shown["protocol"].tolist() == ["sampled, corrected", "<b>AR</b>", "UAR"]
    assert shown["within noise of the best"].tolist() == ["yes", "yes", "no"]
    assert shown["rank"].tolist() == ["1", "2", "3"]
    assert shown["τ with the truth"].tolist() == ["0.90", "0.80", "0.40"]
    assert shown["τ over users (95%)"].tolist() == ["0.70 to 1.00", "0.60 to 0.90", "0.20 to 0.50"]


def test_the_profile_table_has_a_column_per_dataset_and_links_each_number_to_its_chapter() -> None:
    profiles = pd.DataFrame([{"dataset": "mine", "users": 1500, "items": 2000, "ratings": 120000, "density": 0.04,
                              "Gini": 0.5444, "fitted α": 1.46, "top-10% share": 0.4281, "positive ratio": 0.2121,
                              "positive head/tail": float("nan")},
                             {"dataset": "ml-100k", "users": 943, "items": 1682, "ratings": 100000, "density": 0.063,
                              "Gini": 0.629, "fitted α": 5.0, "top-10% share": 0.427, "positive ratio": 0.212,
                              "positive head/tail": 2.5}])
    assert report.profile_table(pd.DataFrame()).empty  # no world drawn: nothing to set beside the data
    table = report.profile_table(profiles).set_index("number")
    assert list(table.columns) == ["<b>mine</b> (audited)", "ml-100k", "explained in"]
    assert table.loc["users", "<b>mine</b> (audited)"] == "1,500" and table.loc["density", "ml-100k"] == "0.0630"
    assert table.loc["positive head/tail", "<b>mine</b> (audited)"] == "–"
    assert table.loc["Gini", "explained in"] == '<a href="04_popularity_bias.html">chapter 4</a>'
    assert table.loc["users", "explained in"] == ""


@pytest.mark.parametrize("systems", [4, 8])
def test_the_scores_table_fits_the_text_column_split_by_systems(systems: int) -> None:
    labels = [p.label for p in protocols.audit_protocols(1682)]
    names = ["Random", "Popularity", "implicit MF (top-N)", "item-kNN", "user-kNN (top-N)", "pLSA", "rating-MF",
             "rating-kNN"][:systems]
    summary = pd.DataFrame([{"protocol": p, "system": s, "mean": 0.1234, "ci_low": 0.1034, "ci_high": 0.1434}
                            for p in labels for s in names])
    measured = SimpleNamespace(summary=lambda: summary, relevant_share=pd.Series(0.0118, index=labels))
    html = table_html(report.scores_table(measured), left=["protocol"], keep=["protocol"])  # as the page glues it
    assert table_width(html) <= COLUMN_EM
    parts = html.split("<table")[1:]
    assert len(parts) > 1 and all(">protocol<" in part for part in parts)
    assert all(sum(f">{name}<" in part for part in parts) == 1 for name in names)


def test_parameters_of_the_world_fitted_at_an_end_of_their_range_are_named_with_what_they_copy() -> None:
    sentence = report.world_bounds({"alpha": 5.0, "selection": 1.1, "quality_popularity": 0.95})
    assert "the popularity skew (alpha = 5.00) and the tie between quality and popularity (quality_popularity = 0.95)" \
        in sentence and "observation bias" not in sentence
    assert report.world_bounds({"alpha": 1.4, "selection": 1.1}) == report.world_bounds({}) == ""

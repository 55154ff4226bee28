"""Chapter 9's report: tables, card and JSON summary."""

from __future__ import annotations

import json

import pandas as pd

from recbias import datasets
from recbias.chapters.c09_audit import report
from recbias.chapters.c09_audit.study import measure, protocols, readings


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
    report.write_summary(tmp_path / "s.json", measured, pd.DataFrame([{"dataset": ratings.name}]), share, tau, flips,
                         card)
    written = json.loads((tmp_path / "s.json").read_text())
    assert len(written["summary"]) == len(measured.summary())


def test_the_flips_sentence_counts_pairs() -> None:
    assert report.flips_sentence(pd.DataFrame(columns=["first", "second"])).startswith("Every protocol")
    assert report.flips_sentence(pd.DataFrame({"first": ["A"], "second": ["B"]})).startswith("1 pair")

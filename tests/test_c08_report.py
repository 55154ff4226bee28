"""Chapter 8's tables and sentences, with their values, at the edges where their wording changes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c08_protocol_fidelity import report, study
from recbias.synthetic import stand_in
from recbias.ratings import Ratings


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


def table(taus: dict[str, tuple[float, float, float]], **columns) -> pd.DataFrame:
    """A fidelity table: protocol -> (tau, tau_low, tau_high), in the order given."""
    return pd.DataFrame([{"protocol": p, "tau": t, "tau_low": lo, "tau_high": hi} for p, (t, lo, hi) in taus.items()]
                        ).assign(**columns)


def test_the_world_note_says_what_stands_in_for_a_dataset_without_truth(world, monkeypatch):
    plain = dataclasses.replace(world, name="plain", true_relevance=None)
    assert report.world_note(world, world) == ""
    note = report.world_note(plain, study.world_with_truth(plain))
    assert "of the same size" in note and note.startswith("The dataset of this build, plain, has no ground truth")
    monkeypatch.setattr(stand_in, "MAX_PAIRS", plain.n_users * (plain.n_items - 7))
    note = report.world_note(plain, study.world_with_truth(plain))
    assert f"but {plain.n_items - 7:,} of its {plain.n_items:,} items" in note


def test_the_second_note_is_empty_unless_the_truth_is_missing_or_the_default_world(world):
    coat = dataclasses.replace(world, name="coat")
    assert report.second_note("", world, None) == ""
    assert report.second_note("coat", world, coat) == ""
    assert report.second_note("coat", world, None).startswith("The second dataset, coat, is not available")
    assert report.second_note(world.name, world, world) == (
        f"The build's own dataset is {world.name}, so the second truth here is the default simulated world.")


def test_the_leaders_in_words():
    assert report.leaders_words(["a"], 18) == "no other protocol"
    assert report.leaders_words(["a", "b"], 18) == "2 of the 18 protocols"


def test_the_field_table_names_what_sets_each_system_apart():
    rows = report.field_table(study.system_field(0)).set_index("system")
    assert len(rows) == 14
    assert rows.loc["pLSA", "setting"] == "preset parameters"
    assert rows.loc["pLSA (5 aspects)", "setting"] == "5 aspects"
    assert rows.loc["MF (strong reg.)", "setting"] == "regularisation 200"
    assert rows.loc["MF + 25% popularity", "setting"] == "25% popularity rank + 75% MF rank"
    assert rows.loc["MF + 25% popularity", "kind"] == "PopularityBlend"


def test_the_protocol_table_marks_the_uniform_split():
    rows = report.protocol_table(study.protocols(300)).set_index("protocol")
    assert rows.loc["UAR P@10", "design"] == "UAR TI-AN (uniform split)"
    assert rows.loc["1R P@10", "design"] == "1R TI-NN(15)" and rows.loc["bpref", "kind"] == "incomplete judgments"


def test_the_fidelity_table_with_one_split_and_with_several():
    main = table({"a": (0.8, 0.6, 0.9), "b": (0.5, 0.5, 0.5)}, tau_seed_min=[0.7, 0.5], tau_seed_max=[0.9, 0.5],
                 pairs=[0.9, 0.75], best=[1.0, 0.5], best_share=[0.96, 0.1])
    one = report.fidelity_table(main, 1).set_index("protocol")
    assert one.loc["a", "Kendall τ"] == "0.80" and one.loc["a", "τ over users (95%)"] == "0.60 to 0.90"
    assert one.loc["b", "τ over users (95%)"] == "0.50"
    assert one.loc["a", "best system first: splits"] == "yes" and one.loc["b", "best system first: splits"] == "no"
    assert one.loc["a", "best system first: resamples"] == "96%"
    two = report.fidelity_table(main, 2).set_index("protocol")
    assert two.loc["a", "Kendall τ"] == "0.80<br><small>0.70 to 0.90</small>"
    assert two.loc["b", "best system first: splits"] == "1 of 2"


def test_the_comparison_table_marks_the_protocols_apart_beyond_noise():
    main = table({"a": (0.9, 0.8, 1.0), "b": (0.8, 0.7, 0.9), "c": (0.5, 0.4, 0.6)})
    second = table({"a": (0.3, 0.2, 0.4), "b": (0.75, 0.5, 0.95)})
    rows = report.comparison_table(main, second, ("world", "coat")).set_index("protocol")
    assert rows["apart beyond noise"].to_dict() == {"a": "yes", "b": "", "c": ""}
    assert rows.loc["b", "coat, over users (95%)"] == "0.50 to 0.95" and rows.loc["c", "coat, over users (95%)"] == "–"
    assert np.isnan(rows.loc["c", "τ, coat"]) and rows.loc["a", "τ, world"] == 0.9
    assert list(report.comparison_table(main, None, ("world", "")).columns) == [
        "protocol", "τ, world", "world, over users (95%)"]


def test_the_agreement_sentence_reads_right_at_its_edges():
    main = table({p: (t, 0, 1) for p, t in zip("abcdef", [0.9, 0.8, 0.5, 0.4, 0.3, 0.2], strict=True)})
    alike = table({p: (t, 0, 1) for p, t in zip("abcdef", [0.2, 0.8, 0.7, 0.6, 0.5, 0.4], strict=True)})
    text = report.agreement_text(main, alike, ("world", "coat"))
    assert text.startswith("The two truths rank the protocols differently: over the 6 protocols, the rank "
                           "correlation between their τ on the one and on the other is 0.14.")
    assert "B is in the top third on both." in text and "disagree most on a (1st of 6 on world, 6th on coat)" in text
    same = report.agreement_text(main, main, ("world", "coat"))
    assert "rank the protocols alike" in same and "is 1.00" in same and "A and b are in the top third on both" in same
    apart = table({p: (t, 0, 1) for p, t in zip("abcdef", [0.1, 0.2, 0.3, 0.4, 0.5, 0.9], strict=True)})
    assert "No protocol is in the top third on both." in report.agreement_text(main, apart, ("world", "coat"))
    assert report.agreement_text(main, None, ("world", "")) == ""
    assert report.agreement_text(main.head(2), main.head(2), ("world", "coat")) == ""


def test_the_disagreement_sentence_reads_right_at_its_edges():
    main = table({"a": (0.9, 0.85, 0.95), "b": (0.8, 0.75, 0.85), "c": (0.5, 0.45, 0.55)})
    none = report.disagreement_text(main, main, ("world", "coat"))
    assert none.startswith("On no protocol do the two truths part") and none.endswith("finer distinctions of world.")
    lower = table({"a": (0.3, 0.1, 0.5), "b": (0.2, 0.0, 0.4), "c": (0.5, 0.3, 0.7)})
    text = report.disagreement_text(main, lower, ("world", "coat"))
    assert text.startswith("The two truths part beyond resampling noise on 2 of the 3 protocols")
    assert "on all of them world gives the higher τ" in text and "as coat's is with its wider intervals" in text
    mixed = lower.assign(tau=[0.3, 0.95, 0.5], tau_low=[0.1, 0.9, 0.3], tau_high=[0.5, 0.99, 0.7])
    assert "world gives the higher τ on 1 of them and coat on 1" in report.disagreement_text(main, mixed,
                                                                                             ("world", "coat"))
    higher = table({"a": (0.99, 0.97, 1.0), "b": (0.95, 0.9, 0.99), "c": (0.5, 0.3, 0.7)})
    assert "on all of them coat gives the higher τ" in report.disagreement_text(main, higher, ("world", "coat"))
    assert report.disagreement_text(main, None, ("world", "")) == ""


def test_the_recommendations_list_every_verdict_with_its_advice():
    main = table({"a": (0.9, 0, 1), "b": (0.7, 0, 1), "c": (0.5, 0, 1), "d": (0.3, 0, 1)})
    grid = pd.DataFrame({"protocol": list("abcd"), "tau": [0.9, 0.1, 0.8, 0.2]})
    rows = report.recommendations(main, None, grid)
    assert list(rows["verdict"]) == ["in the better half on every truth", "mixed evidence",
                                     "in the worse half on every truth"]
    assert list(rows["protocols"]) == ["a", "b, c", "d"]
    assert rows["what to do"].iloc[2] == "avoid for choosing between systems"
    assert report.recommendations(main.head(1), None, grid.head(1))["protocols"].tolist() == ["a", "none", "none"]


def test_the_grid_table_names_its_cells_and_the_trend_reads_right_at_its_edges():
    cells = pd.DataFrame([[0.5, 0.7]], index=["a"], columns=pd.MultiIndex.from_tuples([(0.5, 0.0), (1.4, 2.5)]))
    assert list(report.grid_table(cells).columns) == ["α = 0.5\nbias 0", "α = 1.4\nbias 2.5"]
    rises = report.grid_trend(pd.Series({0.0: 0.5, 2.5: 0.7}))
    assert rises.startswith("In this grid fidelity rises with observation bias (mean Kendall's τ over protocols 0.50 "
                            "at strength 0 and 0.70 at 2.5).")
    flat = report.grid_trend(pd.Series({0.0: 0.5, 2.5: 0.5}))
    assert flat.startswith("In this grid fidelity does not rise with observation bias (")
    one = report.grid_trend(pd.Series({1.5: 0.5}))
    assert one.startswith("The grid has one strength of observation bias (1.5)")


def test_the_settings_table_gives_a_reason_for_every_departure_only():
    small = report.settings_table(study.protocols(300), splits=2, n_boot=200, level=0.05).set_index("setting")
    assert list(small.columns) == ["this page", "the papers", "why it differs"]
    assert small.loc["1R target sets", "this page"] == "1R TI-NN(15)"
    assert small.loc["1R target sets", "why it differs"].startswith("P1R's ten percentiles")
    assert small.loc["splits", "why it differs"] == "the page's `split_seeds`"
    assert small.loc["comparisons", "this page"] == "paired resamples of users (200), two-sided p < 0.05"
    large = report.settings_table(study.protocols(3000), splits=5, n_boot=50, level=0.05).set_index("setting")
    assert large.loc["1R target sets", "why it differs"] == "" and large.loc["splits", "why it differs"] == ""
    assert large.loc["sampled metric", "this page"].startswith("HR@10 over 1R AI-NN(100)")


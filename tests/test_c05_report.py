"""Chapter 5's tables and sentences, with their values, at the edges where their wording changes."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from neutralising_world import small_study

from recbias.bookkit.claims import evaluate
from recbias.chapters.c05_neutralising_designs import claims, report, study
from recbias.chapters.c05_neutralising_designs.study import UniformPlan
from recbias.text import TARGET_SIZE_HTML

SAME = UniformPlan(0.2, 0.2, 0.31, 0.2, 891, 27, 0.2005, 891, 27, 2000)
LOWERED = UniformPlan(0.2, 0.14, 0.1432, 0.2, 503, 26, 0.1425, 502, 28, 17388)


def test_plan_text_reads_right_when_sigma_is_lowered_and_when_the_floor_rule_agrees() -> None:
    text = report.plan_text(SAME, "world")
    assert text == ("On world, $T$ holds the 891 most popular of the 2,000 rated items (44.5%), each with "
                    "$\\eta = 27$ test ratings; the floor rule draws the same split.")
    text = report.plan_text(LOWERED, "curve")
    assert "at most $\\sigma = 0.143$" in text and "$\\sigma = 0.14$" in text and "keeps 1 item fewer" in text
    assert text.startswith("On curve, a test ratio of 0.2 is out of reach")
    assert "finds no split" in report.plan_text(UniformPlan(0.2, 0.2, 0.2, 0.2, 10, 5, 0.2, 0, 0, 50), "x")
    assert "keeps 40 items fewer" in report.plan_text(UniformPlan(0.2, 0.2, 0.3, 0.2, 50, 5, 0.2, 10, 6, 90), "x")


def test_plan_table_has_one_row_per_dataset_with_both_rules() -> None:
    table = report.plan_table([("world", SAME), ("curve", LOWERED)])
    assert list(table["dataset"]) == ["world", "curve"]
    row = table.set_index("dataset").loc["curve"]
    assert (row["σ asked"], row["σ used"], row["|T|"], row["η"], row["|T| (floor)"], row["η (floor)"]) == \
        (0.2, 0.14, 503, 26, 502, 28)
    assert row["held out"] == pytest.approx(0.1425) and row["rated items"] == 17388


def test_the_second_note_names_the_dataset_for_every_status() -> None:
    studies = [SimpleNamespace(name="main"), SimpleNamespace(name="lastfm-2k")]
    assert "`second_dataset` is empty" in report.second_note("skipped", "", studies[:1])
    assert "*main*, is this page's own dataset" in report.second_note("same", "main", studies[:1])
    assert "*coat*, is not available" in report.second_note("unavailable", "coat", studies[:1])
    assert report.second_note("available", "lastfm-2k", studies).startswith("The second dataset is lastfm-2k, reduced")


def test_the_index_words_follow_the_findings_and_the_head_sentence_its_three_cases() -> None:
    values = {"index_1r": 0.8, "index_p1r": -0.04, "index_u1r": 0.3, "random_level": 0.15, "p1r_room": 0.19,
              "p1r_room_p": 0.01, "u1r_room": -0.15, "u1r_room_p": 0.01}
    finding = {f.key: f for f in claims.FINDINGS}
    assert report.LEVEL[evaluate(finding["p1r-random-level"], values, dataset="x").outcome] == "random's level"
    assert report.LEVEL[evaluate(finding["u1r-random-level"], values, dataset="x").outcome] == "above random's level"
    doubtful = evaluate(finding["u1r-random-level"], values | {"u1r_room_p": 0.3}, dataset="x").outcome
    assert report.LEVEL[doubtful].startswith("too close to the random level")
    assert report.LOWERS[finding["uar-reduces"].criterion({"uar_drop": 0.2, "uar_drop_p": 0.01})] == "lowers"
    assert report.LOWERS[finding["uar-reduces"].criterion({"uar_drop": -0.1, "uar_drop_p": 0.01})] == "does not lower"
    assert report.LOWERS[finding["uar-reduces"].criterion({"uar_drop": 0.2, "uar_drop_p": 0.2})] == \
        "does not clearly lower"
    assert report.head_sentence(0.6, -0.04, 0.3) == "Removing the head leaves more of it than either, 0.60."
    assert report.head_sentence(0.3, -0.04, 0.3) == "Removing the head leaves more of it than either, 0.30."
    assert report.head_sentence(0.1, -0.04, 0.3) == "Removing the head, at 0.10, falls between the two."
    assert report.head_sentence(-0.1, -0.04, 0.3) == "Removing the head does better than both here, to -0.10."


def _summary(dataset: str, systems: dict[str, float]) -> pd.DataFrame:
    rows = [{"label": label, "design": label, "system": system, "metric": "P@10", "mean": mean + 0.01 * k,
             "ci_low": mean + 0.01 * k - 0.002, "ci_high": mean + 0.01 * k + 0.002, "dataset": dataset}
            for k, label in enumerate(reversed(study.FIG8)) for system, mean in systems.items()]
    return pd.DataFrame(rows)


def test_fig8_table_lists_the_designs_in_the_papers_order() -> None:
    systems = {name: 0.1 * (k + 1) for k, name in enumerate(study.SYSTEMS)}
    table = report.fig8_table([_summary("a", systems), _summary("b", systems)])
    assert [system for _, system in table.columns] == [*study.PAPERS_SET, "implicit MF", "user-kNN"]
    assert [s for s, _ in table.columns] == [study.PAPERS] * 5 + [study.TOP_N] * 2
    assert [label for _, label in table.index] == [d.replace("-head", "−10% head") for d in study.FIG8] * 2
    assert [name for name, _ in table.index] == ["a"] * 7 + ["b"] * 7
    assert all("<small>±" in cell for cell in table.to_numpy().ravel())
    # 1R is last of the reversed order
    assert table.loc[("a", "1R"), (study.PAPERS, "Popularity")] == "0.1600<br><small>± 0.0020</small>"


def test_size_table_orders_designs_as_fig8_and_averages_over_splits() -> None:
    labels = ["AR TI-AN", "P1R", "1R"]
    reports = pd.DataFrame({"fold": [0, 1, 0, 1, 0, 1], "label": np.repeat(labels, 2),
                            "design": np.repeat(["TI-AN", "P1R(4) TI-NN(29)", "1R TI-NN(29)"], 2),
                            "candidates": [1000, 1200, 300, 300, 600, 600], "n_runs": [10, 10, 10, 10, 20, 20],
                            "n_candidates": [100, 100, 50, 50, 100, 100], "shortage_runs": [0, 0, 3, 5, 0, 0]})
    table = report.size_table([SimpleNamespace(name="toy", reports=reports)])
    assert [design for _, design in table.index] == ["1R TI-NN(29)", "P1R(4) TI-NN(29)", "TI-AN"]
    row = table.loc[("toy", "P1R(4) TI-NN(29)")]
    assert (row["splits"], row["runs"], row["|T_u|"], row["left out"]) == (2, 10, 30, 4)
    assert table.loc[("toy", "TI-AN"), "|T_u|"] == 110


def test_the_p1r_shortage_sentence_counts_runs_or_says_none() -> None:
    some = SimpleNamespace(name="a", reports=pd.DataFrame({"label": "P1R", "shortage_runs": [10, 30], "n_runs": [980, 980]}))
    none = SimpleNamespace(name="b", reports=pd.DataFrame({"label": "P1R", "shortage_runs": [0, 0.4], "n_runs": [50, 50]}))
    assert report.shortage_text([some, none]) == "Here P1R leaves out 20 of 1,000 runs per split (2.0%) on a, and none on b."


def _lift(ar: tuple[float, float, float], uar: tuple[float, float, float]) -> SimpleNamespace:
    rows = [{"design": d, "weight of the paper": w, "predicted (paper)": p, "predicted (training excluded)": e,
             "measured": m} for d, w, (p, e, m) in (("AR TI-AN", "|PR(i)|", ar), ("UAR", "|PR(i)| / |R(i)|", uar))]
    return SimpleNamespace(name="world", lift=pd.DataFrame(rows))


def test_residual_text_follows_which_prediction_is_closer() -> None:
    both = report.residual_text(_lift((9.0, 10.0, 11.0), (1.2, 1.5, 1.9)))
    assert both.startswith("On world the uniform split cuts popularity's P@10 from 11.0 times random's (AR) to 1.90")
    assert "On both splits the training exclusion brings" in both and "another source" in both
    one = report.residual_text(_lift((9.0, 14.0, 11.0), (1.2, 1.5, 1.4)))
    assert "Only on the uniform split does" in one and "another source" not in one and one.endswith("measurement.")
    assert "On neither split does" in report.residual_text(_lift((11.0, 14.0, 11.0), (1.4, 1.5, 1.4)))
    assert "Only on the random split does" in report.residual_text(_lift((9.0, 10.0, 11.0), (1.4, 1.3, 1.4)))


def test_lift_table_names_the_splits_and_the_columns() -> None:
    table = report.lift_table([_lift((9.0, 10.0, 11.0), (1.2, 1.5, 1.9))])
    assert list(table.index) == [("world", "AR"), ("world", "UAR")]
    assert list(table.columns) == ["item weight", "predicted", "predicted, training excluded", "measured"]
    assert table.loc[("world", "UAR"), "predicted, training excluded"] == 1.5


def _indices(values: dict[str, float], name: str = "world") -> pd.DataFrame:
    """The papers' set's indices as given, and today's set's moved far away (the sentences read the papers')."""
    return pd.DataFrame([{"dataset": name, "set": s, "method": m, "index": v + (9 if s == study.TOP_N else 0)}
                         for s in (study.PAPERS, study.TOP_N) for m, v in values.items()])


BASE = {"1R, P@10": 0.8, "P1R, P@10": -0.04, "U1R, P@10": 0.3, "AR, P@10": 0.4, "UAR, P@10": 0.2,
        "1R -10% head, P@10": 0.6}


def test_the_incomplete_judgment_sentences_read_right_at_their_edges() -> None:
    raised = report.incomplete_text(_indices(BASE | {"AR, bpref": np.nan, "AR, infAP": 0.5}))
    assert "infAP raises it to 0.50" in raised and "gives no index" in raised and "it does not come" in raised
    lowered = report.incomplete_text(_indices(BASE | {"AR, bpref": 0.3, "AR, infAP": -0.1}))
    assert "bpref and infAP both lower it, to 0.30 and -0.10" in lowered and "infAP comes as close" in lowered
    assert lowered.startswith("On world, AR P@10 puts popularity at 0.40;") and lowered.endswith("(-0.04).")
    mixed = report.incomplete_text(_indices(BASE | {"AR, bpref": 0.5, "AR, infAP": -0.2}))
    assert "bpref raises it to 0.50, while infAP lowers it to -0.20" in mixed
    both = report.incomplete_text(_indices(BASE | {"AR, bpref": -0.05, "AR, infAP": -0.2}))
    assert "bpref and infAP come as close" in both
    neither = report.incomplete_text(_indices(BASE | {"AR, bpref": 0.3, "AR, infAP": 0.2}))
    assert "neither comes as close" in neither
    assert report.incomplete_text(_indices(BASE | {"AR, bpref": np.nan, "AR, infAP": np.nan})) == ""


def test_sweep_text_names_the_estimators_that_move_popularity_most_and_least() -> None:
    rows = [{"dataset": "world", "family": f, "beta": b, "index": 0.5 - drop * b}
            for f, drop in (("PSR", 0.1), ("IPS-P", 0.6), ("SNIPS-P", 0.3)) for b in (0.0, 0.5, 1.0)]
    text = report.sweep_text(pd.DataFrame(rows))
    assert "every estimator lowers" in text and "IPS-P@10 moves it furthest, from 0.50 to -0.10" in text
    assert "stratified recall least" in text
    rising = [row | {"index": 0.5 + 0.2 * row["beta"]} if row["family"] == "PSR" else row for row in rows]
    assert "2 of the 3 estimators lower popularity's index" in report.sweep_text(pd.DataFrame(rising))


def test_fig9_table_names_the_best_system_below_its_value() -> None:
    rows = [
        {"dataset": "w", "method": "AR, bpref", "metric": "bpref", "Popularity": 0.5, "Random": 0.1,
         "best personalised": 0.61234, "best system": "rating-MF", "index": 0.78},
        {"dataset": "w", "method": "1R, stratified recall (γ = 1)", "metric": "PSR@10(gamma=1)", "Popularity": 0.2,
         "Random": 0.1, "best personalised": 0.3, "best system": "tie", "index": 0.5},
        {"dataset": "w", "method": "AR, P@10", "metric": "P@10", "Popularity": 0.2, "Random": 0.1,
         "best personalised": 0.3, "best system": "rating-MF", "index": 0.5},
    ]
    indices = pd.DataFrame([row | {"set": s} for s in (study.PAPERS, study.TOP_N) for row in rows])
    table = report.fig9_table(indices)
    assert list(table.index) == [("w", "bpref", "AR"), ("w", "stratified recall", "1R")]  # the papers' set only
    assert table.loc[("w", "bpref", "AR"), "best personalised"] == "0.6123<br><small>rating-MF</small>"


def test_bpref_text_reads_right_when_no_run_drops_below_one() -> None:
    assert "1R bpref is 1 throughout" in report.bpref_text(0, 400)
    text = report.bpref_text(3, 40)
    assert "in 3 of the 40 scored 1R runs (7.50%)" in text and text.endswith("which sets their bpref to 0.")


def _p10(values: dict[str, dict[str, float]]) -> pd.DataFrame:
    """A Fig. 8 summary of one dataset: label -> system -> mean P@10."""
    return pd.DataFrame([{"dataset": "world", "label": label, "system": system, "metric": "P@10", "mean": mean}
                         for label, systems in values.items() for system, mean in systems.items()])


def test_the_rating_predictors_sentence_groups_the_designs_by_how_many_of_them_popularity_beats() -> None:
    summary = _p10({"1R": {"Popularity": 0.06, "rating-MF": 0.05, "rating-kNN": 0.04},
                    "P1R": {"Popularity": 0.01, "rating-MF": 0.03, "rating-kNN": 0.02},
                    "U1R": {"Popularity": 0.02, "rating-MF": 0.03, "rating-kNN": 0.02},  # a tie is not above
                    "1R -head": {"Popularity": 0.04, "rating-MF": 0.05, "rating-kNN": 0.03}})
    assert report.rating_predictors_text(summary) == (
        "On world, popularity's P@10 is above both rating predictors' under 1R; between the two under 1R −10% head; "
        "below both under U1R and P1R.")
    below = _p10({"UAR": {"Popularity": 0.01, "rating-MF": 0.03, "rating-kNN": 0.02}})
    assert report.rating_predictors_text(below) == "On world, popularity's P@10 is below both under UAR."


def test_the_settings_table_names_every_departure_and_only_departures() -> None:
    small = small_study()
    table = report.settings_table([small], target_size=30, percentiles=4, head=0.1, level=0.05, n_boot=50)
    assert list(table.columns) == ["setting", "this page", "the papers", "why it differs"]
    why = table.set_index("setting")["why it differs"]
    assert why["P1R percentiles"] == "the page's `percentiles`" and why["head removed"] == ""
    assert why["1R target sets"] == "the page's `target_size`" and why["splits"] == "the page's `folds` and `test_ratio`"
    assert table.set_index("setting").loc["1R target sets", "this page"] == f"{TARGET_SIZE_HTML} = 30"
    assert "second dataset" not in set(table["setting"])
    both = report.settings_table([small, small], target_size=30, percentiles=10, head=0.2, level=0.05, n_boot=50)
    assert both.set_index("setting").loc["head removed", "why it differs"] == "the page's `head`"
    assert {"second dataset", "its splits"} <= set(both["setting"])


def test_the_reference_sentence_gives_the_index_with_each_set_as_the_scale() -> None:
    rows = [{"dataset": name, "set": s, "method": m, "index": v + (0.5 if s == study.TOP_N else 0) + k}
            for k, name in enumerate(("one", "two")) for s in (study.PAPERS, study.TOP_N)
            for m, v in (("1R, P@10", 0.7), ("P1R, P@10", 0.04), ("U1R, P@10", 0.3))]
    text = report.reference_text(pd.DataFrame(rows))
    assert text.startswith("On one, with today's top-N learners as the scale, popularity's index is 1.20, 0.54 and "
                           "0.80 in 1R, P1R and U1R; with the papers' set it is 0.70, 0.04 and 0.30. On two, ")

"""Chapter 5's tables: their rows, columns and values, built from hand-made studies and summaries."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from recbias.bookkit.tables import COLUMN_EM, table_html, table_width
from recbias.chapters.c05_neutralising_designs import report, study
from recbias.chapters.c05_neutralising_designs.study import UniformPlan

SAME = UniformPlan(0.2, 0.2, 0.31, 0.2, 891, 27, 0.2005, 891, 27, 2000)
LOWERED = UniformPlan(0.2, 0.14, 0.1432, 0.2, 503, 26, 0.1425, 502, 28, 17388)


def test_plan_table_has_one_row_per_dataset_with_both_rules() -> None:
    table = report.plan_table([("world", SAME), ("curve", LOWERED)])
    assert list(table["dataset"]) == ["world", "curve"]
    row = table.set_index("dataset").loc["curve"]
    assert (row["σ asked"], row["σ used"], row["|T|"], row["η"], row["|T| (floor)"], row["η (floor)"]) == \
        (0.2, 0.14, 503, 26, 502, 28)
    assert row["held out"] == pytest.approx(0.1425) and row["rated items"] == 17388
    assert row["largest σ"] == 0.1432 and row["of the items"] == pytest.approx(503 / 17388)
    assert list(table.columns) == ["dataset", "rated items", "σ asked", "largest σ", "σ used", "ε", "|T|",
                                   "of the items", "η", "held out", "|T| (floor)", "η (floor)"]


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



def _lift(ar: tuple[float, float, float], uar: tuple[float, float, float]) -> SimpleNamespace:
    rows = [{"design": d, "item weight": w, "predicted": p, "predicted, training excluded": e,
             "measured": m} for d, w, (p, e, m) in (("AR TI-AN", "|PR(i)|", ar), ("UAR", "|PR(i)| / |R(i)|", uar))]
    return SimpleNamespace(name="world", lift=pd.DataFrame(rows))



def test_lift_table_names_the_splits_and_the_columns() -> None:
    table = report.lift_table([_lift((9.0, 10.0, 11.0), (1.2, 1.5, 1.9))])
    assert list(table.index) == [("world", "AR"), ("world", "UAR")]
    assert list(table.columns) == ["item weight", "predicted", "predicted, training excluded", "measured"]
    assert table.loc[("world", "UAR"), "predicted, training excluded"] == 1.5


def _indices(values: dict[str, float], name: str = "world") -> pd.DataFrame:
    """The papers' set's indices as given, and today's set's moved far away (the sentences read the papers')."""
    return pd.DataFrame([{"dataset": name, "set": s, "method": m, "index": v + (9 if s == study.TOP_N else 0)}
                         for s in (study.PAPERS, study.TOP_N) for m, v in values.items()])


BASE = {"AR, P@10": 0.4, "1R, P@10": 0.8, "1R -10% head, P@10": 0.6, "P1R, P@10": -0.04, "U1R, P@10": 0.3,
        "UAR, P@10": 0.2}


def test_the_p10_index_table_has_a_row_per_dataset_and_set_and_a_column_per_design() -> None:
    indices = pd.concat([_indices(BASE), _indices(BASE | {"AR, P@10": 0.7}, "other")], ignore_index=True)
    indices["metric"] = "P@10"
    incomplete = _indices({"AR, bpref": 0.1}).assign(metric="bpref")  # another metric: left out
    table = report.p10_index_table(pd.concat([indices, incomplete], ignore_index=True))
    assert list(table.columns) == ["AR", "1R", "1R −10% head", "P1R", "U1R", "UAR"]
    assert list(table.index) == [(name, s) for name in ("world", "other") for s in (study.PAPERS, study.TOP_N)]
    assert table.loc[("world", study.PAPERS), "P1R"] == -0.04 and table.loc[("world", study.TOP_N), "P1R"] == 8.96
    assert table.loc[("other", study.PAPERS), "AR"] == 0.7 and table.loc[("world", study.PAPERS), "AR"] == 0.4


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


def _p10(values: dict[str, dict[str, float]]) -> pd.DataFrame:
    """A Fig. 8 summary of one dataset: label -> system -> mean P@10."""
    return pd.DataFrame([{"dataset": "world", "label": label, "system": system, "metric": "P@10", "mean": mean}
                         for label, systems in values.items() for system, mean in systems.items()])


def test_the_predictors_table_counts_the_rating_predictors_popularity_beats() -> None:
    summary = _p10({"1R": {"Popularity": 0.06, "rating-MF": 0.05, "rating-kNN": 0.04},
                    "P1R": {"Popularity": 0.01, "rating-MF": 0.03, "rating-kNN": 0.02},
                    "U1R": {"Popularity": 0.02, "rating-MF": 0.03, "rating-kNN": 0.02},  # a tie is not above
                    "1R -head": {"Popularity": 0.04, "rating-MF": 0.05, "rating-kNN": 0.03}})
    other = _p10({"UAR": {"Popularity": 0.05, "rating-MF": 0.03, "rating-kNN": 0.02}}).assign(dataset="other")
    table = report.predictors_table([summary, other])
    assert list(table.index) == ["world", "other"]
    assert list(table.columns) == ["1R", "U1R", "P1R", "1R −10% head", "UAR"]  # the order of Fig. 8
    assert table.loc["world"].tolist()[:4] == [2, 0, 0, 1] and np.isnan(table.loc["world", "UAR"])
    assert table.loc["other", "UAR"] == 2


def test_the_sweep_ends_table_gives_each_estimator_at_its_smallest_and_largest_exponent() -> None:
    rows = [{"dataset": name, "family": f, "beta": b, "index": 0.5 - drop * b + shift}
            for name, shift in (("world", 0.0), ("other", 1.0))
            for f, drop in (("SNIPS-P", 0.3), ("PSR", 0.1), ("IPS-P", 0.6)) for b in (1.0, 0.0, 0.5)]
    table = report.sweep_ends_table(pd.DataFrame(rows))
    assert list(table.columns) == ["smallest exponent", "largest exponent", "change"]
    assert list(table.index) == [(name, label) for name in ("world", "other")
                                 for label in ("stratified recall", "IPS-P@10", "SNIPS-P@10")]
    row = table.loc[("world", "IPS-P@10")]
    assert (row["smallest exponent"], row["largest exponent"]) == (0.5, pytest.approx(-0.1))
    assert row["change"] == pytest.approx(-0.6) and table.loc[("other", "stratified recall"), "change"] == \
        pytest.approx(-0.1)


def test_fig8_table_fits_the_text_column_as_the_page_glues_it() -> None:
    systems = {name: 0.0589 for name in study.SYSTEMS}
    html = table_html(report.fig8_table([_summary("ml-100k", systems), _summary("lastfm-2k", systems)]), index=True)
    assert table_width(html) <= COLUMN_EM
    assert all(f">{name.removesuffix(' (top-N)')}<" in html for name in study.SYSTEMS)

"""Chapter 5's figures drawn on tiny inputs: titles, labels, one panel per dataset, and no text drawn over
another."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from figure_text import figure_theme, overlapping_texts, texts  # noqa: F401
from matplotlib import pyplot as plt

from recbias.bookkit.plotting import palette
from recbias.chapters.c05_neutralising_designs import figures, study
from recbias.ratings import Ratings

pytestmark = pytest.mark.usefixtures("figure_theme")


def curve_ratings() -> Ratings:
    counts = [60, 45, 30, 30, 20, 12, 8, 5, 3, 2, 1, 1]
    items = np.repeat(np.arange(len(counts)), counts)
    users = np.concatenate([np.arange(c) for c in counts])
    values = np.where(np.arange(len(items)) % 3 == 0, 2.0, 5.0)
    return Ratings.from_codes(users, items, values, (max(counts), len(counts)), positive_threshold=4, scale=(1, 5),
                              name="tiny")


def summary(dataset: str) -> pd.DataFrame:
    rows = [{"label": label, "system": system, "metric": metric, "mean": 0.02 * (k + 1) + 0.01 * j,
             "ci_low": 0.02 * (k + 1) + 0.01 * j - 0.004, "ci_high": 0.02 * (k + 1) + 0.01 * j + 0.004,
             "dataset": dataset}
            for k, system in enumerate(study.SYSTEMS) for j, label in enumerate(study.FIG8)
            for metric in ("P@10", "nDCG@10")]
    return pd.DataFrame(rows)


def indices(datasets: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": name, "set": system_set, "method": method, "metric": metric,
                          "index": 0.1 * k - 0.2 * d + 0.05 * j}
                         for d, name in enumerate(datasets) for j, system_set in enumerate(study.PERSONALISED)
                         for k, (method, _, metric) in enumerate(study.INDEX_ROWS)])


def sweeps(datasets: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": name, "family": family, "beta": beta, "index": 0.5 - (k + 1) * 0.1 * beta}
                         for name in datasets for k, family in enumerate(study.FAMILIES)
                         for beta in (0.0, 0.5, 1.0)])


def test_the_splits_figure_draws_both_splits_over_the_popularity_curve() -> None:
    ratings = curve_ratings()
    plan = study.uniform_plan(ratings, 0.2, 0.2)
    fig = figures.splits_figure(study.split_profiles(ratings, plan, 4), plan)
    top, bottom = fig.axes
    assert top.get_title(loc="left").startswith("a) random split") and bottom.get_title(loc="left").startswith("b)")
    assert bottom.get_xlabel() == "item popularity rank $k$" and top.get_yscale() == "log"
    assert f"$|T| = {plan.size:,}$" in texts(fig)
    assert len([line for line in top.get_lines() if line.get_linestyle() == ":"]) == 3  # edges of four percentiles
    assert overlapping_texts(fig) == []


@pytest.mark.parametrize("datasets", [("one",), ("one", "two")])
@pytest.mark.parametrize("metric", ["P@10", "nDCG@10"])
def test_the_fig8_figure_has_a_panel_per_dataset_and_a_bar_per_system_and_design(datasets, metric) -> None:
    colours = palette(list(study.SYSTEMS))
    fig = figures.fig8_figure([summary(name) for name in datasets], colours, metric)
    assert [ax.get_title(loc="left") for ax in fig.axes] == [f"dataset: {name}" for name in datasets]
    assert all(ax.get_ylabel() == metric for ax in fig.axes)
    assert len(fig.axes[0].patches) == len(study.SYSTEMS) * len(study.FIG8)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(study.SYSTEMS)
    # today's top-N learners are hatched, the papers' set is not
    hatched = {patch.get_hatch() for patch, system in zip(fig.legends[0].get_patches(), study.SYSTEMS, strict=True)
               if system in study.TOP_N_LEARNERS}
    assert hatched == {figures.TOP_N_HATCH}
    assert {patch.get_hatch() for patch in fig.legends[0].get_patches()[:len(study.PAPERS_SET)]} == {None}
    assert overlapping_texts(fig) == []


def test_the_ratio_figure_draws_one_curve_per_dataset() -> None:
    curve = study.positive_ratio_curve(curve_ratings(), segments=4)
    fig = figures.ratio_figure([("tiny", curve), ("again", curve.assign(ratio=1.0))])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["tiny", "again"]
    assert ax.get_xscale() == "log" and ax.get_ylim() == (0, 1.05)
    assert overlapping_texts(fig) == []


@pytest.mark.parametrize("datasets", [("one",), ("one", "two")])
def test_the_index_figure_has_a_row_per_method_and_lines_between_the_kinds(datasets) -> None:
    fig = figures.index_figure(indices(datasets))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [m.replace(" -10%", " −10%") for m, _, _ in study.INDEX_ROWS]
    assert ax.get_xlabel().startswith("popularity index: 0 = Random")
    assert len(ax.collections) == len(datasets) * len(study.PERSONALISED)  # one marker set per dataset and set
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [*study.PERSONALISED, *datasets]
    separators = [line for line in ax.get_lines() if line.get_color() == "#999999"]
    assert len(separators) == 2  # P@10 | Fig. 9 metrics | propensity estimators
    assert overlapping_texts(fig) == []


@pytest.mark.parametrize("datasets", [("one",), ("one", "two")])
def test_the_sweep_figure_has_a_panel_per_dataset_and_a_line_per_family(datasets) -> None:
    fig = figures.sweep_figure(sweeps(datasets))
    assert [ax.get_title(loc="left") for ax in fig.axes] == [f"dataset: {name}" for name in datasets]
    assert fig.axes[0].get_ylabel() == "popularity index"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(study.FAMILIES.values())
    assert len(fig.axes[0].get_lines()) == len(study.FAMILIES) + 2  # and the lines at 0 and 1
    assert overlapping_texts(fig) == []


def test_the_overlap_check_sees_texts_drawn_on_each_other_and_not_ticks_out_of_view() -> None:
    fig, ax = plt.subplots()
    ax.set_title("a title")
    ax.text(0.5, 0.5, "one text")
    ax.text(0.5, 0.5, "another text")
    ax.set(yscale="log", ylim=(0.8, 20))  # matplotlib keeps a tick label at 0.1, out of view
    assert overlapping_texts(fig) == [("one text", "another text")]
    assert "a title" in texts(fig) and "$\\mathdefault{10^{-1}}$" not in texts(fig)

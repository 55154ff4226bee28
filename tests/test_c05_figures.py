"""Chapter 5's figures drawn on tiny inputs: titles, labels, one panel per dataset, the inputs' values as drawn
(read back from the matplotlib artists: bar heights and error bars, line points, scatter offsets, the shaded
curve), and no text drawn over another."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from figure_text import figure_theme, overlapping_texts, texts  # noqa: F401
from matplotlib import pyplot as plt
from matplotlib.container import BarContainer
from matplotlib.colors import to_rgba
from matplotlib.markers import MarkerStyle

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


def summary(dataset: str, shift: float = 0.0) -> pd.DataFrame:
    """A Fig. 8 summary with a different mean for every system, design and metric (nDCG@10 above P@10, all
    moved up by ``shift``), and intervals not centred on their means."""
    rows = [{"label": label, "system": system, "metric": metric, "mean": mean,
             "ci_low": mean - 0.004, "ci_high": mean + 0.006, "dataset": dataset}
            for k, system in enumerate(study.SYSTEMS) for j, label in enumerate(study.FIG8)
            for m, metric in enumerate(("P@10", "nDCG@10"))
            for mean in [0.02 * (k + 1) + 0.01 * j + 0.003 * m + shift]]
    return pd.DataFrame(rows)


def indices(datasets: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": name, "set": system_set, "method": method, "metric": metric,
                          "index": 0.1 * k - 0.2 * d + 0.05 * j}
                         for d, name in enumerate(datasets) for j, system_set in enumerate(study.PERSONALISED)
                         for k, (method, _, metric) in enumerate(study.INDEX_ROWS)])


def sweeps(datasets: tuple[str, ...]) -> pd.DataFrame:
    """A sweep with a different index for every dataset, family and exponent, the exponents out of order."""
    return pd.DataFrame([{"dataset": name, "family": family, "beta": beta,
                          "index": 0.5 - (k + 1) * 0.1 * beta - 0.05 * d}
                         for d, name in enumerate(datasets) for k, family in enumerate(study.FAMILIES)
                         for beta in (0.5, 0.0, 1.0)])


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


def test_the_splits_figure_draws_the_profiles_of_both_splits() -> None:
    ratings = curve_ratings()
    plan = study.uniform_plan(ratings, 0.2, 0.2)
    profiles = study.split_profiles(ratings, plan, 4)
    fig = figures.splits_figure(profiles, plan)
    top, bottom = fig.axes
    for ax in (top, bottom):  # the shaded popularity curve: all ratings of each item, by rank
        [shade] = ax.collections
        edge = shade.get_paths()[0].vertices[1:len(profiles) + 1]
        np.testing.assert_allclose(edge, profiles[["rank", "ratings"]].to_numpy(float))
    [random] = [line for line in top.get_lines() if line.get_linestyle() == "--"]
    np.testing.assert_allclose(random.get_xdata(), profiles["rank"])
    np.testing.assert_allclose(random.get_ydata(), profiles["random test"])
    edges = [line.get_xdata()[0] for line in top.get_lines() if line.get_linestyle() == ":"]
    assert edges == list(profiles.groupby("percentile")["rank"].min().iloc[1:])  # first rank of each percentile
    [uniform] = [line for line in bottom.get_lines() if line.get_linestyle() == "-"]
    in_t = profiles[profiles["uniform test"] > 0]
    assert len(in_t) == plan.size
    np.testing.assert_allclose(uniform.get_xdata(), in_t["rank"])
    np.testing.assert_allclose(uniform.get_ydata(), in_t["uniform test"])
    [size] = [line for line in bottom.get_lines() if line.get_linestyle() == ":"]
    assert list(size.get_xdata()) == [plan.size] * 2


@pytest.mark.parametrize("metric", ["P@10", "nDCG@10"])
def test_the_fig8_figure_draws_each_systems_mean_and_interval_per_design(metric) -> None:
    colours = palette(list(study.SYSTEMS))
    summaries = [summary("one"), summary("two", shift=0.1)]
    fig = figures.fig8_figure(summaries, colours, metric)
    width = 0.8 / len(study.SYSTEMS)
    for ax, frame in zip(fig.axes, summaries, strict=True):
        part = frame[frame["metric"] == metric].set_index(["label", "system"])
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        assert len(bars) == len(study.SYSTEMS)
        for j, (system, container) in enumerate(zip(study.SYSTEMS, bars, strict=True)):
            cells = part.loc[[(label, system) for label in study.FIG8]]
            centres = np.arange(len(study.FIG8)) + (j - (len(study.SYSTEMS) - 1) / 2) * width
            np.testing.assert_allclose([p.get_height() for p in container.patches], cells["mean"])
            np.testing.assert_allclose([p.get_x() + p.get_width() / 2 for p in container.patches], centres)
            assert {p.get_facecolor() for p in container.patches} == {to_rgba(colours[system])}
            ends = np.array(container.errorbar.lines[2][0].get_segments())  # each bar from ci_low to ci_high
            np.testing.assert_allclose(ends, [[[x, lo], [x, hi]] for x, lo, hi in
                                              zip(centres, cells["ci_low"], cells["ci_high"], strict=True)])


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
    # each dataset's positive ratio along its segments' mean popularity rank
    for line, ratio in zip(ax.get_lines(), (curve["ratio"], [1.0] * len(curve)), strict=True):
        np.testing.assert_allclose(line.get_xdata(), curve["rank"])
        np.testing.assert_allclose(line.get_ydata(), ratio)
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
def test_the_index_figure_places_each_index_on_its_methods_row(datasets) -> None:
    frame = indices(datasets)
    fig = figures.index_figure(frame)
    ax = fig.axes[0]
    methods = [m for m, _, _ in study.INDEX_ROWS]
    # one marker set per dataset and set, in the order of the input: the index across, the method's row down,
    # moved a little up or down by set, in the set's colour and the dataset's marker
    groups = [(name, system_set) for name in datasets for system_set in study.PERSONALISED]
    for collection, (name, system_set) in zip(ax.collections, groups, strict=True):
        part = frame[(frame["dataset"] == name) & (frame["set"] == system_set)]
        colour, shift = figures.SET_STYLES[system_set]
        expected = np.column_stack([part["index"], [methods.index(m) + shift for m in part["method"]]])
        np.testing.assert_allclose(collection.get_offsets(), expected)
        assert tuple(collection.get_facecolor()[0]) == to_rgba(colour)
        marker = MarkerStyle(figures.MARKERS[datasets.index(name)])
        shape = marker.get_path().transformed(marker.get_transform())
        np.testing.assert_allclose(collection.get_paths()[0].vertices, shape.vertices)


@pytest.mark.parametrize("datasets", [("one",), ("one", "two")])
def test_the_sweep_figure_has_a_panel_per_dataset_and_a_line_per_family(datasets) -> None:
    fig = figures.sweep_figure(sweeps(datasets))
    assert [ax.get_title(loc="left") for ax in fig.axes] == [f"dataset: {name}" for name in datasets]
    assert fig.axes[0].get_ylabel() == "popularity index"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(study.FAMILIES.values())
    assert len(fig.axes[0].get_lines()) == len(study.FAMILIES) + 2  # and the lines at 0 and 1
    assert overlapping_texts(fig) == []


@pytest.mark.parametrize("datasets", [("one",), ("one", "two")])
def test_the_sweep_figure_draws_each_familys_index_by_exponent(datasets) -> None:
    frame = sweeps(datasets)
    fig = figures.sweep_figure(frame)
    for ax, name in zip(fig.axes, datasets, strict=True):
        for line, family in zip(ax.get_lines(), study.FAMILIES, strict=False):
            part = frame[(frame["dataset"] == name) & (frame["family"] == family)].sort_values("beta")
            assert line.get_color() == figures.FAMILY_STYLES[family][0]
            assert list(line.get_xdata()) == [0.0, 0.5, 1.0]
            np.testing.assert_allclose(line.get_ydata(), part["index"])
        assert [list(line.get_ydata()) for line in ax.get_lines()[-2:]] == [[0, 0], [1, 1]]  # Random, best system


def test_the_overlap_check_sees_texts_drawn_on_each_other_and_not_ticks_out_of_view() -> None:
    fig, ax = plt.subplots()
    ax.set_title("a title")
    ax.text(0.5, 0.5, "one text")
    ax.text(0.5, 0.5, "another text")
    ax.set(yscale="log", ylim=(0.8, 20))  # matplotlib keeps a tick label at 0.1, out of view
    assert overlapping_texts(fig) == [("one text", "another text")]
    assert "a title" in texts(fig) and "$\\mathdefault{10^{-1}}$" not in texts(fig)

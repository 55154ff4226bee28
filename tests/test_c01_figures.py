"""Chapter 1's figures: every panel drawn with its titles and labels, and no two texts overlapping."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from recbias.bookkit.plotting import KIND_COLOURS, collection_styles, use_theme
from recbias.chapters.c01_cranfield import figures
from recbias.chapters.c01_cranfield import study as spread
from recbias.judgments import Spread
from recbias.ratings import Ratings
from figure_text import overlapping_texts


@pytest.fixture(scope="module")
def study() -> spread.SpreadStudy:
    """Two IR collections and two small rating datasets, the page's first."""
    use_theme()
    rng = np.random.default_rng(0)
    users, items = rng.integers(0, 30, 200), rng.integers(0, 40, 200)
    stars = Ratings.from_codes(users, items, rng.integers(1, 6, 200).astype(float), (30, 40), positive_threshold=4,
                               name="ml-100k")
    plays = Ratings.from_codes(users, items, rng.integers(1, 50, 200).astype(float), (30, 40), positive_threshold=3,
                               name="lastfm-2k", scale=(1.0, 50.0))
    ir = [Spread("cranfield", "IR", 10, 40, np.array([3, 2, 1, 1])), Spread("trec8-adhoc", "IR", 20, 90, np.ones(8, int))]
    return spread.collect(ir, [stars, plays], cutoff=5)


def test_the_spread_figure_draws_every_collection_in_both_panels(study: spread.SpreadStudy) -> None:
    figure = figures.spread_figure(study)
    top, bottom = figure.axes
    assert (top.get_title(loc="left"), bottom.get_title(loc="left")) == ("Cumulative share", "Reach of the $k$-th most-liked")
    assert top.get_ylabel() == "$F(k)$, share of positive judgments" and bottom.get_xscale() == "log"
    assert [t.get_text() for t in figure.legends[0].get_texts()] == [
        "cranfield", "trec8-adhoc", "ml-100k (this page)", "lastfm-2k", "equal spread"]
    assert len(bottom.get_lines()) == 4
    assert [line.get_linewidth() for line in top.get_lines()[2:4]] == [3.0, 1.6]  # the page's dataset stands out
    assert legend_crosses_a_line(figure) == []
    assert overlapping_texts(figure) == []
    plt.close(figure)


def legend_crosses_a_line(figure) -> list[str]:
    """The drawn lines (by label) that pass through the box of the figure's legend."""
    figure.canvas.draw()
    box = figure.legends[0].get_window_extent()
    crossing = []
    for ax in figure.axes:
        for line in ax.get_lines():
            points = ax.transData.transform(line.get_xydata())
            points = points[np.isfinite(points).all(axis=1)]
            steps = np.linspace(0, 1, 25)[:, None, None]  # 25 points along every segment, not its ends only
            along = (points[:-1] + steps * (points[1:] - points[:-1])).reshape(-1, 2) if len(points) > 1 else points
            if box.count_contains(along):
                crossing.append(line.get_label())
    return crossing


def test_the_legend_check_sees_a_legend_over_a_line() -> None:
    figure, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="diagonal")  # two points, both outside the legend: the segment crosses it
    figure.legend(loc="center")
    assert legend_crosses_a_line(figure) == ["diagonal"]
    plt.close(figure)


def test_collections_of_one_kind_differ_in_colour_line_style_and_marker(study: spread.SpreadStudy) -> None:
    styles = figures.styles(study)
    ir, rated = [styles["cranfield"], styles["trec8-adhoc"]], [styles["ml-100k"], styles["lastfm-2k"]]
    for pair in (ir, rated):
        for key in ("color", "ls", "marker"):
            assert pair[0][key] != pair[1][key], key
    blues, warm = set(KIND_COLOURS["IR"]), set(KIND_COLOURS["recommendation"])
    assert {s["color"] for s in ir} <= blues and {s["color"] for s in rated} <= warm and not blues & warm


def test_a_simulated_truth_is_dashed_in_the_colour_of_its_world() -> None:
    styles = collection_styles({"simulation": ["world", "world (true relevance)"]}, "world", " (true relevance)")
    assert styles["world (true relevance)"]["color"] == styles["world"]["color"]
    assert styles["world (true relevance)"]["ls"] == "--" and styles["world"]["label"] == "world (this page)"


def test_the_threshold_figure_marks_each_datasets_own_threshold(study: spread.SpreadStudy) -> None:
    figure = figures.threshold_figure(study)
    reach, gini = figure.axes
    assert reach.get_ylabel() == "reach$_1$, users who like the top item"
    assert gini.get_ylabel() == "Gini coefficient $G$ of likes"
    assert gini.get_xlabel() == "share of ratings counted as positive (looser threshold to the right)"
    assert len(reach.get_lines()) == 2 and len(reach.collections) == 2  # a line and a star per rating dataset
    stars = reach.collections[0].get_offsets()
    own = study.sweeps[(study.sweeps["collection"] == "ml-100k") & study.sweeps["default"]]
    assert stars.tolist() == [[own["positive share of ratings"].item(), own["top reach"].item()]]
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["ml-100k (this page)", "lastfm-2k"]
    assert legend_crosses_a_line(figure) == []
    assert overlapping_texts(figure) == []
    plt.close(figure)


def test_the_overlap_check_sees_texts_on_top_of_one_another() -> None:
    figure, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("a long title over the axes", loc="left")
    ax.annotate("a caption in the same place", xy=(0.0, 1.0), xycoords="axes fraction", xytext=(0, 6),
                textcoords="offset points")
    assert overlapping_texts(figure) == [("a caption in the same place", "a long title over the axes")]
    plt.close(figure)


def lines_by_label(ax) -> dict[str, object]:
    return {line.get_label(): line for line in ax.get_lines()}


def test_the_spread_figure_plots_each_collections_own_curve(study: spread.SpreadStudy) -> None:
    """Top: F(k) against k/m; bottom: the reach against the rank (cut at MAX_RANK); each collection its own."""
    style = figures.styles(study)
    figure = figures.spread_figure(study)
    top, bottom = (lines_by_label(ax) for ax in figure.axes)
    curves = dict(tuple(study.curves.groupby("collection", sort=False)))
    assert len(curves) == 4 and len({tuple(c["cumulative_share"].round(6)) for c in curves.values()}) == 4
    for name, curve in curves.items():
        label = style[name]["label"]
        np.testing.assert_array_equal(top[label].get_xdata(), curve["rank_share"])
        np.testing.assert_array_equal(top[label].get_ydata(), curve["cumulative_share"])
        rank = curve["rank"].to_numpy(dtype=float)
        np.testing.assert_array_equal(bottom[label].get_xdata(), np.where(rank <= figures.MAX_RANK, rank, np.nan))
        np.testing.assert_array_equal(bottom[label].get_ydata(), curve["reach"])
    np.testing.assert_array_equal(top["equal spread"].get_xydata(), [[0, 0], [1, 1]])
    plt.close(figure)


def test_the_threshold_figure_plots_reach_and_gini_of_each_dataset_at_every_threshold(
        study: spread.SpreadStudy) -> None:
    """Each dataset's line runs through its sweep, reach on top and Gini below, and its star sits at its default."""
    style = figures.styles(study)
    figure = figures.threshold_figure(study)
    sweeps = dict(tuple(study.sweeps.groupby("collection", sort=False)))
    assert list(sweeps) == ["ml-100k", "lastfm-2k"]
    assert not np.allclose(sweeps["ml-100k"]["top reach"], sweeps["ml-100k"]["gini"])
    for ax, column in zip(figure.axes, ("top reach", "gini"), strict=True):
        lines = lines_by_label(ax)
        for (name, sweep), stars in zip(sweeps.items(), ax.collections, strict=True):
            line = lines[style[name]["label"]]
            np.testing.assert_array_equal(line.get_xdata(), sweep["positive share of ratings"])
            np.testing.assert_array_equal(line.get_ydata(), sweep[column])
            own = sweep[sweep["default"]]
            assert len(own) == 1
            np.testing.assert_array_equal(stars.get_offsets(), own[["positive share of ratings", column]].to_numpy())
    plt.close(figure)

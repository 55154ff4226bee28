"""Chapter 7's figures on tiny inputs: their panels, titles and labels, and no two texts on top of each other."""

from __future__ import annotations

from functools import partial

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from figure_text import drawn_texts, figure_theme, overlapping_texts  # noqa: E402, F401

import c07_examples as examples  # noqa: E402
from recbias.bookkit.plotting import dataset_caption, palette  # noqa: E402
from recbias.chapters.c07_discounted_auc import figures, study  # noqa: E402

pytestmark = pytest.mark.usefixtures("figure_theme")

STAMP = partial(dataset_caption, dataset="toy")
SETTING = study.Setting(Q=0.3, m=10, z=100, base=3.0)
COLOURS = palette(list(examples.SYSTEMS) + ["user-kNN"])


def words(figure: plt.Figure) -> set[str]:
    return {t.get_text() for t in drawn_texts(figure)}


def data_lines(ax: plt.Axes) -> list:
    """The lines of ``ax`` that draw data (not the vertical or horizontal marks of two points)."""
    return [line for line in ax.get_lines() if len(line.get_xdata()) > 2]


def test_the_attention_figure():
    curves = study.attention_curves([0.05, 0.3, 0.9], 10, 40)
    figure = figures.attention_figure(curves, 10, STAMP)
    left, right = figure.axes[:2]
    for line_w, line_d, (_, curve) in zip(data_lines(left), data_lines(right), curves.groupby("Q"), strict=True):
        np.testing.assert_allclose(line_w.get_ydata(), curve["w"])  # who stops where, on the left
        np.testing.assert_allclose(line_d.get_ydata(), curve["d"])  # the discount, on the right
        np.testing.assert_allclose(line_w.get_xdata(), curve["N"])
    assert left.get_xlabel() == "items read, $N$" and right.get_yscale() == "log"
    assert {"$Q$ = 0.05 ($p$ = 0.741)", "$Q$ = 0.9 ($p$ = 0.990)", "dataset: toy"} <= words(figure)
    assert overlapping_texts(figure) == []


def test_the_discount_figure():
    discounts = study.discount_curves(SETTING, 40)
    figure = figures.discount_figure(discounts, STAMP)
    ax = figure.axes[0]
    for line, (_, curve) in zip(ax.get_lines(), discounts.groupby("discount", sort=False), strict=True):
        np.testing.assert_allclose(line.get_ydata(), curve["weight"])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(figures.DISCOUNT_LABELS.values())
    assert ax.get_ylabel() == "weight relative to rank 1"
    assert overlapping_texts(figure) == []


def test_the_q_figure_leaves_random_out_of_the_relative_panel():
    sweep = pd.DataFrame({Q: [0.3 - 0.1 * Q, 0.2 + 0.1 * Q, 0.25, 0.22, 0.01] for Q in (0.0, 0.3, 1.0)},
                         index=list(examples.SYSTEMS))
    figure = figures.q_figure(sweep, COLOURS, STAMP)
    left, right = figure.axes[:2]
    assert len(left.get_lines()) == 5 and len(right.get_lines()) == 4
    for line, system in zip(left.get_lines(), sweep.index, strict=True):
        np.testing.assert_allclose(line.get_ydata(), sweep.loc[system])
    for line, system in zip(right.get_lines(), ["Popularity", "pLSA", "MF", "user-kNN"], strict=True):
        np.testing.assert_allclose(line.get_ydata(), sweep.loc[system] / sweep.max(axis=0))  # relative to the best
    assert right.get_ylabel() == "relative to the best system" and left.get_yscale() == "log"
    assert set(examples.SYSTEMS) <= words(figure)
    assert overlapping_texts(figure) == []


def test_the_search_figure():
    search = examples.search()
    figure = figures.search_figure(search, 2000, STAMP)
    top, bottom = figure.axes
    stepped = search.curve[search.curve["s"] > 0]
    (increase,) = data_lines(top)
    np.testing.assert_allclose(increase.get_ydata(), stepped["relative increase"])  # Eq. 14, without s = 0
    mean = next(line for line in bottom.get_lines() if line.get_label() == "mean over segmentations")
    np.testing.assert_allclose(mean.get_ydata(), stepped["sensitivity"])
    plain = next(line for line in bottom.get_lines() if line.get_label() == "no step ($s$ = 0)")
    np.testing.assert_allclose(plain.get_ydata(), [1.5, 1.5])  # the sensitivity without a step
    gender = search.cells[(search.cells["segmentation"] == "gender") & (search.cells["s"] > 0)]
    np.testing.assert_allclose(bottom.get_lines()[0].get_ydata(), gender["z"])
    assert bottom.get_xlabel() == "step position $s$ (of 2,000 items)" and top.get_yscale() == "log"
    assert {"chosen $s$ = 20", "mean over segmentations", "no step ($s$ = 0)"} <= words(figure)
    assert len(bottom.get_lines()) >= 2 + 1  # two segmentations, their mean, and the marks of s
    assert overlapping_texts(figure) == []


def test_the_instability_figure():
    search = examples.search()
    figure = figures.instability_figure(search, STAMP)
    assert [ax.get_title(loc="left") for ax in figure.axes] == ["no step", "step at $s$ = 20"]
    for ax, s in zip(figure.axes, (0, 20), strict=True):
        cells = search.cells[search.cells["s"] == s]
        points = ax.containers[0]  # the errorbar: its points, then its horizontal bars
        np.testing.assert_allclose(np.asarray(points.lines[0].get_xdata(), dtype=float), cells["relative increase"])
        ends = np.array([segment[:, 0] for segment in points.lines[2][0].get_segments()])
        np.testing.assert_allclose(ends, cells[["low", "high"]].to_numpy())  # the 95% interval of each
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["gender", "age"]
    assert overlapping_texts(figure) == []


@pytest.mark.parametrize("step, attributes, titles, lines", [
    (40, ("gender", "age"), ["no step", "step at $s$ = 40"], {"the global list", "the list for gender and age"}),
    (0, (), ["no step"], {"the global list"}),
])
def test_the_new_user_figure(step, attributes, titles, lines):
    figure = figures.new_user_figure(examples.new_user_study(step=step, attributes=attributes), COLOURS, STAMP)
    panels = [ax for ax in figure.axes if ax.get_title(loc="left")]
    assert [ax.get_title(loc="left") for ax in panels] == titles
    labels = {t.get_text() for t in figure.legends[0].get_texts()}
    assert labels == lines | {"MF from $k$ ratings"}
    newcomers = examples.new_user_study(step=step, attributes=attributes)
    for ax, metric in zip(panels, newcomers.metrics, strict=True):
        curve = newcomers.curves[newcomers.curves["metric"] == metric]
        (system,) = data_lines(ax)
        np.testing.assert_allclose(system.get_xdata(), curve["k"])
        np.testing.assert_allclose(system.get_ydata(), curve["value"])
        flat = [line.get_ydata()[0] for line in ax.get_lines() if line is not system]
        np.testing.assert_allclose(flat, newcomers.lines[newcomers.lines["metric"] == metric]["value"])
    assert panels[0].get_xlabel() == "known ratings, $k$"
    assert overlapping_texts(figure) == []


@pytest.mark.parametrize("draw", [
    lambda: figures.search_figure(None, 100, STAMP),
    lambda: figures.instability_figure(None, STAMP),
    lambda: figures.new_user_figure(None, COLOURS, STAMP),
    lambda: figures.placeholder_figure(STAMP),
])
def test_a_part_the_dataset_lacks_is_a_placeholder(draw):
    figure = draw()
    assert words(figure) == {figures.PLACEHOLDER, "dataset: toy"}
    assert overlapping_texts(figure) == []


def test_the_overlap_check_sees_texts_on_top_of_each_other():
    figure, ax = plt.subplots()
    ax.text(0.5, 0.5, "one label")
    ax.text(0.52, 0.5, "another label")
    with pytest.raises(AssertionError):
        assert overlapping_texts(figure) == []

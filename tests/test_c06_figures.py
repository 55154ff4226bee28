"""Chapter 6's figures render on tiny inputs, with their titles and labels; no two pieces of text
(titles, labels, ticks, legends, the dataset stamp of the page) overlap, and no legend hides a drawn line."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot
import numpy as np
import pytest
from figure_text import figure_theme, overlapping_texts  # noqa: F401
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox

from recbias import sampled
from recbias.bookkit.plotting import dataset_caption
from recbias.chapters.c06_sampled_metrics import claims, figures
from recbias.chapters.c06_sampled_metrics.study import sweep as sw
from recbias.chapters.c06_sampled_metrics.study import toy as st

pytestmark = pytest.mark.usefixtures("figure_theme")

matplotlib.use("Agg")

LABELS = {"X": "X (iALS)", "Y": "Y (item-kNN)", "Z": "Z (item-kNN)"}
COLOURS = {"X (iALS)": "#1f77b4", "Y (item-kNN)": "#ff7f0e", "Z (item-kNN)": "#2ca02c"}


def segments_cross_box(points: np.ndarray, box: Bbox, pad: float) -> bool:
    """Whether the polyline through ``points`` (display coordinates) enters ``box`` grown by ``pad`` pixels
    (Liang-Barsky clipping of every segment; a lone point is a segment of length zero)."""
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) == 0:
        return False
    start, end = (points[:-1], points[1:]) if len(points) > 1 else (points, points)
    delta = end - start
    low, high = np.zeros(len(start)), np.ones(len(start))
    inside = np.ones(len(start), dtype=bool)
    for axis, lo, hi in ((0, box.x0 - pad, box.x1 + pad), (1, box.y0 - pad, box.y1 + pad)):
        for p, q in ((-delta[:, axis], start[:, axis] - lo), (delta[:, axis], hi - start[:, axis])):
            parallel = p == 0
            inside &= ~(parallel & (q < 0))
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(parallel, np.nan, q / p)
            low = np.where(~parallel & (p < 0), np.maximum(low, t), low)
            high = np.where(~parallel & (p > 0), np.minimum(high, t), high)
    return bool(np.any(inside & (low <= high)))


def legends_over_lines(fig) -> list[tuple[str, str]]:
    """(legend entry, line label) for every legend of ``fig`` whose box crosses a line or outline drawn in an
    axes, within the axes' clip box (where the line is visible), allowing for half the line's width."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    found = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            visible = Bbox.intersection(box, ax.bbox)
            if visible is None:
                continue
            for artist in [*ax.lines, *ax.patches]:
                if isinstance(artist, Line2D):
                    points = artist.get_transform().transform(artist.get_xydata())
                    width = artist.get_linewidth() + (artist.get_markersize() if artist.get_marker() not in
                                                      (None, "None", "", " ") else 0)
                else:
                    points = artist.get_transform().transform(artist.get_path().vertices)
                    width = artist.get_linewidth()
                if segments_cross_box(points, visible, width * fig.dpi / 72 / 2):
                    found.append((legend.get_texts()[0].get_text(), str(artist.get_label())))
    return found


def test_the_legend_test_sees_a_line_under_a_legend_and_none_beside_it() -> None:
    fig, ax = matplotlib.pyplot.subplots()
    ax.plot([0, 1], [1, 0], label="falling")  # the diagonal crosses the centre of the axes
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="center")
    assert legends_over_lines(fig) == [("falling", "falling")]
    ax.legend(loc="upper right")
    assert legends_over_lines(fig) == []
    # a segment that passes through the box without a vertex inside it is found too
    box = Bbox.from_extents(10, 10, 20, 20)
    assert segments_cross_box(np.array([[0.0, 15.0], [30.0, 15.0]]), box, 0)
    assert not segments_cross_box(np.array([[0.0, 25.0], [30.0, 25.0]]), box, 0)
    assert segments_cross_box(np.array([[0.0, 25.0], [30.0, 25.0]]), box, 6)  # a thick line reaches it
    assert segments_cross_box(np.array([[15.0, 15.0]]), box, 0) and not segments_cross_box(np.array([[5.0, 5.0]]), box, 0)
    matplotlib.pyplot.close(fig)


def titles(fig) -> list[str]:
    return [ax.get_title(loc="left") for ax in fig.axes]


def fake_study(targets: int = 60) -> SimpleNamespace:
    rng = np.random.default_rng(0)
    sizes = rng.integers(200, 400, targets)
    ranks = np.column_stack([rng.integers(1, sizes + 1) for _ in range(3)])
    return SimpleNamespace(names=("X", "Y", "Z"), labels=LABELS, sizes=sizes, ranks=ranks,
                           exact={"Recall@10": np.array([0.05, 0.08, 0.1])})


def test_metric_shapes() -> None:
    fig = figures.metric_shapes()
    dataset_caption(fig.axes[-1], claims.TOY_DATASET)
    assert titles(fig) == ["all 10,000 ranks", "top 100 ranks"]
    assert fig.axes[0].get_xlabel() == "rank $r$ of the relevant item"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(st.TOY_METRICS)
    # each metric's line is its function of the rank: all ranks on the left, the top 100 on the right
    for k, metric in enumerate(st.TOY_METRICS):
        np.testing.assert_allclose(fig.axes[0].lines[k].get_ydata(), sampled.metric_vector(metric, st.TOY_N))
        np.testing.assert_allclose(fig.axes[1].lines[k].get_ydata(), sampled.metric_vector(metric, st.TOY_N)[:100])
    assert overlapping_texts(fig) == []
    assert legends_over_lines(fig) == []


def test_toy_m_curves() -> None:
    toy = st.toy_study(20, seed=0)
    curves = st.toy_m_curves(points=6)
    fig = figures.toy_m_curves(curves, toy)
    dataset_caption(fig.axes[-1], claims.TOY_DATASET)
    assert titles(fig) == list(st.TOY_METRICS)
    assert {ax.get_xscale() for ax in fig.axes} == {"log"}
    # a solid curve and a dotted exact line per recommender
    assert len(fig.axes[0].lines) == 2 * len(st.TOY_RANKS)
    assert fig.axes[0].lines[1].get_ydata()[0] == toy.exact.loc["A", "AUC"]
    # the solid curve of C on AP is C's expected sampled AP over the grid of sample sizes
    ap_c = curves[(curves["metric"] == "AP") & (curves["recommender"] == "C")]
    np.testing.assert_allclose(fig.axes[1].lines[4].get_xdata(), ap_c["m"])
    np.testing.assert_allclose(fig.axes[1].lines[4].get_ydata(), ap_c["expected"])
    assert overlapping_texts(fig) == []
    assert legends_over_lines(fig) == []


def test_toy_shapes() -> None:
    curves = st.toy_shape_curves(ms=(1, 10), top=50)
    fig = figures.toy_shapes(curves)
    dataset_caption(fig.axes[-1], claims.TOY_DATASET)
    assert titles(fig) == list(st.TOY_METRICS)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["exact", "$m = 1$", "$m = 10$"]
    # on the nDCG panel: the exact metric, then the expectation for m = 1 and m = 10, over the top 50 ranks
    for line, m in zip(fig.axes[2].lines, (0, 1, 10), strict=True):
        np.testing.assert_allclose(line.get_ydata(), curves[(curves["metric"] == "nDCG") & (curves["m"] == m)]["value"])
    assert overlapping_texts(fig) == []
    assert legends_over_lines(fig) == []


def test_corrections() -> None:
    shown = ("sampled", "rank estimate", "CLS", "BV 1", "BV 0.1", "BV 0.01", "BV 0.001")
    tables = {(method, "AP"): np.linspace(0.1 + k / 100, 0, st.FIG4_M + 1)[None, :] for k, method in enumerate(shown)}
    moments = {method: SimpleNamespace(mean=np.linspace(1 - k / 10, 0, st.TOY_N)) for k, method in enumerate(shown)}
    fig = figures.corrections(st.ToyCorrections(tables, moments))
    dataset_caption(fig.axes[-1], claims.TOY_DATASET)
    assert titles(fig) == [f"a) vectors, $m = {st.FIG4_M}$", "b) expectation"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend[-2:] == ["uncorrected", "exact AP"] and "BV 0.1" in legend
    # CLS is the second vector drawn (after the rank estimate): its vector on the left, its expectation on the right
    np.testing.assert_allclose(fig.axes[0].lines[1].get_ydata(), tables[("CLS", "AP")][0])
    np.testing.assert_allclose(fig.axes[1].lines[1].get_ydata(), moments["CLS"].mean)
    np.testing.assert_allclose(fig.axes[1].lines[-2].get_ydata(), moments["sampled"].mean)  # uncorrected, dashed
    np.testing.assert_allclose(fig.axes[1].lines[-1].get_ydata(), sampled.metric_vector("AP", st.TOY_N))
    assert overlapping_texts(fig) == []
    assert legends_over_lines(fig) == []


def test_rank_histogram() -> None:
    study = fake_study()
    fig = figures.rank_histogram(study, COLOURS)
    dataset_caption(fig.axes[-1], "synthetic")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "users per bin"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(LABELS.values())
    assert fig.legends[0].get_title().get_text() == figures.KR_SYSTEMS
    # each step outline rises to the number of users whose exact rank falls in each log bin
    bins = np.geomspace(1, study.sizes.max() + 1, 31)
    for k, patch in enumerate(ax.patches):
        np.testing.assert_array_equal(patch.get_xy()[1:-1:2, 1], np.histogram(study.ranks[:, k], bins=bins)[0])
    assert overlapping_texts(fig) == []
    assert legends_over_lines(fig) == []


def test_m_sweep() -> None:
    study = fake_study()
    # a corrected grid of less than a decade, where default log ticks label crowded minor ticks
    sweep = sw.MSweep(np.array([1, 10, 100]), np.array([[1, 1, 1], [0.5, 0.6, 0.7], [0.1, 0.2, 0.3]]),
                      np.array([2, 5, 8]), np.array([[0.05, 0.07, 0.1]] * 3), 199, 0.1)
    fig = figures.m_sweep(study, sweep, COLOURS)
    dataset_caption(fig.axes[-1], "synthetic")
    assert titles(fig) == ["uncorrected", "BV 0.1"]
    assert fig.axes[0].get_ylabel() == r"$\mathbb{E}[\mathrm{Recall@10}]$ (%)"
    # the uncorrected curve of X in percent, then the exact value of X dotted on both panels
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), [100, 50, 10])
    assert fig.axes[1].lines[1].get_ydata()[0] == pytest.approx(5.0)
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), [5, 5, 5])  # BV 0.1 of X over its grid
    np.testing.assert_allclose(fig.axes[1].lines[2].get_ydata(), [7, 7, 7])  # and of Y
    assert overlapping_texts(fig) == []
    assert legends_over_lines(fig) == []
    assert [tick.label1.get_text() for tick in fig.axes[1].xaxis._update_ticks()
            if tick.label1.get_text()] == ["2", "5"]

"""Chapter 8's figures drawn on tiny inputs: labels, one row per protocol, and no text drawn over another."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from functools import partial

import numpy as np
import pandas as pd
import pytest
from figure_text import figure_theme, overlapping_texts, texts  # noqa: F401

from recbias.bookkit.plotting import dataset_caption
from recbias.chapters.c08_protocol_fidelity import figures, report, study

pytestmark = pytest.mark.usefixtures("figure_theme")


def fidelity_table(labels: list[str]) -> pd.DataFrame:
    tau = np.linspace(0.9, 0.1, len(labels))
    return pd.DataFrame({"protocol": labels, "tau": tau, "tau_low": tau - 0.1, "tau_high": tau + 0.05})


@pytest.mark.parametrize("count", [3, 18])
def test_the_fidelity_figure_has_a_row_per_protocol_and_a_legend_per_kind(count) -> None:
    labels = [p.label for p in study.protocols(1000)][:count]
    main = fidelity_table(labels)
    fig = figures.fidelity_figure(main, labels[:2], partial(dataset_caption, dataset="world"))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == labels
    assert ax.get_xlabel() == r"Kendall's $\tau_b$ with the true order"
    kinds = list(dict.fromkeys(study.families()[p] for p in labels))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == kinds
    assert "dataset: world" in texts(fig)
    points = [line for line in ax.get_lines() if line.get_marker() == "o"]
    bars = [line for line in ax.get_lines() if line.get_marker() != "o"]
    np.testing.assert_allclose([line.get_xdata()[0] for line in points], main["tau"])
    np.testing.assert_allclose([line.get_ydata()[0] for line in points], range(count))
    np.testing.assert_allclose([line.get_xdata() for line in bars], main[["tau_low", "tau_high"]].to_numpy())
    filled = [line.get_markerfacecolor() for line in points]
    assert sum(colour != "white" for colour in filled) == 2  # the two protocols not clearly behind
    assert overlapping_texts(fig) == []


def test_every_kind_of_protocol_has_a_colour() -> None:
    assert set(study.families().values()) == set(figures.FAMILY_COLOURS)


@pytest.mark.parametrize(("alphas", "selections"), [((0.5,), (0.0, 2.0)), ((0.5, 1.0, 1.4), (0.0, 1.0, 2.5))])
def test_the_grid_figure_annotates_every_cell(alphas, selections) -> None:
    labels = [p.label for p in study.protocols(1000)]
    grid = pd.DataFrame([{"protocol": p, "alpha": a, "selection": s, "tau": 0.5 + 0.01 * k + 0.1 * a - 0.05 * s}
                         for k, p in enumerate(labels) for a in alphas for s in selections])
    cells = report.grid_table(study.grid_cells(grid, labels))
    fig = figures.grid_figure(cells, partial(dataset_caption, dataset="simulation grid"))
    ax = fig.axes[0]
    assert ax.get_xlabel() == r"popularity skew $\alpha$ and strength of observation bias"
    assert [t.get_text() for t in ax.get_yticklabels()] == labels
    assert len(ax.texts) == len(labels) * len(alphas) * len(selections) + 1  # the annotations and the stamp
    annotated = [t.get_text() for t in ax.texts if t.get_text() != "dataset: simulation grid"]
    assert annotated == [f"{v:.2f}" for v in cells.to_numpy().ravel()]  # row by row, the tau of each cell
    assert fig.axes[1].get_ylabel() == r"Kendall's $\tau_b$"
    upright = len(cells.columns) <= figures.UPRIGHT_CELLS
    assert {t.get_rotation() for t in ax.get_xticklabels()} == ({0.0} if upright else {90.0})
    assert overlapping_texts(fig) == []

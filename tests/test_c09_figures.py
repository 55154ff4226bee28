"""Chapter 9's figures draw one panel per protocol with every system's mean and interval, and a τ cell per pair of
protocols; with the audit's own protocol labels and up to eight systems, no two texts overlap, none is cut at the
edge of the figure, and neither figure is wider than the theme's, so the page does not shrink their text."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from figure_text import figure_theme, fits_the_column, overlapping_texts, texts_outside  # noqa: F401
from recbias.chapters.c09_audit import figures
from recbias.chapters.c09_audit.study.protocols import audit_protocols

#: the audit's protocols on a catalogue of ML-100K's size, and the references with up to six audited systems
PROTOCOLS = [p.label for p in audit_protocols(1682)]
SYSTEMS = ["Random", "Popularity", "implicit MF (top-N)", "item-kNN", "user-kNN (top-N)", "pLSA", "rating-MF",
           "rating-kNN"]


def test_one_visible_panel_per_protocol_with_the_means_and_intervals_of_the_summary() -> None:
    summary = pd.DataFrame({"protocol": ["X", "X", "Y", "Y", "Z", "Z"], "system": ["A", "B"] * 3,
                            "mean": [0.2, 0.1, 0.3, 0.4, 0.1, 0.15], "ci_low": [0.1, 0.05, 0.2, 0.3, 0.0, 0.05],
                            "ci_high": [0.3, 0.15, 0.4, 0.5, 0.2, 0.3]})
    figure = figures.scores_figure(summary, "toy")
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["X", "Y", "Z"]
    for ax, (protocol, rows) in zip(visible, summary.groupby("protocol", sort=False), strict=True):
        points = ax.collections[-1].get_offsets()  # the scatter of the means, drawn last
        np.testing.assert_allclose(points[:, 0], rows["mean"])
        np.testing.assert_allclose(points[:, 1], [0, 1])
        bars = ax.collections[0].get_segments()  # the intervals: one horizontal segment a system
        np.testing.assert_allclose([segment[:, 0] for segment in bars], rows[["ci_low", "ci_high"]].to_numpy())
        assert ax.get_ylim()[0] > ax.get_ylim()[1]  # the first system on top


@pytest.mark.parametrize("systems", [4, 8])
def test_the_score_panels_of_the_audit_read_at_the_width_of_the_page(figure_theme, systems) -> None:
    means = np.random.default_rng(0).uniform(0.001, 0.4, (len(PROTOCOLS), systems))
    summary = pd.DataFrame([{"protocol": p, "system": s, "mean": m, "ci_low": 0.9 * m, "ci_high": 1.1 * m}
                            for p, row in zip(PROTOCOLS, means, strict=True)
                            for s, m in zip(SYSTEMS[:systems], row, strict=True)])
    figure = figures.scores_figure(summary, "ml-100k")
    assert overlapping_texts(figure) == [] and texts_outside(figure) == [] and fits_the_column(figure)


def test_the_tau_map_annotates_every_pair_of_protocols_once() -> None:
    tau = pd.DataFrame([[1.0, -0.5, 0.2], [-0.5, 1.0, 0.7], [0.2, 0.7, 1.0]], index=["X", "Y", "Z"],
                       columns=["X", "Y", "Z"])
    heat = figures.tau_figure(tau, "toy")
    annotations = [t.get_text() for t in heat.axes[0].texts if t.get_text() != "dataset: toy"]
    assert annotations == ["-0.50", "0.20", "0.70"]  # Y-X, Z-X, Z-Y: the triangle below the diagonal
    assert [t.get_text() for t in heat.axes[0].get_yticklabels()] == ["Y", "Z"]
    assert [t.get_text() for t in heat.axes[0].get_xticklabels()] == ["X", "Y"]


def test_the_tau_map_of_the_audit_reads_at_the_width_of_the_page(figure_theme) -> None:
    values = np.random.default_rng(1).uniform(-1, 1, (len(PROTOCOLS), len(PROTOCOLS)))
    tau = pd.DataFrame((values + values.T) / 2, index=PROTOCOLS, columns=PROTOCOLS)
    figure = figures.tau_figure(tau, "ml-100k")
    assert overlapping_texts(figure) == [] and texts_outside(figure) == [] and fits_the_column(figure)


def test_with_few_systems_the_map_counts_the_pairs_ordered_alike() -> None:
    alike = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["X", "Y"], columns=["X", "Y"])
    heat = figures.tau_figure(alike, "toy", alike=True)
    assert [t.get_text() for t in heat.axes[0].texts if t.get_text() != "dataset: toy"] == ["50%"]
    assert heat.axes[1].get_ylabel() == "pairs ordered alike"

"""Chapter 9's figures draw one panel per protocol with every system's mean and interval, and a τ cell per pair of
protocols."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd

from recbias.chapters.c09_audit import figures


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


def test_the_tau_map_annotates_every_pair_of_protocols() -> None:
    tau = pd.DataFrame([[1.0, -0.5], [-0.5, 1.0]], index=["X", "Y"], columns=["X", "Y"])
    heat = figures.tau_figure(tau, "toy")
    annotations = [t.get_text() for t in heat.axes[0].texts if t.get_text() != "dataset: toy"]
    assert annotations == ["1.00", "-0.50", "-0.50", "1.00"]
    assert [t.get_text() for t in heat.axes[0].get_yticklabels()] == ["X", "Y"]

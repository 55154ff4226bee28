"""Chapter 9's figures draw one panel per protocol and a τ cell per pair of protocols."""

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from recbias.chapters.c09_audit import figures


def test_one_visible_panel_per_protocol_and_a_square_tau_map() -> None:
    summary = pd.DataFrame({"protocol": ["X", "X", "Y", "Y", "Z", "Z"], "system": ["A", "B"] * 3,
                            "mean": [0.2, 0.1, 0.3, 0.4, 0.1, 0.1], "ci_low": [0.1, 0.05, 0.2, 0.3, 0.0, 0.0],
                            "ci_high": [0.3, 0.15, 0.4, 0.5, 0.2, 0.2]})
    figure = figures.scores_figure(summary, "toy")
    assert sum(ax.get_visible() for ax in figure.axes) == 3
    tau = pd.DataFrame([[1.0, -1.0], [-1.0, 1.0]], index=["X", "Y"], columns=["X", "Y"])
    heat = figures.tau_figure(tau, "toy")
    assert len(heat.axes[0].texts) >= 4

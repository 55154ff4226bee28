"""Chapter 9's study: the profile, the measurements and the readings, against hand-worked values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets, synthetic
from recbias.chapters.c09_audit.study import measure, profile, protocols, readings


@pytest.fixture(scope="module")
def measured():
    ratings = datasets.load("synthetic-small", seed=1)
    plan = protocols.audit_protocols(ratings.n_items)
    return ratings, plan, measure.measure(ratings, plan, protocols.REFERENCES | {"MF": "mf"}, seed=1)


def test_every_protocol_measures_every_system_with_intervals_around_the_mean(measured) -> None:
    ratings, plan, result = measured
    summary = result.summary()
    assert set(summary["protocol"]) == {p.label for p in plan if p.label in result.relevant_share.index}
    assert set(summary["system"]) == {"Random", "Popularity", "MF"}
    assert (summary["ci_low"] <= summary["mean"]).all() and (summary["mean"] <= summary["ci_high"]).all()
    assert result.means().shape == (len(result.relevant_share), 3)


def test_the_one_relevant_share_is_one_over_the_target_size(measured) -> None:
    ratings, plan, result = measured
    k = next(p for p in plan if p.label == "1R P@10").design.split("(")[1].rstrip(")")
    assert result.relevant_share["1R P@10"] == pytest.approx(1 / (int(k) + 1))


def test_mean_of_the_per_run_table_is_the_summary(measured) -> None:
    _, _, result = measured
    runs = result.experiment.runs
    part = runs[(runs["design"] == "AR P@10") & (runs["system"] == "MF")]
    row = result.summary().query("protocol == 'AR P@10' and system == 'MF'")
    assert row["mean"].iloc[0] == pytest.approx(part["value"].mean())


def test_the_profile_matches_hand_counts() -> None:
    ratings = datasets.load("synthetic-small", seed=1)
    row = profile.bias_profile(ratings)
    counts = np.bincount(ratings.items, minlength=ratings.n_items)
    assert row["density"] == pytest.approx(ratings.n_ratings / (ratings.n_users * ratings.n_items))
    top = np.sort(counts)[::-1][: ratings.n_items // 10].sum() / counts.sum()
    assert row["top-10% share"] == pytest.approx(top)
    assert row["fitted α"] > 0


def test_the_popularity_share_and_the_orders_on_a_hand_made_table() -> None:
    means = pd.DataFrame({"Random": [0.1, 0.1], "Popularity": [0.5, 0.2], "A": [0.9, 0.6], "B": [0.3, 0.7]},
                         index=["X", "Y"])
    share = readings.popularity_share(means)
    assert share.loc["X", "popularity index"] == pytest.approx(0.5)   # (0.5 - 0.1) / (0.9 - 0.1)
    assert share.loc["Y", "popularity index"] == pytest.approx(1 / 6)  # (0.2 - 0.1) / (0.7 - 0.1)
    assert share.loc["X", "B / Popularity"] == pytest.approx(0.6)
    tau = readings.tau_matrix(means)
    # X: A > Pop > B > Rnd; Y: B > A > Pop > Rnd -> pairs (A,B), (Pop,B) reversed of 6: tau = (4 - 2) / 6
    assert tau.loc["X", "Y"] == pytest.approx(1 / 3)
    flips = readings.flipped_pairs(means)
    assert sorted(zip(flips["first"], flips["second"])) == [("A", "B"), ("Popularity", "B")]


def test_the_profile_compares_with_real_datasets_only() -> None:
    others = profile.real_datasets(besides="ml-100k")
    assert "ml-100k" not in others and not set(others) & set(synthetic.PRESETS)
    assert all(datasets.available(name) for name in others)

"""Fidelity of an order of systems to a truth, with paired resamples of users (recbias.evaluate.fidelity)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from recbias.evaluate import fidelity


def test_a_protocol_equal_to_the_truth_has_full_fidelity_and_a_reversed_one_none():
    rng = np.random.default_rng(0)
    users = pd.Index(np.arange(300), name="user")
    true = pd.DataFrame(rng.normal(0, 0.05, (300, 4)) + [0.4, 0.3, 0.2, 0.1], index=users, columns=list("abcd"))
    study = fidelity.TruthStudy(
        protocols={"same": true.copy(), "reversed": -true},
        truth={"P@10": true},
        systems=list("abcd"),
        dataset="toy",
        seed=0,
    )
    table = fidelity.fidelity(study, n_boot=50).set_index("protocol")
    assert table.loc["same", ["tau", "tau_low", "tau_high", "pairs", "best", "best_share"]].tolist() == [1, 1, 1, 1, 1, 1]
    assert table.loc["reversed", "tau"] == -1 and table.loc["reversed", "best_share"] == 0
    assert table.loc["same", "behind_best"] == 0 and table.loc["reversed", "behind_best"] == 1


def test_paired_resamples_say_how_often_one_protocol_beats_another():
    rng = np.random.default_rng(1)
    users = pd.Index(np.arange(200), name="user")
    true = pd.DataFrame(rng.normal(0, 0.05, (200, 5)) + [0.5, 0.4, 0.3, 0.2, 0.1], index=users, columns=list("abcde"))
    noisy = true + rng.normal(0, 0.3, true.shape)
    study = fidelity.TruthStudy(protocols={"exact": true.copy(), "noisy": noisy, "reversed": -true},
                                truth={"P@10": true}, systems=list("abcde"), dataset="toy", seed=0)
    over = fidelity.fidelity_over_seeds([study, dataclasses.replace(study, split=1)], n_boot=40).set_index("protocol")
    assert over.loc["exact", "behind_best"] == 0 and over.loc["reversed", "behind_best"] == 1
    over = over.reset_index()
    assert fidelity.higher_share(over, "exact", "reversed") == 1.0
    assert fidelity.higher_share(over, "reversed", "exact") == 0.0
    assert len(over.set_index("protocol").loc["noisy", "tau_draws"]) == 80  # both splits' resamples
    assert 0 < fidelity.higher_share(over, "exact", "noisy") <= 1

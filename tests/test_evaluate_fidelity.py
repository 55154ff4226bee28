"""Fidelity of an order of systems to a truth, with paired resamples of users (recbias.evaluate.fidelity)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

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


def test_a_protocol_with_its_own_truth_is_set_against_it_on_the_same_resamples():
    """A protocol that scored other fits of the systems (fitted on another split) is compared with the truth of
    those fits: exact against its own truth, reversed against the study's; the resamples stay paired."""
    rng = np.random.default_rng(2)
    users = pd.Index(np.arange(150), name="user")
    true = pd.DataFrame(rng.normal(0, 0.05, (150, 4)) + [0.4, 0.3, 0.2, 0.1], index=users, columns=list("abcd"))
    other = true[list("dcba")].set_axis(list("abcd"), axis=1)  # the other fits order the systems the other way
    study = fidelity.TruthStudy(protocols={"on the study's fits": true.copy(), "on other fits": other.copy()},
                                truth={"P@10": true}, systems=list("abcd"), dataset="toy", seed=0,
                                truth_of={"on other fits": {"P@10": other}})
    table = fidelity.fidelity(study, n_boot=30).set_index("protocol")
    assert table.loc["on other fits", ["tau", "tau_low", "tau_high", "best_share"]].tolist() == [1, 1, 1, 1]
    shared = dataclasses.replace(study, truth_of={})
    assert fidelity.fidelity(shared, n_boot=30).set_index("protocol").loc["on other fits", "tau"] == -1
    # a study without own truths draws the same resamples as before: its own-truth protocol changes nothing else
    same = fidelity.fidelity(shared, n_boot=30).set_index("protocol").loc["on the study's fits", "tau_draws"]
    np.testing.assert_array_equal(table.loc["on the study's fits", "tau_draws"], same)


def test_the_paired_pvalue_of_two_protocols_reads_their_differences_on_the_same_resamples():
    table = pd.DataFrame({"protocol": ["a", "b", "c"],
                          "tau_draws": [np.array([0.9, 0.8, 0.7, 0.9]), np.array([0.5, 0.6, 0.5, 0.4]),
                                        np.array([0.8, 0.9, 0.6, 0.9])]})
    assert fidelity.paired_pvalue(table, "a", "b") == pytest.approx(2 * 1 / 5)  # a above b in all four
    # a - c: 0.1, -0.1, 0.1, 0.0: one below zero and one at zero, so 2 on the smaller side
    assert fidelity.paired_pvalue(table, "a", "c") == pytest.approx(min(1.0, 2 * 3 / 5))


def test_leaders_are_the_protocols_not_clearly_behind_the_most_faithful():
    main = pd.DataFrame({"protocol": list("abcd"), "tau": [0.9, 0.8, 0.5, 0.4]}).assign(
        tau_draws=[np.full(39, 0.9), np.r_[np.full(36, 0.8), np.full(3, 0.95)], np.r_[np.full(38, 0.5), 1.0],
                   np.full(39, 0.4)])
    # b is above a in 3 of 39 resamples: p = 2 (3 + 1) / 40 = 0.2; c in 1: p = 2 (1 + 1) / 40 = 0.1 -- both kept;
    # d never: p = 2 / 40 = 0.05, not below the level either
    assert fidelity.leaders(main, 0.05) == ["a", "b", "c", "d"]
    assert fidelity.leaders(main.assign(tau_draws=[np.full(79, 0.9)] + [np.full(79, 0.5)] * 3), 0.05) == ["a"]  # p = 0.025
    assert fidelity.leaders(main, level=0.15) == ["a", "b"]  # b's p = 0.2 stays, c's 0.1 and d's 0.05 do not

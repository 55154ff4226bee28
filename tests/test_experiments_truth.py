"""Chapter 8's driver: true quality against brute force, random-item runs, order agreement."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.evaluate import fidelity
from recbias.experiments import truth, truth_report
from recbias.ratings import Ratings
from recbias.recommenders import make


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


def test_random_item_runs_leave_out_training_pairs_and_judge_by_threshold():
    train = Ratings.from_codes(np.array([0, 1]), np.array([2, 0]), np.array([5.0, 3.0]), (2, 4), positive_threshold=4)
    unbiased = Ratings.from_codes(
        np.array([0, 0, 0, 1, 1]), np.array([2, 3, 1, 0, 3]), np.array([1.0, 4.0, 2.0, 5.0, 5.0]), (2, 4), positive_threshold=4
    )
    runs = truth.random_item_runs(train, unbiased)
    assert runs.users.tolist() == [0, 1]
    assert runs.items.tolist() == [1, 3, 3]  # (0, 2) and (1, 0) were rated in training
    assert runs.labels.tolist() == [False, True, True]
    assert runs.grades.tolist() == [0.0, 4.0, 5.0] and runs.judged.all()


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


def test_a_dataset_without_truth_is_refused_by_name_and_replaced_by_a_world_of_its_size(world):
    plain = dataclasses.replace(world, name="plain", true_relevance=None)
    with pytest.raises(ValueError, match="'plain' has no ground truth"):
        truth.truth_study(plain)
    stand_in = truth.world_with_truth(plain)
    assert stand_in.true_relevance is not None
    assert (stand_in.n_users, stand_in.n_items, stand_in.n_ratings) == (plain.n_users, plain.n_items, plain.n_ratings)
    assert truth_report.world_note(world, world) == ""
    assert "of the same size" in truth_report.world_note(plain, stand_in)


def test_a_catalogue_too_large_for_complete_matrices_is_cut_to_what_fits(world, monkeypatch):
    plain = dataclasses.replace(world, name="wide", true_relevance=None)
    fits = plain.n_users * (plain.n_items - 7)
    monkeypatch.setattr(truth, "MAX_PAIRS", fits)
    stand_in = truth.world_with_truth(plain)
    shape = (stand_in.n_users, stand_in.n_items, stand_in.n_ratings)
    assert shape == (plain.n_users, plain.n_items - 7, plain.n_ratings)
    note = truth_report.world_note(plain, stand_in)
    assert f"but {plain.n_items - 7:,} of its {plain.n_items:,} items" in note


def test_one_r_target_sets_fit_the_catalogue():
    assert {p.design for p in truth.protocols(3706) if p.label == "1R P@10"} == {"1R TI-NN(99)"}
    assert {p.design for p in truth.protocols(300) if p.label == "1R P@10"} == {"1R TI-NN(15)"}


def test_a_small_study_measures_every_protocol_for_every_system(world):
    systems = {"Random": make("random"), "Popularity": make("popularity"), "MF": make("mf")}
    study = truth.truth_study(world, systems=systems, cache=False)
    assert set(study.protocols) == {p.label for p in truth.protocols(world.n_items)}
    means = study.means()
    assert list(means.index) == ["Random", "Popularity", "MF"]
    assert means.notna().all().all()
    # on the truth, the personalised system beats random by a wide margin
    assert means.loc["MF", "truth: P@10"] > 2 * means.loc["Random", "truth: P@10"]


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

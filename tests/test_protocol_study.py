"""The core of the fidelity studies: the protocols, Coat's random-item truth, and every protocol measured
against the truth of the fits it scored (brute-force oracles for the truth)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias import protocol_study as study
from recbias.evaluate.fidelity import TruthStudy
from recbias.ratings import Ratings
from recbias.recommenders import make
from recbias.runs import Runs
from recbias.splits import fold_seed, make_folds


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


@pytest.fixture(scope="module")
def small(world):
    """Every protocol measured on the world for three systems."""
    systems = {"Random": make("random"), "Popularity": make("popularity"), "MF": make("mf")}
    return study.truth_study(world, systems=systems, cache=False)


# ---------------------------------------------------------------------------- truths


def test_random_item_runs_leave_out_training_pairs_and_judge_by_threshold():
    train = Ratings.from_codes(np.array([0, 1]), np.array([2, 0]), np.array([5.0, 3.0]), (2, 4), positive_threshold=4)
    unbiased = Ratings.from_codes(
        np.array([0, 0, 0, 1, 1]), np.array([2, 3, 1, 0, 3]), np.array([1.0, 4.0, 2.0, 5.0, 5.0]), (2, 4), positive_threshold=4
    )
    runs = study.random_item_runs(train, unbiased)
    assert runs.users.tolist() == [0, 1]
    assert runs.items.tolist() == [1, 3, 3]  # (0, 2) and (1, 0) were rated in training
    assert runs.labels.tolist() == [False, True, True]
    assert runs.grades.tolist() == [0.0, 4.0, 5.0] and runs.judged.all()


def test_random_item_values_leave_ndcg_undefined_for_users_without_a_relevant_item():
    runs = Runs.from_arrays(offsets=np.array([0, 2, 4]), users=np.array([0, 1]), items=np.array([0, 1, 0, 1]),
                            labels=np.array([False, False, True, False]), grades=np.array([0.0, 0.0, 5.0, 0.0]),
                            judged=np.ones(4, dtype=bool), design="random items")
    values = study.random_item_values(runs, {"good": np.array([0.0, 1.0, 1.0, 0.0]),
                                             "bad": np.array([1.0, 0.0, 0.0, 1.0])}, n=1)
    assert values["P@1"].loc[1].tolist() == [1.0, 0.0] and values["P@1"].loc[0].tolist() == [0.0, 0.0]
    assert values["nDCG@1"].loc[1].tolist() == [1.0, 0.0] and values["nDCG@1"].loc[0].isna().all()


def test_a_dataset_without_truth_is_refused_by_name(world):
    plain = dataclasses.replace(world, name="plain", true_relevance=None)
    with pytest.raises(ValueError, match="'plain' has no ground truth"):
        study.truth_study(plain)


def test_the_headline_truth_is_ndcg_at_5_on_random_items_and_the_first_truth_otherwise():
    frame = pd.DataFrame({"a": [0.1]})
    on_world = TruthStudy(protocols={}, truth={"P@10": frame, "nDCG@10": frame}, systems=["a"], dataset="w", seed=0)
    assert study.headline_truth(on_world) == "P@10"
    on_coat = dataclasses.replace(on_world, truth={"P@5": frame, "nDCG@5": frame})
    assert study.headline_truth(on_coat) == "nDCG@5"


# ------------------------------------------------------------------------- protocols


def test_one_r_target_sets_fit_the_catalogue():
    assert {p.design for p in study.protocols(3706) if p.label == "1R P@10"} == {"1R TI-NN(99)"}
    assert {p.design for p in study.protocols(300) if p.label == "1R P@10"} == {"1R TI-NN(15)"}
    assert {p.design for p in study.protocols(100) if p.label == "1R P@10"} == {"1R TI-NN(9)"}
    sampled = {p.label: p.design for p in study.protocols(300) if p.family == "sampled"}
    assert set(sampled.values()) == {"1R AI-NN(100)"}
    assert {p.metric for p in study.protocols(300) if p.label.endswith("short head off")} == {"bAUC@100(Q=0.3,m=10,s=6)"}


def test_every_protocol_has_a_kind_and_a_unique_label():
    labels = [p.label for p in study.protocols(1000)]
    assert len(set(labels)) == len(labels) == 18
    assert set(study.families()) == set(labels)
    assert {p.label for p in study.protocols(1000) if p.split == "uniform"} == {"U1R P@10", "UAR P@10", "AI-UAR P@10"}


def brute_force_precision(model, train: Ratings, truth: np.ndarray, n: int = 10) -> np.ndarray:
    """Each user's true P@n of ``model``: its n best items outside her training ratings (ties to the lower item
    code), one user at a time."""
    rated = train.matrix("binary").toarray().astype(bool)
    scores = model.score_users(np.arange(train.n_users))
    out = np.empty(train.n_users)
    for user in range(train.n_users):
        candidates = np.flatnonzero(~rated[user])
        order = candidates[np.argsort(-scores[user, candidates], kind="stable")][:n]
        out[user] = truth[user, order].mean()
    return out


def test_a_small_study_sets_each_protocol_against_the_truth_of_the_fits_it_scored(world, small):
    assert set(small.protocols) == {p.label for p in study.protocols(world.n_items)}
    means = small.means()
    assert list(means.index) == ["Random", "Popularity", "MF"]
    assert means.notna().all().all()
    # on the truth, the personalised system beats random by a wide margin
    assert means.loc["MF", "truth: P@10"] > 2 * means.loc["Random", "truth: P@10"]
    # the uniform protocols scored the fits on the uniform split: their truth is those fits', read over every
    # item outside the uniform training set (a brute-force oracle for Popularity)
    uniform = {p.label for p in study.protocols(world.n_items) if p.split == "uniform"}
    assert set(small.truth_of) == uniform
    fold = make_folds(world, method="uniform", folds=1, test_ratio=0.2, seed=0)[0]
    expected = brute_force_precision(make("popularity").fit(fold.train), fold.train, world.true_relevance)
    own = small.truth_of["UAR P@10"]["P@10"]["Popularity"]
    np.testing.assert_allclose(own.sort_index().to_numpy(), expected)
    coin = make_folds(world, folds=1, test_ratio=0.2, seed=0)[0]
    np.testing.assert_allclose(small.truth["P@10"]["Popularity"].sort_index().to_numpy(),
                               brute_force_precision(make("popularity").fit(coin.train), coin.train,
                                                     world.true_relevance))
    assert not np.allclose(own.sort_index().to_numpy(), small.truth["P@10"]["Popularity"].sort_index().to_numpy())


def test_a_plan_restricts_the_study_to_its_protocols_and_draws_them_as_the_whole_catalogue_does(world, small):
    chosen = ["P1R(10) P@10", "sampled HR@10, corrected (BV 0.1)", "1R P@10", "UAR P@10"]
    plan = [p for p in study.protocols(world.n_items) if p.label in chosen]
    systems = {"Random": make("random"), "Popularity": make("popularity"), "MF": make("mf")}
    part = study.truth_study(world, systems=systems, cache=False, plan=plan)
    assert list(part.protocols) == [p.label for p in plan] and set(part.truth_of) == {"UAR P@10"}
    # each design keeps its seed whatever else is measured: a fifth of the catalogue, the same draws
    for label in chosen:
        pd.testing.assert_frame_equal(part.protocols[label], small.protocols[label])
    pd.testing.assert_frame_equal(part.truth["P@10"], small.truth["P@10"])


def test_a_design_outside_the_catalogue_is_seeded_by_its_name():
    own = study.draw_seed(0, "coin", 1000, "1R TI-NN(7)")
    assert own == study.draw_seed(0, "coin", 1000, "1R TI-NN(7)") != study.draw_seed(0, "coin", 1000, "1R TI-NN(8)")
    assert study.draw_seed(0, "coin", 1000, "TI-AN") != study.draw_seed(1, "coin", 1000, "TI-AN")
    assert study.draw_seed(0, "uniform", 1000, "UAR TI-AN") == fold_seed(0, 1)  # its place on the uniform split


def test_sets_measured_together_have_the_fidelity_of_each_set_measured_alone(world):
    sets = {"first": {"Random": make("random"), "Popularity": make("popularity"), "MF": make("mf")},
            "second": {"Popularity": make("popularity"), "pLSA": make("plsa"), "item-kNN": make("item-knn")}}
    together = study.fidelity_by_set(world, sets, splits=2, n_boot=50, cache=False)
    assert list(together) == ["first", "second"]
    for name, systems in sets.items():
        alone, metric = study.protocol_fidelity(world, splits=2, n_boot=50, cache=False,
                                                systems=lambda seed, systems=systems: systems)
        assert together[name][1] == metric
        pd.testing.assert_frame_equal(together[name][0].drop(columns="tau_draws"), alone.drop(columns="tau_draws"))
        for got, expected in zip(together[name][0]["tau_draws"], alone["tau_draws"], strict=True):
            np.testing.assert_array_equal(got, expected)


def test_two_sets_may_not_give_one_label_to_two_systems(world):
    sets = {"first": {"MF": make("mf")}, "second": {"MF": make("mf", factors=4)}}
    with pytest.raises(ValueError, match="different systems 'MF'"):
        study.fidelity_by_set(world, sets, cache=False)

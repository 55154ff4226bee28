"""Chapter 8's computation: random-item runs, the stand-in world, the protocols, a small study, the grid and
what the fidelity tables say side by side."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c08_protocol_fidelity import study
from recbias.chapters.c08_protocol_fidelity.study import truths
from recbias.evaluate.fidelity import TruthStudy
from recbias.ratings import Ratings
from recbias.recommenders import make
from recbias.runs import Runs
from recbias.splits import make_folds


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


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


def test_a_dataset_without_truth_is_refused_by_name_and_replaced_by_a_world_of_its_size(world):
    plain = dataclasses.replace(world, name="plain", true_relevance=None)
    with pytest.raises(ValueError, match="'plain' has no ground truth"):
        study.truth_study(plain)
    stand_in = study.world_with_truth(plain)
    assert stand_in.true_relevance is not None and stand_in.name == "plain-sized world"
    assert (stand_in.n_users, stand_in.n_items, stand_in.n_ratings) == (plain.n_users, plain.n_items, plain.n_ratings)
    assert study.world_with_truth(world) is world


def test_a_catalogue_too_large_for_complete_matrices_is_cut_to_what_fits(world, monkeypatch):
    plain = dataclasses.replace(world, name="wide", true_relevance=None)
    fits = plain.n_users * (plain.n_items - 7)
    monkeypatch.setattr(truths, "MAX_PAIRS", fits)
    stand_in = study.world_with_truth(plain)
    shape = (stand_in.n_users, stand_in.n_items, stand_in.n_ratings)
    assert shape == (plain.n_users, plain.n_items - 7, plain.n_ratings)


def test_the_second_truth_is_skipped_missing_or_the_default_world(world):
    assert study.second_truth("", world) is None
    assert study.second_truth("csv:/no/such/ratings.csv", world) is None
    default = study.second_truth(world.name, world, seed=2)
    assert default.name == "synthetic" and default.true_relevance is not None


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


def test_a_small_study_sets_each_protocol_against_the_truth_of_the_fits_it_scored(world):
    systems = {"Random": make("random"), "Popularity": make("popularity"), "MF": make("mf")}
    small = study.truth_study(world, systems=systems, cache=False)
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


def test_the_two_sets_of_systems():
    assert len(study.systems_of(study.FIELD)) == 14
    papers = study.systems_of(study.PAPERS, seed=3)
    assert list(papers) == ["Popularity", "pLSA", "rating-MF", "rating-kNN", "Random"]
    assert {type(r).__name__ for r in papers.values()} == {"Random", "Popularity", "PLSA", "RatingMF", "RatingUserKNN"}
    assert all(r.seed == 3 for r in papers.values())
    with pytest.raises(ValueError, match="unknown set of systems 'mine'"):
        study.systems_of("mine")


# -------------------------------------------------------------------- fidelity tables


def table(taus: dict[str, tuple[float, float, float]], behind: dict[str, float] | None = None) -> pd.DataFrame:
    """A fidelity table: protocol -> (tau, tau_low, tau_high), most faithful first."""
    rows = [{"protocol": p, "tau": t, "tau_low": lo, "tau_high": hi, "behind_best": (behind or {}).get(p, 0.0)}
            for p, (t, lo, hi) in taus.items()]
    return pd.DataFrame(rows).sort_values("tau", ascending=False, ignore_index=True)


def test_leaders_are_the_protocols_not_clearly_behind_the_most_faithful():
    main = table({"a": (0.9, 0.8, 1.0), "b": (0.8, 0.7, 0.9), "c": (0.5, 0.4, 0.6), "d": (0.4, 0.3, 0.5)}).assign(
        tau_draws=[np.full(39, 0.9), np.r_[np.full(36, 0.8), np.full(3, 0.95)], np.r_[np.full(38, 0.5), 1.0],
                   np.full(39, 0.4)])
    # b is above a in 3 of 39 resamples: p = 2 (3 + 1) / 40 = 0.2; c in 1: p = 2 (1 + 1) / 40 = 0.1 -- both kept;
    # d never: p = 2 / 40 = 0.05, not below the level either
    assert study.leaders(main) == ["a", "b", "c", "d"]
    assert study.leaders(main.assign(tau_draws=[np.full(79, 0.9)] + [np.full(79, 0.5)] * 3)) == ["a"]  # p = 0.025


def test_two_truths_part_only_where_each_tau_is_outside_the_others_interval():
    main = table({"a": (0.9, 0.8, 1.0), "b": (0.8, 0.7, 0.9), "c": (0.5, 0.4, 0.6), "d": (0.4, 0.3, 0.5)})
    second = table({"a": (0.3, 0.2, 0.4), "b": (0.75, 0.5, 0.95), "c": (0.55, 0.1, 0.7), "e": (0.1, 0.0, 0.2)})
    assert list(study.joined(main, second).index) == ["a", "b", "c"]
    assert list(study.apart(main, second).index) == ["a"]  # b and c lie within each other's intervals


def test_the_agreement_of_two_truths_by_hand():
    main = table({"a": (0.9, 0, 1), "b": (0.8, 0, 1), "c": (0.5, 0, 1), "d": (0.4, 0, 1), "e": (0.3, 0, 1),
                  "f": (0.2, 0, 1)})
    second = table({"a": (0.2, 0, 1), "b": (0.8, 0, 1), "c": (0.7, 0, 1), "d": (0.6, 0, 1), "e": (0.5, 0, 1),
                    "f": (0.4, 0, 1)})
    found = study.agreement(main, second)
    ranks_second = [6, 1, 2, 3, 4, 5]
    expected_rho = np.corrcoef([1, 2, 3, 4, 5, 6], ranks_second)[0, 1]
    assert found.n == 6 and found.rho == pytest.approx(expected_rho)
    assert found.top == ["b"]  # top third: a, b on the first; b, c on the second
    assert (found.furthest, found.rank_first, found.rank_second) == ("a", 1, 6)
    assert study.agreement(main.head(2), second.head(2)) is None


def test_verdicts_put_a_protocol_in_the_better_half_only_on_every_truth():
    main = table({"a": (0.9, 0, 1), "b": (0.7, 0, 1), "c": (0.5, 0, 1), "d": (0.3, 0, 1)})
    second = table({"a": (0.9, 0, 1), "b": (0.1, 0, 1), "c": (0.5, 0, 1), "d": (0.3, 0, 1)})
    grid = pd.DataFrame({"protocol": list("abcdabcd"), "tau": [0.9, 0.8, 0.1, 0.2, 0.7, 0.8, 0.3, 0.2]})
    verdict = study.verdicts(main, second, grid)
    # medians: build 0.6, second 0.4, grid means a 0.8 b 0.8 c 0.2 d 0.2 -> 0.5
    assert verdict.to_dict() == {"a": "better", "b": "mixed", "c": "mixed", "d": "worse"}
    assert study.verdicts(main, None, grid).to_dict() == {"a": "better", "b": "better", "c": "worse", "d": "worse"}
    tie = table({"a": (0.5, 0, 1), "b": (0.5, 0, 1)})
    flat = pd.DataFrame({"protocol": ["a", "b"], "tau": [0.4, 0.4]})
    assert set(study.verdicts(tie, None, flat)) == {"better"}  # at the median counts as the better half


# ---------------------------------------------------------------------------------- grid


def grid_frame() -> pd.DataFrame:
    rows = [{"protocol": p, "alpha": a, "selection": s, "seed": seed, "tau": tau + 0.1 * seed - 0.2 * (a > 1) + s / 10}
            for p, tau in (("AR TI-AN P@10", 0.5), ("UAR P@10", 0.7), ("bpref", 0.3))
            for a in (0.5, 1.4) for s in (0.0, 2.0) for seed in (0, 1)]
    return pd.DataFrame(rows)


def test_the_grid_means_by_protocol_axis_and_kind():
    grid = grid_frame()
    # each world adds 0.05 on average over its seeds, a skew of 1.4 takes 0.2 and a bias of 2 adds 0.2
    assert study.grid_means(grid).to_dict() == pytest.approx({"AR TI-AN P@10": 0.55, "UAR P@10": 0.75, "bpref": 0.35})
    assert study.means_by(grid, "alpha").to_dict() == pytest.approx({0.5: 0.65, 1.4: 0.45})
    assert study.means_by(grid, "selection").to_dict() == pytest.approx({0.0: 0.45, 2.0: 0.65})
    kinds = study.family_means(grid[grid["selection"] == 2.0], study.families())
    assert kinds.to_dict() == pytest.approx({"standard": 0.65, "neutralising": 0.85, "incomplete judgments": 0.45})


def test_grid_cells_average_the_worlds_of_a_cell_in_the_order_given():
    cells = study.grid_cells(grid_frame(), ["UAR P@10", "missing", "bpref", "AR TI-AN P@10"])
    assert list(cells.index) == ["UAR P@10", "bpref", "AR TI-AN P@10"]
    assert list(cells.columns) == [(0.5, 0.0), (0.5, 2.0), (1.4, 0.0), (1.4, 2.0)]
    assert cells.loc["bpref", (1.4, 2.0)] == pytest.approx(0.3 + 0.05 - 0.2 + 0.2)


def draws_table(taus: dict[str, list[float]]) -> pd.DataFrame:
    """A fidelity table whose first value of each protocol is its full-sample tau and the rest its resamples."""
    return pd.DataFrame([{"protocol": p, "tau": t[0], "tau_draws": np.array(t[1:])} for p, t in taus.items()])


def test_the_median_margin_takes_the_median_within_each_resample():
    table = draws_table({"a": [0.9, 0.9, 0.1], "b": [0.5, 0.2, 0.5], "c": [0.1, 0.3, 0.9]})
    # medians: full 0.5, first resample 0.3, second 0.5
    np.testing.assert_allclose(study.median_margin(table, "a"), [0.4, 0.6, -0.4])
    np.testing.assert_allclose(study.median_margin(table, "b"), [0.0, -0.1, 0.0])


def test_the_family_gap_pairs_the_resamples_of_every_protocol():
    families = {"a": "standard", "b": "standard", "u": "neutralising"}
    table = draws_table({"a": [0.6, 0.5, 0.7], "b": [0.4, 0.5, 0.1], "u": [0.8, 0.4, 0.6]})
    np.testing.assert_allclose(study.family_gap(table, families, "neutralising", "standard"), [0.3, -0.1, 0.2])


def test_the_grid_gain_and_skew_loss_average_the_worlds_draw_by_draw():
    rows = [{"protocol": p, "alpha": a, "selection": 2.0, "seed": seed, "tau": t[0], "tau_draws": np.array(t[1:])}
            for (p, a, seed), t in {
                ("AR TI-AN P@10", 0.5, 0): [0.5, 0.4, 0.6], ("UAR P@10", 0.5, 0): [0.7, 0.7, 0.5],
                ("AR TI-AN P@10", 1.4, 0): [0.3, 0.3, 0.3], ("UAR P@10", 1.4, 0): [0.2, 0.4, 0.2],
                ("AR TI-AN P@10", 1.4, 1): [0.5, 0.5, 0.5], ("UAR P@10", 1.4, 1): [0.6, 0.6, 0.4]}.items()]
    grid = pd.DataFrame(rows)
    # gains per world: (0.2, 0.3, -0.1), (-0.1, 0.1, -0.1), (0.1, 0.1, -0.1): their means
    np.testing.assert_allclose(study.family_gain(grid, study.families(), 2.0, "neutralising", "standard"),
                               [0.2 / 3, 0.5 / 3, -0.1])
    # least skew: one world, mean (0.6, 0.55, 0.55); most skew: two worlds, (0.4, 0.45, 0.35)
    np.testing.assert_allclose(study.skew_loss(grid), [0.2, 0.1, 0.2])


def test_the_mean_tau_of_each_kind_of_protocol():
    main = table({"UAR P@10": (0.9, 0, 1), "P1R(10) P@10": (0.7, 0, 1), "AR TI-AN P@10": (0.6, 0, 1),
                  "1R P@10": (0.2, 0, 1), "bpref": (0.1, 0, 1)})
    means = study.family_means(main, study.families())
    assert means.to_dict() == pytest.approx({"neutralising": 0.8, "standard": 0.4, "incomplete judgments": 0.1})

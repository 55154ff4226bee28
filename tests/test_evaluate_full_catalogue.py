"""Exact full-catalogue ranks against a dense brute-force computation on a small world."""

from __future__ import annotations

import numpy as np
import pytest
from runs_factory import FactorModel, make_ratings

from recbias.evaluate import full_catalogue_ranks, rank_runs, score_runs
from recbias.ratings import Ratings
from recbias.runs import Runs

N_USERS, N_ITEMS = 40, 60


@pytest.fixture(scope="module")
def world() -> tuple[FactorModel, Ratings, Ratings]:
    """Scores on a coarse grid (many ties); each user has training items and 0-4 test items."""
    rng = np.random.default_rng(12)
    user_factors = rng.integers(-2, 3, size=(N_USERS, 3)).astype(float)
    model = FactorModel(user_factors, rng.integers(-2, 3, size=(N_ITEMS, 3)).astype(float))
    rated = rng.random((N_USERS, N_ITEMS)) < 0.3
    in_test = rated & (rng.random((N_USERS, N_ITEMS)) < 0.25)
    train_u, train_i = np.nonzero(rated & ~in_test)
    test_u, test_i = np.nonzero(in_test)
    shuffle = rng.permutation(len(test_u))  # test ratings in no particular order
    train = make_ratings(train_u, train_i, (N_USERS, N_ITEMS))
    test = make_ratings(test_u[shuffle], test_i[shuffle], (N_USERS, N_ITEMS))
    return model.fit(train), train, test


def brute_force_counts(model: FactorModel, train: Ratings, test: Ratings) -> tuple[np.ndarray, np.ndarray]:
    """Per test rating: candidates (non-training items) scoring higher, and other candidates tied."""
    scores = model.user_factors @ model.item_factors.T
    seen = train.matrix("binary").toarray() > 0
    above, tied = [], []
    for u, i in zip(test.users, test.items, strict=True):
        candidates = ~seen[u]
        above.append(np.sum(candidates & (scores[u] > scores[u, i])))
        tied.append(np.sum(candidates & (scores[u] == scores[u, i])) - 1)
    return np.array(above), np.array(tied)


def test_ranks_equal_brute_force(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    model, train, test = world
    above, tied = brute_force_counts(model, train, test)
    assert tied.max() > 0  # the world does have ties
    np.testing.assert_array_equal(full_catalogue_ranks(model, train, test, ties="optimistic"), 1 + above)
    np.testing.assert_array_equal(full_catalogue_ranks(model, train, test, ties="pessimistic"), 1 + above + tied)
    np.testing.assert_array_equal(full_catalogue_ranks(model, train, test, ties="expected"), 1 + above + tied / 2)
    random = full_catalogue_ranks(model, train, test, ties="random", seed=5)
    assert np.all((random >= 1 + above) & (random <= 1 + above + tied))
    assert np.any(random[tied > 0] != (1 + above)[tied > 0])


@pytest.mark.parametrize("ties", ["random", "optimistic", "pessimistic", "expected"])
def test_chunk_size_does_not_change_the_ranks(world: tuple[FactorModel, Ratings, Ratings], ties: str) -> None:
    model, train, test = world
    reference = full_catalogue_ranks(model, train, test, chunk_size=1000, ties=ties, seed=3)
    for chunk_size in (1, 2, 7):
        np.testing.assert_array_equal(full_catalogue_ranks(model, train, test, chunk_size, ties, seed=3), reference)
    for n_threads in (1, 3):
        ranks = full_catalogue_ranks(model, train, test, 5, ties, seed=3, n_threads=n_threads)
        np.testing.assert_array_equal(ranks, reference)


def test_random_ties_are_deterministic_by_seed(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    model, train, test = world
    first = full_catalogue_ranks(model, train, test, seed=1)
    np.testing.assert_array_equal(first, full_catalogue_ranks(model, train, test, seed=1))
    assert not np.array_equal(first, full_catalogue_ranks(model, train, test, seed=2))


def test_bad_input_raises(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    model, train, test = world
    with pytest.raises(ValueError, match="also a training item"):
        full_catalogue_ranks(model, train, train.subset(np.arange(3)))
    with pytest.raises(ValueError, match="chunk_size"):
        full_catalogue_ranks(model, train, test, chunk_size=0)
    with pytest.raises(ValueError, match="n_threads"):
        full_catalogue_ranks(model, train, test, n_threads=0)
    with pytest.raises(ValueError, match="unknown tie policy"):
        full_catalogue_ranks(model, train, test, ties="first")
    unfitted = FactorModel(model.user_factors, model.item_factors)
    with pytest.raises(RuntimeError, match="fit"):
        full_catalogue_ranks(unfitted, train, test)
    broken = FactorModel(model.user_factors, model.item_factors.copy())
    broken.item_factors[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        full_catalogue_ranks(broken.fit(train), train, test)


def test_ranks_agree_with_ranking_one_run_per_test_item(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    """Each test rating as a run over all of its user's non-training items, ranked by rank_runs."""
    model, train, test = world
    seen = train.matrix("binary").toarray() > 0
    candidates = [np.flatnonzero(~seen[u]) for u in test.users]
    sizes = np.array([len(c) for c in candidates])
    items = np.concatenate(candidates)
    labels = np.concatenate([c == i for c, i in zip(candidates, test.items, strict=True)])
    runs = Runs.from_arrays(np.concatenate([[0], np.cumsum(sizes)]), test.users, items, labels)
    scores = score_runs(model, runs)
    for ties in ("optimistic", "pessimistic"):
        ranked = rank_runs(runs, scores, ties)
        positions = np.flatnonzero(ranked.labels) - ranked.offsets[:-1]
        np.testing.assert_array_equal(full_catalogue_ranks(model, train, test, ties=ties), positions + 1)

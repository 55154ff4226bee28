"""Exact ranks of targets among their pools against dense brute-force computations on small worlds."""

from __future__ import annotations

import numpy as np
import pytest
from runs_factory import FactorModel, make_ratings

from recbias.designs import build_runs
from recbias.evaluate import pool_ranks, rank_positions, rank_runs, relevant_ranks, score_runs
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


@pytest.fixture(scope="module")
def three() -> tuple[list[FactorModel], Ratings, Ratings]:
    """Two scorers on a coarse grid (ties) and one continuous; 1-6 test ratings per user, stars 1-5."""
    n_users, n_items = 30, 80
    rng = np.random.default_rng(3)
    coarse = [rng.integers(-2, 3, size=(n, 2)).astype(float) for n in (n_users, n_items)]
    smooth = [rng.normal(size=(n, 3)) for n in (n_users, n_items)]
    shifted = [rng.integers(-1, 2, size=(n, 2)).astype(float) for n in (n_users, n_items)]
    rated = rng.random((n_users, n_items)) < 0.35
    in_test = rated & (rng.random((n_users, n_items)) < 0.2)
    in_test[np.arange(n_users), rng.integers(0, n_items, n_users)] = True
    rated |= in_test
    train_u, train_i = np.nonzero(rated & ~in_test)
    test_u, test_i = np.nonzero(in_test)
    shape = (n_users, n_items)
    train = make_ratings(train_u, train_i, shape)
    test = make_ratings(test_u, test_i, shape, values=rng.integers(1, 6, len(test_u)).astype(float))
    models = [FactorModel(*coarse).fit(train), FactorModel(*smooth).fit(train), FactorModel(*shifted).fit(train)]
    for k, model in enumerate(models):
        model.name = f"m{k}"
    return models, train, test


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


def brute_force_pools(model: FactorModel, train: Ratings, test: Ratings, threshold: float | None, candidates: np.ndarray):
    """Per relevant test rating: pool size, items scoring higher and items tied, by direct loops (1R pools)."""
    n_users, n_items = train.shape
    scores = model.score_users(np.arange(n_users))
    seen = train.matrix("binary").toarray() > 0
    relevant = np.ones(test.n_ratings, bool) if threshold is None else test.values >= threshold
    relevant_of = np.zeros((n_users, n_items), bool)
    relevant_of[test.users[relevant], test.items[relevant]] = True
    out = []
    for u, i in zip(test.users[relevant], test.items[relevant], strict=True):
        pool = candidates & ~seen[u] & ~relevant_of[u]
        out.append((pool.sum() + 1, np.sum(pool & (scores[u] > scores[u, i])), np.sum(pool & (scores[u] == scores[u, i]))))
    return np.array(out)


def full_ranks(model, train, test, **options) -> np.ndarray:
    """Ranks of every test rating among all its user's non-training items."""
    return pool_ranks(model, train, test, **options).ranks[:, 0]


def test_ranks_equal_brute_force(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    model, train, test = world
    above, tied = brute_force_counts(model, train, test)
    assert tied.max() > 0  # the world does have ties
    np.testing.assert_array_equal(full_ranks(model, train, test, ties="optimistic"), 1 + above)
    np.testing.assert_array_equal(full_ranks(model, train, test, ties="pessimistic"), 1 + above + tied)
    np.testing.assert_array_equal(full_ranks(model, train, test, ties="expected"), 1 + above + tied / 2)
    random = full_ranks(model, train, test, ties="random", seed=5)
    assert np.all((random >= 1 + above) & (random <= 1 + above + tied))
    assert np.any(random[tied > 0] != (1 + above)[tied > 0])
    result = pool_ranks(model, train, test)
    np.testing.assert_array_equal(result.sizes, N_ITEMS - train.user_counts()[test.users])
    np.testing.assert_array_equal(result.rows, np.arange(test.n_ratings))


@pytest.mark.parametrize("ties", ["random", "optimistic", "pessimistic", "expected"])
def test_chunk_size_does_not_change_the_ranks(world: tuple[FactorModel, Ratings, Ratings], ties: str) -> None:
    model, train, test = world
    reference = full_ranks(model, train, test, chunk_size=1000, ties=ties, seed=3)
    for chunk_size in (1, 2, 7):
        np.testing.assert_array_equal(full_ranks(model, train, test, chunk_size=chunk_size, ties=ties, seed=3), reference)
    for n_threads in (1, 3):
        ranks = full_ranks(model, train, test, chunk_size=5, ties=ties, seed=3, n_threads=n_threads)
        np.testing.assert_array_equal(ranks, reference)


def test_random_ties_are_deterministic_by_seed(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    model, train, test = world
    first = full_ranks(model, train, test, seed=1)
    np.testing.assert_array_equal(first, full_ranks(model, train, test, seed=1))
    assert not np.array_equal(first, full_ranks(model, train, test, seed=2))


def test_bad_input_raises(world: tuple[FactorModel, Ratings, Ratings]) -> None:
    model, train, test = world
    with pytest.raises(ValueError, match="also a training item"):
        pool_ranks(model, train, train.subset(np.arange(3)))
    with pytest.raises(ValueError, match="chunk_size"):
        pool_ranks(model, train, test, chunk_size=0)
    with pytest.raises(ValueError, match="n_threads"):
        pool_ranks(model, train, test, n_threads=0)
    with pytest.raises(ValueError, match="unknown tie policy"):
        pool_ranks(model, train, test, ties="first")
    with pytest.raises(ValueError, match="patterns"):
        pool_ranks(model, train, test, ties="expected", patterns=True)
    with pytest.raises(ValueError, match="candidate"):
        pool_ranks(model, train, test, candidates=np.zeros(N_ITEMS, bool))
    with pytest.raises(ValueError, match="at least one recommender"):
        pool_ranks([], train, test)
    unfitted = FactorModel(model.user_factors, model.item_factors)
    with pytest.raises(RuntimeError, match="fit"):
        pool_ranks(unfitted, train, test)
    broken = FactorModel(model.user_factors, model.item_factors.copy())
    broken.item_factors[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pool_ranks(broken.fit(train), train, test)


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
        np.testing.assert_array_equal(full_ranks(model, train, test, ties=ties), positions + 1)


@pytest.mark.parametrize("threshold", [None, 4.0])
def test_one_relevant_pools_equal_brute_force(three, threshold) -> None:
    models, train, test = three
    n_items = train.n_items
    candidates = np.random.default_rng(0).random(n_items) < 0.8
    candidates[test.items] = True
    result = pool_ranks(models, train, test, candidates=candidates, threshold=threshold, exclude_other_targets=True,
                        patterns=True, seed=1, chunk_size=7)
    for k, model in enumerate(models):
        expected = brute_force_pools(model, train, test, threshold, candidates)
        np.testing.assert_array_equal(result.sizes, expected[:, 0])
        assert np.all(result.ranks[:, k] >= 1 + expected[:, 1])
        assert np.all(result.ranks[:, k] <= 1 + expected[:, 1] + expected[:, 2])
    # pattern counts partition the pool and add up to every recommender's rank
    assert result.patterns.shape == (result.n_targets, 8)
    np.testing.assert_array_equal(result.patterns.sum(axis=1), result.sizes - 1)
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1
    np.testing.assert_array_equal(1 + result.patterns @ bits, result.ranks)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_patterns_follow_the_tie_policy(three, ties) -> None:
    models, train, test = three
    result = pool_ranks(models, train, test, ties=ties, patterns=True)
    bits = (np.arange(8)[:, None] >> np.arange(3)) & 1
    np.testing.assert_array_equal(1 + result.patterns @ bits, result.ranks)


def test_each_recommender_alone_gets_the_same_ranks(three) -> None:
    models, train, test = three
    together = pool_ranks(models, train, test, seed=4)
    for k, model in enumerate(models):
        np.testing.assert_array_equal(pool_ranks(model, train, test, seed=4).ranks[:, 0], together.ranks[:, k])
    assert together.names == ("m0", "m1", "m2")


def test_pool_ranks_without_ties_do_not_depend_on_the_policy(three) -> None:
    models, train, test = three
    smooth = models[1]
    np.testing.assert_array_equal(full_ranks(smooth, train, test), full_ranks(smooth, train, test, ties="optimistic"))


def test_tie_breaking_is_uniform_over_the_tied_range(three) -> None:
    models, train, test = three
    coarse = models[0]
    expected = brute_force_pools(coarse, train, test, None, np.ones(train.n_items, bool))
    draws = np.stack([pool_ranks(coarse, train, test, exclude_other_targets=True, seed=s).ranks[:, 0] for s in range(300)])
    low, tied = 1 + expected[:, 1], expected[:, 2]
    centre = low + tied / 2
    assert np.all(np.abs(draws.mean(axis=0) - centre) <= 0.1 + 0.1 * tied)  # about 6 standard errors
    uniform_variance = ((tied + 1) ** 2 - 1) / 12  # variance of a uniform draw on 0..tied
    assert tied.max() > 2
    np.testing.assert_allclose(draws.var(axis=0)[tied > 2], uniform_variance[tied > 2], rtol=0.35)


def test_relevant_ranks_of_a_1r_design(three) -> None:
    models, train, test = three
    runs = build_runs(train, test, "1R TI-NN(5)", seed=0, threshold=4.0, on_shortage="exclude")
    scores = score_runs(models[1], runs)
    positions = relevant_ranks(rank_runs(runs, scores, ties="optimistic"))
    np.testing.assert_array_equal(relevant_ranks(rank_positions(runs, scores, ties="optimistic")), positions)
    assert positions.shape == (runs.n_runs,)
    assert positions.min() >= 1 and positions.max() <= 6
    for k in range(runs.n_runs):
        s = scores[runs.offsets[k] : runs.offsets[k + 1]]
        own = s[runs.labels[runs.offsets[k] : runs.offsets[k + 1]]][0]
        assert positions[k] == 1 + np.sum(s > own)
    with pytest.raises(ValueError, match="exactly one relevant"):
        relevant_ranks(Runs.from_arrays(np.array([0, 2]), np.array([0]), np.array([1, 2]), np.array([True, True])))

"""pLSA: EM against a brute-force E/M step, monotone likelihood, proper distributions."""

import numpy as np
import pytest

from recbias.recommenders import PLSA
from test_recommenders_support import low_rank_world


@pytest.fixture(scope="module")
def world():
    data = low_rank_world(n_users=60, n_items=40, seed=4)
    return data.subset(data.users != 59)  # user 59 has no ratings


def brute_em_step(counts: dict, user_aspects: np.ndarray, item_aspects: np.ndarray, beta: float):
    """One tempered EM step with an explicit posterior q(z|u,i) per observed pair."""
    new_users = np.zeros_like(user_aspects)
    new_items = np.zeros_like(item_aspects)
    for (u, i), n in counts.items():
        joint = (user_aspects[u] * item_aspects[i]) ** beta
        q = joint / joint.sum()
        new_users[u] += n * q
        new_items[i] += n * q
    user_totals = new_users.sum(axis=1, keepdims=True)
    new_users = np.divide(new_users, user_totals, out=np.zeros_like(new_users), where=user_totals > 0)
    return new_users, new_items / new_items.sum(axis=0, keepdims=True)


@pytest.mark.parametrize("beta", [1.0, 0.7])
@pytest.mark.parametrize("feedback", ["values", "binary"])
def test_one_more_iteration_is_one_brute_force_em_step(world, beta, feedback):
    before = PLSA(n_aspects=4, iterations=5, tol=None, beta=beta, feedback=feedback, seed=3).fit(world)
    after = PLSA(n_aspects=4, iterations=6, tol=None, beta=beta, feedback=feedback, seed=3).fit(world)
    matrix = world.matrix(feedback).tocoo()
    counts = {(u, i): n for u, i, n in zip(matrix.row, matrix.col, matrix.data)}
    users, items = brute_em_step(counts, before.user_aspects_, before.item_aspects_, beta)
    np.testing.assert_allclose(after.user_aspects_, users, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(after.item_aspects_, items, rtol=1e-10, atol=1e-14)


def test_log_likelihood_never_decreases_and_is_recorded_exactly(world):
    model = PLSA(n_aspects=6, iterations=60, tol=None, seed=1).fit(world)
    trace = model.log_likelihood_
    assert len(trace) == 61
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    assert trace[-1] > trace[0]
    probability = model.user_aspects_ @ model.item_aspects_.T
    expected = sum(v * np.log(probability[u, i]) for u, i, v in zip(world.users, world.items, world.values))
    assert trace[-1] == pytest.approx(expected, rel=1e-12)


def test_parameters_are_proper_distributions(world):
    model = PLSA(n_aspects=5, iterations=30, seed=2).fit(world)
    rated = np.bincount(world.users, minlength=world.n_users) > 0
    assert model.user_aspects_.min() >= 0 and model.item_aspects_.min() >= 0
    np.testing.assert_allclose(model.user_aspects_[rated].sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(model.item_aspects_.sum(axis=0), 1.0, rtol=1e-12)
    scores = model.score_users(np.arange(world.n_users))
    np.testing.assert_allclose(scores[rated].sum(axis=1), 1.0, rtol=1e-12)  # P(.|u) over items
    assert np.all(scores[~rated] == 0)


def test_tolerance_stops_early(world):
    model = PLSA(n_aspects=5, iterations=500, tol=1e-3, seed=0).fit(world)
    trace = model.log_likelihood_
    assert len(trace) < 501
    assert trace[-1] - trace[-2] < 1e-3 * abs(trace[-2]) <= trace[-2] - trace[-3]


def test_tempering_changes_the_fit(world):
    plain = PLSA(n_aspects=5, iterations=20, tol=None, seed=0).fit(world)
    tempered = PLSA(n_aspects=5, iterations=20, tol=None, beta=0.8, seed=0).fit(world)
    assert not np.allclose(plain.user_aspects_, tempered.user_aspects_)

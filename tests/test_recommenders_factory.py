"""The factory and the behaviour every recommender shares."""

import numpy as np
import pytest

from recbias.recommenders import PRESETS, ItemKNN, Recommender, make
from test_recommenders_support import low_rank_world, make_ratings

FAST = {"plsa": {"iterations": 20}, "mf": {"iterations": 5}, "ials-x": {"iterations": 5}}


@pytest.fixture(scope="module")
def world():
    data = low_rank_world(n_users=70, n_items=50, seed=2)
    # user 0 and item 0 have no training ratings
    return data.subset((data.users != 0) & (data.items != 0))


@pytest.fixture(scope="module", params=sorted(PRESETS))
def fitted(request, world):
    return make(request.param, **FAST.get(request.param, {})).fit(world)


def test_pairwise_scores_match_user_blocks(fitted, world):
    rng = np.random.default_rng(0)
    users = rng.integers(0, world.n_users, 500)
    items = rng.integers(0, world.n_items, 500)
    block = fitted.score_users(np.arange(world.n_users))
    assert block.shape == world.shape and block.dtype == np.float64
    np.testing.assert_allclose(fitted.score(users, items), block[users, items], rtol=1e-12, atol=1e-12)


def test_same_seed_same_scores(fitted, world):
    name = next(key for key, (cls, display, _) in PRESETS.items() if display == fitted.name)
    again = make(name, **FAST.get(name, {})).fit(world)
    users = np.arange(world.n_users)
    assert np.array_equal(again.score_users(users), fitted.score_users(users))


def test_codes_outside_training_space_raise(fitted, world):
    with pytest.raises(ValueError, match="user codes"):
        fitted.score_users(np.array([world.n_users]))
    with pytest.raises(ValueError, match="item codes"):
        fitted.score(np.array([0]), np.array([-1]))


def test_users_without_training_ratings_get_a_neutral_score(fitted):
    if fitted.name in ("Random", "Popularity"):
        pytest.skip("non-personalised baselines score every user alike")
    assert np.all(fitted.score_users(np.array([0])) == 0)


def test_presets_follow_the_papers():
    assert (make("ials-x").factors, make("ials-x").regularization, make("ials-x").alpha) == (16, 10.0, 0.2)
    y, z = make("item-knn-y"), make("item-knn-z")
    assert isinstance(y, ItemKNN) and (y.q, y.k, y.k_prime) == (3.0, None, None)
    assert (z.q, z.k, z.k_prime) == (1.0, None, 10)
    assert make("item-knn-z", k_prime=5).k_prime == 5
    assert all(isinstance(make(name), Recommender) for name in PRESETS)


def test_unknown_names_and_parameters_are_listed():
    with pytest.raises(ValueError, match="choose one of random, popularity"):
        make("svd")
    with pytest.raises(ValueError, match="no parameter neighbours; valid: q, k, k_prime, seed"):
        make("item-knn", neighbours=3)


@pytest.mark.parametrize(
    "name, params, message",
    [
        ("plsa", {"n_aspects": 0}, "n_aspects"),
        ("plsa", {"beta": 1.5}, "beta"),
        ("mf", {"feedback": "stars"}, "unknown feedback"),
        ("ials-x", {"alpha": 0.0}, "alpha"),
        ("item-knn", {"k": 0}, "k must be"),
        ("item-knn", {"q": -1}, "exponent q"),
        ("user-knn", {"k": 2.5}, "k must be"),
    ],
)
def test_impossible_parameters_raise(name, params, message):
    with pytest.raises(ValueError, match=message):
        make(name, **params)


def test_scoring_before_fit_raises():
    with pytest.raises(RuntimeError, match="fit"):
        make("popularity").score_users(np.array([0]))


def test_negative_values_are_refused_as_weights():
    train = make_ratings([0, 1], [0, 1], [-1.0, 2.0], n_users=2, n_items=2)
    with pytest.raises(ValueError, match="negative rating values"):
        make("user-knn").fit(train)

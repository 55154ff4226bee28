"""The non-personalised baselines: reproducible noise, training counts, mean ratings and the test-set oracle."""

import numpy as np
import pytest

from recbias.recommenders import HeldOutPopularity, MeanRating, Popularity, Random
from test_recommenders_support import low_rank_world, make_ratings


@pytest.fixture(scope="module")
def world():
    return low_rank_world(n_users=80, n_items=60, seed=1)


def test_popularity_equals_training_counts(world):
    scores = Popularity().fit(world).score_users(np.arange(world.n_users))
    counts = np.zeros(world.n_items)
    for item in world.items:
        counts[item] += 1
    assert np.array_equal(scores, np.tile(counts, (world.n_users, 1)))


def test_popularity_can_count_positive_ratings_only():
    train = make_ratings([0, 1, 2, 0, 1], [0, 0, 0, 1, 2], [5, 1, 4, 4, 2], n_users=3, n_items=4, threshold=4)
    scores = Popularity(positive_only=True).fit(train).score([2, 2, 2, 2], [0, 1, 2, 3])
    assert scores.tolist() == [2.0, 1.0, 0.0, 0.0]


def test_random_is_reproducible_per_pair_regardless_of_call_order(world):
    users = np.repeat(np.arange(world.n_users), world.n_items)
    items = np.tile(np.arange(world.n_items), world.n_users)
    first = Random(seed=7).fit(world).score(users, items)
    order = np.random.default_rng(0).permutation(len(users))
    again = Random(seed=7).fit(world).score(users[order], items[order])
    assert np.array_equal(again, first[order])
    block = Random(seed=7).fit(world).score_users(np.array([5, 3]))
    assert np.array_equal(block, first.reshape(world.n_users, world.n_items)[[5, 3]])


def test_random_scores_look_uniform_and_depend_on_seed(world):
    first = Random(seed=1).fit(world).score_users(np.arange(world.n_users)).ravel()
    other = Random(seed=2).fit(world).score_users(np.arange(world.n_users)).ravel()
    assert first.min() >= 0 and first.max() < 1
    # mean of n uniforms: sd = 1/sqrt(12 n); 5 sd is a safe band
    assert abs(first.mean() - 0.5) < 5 / np.sqrt(12 * first.size)
    assert np.histogram(first, bins=10, range=(0, 1))[0].min() > 0.08 * first.size
    assert abs(np.corrcoef(first, other)[0, 1]) < 5 / np.sqrt(first.size)
    assert len(np.unique(first)) == first.size


def test_random_rejects_non_integer_seed(world):
    with pytest.raises(TypeError, match="seed"):
        Random(seed=0.5).fit(world)


def test_mean_rating_by_hand_with_and_without_shrinkage():
    # item 0: 5, 1 (mean 3); item 1: 4 (mean 4); item 2: unrated; global mean (5 + 1 + 4) / 3 = 10/3
    train = make_ratings([0, 1, 2], [0, 0, 1], [5, 1, 4], n_users=3, n_items=3, threshold=4)
    plain = MeanRating().fit(train).score([0, 0, 0], [0, 1, 2])
    assert plain.tolist() == pytest.approx([3.0, 4.0, 10 / 3])
    shrunk = MeanRating(shrinkage=2).fit(train).score([1, 1, 1], [0, 1, 2])
    assert shrunk.tolist() == pytest.approx([(6 + 20 / 3) / 4, (4 + 20 / 3) / 3, 10 / 3])
    with pytest.raises(ValueError, match="shrinkage"):
        MeanRating(shrinkage=-1)


def test_held_out_popularity_counts_positive_held_out_ratings():
    train = make_ratings([0, 1], [0, 1], [5, 5], n_users=3, n_items=4, threshold=4)
    test = make_ratings([0, 1, 2, 2], [2, 2, 3, 1], [5, 4, 2, 5], n_users=3, n_items=4, threshold=4)
    oracle = HeldOutPopularity(test).fit(train)
    assert oracle.score_users(np.array([0, 2])).tolist() == [[0.0, 1.0, 2.0, 0.0]] * 2
    with pytest.raises(ValueError, match="shape"):
        HeldOutPopularity(make_ratings([0], [0], [5], n_users=2, n_items=4, threshold=4)).fit(train)

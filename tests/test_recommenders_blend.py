"""The popularity blend: its end points are its two parents, and its weight moves it between them."""

import pickle

import numpy as np
import pytest
from scipy import stats

from recbias.ratings import Ratings
from recbias.recommenders import BaseRanks, PopularityBlend, make, percentile_ranks
from recbias.recommenders.blend import BASE_RANKS_BUDGET


@pytest.fixture(scope="module")
def train() -> Ratings:
    rng = np.random.default_rng(3)
    users = rng.integers(0, 40, 600)
    items = np.minimum(rng.zipf(1.6, 600) - 1, 59)
    pairs = np.unique(np.stack([users, items], axis=1), axis=0)
    return Ratings.from_codes(pairs[:, 0], pairs[:, 1], rng.integers(1, 6, len(pairs)), (40, 60), positive_threshold=4)


def test_percentile_ranks_match_a_hand_worked_row():
    np.testing.assert_allclose(percentile_ranks(np.array([[3.0, 1.0, 3.0, 0.0, 7.0]])), [[0.625, 0.25, 0.625, 0.0, 1.0]])


def order_agreement(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean([stats.kendalltau(x, y).statistic for x, y in zip(a, b, strict=True)]))


def test_end_points_order_items_like_their_parents(train):
    users = np.arange(train.n_users)
    base = make("mf").fit(train).score_users(users)
    popularity = np.tile(train.item_counts().astype(float), (len(users), 1))
    only_base = PopularityBlend("mf", 0.0).fit(train).score_users(users)
    only_popularity = PopularityBlend("mf", 1.0).fit(train).score_users(users)
    assert order_agreement(only_base, base) == pytest.approx(1.0)
    assert order_agreement(only_popularity, popularity) == pytest.approx(1.0)


def test_more_weight_brings_the_blend_closer_to_popularity(train):
    users = np.arange(train.n_users)
    popularity = np.tile(train.item_counts().astype(float), (len(users), 1))
    agreement = [
        order_agreement(PopularityBlend("mf", w).fit(train).score_users(users), popularity) for w in (0.0, 0.3, 0.7)
    ]
    assert agreement[0] < agreement[1] < agreement[2]


def test_weight_outside_the_unit_interval_is_rejected():
    with pytest.raises(ValueError, match="weight"):
        PopularityBlend("mf", 1.5)


def test_percentile_ranks_equal_scipys_average_ranks():
    rng = np.random.default_rng(5)
    for scores in (rng.normal(size=(30, 200)), rng.integers(0, 6, (30, 200)).astype(float), np.zeros((2, 7))):
        expected = (stats.rankdata(scores, axis=1, method="average") - 1.0) / (scores.shape[1] - 1)
        assert np.array_equal(percentile_ranks(scores), expected)
    with pytest.raises(ValueError, match="NaN"):
        percentile_ranks(np.array([[1.0, np.nan]]))


def test_a_blend_on_a_shared_base_equals_a_blend_with_its_own_fit(train):
    users = np.arange(train.n_users)
    shared = make("mf", seed=2).fit(train)
    on_shared = PopularityBlend("mf", 0.4, seed=2).fit_on(train, shared)
    assert on_shared.base_ is shared
    np.testing.assert_array_equal(on_shared.score_users(users), PopularityBlend("mf", 0.4, seed=2).fit(train).score_users(users))
    with pytest.raises(ValueError, match="base must be"):
        PopularityBlend("mf", 0.4, seed=3).fit_on(train, shared)  # another seed: another fit
    with pytest.raises(ValueError, match="base must be"):
        PopularityBlend("plsa", 0.4, seed=2).fit_on(train, shared)


def test_blends_sharing_the_ranks_of_their_base_score_as_blends_with_their_own(train):
    """Blends of several weights on one base rank its scores once per chunk of users, kept within the budget,
    and score exactly as blends that rank them themselves."""
    shared = make("mf", seed=2).fit(train)
    chunks = [np.arange(0, 10), np.arange(10, train.n_users)]
    every_chunk, first_chunk = train.n_users * train.n_items, 10 * train.n_items
    for budget, kept in ((BASE_RANKS_BUDGET, every_chunk), (first_chunk, first_chunk), (first_chunk - 1, 0)):
        ranks = BaseRanks(shared, budget=budget)
        for weight in (0.25, 0.5, 0.75):
            blend = PopularityBlend("mf", weight, seed=2).fit_on(train, shared, ranks)
            alone = PopularityBlend("mf", weight, seed=2).fit(train)
            for users in chunks:
                np.testing.assert_array_equal(blend.score_users(users), alone.score_users(users))
        assert ranks.entries == kept
        copied = pickle.loads(pickle.dumps(ranks))
        assert copied.entries == 0 and copied.base is not shared  # a copy starts empty, with its own base
        np.testing.assert_array_equal(copied.of(chunks[0]), ranks.of(chunks[0]))
    with pytest.raises(ValueError, match="ranks must be"):
        PopularityBlend("mf", 0.4, seed=2).fit_on(train, shared, BaseRanks(make("mf", seed=2).fit(train)))


def test_a_kept_chunk_of_ranks_is_read_only(train):
    ranks = BaseRanks(make("mf", seed=2).fit(train))
    users = np.arange(5)
    assert ranks.of(users) is ranks.of(users.astype(np.int32))  # the same chunk, whatever the integer type
    with pytest.raises(ValueError, match="read-only"):
        ranks.of(users)[0, 0] = 1.0

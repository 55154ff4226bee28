"""The popularity blend: its end points are its two parents, and its weight moves it between them."""

import numpy as np
import pytest
from scipy import stats

from recbias.ratings import Ratings
from recbias.recommenders import PopularityBlend, make, percentile_ranks


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

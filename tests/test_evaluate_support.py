"""The support of recommended items against a pure-Python reading of its definition."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from recbias.evaluate.support import support_table, top_support
from recbias.recommenders import Popularity, Random, RatingUserKNN
from test_recommenders_support import low_rank_world, make_ratings


def brute_support(scores: np.ndarray, train, n: int, seed: int) -> list[list[int]]:
    """Per user with a training rating and ``n`` items outside it, the training ratings of her top ``n``
    items outside it: higher score first, equal scores in the order of one seeded permutation."""
    rated = {(int(u), int(i)) for u, i in zip(train.users, train.items, strict=True)}
    counts = [int((train.items == i).sum()) for i in range(train.n_items)]
    place = {int(item): k for k, item in enumerate(np.random.default_rng(seed).permutation(train.n_items))}
    lists = []
    for u in range(train.n_users):
        outside = [i for i in range(train.n_items) if (u, i) not in rated]
        if len(outside) == train.n_items or len(outside) < n:
            continue
        best = sorted(outside, key=lambda i: (-scores[u, i], place[i]))[:n]
        lists.append([counts[i] for i in best])
    return lists


@pytest.fixture(scope="module")
def world():
    data = low_rank_world(n_users=60, n_items=45, density=0.15, seed=3)
    return data.subset(data.users != 0)  # user 0 has no training rating: no list


@pytest.mark.parametrize("system", [Popularity, Random, RatingUserKNN], ids=lambda c: c.__name__)
@pytest.mark.parametrize("seed", [0, 5])
def test_top_support_matches_brute_force(world, system, seed):
    fitted = system().fit(world)
    scores = fitted.score_users(np.arange(world.n_users))
    expected = brute_support(scores, world, 10, seed)
    assert len(expected) == world.n_users - 1
    assert top_support(fitted, world, n=10, seed=seed).tolist() == expected
    # the blocks users are scored in change nothing
    assert top_support(fitted, world, n=10, seed=seed, block=3 * world.n_items).tolist() == expected


def test_users_with_fewer_items_outside_their_ratings_than_the_list_are_left_out():
    # user 0 rated 3 of 4 items, user 1 one, user 2 none
    train = make_ratings([0, 0, 0, 1], [0, 1, 2, 3], [5, 4, 3, 5], n_users=3, n_items=4)
    assert top_support(Popularity().fit(train), train, n=2).tolist() == [[1, 1]]
    with pytest.raises(ValueError, match="no user has a training rating and 4 items"):
        top_support(Popularity().fit(train), train, n=4)
    with pytest.raises(ValueError, match=r"n must lie in \[1, 4\]"):
        top_support(Popularity().fit(train), train, n=0)


def test_the_table_summarises_every_list_of_every_system(world):
    systems = {"Popularity": Popularity().fit(world), "rating-kNN": RatingUserKNN().fit(world),
               "strict": RatingUserKNN(min_support=3).fit(world)}
    table = support_table(systems, world, n=5, few=4, seed=2)
    assert table["system"].tolist() == list(systems)
    for row, fitted in zip(table.itertuples(), systems.values(), strict=True):
        flat = [c for top in brute_support(fitted.score_users(np.arange(world.n_users)), world, 5, 2) for c in top]
        assert row.median == statistics.median(flat)
        assert row.few_share == pytest.approx(sum(c <= 4 for c in flat) / len(flat), abs=1e-12)
        assert row.mean == pytest.approx(statistics.fmean(flat), rel=1e-12)
    assert 0 < table["few_share"].max() < 1  # the world has items of little and of much support

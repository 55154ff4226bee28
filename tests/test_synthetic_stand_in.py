"""Simulated worlds standing in for a dataset without a truth: of its size, or of its shape (size, popularity
curve, activity floor, positive ratio), checked against the data they stand in for."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from recbias import datasets, judgments
from recbias.ratings import Ratings
from recbias.synthetic import (
    fit_popularity_curve,
    generate,
    popularity_curve,
    shape_of,
    stand_in,
    stand_in_world,
    world_with_truth,
)
from recbias.synthetic.popularity import MAX_MARGIN_SHARE


def without_truth(ratings: Ratings, name: str) -> Ratings:
    return dataclasses.replace(ratings, name=name, true_relevance=None)


def top_share(ratings: Ratings) -> float:
    """The share of the ratings on the most rated tenth of the items."""
    counts = np.sort(ratings.item_counts())[::-1]
    return counts[: len(counts) // 10].sum() / counts.sum()


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


def test_a_world_of_the_size_of_a_dataset_without_truth(world):
    plain = without_truth(world, "plain")
    sized = world_with_truth(plain)
    assert sized.true_relevance is not None and sized.name == "plain-sized world"
    assert (sized.n_users, sized.n_items, sized.n_ratings) == (plain.n_users, plain.n_items, plain.n_ratings)
    assert world_with_truth(world) is world


def test_a_catalogue_too_large_for_complete_matrices_is_cut_to_what_fits(world, monkeypatch):
    plain = without_truth(world, "wide")
    monkeypatch.setattr(stand_in, "MAX_PAIRS", plain.n_users * (plain.n_items - 7))
    for drawn in (world_with_truth(plain), stand_in_world(plain)):
        assert (drawn.n_users, drawn.n_items, drawn.n_ratings) == (plain.n_users, plain.n_items - 7, plain.n_ratings)


def test_the_rating_prior_puts_the_positive_ratio_on_fives_and_refuses_one_sided_data():
    prior = stand_in.rating_prior(0.3)
    assert sum(prior) == pytest.approx(1.0) and prior[4] == pytest.approx(0.3)
    assert prior[0] / prior[3] == pytest.approx(6110 / 34174)  # the MovieLens 100K shares below 5
    for ratio in (0.0, 1.0):
        with pytest.raises(ValueError, match="positive and non-positive ratings"):
            stand_in.rating_prior(ratio)


@pytest.mark.parametrize("source", [
    # MovieLens 100K's numbers with a much flatter popularity curve (Gini 0.32 against the default world's 0.54)
    # and more positives than the default world
    dict(n_users=943, n_items=1682, n_ratings=100_000, alpha=0.6, popularity_shift=0.02,
         rating_prior=(5, 10, 25, 30, 30), positive_threshold=5, seed=4),
    # a small world with a steeper curve (Gini 0.68 against 0.55), judged at threshold 4
    dict(preset="synthetic-small", alpha=2.0, popularity_shift=0.1, positive_threshold=4, seed=5),
], ids=["ml-100k-like", "small-steep"])
def test_the_stand_in_world_has_the_shape_of_the_data(source):
    data = without_truth(generate(**source), "data")
    shaped = stand_in_world(data, seed=2)
    assert shaped.name == "data-shaped world" and shaped.true_relevance is not None
    assert (shaped.n_users, shaped.n_items, shaped.n_ratings) == (data.n_users, data.n_items, data.n_ratings)
    assert shaped.positive.mean() == pytest.approx(data.positive.mean(), abs=1e-3)
    assert judgments.gini(shaped.item_counts()) == pytest.approx(judgments.gini(data.item_counts()), abs=0.03)
    assert top_share(shaped) == pytest.approx(top_share(data), abs=0.03)
    assert shaped.user_counts().min() >= data.user_counts().min()


@pytest.mark.skipif(not datasets.available("ml-100k"), reason="MovieLens 100K is not available locally")
def test_the_stand_in_world_of_movielens_100k():
    data = datasets.load("ml-100k")
    shaped = stand_in_world(data)
    assert shaped.positive.mean() == pytest.approx(data.positive.mean(), abs=1e-3)
    assert judgments.gini(shaped.item_counts()) == pytest.approx(judgments.gini(data.item_counts()), abs=0.03)
    assert top_share(shaped) == pytest.approx(top_share(data), abs=0.03)


def test_the_stand_in_world_is_deterministic_given_the_seed(world):
    plain = without_truth(world, "plain")
    first, again, other = stand_in_world(plain, seed=3), stand_in_world(plain, seed=3), stand_in_world(plain, seed=4)
    np.testing.assert_array_equal(first.items, again.items)
    np.testing.assert_array_equal(first.true_relevance, again.true_relevance)
    assert not np.array_equal(first.true_relevance, other.true_relevance)


def test_a_head_every_user_rated_raises_the_shift_just_enough():
    n_users, n_items, head, tail = 40, 60, 4, 3
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(n_users), head + tail)
    items = np.concatenate([np.r_[np.arange(head), rng.choice(np.arange(head, n_items), tail, replace=False)]
                            for _ in range(n_users)])
    data = Ratings.from_codes(users, items, np.where(np.arange(len(users)) % 4 == 0, 5.0, 3.0), (n_users, n_items),
                              positive_threshold=5)
    shape = shape_of(data)
    alpha, shift = shape["alpha"], shape["popularity_shift"]
    fitted = fit_popularity_curve(data.item_counts())
    assert fitted.alpha == alpha and fitted.c2 / n_items < shift  # the fitted curve is out of reach: raised

    def top(s: float) -> float:
        return popularity_curve(n_items, data.n_ratings, alpha, 0.0, s).expected(np.array([1]))[0]

    assert top(shift) <= MAX_MARGIN_SHARE * n_users < top(shift - 1e-6)
    assert shape["min_user_ratings"] == head + tail
    assert stand_in_world(data).n_ratings == data.n_ratings  # the generator accepts it


@pytest.mark.parametrize("truth", [dict(selection=0.6, quality_popularity=0.0), dict(selection=2.0, quality_popularity=0.8)],
                         ids=["weak-bias-no-tie", "strong-bias-tied"])
def test_the_fit_recovers_the_observation_bias_and_the_tie_between_quality_and_popularity(truth):
    """A world drawn with known ``selection`` and ``quality_popularity`` is refitted from its ratings alone: the
    fit lands within a fifth of the searched range of the generator's values, and the refitted world's two rank
    correlations come within 0.1 of the data's (each ρ over 600 users has a sampling error near 0.04, so the
    difference of two has about 0.06)."""
    data = without_truth(generate(n_users=600, n_items=900, n_ratings=36_000, seed=7, **truth), "data")
    shape = shape_of(data)
    for name, (low, high) in stand_in.PREFERENCE_RANGES.items():
        assert shape[name] == pytest.approx(truth[name], abs=(high - low) / 5)
    np.testing.assert_allclose(stand_in.preference_moments(stand_in_world(data, shape=shape)),
                               stand_in.preference_moments(data), atol=0.1)


def test_the_moments_move_with_the_bias_and_the_tie_and_fits_at_an_end_are_named():
    def moments(**preferences: float) -> np.ndarray:
        return stand_in.preference_moments(generate(preset="synthetic-small", seed=3, **preferences))

    free, selected = moments(selection=0.0), moments(selection=3.0)
    assert selected[0] < free[0] - 0.1  # the most active users like less of what they rate
    assert moments(quality_popularity=0.9)[1] > moments(quality_popularity=-0.5)[1] + 0.2
    constant = Ratings.from_codes(np.repeat(np.arange(10), 3), np.tile(np.arange(3), 10), np.full(30, 5.0), (10, 3),
                                  positive_threshold=4)
    assert np.isnan(stand_in.preference_moments(constant)).all()  # every user and item alike: nothing to fit
    assert stand_in.at_bound({"alpha": 5.0, "selection": 3.0, "quality_popularity": 0.3}) == ["alpha", "selection"]
    assert stand_in.at_bound({"alpha": 1.2}) == []

"""Shared helpers for the recommender tests: small worlds, ML-100K, TI-AN nDCG@10.

Kept independent of the datasets, splits and metrics modules so that the
recommenders can be tested on their own.
"""

from __future__ import annotations


import numpy as np

from recbias.ratings import Ratings
from test_datasets_support import load_real



def make_ratings(users, items, values, n_users: int, n_items: int, name: str = "toy", threshold: float = 4) -> Ratings:
    """A ``Ratings`` over the given code space."""
    return Ratings.from_codes(users, items, values, (n_users, n_items), positive_threshold=threshold, name=name)


def low_rank_world(n_users: int = 300, n_items: int = 200, rank: int = 4, density: float = 0.1, seed: int = 0) -> Ratings:
    """Ratings from latent tastes plus item popularity.

    Affinity ``a_ui = <p_u, q_i>``; a pair is observed with probability
    proportional to ``exp(a_ui + b_i)`` (popular and liked items are seen more),
    and its star rating is the affinity quintile over all observed pairs.
    """
    rng = np.random.default_rng(seed)
    tastes = rng.standard_normal((n_users, rank))
    traits = rng.standard_normal((n_items, rank))
    affinity = tastes @ traits.T / np.sqrt(rank)
    bias = np.sort(rng.normal(0, 1, n_items))[::-1]
    weight = np.exp(affinity + bias)
    probability = np.minimum(1.0, weight * density * weight.size / weight.sum())
    observed = rng.random(weight.shape) < probability
    users, items = np.nonzero(observed)
    strength = affinity[users, items]
    stars = 1 + np.searchsorted(np.quantile(strength, [0.2, 0.4, 0.6, 0.8]), strength)
    return make_ratings(users, items, stars, n_users, n_items, name="low-rank")


def load_ml100k() -> Ratings:
    """MovieLens 100K through the package's loader, 4 stars and more as positive (or skip)."""
    return load_real("ml-100k", positive_threshold=4.0)


def coin_flip_split(ratings: Ratings, train_share: float = 0.8, seed: int = 0) -> tuple[Ratings, Ratings]:
    """Each rating goes to training with probability ``train_share`` (IRJ 2017, Section 3.3)."""
    to_train = np.random.default_rng(seed).random(ratings.n_ratings) < train_share
    return ratings.subset(to_train), ratings.subset(~to_train)


def ndcg_at_10_ti_an(recommender, train: Ratings, test: Ratings) -> np.ndarray:
    """Per-user binary nDCG@10 over AR TI-AN runs.

    Candidates of ``u``: every item with a test rating by anyone, minus ``u``'s
    training items; relevant: ``u``'s positive test items.  Users without a
    relevant item are left out.  Candidates are ranked by score, ties by item code.
    """
    relevant = test.matrix("positive").toarray() > 0
    users = np.flatnonzero(relevant.any(axis=1))
    candidate = np.zeros(train.shape, dtype=bool)
    candidate[:, np.unique(test.items)] = True
    candidate[train.users, train.items] = False
    scores = recommender.score_users(users)
    scores = np.where(candidate[users], scores, -np.inf)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :10]
    gains = np.take_along_axis(relevant[users], top, axis=1)
    discounts = 1.0 / np.log2(np.arange(2, 12))
    ideal = np.cumsum(discounts)[np.minimum(relevant[users].sum(axis=1), 10) - 1]
    return (gains * discounts).sum(axis=1) / ideal

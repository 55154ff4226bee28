"""Small random rating worlds shared by the tests of designs and theory."""

from __future__ import annotations

import numpy as np

from recbias.ratings import Ratings
from recbias.splits import random_split


def skewed_split(
    seed: int, n_users: int, n_items: int, density: float, exponent: float, test_ratio: float
) -> tuple[Ratings, Ratings]:
    """A coin-flip split of random 1-5 star ratings whose item popularity falls as ``rank^-exponent``.

    Positive means at least 4 stars.
    """
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** exponent
    users, items = np.nonzero(rng.random((n_users, n_items)) < density * popularity / popularity.mean())
    values = rng.integers(1, 6, len(users))
    ratings = Ratings.from_codes(users, items, values, (n_users, n_items), positive_threshold=4, name="skewed")
    return random_split(ratings, test_ratio, seed=seed)

"""The popularity index against hand-worked values."""

import numpy as np

from recbias.evaluate.popularity_index import popularity_index


def test_the_index_places_popularity_between_random_and_the_best_system() -> None:
    assert np.isclose(popularity_index(0.05, 0.01, 0.09), 0.5)  # halfway: (0.05 - 0.01) / (0.09 - 0.01)
    assert popularity_index(0.01, 0.01, 0.09) == 0.0
    assert np.isclose(popularity_index(0.12, 0.02, 0.07), 2.0)
    assert np.allclose(popularity_index(np.array([0.0, 0.3]), np.array([0.1, 0.1]), np.array([0.2, 0.2])), [-1, 2])


def test_no_span_between_random_and_the_best_gives_nan() -> None:
    assert np.isnan(popularity_index(0.3, 0.2, 0.2))

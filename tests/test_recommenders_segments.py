"""Segment lists (Bobrikov et al. 2016, Eq. 10-12): Bayes' rule over user attributes, worked by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recbias.ratings import Ratings
from recbias.recommenders import SegmentPopularity, attribute_levels


def toy_with_attributes() -> Ratings:
    """Two women (users 0, 1) and one man (user 2); positive means 4 stars or more."""
    rows = [(0, 0, 5), (0, 1, 4), (1, 0, 5), (1, 2, 2), (2, 2, 5), (2, 1, 1), (2, 3, 4)]
    users, items, values = (np.array(column) for column in zip(*rows, strict=True))
    ratings = Ratings.from_codes(users, items, values.astype(float), (3, 4), positive_threshold=4, name="toy")
    table = pd.DataFrame({"gender": ["F", "F", "M"], "age": [20, 50, 30]}, index=pd.Index(range(3), name="user"))
    return dataclasses.replace(ratings, user_attributes=table)


def test_the_global_list_ranks_items_by_positive_ratings():
    toy = toy_with_attributes()
    scores = SegmentPopularity(()).fit(toy).score_users(np.arange(3))
    positives = np.array([2, 1, 1, 1])  # item 0 liked twice, items 1-3 once each
    np.testing.assert_allclose(scores, np.log((positives + 1) / (positives.sum() + 4))[None, :].repeat(3, axis=0))


def test_a_segment_list_is_bayes_rule_with_the_audience_shrunk_towards_everybody():
    """P(i | F) ∝ P(i) (n+(i, F) + λ π_F) / (n+(i) + λ), worked by hand for λ = 2."""
    toy = toy_with_attributes()
    scores = SegmentPopularity(("gender",), smoothing=2.0).fit(toy).score_users(np.array([0, 2]))
    prior = np.log((np.array([2, 1, 1, 1]) + 1) / 9)
    pi_f, pi_m = 3 / 5, 2 / 5  # women gave 3 of the 5 positive ratings
    women = np.log((np.array([2, 1, 0, 0]) + 2 * pi_f) / (np.array([2, 1, 1, 1]) + 2))
    men = np.log((np.array([0, 0, 1, 1]) + 2 * pi_m) / (np.array([2, 1, 1, 1]) + 2))
    np.testing.assert_allclose(scores, np.vstack([prior + women, prior + men]))


def test_attributes_combine_as_naive_bayes():
    toy = toy_with_attributes()
    both = SegmentPopularity(("gender", "age"), smoothing=1.0).fit(toy).score_users(np.arange(3))
    gender = SegmentPopularity(("gender",), smoothing=1.0).fit(toy).score_users(np.arange(3))
    age = SegmentPopularity(("age",), smoothing=1.0).fit(toy).score_users(np.arange(3))
    plain = SegmentPopularity((), smoothing=1.0).fit(toy).score_users(np.arange(3))
    np.testing.assert_allclose(both, gender + age - plain)


def test_numeric_attributes_are_banded_and_missing_values_get_a_level():
    levels, names = attribute_levels(pd.Series([18, 25, 33, 41, 52, 60, 70, np.nan]))
    assert len(names) == 6 and names[-1] == "unknown" and levels[-1] == 5
    assert np.all(np.diff(levels[:-1]) >= 0)  # bands follow the ages
    levels, names = attribute_levels(pd.Series(["M", "F", "M"]))
    assert names == ["F", "M"] and levels.tolist() == [1, 0, 1]


def test_segment_lists_name_what_is_missing():
    toy = toy_with_attributes()
    with pytest.raises(ValueError, match="no user attribute 'occupation'; its attributes: gender, age"):
        SegmentPopularity(("occupation",)).fit(toy)
    with pytest.raises(ValueError, match="has no user attributes"):
        SegmentPopularity(("gender",)).fit(dataclasses.replace(toy, user_attributes=None))

"""The training signal of a recommender: its kinds, and the matrices built from ratings."""

from __future__ import annotations

import numpy as np
import pytest
from test_recommenders_support import make_ratings

from recbias.recommenders import feedback

# user 0 rates item 0 with 5 and item 2 with 2; user 1 rates item 1 with 4 (threshold 4)
TOY = make_ratings([0, 0, 1], [0, 2, 1], [5.0, 2.0, 4.0], n_users=2, n_items=3)


def test_the_three_kinds_and_which_reads_the_threshold() -> None:
    assert [feedback.check_feedback("MF", kind) for kind in feedback.FEEDBACK_KINDS] == ["values", "binary", "positive"]
    assert [feedback.uses_threshold(kind) for kind in feedback.FEEDBACK_KINDS] == [False, False, True]
    with pytest.raises(ValueError, match="MF: unknown feedback 'counts'; use one of values, binary, positive"):
        feedback.check_feedback("MF", "counts")


def test_each_kind_gives_its_matrix_as_a_private_copy() -> None:
    dense = {kind: feedback.feedback_matrix("MF", TOY, kind).toarray().tolist() for kind in feedback.FEEDBACK_KINDS}
    assert dense == {"values": [[5, 0, 2], [0, 4, 0]], "binary": [[1, 0, 1], [0, 1, 0]],
                     "positive": [[1, 0, 0], [0, 1, 0]]}
    matrix = feedback.feedback_matrix("MF", TOY, "values")
    matrix.data[:] = 0
    assert TOY.matrix("values").sum() == 11  # the ratings' own matrix is untouched


def test_negative_values_are_refused() -> None:
    signed = make_ratings([0, 1], [0, 1], [-1.0, 3.0], n_users=2, n_items=2, name="signed")
    with pytest.raises(ValueError, match="kNN: negative rating values in 'signed'"):
        feedback.feedback_matrix("kNN", signed, "values")
    assert feedback.feedback_matrix("kNN", signed, "binary").sum() == 2


def test_rating_values_keep_each_value_with_sorted_columns() -> None:
    values = feedback.rating_values("MF", make_ratings([0, 0], [2, 0], [3.0, 5.0], n_users=1, n_items=3))
    assert values.indices.tolist() == [0, 2] and values.data.tolist() == [5.0, 3.0]
    twice = make_ratings([0, 0], [1, 1], [3.0, 4.0], n_users=1, n_items=2, name="twice")
    with pytest.raises(ValueError, match="MF: 'twice' rates some \\(user, item\\) pair twice"):
        feedback.rating_values("MF", twice)

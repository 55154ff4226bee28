"""Which training signal a recommender learns from."""

from __future__ import annotations

import scipy.sparse as sp

from recbias.ratings import Ratings

#: ``values``: rating values; ``binary``: 1 per rating; ``positive``: 1 per positive rating
FEEDBACK_KINDS = ("values", "binary", "positive")


def check_feedback(owner: str, feedback: str) -> str:
    """Return ``feedback`` if it names a known kind, else raise naming the choices."""
    if feedback not in FEEDBACK_KINDS:
        raise ValueError(f"{owner}: unknown feedback {feedback!r}; use one of {', '.join(FEEDBACK_KINDS)}")
    return feedback


def uses_threshold(feedback: str) -> bool:
    """Whether a training matrix of kind ``feedback`` depends on the positive threshold (only ``positive`` does)."""
    return feedback == "positive"


def feedback_matrix(owner: str, train: Ratings, feedback: str) -> sp.csr_matrix:
    """The ``n_users x n_items`` training matrix of the requested kind (a private copy).

    Raises if rating values are negative, since every model here needs
    non-negative co-occurrence weights.
    """
    matrix = train.matrix(feedback).copy()
    if matrix.nnz and matrix.data.min() < 0:
        raise ValueError(f"{owner}: negative rating values in '{train.name}'; feedback must be non-negative")
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


def rating_values(owner: str, train: Ratings) -> sp.csr_matrix:
    """The ``n_users x n_items`` matrix of rating values with sorted indices (a private copy).

    Rating predictors read each value as it is, so a pair rated twice is refused rather
    than summed.
    """
    matrix = sp.csr_matrix((train.values, (train.users, train.items)), shape=train.shape)
    if matrix.nnz != train.n_ratings:
        raise ValueError(f"{owner}: '{train.name}' rates some (user, item) pair twice; keep one rating per pair")
    matrix.sort_indices()
    return matrix

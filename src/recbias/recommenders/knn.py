"""Nearest-neighbour recommenders on cosine similarity.

* :class:`UserKNN`: a user-based top-N neighbourhood recommender that sums its
  neighbours' ratings without normalising them.
* :class:`ItemKNN`: the item-based variants of Krichene and Rendle (KDD 2020,
  Section 9, Eq. 27-30), recommenders Y and Z.

Both belong to **today's top-N set**: their scores grow with the number of
neighbours who rated an item, so they learn which items get rated and lean towards
popular items.  The rating-predicting user-kNN of Bellogín et al. (IRJ 2017,
Section 3.3, after Cremonesi et al. 2010) is
:class:`recbias.recommenders.RatingUserKNN`, in the papers' set.

Similarities are computed in dense row blocks of bounded size and kept sparse.
Neighbour sets ``N_k`` hold the ``k`` most similar *other* rows with positive
similarity; among equal similarities the lower index wins, so the sets are
well defined and reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from recbias.ratings import Ratings
from recbias.recommenders._pairs import BLOCK_BUDGET, dense, product_entries
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import check_feedback, feedback_matrix

#: similarity matrices denser than this are stored as dense arrays
DENSE_ABOVE = 0.25


def _top_k(block: np.ndarray, k: int) -> np.ndarray:
    """Zero all but the ``k`` largest entries of each row (ties: lower column first).

    A partition finds each row's ``k``-th largest value; entries above it are kept, and
    of the entries equal to it the first ones in column order until ``k`` are kept.
    """
    if k >= block.shape[1]:
        return block
    kth = -np.partition(-block, k - 1, axis=1)[:, k - 1 : k]
    above = block > kth
    equal = block == kth
    room = k - above.sum(axis=1, keepdims=True)
    keep = above | (equal & (np.cumsum(equal, axis=1) <= room))
    return np.where(keep, block, 0.0)


def cosine_neighbours(vectors: sp.csr_matrix, k: int | None = None, q: float = 1.0) -> sp.csr_matrix:
    """Row-to-row cosine similarity raised to ``q``, each row cut to its ``k`` nearest.

    ``s_ab = (<x_a, x_b> / sqrt(|x_a|^2 |x_b|^2))^q`` for ``a != b`` (Krichene and
    Rendle Eq. 27 when the rows are binary), ``s_aa = 0``; row ``a`` keeps the
    ``k`` largest positive ``s_ab`` (all of them when ``k`` is ``None``).  Exact
    ties stay ties: for integer data the numerator and the product under the
    root are exact, and the root and the division are correctly rounded.
    """
    n = vectors.shape[0]
    squares = np.asarray(vectors.multiply(vectors).sum(axis=1), dtype=np.float64).ravel()
    transposed = vectors.T.tocsr()
    block_rows = max(1, BLOCK_BUDGET // max(1, n))
    pieces = []
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        gram = dense(vectors[start:stop] @ transposed)
        norms = np.sqrt(squares[start:stop, None] * squares[None, :])
        similarity = np.divide(gram, norms, out=np.zeros_like(gram), where=norms > 0)
        similarity[np.arange(stop - start), np.arange(start, stop)] = 0.0
        if q != 1.0:
            similarity **= q
        if k is not None:
            similarity = _top_k(similarity, k)
        pieces.append(sp.csr_matrix(similarity))
    return sp.vstack(pieces, format="csr") if pieces else sp.csr_matrix((0, 0))


def _compact(matrix: sp.csr_matrix) -> sp.csr_matrix | np.ndarray:
    """Keep ``matrix`` sparse unless more than :data:`DENSE_ABOVE` of it is filled."""
    if matrix.nnz > DENSE_ABOVE * matrix.shape[0] * matrix.shape[1]:
        return matrix.toarray()
    return matrix


def _neighbour_count(owner: str, label: str, k: int | float | None) -> int | None:
    """``None`` for an unbounded neighbourhood (``None`` or ``inf``), else a positive int."""
    if k is None or (isinstance(k, float) and math.isinf(k) and k > 0):
        return None
    if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1:
        return int(k)
    raise ValueError(f"{owner}: {label} must be a positive integer, None or inf, got {k!r}")


class _NeighbourModel(Recommender):
    """Scores ``(left @ right)[u, i]`` for a fitted sparse ``left`` and ``right``."""

    left_: sp.csr_matrix
    right_: sp.csr_matrix | np.ndarray

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return dense(self.left_[users] @ self.right_)

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        users, items = self._check(users, items)
        return product_entries(self.left_, self.right_, users, items)


class UserKNN(_NeighbourModel):
    """User-based top-N kNN of today's set: ``score(u, i) = sum_{v in N_k(u)} cos(u, v) r_vi``.

    ``cos`` is the cosine between the users' training vectors and ``r_vi`` the
    neighbour's rating (``feedback="values"``), or 1 per rating (``"binary"``)
    or per positive rating (``"positive"``); the same kind is used for the
    similarity.  ``N_k(u)`` are the ``k`` most similar other users, chosen once
    per user.  The sum is not divided by the similarities, so an item scores
    higher the more neighbours rated it, whatever the values.  Users without
    training ratings have no neighbours and score 0.
    """

    name = "UserKNN"

    def __init__(self, k: int | None = 50, feedback: str = "values", seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.k = _neighbour_count(self.name, "k", k)
        self.feedback = check_feedback(self.name, feedback)

    def _fit(self, train: Ratings) -> None:
        ratings = feedback_matrix(self.name, train, self.feedback)
        self.left_ = cosine_neighbours(ratings, self.k)
        self.right_ = ratings


class ItemKNN(_NeighbourModel):
    """Item-based kNN of Krichene and Rendle (KDD 2020, Eq. 27-30) on binary training data.

    * Eq. 27: ``s_ij = cos(i, j)^q`` over the sets of users who rated each item;
    * Eq. 28: ``s'_ij = s_ij [i in N_k(j)] [j in N_k'(i)]``, ``k`` nearest per
      column and ``k_prime`` nearest per row (``None`` = unbounded);
    * Eq. 29-30: ``score(u, i) = sum_{j in H_u} s''_ij / sum_j s''_ij`` with
      ``s''`` the row-normalised ``s'``.  The row norm cancels in this ratio, so
      it equals ``sum_{j in H_u} s'_ij / sum_j s'_ij`` whatever norm Eq. 29 uses.

    Items are never their own neighbours.  Items without neighbours, and
    users without training ratings, score 0.  Presets: Y is ``q=3, k=k'=None``,
    Z is ``q=1, k=None, k'=10``.
    """

    name = "ItemKNN"

    def __init__(self, q: float = 1.0, k: int | None = None, k_prime: int | None = 50, seed: int = 0) -> None:
        super().__init__(seed=seed)
        if not q > 0:
            raise ValueError(f"{self.name}: exponent q must be > 0, got {q}")
        self.q = q
        self.k = _neighbour_count(self.name, "k", k)
        self.k_prime = _neighbour_count(self.name, "k_prime", k_prime)

    def _fit(self, train: Ratings) -> None:
        rated = feedback_matrix(self.name, train, "binary")
        items = rated.T.tocsr()
        similarity = cosine_neighbours(items, self.k_prime, self.q)  # row i keeps j in N_k'(i)
        if self.k is not None:
            column_kept = cosine_neighbours(items, self.k, self.q).T  # (i, j) kept if i in N_k(j)
            similarity = similarity.multiply(column_kept > 0).tocsr()
        totals = np.asarray(similarity.sum(axis=1), dtype=np.float64).ravel()
        inverse = np.divide(1.0, totals, out=np.zeros_like(totals), where=totals > 0)
        normalised = sp.diags(inverse) @ similarity  # rows sum to one: Eq. 30's ratio
        self.left_ = rated
        self.right_ = _compact(normalised.T.tocsr())

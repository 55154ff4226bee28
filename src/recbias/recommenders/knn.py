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

Similarities are kept sparse: the ``k`` nearest rows of every row come from a
compiled pass over the sparse products (no dense row of all similarities), the
unbounded neighbourhoods from dense row blocks of bounded size.  Neighbour sets ``N_k`` hold the ``k`` most
similar *other* rows with positive
similarity; among equal similarities the lower index wins, so the sets are
well defined and reproducible.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from recbias.ratings import Ratings
from recbias.recommenders._pairs import BLOCK_BUDGET, dense_product, product_entries
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import check_feedback, feedback_matrix, uses_threshold

#: similarity matrices denser than this are stored as dense arrays
DENSE_ABOVE = 0.25


@njit(cache=True, nogil=True, parallel=True)
def _nearest_rows(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, t_indptr: np.ndarray, t_indices: np.ndarray,
    t_data: np.ndarray, squares: np.ndarray, k: int, q: float, n_chunks: int, out_columns: np.ndarray,
    out_values: np.ndarray, out_counts: np.ndarray,
) -> None:
    """Row ``a``'s ``k`` nearest other rows by cosine (positive only; equal similarities: the lower
    index first), into ``out_columns[a * k:]`` (ascending), ``out_values`` and ``out_counts[a]``.

    The dot products ``<x_a, x_b>`` are summed over the stored entries of row ``a`` in order and,
    for each, over the rows holding its column (``t_*``, the transpose) in order: the order of
    scipy's sparse product, so every sum is the same float.  Rows are split into ``n_chunks``
    consecutive chunks run in parallel, each with one dense accumulator.
    """
    n = indptr.shape[0] - 1
    for chunk in prange(n_chunks):
        total = np.zeros(n)
        columns = np.empty(n, np.int64)
        scores = np.empty(n)
        for a in range(chunk * n // n_chunks, (chunk + 1) * n // n_chunks):
            for e in range(indptr[a], indptr[a + 1]):
                weight, start, stop = data[e], t_indptr[indices[e]], t_indptr[indices[e] + 1]
                rows, values = t_indices[start:stop], t_data[start:stop]
                for f in range(stop - start):  # over slices: compiled tighter than indexing the whole arrays
                    total[rows[f]] += weight * values[f]
            kept = 0
            for b in range(n):  # a sequential scan is cheaper than marking the rows reached in the loop above
                if total[b] != 0.0:
                    norm = math.sqrt(squares[a] * squares[b])
                    similarity = total[b] / norm if norm > 0 else 0.0
                    if q != 1.0:
                        similarity = similarity**q
                    total[b] = 0.0
                    if b != a and similarity > 0:  # a zero dot product has similarity 0: never kept
                        columns[kept], scores[kept] = b, similarity
                        kept += 1
            if kept > k:
                kth = -np.partition(-scores[:kept], k - 1)[k - 1]
                above = np.nonzero(scores[:kept] > kth)[0]
                tied = np.nonzero(scores[:kept] == kth)[0]
                tied = tied[np.argsort(columns[tied])][: k - above.shape[0]]
                chosen = np.concatenate((above, tied))
            else:
                chosen = np.arange(kept)
            chosen = chosen[np.argsort(columns[chosen])]
            for j in range(chosen.shape[0]):
                out_columns[a * k + j] = columns[chosen[j]]
                out_values[a * k + j] = scores[chosen[j]]
            out_counts[a] = chosen.shape[0]


def _nearest(vectors: sp.csr_matrix, squares: np.ndarray, k: int, q: float) -> sp.csr_matrix:
    """:func:`cosine_neighbours` for a finite ``k``, by :func:`_nearest_rows`: memory ``O(n k)``,
    time the sparse products' (no dense ``n x n`` block is formed or searched)."""
    n = vectors.shape[0]
    transposed = vectors.T.tocsr()
    columns = np.zeros(n * k, dtype=np.int64)
    values = np.zeros(n * k)
    counts = np.zeros(n, dtype=np.int64)
    n_chunks = max(1, min(n, 8 * numba.get_num_threads()))
    _nearest_rows(vectors.indptr.astype(np.int64), vectors.indices.astype(np.int64), vectors.data.astype(np.float64),
                  transposed.indptr.astype(np.int64), transposed.indices.astype(np.int32),
                  transposed.data.astype(np.float64), squares, k, float(q), n_chunks, columns, values, counts)
    keep = np.arange(k)[None, :] < counts[:, None]
    indptr = np.concatenate([[0], np.cumsum(counts)])
    return sp.csr_matrix((values.reshape(n, k)[keep], columns.reshape(n, k)[keep], indptr), shape=(n, n))


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
    if k is not None:
        return _nearest(vectors, squares, k, q)
    transposed = vectors.T.tocsr()
    block_rows = max(1, BLOCK_BUDGET // max(1, n))
    pieces = []
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        gram = dense_product(vectors, transposed, np.arange(start, stop))
        norms = np.sqrt(squares[start:stop, None] * squares[None, :])
        similarity = np.divide(gram, norms, out=np.zeros_like(gram), where=norms > 0)
        similarity[np.arange(stop - start), np.arange(start, stop)] = 0.0
        if q != 1.0:
            similarity **= q
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
        return dense_product(self.left_, self.right_, users)

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

    def uses_positive_threshold(self) -> bool:
        return uses_threshold(self.feedback)

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

    def uses_positive_threshold(self) -> bool:
        return False

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

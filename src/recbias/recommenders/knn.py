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
compiled pass over blocks of rows (the sparse products, plus one dense product for
the columns most rows hold), the unbounded neighbourhoods from dense row blocks of
bounded size.  Neighbour sets ``N_k`` hold the ``k`` most
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
from threadpoolctl import threadpool_limits

from recbias.ratings import Ratings
from recbias.recommenders._pairs import BLOCK_BUDGET, dense_product, product_entries
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import check_feedback, feedback_matrix, uses_threshold

#: similarity matrices denser than this are stored as dense arrays
DENSE_ABOVE = 0.25


#: a column stored in at least this share of the rows has its dot products summed by a dense matrix product
#: (:func:`_dense_columns`): measured break-even of a compiled sparse walk (about 2 ns per pair of rows
#: sharing the column) against single-precision BLAS (about 0.025 ns per row pair and column)
DENSE_COLUMN_SHARE = 0.1
#: walked pairs per pair of rows that the dense columns must save to pay for copying their products
#: into each row's sums (measured: about half a walked pair's cost)
DENSE_MIN_GAIN = 0.5
#: relative margin of the scan's cheap test, far above its rounding error (a few units of 1e-16), so that
#: it never drops a row that the exact test keeps
CUT_MARGIN = 1e-9
#: entries of one block of dense dot products (64 MB of float32)
DENSE_BLOCK_ENTRIES = 1 << 24


@njit(cache=True, nogil=True)
def _sift_down(columns: np.ndarray, scores: np.ndarray, size: int, position: int) -> None:
    """Restore the heap ``columns[:size], scores[:size]`` below ``position``: every entry is no better
    than its children, so the root is the worst entry (the least similar, of equals the highest index)."""
    while True:
        worst = position
        for child in (2 * position + 1, 2 * position + 2):
            if child < size and (scores[child] < scores[worst]
                                 or (scores[child] == scores[worst] and columns[child] > columns[worst])):
                worst = child
        if worst == position:
            return
        columns[position], columns[worst] = columns[worst], columns[position]
        scores[position], scores[worst] = scores[worst], scores[position]
        position = worst


@njit(cache=True, nogil=True, parallel=True)
def _nearest_rows(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, t_indptr: np.ndarray, t_indices: np.ndarray,
    t_data: np.ndarray, squares: np.ndarray, inverse_roots: np.ndarray, k: int, q: float, first: int,
    dense: np.ndarray, dense_unit: float, n_chunks: int, out_columns: np.ndarray, out_values: np.ndarray,
    out_counts: np.ndarray,
) -> None:
    """Rows ``a = first + r`` (``r < dense.shape[0]``): row ``a``'s ``k`` nearest other rows by cosine
    (positive only; equal similarities: the lower index first), into ``out_columns[a * k:]`` (ascending),
    ``out_values`` and ``out_counts[a]``.

    The dot product ``<x_a, x_b>`` starts from ``dense_unit * dense[r, b]`` (the dense columns' share, or
    nothing when ``dense`` has no columns) and adds, over the stored entries of row ``a`` in order and,
    for each, over the rows holding its column (``t_*``, the transpose) in order, the sparse columns'
    terms: without dense columns this is the order of scipy's sparse product, so every sum is the same
    float; with them every sum is exact (:func:`_dense_columns`), so the order does not matter.  The
    rows are split into ``n_chunks`` consecutive chunks run in parallel, each with one accumulator.
    """
    n = indptr.shape[0] - 1
    rows_here = dense.shape[0]
    for chunk in prange(n_chunks):
        total = np.empty(n) if dense.shape[1] else np.zeros(n)  # set for each row, or zero after each scan
        heap_columns = np.empty(k, np.int64)
        heap_scores = np.empty(k)
        for r in range(chunk * rows_here // n_chunks, (chunk + 1) * rows_here // n_chunks):
            a = first + r
            if dense.shape[1]:
                for b in range(n):
                    total[b] = dense[r, b] * dense_unit
            for e in range(indptr[a], indptr[a + 1]):
                weight, start, stop = data[e], t_indptr[indices[e]], t_indptr[indices[e] + 1]
                rows, values = t_indices[start:stop], t_data[start:stop]
                for f in range(stop - start):  # over slices: compiled tighter than indexing the whole arrays
                    total[rows[f]] += weight * values[f]
            kept = 0  # the k best so far, a heap (:func:`_sift_down`) once it holds k
            cut = 0.0  # a row b can be kept only if total[b] / root[b] exceeds this (below the exact test)
            for b in range(n):  # a sequential scan is cheaper than marking the rows reached in the loop above
                dot, total[b] = total[b], 0.0
                if dot * inverse_roots[b] > cut and b != a:
                    similarity = dot / math.sqrt(squares[a] * squares[b])
                    if q != 1.0:
                        similarity = similarity**q
                    if similarity <= 0.0:  # q-th powers this small round to zero: never kept
                        continue
                    if kept < k:
                        heap_columns[kept], heap_scores[kept] = b, similarity
                        kept += 1
                        if kept == k:
                            for position in range(k // 2 - 1, -1, -1):
                                _sift_down(heap_columns, heap_scores, k, position)
                    elif similarity > heap_scores[0]:  # b loses ties: its index is the highest so far
                        heap_columns[0], heap_scores[0] = b, similarity
                        _sift_down(heap_columns, heap_scores, k, 0)
                    if kept == k:
                        cut = heap_scores[0] ** (1.0 / q) * math.sqrt(squares[a]) * (1.0 - CUT_MARGIN)
            order = np.argsort(heap_columns[:kept])
            for j in range(kept):
                out_columns[a * k + j] = heap_columns[order[j]]
                out_values[a * k + j] = heap_scores[order[j]]
            out_counts[a] = kept


def _dense_columns(vectors: sp.csr_matrix, squares: np.ndarray) -> tuple[np.ndarray, float, type]:
    """The columns whose dot products a dense product sums, the power of two ``unit`` that makes
    every stored value a whole multiple of it, and the float type of that product.

    Columns stored in at least :data:`DENSE_COLUMN_SHARE` of the rows qualify when together they save
    at least :data:`DENSE_MIN_GAIN` (a column held by a share ``d`` of the rows saves
    ``d^2 - DENSE_COLUMN_SHARE^2`` walked pairs per pair of rows), and only if every dot product is
    then exact in any order: the values are whole multiples of ``unit = 2^-s`` (``s <= 10``) and the
    rows' sums of squares (``squares``) stay below ``2^53`` units squared, which by Cauchy-Schwarz
    bounds every partial sum of the products.  The dense product is in ``float32`` when that bound
    stays below ``2^24``, else in ``float64``.  No column qualifies otherwise; the product, then of no
    column, is typed ``float32`` all the same, so that one compiled :func:`_nearest_rows` serves both.
    """
    none = (np.zeros(0, dtype=np.int64), 1.0, np.float32)
    counts = np.bincount(vectors.indices, minlength=vectors.shape[1])
    columns = np.flatnonzero((counts >= DENSE_COLUMN_SHARE * vectors.shape[0]) & (counts > 0))
    fractions = counts[columns] / max(1, vectors.shape[0])
    if np.sum(fractions**2 - DENSE_COLUMN_SHARE**2) < DENSE_MIN_GAIN:
        return none
    data = vectors.data.astype(np.float64)
    for shift in range(11):
        scaled = data * 2.0**shift
        if np.all(scaled == np.round(scaled)):
            break
    else:
        return none
    # a rounded sum of squares is at least 2^53 whenever the exact one is: the bound is safe as computed
    bound = squares.max() * 4.0**shift
    if bound >= 2.0**53:
        return none
    return columns, 2.0**-shift, np.float32 if bound < 2.0**24 else np.float64


def _nearest(vectors: sp.csr_matrix, squares: np.ndarray, k: int, q: float) -> sp.csr_matrix:
    """:func:`cosine_neighbours` for a finite ``k``, by :func:`_nearest_rows` over blocks of rows: memory
    ``O(n k)`` plus one block, time the sparse products' (no ``n x n`` similarity is kept or searched).

    Columns held by many rows (:func:`_dense_columns`) are taken out of the sparse walk, whose cost
    grows with the square of a column's count, and their share of a block's dot products is one dense
    matrix product of the block's rows with every row.
    """
    n = vectors.shape[0]
    dense_columns, unit, dtype = _dense_columns(vectors, squares)
    is_dense = np.zeros(vectors.shape[1], dtype=bool)
    is_dense[dense_columns] = True
    sparse_entry = ~is_dense[vectors.indices]
    kept_before = np.concatenate([[0], np.cumsum(sparse_entry)])  # sparse entries before each stored entry
    walked = sp.csr_matrix((vectors.data[sparse_entry], vectors.indices[sparse_entry], kept_before[vectors.indptr]),
                           shape=vectors.shape)
    transposed = walked.T.tocsr()
    dense = None
    if len(dense_columns):  # the dense columns, in units, filled in place (no float64 copy of them)
        position = np.zeros(vectors.shape[1], dtype=np.int64)
        position[dense_columns] = np.arange(len(dense_columns))
        owners = np.repeat(np.arange(n), np.diff(vectors.indptr))[~sparse_entry]
        dense = np.zeros((n, len(dense_columns)), dtype=dtype)
        dense[owners, position[vectors.indices[~sparse_entry]]] = vectors.data[~sparse_entry] / unit
    columns = np.zeros(n * k, dtype=np.int64)
    values = np.zeros(n * k)
    counts = np.zeros(n, dtype=np.int64)
    block = max(1, DENSE_BLOCK_ENTRIES // max(1, n))
    roots = np.sqrt(squares)
    inverse_roots = np.divide(1.0, roots, out=np.zeros_like(roots), where=roots > 0)
    arguments = (walked.indptr.astype(np.int64), walked.indices.astype(np.int64), walked.data.astype(np.float64),
                 transposed.indptr.astype(np.int64), transposed.indices.astype(np.int32),
                 transposed.data.astype(np.float64), squares, inverse_roots, k, float(q))
    with threadpool_limits(1, "blas"):  # the rows' loop is parallel; BLAS threads would wait beside it
        for first in range(0, n, block):
            stop = min(n, first + block)
            products = dense[first:stop] @ dense.T if dense is not None else np.zeros((stop - first, 0), dtype)
            _nearest_rows(*arguments, first, products, unit * unit,  # products of units
                          max(1, min(stop - first, 8 * numba.get_num_threads())), columns, values, counts)
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

"""Pairwise scoring kernels shared by the recommenders.

Evaluation designs ask for scores of arbitrary ``(user, item)`` pairs.  Forming
the whole ``n_users x n_items`` score matrix for that is wasteful, so the
recommenders use two kernels that work in bounded memory:

* :func:`pairwise_dot` for factor models, ``score(u, i) = <A_u, B_i>``;
* :func:`product_entries` for neighbourhood models, the entries
  ``(L @ R)[u, i]`` of a sparse product without forming it.

Where whole rows are wanted (a block of similarities, every item of a block of
users), :func:`dense_product` gives rows of a sparse product as a dense block.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

#: number of floats a temporary block may hold (32 MB of float64)
BLOCK_BUDGET = 1 << 22


@njit(cache=True, nogil=True, parallel=True)
def _pairwise_dot(left: np.ndarray, right: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    out = np.empty(rows.shape[0], np.float64)
    for k in prange(rows.shape[0]):
        a, b = left[rows[k]], right[cols[k]]
        total = 0.0
        for f in range(a.shape[0]):
            total += a[f] * b[f]
        out[k] = total
    return out


def pairwise_dot(left: np.ndarray, right: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Row-wise dot products ``out[k] = sum_f left[rows[k], f] * right[cols[k], f]``.

    One compiled pass over the pairs (gathering the two rows with numpy costs ten times
    more than the products).  ``rows`` and ``cols`` must index ``left`` and ``right``.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if len(rows) != len(cols):
        raise ValueError(f"{len(rows)} rows for {len(cols)} columns")
    if len(rows) and (rows.min() < 0 or rows.max() >= len(left) or cols.min() < 0 or cols.max() >= len(right)):
        raise IndexError("a pair indexes outside the factor matrices")
    return _pairwise_dot(np.ascontiguousarray(left), np.ascontiguousarray(right), rows, cols)


def product_entries(
    left: sp.csr_matrix, right: sp.csr_matrix | np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> np.ndarray:
    """Entries ``out[k] = (left @ right)[rows[k], cols[k]] = sum_j left[rows[k], j] * right[j, cols[k]]``.

    Each pair is expanded over the stored entries of its ``left`` row and the
    matching ``right`` entries are looked up, in chunks of at most
    :data:`BLOCK_BUDGET` expanded terms, so the product is never formed.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    out = np.zeros(len(rows), dtype=np.float64)
    if not len(rows):
        return out
    lengths = np.diff(left.indptr)[rows]
    ends = np.cumsum(lengths)
    start = 0
    while start < len(rows):
        done = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, done + BLOCK_BUDGET, "right")))
        chunk_lengths = lengths[start:stop]
        total = int(ends[stop - 1] - done)
        if total:
            pair = np.repeat(np.arange(stop - start), chunk_lengths)
            first = np.cumsum(chunk_lengths) - chunk_lengths
            positions = np.repeat(left.indptr[rows[start:stop]] - first, chunk_lengths) + np.arange(total)
            looked_up = right[left.indices[positions], np.repeat(cols[start:stop], chunk_lengths)]
            terms = left.data[positions] * np.asarray(looked_up, dtype=np.float64).ravel()
            out[start:stop] = np.bincount(pair, weights=terms, minlength=stop - start)
        start = stop
    return out


@njit(cache=True, nogil=True, parallel=True)
def _dense_rows(
    left_indptr: np.ndarray,
    left_indices: np.ndarray,
    left_data: np.ndarray,
    rows: np.ndarray,
    right_indptr: np.ndarray,
    right_indices: np.ndarray,
    right_data: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[r] += sum_j left[rows[r], j] * right[j]``, adding the terms in scipy's order (each stored
    ``left`` entry of the row, then each stored entry of its ``right`` row), so the sums match bit for bit."""
    for r in prange(rows.shape[0]):
        target = out[r]
        for entry in range(left_indptr[rows[r]], left_indptr[rows[r] + 1]):
            j, weight = left_indices[entry], left_data[entry]
            start, stop = right_indptr[j], right_indptr[j + 1]
            columns, values = right_indices[start:stop], right_data[start:stop]
            for other in range(stop - start):  # over slices: compiled tighter than indexing the whole arrays
                target[columns[other]] += weight * values[other]


@njit(cache=True, nogil=True, parallel=True)
def _dense_rows_of_array(
    left_indptr: np.ndarray, left_indices: np.ndarray, left_data: np.ndarray, rows: np.ndarray, right: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[r] += sum_j left[rows[r], j] * right[j]`` for a dense ``right``, one stored ``left`` entry of the
    row after the other (scipy's order for a sparse matrix times a dense one), so the sums match bit for bit."""
    for r in prange(rows.shape[0]):
        target = out[r]
        for entry in range(left_indptr[rows[r]], left_indptr[rows[r] + 1]):
            row, weight = right[left_indices[entry]], left_data[entry]
            for column in range(row.shape[0]):
                target[column] += weight * row[column]


def dense_product(left: sp.csr_matrix, right: sp.csr_matrix | np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``(left[rows] @ right)`` as a ``float64`` ndarray.

    With a sparse ``right`` the rows are accumulated into the dense result directly: the
    product of two sparse matrices is mostly filled when it is a similarity of users or
    items, and building it sparse first costs several times the arithmetic.  With a dense
    ``right`` each stored ``left`` entry adds its scaled ``right`` row, as scipy does, in a
    compiled loop that the compiler vectorises.

    >>> left = sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))
    >>> dense_product(left, sp.csr_matrix(np.array([[0.0, 4.0], [5.0, 0.0]])), np.array([1, 0]))
    array([[15.,  8.],
           [ 0.,  4.]])
    """
    rows = np.asarray(rows, dtype=np.int64)
    data = left.data.astype(np.float64, copy=False)
    out = np.zeros((len(rows), right.shape[1]))
    if not sp.issparse(right):
        _dense_rows_of_array(left.indptr, left.indices, data, rows, np.ascontiguousarray(right, dtype=np.float64), out)
        return out
    right = sp.csr_matrix(right)
    _dense_rows(left.indptr, left.indices, data, rows, right.indptr, right.indices,
                right.data.astype(np.float64, copy=False), out)
    return out

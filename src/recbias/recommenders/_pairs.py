"""Pairwise scoring kernels shared by the recommenders.

Evaluation designs ask for scores of arbitrary ``(user, item)`` pairs.  Forming
the whole ``n_users x n_items`` score matrix for that is wasteful, so the
recommenders use these two kernels, which work in bounded memory:

* :func:`pairwise_dot` for factor models, ``score(u, i) = <A_u, B_i>``;
* :func:`product_entries` for neighbourhood models, the entries
  ``(L @ R)[u, i]`` of a sparse product without forming it.
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


def dense(block: sp.spmatrix | np.ndarray) -> np.ndarray:
    """A ``float64`` ndarray from a sparse or dense (matrix) result."""
    if sp.issparse(block):
        return block.toarray().astype(np.float64, copy=False)
    return np.asarray(block, dtype=np.float64)

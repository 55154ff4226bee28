"""Vectorised sampling of non-relevant items for many runs at once.

Two pieces, both free of per-user Python loops:

* :func:`sample_sorted_subsets` draws, for every row, a uniform random subset of
  ``k`` distinct ranks out of ``range(size)``;
* :class:`AvailableItems` turns a rank into an item code: the candidate pool of a
  run minus the items excluded for its user (training items and relevant test
  items), in item-code order, without ever materialising those per-user lists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

__all__ = ["AvailableItems", "distinct", "sample_sorted_subsets"]

# Rejection sampling is used when the range holds at least this many times k values;
# below, random keys are cheaper (measured crossover on 6,000 rows of ~3,500 values).
_REJECTION_MIN_RATIO = 5


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and, for each input, the index of its value among them.

    Same result as ``np.unique(values, return_inverse=True)`` through one stable sort,
    much faster than numpy's hash-based ``unique`` on large integer arrays.

    >>> values, inverse = distinct(np.array([3, 1, 3]))
    >>> values.tolist(), inverse.tolist()
    ([1, 3], [1, 0, 1])
    """
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def sample_sorted_subsets(sizes: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Row ``r``: ``k`` distinct integers drawn uniformly from ``range(sizes[r])``, ascending.

    Rows with ``sizes >= 5k`` use rejection: ``k`` uniform draws (``floor(size * U)`` with
    ``U`` a double in [0, 1), uniform up to a relative error of ``size / 2**53``), and each
    repeated value is redrawn until the row holds ``k`` distinct values.  The row is then the
    set of the first ``k`` distinct values of an i.i.d. uniform sequence, which is a uniform
    ``k``-subset; at most a fifth of the draws collide, so few rounds are needed.  Rows with
    ``sizes < 5k`` take the ``k`` smallest of ``sizes`` i.i.d. uniform keys (a uniform
    ``k``-subset as well), at a cost below five times the output.  Requires ``sizes >= k``.

    A range of 3 gives up all its values; a range of 10 three of them, ascending:

    >>> rows = sample_sorted_subsets(np.array([3, 10]), 3, np.random.default_rng(0))
    >>> rows[0].tolist(), bool(np.all(np.diff(rows[1]) > 0) and rows[1].max() < 10)
    ([0, 1, 2], True)
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    if np.any(sizes < k):
        raise ValueError(f"cannot draw {k} distinct values from a range of {int(sizes.min())}")
    out = np.empty((len(sizes), k), dtype=np.int64)
    dense = sizes < _REJECTION_MIN_RATIO * k

    sparse_sizes = sizes[~dense]
    draw = (rng.random((len(sparse_sizes), k)) * sparse_sizes[:, None]).astype(np.int64)
    draw.sort(axis=1)
    rows = np.arange(len(sparse_sizes))
    block = draw
    while True:
        repeated = np.zeros(block.shape, dtype=bool)
        repeated[:, 1:] = block[:, 1:] == block[:, :-1]
        with_repeats = repeated.any(axis=1)
        if block is not draw:
            draw[rows] = block
        if not with_repeats.any():
            break
        rows, block, repeated = rows[with_repeats], block[with_repeats], repeated[with_repeats]
        redraw_sizes = sparse_sizes[rows[np.nonzero(repeated)[0]]]
        block[repeated] = (rng.random(len(redraw_sizes)) * redraw_sizes).astype(np.int64)
        block.sort(axis=1)
    out[~dense] = draw

    dense_sizes = sizes[dense]
    if len(dense_sizes):
        width = int(dense_sizes.max())
        keys = rng.random((len(dense_sizes), width))
        keys[np.arange(width)[None, :] >= dense_sizes[:, None]] = np.inf
        smallest = np.argpartition(keys, k - 1, axis=1)[:, :k]
        out[dense] = np.sort(smallest, axis=1)
    return out


@njit(cache=True, nogil=True, parallel=True)
def _walk_pools(
    pool_items: np.ndarray, starts: np.ndarray, sizes: np.ndarray, excluded: np.ndarray, low: np.ndarray,
    high: np.ndarray, bases: np.ndarray, offsets: np.ndarray, out: np.ndarray,
) -> None:
    """Block ``r``: the items of its pool (``pool_items[starts[r]:starts[r] + sizes[r]]``) whose positions
    are not among its sorted excluded keys ``excluded[low[r]:high[r]] - bases[r]``, into ``out``."""
    for r in prange(starts.shape[0]):
        k, o = low[r], offsets[r]
        for position in range(sizes[r]):
            if k < high[r] and excluded[k] - bases[r] == position:
                k += 1
            else:
                out[o] = pool_items[starts[r] + position]
                o += 1


@njit(cache=True, nogil=True, parallel=True)
def _items_of_ranks(
    pool_items: np.ndarray, pool_starts: np.ndarray, shifted: np.ndarray, width: int, blocks: np.ndarray,
    ranks: np.ndarray, out: np.ndarray,
) -> None:
    """``out[r, c]``: the item of rank ``ranks[r, c]`` available to block ``b = blocks[r, c]`` (``blocks[r, 0]``
    for a single column), whose pool starts at ``pool_starts`` (same shape as ``blocks``): pool position
    ``rank + #{keys of b in shifted <= b * width + rank}``.

    Along a row, while the block stays and the rank does not fall, the count continues from
    the previous one (a merge, linear in the row and the block's keys); otherwise a binary
    search finds the block's first key again.  The same counts as ``searchsorted`` per entry.
    """
    along = blocks.shape[1] > 1  # else one block per row
    for r in prange(ranks.shape[0]):
        start = key = 0
        for c in range(ranks.shape[1]):
            column = c if along else 0
            block = blocks[r, column]
            if c == 0 or (along and block != blocks[r, c - 1]) or ranks[r, c] < ranks[r, c - 1]:
                start = key = np.searchsorted(shifted, block * width)
            query = block * width + ranks[r, c]
            while key < shifted.shape[0] and shifted[key] <= query:
                key += 1
            out[r, c] = pool_items[pool_starts[r, column] + ranks[r, c] + key - start]


@dataclass(frozen=True, eq=False)
class AvailableItems:
    """Candidate pools minus per-user exclusions, indexable by rank.

    The candidates are partitioned into pools (one pool, or the P1R percentiles); a *block*
    is a ``(user, pool)`` pair with id ``user * n_pools + pool``.  The items available to a
    block are its pool's items that are not excluded for the user, in item-code order.
    If the excluded positions of a block within its pool are ``p_0 < p_1 < ...``, the item
    of rank ``j`` sits at pool position ``j + #{l : p_l - l <= j}``: ``p_l - l`` counts the
    available items before ``p_l``.  Both lookups are one ``searchsorted`` over all blocks.

    Attributes:
        pool_items: candidate codes, pool after pool, ascending within each pool.
        pool_offsets: pool ``p`` owns ``pool_items[pool_offsets[p]:pool_offsets[p + 1]]``.
        excluded: sorted keys ``block * width + position`` of excluded candidates.
        shifted: sorted keys ``block * width + (position - rank among the block's exclusions)``.

    One pool of items 0 to 4; user 0 excludes items 1 and 3:

    >>> available = AvailableItems.build(np.arange(5), np.array([0, 5]), 5,
    ...                                  users=np.array([0, 0]), items=np.array([1, 3]))
    >>> available.counts(np.array([0, 1])).tolist(), available.enumerate(np.array([0]))[1].tolist()
    ([3, 5], [0, 2, 4])
    >>> available.items(np.array([0]), np.array([1])).tolist()  # user 0's second available item
    [2]
    """

    pool_items: np.ndarray
    pool_offsets: np.ndarray
    width: int
    excluded: np.ndarray
    shifted: np.ndarray

    @classmethod
    def build(
        cls, pool_items: np.ndarray, pool_offsets: np.ndarray, n_items: int, users: np.ndarray, items: np.ndarray
    ) -> AvailableItems:
        """Pools from ``pool_items``/``pool_offsets``; ``(users, items)`` lists the excluded pairs.

        Pairs whose item is in no pool are ignored; repeated pairs count once.
        """
        pool_items = np.asarray(pool_items, dtype=np.int32)
        pool_offsets = np.asarray(pool_offsets, dtype=np.int64)
        n_pools = len(pool_offsets) - 1
        pool_of = np.full(n_items, -1, dtype=np.int64)
        position_of = np.full(n_items, -1, dtype=np.int64)
        pool_sizes = np.diff(pool_offsets)
        pool_of[pool_items] = np.repeat(np.arange(n_pools), pool_sizes)
        position_of[pool_items] = np.arange(len(pool_items)) - np.repeat(pool_offsets[:-1], pool_sizes)
        width = int(pool_sizes.max(initial=0)) + 1

        users = np.asarray(users, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        inside = pool_of[items] >= 0
        blocks = users[inside] * n_pools + pool_of[items[inside]]
        # a merge sort (kind="stable") finds the sorted runs the pairs usually come in: training, then test
        excluded = np.sort(blocks * width + position_of[items[inside]], kind="stable")
        excluded = excluded[np.concatenate([[True], excluded[1:] != excluded[:-1]])]
        block_of = excluded // width
        first = np.searchsorted(block_of, block_of, side="left")
        shifted = excluded - (np.arange(len(excluded)) - first)
        return cls(pool_items, pool_offsets, width, excluded, shifted)

    @property
    def n_pools(self) -> int:
        return len(self.pool_offsets) - 1

    def pool_of(self, blocks: np.ndarray) -> np.ndarray:
        """Pool index of each block."""
        return np.asarray(blocks, dtype=np.int64) % self.n_pools

    def counts(self, blocks: np.ndarray) -> np.ndarray:
        """Number of items available to each block."""
        blocks = np.asarray(blocks, dtype=np.int64)
        n_excluded = np.searchsorted(self.excluded, (blocks + 1) * self.width) - np.searchsorted(
            self.excluded, blocks * self.width
        )
        return np.diff(self.pool_offsets)[self.pool_of(blocks)] - n_excluded

    def enumerate(self, blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All items available to each block, block after block, ascending within a block.

        Returns ``(offsets, items)``: block ``r`` owns ``items[offsets[r]:offsets[r + 1]]``.  One
        compiled pass per block walks its pool and skips the block's excluded positions, so the
        cost is linear in the output.
        """
        blocks = np.asarray(blocks, dtype=np.int64)
        pools = self.pool_of(blocks)
        low = np.searchsorted(self.excluded, blocks * self.width)
        high = np.searchsorted(self.excluded, (blocks + 1) * self.width)
        sizes = np.diff(self.pool_offsets)[pools] - (high - low)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        items = np.empty(int(offsets[-1]), dtype=np.int32)
        _walk_pools(self.pool_items, self.pool_offsets[pools], np.diff(self.pool_offsets)[pools],
                    self.excluded, low, high, blocks * self.width, offsets, items)
        return offsets, items

    def items(self, blocks: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """Item of rank ``ranks`` among those available to ``blocks`` (arrays broadcast together).

        Pass ``blocks[:, None]`` with a ``(rows, k)`` rank matrix to avoid repeating blocks.  Along
        the last axis, ranks that ascend within one block (as :func:`sample_sorted_subsets` draws
        them) are resolved by one merge with the block's exclusions (:func:`_items_of_ranks`).
        """
        blocks = np.asarray(blocks, dtype=np.int64)
        ranks = np.asarray(ranks, dtype=np.int64)
        shape = np.broadcast_shapes(blocks.shape, ranks.shape)
        last = shape[-1] if shape else 1
        along = blocks.shape[-1:] == (last,)  # blocks vary along the last axis (else one per row)
        row_blocks = np.ascontiguousarray(
            np.broadcast_to(blocks, shape if along else (*shape[:-1], 1)).reshape(-1, last if along else 1))
        row_ranks = np.ascontiguousarray(np.broadcast_to(ranks, shape)).reshape(-1, last)
        out = np.empty(row_ranks.shape, dtype=np.int64)  # the width the runs are merged in
        for given in (row_blocks, row_ranks):  # views of a broadcast or copies: read-only either way, so
            given.flags.writeable = False     # that one compiled _items_of_ranks serves both
        _items_of_ranks(self.pool_items, self.pool_offsets[self.pool_of(row_blocks)], self.shifted, self.width,
                        row_blocks, row_ranks, out)
        return out.reshape(shape)

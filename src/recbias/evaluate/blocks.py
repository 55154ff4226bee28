"""User blocks: the unit in which an experiment builds, scores, ranks and measures its runs.

The runs of a design (from :func:`recbias.designs.build_runs`) are listed user after user, so
the runs of a range of users are a contiguous range of runs and of candidate entries.  An
experiment cuts the users with runs into consecutive blocks holding about
``block_entries`` candidate entries over all designs together, and evaluates one block at a
time: peak memory then follows the block size, not users x candidates.  A block's
boundaries fall on the boundaries of the dense score blocks of
:class:`~recbias.evaluate.Candidates` (:func:`~recbias.evaluate.scoring.score_rows` users),
so every user is scored within the same chunk of users whatever the block size, and a
block's runs start at a known run and entry of each design, which is where its random
tie-break draws start (:func:`recbias.evaluate.ranking.tie_draws`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recbias.evaluate.scoring import SCORE_BLOCK, score_rows
from recbias.runs import Runs

#: candidate entries of all designs in one user block, unless the caller chooses (about 1.3 GB
#: while the block is evaluated, see :data:`recbias.evaluate.memory.BLOCK_ENTRY_BYTES`)
BLOCK_ENTRIES = 1 << 25


def check_block_entries(block_entries: int) -> int:
    """``block_entries`` as an int, checked to be positive."""
    if isinstance(block_entries, bool) or not isinstance(block_entries, (int, np.integer)) or block_entries < 1:
        raise ValueError(f"block_entries must be a positive integer, got {block_entries!r}")
    return int(block_entries)


@dataclass(frozen=True, eq=False)
class RunsLayout:
    """The user and number of candidates of every run of one design, in run order."""

    run_users: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, runs: Runs) -> RunsLayout:
        return cls(np.asarray(runs.users, dtype=np.int64), np.asarray(runs.sizes, dtype=np.int64))

    @property
    def by_user(self) -> bool:
        """Whether the runs are listed user after user (users non-decreasing)."""
        return bool(np.all(self.run_users[1:] >= self.run_users[:-1]))


@dataclass(frozen=True, eq=False)
class UserBlock:
    """Consecutive users and, per design, the range of runs they own.

    Attributes:
        users: the block's user codes, ascending.
        runs: per design, ``(first, stop)``: its runs ``first .. stop - 1`` belong to the block.
        first_entries: per design, the flat index of the block's first candidate entry.
    """

    users: np.ndarray
    runs: tuple[tuple[int, int], ...]
    first_entries: tuple[int, ...]


def user_blocks(
    layouts: Sequence[RunsLayout], n_items: int, block_entries: int, score_block: int = SCORE_BLOCK
) -> list[UserBlock]:
    """Consecutive blocks of the users with runs in any of ``layouts``.

    The users are grouped in chunks of :func:`~recbias.evaluate.scoring.score_rows`
    ``(n_items, score_block)``, the users of one dense score block;
    chunk ``c`` goes to block ``floor(E_c / block_entries)``, ``E_c`` the candidate entries of all
    designs in the chunks before it, so a block holds at most ``block_entries`` entries plus one
    chunk's.  When some design does not list its runs user after user, all users form one block.
    """
    block_entries = check_block_entries(block_entries)
    users = np.unique(np.concatenate([np.zeros(0, np.int64)] + [layout.run_users for layout in layouts]))
    if not len(users):
        return []
    entries = np.zeros(len(users), dtype=np.int64)
    for layout in layouts:
        entries += np.bincount(np.searchsorted(users, layout.run_users), weights=layout.sizes,
                               minlength=len(users)).astype(np.int64)
    starts = np.arange(0, len(users), score_rows(n_items, score_block))
    by_user = [layout.by_user for layout in layouts]
    if all(by_user):
        chunk_entries = np.add.reduceat(entries, starts)
        block_of_chunk = (np.cumsum(chunk_entries) - chunk_entries) // block_entries
        cuts = starts[np.flatnonzero(np.diff(block_of_chunk, prepend=-1))]
    else:
        cuts = starts[:1]
    bounds = np.append(cuts, len(users))
    run_starts = [np.concatenate([[0], np.cumsum(layout.sizes)]) for layout in layouts]
    blocks = []
    for low, high in zip(bounds[:-1], bounds[1:]):
        ranges, firsts = [], []
        for layout, offsets, listed_by_user in zip(layouts, run_starts, by_user):
            if listed_by_user:
                first = int(np.searchsorted(layout.run_users, users[low], side="left"))
                stop = int(np.searchsorted(layout.run_users, users[high - 1], side="right"))
            else:  # then the only block
                first, stop = 0, len(layout.run_users)
            ranges.append((first, stop))
            firsts.append(int(offsets[first]))
        blocks.append(UserBlock(users[low:high], tuple(ranges), tuple(firsts)))
    return blocks

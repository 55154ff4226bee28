"""The toy matrix of IRJ 2017 Fig. 1 and the target sets of its user ``u`` under each design.

Three users rate seven items; :func:`toy_target_sets` builds the target sets of ``u`` with
:func:`recbias.designs.build_runs`, the same code that builds the target sets of every chapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recbias.designs import build_runs
from recbias.ratings import Ratings

#: users and items of the toy matrix; the target user is ``u``
TOY_USERS = ("u", "v", "w")
TOY_ITEMS = ("a", "b", "c", "d", "e", "f", "g")
#: (user, item, stars); positive means 4 stars or more
TOY_TRAIN = (("u", "f", 5), ("u", "g", 2), ("v", "a", 5), ("v", "d", 2), ("w", "a", 5), ("w", "e", 5))
TOY_TEST = (("u", "d", 5), ("u", "e", 4), ("v", "b", 2), ("v", "f", 5), ("w", "c", 5), ("w", "g", 1))
#: the designs whose target sets the toy figure shows
TOY_DESIGNS = ("AI-AN", "TI-AN", "AI-NN(1)", "TI-NN(1)", "1R AI-NN(1)", "1R TI-NN(1)")


def _toy_ratings(rows: Sequence[tuple[str, str, int]]) -> Ratings:
    users, items, values = zip(*rows, strict=True)
    return Ratings(name="Fig. 1 toy", users=np.array([TOY_USERS.index(u) for u in users]),
                   items=np.array([TOY_ITEMS.index(i) for i in items]), values=np.array(values, dtype=float),
                   timestamps=None, user_ids=np.array(TOY_USERS), item_ids=np.array(TOY_ITEMS), scale=(1, 5),
                   positive_threshold=4, description="hand-made stars")


def fig1_toy() -> tuple[Ratings, Ratings]:
    """Training and test ratings with the properties of IRJ 2017 Fig. 1: ``u`` liked ``d`` and ``e`` in test and
    rated ``f`` and ``g`` in training; ``a`` has no test rating (a candidate under AI only); ``b`` and ``c`` are
    other users' test items that ``u`` never rated.  Ratings of 4 or 5 stars are positive."""
    return _toy_ratings(TOY_TRAIN), _toy_ratings(TOY_TEST)


@dataclass(frozen=True)
class ToyTargetSet:
    """One target set of user ``u``: the ``design`` that built it, the position of its relevant item among
    ``u``'s (``index``, 1R designs; else 0), its ``items`` (codes) and the ``relevant`` ones among them."""

    design: str
    index: int
    items: frozenset[int]
    relevant: frozenset[int]

    @property
    def letters(self) -> str:
        """The items as the prose names them, e.g. ``"{b, c, d, e}"``."""
        return "{" + ", ".join(TOY_ITEMS[i] for i in sorted(self.items)) + "}"


def toy_target_sets(seed: int = 0, designs: Sequence[str] = TOY_DESIGNS) -> list[ToyTargetSet]:
    """The target sets of user ``u`` under each design, built by :func:`recbias.designs.build_runs`."""
    train, test = fig1_toy()
    u = TOY_USERS.index("u")
    sets = []
    for name in designs:
        runs = build_runs(train, test, name, seed=seed)
        for r, k in enumerate(np.flatnonzero(runs.users == u), start=1):
            block = slice(runs.offsets[k], runs.offsets[k + 1])
            sets.append(ToyTargetSet(name, r if name.startswith("1R") else 0, frozenset(runs.items[block].tolist()),
                                     frozenset(runs.items[block][runs.labels[block]].tolist())))
    return sets

"""The two sets of systems whose order the protocols must recover.

Today's field (:func:`recbias.evaluate.fidelity.system_field`) has fourteen systems, from random and
popularity through pLSA, implicit matrix factorisation, neighbours and popularity blends.  The papers'
set (IRJ 2017 Sec. 3.3) has five: Random, Popularity, pLSA and the rating-predicting MF and user-kNN,
which rank items by predicted rating; the chapter checks its statements about the papers' designs on
both.
"""

from __future__ import annotations

from collections.abc import Sequence

from recbias.evaluate.fidelity import system_field
from recbias.recommenders import PAPERS_SET, Recommender, make

#: the names of the two sets
FIELD, PAPERS = "today's field", "the papers' set"
SYSTEM_SETS = (FIELD, PAPERS)


def systems_of(name: str, seed: int = 0) -> dict[str, Recommender]:
    """Unfitted systems of the set ``name`` (:data:`FIELD` or :data:`PAPERS`), seeded with ``seed``."""
    if name == FIELD:
        return system_field(seed)
    if name == PAPERS:
        return {label: make(preset, seed=seed) for label, preset in PAPERS_SET.items()}
    raise ValueError(f"unknown set of systems {name!r}; use one of {', '.join(SYSTEM_SETS)}")


def system_sets(seed: int = 0, names: Sequence[str] = SYSTEM_SETS) -> dict[str, dict[str, Recommender]]:
    """The sets ``names`` (default: both, :data:`SYSTEM_SETS`), name -> unfitted systems, seeded with ``seed``."""
    return {name: systems_of(name, seed) for name in names}

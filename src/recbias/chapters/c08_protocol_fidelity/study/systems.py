"""The two sets of systems whose order the protocols must recover: today's field of fourteen
(:func:`recbias.evaluate.fidelity.system_field`) and the papers' five (IRJ 2017 Sec. 3.3: Random, Popularity,
pLSA and the rating-predicting MF and user-kNN)."""

from __future__ import annotations

from collections.abc import Sequence

from recbias.evaluate.fidelity import system_field
from recbias.recommenders import PAPERS_SET, Recommender, make

#: the names of the two sets
FIELD, PAPERS = "today's field", "the papers' set"
SYSTEM_SETS = (FIELD, PAPERS)


def system_sets(seed: int = 0, names: Sequence[str] = SYSTEM_SETS) -> dict[str, dict[str, Recommender]]:
    """The sets ``names`` (default: both, :data:`SYSTEM_SETS`), name -> unfitted systems, seeded with ``seed``."""
    unknown = sorted(set(names) - set(SYSTEM_SETS))
    if unknown:
        raise ValueError(f"unknown sets of systems {unknown}; use some of {', '.join(SYSTEM_SETS)}")
    sets = {FIELD: lambda: system_field(seed),
            PAPERS: lambda: {label: make(preset, seed=seed) for label, preset in PAPERS_SET.items()}}
    return {name: sets[name]() for name in names}

"""The small study of chapter 5 shared by its tests (computed once per test session)."""

from __future__ import annotations

from functools import cache

from recbias.chapters.c05_neutralising_designs import study
from recbias.synthetic import generate

#: |T_u^r| of the small study's 1R designs
TARGET_SIZE = 30


@cache
def small_study() -> study.DatasetStudy:
    """Two folds of a small simulated world, 1R target sets of 30 items, four percentiles, two exponents."""
    world = generate(preset="synthetic-small", seed=3)
    return study.study_dataset(world, folds=2, target_size=TARGET_SIZE, percentiles=4, seed=3, gammas=(0.0, 1.0),
                               powers=(0.0, 0.5))

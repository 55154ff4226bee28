"""The small comparison of designs that chapter 2's tests inspect, built once per test session."""

from __future__ import annotations

import dataclasses
from functools import cache

from recbias import datasets
from recbias.chapters.c02_designs.study.comparison import DesignStudy, design_study
from recbias.chapters.c02_designs.study.support import SupportStudy, support_study
from recbias.ratings import Ratings


@cache
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=0)


@cache
def two_datasets() -> DesignStudy:
    """Two splits of the small world, and a second world without timestamps as the second dataset."""
    other = dataclasses.replace(datasets.load("synthetic-small", seed=1), name="other", timestamps=None)
    return design_study(small(), other, folds=2, target_size=50, second_nonrelevant=100, seed=3)


@cache
def one_dataset() -> DesignStudy:
    """One split of the small world and no second dataset."""
    return design_study(small(), folds=1, target_size=50, seed=3)


@cache
def supported() -> SupportStudy:
    """The support of the systems of :func:`two_datasets` and the two kNNs beside random."""
    return support_study(two_datasets())

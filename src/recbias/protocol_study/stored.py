"""Measurements kept across pages: what one system gives on one split under each protocol, and its truth there.

Chapter 8 measures every protocol of the catalogue for its whole field on the first splits of a dataset; the
audit (chapter 9) measures some of those protocols for some of those systems on the same splits.  Each system's
per-user means on a split are kept in the cache (:func:`recbias.cache.measures_dir`) under a key that hashes all
they depend on: the system (its class and every parameter, those read when scoring too), the split (its name, its
training and test ratings), the dataset (its ratings, which give the popularity counts, and its truth), the seed
and the truth metric read beside the usual ones.  An entry also holds the fingerprint of the code that measured
it, and is measured again when that code changes.  A protocol is found in an entry by what it reads (design,
metric, split and correction), not by its label; its draws do not depend on the other protocols measured with it
(:func:`recbias.protocol_study.protocols.draw_seed`), so a protocol measured once serves every plan.
"""

from __future__ import annotations

import functools
import hashlib
import json
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import recbias
from recbias.cache import (code_fingerprint, load_entry, measures_dir, modules_fingerprint, ratings_digest,
                           recommender_params, store_entry)
from recbias.protocol_study.protocols import Protocol
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.splits import Fold

#: the module whose code measures (its fingerprint covers every recbias module it imports)
MEASURING_MODULE = "recbias.protocol_study.measure"
#: ratings object -> sha256 of its truth (complete relevance or random-item ratings); entries go with their ratings
_truth_digests: weakref.WeakKeyDictionary[Ratings, str] = weakref.WeakKeyDictionary()


#: what a protocol's values depend on, its label aside (:func:`reads`)
Reads = tuple[str, str, str, str | None]


@dataclass
class SystemMeasures:
    """One system on one split: per-user means of each protocol (by :func:`reads`) and, when the truth was read,
    each truth metric's per-user values (in the order the truth gives them)."""

    protocols: dict[Reads, pd.Series] = field(default_factory=dict)
    truth: dict[str, pd.Series] = field(default_factory=dict)

    def covers(self, protocol_list: Sequence[Protocol], truth: bool) -> bool:
        """Whether every protocol of the list, and the truth when asked for, is measured."""
        return all(reads(p) in self.protocols for p in protocol_list) and (bool(self.truth) or not truth)

    def merged(self, newer: SystemMeasures) -> SystemMeasures:
        """These measures with those of ``newer`` added (``newer``'s truth when it read one)."""
        return SystemMeasures(self.protocols | newer.protocols, newer.truth or self.truth)


def reads(protocol: Protocol) -> Reads:
    """What a protocol's values depend on, its label aside: design, metric, split and correction."""
    return protocol.design, protocol.metric, protocol.split, protocol.correction


def truth_digest(ratings: Ratings) -> str:
    """sha256 of the truth ``ratings`` carry (complete relevance, random-item ratings, or none); computed once per
    ratings object."""
    if ratings not in _truth_digests:
        digest = hashlib.sha256()
        if ratings.true_relevance is not None:
            digest.update(b"complete" + repr(ratings.true_relevance.shape).encode())
            digest.update(np.packbits(ratings.true_relevance).tobytes())
        if ratings.unbiased_test is not None:
            digest.update(b"random items" + ratings_digest(ratings.unbiased_test).encode())
        _truth_digests[ratings] = digest.hexdigest()
    return _truth_digests[ratings]


def fold_key(fold: Fold, ratings: Ratings, seed: int, truth: bool, truth_metric: str | None) -> str:
    """Hex sha256 of everything a split's measurements depend on but the system."""
    description = {
        "version": recbias.__version__,
        "dataset": [ratings_digest(ratings), truth_digest(ratings)],
        "fold": [fold.key, ratings_digest(fold.train), ratings_digest(fold.test)],
        "seed": int(seed),
        "truth": [bool(truth), truth_metric],
    }
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()


def system_key(split_key: str, recommender: Recommender) -> str:
    """Hex sha256 naming one system's measures on the split of ``split_key`` (:func:`fold_key`)."""
    cls = type(recommender)
    description = {"split": split_key, "class": f"{cls.__module__}.{cls.__qualname__}",
                   "params": recommender_params(recommender)}
    return hashlib.sha256(json.dumps(description, sort_keys=True, default=repr).encode()).hexdigest()


@functools.cache
def _measuring_code() -> str:
    return modules_fingerprint(MEASURING_MODULE)


def code_of(recommender: Recommender) -> str:
    """Fingerprint of the code behind a system's measures: the measuring code and the system's own."""
    return hashlib.sha256((_measuring_code() + code_fingerprint(type(recommender))).encode()).hexdigest()


def _path(key: str, directory: Path | None) -> Path:
    return (directory if directory is not None else measures_dir()) / f"{key}.pkl"


def load(key: str, recommender: Recommender, directory: Path | None = None) -> SystemMeasures:
    """The measures kept under ``key`` by the current code, else none (a damaged entry is reported)."""
    found = load_entry(_path(key, directory), key, code_of(recommender), f"measuring {recommender.name} again")
    return found if isinstance(found, SystemMeasures) else SystemMeasures()


def store(key: str, recommender: Recommender, measures: SystemMeasures, directory: Path | None = None) -> None:
    """Keep ``measures`` under ``key`` (a cache that cannot be written is reported, and they stay in memory)."""
    store_entry(_path(key, directory), key, code_of(recommender), measures, "measures")

"""On-disk cache of fitted recommenders.

A fit is stored under a key that hashes everything it depends on: the
training data content (code space, ratings, positive threshold), the
recommender's class and constructor parameters, the package version and an
optional caller-chosen ``key_extra`` (e.g. dataset name and split).  A book
rebuild therefore loads every fit it has made before.

Entries are written to a temporary file and moved into place with
``os.replace``, so an interrupted write never leaves a readable half file;
each entry carries the sha256 of its payload, and a damaged entry is refitted.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import warnings
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

import recbias
from recbias.paths import cache_dir
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.recommenders.factory import parameter_names

_MAGIC = b"RECBIAS-FIT-1\n"
#: layout of the fitted state; raised whenever a recommender's fitted attributes change, so
#: that entries written by an older layout are refitted instead of loaded
FIT_LAYOUT = 2
_DIGEST_SIZE = 32

R = TypeVar("R", bound=Recommender)


class CacheWarning(UserWarning):
    """A cache entry was unreadable and has been replaced."""


def fits_dir() -> Path:
    """Where fitted recommenders live: ``fits/`` under the shared cache directory.

    The cache directory is ``$RECBIAS_CACHE_DIR``, else ``<repo>/data/cache``
    (:func:`recbias.paths.cache_dir`).
    """
    return cache_dir() / "fits"


def ratings_digest(ratings: Ratings) -> str:
    """sha256 over the shape, positive threshold, user and item codes and values."""
    digest = hashlib.sha256()
    digest.update(repr((ratings.shape, float(ratings.positive_threshold))).encode())
    for column, dtype in ((ratings.users, np.int64), (ratings.items, np.int64), (ratings.values, np.float64)):
        digest.update(np.ascontiguousarray(column, dtype=dtype).tobytes())
    return digest.hexdigest()


def recommender_params(recommender: Recommender) -> dict[str, Any]:
    """Constructor parameters, read from the attributes of the same names."""
    names = parameter_names(type(recommender))
    missing = [name for name in names if not hasattr(recommender, name)]
    if missing:
        raise TypeError(f"{type(recommender).__name__} does not store constructor parameters {missing} as attributes")
    return {name: getattr(recommender, name) for name in names}


def fit_key(recommender: Recommender, train: Ratings, key_extra: Any = None) -> str:
    """Hex sha256 naming the fit of ``recommender`` on ``train``."""
    cls = type(recommender)
    description = {
        "version": recbias.__version__,
        "layout": FIT_LAYOUT,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "params": recommender_params(recommender),
        "data": ratings_digest(train),
        "extra": key_extra,
    }
    text = json.dumps(description, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _read_entry(path: Path) -> Recommender:
    """Unpickle a verified entry; ``ValueError`` if it is damaged."""
    blob = path.read_bytes()
    header = len(_MAGIC) + _DIGEST_SIZE
    if len(blob) < header or not blob.startswith(_MAGIC):
        raise ValueError(f"{path}: not a fit cache entry (bad header)")
    payload = blob[header:]
    if hashlib.sha256(payload).digest() != blob[len(_MAGIC) : header]:
        raise ValueError(f"{path}: payload does not match its checksum (truncated or damaged)")
    return pickle.loads(payload)


def _write_entry(path: Path, recommender: Recommender) -> None:
    """Write atomically: temporary file in the same directory, then ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = pickle.dumps(recommender, protocol=pickle.HIGHEST_PROTOCOL)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def fit_cached(recommender: R, train: Ratings, key_extra: Any = None, directory: Path | str | None = None) -> R:
    """``recommender.fit(train)``, or the same fit loaded from the cache.

    The fitted state is loaded into ``recommender`` itself, which is returned.
    A damaged entry is reported with a :class:`CacheWarning`, refitted and
    rewritten.  ``directory`` overrides :func:`fits_dir`.
    """
    key = fit_key(recommender, train, key_extra)
    path = Path(directory) if directory is not None else fits_dir()
    path = path / f"{key}.pkl"
    if path.exists():
        try:
            cached = _read_entry(path)
        except (ValueError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as error:
            warnings.warn(f"refitting {recommender.name}: {error}", CacheWarning, stacklevel=2)
        else:
            if type(cached) is type(recommender):
                name = recommender.name
                vars(recommender).update(vars(cached))
                recommender.name = name
                return recommender
            warnings.warn(f"refitting {recommender.name}: {path} holds a {type(cached).__name__}", CacheWarning, stacklevel=2)
    recommender.fit(train)
    _write_entry(path, recommender)
    return recommender

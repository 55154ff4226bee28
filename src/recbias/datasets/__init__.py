"""Datasets as :class:`~recbias.ratings.Ratings`: a registry, verified files, IR judgments.

``load(name)`` returns ratings for ``synthetic`` (the default, generated
offline), ``synthetic-small``, ``ml-100k``, ``ml-1m``, ``ml-latest-small``,
``lastfm-2k`` or ``csv:PATH``; ``load_qrels(name)`` returns the judgments of
``cranfield`` or ``trec8-adhoc``.  Files are looked up locally before any
download and always checked against pinned sha256 values (see
:mod:`recbias.datasets.fetch` and ``data/README.md``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recbias.datasets.api import (
        DEFAULT,
        READS_VARIABLE,
        available,
        available_real,
        digests,
        info,
        load,
        load_qrels,
        names,
        qrels_names,
    )
    from recbias.datasets.errors import (
        ChecksumError,
        CorruptArchiveError,
        DatasetError,
        MalformedLineError,
        MissingFileError,
        OfflineError,
    )
    from recbias.datasets.registry import DatasetInfo

__all__ = [
    "DEFAULT",
    "READS_VARIABLE",
    "ChecksumError",
    "CorruptArchiveError",
    "DatasetError",
    "DatasetInfo",
    "MalformedLineError",
    "MissingFileError",
    "OfflineError",
    "available",
    "available_real",
    "digests",
    "info",
    "load",
    "load_qrels",
    "names",
    "qrels_names",
]

#: the module of :mod:`recbias.datasets` that defines each name of ``__all__``
_HOMES = {"DatasetInfo": "registry"} | dict.fromkeys(
    ("ChecksumError", "CorruptArchiveError", "DatasetError", "MalformedLineError", "MissingFileError", "OfflineError"),
    "errors")


def __getattr__(name: str) -> Any:
    """Each name of ``__all__`` from its module on first use (PEP 562): importing one light module of the
    package, such as :mod:`~recbias.datasets.registry`, loads neither the readers nor pandas."""
    if name not in __all__:
        raise AttributeError(f"module 'recbias.datasets' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"recbias.datasets.{_HOMES.get(name, 'api')}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

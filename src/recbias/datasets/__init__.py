"""Datasets as :class:`~recbias.ratings.Ratings`: a registry, verified files, IR judgments.

``load(name)`` returns ratings for ``synthetic`` (the default, generated
offline), ``synthetic-small``, ``ml-100k``, ``ml-1m``, ``ml-latest-small``,
``lastfm-2k`` or ``csv:PATH``; ``load_qrels(name)`` returns the judgments of
``cranfield`` or ``trec8-adhoc``.  Files are looked up locally before any
download and always checked against pinned sha256 values (see
:mod:`recbias.datasets.fetch` and ``data/README.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recbias.lazy import first_use

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

# each name from its module on first use: importing one light module of the package, such as
# :mod:`~recbias.datasets.registry`, loads neither the readers nor pandas
_MODULES = dict.fromkeys(__all__, "api") | {"DatasetInfo": "registry"} | dict.fromkeys(
    ("ChecksumError", "CorruptArchiveError", "DatasetError", "MalformedLineError", "MissingFileError", "OfflineError"),
    "errors")
__getattr__, __dir__ = first_use(__name__, {name: f"{__name__}.{module}" for name, module in _MODULES.items()})

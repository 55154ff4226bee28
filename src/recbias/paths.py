"""Where recbias keeps files on disk: the data directory and the cache directory.

``$RECBIAS_DATA_DIR`` (else ``<repo>/data/raw``) is searched first for dataset files;
``$RECBIAS_CACHE_DIR`` (else ``<repo>/data/cache``) receives downloads and fitted models.
"""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The repository that holds the editable install (``src/recbias`` is two levels down)."""
    return Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    """Directory searched first for archives and extracted files."""
    return Path(os.environ.get("RECBIAS_DATA_DIR") or repo_root() / "data" / "raw")


def cache_dir() -> Path:
    """Directory that receives downloaded archives and fitted recommenders."""
    return Path(os.environ.get("RECBIAS_CACHE_DIR") or repo_root() / "data" / "cache")

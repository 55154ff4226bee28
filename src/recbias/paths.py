"""Where recbias keeps files on disk: the data directory and the cache directory.

Both belong to the project being worked on, found from the working directory (never from
where the package is installed, so that two clones sharing one environment keep their own
data): ``$RECBIAS_DATA_DIR`` (else ``<project>/data/raw``) is searched first for dataset
files; ``$RECBIAS_CACHE_DIR`` (else ``<project>/data/cache``) receives downloads and fitted models.
"""

from __future__ import annotations

import os
from pathlib import Path

#: files that mark the root of a project
PROJECT_MARKERS = ("pyproject.toml", "_toc.yml", ".git")


def project_root(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` (default: the working directory) holding a
    ``pyproject.toml``, ``_toc.yml`` or ``.git``; ``start`` itself when there is none."""
    start = (start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return start


def data_dir(start: Path | None = None) -> Path:
    """Directory searched first for archives and extracted files: ``$RECBIAS_DATA_DIR``, else ``data/raw`` of the
    project of ``start`` (default: the working directory; :func:`project_root`)."""
    return Path(os.environ.get("RECBIAS_DATA_DIR") or project_root(start) / "data" / "raw")


def cache_dir() -> Path:
    """Directory that receives downloaded archives and fitted recommenders."""
    return Path(os.environ.get("RECBIAS_CACHE_DIR") or project_root() / "data" / "cache")

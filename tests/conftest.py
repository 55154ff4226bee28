"""What the tests of one run share: a cache of their own.

The run's cache of fits and simulated worlds (``RECBIAS_CACHE_DIR``) is a new temporary directory, so that no run
depends on what earlier runs or builds left in the project's ``data/cache``; a test that needs an empty cache still
sets its own.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CACHE_VARIABLE = "RECBIAS_CACHE_DIR"
#: the run's cache directory and the value ``RECBIAS_CACHE_DIR`` had before it
CACHE = pytest.StashKey[tuple[str, str | None]]()


def pytest_configure(config: pytest.Config) -> None:
    """Point ``RECBIAS_CACHE_DIR`` at a new temporary directory, in the process that starts the run (the workers
    of pytest-xdist inherit its environment, and with it the cache)."""
    if hasattr(config, "workerinput"):
        return
    folder = tempfile.mkdtemp(prefix="recbias-test-cache-")
    config.stash[CACHE] = (folder, os.environ.get(CACHE_VARIABLE))
    os.environ[CACHE_VARIABLE] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's cache and give ``RECBIAS_CACHE_DIR`` back its value."""
    if CACHE not in config.stash:
        return
    folder, before = config.stash[CACHE]
    shutil.rmtree(folder, ignore_errors=True)
    if before is None:
        os.environ.pop(CACHE_VARIABLE, None)
    else:
        os.environ[CACHE_VARIABLE] = before

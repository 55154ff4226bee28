"""What the tests of one run share: a cache of their own, and work that several tests read, done once.

The run's cache of fits and simulated worlds (``RECBIAS_CACHE_DIR``) is a new temporary directory, so that no run
depends on what earlier runs or builds left in the project's ``data/cache``; a test that needs an empty cache still
sets its own.  Each page of the book is executed once per run (``executed_page``), for every test that reads it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

import smoke_pages

CACHE_VARIABLE = "RECBIAS_CACHE_DIR"
#: the run's cache directory and the value ``RECBIAS_CACHE_DIR`` had before it
CACHE = pytest.StashKey[tuple[str, str | None]]()
#: ``once(name, make)``: the directory ``name`` of the run, made by ``make(directory)``
Once = Callable[[str, Callable[[Path], None]], Path]


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


@pytest.fixture(scope="session")
def once(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Once:
    """``once(name, make)``: a directory of the run that the first test to ask for ``name`` fills with
    ``make(directory)``, in whichever xdist worker; every other test waits for it, then reads the same directory.

    A directory appears only whole (made under another name, then renamed); when ``make`` fails, the next test to
    ask tries again."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if hasattr(request.config, "workerinput") else base  # the workers' common directory

    def made(name: str, make: Callable[[Path], None]) -> Path:
        folder = shared / name
        with open(shared / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not folder.exists():
                scratch = shared / f"{name}.partial"
                shutil.rmtree(scratch, ignore_errors=True)
                scratch.mkdir()
                make(scratch)
                scratch.rename(folder)
        return folder

    return made


@pytest.fixture(scope="session")
def executed_page(once: Once) -> Callable[[str], Path]:
    """``executed_page(page)``: the directory of ``page`` executed once in the run
    (:func:`smoke_pages.execute`), with its notebook and the claims it registered."""
    return lambda page: once(f"page-{page}", lambda folder: smoke_pages.execute(page, folder))

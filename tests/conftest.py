"""What the tests of one run share: a cache of their own, and work that several tests read, done once.

The run's cache of fits and simulated worlds (``RECBIAS_CACHE_DIR``) is a new temporary directory, so that no run
depends on what earlier runs or builds left in the project's ``data/cache``; a test that needs an empty cache still
sets its own.  With pytest-xdist, the workers share the cache and the cores.  Each page of the book is executed
once per run (``executed_page``), for every test that reads it.
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
from recbias.bookkit.pipeline import THREAD_VARIABLES, page_environment

CACHE_VARIABLE = "RECBIAS_CACHE_DIR"
#: the run's cache directory
CACHE = pytest.StashKey[str]()
#: each variable the run set, with its value before (None: unset)
ENVIRONMENT = pytest.StashKey[dict[str, str | None]]()
#: ``once(name, make)``: the directory ``name`` of the run, made by ``make(directory)``
Once = Callable[[str, Callable[[Path], None]], Path]


def pytest_configure(config: pytest.Config) -> None:
    """In the process that starts the run (the workers of pytest-xdist inherit its environment): point
    ``RECBIAS_CACHE_DIR`` at a new temporary directory and, when several workers share the cores, give each
    library as many threads as a page of a build of as many jobs gets (unless they are set already), since
    threads that wait for a busy core only burn it."""
    if hasattr(config, "workerinput"):
        return
    config.stash[CACHE] = tempfile.mkdtemp(prefix="recbias-test-cache-")
    settings = {CACHE_VARIABLE: config.stash[CACHE]}
    workers = len(config.getoption("tx", None) or ())  # pytest-xdist's workers (-n), none without it
    if workers > 1:
        threads = page_environment(jobs=workers)
        settings |= {variable: os.environ.get(variable, threads[variable]) for variable in THREAD_VARIABLES}
    config.stash[ENVIRONMENT] = {variable: os.environ.get(variable) for variable in settings}
    os.environ.update(settings)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's cache and give the variables the run set their values back."""
    if ENVIRONMENT not in config.stash:
        return
    shutil.rmtree(config.stash[CACHE], ignore_errors=True)
    for variable, before in config.stash[ENVIRONMENT].items():
        if before is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = before


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

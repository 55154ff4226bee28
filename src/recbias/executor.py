"""Where the independent tasks of an experiment run: in this process, or on a Dask cluster.

An experiment splits into tasks that do not depend on one another's results except
through their arguments: a fit per (fold, system), the target sets of a (fold, design),
the evaluation of a (fold, user block).  The runner writes them once against the small
:class:`Executor` interface (``scatter``, ``submit``, ``gather``):

* :class:`InProcess` (the default) runs a task the moment it is submitted, so the runner's
  loop over user blocks holds one block at a time;
* :class:`OnDask` hands tasks to a ``dask.distributed`` scheduler, which places them on its
  workers, moves their arguments there and keeps results on the worker that made them
  until a later task or :meth:`~Executor.gather` asks for them.

:func:`executor` picks one from a ``scheduler`` argument (an address such as
``"tcp://10.0.0.5:8786"``, a ``distributed.Client``, or ``None``), falling back on the
environment variable :data:`SCHEDULER_VARIABLE` that the book's ``--scheduler`` option sets.
``dask[distributed]`` is imported only when a scheduler is named, and this module imports
nothing heavy, so that the book's build can read :data:`SCHEDULER_VARIABLE` from it at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

#: environment variable holding the address of the Dask scheduler to use when none is passed
SCHEDULER_VARIABLE = "RECBIAS_SCHEDULER"


class Executor(Protocol):
    """Runs tasks; a handle stands for a task's result and may be passed to later tasks."""

    def scatter(self, value: Any) -> Any:
        """A handle to ``value`` that tasks can share without copying it into each task."""

    def submit(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A handle to ``function(*args, **kwargs)``, handles among the arguments replaced by their values."""

    def gather(self, handles: Sequence[Any]) -> list[Any]:
        """The values of ``handles``, in order."""


class InProcess:
    """Every task runs in this process, as soon as it is submitted."""

    def scatter(self, value: Any) -> Any:
        return value

    def submit(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    def gather(self, handles: Sequence[Any]) -> list[Any]:
        return list(handles)


class OnDask:
    """Tasks go to the scheduler of a ``distributed.Client``; handles are its futures."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def scatter(self, value: Any) -> Any:
        return self.client.scatter(value, hash=False)

    def submit(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        # pure=False: two submissions of the same call are two tasks (no result sharing by hash)
        return self.client.submit(function, *args, pure=False, **kwargs)

    def gather(self, handles: Sequence[Any]) -> list[Any]:
        return list(self.client.gather(list(handles)))


def scheduler_from_environment() -> str | None:
    """The scheduler address in :data:`SCHEDULER_VARIABLE`, or ``None`` when it is unset or empty."""
    return os.environ.get(SCHEDULER_VARIABLE) or None


@contextmanager
def executor(scheduler: Any = None) -> Iterator[Executor]:
    """The executor for ``scheduler``: ``None`` reads :data:`SCHEDULER_VARIABLE` and, if that is
    unset too, runs in process; an address string connects a ``distributed.Client`` for the
    duration of the block; a ``distributed.Client`` is used as it is (and left open)."""
    if scheduler is None:
        scheduler = scheduler_from_environment()
    if scheduler is None:
        yield InProcess()
        return
    try:
        from distributed import Client
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            f"scheduler {scheduler!r} needs dask.distributed, which is not installed; install the pinned "
            f"dask[distributed] of requirements.txt, or run in process (no scheduler)"
        ) from error
    if isinstance(scheduler, Client):
        yield OnDask(scheduler)
        return
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be an address string or a distributed.Client, got {type(scheduler).__name__}")
    try:
        client = Client(scheduler, timeout="30s")
    except OSError as error:
        raise RuntimeError(f"cannot reach the Dask scheduler at {scheduler!r}: {error}") from error
    try:
        yield OnDask(client)
    finally:
        client.close()

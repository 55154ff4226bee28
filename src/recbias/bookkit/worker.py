"""Execute one page of the book in a process of its own: ``python -m recbias.bookkit.worker STAGING``.

The build tool (:mod:`recbias.bookkit.pipeline`) starts one worker per page with its stdout and
stderr sent to the page's log, and a ``spec.json`` in the page's staging directory ``STAGING``
naming the page, its source, its parameters, its environment and the build's provenance.  The
worker converts the Jupytext source to a notebook, executes it with papermill into
``STAGING/<page>.ipynb``, hides the defaults cell and adds the box saying how the page was built.
A cell that fails leaves the executed notebook there, the full traceback in the log and a
``failure.json`` saying which cell of the ``.py`` source failed and how; the exit code is then 1.

The kernel dies with its worker (``PR_SET_PDEATHSIG``), so killing a build, even with SIGKILL,
never leaves a kernel behind; SIGTERM stops the kernel first, then the worker.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
import sys
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import papermill
import psutil
from jupyter_client.manager import AsyncKernelManager
from papermill.exceptions import PapermillExecutionError

PARAMETERS_TAG = "parameters"
#: the tag papermill gives the cell it inserts with the values of the build's parameters
INJECTED_TAG = "injected-parameters"
SPEC_FILE = "spec.json"
FAILURE_FILE = "failure.json"
#: exit status of a worker whose page failed (any other non-zero status is a fault of the worker itself)
PAGE_FAILED = 1
_PR_SET_PDEATHSIG = 1
#: how long a kernel may take to start (generous: the machine may be busy)
KERNEL_START_SECONDS = 300
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass(frozen=True)
class CellFailure:
    """Where and how a page failed: the cell as numbered in the ``.py`` source (1-based), its first
    line, and the exception: its type and the first line of its message."""

    cell: int | None
    first_line: str
    error: str


def _die_with_parent() -> None:
    """In a child process before ``exec``: ask Linux to kill it when the process that started it ends."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the kernel's own parent poller still ends it
        pass


class PageKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels end with the worker that started them."""

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        await super()._async_launch_kernel(kernel_cmd, preexec_fn=_die_with_parent, **kw)


def source_position(executed_index: int, parameters_index: int | None) -> int:
    """The 1-based number, in the ``.py`` source, of cell ``executed_index`` of the executed notebook
    (papermill inserts its injected-parameters cell right after the cell tagged ``parameters``)."""
    injected_before = parameters_index is not None and executed_index > parameters_index
    return executed_index - int(injected_before) + 1


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (``""`` when there is none)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def describe_failure(error: Any, parameters_index: int | None) -> CellFailure:
    """The :class:`CellFailure` of a ``PapermillExecutionError``."""
    cell = source_position(error.cell_index, parameters_index)
    exception = f"{error.ename}: {first_line(error.evalue)}" if error.evalue.strip() else error.ename
    return CellFailure(cell=cell, first_line=first_line(error.source or ""), error=exception)


def parameters_index(notebook: Any) -> int | None:
    """Index of the cell tagged ``parameters``, if any."""
    for index, cell in enumerate(notebook.cells):
        if PARAMETERS_TAG in cell.get("metadata", {}).get("tags", []):
            return index
    return None


def provenance_markdown(record: dict[str, Any]) -> str:
    """The small box at the top of a page that says how it was built."""
    commit = record["commit"] + (" (with uncommitted changes)" if record["dirty"] else "")
    parameters = ", ".join(f"`{k} = {v!r}`" for k, v in record["parameters"].items())
    data = ", ".join(f"{name} `{digest}`" for name, digest in record["data"].items())
    return (
        ":::{admonition} How this page was built\n:class: dropdown note\n"
        f"Dataset **{record['dataset']}**, seed **{record['seed']}**, recbias {record['version']}, "
        f"commit `{commit}`, built {record['date']}.\n\n"
        f"Parameters: {parameters}.\n\nData (sha256, first 12 digits): {data}.\n:::"
    )


def hide_parameter_cells(notebook: Any) -> None:
    """Remove the defaults cell and papermill's injected cell from the page: the box "How this page was
    built" (:func:`provenance_markdown`) lists the values used, and each page's "Try it" section how to
    change them."""
    for cell in notebook.cells:
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if (PARAMETERS_TAG in tags or INJECTED_TAG in tags) and "remove-cell" not in tags:
            tags.append("remove-cell")


def execute_page(spec: dict[str, Any], staging: Path) -> None:
    """Execute the page of ``spec`` into ``staging``; raises ``PapermillExecutionError`` when a cell fails."""

    page = spec["page"]
    source = jupytext.read(spec["source"])
    source_notebook = staging / f"{page}.source.ipynb"
    executed = staging / f"{page}.ipynb"
    jupytext.write(source, source_notebook)
    try:
        papermill.execute_notebook(
            str(source_notebook), str(executed), parameters=spec["parameters"], kernel_name="python3",
            progress_bar=False, cwd=spec["root"], kernel_manager_class=PageKernelManager,
            start_timeout=KERNEL_START_SECONDS,
        )
    finally:
        source_notebook.unlink(missing_ok=True)
    notebook = nbformat.read(executed, as_version=4)
    hide_parameter_cells(notebook)
    box = nbformat.v4.new_markdown_cell(provenance_markdown(spec["record"] | {"parameters": spec["parameters"]}))
    box["id"] = "provenance"  # a fixed id: identical builds give identical notebooks
    notebook.cells.insert(1 if notebook.cells and notebook.cells[0].cell_type == "markdown" else 0, box)
    nbformat.write(notebook, executed)


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM: end the kernel (and anything else this worker started), then the worker."""
    children = psutil.Process().children(recursive=True)
    for child in children:
        child.kill()
    psutil.wait_procs(children, timeout=5)
    os._exit(128 + signum)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build tool handles Ctrl-C and stops its workers
    staging = Path(argv[0])
    spec = json.loads((staging / SPEC_FILE).read_text())
    os.environ.update(spec["env"])
    try:
        execute_page(spec, staging)
    except PapermillExecutionError as error:
        failure = describe_failure(error, parameters_index(jupytext.read(spec["source"])))
        print(_ANSI.sub("", "\n".join(error.traceback)), file=sys.stderr)
    except Exception as error:  # the kernel died, the source is unreadable, ...
        traceback.print_exc()
        failure = CellFailure(cell=None, first_line="", error=f"{type(error).__name__}: {first_line(str(error))}")
    else:
        return 0
    (staging / FAILURE_FILE).write_text(json.dumps(asdict(failure)))
    return PAGE_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

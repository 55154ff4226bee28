"""Execute one page of the book in a process of its own: ``python -m recbias.bookkit.worker STAGING``.

The build tool (:mod:`recbias.bookkit.pipeline`) starts one worker per page with its stdout and
stderr sent to the page's log, and a ``spec.json`` in the page's staging directory ``STAGING``
naming the page, its source, its parameters, its environment and the build's provenance.  The
worker converts the Jupytext source to a notebook, executes it with papermill into
``STAGING/<page>.ipynb``, hides the defaults cell and adds the box saying how the page was built.
A cell that fails leaves the executed notebook there, the full traceback in the log and a
``failure.json`` saying which cell of the ``.py`` source failed and how; the exit code is then 1.

The worker dies with the build tool and the kernel with its worker (``PR_SET_PDEATHSIG``), so killing
a build, even with SIGKILL, leaves neither behind; SIGTERM stops the kernel first, then the worker.
Kernels talk to their worker over Unix sockets in a directory of their own, never over TCP ports,
so kernels started together cannot pick the same port.

The executed notebook is what readers download: it keeps no local path (a ``csv:PATH`` dataset is
named by its file, :func:`recbias.datasets.registry.dataset_label`, and any other parameter naming a file
by its last part, :func:`without_directories`), no time stamp and no random cell id, so two builds of
the same sources give the same file.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
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

from recbias.datasets.registry import dataset_label

PARAMETERS_TAG = "parameters"
#: the tag papermill gives the cell it inserts with the values of the build's parameters
INJECTED_TAG = "injected-parameters"
SPEC_FILE = "spec.json"
FAILURE_FILE = "failure.json"
#: the datasets the page loaded, one name a line (:data:`recbias.datasets.READS_VARIABLE`)
READS_FILE = "reads.txt"
#: how the page was built, as its box says it: the build's record with the page's parameters and data
RECORD_FILE = "record.json"
#: the processor seconds the page took, user and system, of the worker and of its kernel
CPU_FILE = "cpu.txt"
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


def die_with_parent() -> None:
    """In a child process before ``exec``: ask Linux to kill it when the process that started it ends."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the kernel's own parent poller still ends it
        pass


class PageKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels end with the worker that started them and listen on Unix sockets
    in a fresh private directory (TCP ports chosen free and bound later can collide between kernels
    started at the same moment)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sockets = tempfile.mkdtemp(prefix="rbk-")  # short: a socket path has at most 107 bytes
        self.transport = "ipc"
        self.ip = os.path.join(self.sockets, "kernel")

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        await super()._async_launch_kernel(kernel_cmd, preexec_fn=die_with_parent, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self.sockets, ignore_errors=True)


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


def running_cell(executed: Path) -> tuple[int | None, str]:
    """The cell papermill was running when execution stopped without an error of the page's own (the kernel
    died): the last cell it started, by the notebook it saves as it goes, with its number in the ``.py``
    source and its first line; ``(None, "")`` when there is no such notebook or cell."""
    try:
        notebook = nbformat.read(executed, as_version=4)
    except (OSError, ValueError):
        return None, ""
    started = [index for index, cell in enumerate(notebook.cells)
               if cell.get("metadata", {}).get("papermill", {}).get("status") in ("running", "completed")]
    if not started:
        return None, ""
    return source_position(started[-1], parameters_index(notebook)), first_line(notebook.cells[started[-1]].source)


def parameters_index(notebook: Any) -> int | None:
    """Index of the cell tagged ``parameters``, if any."""
    for index, cell in enumerate(notebook.cells):
        if PARAMETERS_TAG in cell.get("metadata", {}).get("tags", []):
            return index
    return None


#: the directories of an absolute path in a text (``/home/me/x.csv`` -> ``x.csv``; not inside an address)
_DIRECTORIES = re.compile(r"(?<![\w./])/(?:[^\s,:/'\"]+/)+(?=[^\s,:/'\"])")


def without_directories(text: str) -> str:
    """``text`` with every absolute path in it named by its last part (a file given to an audit, say).

    >>> without_directories('systems = "mf, /home/me/mine.py:Rec"')
    'systems = "mf, mine.py:Rec"'
    """
    return _DIRECTORIES.sub("", text)


def shown_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
    """The parameters as a page shows them: the dataset by :func:`dataset_label`, every other text without the
    directories of the paths it names (no local path)."""
    return {name: (dataset_label(value) if name == "dataset" else without_directories(value))
            if isinstance(value, str) else value for name, value in parameters.items()}


def provenance_markdown(record: dict[str, Any]) -> str:
    """The small box at the top of a page that says how it was built."""
    commit = record["commit"] + (" (with uncommitted changes)" if record["dirty"] else "")
    parameters = ", ".join(f"`{k} = {v!r}`" for k, v in shown_parameters(record["parameters"]).items())
    data = ", ".join(f"{name} `{digest}`" for name, digest in record["data"].items())
    return (
        ":::{admonition} How this page was built\n:class: dropdown note\n"
        f"Dataset **{dataset_label(record['dataset'])}**, seed **{record['seed']}**, recbias {record['version']}, "
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


#: what papermill records of a run that differs between runs or names local files
_RUN_FIELDS = ("input_path", "output_path", "start_time", "end_time", "duration", "environment_variables")


def reproducible(notebook: Any) -> None:
    """Make an executed notebook the same file on every build of the same sources: cell ids by position,
    no execution time stamps, no local paths (the dataset named by :func:`dataset_label`)."""
    record = notebook.metadata.get("papermill", {})
    for name in _RUN_FIELDS:
        record.pop(name, None)
    if "parameters" in record:
        record["parameters"] = shown_parameters(record["parameters"])
    for index, cell in enumerate(notebook.cells):
        if cell.get("id") != "provenance":
            cell["id"] = f"cell-{index}"
        cell.metadata.pop("execution", None)
        cell.metadata.pop("papermill", None)
        if INJECTED_TAG in cell.metadata.get("tags", []):
            dataset = re.search(r'^dataset = "(csv:[^"]*)"$', cell.source, flags=re.M)
            if dataset:
                cell.source = cell.source.replace(dataset.group(0), f'dataset = "{dataset_label(dataset.group(1))}"')
            cell.source = without_directories(cell.source)


def page_record(spec: dict[str, Any], reads: Path) -> dict[str, Any]:
    """The build's record with the page's parameters and the digests of every dataset the page read
    (:func:`recbias.datasets.digests`), the build's dataset first: the record holds its digests already
    (``spec["digested"]``), so a page that reads no other dataset needs neither the readers nor pandas."""
    read = dict.fromkeys(reads.read_text().split()) if reads.exists() else {}
    others = [name for name in read if name != spec["digested"]]
    data = dict(spec["record"]["data"])
    if others:
        from recbias.datasets import digests  # imported here: see the docstring

        for name in others:
            data |= digests(name, spec["record"]["seed"])
    return spec["record"] | {"parameters": spec["parameters"], "data": data}


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
    record = page_record(spec, staging / READS_FILE)
    (staging / RECORD_FILE).write_text(json.dumps(record, indent=1))
    box = nbformat.v4.new_markdown_cell(provenance_markdown(record))
    box["id"] = "provenance"
    notebook.cells.insert(1 if notebook.cells and notebook.cells[0].cell_type == "markdown" else 0, box)
    reproducible(notebook)
    nbformat.write(notebook, executed)


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM: end the kernel (and anything else this worker started), then the worker."""
    children = psutil.Process().children(recursive=True)
    for child in children:
        child.kill()
    psutil.wait_procs(children, timeout=5)
    os._exit(128 + signum)


def processor_seconds() -> float:
    """User and system seconds of this process and of the children it has waited for (the page's kernel)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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
        cell, line = running_cell(staging / f"{spec['page']}.ipynb")
        failure = CellFailure(cell=cell, first_line=line, error=f"{type(error).__name__}: {first_line(str(error))}")
    else:
        (staging / CPU_FILE).write_text(f"{processor_seconds():.3f}\n")
        return 0
    (staging / FAILURE_FILE).write_text(json.dumps(asdict(failure)))
    return PAGE_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

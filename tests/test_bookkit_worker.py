"""What a page's worker reports of a failed cell, and what it changes in the executed notebook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
from papermill.exceptions import PapermillExecutionError

from recbias.bookkit import worker


def notebook_with_parameters_at(index: int, cells: int = 4) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(f"x = {k}") for k in range(cells)]
    notebook.cells[index].metadata["tags"] = [worker.PARAMETERS_TAG]
    return notebook


def test_cells_after_the_injected_one_are_numbered_as_in_the_source() -> None:
    # source cells: 0 text, 1 parameters, 2 code; executed: 0, 1, 2 injected, 3 code
    assert [worker.source_position(k, 1) for k in (0, 1, 3)] == [1, 2, 3]
    assert worker.source_position(3, None) == 4  # no parameters cell: nothing was injected


def test_a_failure_names_its_source_cell_line_and_exception() -> None:
    error = PapermillExecutionError(cell_index=3, exec_count=3, source="\n  fit(x)\nmore()",
                                    traceback=[], ename="ValueError", evalue="bad x\nsecond line")
    assert worker.describe_failure(error, parameters_index=1) == worker.CellFailure(3, "fit(x)", "ValueError: bad x")
    silent = PapermillExecutionError(cell_index=0, exec_count=1, source="", traceback=[], ename="KeyError", evalue=" ")
    assert worker.describe_failure(silent, None) == worker.CellFailure(1, "", "KeyError")


def test_the_parameters_cell_is_found_and_both_parameter_cells_are_hidden() -> None:
    notebook = notebook_with_parameters_at(1)
    assert worker.parameters_index(notebook) == 1
    assert worker.parameters_index(nbformat.v4.new_notebook()) is None
    notebook.cells[2].metadata["tags"] = [worker.INJECTED_TAG]
    worker.hide_parameter_cells(notebook)
    worker.hide_parameter_cells(notebook)  # twice: still one tag
    assert [cell.metadata["tags"].count("remove-cell") for cell in notebook.cells] == [0, 1, 1, 0]


def test_the_provenance_box_lists_what_the_page_was_built_from() -> None:
    record = {"commit": "abc123", "dirty": True, "parameters": {"seed": 7, "dataset": "ml-1m"},
              "data": {"ratings.dat": "0123456789ab"}, "dataset": "ml-1m", "seed": 7, "version": "0.1.0",
              "date": "2026-01-01"}
    box = worker.provenance_markdown(record)
    assert box.startswith(":::{admonition} How this page was built") and box.endswith(":::")
    assert "commit `abc123 (with uncommitted changes)`" in box
    assert "Parameters: `seed = 7`, `dataset = 'ml-1m'`." in box and "ratings.dat `0123456789ab`" in box
    assert "uncommitted" not in worker.provenance_markdown(record | {"dirty": False})


def test_the_worker_starts_without_the_data_stack_and_loads_it_for_a_page_that_reads_another_dataset(
        tmp_path: Path) -> None:
    """A worker is started for every page: importing it loads neither pandas nor scipy, and nor does recording
    a page that read only the build's dataset, whose digests the build's record holds; a page that read another
    dataset gets that dataset's digests too."""
    reads = tmp_path / "reads.txt"
    reads.write_text("synthetic\nsynthetic\n")
    spec = {"record": {"seed": 3, "data": {"synthetic": "generated, seed 3"}}, "parameters": {}, "digested": "synthetic"}
    code = ("import json, sys\nfrom pathlib import Path\nfrom recbias.bookkit import worker\n"
            f"record = worker.page_record({spec!r}, Path({str(reads)!r}))\n"
            "print(json.dumps([record['data'], sorted(m for m in ('pandas', 'scipy') if m in sys.modules)]))")
    assert json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) \
        == [{"synthetic": "generated, seed 3"}, []]
    reads.write_text("synthetic\nsynthetic-small\n")
    assert worker.page_record(spec, reads)["data"] == {"synthetic": "generated, seed 3",
                                                       "synthetic-small": "generated, seed 3"}

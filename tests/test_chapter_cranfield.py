"""Smoke test: chapter 1 executes on the small simulated world, with and without the other datasets."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "01_cranfield.py"


@pytest.mark.parametrize("compare_all", [False, True])
def test_chapter_executes_on_synthetic_small(tmp_path, monkeypatch, compare_all):
    jupytext = pytest.importorskip("jupytext")
    papermill = pytest.importorskip("papermill")
    for variable in ("RECBIAS_RESULTS_DIR", "RECBIAS_CHAPTER"):  # keep the scorecard of real builds untouched
        monkeypatch.delenv(variable, raising=False)
    source = tmp_path / "01_cranfield.ipynb"
    jupytext.write(jupytext.read(CHAPTER), source)
    executed = papermill.execute_notebook(
        str(source),
        str(tmp_path / "executed.ipynb"),
        parameters={"dataset": "synthetic-small", "seed": 1, "compare_all": compare_all},
        kernel_name="python3",
        progress_bar=False,
        cwd=str(ROOT),
    )
    errors = [o for cell in executed.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    glued = {
        o["metadata"]["scrapbook"]["name"]
        for cell in executed.cells
        for o in cell.get("outputs", [])
        if "scrapbook" in o.get("metadata", {})
    }
    assert {"trec_single", "cran_single", "cran_max", "cran_queries"} <= glued

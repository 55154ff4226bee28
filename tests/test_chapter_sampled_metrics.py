"""Smoke test: chapter 6 executes on the small simulated world and glues every value its prose uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "06_sampled_metrics.py"


def test_chapter_executes_on_synthetic_small(tmp_path, monkeypatch):
    jupytext = pytest.importorskip("jupytext")
    papermill = pytest.importorskip("papermill")
    for variable in ("RECBIAS_RESULTS_DIR", "RECBIAS_CHAPTER"):  # keep the scorecard of real builds untouched
        monkeypatch.delenv(variable, raising=False)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # as the book pipeline does
        monkeypatch.setenv(variable, "1")
    source = tmp_path / "06_sampled_metrics.ipynb"
    jupytext.write(jupytext.read(CHAPTER), source)
    executed = papermill.execute_notebook(
        str(source),
        str(tmp_path / "executed.ipynb"),
        parameters={"dataset": "synthetic-small", "seed": 1, "repetitions": 20, "toy_repetitions": 100,
                    "fig6_max_m": 60},
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
    prose = "\n".join(line for line in CHAPTER.read_text().splitlines() if line.startswith("#"))
    used = set(re.findall(r"\{glue:text\}`([^`]+)`", prose))
    assert used <= glued, f"glued nowhere: {sorted(used - glued)}"

"""Every page of the book executes on the small simulated world, glues every value its prose quotes, and shows no
table wider than the text column."""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import papermill
import pytest

from recbias.bookkit.pipeline import page_environment
from recbias.bookkit.tables import COLUMN_EM, table_width

ROOT = Path(__file__).resolve().parents[1]
GLUE_REFERENCE = re.compile(r"\{glue:text\}`([^`:]+)(?::[^`]*)?`")

#: page -> parameters that keep its smoke run short (beyond dataset and seed)
FAST_PARAMETERS: dict[str, dict] = {
    "01_cranfield": {"compare_all": True},
    "02_designs": {"folds": 2, "second_dataset": "", "sweep_users": 60},
    "03_sparsity_bias": {"folds": 1, "bootstrap": 20, "sweep_users": 60, "compare_all": False},
    "04_popularity_bias": {"folds": 2, "sweep_alphas": "0, 1", "sweep_preset": "synthetic-small", "grid_alphas": "1",
                           "grid_selections": "0, 2", "grid_preset": "synthetic-small"},
    "05_neutralising_designs": {"folds": 1, "target_size": 30, "percentiles": 4, "second_dataset": ""},
    "06_sampled_metrics": {"repetitions": 20, "toy_repetitions": 100, "fig6_max_m": 60},
    "07_discounted_auc": {"bootstrap": 30, "max_known": 10, "new_user_groups": 2},
    "08_protocol_fidelity": {"split_seeds": 1, "bootstrap": 30, "second_dataset": "", "grid_alphas": "0.5",
                             "grid_selections": "0, 2"},
    "09_audit": {"systems": "mf, examples/item_mean.py:ItemMean", "compare_all": False, "bootstrap": 30},
    "appendix_datasets": {},
}


def test_every_notebook_page_has_smoke_parameters():
    pages = {path.stem for path in (ROOT / "book").glob("*.py")} - {"scorecard"}
    assert pages == set(FAST_PARAMETERS)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(FAST_PARAMETERS))
def test_page_executes_and_glues_what_its_prose_quotes(page, tmp_path, monkeypatch):
    """The page runs, glues every value its prose quotes, and every table it shows fits the text column.

    The rule for a table: the narrowest width a browser can give it, every column as wide as its widest unbreakable
    line (a cell kept on one line by its widest line, a header or a wrapping cell by its widest word, text measured
    with the metrics of DejaVu Sans, the widest of the common sans-serif faces, plus each cell's padding), is at most
    the text column at a 1,280 px window, 672 px or ``COLUMN_EM`` em of the tables' font
    (:func:`recbias.bookkit.tables.table_width`).  A table above it cannot fit: the page would cut it off.
    """
    for variable in ("RECBIAS_RESULTS_DIR", "RECBIAS_CHAPTER"):  # keep the scorecard of real builds untouched
        monkeypatch.delenv(variable, raising=False)
    for variable, value in page_environment(jobs=2, cores=2).items():  # as the book pipeline does
        monkeypatch.setenv(variable, value)
    chapter = ROOT / "book" / f"{page}.py"
    source = tmp_path / f"{page}.ipynb"
    jupytext.write(jupytext.read(chapter), source)
    executed = papermill.execute_notebook(
        str(source),
        str(tmp_path / "executed.ipynb"),
        parameters={"dataset": "synthetic-small", "seed": 1, **FAST_PARAMETERS[page]},
        kernel_name="python3",
        progress_bar=False,
        cwd=str(ROOT),
    )
    glued = {
        output["metadata"]["scrapbook"]["name"]
        for cell in executed.cells
        for output in cell.get("outputs", [])
        if "scrapbook" in output.get("metadata", {})
    }
    prose = "\n".join(line for line in chapter.read_text().splitlines() if line.startswith("#"))
    quoted = set(GLUE_REFERENCE.findall(prose))
    assert quoted <= glued, f"{page} quotes values it never glues: {sorted(quoted - glued)}"
    shown = {}  # name (a glued table's, else its cell's) -> HTML, glued ("application/papermill.record/text/html")
    for k, cell in enumerate(executed.cells):  # or displayed ("text/html")
        for output in cell.get("outputs", []):
            html = "".join(next((v for mime, v in output.get("data", {}).items() if mime.endswith("text/html")), ""))
            if "<table" in html:
                shown[output.get("metadata", {}).get("scrapbook", {}).get("name", f"cell {k}")] = html
    too_wide = {name: round(width, 1) for name, html in shown.items() if (width := table_width(html)) > COLUMN_EM}
    assert too_wide == {}, f"{page} shows tables wider than the text column ({COLUMN_EM:.1f} em): {too_wide}"

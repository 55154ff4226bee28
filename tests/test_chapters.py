"""Every page of the book executes on the small simulated world, glues every value its prose quotes, and shows no
table wider than the text column."""

from __future__ import annotations

import re

import nbformat
import pytest

from recbias.bookkit.tables import COLUMN_EM, table_width
from smoke_pages import FAST_PARAMETERS, NOTEBOOK, ROOT

GLUE_REFERENCE = re.compile(r"\{glue:text\}`([^`:]+)(?::[^`]*)?`")


def test_every_notebook_page_has_smoke_parameters():
    pages = {path.stem for path in (ROOT / "book").glob("*.py")} - {"scorecard"}
    assert pages == set(FAST_PARAMETERS)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(FAST_PARAMETERS))
def test_page_executes_and_glues_what_its_prose_quotes(page, executed_page):
    """The page runs, glues every value its prose quotes, and every table it shows fits the text column.

    The rule for a table: the narrowest width a browser can give it, every column as wide as its widest unbreakable
    line (a cell kept on one line by its widest line, a header or a wrapping cell by its widest word, text measured
    with the metrics of DejaVu Sans, the widest of the common sans-serif faces, plus each cell's padding), is at most
    the text column at a 1,280 px window, 672 px or ``COLUMN_EM`` em of the tables' font
    (:func:`recbias.bookkit.tables.table_width`).  A table above it cannot fit: the page would cut it off.
    """
    chapter = ROOT / "book" / f"{page}.py"
    executed = nbformat.read(executed_page(page) / NOTEBOOK, as_version=4)
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

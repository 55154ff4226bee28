"""Number formatting of the book's pages: edge values read right."""

import re

import pandas as pd

from recbias.bookkit import tables


def test_table_html_hides_the_index_and_marks_missing_values():
    html = tables.table_html(pd.DataFrame({"system": ["MF"], "P@10": [float("nan")]}))
    assert "–" in html and "MF" in html


def test_table_html_aligns_the_named_text_columns_left():
    frame = pd.DataFrame({"system": ["MF"], "P@10": [0.1], "note": ["x"]})
    html = tables.table_html(frame, left=["system", "note"])
    assert html.count("text-align: left;") == 2 and ".col0" in html and ".col2" in html and ".col1 " not in html
    assert "text-align: left;" not in tables.table_html(frame)


def test_long_text_columns_wrap_and_numbers_stay_on_one_line() -> None:
    frame = pd.DataFrame({"statement": ["a statement far longer than thirty-two characters", "short"],
                          "value": [0.5, 0.25], "cell": ["0.5<br><small>± 0.0001</small>", "0.2"]})
    html = tables.table_html(frame)
    wrapped = re.findall(r"td\.(col\d+) \{\s*white-space: normal", html)
    assert wrapped == ["col0"]  # the statement wraps; markup does not count towards a cell's length


def test_an_empty_table_is_glued_as_its_note_and_a_full_one_as_html(monkeypatch) -> None:
    glued = {}
    monkeypatch.setattr(tables, "glue", lambda name, value, display: glued.__setitem__(name, value))
    tables.glue_table("empty", pd.DataFrame(), empty_note="*Not computed here.*")
    tables.glue_table("full", pd.DataFrame({"a": [1]}), empty_note="*Not computed here.*")
    tables.glue_table("empty, no note", pd.DataFrame())
    assert glued["empty"].data == "*Not computed here.*" and type(glued["empty"]).__name__ == "Markdown"
    assert type(glued["full"]).__name__ == "HTML" and "<table" in glued["full"].data
    assert type(glued["empty, no note"]).__name__ == "HTML"

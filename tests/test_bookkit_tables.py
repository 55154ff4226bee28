"""Number formatting of the book's pages: edge values read right."""

import re
from html.parser import HTMLParser

import pandas as pd

from recbias.bookkit import tables


class _Rows(HTMLParser):
    """The rows of a rendered table, each a list of (tag, text) cells."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str]]] = []
        self._cell: str | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = tag
            self.rows[-1].append((tag, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td"):
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell:
            tag, text = self.rows[-1][-1]
            self.rows[-1][-1] = (tag, text + data.strip())


def rows_of(html: str) -> list[list[tuple[str, str]]]:
    parser = _Rows()
    parser.feed(html)
    return parser.rows


def test_table_html_hides_the_index_and_marks_missing_values():
    frame = pd.DataFrame({"system": ["MF", "Pop"], "P@10": [float("nan"), 0.2]}, index=[7, 8])
    assert rows_of(tables.table_html(frame)) == [
        [("th", "system"), ("th", "P@10")],
        [("td", "MF"), ("td", "–")],
        [("td", "Pop"), ("td", "0.200")],
    ]
    shown = rows_of(tables.table_html(frame, index=True))
    assert [row[0] for row in shown[1:]] == [("th", "7"), ("th", "8")] and len(shown[0]) == 3


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

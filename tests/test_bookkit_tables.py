"""Number formatting of the book's pages: edge values read right."""

import re
from html.parser import HTMLParser

import pandas as pd
import pytest

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


def test_an_empty_table_is_glued_or_shown_as_its_note_and_a_full_one_as_html(monkeypatch) -> None:
    glued = {}
    monkeypatch.setattr(tables, "glue", lambda name, value, display: glued.__setitem__(name, value))
    tables.glue_table("empty", pd.DataFrame(), empty_note="*Not computed here.*")
    tables.glue_table("full", pd.DataFrame({"a": [1]}), empty_note="*Not computed here.*")
    tables.glue_table("empty, no note", pd.DataFrame())
    assert glued["empty"].data == "*Not computed here.*" and type(glued["empty"]).__name__ == "Markdown"
    assert type(glued["full"]).__name__ == "HTML" and "<table" in glued["full"].data
    assert type(glued["empty, no note"]).__name__ == "HTML"
    shown = []
    monkeypatch.setattr(tables, "display", shown.append)
    tables.show_table(pd.DataFrame(), empty_note="*Nothing reversed.*")
    tables.show_table(pd.DataFrame({"a": [1]}), empty_note="*Nothing reversed.*")
    assert [type(item).__name__ for item in shown] == ["Markdown", "HTML"] and shown[0].data == "*Nothing reversed.*"


def _em(text: str, bold: bool = False) -> float:
    """Width of ``text`` in em of DejaVu Sans, read from the outline matplotlib draws (an independent route to
    the metrics :func:`tables.table_width` reads)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font = FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal", size=100)
    return TextToPath().get_text_width_height_descent(text, font, ismath=False)[0] / 100


def test_a_table_is_as_wide_as_its_widest_cells_with_their_padding() -> None:
    frame = pd.DataFrame({"name": ["ab", "abcdef ghi"], "v": ["0.5<br><small>[0.25, 0.75]</small>", "0.1"]})
    one_line = (_em("abcdef ghi") + 1) + (_em("[0.25, 0.75]") * 0.85 + 1)  # every cell on one line
    assert tables.table_width(tables.table_html(frame)) == pytest.approx(one_line, rel=0.01)
    wrapped = (_em("abcdef") + 1) + (_em("[0.25, 0.75]") * 0.85 + 1)  # the name wraps at its space
    assert tables.table_width(tables.table_html(frame, wrap=["name"])) == pytest.approx(wrapped, rel=0.01)
    long = frame.assign(name=["a statement far longer than thirty-two characters", "x"])
    assert tables.table_width(tables.table_html(long)) == pytest.approx(12 + _em("[0.25, 0.75]") * 0.85 + 1,
                                                                        rel=0.01)  # min-width 12em, padding in


def test_cells_under_a_label_spanning_rows_are_counted_in_their_own_columns() -> None:
    frame = pd.DataFrame({"x": ["1", "a much wider value"]},
                         index=pd.MultiIndex.from_tuples([("dataset", "AR"), ("dataset", "1R")]))
    html = tables.table_html(frame, index=True)
    assert 'rowspan="2"' in html  # the second row has no cell under the dataset
    expected = (_em("dataset", bold=True) + 1) + (_em("AR", bold=True) + 1) + (_em("a much wider value") + 1)
    assert tables.table_width(html) == pytest.approx(expected, rel=0.01)


def test_a_table_too_wide_for_the_column_is_split_into_parts_that_repeat_its_row_names() -> None:
    cells = "0.1234<br><small>[0.1234, 0.1234]</small>"
    frame = pd.DataFrame({"protocol": ["AR TI-AN P@10", "1R P@10"]} | {f"system {k}": [cells] * 2 for k in range(8)})
    assert tables.table_width(tables.table_html(frame.iloc[:, :2])) < tables.COLUMN_EM
    whole = tables.table_html(frame)  # rows not named: never split
    assert whole.count("<table") == 1 and tables.table_width(whole) > tables.COLUMN_EM
    split = tables.table_html(frame, keep=["protocol"], left=["protocol"])
    parts = [rows_of(part) for part in split.split("<table")[1:]]
    assert len(parts) > 1 and tables.table_width(split) <= tables.COLUMN_EM
    headers = [[text for _, text in part[0]] for part in parts]
    assert all(header[0] == "protocol" for header in headers)
    assert [column for header in headers for column in header[1:]] == list(frame.columns[1:])
    assert all([text for _, text in row][0] in ("AR TI-AN P@10", "1R P@10") for part in parts for row in part[1:])


def test_a_split_keeps_the_columns_under_one_label_together() -> None:
    columns = pd.MultiIndex.from_tuples([(group, f"s{k}") for group in ("left", "right") for k in range(5)])
    frame = pd.DataFrame([["0.1234<br><small>± 0.1234 ± 0.1234</small>"] * 10] * 2, columns=columns,
                         index=["AR", "1R"])
    split = tables.table_html(frame, index=True)
    parts = split.split("<table")[1:]
    assert len(parts) == 2 and tables.table_width(split) <= tables.COLUMN_EM
    assert ">left<" in parts[0] and ">right<" not in parts[0] and ">right<" in parts[1]

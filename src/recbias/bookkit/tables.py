"""Tables, figures and numbers as the book's pages show them.

A page never formats a number or styles a table by hand: it calls these helpers
(the number formatters live in :mod:`recbias.text`, where the chapter drivers use
them too), so every chapter reads the same.  Figures and tables that the prose refers to are
*glued* (:func:`glue_figure`, :func:`glue_table`) and placed by a MyST
``{glue:figure}`` directive with a ``:name:`` and a caption, which numbers them.

A table must fit the text column, which is narrow: :func:`table_width` estimates the narrowest
width a rendered table can take, and :func:`table_html` splits a table that would not fit into
parts stacked one below the other, each repeating the columns that name its rows.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from functools import cache
from html.parser import HTMLParser
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.font_manager import FontProperties, findfont, get_font
from IPython.display import HTML, Markdown, display
from myst_nb import glue

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "COLUMN_EM",
    "glue_figure",
    "glue_table",
    "show_table",
    "table_html",
    "table_width",
]

_CELL = "padding: 0.15em 0.5em; text-align: right;"
#: stands for the table's id while the table is rendered, replaced by one derived from its content
_PLACEHOLDER_ID = "recbias0table0id"
#: text columns with a longer cell than this wrap
WRAP_ABOVE = 32
#: width of the text column in em of a table's font: 672 px at a 1,280 px wide window (the sphinx-book-theme
#: shows both sidebars from 1,200 px up) over the 13.6 px of the tables' font (0.85 of the theme's 16 px)
COLUMN_EM = 672 / 13.6
#: the size of ``<small>`` text in a table, relative to the table's font (the theme's own ``0.9rem`` would set
#: it larger than the table's 0.85em)
_SMALL = 0.85
#: where a wrapping cell may break a line: after a space or a hyphen, as browsers do
_BREAKS = re.compile(r"(?<=-)|\s+")


def _longest_text(column: pd.Series) -> int:
    """Characters of the longest visible cell of a text column (markup left out); 0 for numbers."""
    if pd.api.types.is_numeric_dtype(column) or column.empty:
        return 0
    return int(column.astype(str).str.replace(r"<[^>]+>", "", regex=True).str.len().max())


def table_html(
    frame: pd.DataFrame,
    formats: Mapping[str, str] | str | None = None,
    *,
    precision: int = 3,
    index: bool = False,
    wrap: bool | Sequence[str] = False,
    left: Sequence[str] = (),
    keep: Sequence[str] = (),
    table_id: str | None = None,
) -> str:
    """``frame`` as a compact HTML table: small font, numbers right-aligned, missing as "–".

    The table's HTML id (``T_<table_id>``, which its styles are scoped to) is ``table_id``, by
    default a digest of the rendered table, so identical builds give identical pages (pandas
    would draw a random one).

    Cells stay on one line (``wrap=True`` lets every cell wrap, a list of columns those columns'
    cells), except text columns whose longest cell exceeds :data:`WRAP_ABOVE` characters, which
    wrap so that wide tables fit the page.  ``left`` names columns to align left, header included
    (names the frame lacks are ignored, so a page can pass the same ``left`` to a stand-in table).
    ``formats`` maps columns to format strings, or is one format string for every numeric column.

    A table that would be wider than the text column (:func:`table_width` above :data:`COLUMN_EM`)
    and whose rows are named, by its index (``index=True``) or by the columns ``keep``, is split
    into the fewest parts that fit, stacked one below the other: each part repeats the row names
    and takes a run of the other columns, never parting the columns under one top-level label of
    a MultiIndex.
    """
    if isinstance(formats, str):  # one format for every numeric column
        formats = {column: formats for k, column in enumerate(frame.columns)
                   if pd.api.types.is_numeric_dtype(frame.iloc[:, k])}
    options = {"precision": precision, "index": index, "wrap": wrap, "left": left}
    html = _one_table(frame, formats, table_id=table_id, **options)
    keep = [column for column in keep if column in frame.columns]
    groups = _groups(frame, keep)
    if table_width(html) <= COLUMN_EM or not (index or keep) or len(groups) < 2:
        return html
    for count in range(2, len(groups) + 1):
        runs = np.array_split(np.arange(len(groups)), count)
        parts = [keep + [column for k in run for column in groups[k]] for run in runs]
        rendered = [_one_table(frame[part], {c: f for c, f in (formats or {}).items() if c in part},
                               table_id=table_id and f"{table_id}_{k}", below=k > 1, **options)
                    for k, part in enumerate(parts, start=1)]
        if all(table_width(part) <= COLUMN_EM for part in rendered):
            return "\n".join(rendered)
    return "\n".join(rendered)  # one group to a part is as narrow as a split goes


def _one_table(frame: pd.DataFrame, formats: Mapping[str, str] | None, *, precision: int, index: bool,
               wrap: bool | Sequence[str], left: Sequence[str], table_id: str | None, below: bool = False) -> str:
    """:func:`table_html` of ``frame`` as one table (``below`` another part of the same table: set off above)."""
    wrap_all = wrap is True
    styler = frame.style.format(formats, precision=precision, na_rep="–").set_uuid(_PLACEHOLDER_ID)
    if not index:
        styler = styler.hide(axis="index")
    styler = styler.set_table_styles(
        [
            {"selector": "", "props": f"font-size: 0.85em; margin: {'0.8em' if below else '0'} auto 0;"},
            {"selector": "th", "props": _CELL},
            {"selector": "td", "props": _CELL + ("" if wrap_all else " white-space: nowrap;")},
            {"selector": "small", "props": f"color: #666; font-size: {_SMALL}em;"},
            {"selector": "th[colspan]", "props": "text-align: center;"},
        ]
    )
    long_text = [column for k, column in enumerate(frame.columns) if _longest_text(frame.iloc[:, k]) > WRAP_ABOVE]
    columns = {column: [{"selector": "", "props": "text-align: left;"}] for column in left if column in frame.columns}
    for column in long_text:
        columns.setdefault(column, []).append({"selector": "td",
                                               "props": "white-space: normal; min-width: 12em; text-align: left;"})
    for column in [] if isinstance(wrap, bool) else [c for c in wrap if c in frame.columns and c not in long_text]:
        columns.setdefault(column, []).append({"selector": "td", "props": "white-space: normal;"})
    if columns:
        styler = styler.set_table_styles(columns, overwrite=False)
    html = styler.to_html()
    stable = table_id or hashlib.sha256(html.encode()).hexdigest()[:12]
    return html.replace(_PLACEHOLDER_ID, stable)


@cache
def _text_em(text: str, bold: bool) -> float:
    """Width of ``text`` in em, with the metrics of DejaVu Sans, the sans-serif face of Linux browsers and wider
    than those of Windows and macOS, so that a table found to fit here fits there too."""
    font = get_font(findfont(FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal")))
    font.set_size(100, 72)  # 100 px a em
    font.set_text(text, 0.0)
    return font.get_width_height()[0] / 64 / 100


class _TableCells(HTMLParser):
    """The cells of each table of a rendered HTML fragment, as lists of rows of
    ``[tag, colspan, rowspan, column, lines]``, ``lines`` being lists of ``(text, scale, bold)`` runs; and its
    style rules."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[list]]] = []
        self.style = ""
        self._in_style = False
        self._cell: list | None = None
        self._small = self._bold = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "style":
            self._in_style = True
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("th", "td") and self.tables and self.tables[-1]:
            column = re.search(r"\bcol(\d+)\b", named.get("class") or "")
            self._cell = [tag, int(named.get("colspan") or 1), int(named.get("rowspan") or 1),
                          int(column[1]) if column else None, [[]]]
            self.tables[-1][-1].append(self._cell)
        elif tag == "br" and self._cell is not None:
            self._cell[4].append([])
        elif tag == "small":
            self._small += 1
        elif tag in ("b", "strong"):
            self._bold += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False
        elif tag in ("th", "td"):
            self._cell = None
        elif tag == "small":
            self._small -= 1
        elif tag in ("b", "strong"):
            self._bold -= 1

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data
        elif self._cell is not None:
            self._cell[4][-1].append((data, _SMALL ** self._small, self._cell[0] == "th" or self._bold > 0))


def _runs_em(runs: list[tuple[str, float, bool]], wraps: bool) -> float:
    """Width of one line of a cell in em; for a cell that wraps, of its widest unbreakable piece."""
    if not wraps:
        return sum(_text_em(text, bold) * scale for text, scale, bold in runs)
    return max((_text_em(word, bold) * scale for text, scale, bold in runs for word in _BREAKS.split(text) if word),
               default=0.0)


def table_width(html: str) -> float:
    """The narrowest width, in em of the table's font, that the widest table of ``html`` (as :func:`table_html`
    renders it) can take without cutting a word or wrapping a cell its style keeps on one line.

    A column is as wide as its widest cell: a cell kept on one line (``white-space: nowrap``) by its widest
    line (lines end at ``<br>``), a header or a cell that wraps by its widest word; each cell adds its padding
    of 1 em; a column with a ``min-width`` is at least that wide, padding included.  Text is measured with the
    metrics of DejaVu Sans (:func:`_text_em`), ``<small>`` text at :data:`_SMALL` and headers in bold.  A
    browser cannot lay the table out narrower, so a table wider than :data:`COLUMN_EM` cannot fit the text
    column.
    """
    parser = _TableCells()
    parser.feed(html)
    nowrap = re.search(r"\btd\s*\{[^}]*white-space:\s*nowrap", parser.style) is not None
    wrapping = {int(k) for k in re.findall(r"td\.col(\d+)\s*\{[^}]*white-space:\s*normal", parser.style)}
    minimum = {int(k): float(em) for k, em in re.findall(r"td\.col(\d+)\s*\{[^}]*min-width:\s*([\d.]+)em",
                                                         parser.style)}
    widest = 0.0
    for rows in parser.tables:
        spans: list[tuple[int, int, float]] = []  # first column, span, width
        above: dict[int, int] = {}  # column -> rows a cell of an earlier row still spans there
        for row in rows:
            position = 0
            for tag, span, down, column, lines in row:
                while above.get(position, 0) > 0:
                    position += 1
                wraps = tag == "th" or not nowrap or column in wrapping
                width = max(_runs_em(line, wraps) for line in lines) + 1.0  # 0.5 em of padding each side
                if tag == "td" and column in minimum:
                    width = max(width, minimum[column])  # the theme sizes boxes with their padding
                spans.append((position, span, width))
                above |= dict.fromkeys(range(position, position + span), down)
                position += span
            above = {k: rest - 1 for k, rest in above.items() if rest > 1}
        columns = np.zeros(max((first + span for first, span, _ in spans), default=0))
        for first, span, width in sorted(spans, key=lambda s: s[1]):  # single cells first, then spanning ones
            missing = width - columns[first:first + span].sum()
            if missing > 0:
                columns[first:first + span] += missing / span
        widest = max(widest, float(columns.sum()))
    return widest


def _groups(frame: pd.DataFrame, keep: Sequence) -> list[list]:
    """The columns of ``frame`` not in ``keep``, in runs that a split keeps together: the columns under one label
    of the first level of a MultiIndex, else each column alone."""
    groups: list[list] = []
    for column in frame.columns:
        if column in keep:
            continue
        if groups and isinstance(frame.columns, pd.MultiIndex) and groups[-1][-1][0] == column[0]:
            groups[-1].append(column)
        else:
            groups.append([column])
    return groups


def show_table(frame: pd.DataFrame, formats: Mapping[str, str] | str | None = None, *,
               empty_note: str | None = None, **options) -> None:
    """Display ``frame`` in the page (see :func:`table_html` for ``options``); an empty ``frame`` as the one-line
    ``empty_note`` instead, when one is given."""
    if frame.empty and empty_note is not None:
        display(Markdown(empty_note))
        return
    display(HTML(table_html(frame, formats, **options)))


def glue_table(name: str, frame: pd.DataFrame, formats: Mapping[str, str] | str | None = None, *,
               empty_note: str | None = None, **options) -> None:
    """Glue ``frame`` as HTML under ``name``, for a numbered ``{glue:figure}`` with a caption; its HTML id
    comes from ``name``. An empty ``frame`` is glued as the one-line ``empty_note`` instead, when one is given."""
    if frame.empty and empty_note is not None:
        glue(name, Markdown(empty_note), display=False)
        return
    glue(name, HTML(table_html(frame, formats, table_id=name.replace("-", "_"), **options)), display=False)


def glue_figure(name: str, figure: Figure) -> None:
    """Glue ``figure`` under ``name`` for a numbered ``{glue:figure}``, and close it."""
    import matplotlib.pyplot as plt  # imported here: a page of tables only (the scorecard) starts without pyplot

    glue(name, figure, display=False)
    plt.close(figure)

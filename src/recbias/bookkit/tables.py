"""Tables, figures and numbers as the book's pages show them.

A page never formats a number or styles a table by hand: it calls these helpers
(the number formatters live in :mod:`recbias.text`, where the chapter drivers use
them too), so every chapter reads the same.  Figures and tables that the prose refers to are
*glued* (:func:`glue_figure`, :func:`glue_table`) and placed by a MyST
``{glue:figure}`` directive with a ``:name:`` and a caption, which numbers them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import HTML, Markdown, display
from myst_nb import glue

__all__ = [
    "glue_figure",
    "glue_table",
    "show_table",
    "table_html",
]

_CELL = "padding: 0.15em 0.5em; text-align: right;"
#: stands for the table's id while the table is rendered, replaced by one derived from its content
_PLACEHOLDER_ID = "recbias0table0id"
#: text columns with a longer cell than this wrap
WRAP_ABOVE = 32


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
    wrap: bool = False,
    left: Sequence[str] = (),
    table_id: str | None = None,
) -> str:
    """``frame`` as a compact HTML table: small font, numbers right-aligned, missing as "–".

    The table's HTML id (``T_<table_id>``, which its styles are scoped to) is ``table_id``, by
    default a digest of the rendered table, so identical builds give identical pages (pandas
    would draw a random one).

    Cells stay on one line (``wrap`` lets every cell wrap), except text columns whose longest
    cell exceeds :data:`WRAP_ABOVE` characters, which wrap so that wide tables fit the page.
    ``left`` names columns to align left, header included (names the frame lacks are ignored, so a
    page can pass the same ``left`` to a stand-in table).  ``formats`` maps columns to format
    strings, or is one format string for every numeric column.
    """
    if isinstance(formats, str):  # one format for every numeric column
        formats = {column: formats for k, column in enumerate(frame.columns)
                   if pd.api.types.is_numeric_dtype(frame.iloc[:, k])}
    styler = frame.style.format(formats, precision=precision, na_rep="–").set_uuid(_PLACEHOLDER_ID)
    if not index:
        styler = styler.hide(axis="index")
    styler = styler.set_table_styles(
        [
            {"selector": "", "props": "font-size: 0.85em; margin: 0 auto;"},
            {"selector": "th", "props": _CELL},
            {"selector": "td", "props": _CELL + ("" if wrap else " white-space: nowrap;")},
            {"selector": "small", "props": "color: #666;"},
            {"selector": "th[colspan]", "props": "text-align: center;"},
        ]
    )
    long_text = [column for k, column in enumerate(frame.columns) if _longest_text(frame.iloc[:, k]) > WRAP_ABOVE]
    columns = {column: [{"selector": "", "props": "text-align: left;"}] for column in left if column in frame.columns}
    for column in long_text:
        columns.setdefault(column, []).append({"selector": "td", "props": "white-space: normal; min-width: 12em; text-align: left;"})
    if columns:
        styler = styler.set_table_styles(columns, overwrite=False)
    html = styler.to_html()
    stable = table_id or hashlib.sha256(html.encode()).hexdigest()[:12]
    return html.replace(_PLACEHOLDER_ID, stable)


def show_table(frame: pd.DataFrame, formats: Mapping[str, str] | str | None = None, **options) -> None:
    """Display ``frame`` in the page (see :func:`table_html` for ``options``)."""
    display(HTML(table_html(frame, formats, **options)))


def glue_table(name: str, frame: pd.DataFrame, formats: Mapping[str, str] | str | None = None, *,
               empty_note: str | None = None, **options) -> None:
    """Glue ``frame`` as HTML under ``name``, for a numbered ``{glue:figure}`` with a caption; its HTML id
    comes from ``name``. An empty ``frame`` is glued as the one-line ``empty_note`` instead, when one is given."""
    if frame.empty and empty_note is not None:
        glue(name, Markdown(empty_note), display=False)
        return
    glue(name, HTML(table_html(frame, formats, table_id=name.replace("-", "_"), **options)), display=False)


def glue_figure(name: str, figure: plt.Figure) -> None:
    """Glue ``figure`` under ``name`` for a numbered ``{glue:figure}``, and close it."""
    glue(name, figure, display=False)
    plt.close(figure)

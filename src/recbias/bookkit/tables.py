"""Tables, figures and numbers as the book's pages show them.

A page never formats a number or styles a table by hand: it calls these helpers,
so every chapter reads the same.  Figures and tables that the prose refers to are
*glued* (:func:`glue_figure`, :func:`glue_table`) and placed by a MyST
``{glue:figure}`` directive with a ``:name:`` and a caption, which numbers them.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import HTML, display
from myst_nb import glue

_CELL = "padding: 0.15em 0.5em; text-align: right;"


def table_html(
    frame: pd.DataFrame,
    formats: Mapping[str, str] | str | None = None,
    *,
    precision: int = 3,
    index: bool = False,
    wrap: bool = False,
) -> str:
    """``frame`` as a compact HTML table: small font, numbers right-aligned, missing as "–"."""
    styler = frame.style.format(formats, precision=precision, na_rep="–")
    if not index:
        styler = styler.hide(axis="index")
    styler = styler.set_table_styles(
        [
            {"selector": "", "props": "font-size: 0.85em; margin: 0 auto;"},
            {"selector": "th", "props": _CELL},
            {"selector": "td", "props": _CELL + ("" if wrap else " white-space: nowrap;")},
            {"selector": "small", "props": "color: #666;"},
        ]
    )
    return styler.to_html()


def show_table(frame: pd.DataFrame, formats: Mapping[str, str] | str | None = None, **options) -> None:
    """Display ``frame`` in the page (see :func:`table_html` for ``options``)."""
    display(HTML(table_html(frame, formats, **options)))


def glue_table(name: str, frame: pd.DataFrame, formats: Mapping[str, str] | str | None = None, **options) -> None:
    """Glue ``frame`` as HTML under ``name``, for a numbered ``{glue:figure}`` with a caption."""
    glue(name, HTML(table_html(frame, formats, **options)), display=False)


def glue_figure(name: str, figure: plt.Figure) -> None:
    """Glue ``figure`` under ``name`` for a numbered ``{glue:figure}``, and close it."""
    glue(name, figure, display=False)
    plt.close(figure)


def fmt_p(p: float) -> str:
    """A p-value as prose shows it: three decimals, scientific below 0.001."""
    if not np.isfinite(p):
        return "n/a"
    return "< 1e-300" if p == 0 else f"{p:.1e}" if p < 1e-3 else f"{p:.3f}"


def fmt_pct(x: float, digits: int = 1) -> str:
    """A share as a percentage (``0.1234`` -> ``"12.3%"``); "n/a" when undefined."""
    return "n/a" if not np.isfinite(x) else f"{x:.{digits}%}"


def fmt_number(x: float, digits: int = 3) -> str:
    """A value with ``digits`` decimals, never printed as "-0.000"."""
    if not np.isfinite(x):
        return "n/a"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def fmt_pm(mean: float, spread: float, digits: int = 3) -> str:
    """``mean`` over ``± spread`` on a second, smaller line (keeps wide tables narrow)."""
    return f"{fmt_number(mean, digits)}<br><small>± {fmt_number(spread, digits)}</small>"


def fmt_seconds(x: float) -> str:
    """A duration: two decimals under 10 s, one above."""
    return f"{x:.2f} s" if x < 10 else f"{x:.1f} s"


def ordinal(k: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def order_text(values: Mapping[str, float]) -> str:
    """Systems from best to worst, e.g. ``"MF > pLSA > Random"``."""
    return " > ".join(sorted(values, key=lambda name: -values[name]))

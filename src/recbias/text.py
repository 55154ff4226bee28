"""Numbers and lists as the book's prose shows them, for the pages and for the chapter drivers
that compose data-dependent sentences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: the size of a 1R target set, |T_u^r|, as HTML table cells write it
TARGET_SIZE_HTML = "|<i>T</i><sub><i>u</i></sub><sup><i>r</i></sup>|"


def fmt_p(p: float) -> str:
    """A p-value as prose shows it: three decimals, scientific below 0.001."""
    if not np.isfinite(p):
        return "n/a"
    return "< 1e-300" if p == 0 else f"{p:.1e}" if p < 1e-3 else f"{p:.3f}"


def fmt_p_clause(p: float) -> str:
    """A p-value as a clause of a sentence: ``"p = 0.012"``, or ``"p < 1e-300"`` when it underflows."""
    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def fmt_p_html(p: float) -> str:
    """A p-value as a table cell: as :func:`fmt_p`, but below 0.001 in HTML powers of ten ("1.4 × 10<sup>−4</sup>")."""
    text = fmt_p(p)
    if "e" not in text or text.startswith("<"):
        return text
    mantissa, exponent = text.split("e")
    return f"{mantissa} × 10<sup>{int(exponent)}</sup>".replace("-", "−")


def fmt_pct(x: float, digits: int = 1) -> str:
    """A share as a percentage (``0.1234`` -> ``"12.3%"``); "n/a" when undefined."""
    return "n/a" if not np.isfinite(x) else f"{x:.{digits}%}"


def fmt_number(x: float, digits: int = 3) -> str:
    """A value with ``digits`` decimals, never printed as "-0.000"."""
    if not np.isfinite(x):
        return "n/a"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def fmt_signed(x: float, digits: int = 1) -> str:
    """A signed value such as a z-score (``"+1.5"``, ``"-0.3"``), zero printed as ``"0.0"``, never ``"-0.0"``."""
    if not np.isfinite(x):
        return "n/a"
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def fmt_pm(mean: float, spread: float, digits: int = 3) -> str:
    """``mean`` over ``± spread`` on a second, smaller line (keeps wide tables narrow)."""
    return f"{fmt_number(mean, digits)}<br><small>± {fmt_number(spread, digits)}</small>"


def fmt_interval(value: float, ci: tuple[float, float], digits: int = 2) -> str:
    """A value with its interval, ``"0.42 [0.31, 0.55]"``, for prose."""
    return f"{fmt_number(value, digits)} [{fmt_number(ci[0], digits)}, {fmt_number(ci[1], digits)}]"


def fmt_ci(value: float, ci: tuple[float, float], digits: int = 2, fmt: str | None = None) -> str:
    """A value over its interval on a second, smaller line (keeps wide tables narrow); ``fmt`` (e.g.
    ``"{:+.0%}"``) replaces the fixed ``digits``."""
    show = (lambda x: fmt.format(x)) if fmt else (lambda x: fmt_number(x, digits))
    return f"{show(value)}<br><small>[{show(ci[0])}, {show(ci[1])}]</small>"


def fmt_span(low: float, high: float, fmt: str = "{:.2f}") -> str:
    """A range as prose shows it, ``"0.31 to 0.55"``, or a single value when both ends print alike."""
    a, b = fmt.format(low), fmt.format(high)
    return a if a == b else f"{a} to {b}"


def fmt_count(k: int, one: str, many: str) -> str:
    """A count with its noun in the right number: ``(1, "run", "runs")`` -> ``"1 run"``, ``2,000 runs``."""
    return f"{k:,} {one if k == 1 else many}"


def fmt_yes(flag: bool) -> str:
    """A truth value as a table cell: "yes" or "no"."""
    return "yes" if flag else "no"


def fmt_seconds(x: float) -> str:
    """A duration: two decimals under 10 s, one above."""
    return f"{x:.2f} s" if x < 10 else f"{x:.1f} s"


def ordinal(k: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def order_text(values: Mapping[str, float]) -> str:
    """Systems from best to worst, e.g. ``"MF > pLSA > Random"``; equal values (to 12 digits) as ``"A = B"``,
    in the order given."""
    level = {name: float(f"{values[name]:.12g}") for name in values}
    names = sorted(values, key=lambda name: -level[name])
    text = names[0] if names else ""
    for better, worse in zip(names, names[1:]):
        text += (" = " if level[better] == level[worse] else " > ") + worse
    return text


def and_list(parts: Sequence[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    parts = list(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

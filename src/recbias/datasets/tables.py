"""Delimited text files to DataFrames, fast, with line-accurate error messages.

pandas' C parser reads the whole file at once.  Only when it fails, or when the
result shows a defect (a missing numeric field), is the text scanned again with
one vectorised regular expression per line to find the first line that breaks
the documented format; the error then names the file, the 1-based line number
and the line itself.  Files with free-text columns are always scanned, because
pandas silently reads a missing text field as an empty string.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.datasets.errors import DatasetError, MalformedLineError

#: regular expressions of one field
INTEGER = r"[+-]?\d+"
DECIMAL = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
CSV_FIELD = r'(?:"(?:[^"]|"")*"|[^,"]*)'
CSV_NONEMPTY_FIELD = r'(?:"(?:[^"]|"")+"|[^,"]+)'

_PARSE_SEP = "\x1f"  # stands in for a multi-character separator such as '::'
_BLANK = r"[ \r]*"  # lines pandas skips
_KIND_NAMES = {"int64": "integer", "float64": "number", "str": "text"}


@dataclass(frozen=True)
class Column:
    """One field of a line: its name, pandas dtype (``int64``, ``float64``, ``str``) and pattern.

    A ``None`` pattern accepts any text without the separator (or any CSV field when quoted).
    """

    name: str
    dtype: str
    pattern: str | None = None


@dataclass(frozen=True)
class TableFormat:
    """The documented layout of a file.

    ``sep`` may have several characters (ML-1M uses ``'::'``); ``header`` is the
    exact first line split into fields, or ``None`` for files without one;
    ``quoted`` enables CSV double-quote quoting.
    """

    columns: tuple[Column, ...]
    sep: str = "\t"
    encoding: str = "utf-8"
    header: tuple[str, ...] | None = None
    quoted: bool = False

    @property
    def names(self) -> list[str]:
        return [column.name for column in self.columns]


@dataclass(frozen=True)
class Table:
    """A parsed file together with what is needed to point at one of its lines."""

    frame: pd.DataFrame
    dataset: str
    file: str
    text: str
    header_lines: int

    def require(self, ok: np.ndarray, reason: str) -> None:
        """Raise :class:`MalformedLineError` at the first row where ``ok`` is false."""
        bad = np.flatnonzero(~np.asarray(ok, dtype=bool))
        if len(bad) == 0:
            return
        lines = _lines(self.text)
        data_lines = np.flatnonzero(~lines.str.fullmatch(_BLANK).to_numpy(dtype=bool))
        data_lines = data_lines[data_lines >= self.header_lines]
        index = int(data_lines[bad[0]])
        raise MalformedLineError(self.dataset, self.file, index + 1, lines.iloc[index], reason)


def read_table(raw: bytes, layout: TableFormat, dataset: str, file: str) -> Table:
    """Parse ``raw`` laid out as ``layout``; malformed input raises :class:`MalformedLineError`."""
    text = _decode(raw, layout.encoding, dataset, file)
    sep = layout.sep if len(layout.sep) == 1 else _PARSE_SEP
    parse_text = text if sep == layout.sep else text.replace(layout.sep, sep)
    header_lines = 0 if layout.header is None else 1
    if layout.header is not None:
        first = text.split("\n", 1)[0].removesuffix("\r")
        if first.split(layout.sep) != list(layout.header):
            raise MalformedLineError(dataset, file, 1, first, f"expected the header {layout.sep.join(layout.header)!r}")
    if any(column.dtype == "str" for column in layout.columns):
        problem = _first_bad_line(parse_text, sep, layout, header_lines, dataset, file)
        if problem is not None:
            raise problem
    try:
        frame = pd.read_csv(
            io.StringIO(parse_text),
            sep=sep,
            header=None,
            names=layout.names,
            dtype={column.name: column.dtype for column in layout.columns},
            skiprows=header_lines,
            quoting=csv.QUOTE_MINIMAL if layout.quoted else csv.QUOTE_NONE,
            index_col=False,
            keep_default_na=False,
            na_values=[],
            engine="c",
        )
    except (ValueError, pd.errors.ParserError) as error:
        raise _explain(parse_text, sep, layout, header_lines, dataset, file, error) from error
    if frame.isna().to_numpy().any():
        raise _explain(parse_text, sep, layout, header_lines, dataset, file, "a missing value")
    return Table(frame, dataset, file, text, header_lines)


def _decode(raw: bytes, encoding: str, dataset: str, file: str) -> str:
    """Decode the whole file, reporting the line of the first undecodable byte."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as error:
        start = raw.rfind(b"\n", 0, error.start) + 1
        end = raw.find(b"\n", error.start)
        line = raw[start : end if end >= 0 else len(raw)].decode(encoding, errors="replace")
        number = raw.count(b"\n", 0, error.start) + 1
        raise MalformedLineError(dataset, file, number, line, f"not valid {encoding} text") from error


def _lines(text: str) -> pd.Series:
    """Physical lines of ``text`` without their line terminators."""
    return pd.Series(text.split("\n"), dtype=object).str.removesuffix("\r")


def _first_bad_line(
    text: str, sep: str, layout: TableFormat, header_lines: int, dataset: str, file: str
) -> MalformedLineError | None:
    """The error for the first data line that breaks the layout, or ``None`` if all are well formed."""
    line_pattern = re.escape(sep).join(f"(?:{_pattern(column, sep, layout.quoted)})" for column in layout.columns)
    lines = _lines(text)
    good = (lines.str.fullmatch(line_pattern) | lines.str.fullmatch(_BLANK)).to_numpy(dtype=bool, copy=True)
    good[:header_lines] = True
    bad = np.flatnonzero(~good)
    if len(bad) == 0:
        return None
    line = lines.iloc[int(bad[0])]
    shown = line.replace(_PARSE_SEP, layout.sep)
    return MalformedLineError(dataset, file, int(bad[0]) + 1, shown, _why(line, sep, layout))


def _explain(
    text: str, sep: str, layout: TableFormat, header_lines: int, dataset: str, file: str, cause: object
) -> DatasetError:
    """The error to raise once parsing failed: the first bad line, or the parser's complaint."""
    problem = _first_bad_line(text, sep, layout, header_lines, dataset, file)
    return problem or DatasetError(f"dataset '{dataset}': {file} could not be parsed: {cause}")


def _pattern(column: Column, sep: str, quoted: bool) -> str:
    """The regular expression one field must match."""
    if column.pattern is not None:
        return column.pattern
    return CSV_FIELD if quoted else f"[^{re.escape(sep)}]*"


def _why(line: str, sep: str, layout: TableFormat) -> str:
    """Name what is wrong with one malformed line."""
    if layout.quoted:
        fields = next(csv.reader([line], delimiter=sep), [])
    else:
        fields = line.split(sep)
    expected = len(layout.columns)
    if len(fields) != expected:
        names = ", ".join(layout.names)
        return f"expected {expected} fields ({names}) separated by {layout.sep!r}, found {len(fields)}"
    for column, field in zip(layout.columns, fields, strict=True):
        if layout.quoted and column.dtype == "str":
            continue  # csv.reader has already removed the quotes the pattern expects
        if not re.fullmatch(_pattern(column, sep, layout.quoted), field):
            return f"field '{column.name}' should be {_KIND_NAMES.get(column.dtype, column.dtype)}, found {field!r}"
    return "the line does not match the documented format"

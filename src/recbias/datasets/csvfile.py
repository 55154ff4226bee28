"""Ratings from a user's own CSV file (``load("csv:PATH")``).

Format: UTF-8, comma-separated, one rating per line, a header naming the
columns ``user,item`` followed optionally by ``rating`` and then optionally by
``timestamp`` (integer seconds since the epoch).  Ids are any non-empty text;
if every id of a column is a plain non-negative integer they are treated as
numbers (so codes follow numeric order).  Without a ``rating`` column the file
is implicit feedback: every value is 1 and the positive threshold is 1.  With
ratings, the default positive threshold is the highest rating in the file,
the analogue of "5 stars" in the papers.

The header may also use the common names of other releases, recognised without help: MovieLens's
``userId,movieId,rating,timestamp``, Last.fm's ``userID,artistID,weight`` (play counts as ratings), or
``user_id,item_id,...`` (:data:`HEADER_NAMES`, case aside).  Any other header is mapped with ``columns``,
e.g. ``{"user": "customer", "item": "sku", "rating": "stars"}`` (``--csv-columns
user=customer,item=sku,rating=stars`` on the command line, :func:`parse_columns`); columns it leaves
unnamed are ignored.

A (user, item) pair may appear once.  A repeated pair is an error naming the
file and the lines of its first repetition, unless ``duplicates`` asks for a
policy: ``"last"`` keeps the last line of each pair, ``"mean"`` averages the
ratings of a pair (and keeps its latest timestamp).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from recbias.datasets.assemble import build_ratings
from recbias.datasets.errors import DatasetError, MalformedLineError, MissingFileError
from recbias.datasets.registry import DatasetInfo, dataset_label
from recbias.datasets.textcheck import check_text_file
from recbias.datasets.tables import CSV_NONEMPTY_FIELD, DECIMAL, INTEGER, Column, TableFormat, read_table
from recbias.ratings import Ratings

#: the headers a CSV file may have
CSV_HEADERS = (
    ("user", "item"),
    ("user", "item", "rating"),
    ("user", "item", "timestamp"),
    ("user", "item", "rating", "timestamp"),
)
_COLUMNS = {
    "user": Column("user", "str", CSV_NONEMPTY_FIELD),
    "item": Column("item", "str", CSV_NONEMPTY_FIELD),
    "rating": Column("rating", "float64", DECIMAL),
    "timestamp": Column("timestamp", "int64", INTEGER),
}
_CANONICAL_INTEGER = r"0|[1-9]\d*"
#: header names recognised without a mapping (compared in lower case), by the column they stand for
HEADER_NAMES = {
    "user": ("user", "userid", "user_id"),
    "item": ("item", "itemid", "item_id", "movieid", "movie_id", "artistid", "artist_id"),
    "rating": ("rating", "weight", "score"),
    "timestamp": ("timestamp", "time", "ts"),
}
#: what to do with a (user, item) pair that appears on several lines
DUPLICATE_POLICIES = ("error", "last", "mean")


def csv_info(name: str) -> DatasetInfo:
    """Static facts for ``csv:PATH`` (nothing is read); the dataset is named by :func:`dataset_label`, and
    ``url`` keeps the full path."""
    path = name.removeprefix("csv:")
    return DatasetInfo(
        name=dataset_label(name),
        title=f"Ratings from {Path(path).name}",
        description=f"rating from the user file {Path(path).name}",
        licence="Unknown to recbias: as set by the provider of the file.",
        citation="",
        url=path,
        paper_usage="User data, not part of the papers.",
        positive_threshold=None,
    )


def parse_columns(text: str) -> dict[str, str]:
    """A column mapping written ``user=userId,item=movieId,rating=rating``: our column -> the file's header name.

    >>> parse_columns("user=customer, item=sku")
    {'user': 'customer', 'item': 'sku'}
    """
    mapping = {}
    for part in filter(None, (part.strip() for part in text.split(","))):
        ours, _, theirs = part.partition("=")
        if ours.strip() not in _COLUMNS or not theirs.strip() or ours.strip() in mapping:
            raise ValueError(f"csv columns {text!r}: expected NAME=HEADER pairs, each NAME once and one of "
                             f"{', '.join(_COLUMNS)}; got {part!r}")
        mapping[ours.strip()] = theirs.strip()
    return mapping


def header_columns(header: tuple[str, ...], columns: dict[str, str] | None) -> tuple[str, ...]:
    """Our name of each column of ``header`` ("" for one to ignore): by ``columns`` when given (our column ->
    header name), else by :data:`HEADER_NAMES`; a ValueError says what is missing or ambiguous.

    >>> header_columns(("userId", "movieId", "rating", "timestamp"), None)
    ('user', 'item', 'rating', 'timestamp')
    >>> header_columns(("customer", "sku", "stars", "note"), {"user": "customer", "item": "sku", "rating": "stars"})
    ('user', 'item', 'rating', '')
    """
    if columns is not None:
        missing = [theirs for theirs in columns.values() if theirs not in header]
        if missing:
            raise ValueError(f"the header has no column {', '.join(map(repr, missing))}")
        ours = {theirs: name for name, theirs in columns.items()}
        named = tuple(ours.get(field, "") for field in header)
    else:
        alias = {spelling: name for name, spellings in HEADER_NAMES.items() for spelling in spellings}
        named = tuple(alias.get(field.strip().lower(), "?") for field in header)
        if "?" in named:
            unknown = [field for field, name in zip(header, named, strict=True) if name == "?"]
            raise ValueError(f"unknown column(s) {', '.join(map(repr, unknown))}; name the columns with "
                             "columns (--csv-columns user=...,item=...[,rating=...][,timestamp=...])")
    repeated = sorted({name for name in named if name and named.count(name) > 1})
    if repeated or "user" not in named or "item" not in named:
        raise ValueError(f"the columns must name one user and one item column, at most one rating and one "
                         f"timestamp column; found {', '.join(n or '(ignored)' for n in named)}")
    return named


def read_csv_ratings(name: str, positive_threshold: float | None = None, duplicates: str = "error",
                     columns: dict[str, str] | None = None) -> Ratings:
    """Load ``csv:PATH``; a malformed line or a repeated pair raises an error naming the file and lines;
    ``columns`` maps our columns to the header's names (:func:`header_columns`)."""
    if duplicates not in DUPLICATE_POLICIES:
        raise ValueError(f"dataset '{name}': duplicates must be one of {', '.join(DUPLICATE_POLICIES)}, got {duplicates!r}")
    info = csv_info(name)
    path = Path(info.url)
    if not path.is_file():
        raise MissingFileError(f"dataset '{name}': {path} does not exist or is not a file")
    check_text_file(path, name)
    raw = path.read_bytes()
    header = tuple(raw.split(b"\n", 1)[0].decode("utf-8-sig", errors="replace").rstrip("\r").split(","))
    try:
        named = header_columns(header, columns)
    except ValueError as error:
        accepted = " or ".join(",".join(h) for h in CSV_HEADERS)
        raise MalformedLineError(name, str(path), 1, ",".join(header), f"{error} (the header {accepted}, or "
                                 "a common spelling such as userId,movieId,rating,timestamp)") from None
    layout = TableFormat(tuple(_COLUMNS[c] if c else Column(f"_ignored{i}", "str") for i, c in enumerate(named)),
                         sep=",", header=header, encoding="utf-8-sig", quoted=True)
    frame = read_table(raw, layout, name, str(path)).frame
    frame = frame[[c for c in _COLUMNS if c in named]]
    header = tuple(c for c in _COLUMNS if c in named)
    if len(frame) == 0:
        raise DatasetError(f"dataset '{name}': {path} holds a header but no ratings")
    frame = _resolve_duplicates(frame, duplicates, name, path)
    implicit = "rating" not in header
    values = np.ones(len(frame)) if implicit else frame["rating"].to_numpy()
    scale = (float(values.min()), float(values.max()))
    default_threshold = 1.0 if implicit else scale[1]
    return build_ratings(
        info,
        users=_ids(frame["user"]),
        items=_ids(frame["item"]),
        values=values,
        timestamps=frame["timestamp"].to_numpy() if "timestamp" in header else None,
        scale=scale,
        positive_threshold=default_threshold if positive_threshold is None else positive_threshold,
        description=f"{'implicit feedback (value 1)' if implicit else 'rating'} from {path.name}",
    )


def _resolve_duplicates(frame: pd.DataFrame, policy: str, name: str, path: Path) -> pd.DataFrame:
    """``frame`` with each (user, item) pair once, by ``policy``; ``"error"`` names the first repeat."""
    repeated = frame.duplicated(["user", "item"], keep="first").to_numpy()
    if not repeated.any():
        return frame
    if policy == "error":
        second = int(np.argmax(repeated))
        user, item = frame["user"].iat[second], frame["item"].iat[second]
        first = int(np.argmax(((frame["user"] == user) & (frame["item"] == item)).to_numpy()))
        more = int(repeated.sum()) - 1
        raise DatasetError(
            f"dataset '{name}': {path}: user {user} and item {item} appear on lines {first + 2} and {second + 2}"
            + (f" ({more} more repeated line(s) follow)" if more else "")
            + "; each (user, item) pair may appear once, or load it with duplicates='last' or 'mean'"
        )
    if policy == "last":
        return frame[~frame.duplicated(["user", "item"], keep="last").to_numpy()].reset_index(drop=True)
    rules = {column: ("mean" if column == "rating" else "max") for column in frame.columns if column not in ("user", "item")}
    return frame.groupby(["user", "item"], sort=False, as_index=False).agg(rules)


def _ids(column: pd.Series) -> np.ndarray:
    """Ids as integers when all are plain non-negative integers, else as text."""
    if column.str.fullmatch(_CANONICAL_INTEGER).all():
        return column.astype(np.int64).to_numpy()
    return column.to_numpy(dtype=object)

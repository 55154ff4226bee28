"""Reader for Coat (Schnabel, Swaminathan, Singh, Chandak and Joachims, ICML 2016).

290 users rated 300 coats twice over: 24 coats each chose to rate (``train.ascii``,
missing not at random) and 16 coats drawn uniformly at random for them
(``test.ascii``, missing at random).  Both are dense ``290 x 300`` matrices of
whole stars, 0 meaning "not rated".  The self-selected ratings are the dataset;
the random-item ratings ride beside them as :attr:`Ratings.unbiased_test`, in the
same code space, so that no split or recommender ever trains on them.

User and item features are one-hot rows whose columns are named ``group:value``
in the map files; each row must set exactly one column of each group.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.datasets.errors import DatasetError, MalformedLineError
from recbias.datasets.fetch import DataFiles
from recbias.datasets.registry import DatasetInfo
from recbias.ratings import Ratings

N_USERS, N_ITEMS = 290, 300
TRAIN, TEST = "train.ascii", "test.ascii"
USER_FEATURES, USER_MAP = "user_item_features/user_features.ascii", "user_item_features/user_features_map.txt"
ITEM_FEATURES, ITEM_MAP = "user_item_features/item_features.ascii", "user_item_features/item_features_map.txt"
#: column names of the decoded feature groups of the map files
USER_GROUPS = {"gender": "gender", "age": "age", "location": "location", "fashioninterest": "fashion interest"}
ITEM_GROUPS = {"gender": "gender", "jackettype": "jacket type", "color": "colour", "onfrontpage": "on front page"}


def read_coat(files: DataFiles, info: DatasetInfo, positive_threshold: float) -> Ratings:
    """The self-selected ratings, with the random-item ratings as ``unbiased_test``."""
    stars = {name: _read_matrix(files, info.name, name, (N_USERS, N_ITEMS)) for name in (TRAIN, TEST)}
    for name, matrix in stars.items():
        _require_stars(files, info.name, name, matrix)
    users = _decode_features(files, info.name, USER_FEATURES, USER_MAP, (N_USERS, "user"), USER_GROUPS)
    items = _decode_features(files, info.name, ITEM_FEATURES, ITEM_MAP, (N_ITEMS, "item"), ITEM_GROUPS)

    def ratings(matrix: np.ndarray, name: str, description: str) -> Ratings:
        rows, columns = np.nonzero(matrix)
        return Ratings(
            name=name,
            users=rows,
            items=columns,
            values=matrix[rows, columns],
            timestamps=None,
            user_ids=np.arange(N_USERS),
            item_ids=np.arange(N_ITEMS),
            scale=(1.0, 5.0),
            positive_threshold=positive_threshold,
            licence=info.licence,
            citation=info.citation,
            user_attributes=users,
            item_metadata=items,
            description=description,
        )

    unbiased = ratings(stars[TEST], f"{info.name} (random items)", "1-5 star rating of a coat drawn at random for the user")
    return ratings(stars[TRAIN], info.name, info.description).with_unbiased_test(unbiased)


def _lines(files: DataFiles, dataset: str, name: str) -> list[str]:
    try:
        text = files.read(name).decode("ascii")
    except UnicodeDecodeError as error:
        raise DatasetError(f"dataset '{dataset}': {files.label(name)} is not ASCII text ({error})") from error
    return text.rstrip("\n").split("\n")


def _read_matrix(files: DataFiles, dataset: str, name: str, shape: tuple[int, int]) -> np.ndarray:
    """A dense whitespace-separated matrix of ``shape``; errors name the file and line."""
    lines = _lines(files, dataset, name)
    if len(lines) != shape[0]:
        raise DatasetError(f"dataset '{dataset}': {files.label(name)} has {len(lines)} rows, expected {shape[0]}")
    fields = [line.split() for line in lines]
    widths = np.fromiter(map(len, fields), dtype=np.int64, count=len(fields))
    if (widths != shape[1]).any():
        bad = int(np.argmax(widths != shape[1]))
        reason = f"{widths[bad]} values, expected {shape[1]}"
        raise MalformedLineError(dataset, files.label(name), bad + 1, lines[bad], reason)
    try:
        return np.array(fields, dtype=np.float64)
    except ValueError:
        bad = next(k for k, row in enumerate(fields) if not _all_numbers(row))
        raise MalformedLineError(dataset, files.label(name), bad + 1, lines[bad], "a value is not a number") from None


def _all_numbers(row: list[str]) -> bool:
    try:
        np.array(row, dtype=np.float64)
    except ValueError:
        return False
    return True


def _require_stars(files: DataFiles, dataset: str, name: str, matrix: np.ndarray) -> None:
    """Every entry is a whole number of stars from 0 (missing) to 5."""
    bad = (matrix < 0) | (matrix > 5) | (matrix != np.round(matrix))
    if bad.any():
        row, column = np.argwhere(bad)[0]
        line = " ".join(f"{v:g}" for v in matrix[row])
        reason = f"value {matrix[row, column]:g} in column {column + 1} is not 0 (missing) or 1-5 stars"
        raise MalformedLineError(dataset, files.label(name), int(row) + 1, line, reason)


def _decode_features(
    files: DataFiles, dataset: str, name: str, map_name: str, rows: tuple[int, str], groups: dict[str, str]
) -> pd.DataFrame:
    """One column per feature group, holding the value whose one-hot column is set.

    ``rows`` is the expected number of rows and what a row is (``"user"``, ``"item"``).
    """
    n_rows, entity = rows
    columns = [line.strip() for line in _lines(files, dataset, map_name) if line.strip()]
    if any(":" not in column for column in columns):
        raise DatasetError(f"dataset '{dataset}': {files.label(map_name)} must name columns as group:value")
    group_of = np.array([column.split(":", 1)[0] for column in columns])
    value_of = np.array([column.split(":", 1)[1] for column in columns])
    unknown = sorted(set(group_of) - set(groups))
    if unknown:
        raise DatasetError(f"dataset '{dataset}': {files.label(map_name)} has unknown feature group(s) {unknown}")
    onehot = _read_matrix(files, dataset, name, (n_rows, len(columns)))
    decoded = {}
    for group, label in groups.items():
        block = onehot[:, group_of == group]
        wrong = (block.sum(axis=1) != 1) | ((block != 0) & (block != 1)).any(axis=1)
        if wrong.any():
            row = int(np.argmax(wrong))
            line = " ".join(f"{v:g}" for v in onehot[row])
            raise MalformedLineError(dataset, files.label(name), row + 1, line, f"'{group}' is not one-hot")
        decoded[label] = value_of[group_of == group][block.argmax(axis=1)]
    frame = pd.DataFrame(decoded)
    frame.index.name = entity
    return frame

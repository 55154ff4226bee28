"""Turn parsed columns with original ids into a :class:`~recbias.ratings.Ratings`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.datasets.errors import DatasetError
from recbias.datasets.registry import DatasetInfo
from recbias.ratings import Ratings


def encode(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``0..n-1`` in the order of the sorted distinct original ids.

    Returns ``(distinct_ids, codes)`` with ``distinct_ids[codes] == ids``.
    """
    distinct, codes = np.unique(np.asarray(ids), return_inverse=True)
    return distinct, codes.reshape(-1)


def align(table: pd.DataFrame, source: str, ids: np.ndarray, entity: str) -> pd.DataFrame:
    """Rows of ``table`` (indexed by original id) in code order, indexed by code.

    Every id must appear exactly once in ``table``; ``source`` names the file in errors.
    """
    if not table.index.is_unique:
        duplicated = table.index[table.index.duplicated()].tolist()[0]
        raise DatasetError(f"{source}: {entity} id {duplicated!r} appears more than once")
    missing = ~np.isin(ids, table.index.to_numpy())
    if missing.any():
        shown = ", ".join(map(str, ids[missing][:5]))
        raise DatasetError(f"{source}: no record for {missing.sum()} rated {entity} id(s), e.g. {shown}")
    aligned = table.loc[ids].reset_index(drop=True)
    aligned.index.name = entity
    return aligned


def build_ratings(
    info: DatasetInfo,
    *,
    users: np.ndarray,
    items: np.ndarray,
    values: np.ndarray,
    timestamps: np.ndarray | None,
    scale: tuple[float, float],
    positive_threshold: float,
    user_table: tuple[pd.DataFrame, str] | None = None,
    item_table: tuple[pd.DataFrame, str] | None = None,
    name: str | None = None,
    description: str | None = None,
) -> Ratings:
    """Encode original ids to codes and attach attribute tables given as ``(table, source)``."""
    user_ids, user_codes = encode(users)
    item_ids, item_codes = encode(items)
    return Ratings(
        name=name or info.name,
        users=user_codes,
        items=item_codes,
        values=values,
        timestamps=timestamps,
        user_ids=user_ids,
        item_ids=item_ids,
        scale=(float(scale[0]), float(scale[1])),
        positive_threshold=float(positive_threshold),
        licence=info.licence,
        citation=info.citation,
        user_attributes=None if user_table is None else align(*user_table, user_ids, "user"),
        item_metadata=None if item_table is None else align(*item_table, item_ids, "item"),
        description=description or info.description,
    )

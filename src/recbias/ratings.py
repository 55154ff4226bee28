"""The immutable ratings container every part of the package exchanges.

A :class:`Ratings` object holds one rating per row (user code, item code, value,
optional timestamp) over a fixed code space of ``n_users`` users and ``n_items``
items.  Splits return subsets that keep the full code space, so that a training
set and its test set index the same users and items.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp


def _frozen(array: np.ndarray | None, dtype: Any = None) -> np.ndarray | None:
    """Return a read-only copy-free view of ``array`` with the given dtype."""
    if array is None:
        return None
    out = np.asarray(array, dtype=dtype)
    if out.flags.writeable:
        out = out.view()
        out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class Ratings:
    """Ratings over a fixed code space, with the metadata a dataset card needs.

    Attributes:
        name: registry name of the dataset (``"ml-100k"``, ``"synthetic"``, ...).
        users, items: integer codes in ``[0, n_users)`` and ``[0, n_items)``, one per rating.
        values: rating values (stars, or play counts for Last.fm).
        timestamps: seconds since the epoch, one per rating, or ``None``.
        user_ids, item_ids: original identifiers, indexed by code.
        scale: ``(lowest, highest)`` possible rating value.
        positive_threshold: a rating ``>= positive_threshold`` is a positive judgment.
        licence, citation: how the data may be used and must be cited.
        user_attributes, item_metadata: optional tables indexed by code.
        true_relevance: for simulated worlds only, the complete ``n_users x n_items``
            boolean relevance matrix that no real dataset has.
        unbiased_test: for datasets that have them (Coat), ratings of items drawn
            uniformly at random for the same users, in the same code space: an
            unbiased (missing-at-random) test sample, never to be trained on.
        description: one line on what a rating is.
    """

    name: str
    users: np.ndarray
    items: np.ndarray
    values: np.ndarray
    timestamps: np.ndarray | None
    user_ids: np.ndarray
    item_ids: np.ndarray
    scale: tuple[float, float]
    positive_threshold: float
    licence: str = ""
    citation: str = ""
    user_attributes: pd.DataFrame | None = None
    item_metadata: pd.DataFrame | None = None
    true_relevance: np.ndarray | None = None
    description: str = ""
    unbiased_test: Ratings | None = None
    _csr_cache: dict[str, sp.csr_matrix] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.users)
        set_ = object.__setattr__
        set_(self, "users", _frozen(self.users, np.int32))
        set_(self, "items", _frozen(self.items, np.int32))
        set_(self, "values", _frozen(self.values, np.float64))
        set_(self, "timestamps", _frozen(self.timestamps, np.int64))
        set_(self, "user_ids", _frozen(self.user_ids))
        set_(self, "item_ids", _frozen(self.item_ids))
        set_(self, "true_relevance", _frozen(self.true_relevance, bool))
        for label, column in (("items", self.items), ("values", self.values), ("timestamps", self.timestamps)):
            if column is not None and len(column) != n:
                raise ValueError(f"Ratings '{self.name}': {label} has {len(column)} entries, users has {n}")
        if n and (self.users.min() < 0 or self.users.max() >= self.n_users):
            raise ValueError(f"Ratings '{self.name}': user codes outside [0, {self.n_users})")
        if n and (self.items.min() < 0 or self.items.max() >= self.n_items):
            raise ValueError(f"Ratings '{self.name}': item codes outside [0, {self.n_items})")
        if self.true_relevance is not None and self.true_relevance.shape != self.shape:
            raise ValueError(
                f"Ratings '{self.name}': true_relevance has shape {self.true_relevance.shape}, expected {self.shape}"
            )
        if self.unbiased_test is not None and self.unbiased_test.shape != self.shape:
            raise ValueError(
                f"Ratings '{self.name}': unbiased_test has shape {self.unbiased_test.shape}, expected {self.shape}"
            )

    @classmethod
    def from_codes(
        cls,
        users: np.ndarray,
        items: np.ndarray,
        values: np.ndarray,
        shape: tuple[int, int],
        *,
        positive_threshold: float,
        name: str = "ratings",
        scale: tuple[float, float] = (1.0, 5.0),
        timestamps: np.ndarray | None = None,
        true_relevance: np.ndarray | None = None,
    ) -> Ratings:
        """Ratings over a ``shape = (n_users, n_items)`` code space whose original ids are
        the codes themselves, as for generated or hand-made data."""
        return cls(
            name=name,
            users=users,
            items=items,
            values=values,
            timestamps=timestamps,
            user_ids=np.arange(shape[0]),
            item_ids=np.arange(shape[1]),
            scale=scale,
            positive_threshold=positive_threshold,
            true_relevance=true_relevance,
        )

    # ------------------------------------------------------------------ sizes
    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_ratings(self) -> int:
        return len(self.users)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_users, self.n_items)

    @property
    def density(self) -> float:
        """Share of the user-item matrix that holds a rating, ``|R| / (|U| |I|)``."""
        return self.n_ratings / (self.n_users * self.n_items)

    def __len__(self) -> int:
        return self.n_ratings

    def __repr__(self) -> str:
        return (
            f"Ratings(name={self.name!r}, users={self.n_users:,}, items={self.n_items:,}, "
            f"ratings={self.n_ratings:,}, density={self.density:.4%})"
        )

    # -------------------------------------------------------------- relevance
    @property
    def positive(self) -> np.ndarray:
        """Boolean mask of positive ratings, ``value >= positive_threshold``."""
        return self.values >= self.positive_threshold

    def with_threshold(self, threshold: float) -> Ratings:
        """The same ratings (and unbiased test sample) judged with another positive threshold."""
        unbiased = None if self.unbiased_test is None else self.unbiased_test.with_threshold(threshold)
        return replace(self, positive_threshold=float(threshold), unbiased_test=unbiased, _csr_cache={})

    def with_unbiased_test(self, unbiased: Ratings) -> Ratings:
        """These ratings with ``unbiased`` (same users and items) as their unbiased test sample."""
        return replace(self, unbiased_test=unbiased, _csr_cache={})

    # ------------------------------------------------------------- matrices
    def matrix(self, kind: str = "values") -> sp.csr_matrix:
        """Sparse ``n_users x n_items`` matrix (cached, read-only by convention).

        ``kind`` is ``"values"`` (rating values), ``"binary"`` (1 for every rating) or
        ``"positive"`` (1 for every positive rating).
        """
        if kind not in ("values", "binary", "positive"):
            raise ValueError(f"unknown matrix kind {kind!r}; use 'values', 'binary' or 'positive'")
        if kind not in self._csr_cache:
            if kind == "positive":
                mask = self.positive
                rows, cols, data = self.users[mask], self.items[mask], np.ones(mask.sum())
            else:
                rows, cols = self.users, self.items
                data = self.values if kind == "values" else np.ones(self.n_ratings)
            m = sp.csr_matrix((data, (rows, cols)), shape=self.shape)
            m.sum_duplicates()
            self._csr_cache[kind] = m
        return self._csr_cache[kind]

    def item_counts(self, positive_only: bool = False) -> np.ndarray:
        """Number of (positive) ratings per item code."""
        items = self.items[self.positive] if positive_only else self.items
        return np.bincount(items, minlength=self.n_items)

    def user_counts(self, positive_only: bool = False) -> np.ndarray:
        """Number of (positive) ratings per user code."""
        users = self.users[self.positive] if positive_only else self.users
        return np.bincount(users, minlength=self.n_users)

    # ---------------------------------------------------------------- subsets
    def subset(self, mask: np.ndarray, name: str | None = None) -> Ratings:
        """Ratings selected by a boolean mask (or index array), same code space."""
        mask = np.asarray(mask)
        if mask.dtype == bool and len(mask) != self.n_ratings:
            raise ValueError(f"mask has {len(mask)} entries for {self.n_ratings} ratings")
        return replace(
            self,
            name=self.name if name is None else name,
            users=self.users[mask],
            items=self.items[mask],
            values=self.values[mask],
            timestamps=None if self.timestamps is None else self.timestamps[mask],
            _csr_cache={},
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per rating with codes, original ids, value and timestamp."""
        frame = pd.DataFrame(
            {
                "user": self.users,
                "item": self.items,
                "user_id": self.user_ids[self.users],
                "item_id": self.item_ids[self.items],
                "rating": self.values,
            }
        )
        if self.timestamps is not None:
            frame["timestamp"] = self.timestamps
        return frame

    # ------------------------------------------------------------------ card
    def card(self) -> pd.Series:
        """The dataset card shown at the top of every chapter."""
        positive = self.positive
        return pd.Series(
            {
                "dataset": self.name,
                "what a rating is": self.description,
                "users": f"{self.n_users:,}",
                "items": f"{self.n_items:,}",
                "ratings": f"{self.n_ratings:,}",
                "density": f"{self.density:.3%}",
                "rating scale": f"{self.scale[0]:g} to {self.scale[1]:g}",
                "positive threshold": f"rating >= {self.positive_threshold:g}",
                "positive ratings": f"{positive.sum():,} ({positive.mean():.1%})",
                "timestamps": "yes" if self.timestamps is not None else "no",
                **(
                    {"unbiased test sample": f"{self.unbiased_test.n_ratings:,} ratings of random items"}
                    if self.unbiased_test is not None
                    else {}
                ),
                "user attributes": ", ".join(self.user_attributes.columns)
                if self.user_attributes is not None
                else "none",
                "licence": self.licence,
                "citation": self.citation,
            },
            name=self.name,
        )

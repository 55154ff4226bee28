"""Quality under complete relevance: what every offline design tries to estimate.

A simulated world knows the relevance of every user-item pair
(``Ratings.true_relevance``).  A system's *true* quality for user ``u`` judges its
top ``n`` among all items outside ``R_train(u)`` on that truth, with binary gains:

    P@n = hits / n,   nDCG@n = sum_{k<=n} rel_k / log2(k + 1)  /  sum_{k<=min(n, R_u)} 1 / log2(k + 1),

where ``R_u`` counts the relevant items outside ``R_train(u)`` (Järvelin and Kekäläinen
2002, with the ideal list truncated at ``n``).  Any other metric that weighs the hits of the
top of the list by a fixed discount, ``sum_k rel_k d_k``, is computed from the same lists, and
so is any metric of :mod:`recbias.metrics` with a cutoff, reading the top list as a run whose
relevant items are the ``R_u``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numba import njit, prange

from recbias.evaluate.scoring import SCORE_BLOCK, BlockReader, score_blocks
from recbias.metrics import compute_metrics, parse_metric
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.runs import Runs

__all__ = ["TrueQuality", "top_columns", "true_quality"]


@njit(cache=True, nogil=True, parallel=True)
def _top_columns(scores: np.ndarray, excluded: np.ndarray, order: np.ndarray, k: int, out: np.ndarray) -> None:
    """``out[r]``: the ``k`` columns of row ``r`` with the highest scores, best first, an excluded column
    scoring ``-inf``; of equal scores, the column met first in ``order`` goes first (one pass, insertion
    into the ``k`` kept)."""
    for r in prange(scores.shape[0]):
        values = np.empty(k)
        kept = 0
        for column in order:
            value = -np.inf if excluded[r, column] else scores[r, column]
            if kept == k and not value > values[k - 1]:
                continue
            slot = kept if kept < k else k - 1
            while slot > 0 and values[slot - 1] < value:
                values[slot], out[r, slot] = values[slot - 1], out[r, slot - 1]
                slot -= 1
            values[slot], out[r, slot] = value, column
            kept = min(kept + 1, k)


def top_columns(scores: np.ndarray, k: int, *, excluded: np.ndarray | None = None,
                order: np.ndarray | None = None) -> np.ndarray:
    """Per row, the columns of the ``k`` highest scores, best first.

    The same as ``np.argsort(-scores, axis=1, kind="stable")[:, :k]`` with the columns of
    ``excluded`` (a boolean array like ``scores``) scored ``-inf``, and equal scores going to the
    column that comes first in ``order`` (a permutation of the columns; default: the lower
    column), found in one compiled pass over each row instead of a sort.  ``NaN`` scores are not
    allowed.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    rows, width = scores.shape
    if not 1 <= k <= width:
        raise ValueError(f"k must lie in [1, {width}], got {k}")
    excluded = np.zeros((rows, width), dtype=bool) if excluded is None else np.ascontiguousarray(excluded, dtype=bool)
    if excluded.shape != scores.shape:
        raise ValueError(f"excluded has shape {excluded.shape}, the scores {scores.shape}")
    order = np.arange(width) if order is None else np.asarray(order, dtype=np.int64)
    if order.shape != (width,):
        raise ValueError(f"order must hold the {width} columns, got shape {order.shape}")
    out = np.empty((rows, k), dtype=np.int64)
    _top_columns(scores, excluded, order, int(k), out)
    return out


class TrueQuality:
    """True P@n and nDCG@n of systems, read from dense blocks of their scores.

    :meth:`reader` gives the reader of one system's blocks, for
    :meth:`recbias.evaluate.Candidates.score` or :func:`score_blocks`, and :meth:`tables` the
    per-user values once every user was read.  The arguments are those of :func:`true_quality`;
    ``metrics`` adds one table per metric spec of :func:`recbias.metrics.parse_metric` with a cutoff
    (``"Recall@5"``, ``"AP@20"``), computed by :func:`recbias.metrics.compute_metrics` on each user's
    top list with ``R_u`` relevant items (a user without one scores 0 there, as everywhere in
    :mod:`recbias.metrics`).
    """

    def __init__(
        self,
        train: Ratings,
        truth: np.ndarray,
        *,
        n: int = 10,
        seed: int | None = 0,
        discounts: Mapping[str, np.ndarray] | None = None,
        users: np.ndarray | None = None,
        metrics: Sequence[str] = (),
    ) -> None:
        truth = np.asarray(truth, dtype=bool)
        if truth.shape != train.shape:
            raise ValueError(f"truth has shape {truth.shape}, the ratings {train.shape}")
        if int(n) != n or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        self.n = int(n)
        self.extra = {name: np.asarray(d, dtype=np.float64) for name, d in (discounts or {}).items()}
        self.metrics = [parse_metric(text) for text in metrics]
        uncut = [spec.label for spec in self.metrics if spec.cutoff is None]
        if uncut:
            raise ValueError(f"a true metric reads a top list and needs a cutoff: {', '.join(uncut)}")
        self.depth = max([self.n, *(len(d) for d in self.extra.values()), *(spec.cutoff for spec in self.metrics)])
        if self.depth > train.n_items:
            raise ValueError(f"lists of {self.depth} items are longer than the catalogue of {train.n_items}")
        self.truth = truth
        self.rated = train.matrix("binary").toarray().astype(bool)
        self.order = None if seed is None else np.random.default_rng(seed).permutation(train.n_items)
        self.discount = 1.0 / np.log2(np.arange(2, self.n + 2))
        relevant_outside = (truth & ~self.rated).sum(axis=1)
        self.ideal = np.concatenate([[0.0], np.cumsum(self.discount)])[np.minimum(relevant_outside, self.n)]
        self.relevant_outside = relevant_outside
        self.users = np.arange(train.n_users) if users is None else np.unique(np.asarray(users, dtype=np.int64))
        self.hits: dict[str, np.ndarray] = {}
        self.read: dict[str, np.ndarray] = {}

    def reader(self, label: str) -> BlockReader:
        """What reads the score blocks of system ``label``: the hits of each user's top items outside training."""
        hits = self.hits.setdefault(label, np.zeros((len(self.users), self.depth), dtype=bool))
        read = self.read.setdefault(label, np.zeros(len(self.users), dtype=bool))

        def read_block(users: np.ndarray, block: np.ndarray) -> None:
            rows = np.minimum(np.searchsorted(self.users, users), len(self.users) - 1)
            mine = self.users[rows] == users
            chunk, rows = users[mine], rows[mine]
            # an item rated in training is never recommended; ties go to the item met first in self.order
            top = top_columns(block if mine.all() else block[mine], self.depth, excluded=self.rated[chunk],
                              order=self.order)
            hits[rows] = self.truth[chunk[:, None], top] & ~self.rated[chunk[:, None], top]
            read[rows] = True

        return read_block

    def tables(self) -> dict[str, pd.DataFrame]:
        """``{"P@n": users x systems, "nDCG@n": ..., <discount name>: ...}`` of every system read."""
        unread = [label for label, read in self.read.items() if not read.all()]
        if unread:
            raise RuntimeError(f"some users' scores were never read for {', '.join(unread)}")
        index = pd.Index(self.users, name="user")
        ideal = self.ideal[self.users]
        with np.errstate(invalid="ignore", divide="ignore"):
            tables = {
                f"P@{self.n}": {label: hits[:, : self.n].mean(axis=1) for label, hits in self.hits.items()},
                f"nDCG@{self.n}": {label: np.where(ideal > 0, (hits[:, : self.n] @ self.discount) / ideal, np.nan)
                                   for label, hits in self.hits.items()},
            }
        for name, weights in self.extra.items():
            tables[name] = {label: hits[:, : len(weights)] @ weights for label, hits in self.hits.items()}
        if self.metrics:
            offsets = np.arange(len(self.users) + 1) * self.depth
            columns = {label: compute_metrics(Runs.from_arrays(
                offsets, users=self.users, items=np.tile(np.arange(self.depth), len(self.users)), labels=hits.ravel(),
                n_relevant=self.relevant_outside[self.users]), [spec.label for spec in self.metrics])
                for label, hits in self.hits.items()}
            for spec in self.metrics:
                tables.setdefault(spec.label, {label: values[spec.label] for label, values in columns.items()})
        return {name: pd.DataFrame(columns, index=index, columns=list(self.hits), dtype=np.float64)
                for name, columns in tables.items()}


def true_quality(
    systems: Mapping[str, Recommender],
    train: Ratings,
    truth: np.ndarray,
    *,
    n: int = 10,
    seed: int | None = 0,
    block: int = SCORE_BLOCK,
    discounts: Mapping[str, np.ndarray] | None = None,
    users: np.ndarray | None = None,
    metrics: Sequence[str] = (),
) -> dict[str, pd.DataFrame]:
    """Per-user true P@n and nDCG@n of each fitted system, ``{"P@n": users x systems, "nDCG@n": ...}``.

    ``truth`` is the ``n_users x n_items`` boolean relevance matrix.  Items with equal
    scores are ordered by one random permutation of the catalogue drawn from
    ``numpy.random.default_rng(seed)``, shared by every user and system, or by item code
    when ``seed`` is ``None``.  Users without a relevant item outside training get NaN nDCG.
    Users are scored in chunks of ``block // n_items``.  ``discounts`` adds one frame per
    named vector ``d`` of position weights: ``sum_{k <= len(d)} rel_k d_k`` over the top
    ``len(d)`` items (e.g. the position discount of :func:`recbias.metrics.position_discount`).
    ``users`` (codes) limits the tables to those users, default all; ``metrics`` adds metrics of
    :mod:`recbias.metrics` with a cutoff, read on the same top lists.  To read the scores that
    other measurements of the same fold compute anyway, use :class:`TrueQuality` as a reader of
    :meth:`recbias.evaluate.Candidates.score`.
    """
    quality = TrueQuality(train, truth, n=n, seed=seed, discounts=discounts, users=users, metrics=metrics)
    step = max(1, block // max(1, train.n_items))
    for label, recommender in systems.items():
        read = quality.reader(label)
        for start, scores in score_blocks(recommender, quality.users, step):
            read(quality.users[start : start + len(scores)], scores)
    return quality.tables()

"""How positive relevance judgments spread over documents or items.

The Cranfield chapter compares IR test collections with recommendation
datasets through one lens: for each document (item), how many queries (users)
judged it relevant (liked it)?  A :class:`Spread` holds exactly that, built
from relevance judgments (:func:`from_qrels`), from ratings
(:func:`from_ratings`) or from the complete true relevance of a simulated
world (:func:`from_truth`), and the functions below summarise it:

* :func:`cumulative_share` -- share of all positive judgments collected by the
  ``k`` most often judged-relevant documents (IRJ Fig. 5 right);
* :func:`summary` -- share of documents relevant to a single query, the
  largest number of positive judgments on one document and its *reach* (that
  number over the number of queries), the Gini coefficient of the counts, and
  the precision of the best fixed (query-independent) list;
* :func:`positive_ratio_by_popularity` -- the share of positive ratings of items
  along the popularity ranking (IRJ Fig. 7);
* :func:`threshold_sweep` -- the same statistics as the positive threshold on
  ratings moves, with :func:`rating_thresholds` to choose the thresholds.

The judgment files of the IR collections are not redistributed.  Their spreads
(how many documents have each number of positive judgments) ship with the
package instead, derived from the pinned files by :func:`write_shipped_spreads`,
so that :func:`ir_spread` knows them on a machine without the files.

Only documents with at least one positive judgment enter the counts, as in
the TREC aggregate of Bellogín et al. (IRJ 2017, Sec. 5.2); queries (users)
are all those of the collection, whether or not they have a positive
judgment.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.ratings import Ratings

#: documents per number of positive judgments of each IR collection, with the pin of the file it comes from
SHIPPED_SPREADS = Path(__file__).resolve().parent / "derived" / "ir_spreads.csv"

#: the kinds of collection, as used for colours in :data:`recbias.bookkit.plotting.KIND_COLOURS`
KINDS = ("IR", "recommendation", "simulation")


@dataclass(frozen=True)
class Spread:
    """Positive judgments per document of one collection.

    Attributes:
        name: label of the collection (``"trec8-adhoc"``, ``"ml-100k"``, ...).
        kind: ``"IR"``, ``"recommendation"`` or ``"simulation"``.
        n_queries: queries (IR) or users (recommendation) of the collection.
        n_judgments: all judgments, positive or not (ratings for recommendation).
        counts: positive judgments per document, one entry per document with at
            least one, in decreasing order.
    """

    name: str
    kind: str
    n_queries: int
    n_judgments: int
    counts: np.ndarray

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Spread {self.name!r}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        counts = np.asarray(self.counts, dtype=np.int64)
        if counts.ndim != 1 or (counts <= 0).any():
            raise ValueError(f"Spread {self.name!r}: counts must be a 1-d array of positive integers")
        if self.n_queries <= 0:
            raise ValueError(f"Spread {self.name!r}: n_queries must be positive, got {self.n_queries}")
        if len(counts) and counts.max() > self.n_queries:
            raise ValueError(
                f"Spread {self.name!r}: a document has {counts.max()} positive judgments "
                f"but there are only {self.n_queries} queries"
            )
        counts = np.sort(counts)[::-1].copy()
        counts.flags.writeable = False
        object.__setattr__(self, "counts", counts)

    @property
    def n_documents(self) -> int:
        """Documents (items) with at least one positive judgment."""
        return len(self.counts)

    @property
    def n_positive(self) -> int:
        """Positive judgments in all."""
        return int(self.counts.sum())


def from_qrels(qrels: pd.DataFrame, name: str) -> Spread:
    """The spread of the judgments ``query, doc, relevant`` of an IR collection.

    Every query that appears in ``qrels`` counts, judged relevant or not; a
    (query, doc) pair judged twice counts once.
    """
    missing = {"query", "doc", "relevant"} - set(qrels.columns)
    if missing:
        raise ValueError(f"qrels {name!r} lack the column(s) {', '.join(sorted(missing))}")
    positive = qrels.loc[qrels["relevant"].astype(bool), ["query", "doc"]].drop_duplicates()
    counts = positive.groupby("doc").size().to_numpy()
    return Spread(
        name=name,
        kind="IR",
        n_queries=int(qrels["query"].nunique()),
        n_judgments=int(len(qrels[["query", "doc"]].drop_duplicates())),
        counts=counts,
    )


def ir_spread(name: str) -> Spread:
    """The spread of IR collection ``name``: from its judgment file when there is a local copy (a copy that
    fails its checksum is an error), otherwise from the package's :data:`SHIPPED_SPREADS`, derived from the
    same pinned file."""
    try:
        return from_qrels(datasets.load_qrels(name), name)
    except datasets.OfflineError:
        return shipped_spread(name)


def shipped_spread(name: str) -> Spread:
    """The spread of IR collection ``name`` as shipped in :data:`SHIPPED_SPREADS`."""
    table = pd.read_csv(SHIPPED_SPREADS)
    rows = table[table["collection"] == name]
    if rows.empty:
        known = ", ".join(table["collection"].unique())
        raise ValueError(f"no shipped spread for IR collection {name!r}; shipped: {known}")
    counts = np.repeat(rows["positives"].to_numpy(), rows["documents"].to_numpy())
    return Spread(name, "IR", int(rows["queries"].iloc[0]), int(rows["judgments"].iloc[0]), counts)


def spread_rows(spread: Spread, source_sha256: str) -> pd.DataFrame:
    """``spread`` as rows of :data:`SHIPPED_SPREADS`: one per number of positive judgments a document has."""
    positives, documents = np.unique(spread.counts, return_counts=True)
    return pd.DataFrame({"collection": spread.name, "queries": spread.n_queries, "judgments": spread.n_judgments,
                         "positives": positives, "documents": documents, "source_sha256": source_sha256})


def write_shipped_spreads(path: Path = SHIPPED_SPREADS) -> None:
    """Derive :data:`SHIPPED_SPREADS` from the local judgment files of every IR collection.

    The file is written whole or not at all (a temporary file renamed into place).
    """
    missing = [name for name in datasets.qrels_names() if not datasets.available(name)]
    if missing:
        raise FileNotFoundError(f"write_shipped_spreads needs the judgment files of {', '.join(missing)} "
                                "(see data/README.md for where they go)")
    rows = []
    for name in datasets.qrels_names():
        (pin,) = datasets.info(name).files.pins.values()
        rows.append(spread_rows(from_qrels(datasets.load_qrels(name), name), pin))
    handle, temporary = tempfile.mkstemp(suffix=".csv", dir=path.parent)
    os.close(handle)
    try:
        pd.concat(rows, ignore_index=True).to_csv(temporary, index=False)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def from_ratings(ratings: Ratings, threshold: float | None = None, name: str | None = None) -> Spread:
    """The spread of positive ratings (``value >= threshold``) over items.

    ``threshold`` defaults to the dataset's own positive threshold.  Every user
    of the code space counts as a query; a user who rated an item twice counts once.
    """
    judged = ratings if threshold is None else ratings.with_threshold(threshold)
    liked = judged.matrix("positive").tocsc()
    liked.eliminate_zeros()
    counts = np.diff(liked.indptr)
    kind = "simulation" if ratings.true_relevance is not None else "recommendation"
    return Spread(
        name=ratings.name if name is None else name,
        kind=kind,
        n_queries=ratings.n_users,
        n_judgments=int(judged.matrix("binary").nnz),
        counts=counts[counts > 0],
    )


def from_truth(ratings: Ratings, name: str | None = None) -> Spread:
    """The spread of the complete true relevance of a simulated world.

    Every user-item pair is judged, so ``n_judgments`` is ``n_users * n_items``.
    """
    if ratings.true_relevance is None:
        raise ValueError(f"dataset {ratings.name!r} has no true relevance; only simulated worlds do")
    counts = ratings.true_relevance.sum(axis=0)
    return Spread(
        name=f"{ratings.name} (true relevance)" if name is None else name,
        kind="simulation",
        n_queries=ratings.n_users,
        n_judgments=ratings.n_users * ratings.n_items,
        counts=counts[counts > 0],
    )


def gini(counts: np.ndarray) -> float:
    """Gini coefficient of non-negative counts: 0 when all equal, towards 1 when one holds all.

    With the counts sorted in increasing order ``x_1 <= ... <= x_m`` and ``S`` their sum,
    ``G = 2 sum_k k x_k / (m S) - (m + 1) / m``.  ``nan`` for an empty or all-zero array.
    """
    x = np.sort(np.asarray(counts, dtype=np.float64))
    if (x < 0).any():
        raise ValueError("gini: counts must be non-negative")
    m, total = len(x), x.sum()
    if m == 0 or total == 0:
        return float("nan")
    k = np.arange(1, m + 1)
    return float(2.0 * (k * x).sum() / (m * total) - (m + 1) / m)


def cumulative_share(spread: Spread) -> pd.DataFrame:
    """One row per judged-relevant document, most judged first.

    Columns: ``collection``, ``kind``, ``rank`` (1 = most judged), ``rank_share``
    (rank over the number of such documents), ``positives`` (judgments on this
    document), ``reach`` (positives over the number of queries) and
    ``cumulative_share`` (share of all positive judgments on the first ``rank`` documents).
    """
    counts = spread.counts
    rank = np.arange(1, len(counts) + 1)
    total = max(spread.n_positive, 1)
    return pd.DataFrame(
        {
            "collection": spread.name,
            "kind": spread.kind,
            "rank": rank,
            "rank_share": rank / max(len(counts), 1),
            "positives": counts,
            "reach": counts / spread.n_queries,
            "cumulative_share": np.cumsum(counts) / total,
        }
    )


def fixed_list_precision(spread: Spread, n: int = 10) -> float:
    """P@n of the best single list shown to every query, with every judgment as ground truth.

    The best query-independent list holds the ``n`` most judged documents, so its
    precision averaged over queries is ``sum of their counts / (n * n_queries)``.
    """
    if n < 1:
        raise ValueError(f"fixed_list_precision: n must be at least 1, got {n}")
    return float(spread.counts[:n].sum() / (n * spread.n_queries))


def summary(spread: Spread, n: int = 10) -> dict[str, float | int | str]:
    """The statistics of one collection, as a flat record (see the module docstring)."""
    counts = spread.counts
    empty = len(counts) == 0
    return {
        "collection": spread.name,
        "kind": spread.kind,
        "queries": spread.n_queries,
        "judgments": spread.n_judgments,
        "relevant documents": spread.n_documents,
        "positive judgments": spread.n_positive,
        "positives per query": spread.n_positive / spread.n_queries,
        "share relevant to one query": float("nan") if empty else float((counts == 1).mean()),
        "max positives per document": 0 if empty else int(counts[0]),
        "top reach": 0.0 if empty else float(counts[0] / spread.n_queries),
        "gini": gini(counts),
        f"fixed-list P@{n}": fixed_list_precision(spread, n),
    }


def summary_table(spreads: list[Spread], n: int = 10) -> pd.DataFrame:
    """:func:`summary` of several collections, one row each."""
    return pd.DataFrame([summary(s, n) for s in spreads])


def rating_thresholds(ratings: Ratings, max_levels: int = 20) -> np.ndarray:
    """Positive thresholds worth sweeping for ``ratings``.

    Star scales (at most ``max_levels`` distinct values) use every distinct rating
    value; counts such as plays use a 1-2-5 grid from the smallest value up to the
    99th percentile of the values.  The dataset's own threshold is always included.
    """
    values = np.unique(ratings.values)
    if len(values) <= max_levels:
        grid = values
    else:
        top = float(np.quantile(ratings.values, 0.99))
        decades = 10.0 ** np.arange(np.floor(np.log10(max(values[0], 1e-12))), np.ceil(np.log10(top)) + 1)
        grid = np.array([d * m for d in decades for m in (1, 2, 5)])
        grid = grid[(grid >= values[0]) & (grid <= top)]
    return np.unique(np.append(grid, ratings.positive_threshold))


def threshold_sweep(ratings: Ratings, thresholds: np.ndarray | list[float] | None = None, n: int = 10) -> pd.DataFrame:
    """:func:`summary` of ``ratings`` for each positive threshold, plus the share of ratings counted positive.

    Columns are those of :func:`summary` plus ``threshold``, ``positive share of
    ratings`` and ``default`` (whether it is the dataset's own threshold).
    """
    grid = rating_thresholds(ratings) if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    rows = []
    for threshold in grid:
        row = summary(from_ratings(ratings, threshold=float(threshold)), n)
        row["threshold"] = float(threshold)
        row["positive share of ratings"] = float((ratings.values >= threshold).mean()) if len(ratings) else float("nan")
        row["default"] = bool(np.isclose(threshold, ratings.positive_threshold))
        rows.append(row)
    return pd.DataFrame(rows)


def truth_coverage(ratings: Ratings) -> float:
    """Share of the truly relevant user-item pairs of a simulated world that appear as positive ratings."""
    if ratings.true_relevance is None:
        raise ValueError(f"dataset {ratings.name!r} has no true relevance; only simulated worlds do")
    truly = int(ratings.true_relevance.sum())
    if truly == 0:
        return float("nan")
    liked = ratings.matrix("positive").tocoo()
    observed = int(ratings.true_relevance[liked.row[liked.data > 0], liked.col[liked.data > 0]].sum())
    return observed / truly


def positive_ratio_by_popularity(ratings: Ratings, segments: int = 100) -> pd.DataFrame:
    """Share of positive ratings ``|PR(i)| / |R(i)|`` against popularity rank (IRJ 2017 Fig. 7).

    Items with at least one rating are sorted by decreasing ``|R(i)|`` (ties by code) and
    cut into ``segments`` consecutive groups of near-equal size (at most one per item);
    the ratio is averaged over the items of each group.  Columns: ``segment`` (1 = most
    popular), ``rank`` (mean popularity rank of the group, 1 = most rated), ``rank_share``
    (middle of the group as a share of the rated items), ``ratings`` (mean ``|R(i)|``)
    and ``positive_ratio``.
    """
    if int(segments) != segments or segments < 1:
        raise ValueError(f"segments must be a positive integer, got {segments!r}")
    counts = ratings.item_counts()
    rated = np.flatnonzero(counts)
    if len(rated) == 0:
        raise ValueError(f"dataset {ratings.name!r} has no ratings")
    order = rated[np.lexsort((rated, -counts[rated]))]
    ratio = ratings.item_counts(positive_only=True)[order] / counts[order]
    groups = min(int(segments), len(order))
    segment = np.arange(len(order)) * groups // len(order)
    size = np.bincount(segment, minlength=groups)
    middle = (np.cumsum(size) - size / 2) / len(order)
    return pd.DataFrame(
        {
            "segment": np.arange(1, groups + 1),
            "rank": np.bincount(segment, weights=np.arange(1, len(order) + 1), minlength=groups) / size,
            "rank_share": middle,
            "ratings": np.bincount(segment, weights=counts[order], minlength=groups) / size,
            "positive_ratio": np.bincount(segment, weights=ratio, minlength=groups) / size,
        }
    )

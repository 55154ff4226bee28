"""A corrected sampled metric of a fitted system on a split (Krichene & Rendle, KDD 2020, Sec. 5).

:func:`corrected_sampled_metric` draws the 1R design with ``m`` sampled non-relevant
items per relevant test rating (``1R AI-NN(m)`` by default), ranks each run with each
system, and maps each run's sampled rank through the correction of its own catalogue
size ``n`` (:func:`one_relevant_pool_sizes`); one value per run, with its user, to be
averaged per user like any other metric (``recbias.evaluate.summarize``).  :func:`corrected_sample`
draws the runs alone, for a caller that scores them with the other runs of the split.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import Candidates, rank_positions, relevant_ranks
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Runs
from recbias.sampled.corrections import catalogue_bins, correction_tables
from recbias.sampled.rank_metrics import rank_metric

__all__ = ["CorrectedSample", "corrected_sample", "corrected_sampled_metric", "one_relevant_pool_sizes"]


def one_relevant_pool_sizes(train: Ratings, test: Ratings, runs: Runs, candidates: np.ndarray,
                            threshold: float) -> np.ndarray:
    """``n`` of every 1R run: its user's candidates not rated in training and not relevant in test, plus one
    (IRJ 2017 Table 3: ``N_u = C \\ PR_test(u) \\ R_train(u)``).

    User 0 rated item 0 in training and likes item 1 in test: her pool is items 2 and 3, plus item 1.

    >>> train = Ratings.from_codes([0, 1, 1], [0, 0, 1], [5.0, 5.0, 5.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0], [1], [5.0], (2, 4), positive_threshold=4)
    >>> runs = build_runs(train, test, "1R AI-NN(2)", seed=0)
    >>> one_relevant_pool_sizes(train, test, runs, np.ones(4, dtype=bool), threshold=4).tolist()
    [3]
    """
    n_users = train.n_users
    seen = np.bincount(train.users[candidates[train.items]], minlength=n_users)
    relevant = np.bincount(test.users[test.values >= threshold], minlength=n_users)
    return int(candidates.sum()) - seen[runs.users] - relevant[runs.users] + 1


@dataclass
class CorrectedSample:
    """One draw of the ``1R {candidates}-NN(m)`` design with the correction of every run's sampled rank.

    Attributes:
        runs: the sampled runs (one relevant test item and ``m`` sampled non-relevant items each).
        sizes: each run's catalogue size ``n`` (:func:`one_relevant_pool_sizes`).
        bins: each run's row of ``table`` (catalogue sizes grouped within a tolerance).
        table: per bin, the corrected metric of every sampled rank ``1..m+1``.
        seed: seed of the random tie-break.

    >>> train = Ratings.from_codes([0, 1, 1], [0, 0, 1], [5.0, 5.0, 5.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0], [1], [5.0], (2, 4), positive_threshold=4)
    >>> sample = corrected_sample(train, test, metric="HR@1", method="sampled", m=2)
    >>> sample.runs.items.tolist(), sample.table.tolist()
    ([1, 2, 3], [[1.0, 0.0, 0.0]])
    >>> values = sample.values("by hand", np.array([0.0, 1.0, 2.0]))  # the relevant item 1 scored lowest
    >>> values["sampled rank"].tolist(), values["value"].tolist()
    ([3], [0.0])
    """

    runs: Runs
    sizes: np.ndarray
    bins: np.ndarray
    table: np.ndarray
    seed: int

    def values(self, label: str, scores: np.ndarray) -> pd.DataFrame:
        """Per-run values of a system whose ``scores`` of the runs' candidates are given (aligned with
        ``runs.items``): ``system``, ``user``, ``item``, ``n``, ``sampled rank`` and ``value``."""
        ranks = relevant_ranks(rank_positions(self.runs, scores, ties="random", seed=self.seed))
        return pd.DataFrame({"system": label, "user": self.runs.users, "item": self.runs.items[self.runs.labels],
                             "n": self.sizes, "sampled rank": ranks, "value": self.table[self.bins, ranks - 1]})


def corrected_sample(
    train: Ratings, test: Ratings, *, metric: str = "HR@10", method: str = "BV 0.1", m: int = 100,
    candidates: str = "AI", threshold: float | None = None, n_tolerance: float = 0.05, seed: int = 0,
) -> CorrectedSample:
    """Draw the sampled runs of :func:`corrected_sampled_metric` and the correction of their ranks, to be
    scored with the other runs of the same split (the arguments are those of :func:`corrected_sampled_metric`).

    With ``m = n - 1 = 2`` every non-relevant item of the pool is drawn:

    >>> train = Ratings.from_codes([0, 1, 1], [0, 0, 1], [5.0, 5.0, 5.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0], [1], [5.0], (2, 4), positive_threshold=4)
    >>> sample = corrected_sample(train, test, metric="HR@1", method="sampled", m=2)
    >>> sample.sizes.tolist(), sorted(sample.runs.items.tolist())
    ([3], [1, 2, 3])
    """
    if candidates not in ("AI", "TI"):
        raise ValueError(f"candidates must be 'AI' or 'TI', got {candidates!r}")
    threshold = test.positive_threshold if threshold is None else float(threshold)
    runs = build_runs(train, test, f"1R {candidates}-NN({m})", seed=seed, threshold=threshold, on_shortage="exclude")
    pool = np.ones(train.n_items, dtype=bool) if candidates == "AI" else test.item_counts() > 0
    sizes = one_relevant_pool_sizes(train, test, runs, pool, threshold)
    view = rank_metric(metric)
    table = np.zeros((1, m + 1))
    bins = np.zeros(runs.n_runs, dtype=np.int64)
    if runs.n_runs:
        bins, bin_sizes = catalogue_bins(sizes, n_tolerance)
        table = correction_tables([method], [view], bin_sizes, m, False)[(method, view.name)]
    return CorrectedSample(runs, sizes, bins, table, seed)


def corrected_sampled_metric(
    systems: Mapping[str, Recommender], train: Ratings, test: Ratings, *, metric: str = "HR@10",
    method: str = "BV 0.1", m: int = 100, candidates: str = "AI", threshold: float | None = None,
    n_tolerance: float = 0.05, seed: int = 0,
) -> pd.DataFrame:
    """Per-run values of a corrected sampled metric of fitted systems on a split.

    One draw of the ``1R {candidates}-NN(m)`` design (``m`` non-relevant items sampled without
    replacement per relevant test rating, runs with a smaller pool left out), shared by the
    systems and ranked by each (random ties); each run's sampled rank ``r~`` is mapped to
    ``table[r~ - 1]``, the correction ``method`` (:func:`recbias.sampled.parse_method`:
    ``"sampled"``, ``"rank estimate"``, ``"CLS"``, ``"BV <gamma>"``) of ``metric`` for the run's
    own catalogue size ``n`` (grouped within ``n_tolerance``).  Its mean estimates the metric of
    the ``1R {candidates}-AN`` design, in which every relevant item is ranked against its whole pool.

    Returns a tidy frame, one row per (system, run): ``system``, ``user``, ``item``, ``n``,
    ``sampled rank`` and ``value``.

    Item 1, which user 0 likes in test, is rated once in training, items 2 and 3 never: popularity
    puts it first.

    >>> from recbias.recommenders import make
    >>> train = Ratings.from_codes([0, 1, 1], [0, 0, 1], [5.0, 5.0, 5.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0], [1], [5.0], (2, 4), positive_threshold=4)
    >>> systems = {"popularity": make("popularity").fit(train)}
    >>> print(corrected_sampled_metric(systems, train, test, metric="HR@1", method="sampled", m=2).to_string())
           system  user  item  n  sampled rank  value
    0  popularity     0     1  3             1    1.0
    """
    sample = corrected_sample(train, test, metric=metric, method=method, m=m, candidates=candidates,
                              threshold=threshold, n_tolerance=n_tolerance, seed=seed)
    scored = Candidates([sample.runs])
    frames = [sample.values(label, scored.score(recommender)[0]) for label, recommender in systems.items()]
    return pd.concat(frames, ignore_index=True)

"""Helpers shared by the metric and evaluation tests: random runs, per-run brute-force
metric definitions and a stand-in factor-model scorer.

The brute-force functions loop over one run's ranked lists in plain Python and
follow the textbook definitions (with the conventions documented in
``recbias.metrics``); the package's vectorised versions must agree with them.
"""

from __future__ import annotations

import math

import numpy as np

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.runs import Runs


def random_runs(
    rng: np.random.Generator,
    n_runs: int,
    max_size: int = 30,
    min_size: int = 0,
    relevant_share: float = 0.3,
    judged_share: float = 0.4,
    extra_relevant: int = 2,
    max_grade: int = 5,
    n_items: int = 1000,
) -> Runs:
    """Runs with random sizes, distinct items per run, graded relevance and partial judgments.

    Relevant candidates are always judged; ``n_relevant`` adds up to
    ``extra_relevant`` relevant test items outside the run.
    """
    sizes = rng.integers(min_size, max_size + 1, size=n_runs)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    total = int(offsets[-1])
    items = np.concatenate([rng.choice(n_items, size=s, replace=False) for s in sizes]) if total else np.zeros(0, int)
    labels = rng.random(total) < relevant_share
    grades = np.where(labels, rng.integers(1, max_grade + 1, size=total), 0)
    judged = labels | (rng.random(total) < judged_share)
    run_of_entry = np.repeat(np.arange(n_runs), sizes)
    in_run = np.bincount(run_of_entry, weights=labels, minlength=n_runs).astype(int)
    n_relevant = in_run + rng.integers(0, extra_relevant + 1, size=n_runs)
    return Runs.from_arrays(offsets, np.arange(n_runs), items, labels, grades, judged, n_relevant)


def split_runs(runs: Runs) -> list[dict[str, np.ndarray | int]]:
    """One dict per run with its ranked labels, grades, judged flags, items and n_relevant."""
    out = []
    for k in range(runs.n_runs):
        s = slice(runs.offsets[k], runs.offsets[k + 1])
        out.append(
            {
                "labels": runs.labels[s].tolist(),
                "grades": runs.grades[s].tolist(),
                "judged": runs.judged[s].tolist(),
                "items": runs.items[s].tolist(),
                "R": int(runs.n_relevant[k]),
            }
        )
    return out


def div(a: float, b: float) -> float:
    return a / b if b else 0.0


def bf_precision(run: dict, n: int) -> float:
    return sum(run["labels"][:n]) / n


def bf_recall(run: dict, n: int) -> float:
    return div(sum(run["labels"][:n]), run["R"])


def bf_f1(run: dict, n: int) -> float:
    p, r = bf_precision(run, n), bf_recall(run, n)
    return div(2 * p * r, p + r)


def bf_hit_rate(run: dict, n: int) -> float:
    return float(any(run["labels"][:n]))


def bf_r_precision(run: dict) -> float:
    return div(sum(run["labels"][: run["R"]]), run["R"])


def bf_reciprocal_rank(run: dict, n: int | None = None) -> float:
    for rank, label in enumerate(run["labels"], start=1):
        if label:
            return 1 / rank if n is None or rank <= n else 0.0
    return 0.0


def bf_average_precision(run: dict, n: int | None = None, normalise: str = "relevant") -> float:
    hits, total = 0, 0.0
    for rank, label in enumerate(run["labels"], start=1):
        if n is not None and rank > n:
            break
        if label:
            hits += 1
            total += hits / rank
    denominator = {
        "relevant": run["R"],
        "cutoff": run["R"] if n is None else min(run["R"], n),
        "candidates": sum(run["labels"]),
    }[normalise]
    return div(total, denominator)


def bf_ndcg(run: dict, n: int | None = None, gain: str = "linear") -> float:
    g = [x if gain == "linear" else 2.0**x - 1 for x in run["grades"]]
    depth = len(g) if n is None else min(n, len(g))
    dcg = sum(g[k] / math.log2(k + 2) for k in range(depth))
    ideal = sorted(g, reverse=True)
    idcg = sum(ideal[k] / math.log2(k + 2) for k in range(depth))
    return div(dcg, idcg)


def bf_auc(run: dict) -> float:
    labels = run["labels"]
    good = pairs = 0
    for i, li in enumerate(labels):
        for j, lj in enumerate(labels):
            if li and not lj:
                pairs += 1
                good += i < j
    return div(good, pairs)


def bf_bpref(run: dict, cap: str = "R") -> float:
    """trec_eval's bpref: (1/R) sum over relevant of 1 - min(nonrel above, R) / min(N, R); with ``cap="none"``
    IRJ's printed formula, without the min on the count above."""
    r = run["R"]
    n_judged_nonrelevant = sum(j and not l for j, l in zip(run["judged"], run["labels"], strict=True))
    total, above = 0.0, 0
    for label, judged in zip(run["labels"], run["judged"], strict=True):
        if label:
            counted = min(above, r) if cap == "R" else above
            total += 1.0 if above == 0 else 1.0 - counted / min(n_judged_nonrelevant, r)
        elif judged:
            above += 1
    return div(total, r)


def bf_infap(run: dict, epsilon: float = 0.0) -> float:
    total, relevant_above, nonrelevant_above = 0.0, 0, 0
    for rank, (label, judged) in enumerate(zip(run["labels"], run["judged"], strict=True), start=1):
        if label:
            if rank == 1:
                total += 1.0
            else:
                judged_above = relevant_above + nonrelevant_above
                if judged_above == 0 and epsilon == 0:
                    ratio = 0.5
                else:
                    ratio = (relevant_above + epsilon) / (judged_above + 2 * epsilon)
                total += 1 / rank + (rank - 1) / rank * ratio
            relevant_above += 1
        elif judged:
            nonrelevant_above += 1
    return div(total, run["R"])


def bf_stratified_recall(run: dict, n: int, weight: dict[int, float], user_total: float) -> float:
    top = sum(weight[i] for i, label in zip(run["items"][:n], run["labels"][:n], strict=True) if label)
    return div(top, user_total)


class FactorModel(Recommender):
    """A stand-in scorer: fixed user and item factors, score = U[u] . V[i]."""

    name = "factors"

    def __init__(self, user_factors: np.ndarray, item_factors: np.ndarray) -> None:
        super().__init__()
        self.user_factors, self.item_factors = user_factors, item_factors

    def _fit(self, train: Ratings) -> None:
        if train.shape != (len(self.user_factors), len(self.item_factors)):
            raise ValueError("factor shapes do not match the training code space")

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return self.user_factors[users] @ self.item_factors.T


def make_ratings(
    users: np.ndarray, items: np.ndarray, shape: tuple[int, int], values: np.ndarray | None = None
) -> Ratings:
    """Ratings over a ``shape`` code space (values default to 5 stars)."""
    values = np.full(len(users), 5.0) if values is None else values
    return Ratings.from_codes(users, items, values, shape, positive_threshold=4.0, name="toy")

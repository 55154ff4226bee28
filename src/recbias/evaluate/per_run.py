"""Scores of one system -> ranked runs -> one row of metric values per run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from recbias.evaluate.ranking import TieKeys, TiePolicy, rank_positions
from recbias.metrics import ItemPopularity, compute_metrics, parse_metric
from recbias.runs import Runs

#: metrics evaluated when none are named
DEFAULT_METRICS: tuple[str, ...] = ("P@10", "Recall@10", "nDCG@10", "MAP", "MRR")


def evaluate_runs(
    runs: Runs,
    scores: np.ndarray,
    metrics: Sequence[str] = DEFAULT_METRICS,
    ties: TiePolicy = "random",
    seed: int = 0,
    item_popularity: ItemPopularity | None = None,
    first_run: int = 0,
    first_entry: int = 0,
    seconds: dict[str, float] | None = None,
    tie_keys: TieKeys | None = None,
) -> pd.DataFrame:
    """Per-run table of one system: columns ``run``, ``user``, ``group`` and one per metric.

    ``scores`` is aligned with ``runs.items``; the candidates are ranked with
    :func:`~recbias.evaluate.rank_positions` (tie policy ``ties``, ``seed``) and every
    metric spec (see :func:`recbias.metrics.parse_metric`) is computed per run.
    ``item_popularity`` is needed by ``PSR`` and ``novelty``.  Unless a metric reads the
    judged non-relevant candidates (bpref, infAP), their positions are not counted: on runs
    of every unrated item with many test ratings below the threshold, that is most of the work.
    ``runs`` may be a block of a larger runs object, starting at its run ``first_run`` and
    entry ``first_entry``: the ``run`` column and the random tie-break are then those of the
    larger object (:func:`~recbias.evaluate.rank_positions`).  ``seconds``, when given,
    accumulates the time of the ``rank`` and ``metrics`` stages.  ``tie_keys``, the tie-break keys of
    ``runs`` kept for every system evaluated on them (:class:`~recbias.evaluate.ranking.TieKeys`), are
    drawn once for all of them.
    """
    seconds = {} if seconds is None else seconds
    if not any(parse_metric(metric).reads_judged for metric in metrics):
        runs = replace(runs, judged=runs.labels)  # the same positions for what the metrics read
    clock = time.perf_counter()
    ranked = rank_positions(runs, scores, ties=ties, seed=seed, first_entry=first_entry, tie_keys=tie_keys)
    seconds["rank"] = seconds.get("rank", 0.0) + time.perf_counter() - clock
    clock = time.perf_counter()
    values = compute_metrics(ranked, metrics, item_popularity)
    seconds["metrics"] = seconds.get("metrics", 0.0) + time.perf_counter() - clock
    table = pd.DataFrame({"run": first_run + np.arange(runs.n_runs), "user": runs.users, "group": runs.groups})
    for label, column in values.items():
        table[label] = column
    table.attrs["design"] = runs.design
    return table

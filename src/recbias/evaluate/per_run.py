"""Scores of one system -> ranked runs -> one row of metric values per run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from recbias.evaluate.ranking import TiePolicy, rank_positions
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
) -> pd.DataFrame:
    """Per-run table of one system: columns ``run``, ``user``, ``group`` and one per metric.

    ``scores`` is aligned with ``runs.items``; the candidates are ranked with
    :func:`~recbias.evaluate.rank_positions` (tie policy ``ties``, ``seed``) and every
    metric spec (see :func:`recbias.metrics.parse_metric`) is computed per run.
    ``item_popularity`` is needed by ``PSR`` and ``novelty``.  Unless a metric reads the
    judged non-relevant candidates (bpref, infAP), their positions are not counted: on runs
    of every unrated item with many test ratings below the threshold, that is most of the work.
    """
    if not any(parse_metric(metric).reads_judged for metric in metrics):
        runs = replace(runs, judged=runs.labels)  # the same positions for what the metrics read
    ranked = rank_positions(runs, scores, ties=ties, seed=seed)
    values = compute_metrics(ranked, metrics, item_popularity)
    table = pd.DataFrame({"run": np.arange(runs.n_runs), "user": runs.users, "group": runs.groups})
    for label, column in values.items():
        table[label] = column
    table.attrs["design"] = runs.design
    return table

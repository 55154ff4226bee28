"""Per-run tables of several systems -> means, confidence intervals and paired tests.

How runs are averaged is explicit (``average``):

* ``"run"`` (default): the plain mean over runs.  In AR designs there is one
  run per user, so this is the per-user average of IRJ Section 3.2; in 1R
  designs there is one run per positive test rating, so this is exactly IRJ
  Eq. (1), ``(1/|PR_test|) sum_u sum_r M_u(T_u^r)``: users with many test
  ratings weigh more.
* ``"user"``: average the runs of each user first, then over users (every user
  weighs the same; identical to ``"run"`` when each user has one run).

The confidence interval is Student's t interval of the mean of the averaged
units; paired tests pair the units (runs or users) of two systems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

Average = Literal["run", "user"]
_ID_COLUMNS = ("run", "user", "group")


def metric_columns(table: pd.DataFrame) -> list[str]:
    """The metric columns of a per-run table (everything but ``run``, ``user``, ``group``)."""
    return [column for column in table.columns if column not in _ID_COLUMNS]


def averaging_units(table: pd.DataFrame, metrics: Sequence[str], average: Average = "run") -> pd.DataFrame:
    """Values of ``metrics`` per averaging unit, indexed by ``run`` or by ``user``."""
    missing = [metric for metric in metrics if metric not in table.columns]
    if missing:
        raise ValueError(f"metrics {missing} not in the per-run table (columns: {list(table.columns)})")
    if average == "run":
        return table.set_index("run")[list(metrics)]
    if average == "user":
        return table.groupby("user", sort=True)[list(metrics)].mean()
    raise ValueError(f"average must be 'run' or 'user', got {average!r}")


def mean_confidence_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student's t interval mean +- t_{(1+c)/2, n-1} s / sqrt(n); NaN bounds when n < 2."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return np.nan, np.nan, np.nan
    mean = float(values.mean())
    if n < 2:
        return mean, np.nan, np.nan
    half = stats.t.ppf((1 + confidence) / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half


def summarize(
    per_run: Mapping[str, pd.DataFrame],
    metrics: Sequence[str] | None = None,
    average: Average = "run",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per (system, metric): ``mean``, ``ci_low``, ``ci_high`` and ``n`` averaged units.

    ``per_run`` maps system names to tables from :func:`~recbias.evaluate.evaluate_runs`;
    ``metrics`` defaults to every metric column of the first table.
    """
    if not per_run:
        raise ValueError("summarize needs at least one system")
    metrics = list(metrics) if metrics is not None else metric_columns(next(iter(per_run.values())))
    rows = []
    for system, table in per_run.items():
        units = averaging_units(table, metrics, average)
        for metric in metrics:
            mean, low, high = mean_confidence_interval(units[metric].to_numpy(), confidence)
            rows.append(
                {"system": system, "metric": metric, "mean": mean, "ci_low": low, "ci_high": high, "n": len(units)}
            )
    return pd.DataFrame(rows)


def paired_tests(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Paired t-test and Wilcoxon signed-rank test of ``a - b`` (scipy.stats.ttest_rel, wilcoxon).

    When every difference is zero the systems are indistinguishable on these
    units: both statistics are 0 and both p-values 1 (scipy would return NaN or warn).
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2:
        raise ValueError("paired tests need at least two paired units")
    if np.all(a == b):
        return {"t_statistic": 0.0, "t_pvalue": 1.0, "wilcoxon_statistic": 0.0, "wilcoxon_pvalue": 1.0}
    t = stats.ttest_rel(a, b)
    w = stats.wilcoxon(a, b)
    return {
        "t_statistic": float(t.statistic),
        "t_pvalue": float(t.pvalue),
        "wilcoxon_statistic": float(w.statistic),
        "wilcoxon_pvalue": float(w.pvalue),
    }


def compare(
    per_run: Mapping[str, pd.DataFrame],
    metrics: Sequence[str] | None = None,
    baseline: str | None = None,
    average: Average = "run",
) -> pd.DataFrame:
    """Paired comparisons of systems, one row per (system_a, system_b, metric).

    Pairs every two systems, or each system with ``baseline``.  Columns: the two
    means, ``difference`` (a - b), ``n`` paired units, and the paired t-test and
    Wilcoxon signed-rank statistics and p-values (see :func:`paired_tests`).
    Units are paired by run id (``average="run"``; the users of paired runs must
    agree) or by user (``average="user"``).
    """
    if len(per_run) < 2:
        raise ValueError("compare needs at least two systems")
    if baseline is not None and baseline not in per_run:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {list(per_run)}")
    metrics = list(metrics) if metrics is not None else metric_columns(next(iter(per_run.values())))
    if baseline is None:
        pairs = list(combinations(per_run, 2))
    else:
        pairs = [(baseline, system) for system in per_run if system != baseline]
    units = {system: averaging_units(table, metrics, average).sort_index() for system, table in per_run.items()}
    users = {system: table.set_index("run")["user"].sort_index() for system, table in per_run.items()}
    rows = []
    for first, second in pairs:
        if not units[first].index.equals(units[second].index):
            raise ValueError(f"systems {first!r} and {second!r} were not evaluated on the same {average}s")
        if average == "run" and not users[first].equals(users[second]):
            raise ValueError(f"systems {first!r} and {second!r} have different users for the same run ids")
        for metric in metrics:
            a, b = units[first][metric].to_numpy(), units[second][metric].to_numpy()
            rows.append(
                {
                    "system_a": first,
                    "system_b": second,
                    "metric": metric,
                    "mean_a": a.mean(),
                    "mean_b": b.mean(),
                    "difference": a.mean() - b.mean(),
                    "n": len(a),
                }
                | paired_tests(a, b)
            )
    return pd.DataFrame(rows)

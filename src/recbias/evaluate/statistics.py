"""Per-run tables -> means, confidence intervals and paired tests, with the user as the unit.

Runs of one user are not independent (a user's 1R runs share her profile and
her training data), and neither are the same users across repeated splits.
Intervals and tests therefore treat the *user* as the independent unit, in two
ways of weighting the runs (``average``):

* ``"user"`` (default): average each user's runs, over every fold, first; the
  mean, its Student's t interval and the paired tests are then over users.
* ``"run"``: the plain mean over runs, IRJ Eq. (1) ``(1/|PR_test|) sum_u sum_r
  M_u(T_u^r)`` in 1R designs (users with many test ratings weigh more).  Its
  interval is the cluster-robust one with users as clusters,

  .. math:: \\widehat{\\mathrm{se}}^2 = \\frac{G}{G-1} \\sum_{g=1}^{G} \\frac{(S_g - \\bar m\\, n_g)^2}{N^2},

  with ``S_g`` the sum and ``n_g`` the number of user ``g``'s runs, ``N = sum n_g``
  and ``G - 1`` degrees of freedom (Cameron & Miller 2015, Sec. II); paired tests
  use the per-user sums of differences.  With one run per user both reduce to the
  textbook formulas.
* ``"group"``: the mean over the run groups (``group`` column) of their run
  averages, IRJ Sec. 6.1's average of the ``m`` percentile values in P1R; with a
  single group it is the run average.  Its interval linearises the estimator,
  ``sum_j w_j x_j`` with ``w_j = 1 / (m n_{g(j)})``, and clusters the residuals
  ``w_j (x_j - xbar_{g(j)})`` by user in the formula above.

Treating runs as independent instead understates the uncertainty by a factor
that grows with the runs per user and their correlation (a test checks it).
Tables are tidy per-run frames: a ``user`` column, one column per metric, and
grouping columns such as ``dataset``, ``design`` and ``system``; a mapping
``system -> per-run table`` (as from :func:`~recbias.evaluate.evaluate_runs`) is
accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

Average = Literal["user", "run", "group"]
AVERAGES: tuple[str, ...] = ("user", "run", "group")
#: columns of a per-run table that identify a run rather than measure it
ID_COLUMNS: tuple[str, ...] = ("dataset", "fold", "design", "system", "run", "user", "group")


def metric_columns(table: pd.DataFrame) -> list[str]:
    """The metric columns of a per-run table (everything but :data:`ID_COLUMNS`)."""
    return [column for column in table.columns if column not in ID_COLUMNS]


def _tidy(runs: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One per-run frame; a mapping ``system -> table`` gains a ``system`` column."""
    if isinstance(runs, pd.DataFrame):
        return runs
    if not runs:
        raise ValueError("no systems to summarise")
    return pd.concat([table.assign(system=system) for system, table in runs.items()], ignore_index=True)


#: the columns that say which user, group, fold, run and system a row of a per-run table belongs to
_IDS = ("user", "group", "fold", "run", "system")


def narrow(table: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """The columns a summary reads (``by``, the ids, ``metrics``), so that grouping or filtering copies no others."""
    return table[list(dict.fromkeys([*by, *(c for c in _IDS if c in table.columns), *metrics]))]


def _check(table: pd.DataFrame, metrics: Sequence[str], average: str, by: Sequence[str]) -> None:
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {', '.join(AVERAGES)}, got {average!r}")
    missing = [c for c in [*metrics, *by, "user"] if c not in table.columns]
    if missing:
        raise ValueError(f"columns {missing} not in the per-run table (columns: {list(table.columns)})")


def _codes(labels: np.ndarray | None, size: int, *, each: bool) -> np.ndarray:
    """0-based codes of ``labels`` in sorted order; without labels, every value its own code (``each``) or
    all one code."""
    if labels is None:
        return np.arange(size) if each else np.zeros(size, dtype=np.int64)
    labels = np.asarray(labels)
    if labels.dtype.kind in "iu" and labels.size and labels.min() >= 0 and labels.max() < 4 * labels.size:
        present = np.zeros(int(labels.max()) + 1, dtype=bool)  # small non-negative codes (user codes): no sort
        present[labels] = True
        return (np.cumsum(present) - 1)[labels]
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


def _coded_mean(values: np.ndarray, cluster: np.ndarray, group: np.ndarray) -> tuple[float, float, int]:
    """Mean of ``values`` (the mean of the group means), its cluster-robust standard error and the number
    of clusters G, with clusters and groups given as 0-based codes (:func:`_codes`), so that several
    columns of the same units are read without sorting the labels again.  With every value its own
    cluster and one group, the standard error is s / sqrt(n)."""
    sizes = np.bincount(group)
    group_means = np.bincount(group, weights=values) / sizes
    weights = 1.0 / (len(sizes) * sizes[group])
    mean = float(group_means.mean())
    g = int(cluster.max()) + 1
    if g < 2:
        return mean, np.nan, g
    residual = np.bincount(cluster, weights=weights * (values - group_means[group]), minlength=g)
    return mean, float(np.sqrt(g / (g - 1) * np.sum(residual**2))), g


def mean_confidence_interval(
    values: np.ndarray, confidence: float = 0.95, clusters: np.ndarray | None = None,
    groups: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """Mean (of the group means with ``groups``) and its t interval, cluster-robust over
    ``clusters`` (see the module docstring).

    Without clusters and groups, mean +- t_{(1+c)/2, n-1} s / sqrt(n).  NaN bounds with fewer
    than two units (clusters).
    """
    values = np.asarray(values, dtype=np.float64)
    return _coded_interval(values, confidence, _codes(clusters, values.size, each=True),
                           _codes(groups, values.size, each=False))


def _coded_interval(values: np.ndarray, confidence: float, cluster: np.ndarray,
                    group: np.ndarray) -> tuple[float, float, float]:
    """:func:`mean_confidence_interval` with clusters and groups given as codes (:func:`_codes`)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if values.size == 0:
        return np.nan, np.nan, np.nan
    mean, se, g = _coded_mean(values, cluster, group)
    if g < 2:
        return mean, np.nan, np.nan
    half = stats.t.ppf((1 + confidence) / 2, g - 1) * se
    return mean, mean - half, mean + half


def bootstrap_counts(n_units: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """``n_boot x n_units`` matrix: how often each unit is drawn in each resample of ``n_units`` with replacement.

    A resample's mean of per-unit values ``v`` is ``counts @ v / n_units``, so every resample
    of every column is one matrix product.  Draws ``default_rng(seed).integers(0, n_units,
    (n_boot, n_units))``.
    """
    for name, value in (("n_units", n_units), ("n_boot", n_boot)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    draws = np.random.default_rng(seed).integers(0, n_units, size=(n_boot, n_units))
    counts = np.zeros((n_boot, n_units))
    np.add.at(counts, (np.repeat(np.arange(n_boot), n_units), draws.ravel()), 1.0)
    return counts


def paired_tests(a: np.ndarray, b: np.ndarray, clusters: np.ndarray | None = None) -> dict[str, float]:
    """Paired t-test and Wilcoxon signed-rank test of ``d = a - b``, cluster-robust over ``clusters``.

    Without clusters: :func:`scipy.stats.ttest_rel` and :func:`scipy.stats.wilcoxon`.  With
    clusters, t = mean(d) / se(d) with the cluster-robust se (G - 1 degrees of freedom), and
    the Wilcoxon test is on the per-cluster sums of ``d``.  When every difference is zero
    both statistics are 0 and both p-values 1.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return _coded_paired_tests(a, b, None if clusters is None else _codes(clusters, len(a), each=True))


def _coded_paired_tests(a: np.ndarray, b: np.ndarray, cluster: np.ndarray | None) -> dict[str, float]:
    """:func:`paired_tests` with the clusters given as codes (:func:`_codes`)."""
    if len(a) < 2:
        raise ValueError("paired tests need at least two paired units")
    if np.all(a == b):
        return {"t_statistic": 0.0, "t_pvalue": 1.0, "wilcoxon_statistic": 0.0, "wilcoxon_pvalue": 1.0}
    if cluster is None:
        t, w = stats.ttest_rel(a, b), stats.wilcoxon(a, b)
        return {"t_statistic": float(t.statistic), "t_pvalue": float(t.pvalue),
                "wilcoxon_statistic": float(w.statistic), "wilcoxon_pvalue": float(w.pvalue)}
    difference = a - b
    mean, se, g = _coded_mean(difference, cluster, np.zeros(len(difference), dtype=np.int64))
    if g < 2:
        raise ValueError("paired tests need at least two users")
    t_statistic = mean / se if se > 0 else np.copysign(np.inf, mean)
    sums = np.bincount(cluster, weights=difference, minlength=g)
    w = stats.wilcoxon(sums) if np.any(sums != 0) else None
    return {
        "t_statistic": float(t_statistic),
        "t_pvalue": float(2 * stats.t.sf(abs(t_statistic), g - 1)),
        "wilcoxon_statistic": float(w.statistic) if w else 0.0,
        "wilcoxon_pvalue": float(w.pvalue) if w else 1.0,
    }


def averaging_units(table: pd.DataFrame, metrics: Sequence[str], average: Average = "user") -> pd.DataFrame:
    """Values of ``metrics`` per unit: per user (mean of the user's runs) or per run (with its user,
    and its group for ``average="group"``)."""
    _check(table, metrics, average, ())
    if average == "user":
        return table.groupby("user", sort=True)[list(metrics)].mean()
    keys = [c for c in ("fold", "run") if c in table.columns]
    ids = ["user", "group"] if average == "group" else ["user"]
    return table.set_index(keys).sort_index()[[*ids, *metrics]]


def summarize(
    runs: pd.DataFrame | Mapping[str, pd.DataFrame],
    metrics: Sequence[str] | None = None,
    by: Sequence[str] = ("system",),
    average: Average = "user",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per group of ``by`` and metric: ``mean``, ``ci_low``, ``ci_high``, ``users``, ``runs``.

    ``metrics`` defaults to every metric column.  The interval treats users as the
    independent units whatever ``average`` (see the module docstring).
    """
    table = _tidy(runs)
    metrics = list(metrics) if metrics is not None else metric_columns(table)
    by = list(by)
    _check(table, metrics, average, by)
    table = narrow(table, by, metrics)
    rows = []
    for keys, group in table.groupby(by, observed=True, sort=False) if by else [((), table)]:
        keys = keys if isinstance(keys, tuple) else (keys,)
        units = averaging_units(group, metrics, average)
        # the units' clusters and groups, coded once for all the metrics
        clusters = _codes(units["user"].to_numpy() if average != "user" else None, len(units), each=True)
        groups = _codes(units["group"].to_numpy() if average == "group" else None, len(units), each=False)
        for metric in metrics:
            mean, low, high = _coded_interval(units[metric].to_numpy(dtype=np.float64), confidence, clusters, groups)
            rows.append(dict(zip(by, keys, strict=True)) | {
                "metric": metric, "mean": mean, "ci_low": low, "ci_high": high,
                "users": group["user"].nunique(), "runs": len(group), "average": average,
            })
    return pd.DataFrame(rows)


def compare(
    runs: pd.DataFrame | Mapping[str, pd.DataFrame],
    metrics: Sequence[str] | None = None,
    by: Sequence[str] = (),
    baseline: str | None = None,
    average: Average = "user",
    systems: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Paired comparisons of systems within each group of ``by``, one row per pair and metric.

    Pairs every two systems (in ``systems`` order, default: order of appearance), or each
    with ``baseline``.  Units are paired by user (``average="user"``) or by run (``fold``,
    ``run``; the users of paired runs must agree) with users as clusters.  Columns: ``by``,
    ``system_a``, ``system_b``, ``metric``, the two means, ``difference`` (a - b), ``users``
    and the statistics and p-values of :func:`paired_tests`.
    """
    table = _tidy(runs)
    metrics = list(metrics) if metrics is not None else metric_columns(table)
    _check(table, metrics, average, [*by, "system"])
    table = narrow(table, by, metrics)
    if average == "group":
        raise ValueError("paired tests pair users or runs: use average='user' or 'run'")
    names = list(systems) if systems is not None else list(dict.fromkeys(table["system"]))
    if len(names) < 2:
        raise ValueError("compare needs at least two systems")
    if baseline is not None and baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
    pairs = list(combinations(names, 2)) if baseline is None else [(baseline, s) for s in names if s != baseline]
    rows = []
    for keys, group in table.groupby(list(by), observed=True, sort=False) if by else [((), table)]:
        keys = keys if isinstance(keys, tuple) else (keys,)
        units = {s: averaging_units(group[group["system"] == s], metrics, average) for s in names}
        # each system's runs clustered by user, coded once for all its pairs and metrics
        codes = {s: _codes(u["user"].to_numpy(), len(u), each=True) for s, u in units.items()
                 if average == "run"}
        for first, second in pairs:
            x, y = units[first], units[second]
            if not x.index.equals(y.index):
                raise ValueError(f"systems {first!r} and {second!r} were not evaluated on the same {average}s")
            if average == "run" and not x["user"].equals(y["user"]):
                raise ValueError(f"systems {first!r} and {second!r} have different users for the same runs")
            cluster = codes.get(first)
            for metric in metrics:
                a, b = x[metric].to_numpy(dtype=np.float64), y[metric].to_numpy(dtype=np.float64)
                rows.append(dict(zip(by, keys, strict=True)) | {
                    "system_a": first, "system_b": second, "metric": metric,
                    "mean_a": a.mean(), "mean_b": b.mean(), "difference": a.mean() - b.mean(),
                    "users": len(a) if cluster is None else int(cluster.max(initial=-1)) + 1,
                } | _coded_paired_tests(a, b, cluster))
    return pd.DataFrame(rows)


class UserBootstrap:
    """Resamples of users with replacement, shared by every table they are applied to.

    Users are the independent units (see the module docstring), so a bootstrap draws
    users, not runs: a drawn user brings all her runs, in every fold and every group.
    Applying one :class:`UserBootstrap` to several tables or groups (e.g. the points of a
    sweep, a measured and a true order) resamples them jointly, so statistics that combine
    them (a fitted slope, Kendall's tau) get percentile intervals that respect the pairing.
    Row 0 of every result is the full sample; rows ``1..n_boot`` are the resamples.
    """

    def __init__(self, users: np.ndarray, n_boot: int = 200, seed: int = 0) -> None:
        if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
            raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
        self.users = np.unique(np.asarray(users))
        if len(self.users) < 2:
            raise ValueError("a user bootstrap needs at least two users")
        size = len(self.users)
        draws = np.random.default_rng(seed).integers(0, size, size=(int(n_boot), size))
        rows = np.repeat(np.arange(1, int(n_boot) + 1), size)
        self.weights = np.bincount(rows * size + draws.ravel(), minlength=(int(n_boot) + 1) * size)
        self.weights = self.weights.reshape(int(n_boot) + 1, size).astype(np.float64)
        self.weights[0] = 1.0

    @property
    def n_boot(self) -> int:
        return len(self.weights) - 1

    def means(
        self, table: pd.DataFrame, metric: str, by: Sequence[str], average: Average = "run"
    ) -> pd.DataFrame:
        """Mean of ``metric`` per group of ``by`` in the full sample and in every resample.

        ``average`` weighs runs as in :func:`summarize` (``"run"``: plain mean over runs;
        ``"user"``: mean of per-user means).  NaN values count as absent.  Returns a frame
        indexed by the groups, with columns ``0`` (full sample) to ``n_boot``; a group none
        of whose users is drawn in a resample gets NaN there.
        """
        _check(table, [metric], average, by)
        users = table["user"].to_numpy()
        if not np.all(np.isin(users, self.users)):
            raise ValueError("the table has users outside the bootstrap's users")
        position = np.searchsorted(self.users, users)
        grouped = table.groupby(list(by), observed=True, sort=False)
        groups, index = grouped.ngroup().to_numpy(), grouped.size().index
        values = table[metric].to_numpy(dtype=np.float64)
        present = ~np.isnan(values)
        cell = position[present] * len(index) + groups[present]
        shape = (len(self.users), len(index))
        sums = np.bincount(cell, weights=values[present], minlength=shape[0] * shape[1]).reshape(shape)
        counts = np.bincount(cell, minlength=shape[0] * shape[1]).reshape(shape).astype(np.float64)
        if average == "user":
            with np.errstate(invalid="ignore", divide="ignore"):
                sums = np.where(counts > 0, sums / counts, 0.0)
            counts = (counts > 0).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (self.weights @ sums) / (self.weights @ counts)
        return pd.DataFrame(means.T, index=index)


def percentile_interval(draws: np.ndarray, confidence: float = 0.95, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of bootstrap ``draws`` along ``axis``, ignoring NaN draws."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    tail = (1.0 - confidence) / 2.0
    return np.nanquantile(draws, tail, axis=axis), np.nanquantile(draws, 1.0 - tail, axis=axis)


def resampled_pvalue(differences: np.ndarray) -> float:
    """Two-sided p-value of "the difference is zero" from its values over paired resamples of users.

    ``differences`` holds a statistic's difference between two things measured on the same resampled
    users (the full sample excluded).  The p-value is twice the smaller count of resamples on either side
    of zero (a zero counts on both sides), each count ``k`` of ``B`` read as ``(k + 1) / (B + 1)`` so that
    no finite number of resamples claims ``p = 0`` (Davison and Hinkley 1997, Sec. 4.4), and at most 1.
    NaN draws are left out; NaN when none is left.
    """
    differences = np.asarray(differences, dtype=np.float64).ravel()
    differences = differences[~np.isnan(differences)]
    if differences.size == 0:
        return np.nan
    side = min(np.count_nonzero(differences <= 0), np.count_nonzero(differences >= 0))
    return float(min(1.0, 2 * (side + 1) / (differences.size + 1)))

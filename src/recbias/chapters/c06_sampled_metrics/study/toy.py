"""The paper's toy example in numbers (Krichene and Rendle, KDD 2020, Sec. 3-5).

Three recommenders, five instances, ``n = 10,000`` items: the exact metrics (Table 1), the
sampled metrics simulated and in expectation (Table 2, Figs. 2-3), the collapse of every metric
onto AUC at ``m = 1``, and the corrections of AP (Fig. 4) with their bias and variance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import sampled

#: the paper's toy example: n = 10,000 items, the rank of the relevant item in five instances
TOY_N = 10_000

#: sampled items per instance in the paper's Table 2
TOY_M = 99

TOY_RANKS: dict[str, tuple[int, ...]] = {
    "A": (100, 100, 100, 100, 100),
    "B": (40, 40, 8437, 9266, 4482),
    "C": (212, 2, 743, 5342, 1548),
}

TOY_METRICS = ("AUC", "AP", "nDCG", "Recall@10")

#: the estimators of the paper's Fig. 4 (BV 0 is the minimal-bias vector)
FIG4_METHODS = ("sampled", "rank estimate", "CLS", "BV 1", "BV 0.1", "BV 0.01", "BV 0.001", "BV 0")

#: sampled items per instance of the paper's Fig. 4
FIG4_M = 100


@dataclass(frozen=True)
class ToyStudy:
    """The toy example in numbers.

    ``exact`` is Table 1 (recommenders by metrics); ``simulated`` maps ``(recommender, metric)`` to the
    five-instance average of each of ``repetitions`` sampled evaluations (``m = 99``, with replacement), and
    ``expected`` to the exact moments of that average.
    """

    exact: pd.DataFrame
    simulated: dict[tuple[str, str], np.ndarray]
    expected: dict[tuple[str, str], sampled.SampledMoments]


def toy_study(repetitions: int, seed: int) -> ToyStudy:
    """Exact metrics (Eq. sm-average), ``repetitions`` simulated sampled evaluations (Eq. sm-law, binomial)
    and their exact moments (Eq. sm-expected)."""
    exact = pd.DataFrame(
        {metric: [sampled.metric_vector(metric, TOY_N)[np.array(r) - 1].mean() for r in TOY_RANKS.values()]
         for metric in TOY_METRICS},
        index=pd.Index(list(TOY_RANKS), name="recommender"),
    )
    rng = np.random.default_rng(seed)
    simulated, expected = {}, {}
    for name, ranks in TOY_RANKS.items():
        draws = sampled.simulate_sampled_ranks(np.tile(ranks, (repetitions, 1)), TOY_N, TOY_M, True, rng)
        for metric in TOY_METRICS:
            simulated[(name, metric)] = sampled.metric_vector(metric, TOY_M + 1)[draws - 1].mean(axis=1)
            expected[(name, metric)] = sampled.sampled_metric_moments(metric, ranks, TOY_N, TOY_M, True)
    return ToyStudy(exact, simulated, expected)


def expected_average(name: str, metric: str, m: int, replace: bool) -> float:
    """Exact expectation of the five-instance average of recommender ``name``'s sampled ``metric``."""
    return sampled.sampled_metric_moments(metric, TOY_RANKS[name], TOY_N, m, replace).average


def toy_m_curves(points: int = 48) -> pd.DataFrame:
    """Expected sampled metric of each toy recommender for sample sizes ``1..n - 1`` (log grid), the paper's Fig. 2."""
    ms = np.unique(np.round(np.geomspace(1, TOY_N - 1, points)).astype(int))
    return pd.DataFrame([
        {"m": int(m), "recommender": name, "metric": metric, "expected": expected_average(name, metric, int(m), True)}
        for metric in TOY_METRICS for name in TOY_RANKS for m in ms
    ])


def toy_shape_curves(ms: Sequence[int] = (1, 10, 100, 1000), top: int = 1000) -> pd.DataFrame:
    """``E[M(r~) | r]`` over the top true ranks for several sample sizes (the paper's Fig. 3);
    ``m = 0`` is the exact metric."""
    ranks = np.arange(1, top + 1)
    frames = [pd.DataFrame({"m": 0, "metric": metric, "rank": ranks,
                            "value": sampled.metric_vector(metric, TOY_N)[:top]}) for metric in TOY_METRICS]
    frames += [pd.DataFrame({"m": m, "metric": metric, "rank": ranks,
                             "value": sampled.sampled_metric_moments(metric, ranks, TOY_N, m, True).mean})
               for metric in TOY_METRICS for m in ms]
    return pd.concat(frames, ignore_index=True)


def first_place_chance(rank: int = 50, m: int = 100) -> float:
    """Probability that an item at true rank ``rank`` of 10,000 tops a sample of ``m`` (with replacement)."""
    return float(sampled.sampled_rank_distribution(rank, TOY_N, m, True)[0])


def m1_fits() -> pd.DataFrame:
    """Eq. sm-m1: each metric's expectation at ``m = 1`` as an affine function of AUC (slope and largest
    residual of the fit over all 10,000 true ranks), with the toy recommenders' expectations ``E[A]``..."""
    auc = sampled.metric_vector("AUC", TOY_N)
    design = np.column_stack([np.ones(TOY_N), auc])
    rows = []
    for metric in TOY_METRICS:
        expected = sampled.sampled_metric_moments(metric, np.arange(1, TOY_N + 1), TOY_N, 1, True).mean
        coefficients = np.linalg.lstsq(design, expected, rcond=None)[0]
        at_one, at_two = sampled.metric_vector(metric, 2)
        rows.append({"metric": metric, "M(1)": at_one, "M(2)": at_two, "slope on AUC": coefficients[1],
                     "largest residual": np.abs(design @ coefficients - expected).max(),
                     **{f"E[{name}]": expected_average(name, metric, 1, True) for name in TOY_RANKS}})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class ToyCorrections:
    """The corrections of AP and Recall@10 at ``n = 10,000``, ``m = 100`` (the paper's Fig. 4).

    ``tables`` maps ``(method, metric)`` to a one-row correction table (:func:`recbias.sampled.correction_tables`),
    ``moments`` maps ``method`` to the moments of the corrected AP at every true rank ``1..n``.
    """

    tables: dict[tuple[str, str], np.ndarray]
    moments: dict[str, sampled.SampledMoments]

    def vector(self, method: str, metric: str = "AP") -> np.ndarray:
        """The correction vector ``M^`` of ``method`` for ``metric`` (Eqs. sm-rank-estimate to sm-bv)."""
        return self.tables[(method, metric)][0]


def toy_corrections() -> ToyCorrections:
    """Every estimator of Fig. 4 for AP and Recall@10, with the moments of corrected AP at every true rank."""
    tables = sampled.correction_tables(FIG4_METHODS, ["AP", "Recall@10"], [TOY_N], FIG4_M, True)
    ranks = np.arange(1, TOY_N + 1)
    moments = {method: sampled.estimator_moments(tables[(method, "AP")][0], ranks, TOY_N, True) for method in FIG4_METHODS}
    return ToyCorrections(tables, moments)


def bias_variance(corrections: ToyCorrections) -> pd.DataFrame:
    """Per AP estimator, under the uniform prior over the 10,000 true ranks: root mean squared bias, root mean
    variance of one instance, RMS error and largest entry of the vector (Eq. sm-bv's two terms)."""
    exact = sampled.metric_vector("AP", TOY_N)
    rows = []
    for method, moments in corrections.moments.items():
        bias = moments.mean - exact
        rows.append({"estimator": method,
                     "RMS bias": np.sqrt(np.mean(bias**2)), "RMS sd (one instance)": np.sqrt(np.mean(moments.variance)),
                     "RMS error": np.sqrt(np.mean(bias**2 + moments.variance)),
                     "largest |entry|": np.abs(corrections.vector(method)).max()})
    return pd.DataFrame(rows)


def corrected_moments(corrections: ToyCorrections, method: str, metric: str) -> dict[str, sampled.SampledMoments]:
    """Moments of each toy recommender's five-instance average corrected by ``method`` (``m = 100``)."""
    return {name: sampled.estimator_moments(corrections.vector(method, metric), ranks, TOY_N, True)
            for name, ranks in TOY_RANKS.items()}

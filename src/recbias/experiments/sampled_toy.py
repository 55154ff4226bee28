"""Chapter 6 ("Sampled metrics and their corrections"): the paper's toy example in numbers.

Three recommenders, five instances, ``n = 10,000`` items (Krichene and Rendle, KDD 2020,
Sec. 3-5): the exact metrics (Table 1), the sampled metrics simulated and in expectation
(Table 2, Figs. 2-3), the collapse of every metric onto AUC at ``m = 1``, and the corrections
of AP (Fig. 4) with their bias and variance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import sampled
from recbias.experiments.sampled_published import paper_value
from recbias.text import fmt_number, fmt_pm, order_text


#: the paper's toy example: n = 10,000 items, the rank of the relevant item in five instances
TOY_N = 10_000


TOY_M = 99


TOY_RANKS: dict[str, tuple[int, ...]] = {
    "A": (100, 100, 100, 100, 100),
    "B": (40, 40, 8437, 9266, 4482),
    "C": (212, 2, 743, 5342, 1548),
}


TOY_METRICS = ("AUC", "AP", "nDCG", "Recall@10")


#: the estimators of the paper's Fig. 4 (BV 0 is the minimal-bias vector)
FIG4_METHODS = ("sampled", "rank estimate", "CLS", "BV 1", "BV 0.1", "BV 0.01", "BV 0.001", "BV 0")


FIG4_M = 100


@dataclass(frozen=True)
class ToyStudy:
    """The toy example in numbers.

    Attributes:
        exact: exact metric of each recommender (rows) and metric (columns), Table 1.
        simulated: ``(recommender, metric) ->`` the five-instance average of each of
            ``repetitions`` sampled evaluations (``m = 99``, with replacement).
        expected: ``(recommender, metric) ->`` exact moments of that average.
    """

    exact: pd.DataFrame
    simulated: dict[tuple[str, str], np.ndarray]
    expected: dict[tuple[str, str], sampled.SampledMoments]


def toy_study(repetitions: int, seed: int) -> ToyStudy:
    """Exact metrics, ``repetitions`` simulated sampled evaluations and their exact moments."""
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


def table1(toy: ToyStudy) -> pd.DataFrame:
    """Exact toy metrics, ours next to the published Table 1."""
    columns = {}
    for metric in TOY_METRICS:
        columns[(metric, "ours")] = toy.exact[metric]
        columns[(metric, "paper")] = [paper_value(1, recommender=name, metric=metric) for name in TOY_RANKS]
    return pd.DataFrame(columns, index=toy.exact.index)


def table2(toy: ToyStudy) -> pd.DataFrame:
    """Sampled toy metrics: exact (Table 1), simulated, expected and published, mean ± sd."""
    rows = []
    for name in TOY_RANKS:
        for metric in TOY_METRICS:
            draws, moments = toy.simulated[(name, metric)], toy.expected[(name, metric)]
            paper = {s: paper_value(2, recommender=name, metric=metric, statistic=s) for s in ("mean", "sd")}
            rows.append({
                "recommender": name, "metric": metric, "exact (Table 1)": fmt_number(toy.exact.loc[name, metric]),
                "simulated": f"{fmt_number(draws.mean())} ± {fmt_number(draws.std(ddof=1))}",
                "expected": f"{fmt_number(moments.average)} ± {fmt_number(moments.average_std)}",
                "published": f"{fmt_number(paper['mean'])} ± {fmt_number(paper['sd'])}",
            })
    return pd.DataFrame(rows)


def toy_z_table() -> pd.DataFrame:
    """Each published Table 2 mean as a z-score against our exact expectation, under four readings
    of the protocol (``m`` = 99 or 100, with or without replacement); rows with a published sd of 0 left out."""
    rows = {}
    for name, ranks in TOY_RANKS.items():
        for metric in TOY_METRICS:
            mean = paper_value(2, recommender=name, metric=metric, statistic="mean")
            sd = paper_value(2, recommender=name, metric=metric, statistic="sd")
            if sd == 0:
                continue
            rows[(name, metric)] = {
                (f"m = {m}", "with repl." if replace else "without"):
                    (mean - sampled.sampled_metric_moments(metric, ranks, TOY_N, m, replace).average) / (sd / np.sqrt(1000))
                for m in (99, 100) for replace in (True, False)
            }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.names = ["recommender", "metric"]
    return table


def toy_z_numbers(z: pd.DataFrame) -> dict[str, str]:
    """The offsets the prose quotes: AP and nDCG of A and B under the stated protocol, and the
    largest offset under m = 100 without replacement."""
    stated = z.loc[(["A", "B"], ["AP", "nDCG"]), ("m = 99", "with repl.")]
    return {
        "toy_z_low": f"{stated.abs().min():.1f}",
        "toy_z_high": f"{stated.abs().max():.1f}",
        "toy_z_side": "below" if (stated < 0).all() else "above" if (stated > 0).all() else "on both sides of",
        "toy_best_z": f"{z[('m = 100', 'without')].abs().max():.1f}",
    }


def toy_m_curves(points: int = 48) -> pd.DataFrame:
    """Expected sampled metric of each toy recommender for sample sizes ``1..n - 1`` (log grid), the paper's Fig. 2."""
    ms = np.unique(np.round(np.geomspace(1, TOY_N - 1, points)).astype(int))
    return pd.DataFrame([
        {"m": int(m), "recommender": name, "metric": metric,
         "expected": sampled.sampled_metric_moments(metric, ranks, TOY_N, int(m), True).average}
        for metric in TOY_METRICS for name, ranks in TOY_RANKS.items() for m in ms
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


def m1_table() -> pd.DataFrame:
    """Eq. (m = 1): each metric's expectation as an affine function of AUC (largest residual of the
    fit over all 10,000 true ranks), and the toy recommenders' expectations and their order."""
    auc = sampled.metric_vector("AUC", TOY_N)
    design = np.column_stack([np.ones(TOY_N), auc])
    rows = []
    for metric in TOY_METRICS:
        expected = sampled.sampled_metric_moments(metric, np.arange(1, TOY_N + 1), TOY_N, 1, True).mean
        coefficients = np.linalg.lstsq(design, expected, rcond=None)[0]
        values = {name: sampled.sampled_metric_moments(metric, r, TOY_N, 1, True).average for name, r in TOY_RANKS.items()}
        at_one, at_two = sampled.metric_vector(metric, 2)
        rows.append({"metric": metric, "M(1)": at_one, "M(2)": at_two, "slope on AUC": coefficients[1],
                     "largest residual": np.abs(design @ coefficients - expected).max(),
                     **{f"E[{name}]": v for name, v in values.items()}, "order": order_text(values)})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class ToyCorrections:
    """The corrections of AP (and Recall@10) at ``n = 10,000``, ``m = 100`` (the paper's Fig. 4).

    Attributes:
        tables: ``(method, metric) ->`` one-row correction table (:func:`recbias.sampled.correction_tables`).
        moments: ``method ->`` moments of the corrected AP at every true rank ``1..n``.
    """

    tables: dict[tuple[str, str], np.ndarray]
    moments: dict[str, sampled.SampledMoments]

    def vector(self, method: str, metric: str = "AP") -> np.ndarray:
        return self.tables[(method, metric)][0]


def toy_corrections() -> ToyCorrections:
    tables = sampled.correction_tables(FIG4_METHODS, ["AP", "Recall@10"], [TOY_N], FIG4_M, True)
    ranks = np.arange(1, TOY_N + 1)
    moments = {method: sampled.estimator_moments(tables[(method, "AP")][0], ranks, TOY_N, True) for method in FIG4_METHODS}
    return ToyCorrections(tables, moments)


def bias_variance_table(corrections: ToyCorrections) -> pd.DataFrame:
    """Root mean squared bias, root mean variance of one instance, RMS error and largest entry of each AP vector."""
    exact = sampled.metric_vector("AP", TOY_N)
    rows = []
    for method, moments in corrections.moments.items():
        bias = moments.mean - exact
        rows.append({"estimator": "minimal bias (BV 0)" if method == "BV 0" else method,
                     "RMS bias": np.sqrt(np.mean(bias**2)), "RMS sd (one instance)": np.sqrt(np.mean(moments.variance)),
                     "RMS error": np.sqrt(np.mean(bias**2 + moments.variance)),
                     "largest |entry|": np.abs(corrections.vector(method)).max()})
    return pd.DataFrame(rows)


def toy_corrected_table(toy: ToyStudy, corrections: ToyCorrections,
                        methods: Sequence[str] = ("sampled", "rank estimate", "CLS", "BV 0.1", "BV 0.01")) -> pd.DataFrame:
    """Expected corrected AP and Recall@10 of the toy recommenders (± sd of the five-instance average), one row
    per metric and recommender."""
    rows = []
    for metric in ("AP", "Recall@10"):
        for name, ranks in TOY_RANKS.items():
            row = {"metric": metric, "recommender": name, "exact": fmt_number(toy.exact.loc[name, metric])}
            for method in methods:
                moments = sampled.estimator_moments(corrections.vector(method, metric), ranks, TOY_N, True)
                row[method] = fmt_pm(moments.average, moments.average_std)
            rows.append(row)
    return pd.DataFrame(rows).set_index(["metric", "recommender"]).rename_axis([None, None])

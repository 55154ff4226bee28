"""The toy example's tables, ours next to the paper's Tables 1 and 2, and the numbers the prose quotes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.claims import key, paper
from recbias.chapters.c06_sampled_metrics.study.toy import (
    TOY_METRICS, TOY_RANKS, ToyCorrections, ToyStudy, corrected_moments, expected_average,
)
from recbias.text import fmt_number, fmt_pm, order_text

#: repetitions behind the paper's Table 2, for the standard error of its means
PAPER_REPETITIONS = 1000

#: the readings of the paper's toy protocol set against its Table 2: (m, with replacement)
PROTOCOLS = ((99, True), (99, False), (100, True), (100, False))

M1_FORMATS = {"M(1)": "{:.3f}", "M(2)": "{:.3f}", "slope on AUC": "{:.3f}", "largest residual": "{:.1e}",
              **{f"E[{name}]": "{:.4f}" for name in TOY_RANKS}}

BV_FORMATS = {"RMS bias": "{:.5f}", "RMS sd (one instance)": "{:.4g}", "RMS error": "{:.4g}", "largest |entry|": "{:.3g}"}

#: how the bias-variance table names the unconstrained minimal-bias vector
MINIMAL_BIAS = "minimal bias (BV 0)"


def table1(toy: ToyStudy) -> pd.DataFrame:
    """Exact toy metrics, ours next to the published Table 1."""
    columns = {}
    for metric in TOY_METRICS:
        columns[(metric, "ours")] = toy.exact[metric]
        columns[(metric, "paper")] = [paper()[key(1, metric, recommender=name)] for name in TOY_RANKS]
    return pd.DataFrame(columns, index=toy.exact.index)


def table2(toy: ToyStudy) -> pd.DataFrame:
    """Sampled toy metrics: exact (Table 1), simulated, expected and published, mean ± sd."""
    rows = []
    for name in TOY_RANKS:
        for metric in TOY_METRICS:
            draws, moments = toy.simulated[(name, metric)], toy.expected[(name, metric)]
            published = {s: paper()[key(2, metric, recommender=name, statistic=s)] for s in ("mean", "sd")}
            rows.append({
                "recommender": name, "metric": metric, "exact (Table 1)": fmt_number(toy.exact.loc[name, metric]),
                "simulated": f"{fmt_number(draws.mean())} ± {fmt_number(draws.std(ddof=1))}",
                "expected": f"{fmt_number(moments.average)} ± {fmt_number(moments.average_std)}",
                "published": f"{fmt_number(published['mean'])} ± {fmt_number(published['sd'])}",
            })
    return pd.DataFrame(rows)


def toy_z_table() -> pd.DataFrame:
    """Each published Table 2 mean as a z-score, (published − expected) / (sd / √1000), against our exact
    expectation under each of :data:`PROTOCOLS`; rows with a published sd of 0 left out."""
    rows = {}
    for name in TOY_RANKS:
        for metric in TOY_METRICS:
            mean, sd = (paper()[key(2, metric, recommender=name, statistic=s)] for s in ("mean", "sd"))
            if sd == 0:
                continue
            rows[(name, metric)] = {
                (f"m = {m}", "with repl." if replace else "without"):
                    (mean - expected_average(name, metric, m, replace)) / (sd / np.sqrt(PAPER_REPETITIONS))
                for m, replace in PROTOCOLS
            }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.names = ["recommender", "metric"]
    return table


def toy_z_numbers(z: pd.DataFrame) -> dict[str, str]:
    """The offsets the prose quotes: AP and nDCG of A and B under the stated protocol (their smallest and
    largest size; all four lie below the expectation), and the largest offset under m = 100 without replacement."""
    stated = z.loc[(["A", "B"], ["AP", "nDCG"]), ("m = 99", "with repl.")]
    return {
        "toy_z_low": f"{stated.abs().min():.1f}",
        "toy_z_high": f"{stated.abs().max():.1f}",
        "toy_best_z": f"{z[('m = 100', 'without')].abs().max():.1f}",
    }


def m1_table(fits: pd.DataFrame) -> pd.DataFrame:
    """The m = 1 fits with the order of the toy recommenders their expectations imply."""
    expected = fits[[f"E[{name}]" for name in TOY_RANKS]].to_numpy()
    return fits.assign(order=[order_text(dict(zip(TOY_RANKS, row, strict=True))) for row in expected])


def m1_numbers(fits: pd.DataFrame) -> dict[str, str]:
    return {"m1_residual": f"{fits['largest residual'].max():.1e}"}


def bias_variance_table(table: pd.DataFrame) -> pd.DataFrame:
    """The bias and variance of each AP estimator, the minimal-bias vector named as such."""
    return table.replace({"estimator": {"BV 0": MINIMAL_BIAS}})


def bias_variance_numbers(table: pd.DataFrame) -> dict[str, str]:
    """The largest entry and the single-instance sd of the minimal-bias vector."""
    minimal_bias = table.set_index("estimator").loc["BV 0"]
    return {"mb_largest": f"{minimal_bias['largest |entry|']:.2g}",
            "mb_sd": f"{minimal_bias['RMS sd (one instance)']:.2g}"}


def toy_corrected_table(toy: ToyStudy, corrections: ToyCorrections,
                        methods: tuple[str, ...] = ("sampled", "rank estimate", "CLS", "BV 0.1", "BV 0.01")) -> pd.DataFrame:
    """Expected corrected AP and Recall@10 of the toy recommenders (± sd of the five-instance average), one row
    per metric and recommender."""
    rows = []
    for metric in ("AP", "Recall@10"):
        moments = {method: corrected_moments(corrections, method, metric) for method in methods}
        for name in TOY_RANKS:
            rows.append({"metric": metric, "recommender": name, "exact": fmt_number(toy.exact.loc[name, metric]),
                         **{method: fmt_pm(moments[method][name].average, moments[method][name].average_std)
                            for method in methods}})
    return pd.DataFrame(rows).set_index(["metric", "recommender"]).rename_axis([None, None])

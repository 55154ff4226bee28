"""Chapter 6's display tables and the numbers its prose quotes: the toy example (ours next to the paper's
Tables 1 and 2), the real-data study (its systems, Tables 3 and 4, ours and the paper's, the tests beyond noise,
the sweep over the sample size and the cost) and the 1R bridge."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.claims import key, paper
from recbias.chapters.c06_sampled_metrics.study.bridge import (
    BRIDGE_METHODS, BRIDGE_SIZE, Bridge, pair_counts,
)
from recbias.chapters.c06_sampled_metrics.study.cost import Cost
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    METHODS, METRICS, PAIRS, SYSTEMS, TOP_HEAVY, SampledStudy, auc_expected_gaps, auc_gaps, comparisons, grouping_error,
    repetition_rights, reversal_tests,
)
from recbias.chapters.c06_sampled_metrics.study.sweep import GRID_CAP, MSweep, consistent_from
from recbias.chapters.c06_sampled_metrics.study.toy import (
    TOY_METRICS, TOY_RANKS, ToyCorrections, ToyStudy, corrected_moments, expected_average,
)
from recbias.recommenders import PAPERS_PERSONALISED
from recbias.recommenders.factory import PRESETS
from recbias.text import fmt_count, fmt_number, fmt_p, fmt_pct, fmt_pm, fmt_seconds, fmt_signed, fmt_span, order_text

# ---------------------------------------------------------------- the toy example

#: repetitions behind the paper's Table 2, for the standard error of its means
PAPER_REPETITIONS = 1000

#: the readings of the paper's toy protocol set against its Table 2: (m, with replacement)
PROTOCOLS = ((99, True), (99, False), (100, True), (100, False))

M1_FORMATS = {"M(1)": "{:.3f}", "M(2)": "{:.3f}", "slope on AUC": "{:.3f}", "largest residual": "{:.1e}",
              **{f"E[{name}]": "{:.4f}" for name in TOY_RANKS}}

BV_FORMATS = {"RMS bias": "{:.5f}", "RMS sd (one instance)": "{:.4g}", "RMS error": "{:.4g}",
              "largest |entry|": "{:.3g}"}

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


def bias_variance_table(table: pd.DataFrame) -> pd.DataFrame:
    """The bias and variance of each AP estimator, the minimal-bias vector named as such."""
    return table.replace({"estimator": {"BV 0": MINIMAL_BIAS}})


def toy_corrected_table(toy: ToyStudy, corrections: ToyCorrections, methods: tuple[str, ...] = (
        "sampled", "rank estimate", "CLS", "BV 0.1", "BV 0.01")) -> pd.DataFrame:
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


# ---------------------------------------------------------------- the real-data study

#: the estimators of the paper's Table 3 (it has no BV 0.001)
TABLE3_METHODS = METHODS[:-1]

#: the estimators whose order of the systems the orders table shows, after the exact metric
ORDER_METHODS = ("exact", "sampled", "CLS", "BV 0.1")

KR_SET = "Krichene and Rendle's own (top-N learners)"


def systems_table() -> pd.DataFrame:
    """X, Y and Z, Krichene and Rendle's own systems, with their algorithm and settings (the paper's appendix),
    read from the presets."""
    x, y, z = (PRESETS[SYSTEMS[s]][2] for s in "XYZ")

    def knn(params: dict) -> str:
        limit = "no neighbourhood limit" if params["k_prime"] is None else f"{params['k_prime']} neighbours per item"
        return f"q = {params['q']:g}, {limit}"

    return pd.DataFrame([
        {"system": "X", "set": KR_SET, "algorithm": "implicit alternating least squares",
         "settings": f"{x['factors']} factors, λ = {x['regularization']:g}, α = {x['alpha']:g}"},
        *({"system": s, "set": KR_SET, "algorithm": "item-based kNN, cosine similarity to power q",
           "settings": knn(params)} for s, params in (("Y", y), ("Z", z))),
    ])


def study_numbers(study: SampledStudy) -> dict[str, str]:
    """The figures the prose quotes about the split, the pools, the sample and the grouping."""
    sizes = study.sizes
    error, distinct = grouping_error(study)
    return {
        "dataset_name": study.dataset, "split": study.split, "n_targets": f"{len(sizes):,}",
        "n_dropped": f"{int((~study.keep).sum()):,}",
        "n_min": f"{sizes.min():,}", "n_max": f"{sizes.max():,}", "n_median": f"{int(np.median(sizes)):,}",
        "m_used": f"{study.m}", "m_requested": f"{study.m_requested}",
        "repetitions": f"{study.repetitions:,}", "n_tolerance": fmt_pct(study.n_tolerance, 0),
        "n_bins": fmt_count(len(study.bin_sizes), "group", "groups"), "n_over_m": f"{np.median(sizes) / study.m:,.0f}",
        "grouping_error": f"{100 * error:.3f}", "n_distinct": f"{distinct:,}",
    }


def _value(values: Mapping[str, float], metric: str, name: str, method: str, statistic: str = "mean") -> float:
    """One value of Table 3 by its key; the exact metric has no statistic."""
    return values[key(3, metric, recommender=name, estimator=method, statistic="" if method == "exact" else statistic)]


def table3(values: Mapping[str, float]) -> pd.DataFrame:
    """Table 3 from its values by key, ours (:func:`~recbias.chapters.c06_sampled_metrics.claims.table3_values`)
    or the paper's: exact metrics and each estimator's mean ± sd over the repetitions, in percent."""
    return pd.DataFrame([
        {"metric": metric, "recommender": name, "exact": fmt_number(_value(values, metric, name, "exact"), 2),
         **{method: fmt_pm(*(_value(values, metric, name, method, s) for s in ("mean", "sd")), digits=2)
            for method in TABLE3_METHODS}}
        for metric in METRICS for name in SYSTEMS
    ]).set_index(["metric", "recommender"]).rename_axis([None, None])


def orders_table(ours: Mapping[str, float]) -> pd.DataFrame:
    """Order of the systems by the exact metric and by three estimators (means over the repetitions), one row
    per metric on this build (Table 3's values by key) and in the paper."""
    return pd.DataFrame([
        {"source": source, "metric": metric, **{
            method: order_text({name: _value(values, metric, name, method) for name in SYSTEMS})
            for method in ORDER_METHODS}}
        for source, values in (("ours", ours), ("paper (ML-1M)", paper())) for metric in METRICS
    ]).set_index(["source", "metric"]).rename_axis([None, None])


def auc_numbers(study: SampledStudy) -> dict[str, str]:
    """The largest simulated gap of sampled AUC, the gap in expectation from each user's own law, and the gap
    of Z in the paper's Table 3 (percentage points)."""
    gaps, z = auc_gaps(study)
    widest = int(np.argmax(np.abs(gaps)))
    expected = float(np.abs(auc_expected_gaps(study)).max())
    published = paper()[key(3, "AUC", recommender="Z", estimator="sampled", statistic="mean")]
    return {"auc_gap": f"{abs(gaps[widest]):.3f}", "auc_gap_name": study.names[widest],
            "auc_gap_z": fmt_signed(z[widest]),
            "auc_expected_gap": f"{100 * expected:.0e}" if expected > 0 else "0",
            "paper_auc_gap": f"{published - paper()[key(3, 'AUC', recommender='Z', estimator='exact')]:.2f}"}


def paper_table4() -> pd.DataFrame:
    """The published Table 4 (ML-1M); cells the text does not give are NaN."""
    rows = []
    for a, b in PAIRS:
        pair = f"{'XYZ'[a]} vs {'XYZ'[b]}"
        for metric in METRICS:
            rows.append({"pair": pair, "metric": metric, **{
                method: paper().get(key(4, metric, pair=pair, estimator=method), np.nan) for method in METHODS}})
    return pd.DataFrame(rows)


def table4_numbers(ours: pd.DataFrame) -> dict[str, str]:
    """Of our Table 4: each estimator's lowest count over the pairs and top-heavy metrics, the correction whose
    lowest count is highest (then whose total is), and the lowest count of uncorrected AUC."""
    top_heavy = ours["metric"].isin(TOP_HEAVY)
    lowest = {method: int(np.nanmin(ours.loc[top_heavy, method])) for method in METHODS}
    best = max(METHODS[1:], key=lambda method: (lowest[method], np.nansum(ours.loc[top_heavy, method])))
    return {"t4_lowest": ", ".join(f"{lowest[method]} ({method})" for method in METHODS), "t4_best": best,
            "t4_auc_lowest": f"{int(np.nanmin(ours.loc[~top_heavy, 'sampled']))}"}


def reversal_table(study: SampledStudy) -> pd.DataFrame:
    """Per pair and top-heavy metric: the exact and the expected sampled difference (percentage points), each
    with its paired p-value over users, whether their signs agree and whether both are beyond noise."""
    tests = reversal_tests(study)
    yes_no = {True: "yes", False: "no"}
    return pd.DataFrame({
        "pair": tests["pair"], "metric": tests["metric"],
        "exact difference (pp)": [f"{100 * d:+.2f}" for d in tests["exact difference"]],
        "p (exact)": [fmt_p(p) for p in tests["exact p"]],
        "expected sampled difference (pp)": [f"{100 * d:+.2f}" for d in tests["expected difference"]],
        "p (sampled)": [fmt_p(p) for p in tests["expected p"]],
        "signs agree": (np.sign(tests["exact difference"]) == np.sign(tests["expected difference"])).map(yes_no),
        "both beyond noise": (tests["kept"] | tests["reversed"]).map(yes_no),
    })


def rights_table(study: SampledStudy) -> pd.DataFrame:
    """Per estimator: the mean number of top-heavy and of AUC comparisons it orders right in one repetition, and
    its difference from the uncorrected metric with the paired p-value over the repetitions."""
    rights = repetition_rights(study)
    top, auc = comparisons(study, TOP_HEAVY), comparisons(study, METRICS[3:])
    corrected = rights["estimator"] != "sampled"
    return pd.DataFrame({
        "estimator": rights["estimator"],
        f"top-heavy right (of {top})": [f"{v:.2f}" for v in rights["top-heavy right"]],
        "minus uncorrected": rights["difference from uncorrected"].map("{:+.2f}".format).where(corrected, ""),
        "p (paired over repetitions)": rights["p"].map(fmt_p).where(corrected, ""),
        f"AUC right (of {auc})": [f"{v:.2f}" for v in rights["AUC right"]],
    })


def consistency_table(study: SampledStudy, sweep: MSweep) -> pd.DataFrame:
    """Per pair, the smallest grid ``m`` from which on every larger one orders it as the exact Recall@10."""
    exact = study.exact["Recall@10"]
    rows = []
    for a, b in PAIRS:
        uncorrected, corrected = consistent_from(study, sweep, a, b)
        rows.append({"pair": f"{study.names[a]} vs {study.names[b]}",
                     "exact order": order_text({study.names[a]: exact[a], study.names[b]: exact[b]}),
                     "uncorrected: consistent from m =": uncorrected, "BV 0.1: consistent from m =": corrected})
    return pd.DataFrame(rows).astype(object)


def sweep_numbers(sweep: MSweep) -> dict[str, str]:
    """Where the two grids end, the largest sample the pools allow, and the grouping of the corrected curve."""
    return {"largest_m": f"{int(sweep.uncorrected_m.max()):,}", "largest_allowed": f"{sweep.largest_m:,}",
            "grid_cap": f"{GRID_CAP:,}", "fig6_max_m": f"{sweep.corrected_m.max() if len(sweep.corrected_m) else 0}",
            "fig6_tolerance": fmt_pct(sweep.tolerance, 0)}


def cost_table(study: SampledStudy, cost: Cost) -> pd.DataFrame:
    """Seconds of each step: the two evaluations, the corrections and training X."""
    groups = fmt_count(len(study.bin_sizes), "catalogue group", "catalogue groups")
    return pd.DataFrame([
        {"step": f"exact ranks of {cost.n_exact:,} held-out items among all non-training items",
         "seconds": cost.exact_seconds},
        {"step": f"sampled ranks among {study.m} negatives (draw, score, rank)", "seconds": cost.sampled_seconds},
        {"step": f"corrections for {groups} × {len(METRICS)} metrics × {len(METHODS) - 1} estimators "
                 "(once per dataset and m)", "seconds": study.correction_seconds},
        {"step": "training X (iALS) once, for scale", "seconds": cost.fit_seconds},
    ])


def cost_numbers(study: SampledStudy, cost: Cost) -> dict[str, str]:
    """The machine, how many times as long the exact evaluation took as the sampled one and against how many
    candidates each compares, and the one real sample's Recall@10 of X next to the simulated repetitions'."""
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    processor, cores, threads = cost.machine
    return {"machine": f"{processor}, {cores} logical cores, BLAS threads {threads}",
            "time_ratio": f"{cost.exact_seconds / cost.sampled_seconds:.1f}",
            "n_compared_exact": f"{cost.n_compared_exact:,}", "n_compared_sampled": f"{cost.n_compared_sampled:,}",
            "t_corrections": fmt_seconds(study.correction_seconds),
            "one_sample_recall": f"{100 * cost.one_sample_recall:.2f}",
            "simulated_recall": f"{100 * simulated.mean():.2f} ± {100 * simulated.std(ddof=1):.2f}"}


# ---------------------------------------------------------------- the 1R bridge

UNCORRECTED = f"1R TI-NN({BRIDGE_SIZE}), uncorrected"
EXACT = "exact 1R TI-AN"
RATIO = "uncorrected / exact TI-AN"
#: how the bridge's tables name each estimate
BRIDGE_LABELS = dict(zip(BRIDGE_METHODS, (UNCORRECTED, *BRIDGE_METHODS[1:]), strict=True))


def _not_formed() -> pd.DataFrame:
    return pd.DataFrame({"": [f"no user has {BRIDGE_SIZE} non-relevant candidates on this dataset"]}, index=[""])


def ratios(bridge: Bridge) -> dict[str, float]:
    """How many times its exact TI-AN precision each system's uncorrected 1R precision is (NaN where the exact
    precision is zero)."""
    exact, uncorrected = bridge.values["TI-AN"], bridge.values["sampled"]
    return {name: uncorrected[name] / exact[name] if exact[name] > 0 else np.nan for name in bridge.names}


def bridge_table(bridge: Bridge) -> pd.DataFrame:
    """One row per estimate, one column per system of the papers' set: one draw of 1R TI-NN(100) P@10,
    uncorrected and corrected (± sd over draws), then the exact 1R TI-AN and 1R AI-AN precision, and how many
    times the exact TI-AN precision the uncorrected one is."""
    if not bridge.formed:
        return _not_formed()
    names = list(bridge.names)
    rows = {BRIDGE_LABELS[method]: [fmt_pm(bridge.values[method][name], bridge.sds[method][name], 4) for name in names]
            for method in BRIDGE_METHODS}
    rows[EXACT] = [fmt_number(bridge.values["TI-AN"][name], 4) for name in names]
    rows["1R AI-AN"] = [fmt_number(bridge.values["AI-AN"][name], 4) for name in names]
    rows[RATIO] = [fmt_number(ratio, 1) for ratio in ratios(bridge).values()]
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)


def bridge_orders(bridge: Bridge) -> pd.DataFrame:
    """The order of the systems by each estimate's means, and how many pairs it orders as the exact TI-AN
    precision or against it beyond noise (:func:`~recbias.chapters.c06_sampled_metrics.study.bridge.pair_counts`)."""
    if not bridge.formed:
        return _not_formed()
    columns = {"kept": "pairs ordered as exact", "reversed": "pairs reversed", "within noise": "pairs within noise"}
    counts = pair_counts(bridge).set_index("estimator").rename(columns=columns)
    rows = [{"estimate": EXACT, "order of the means": order_text(bridge.values["TI-AN"]),
             **dict.fromkeys(columns.values(), "")}]
    rows += [{"estimate": BRIDGE_LABELS[method], "order of the means": order_text(bridge.values[method]),
              **counts.loc[method].to_dict()} for method in BRIDGE_METHODS]
    return pd.DataFrame(rows)


def bridge_numbers(bridge: Bridge) -> dict[str, str]:
    """The runs and their pools, the span of the ratio over the personalised systems and Popularity's ratio
    (a dash where there is none), and with a simulated world the share of sampled non-relevant items truly
    relevant, against that of the whole matrix ("unknown" on real data)."""
    by_system = ratios(bridge) if bridge.formed else {}
    personalised = [ratio for name, ratio in by_system.items() if name in PAPERS_PERSONALISED and np.isfinite(ratio)]
    popularity = by_system.get("Popularity", np.nan)
    sizes = bridge.sizes if bridge.formed else np.zeros(1, np.int64)
    short = bridge.runs.report.shortage_runs if bridge.runs.report else 0
    return {
        "bridge_runs": f"{bridge.runs.n_runs:,}", "bridge_short": f"{short:,}",
        "bridge_pool_min": f"{sizes.min():,}", "bridge_pool_max": f"{sizes.max():,}",
        "bridge_ratio_span": fmt_span(min(personalised), max(personalised), "{:.1f}") if personalised else "—",
        "bridge_ratio_popularity": f"{popularity:.1f}" if np.isfinite(popularity) else "—",
        **{name: "unknown" if np.isnan(share) else fmt_pct(share)
           for name, share in (("truth_share", bridge.truth_share), ("pool_share", bridge.pool_share))},
    }

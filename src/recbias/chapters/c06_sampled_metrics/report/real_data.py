"""The real-data study's tables (its settings, Tables 3 and 4, ours and the paper's, the tests beyond noise, the
sweep over the sample size and the cost) and the numbers its prose quotes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.claims import key, paper
from recbias.chapters.c06_sampled_metrics.study.bridge import BRIDGE_SIZE, PAPERS_SET
from recbias.chapters.c06_sampled_metrics.study.cost import Cost, one_sample_z
from recbias.chapters.c06_sampled_metrics.study.noise import comparisons, repetition_rights, reversal_tests
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    METHODS, METRICS, PAIRS, PAPER_PROTOCOL, SYSTEMS, TOP_HEAVY, SampledStudy, auc_expected_gaps, auc_gaps,
    grouping_error,
)
from recbias.chapters.c06_sampled_metrics.study.sweep import GRID_CAP, MSweep, consistent_from
from recbias.chapters.c06_sampled_metrics.study.toy import TOY_M
from recbias.recommenders.factory import PRESETS
from recbias.text import fmt_count, fmt_number, fmt_p, fmt_pct, fmt_pm, fmt_seconds, fmt_signed, order_text

#: the estimators of the paper's Table 3 (it has no BV 0.001)
TABLE3_METHODS = METHODS[:-1]

#: the estimators whose order of the systems the orders table shows, after the exact metric
ORDER_METHODS = ("exact", "sampled", "CLS", "BV 0.1")

#: the paper's repetitions of its toy example (Table 2), and the relevance threshold of IRJ 2017 on MovieLens
PAPER_TOY_REPETITIONS, IRJ_THRESHOLD = 1000, 5.0

KR_SET = "Krichene and Rendle's own (top-N learners)"

#: the three experiments of the page, as the settings table names them
EXPERIMENTS = ("toy example (Krichene and Rendle, Table 2)", "real data (Krichene and Rendle, Sec. 6)",
               "1R bridge (IRJ 2017, Sec. 3.3)")


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


def settings_table(study: SampledStudy, toy_repetitions: int, threshold: float) -> pd.DataFrame:
    """One row per (experiment, setting) of the three experiments the page repeats: the paper's value, this
    build's, and what sets this build's value (a dash where nothing can change it)."""
    toy, kr, irj = EXPERIMENTS
    rows = [
        (toy, "sampling", f"m = {TOY_M}, with replacement, {PAPER_TOY_REPETITIONS:,} repetitions",
         f"m = {TOY_M}, with replacement, {toy_repetitions:,} repetitions", "the parameter toy_repetitions"),
        (kr, "data", "MovieLens 1M, every rating an event", f"{study.dataset}, every rating an event",
         "the build's dataset (the paper's: ml-1m)"),
        (kr, "held-out item", PAPER_PROTOCOL["split"], study.split, "the dataset's timestamps"),
        (kr, "pool", "items not in the user's training events", "the same", "—"),
        (kr, "systems", "X (iALS), Y and Z (item-kNN)", "the same settings, the package's code", "—"),
        (kr, "sampled items m", f"{PAPER_PROTOCOL['m']}", f"{study.m} (asked: {study.m_requested})",
         "the parameter m, at most the smallest pool"),
        (kr, "sampling law", "not stated", study.law, "the parameter with_replacement"),
        (kr, "repetitions", f"{PAPER_PROTOCOL['repetitions']}", f"{study.repetitions:,}", "the parameter repetitions"),
        (kr, "ties in scores", "not stated", "a shared random order per user", "this book's choice"),
        (kr, "n of the corrections", "not stated (n differs per user)",
         f"one per group within {fmt_pct(study.n_tolerance, 0)}, at its median", "the parameter n_tolerance"),
        (irj, "splits", "5 coin-flip 80/20 splits", "the first of them", "one draw; its spread computed exactly"),
        (irj, "1R target set", "TI-NN, |T_u| = 100 (99 sampled)",
         f"TI-NN, |T_u| = {BRIDGE_SIZE + 1} ({BRIDGE_SIZE} sampled)", f"m = {BRIDGE_SIZE}, as in Krichene and Rendle"),
        (irj, "relevant", f"a test rating of {IRJ_THRESHOLD:g} (MovieLens)", f"a test rating ≥ {threshold:g}",
         "the dataset's positive threshold"),
        (irj, "systems", "Random, Popularity, pLSA, rating-prediction MF and user-kNN", ", ".join(PAPERS_SET), "—"),
    ]
    table = pd.DataFrame(rows, columns=["experiment", "setting", "paper's value", "this build", "set by"])
    return table.set_index(["experiment", "setting"]).rename_axis([None, None])


def study_numbers(study: SampledStudy) -> dict[str, str]:
    """The figures the prose quotes about the split, the pools, the sample and the grouping."""
    sizes = study.sizes
    error, distinct = grouping_error(study)
    return {
        "split": study.split, "n_targets": f"{len(sizes):,}", "n_dropped": f"{int((~study.keep).sum()):,}",
        "n_min": f"{sizes.min():,}", "n_max": f"{sizes.max():,}", "n_median": f"{int(np.median(sizes)):,}",
        "m_used": f"{study.m}", "m_requested": f"{study.m_requested}", "sampling_law": study.law,
        "repetitions": f"{study.repetitions:,}", "n_tolerance": fmt_pct(study.n_tolerance, 0),
        "n_bins": fmt_count(len(study.bin_sizes), "group", "groups"), "n_over_m": f"{np.median(sizes) / study.m:,.0f}",
        "grouping_error": f"{100 * error:.3f}", "n_distinct": f"{distinct:,}",
    }


def _table3(names: tuple[str, ...], exact: Callable[[str, int], float],
            estimate: Callable[[str, str, int], tuple[float, float]]) -> pd.DataFrame:
    rows = []
    for metric in METRICS:
        for k, short in enumerate(names):
            rows.append({"metric": metric, "recommender": short, "exact": fmt_number(exact(metric, k), 2),
                         **{method: fmt_pm(*estimate(method, metric, k), digits=2) for method in TABLE3_METHODS}})
    return pd.DataFrame(rows).set_index(["metric", "recommender"]).rename_axis([None, None])


def table3(study: SampledStudy) -> pd.DataFrame:
    """Our Table 3: exact metrics and each estimator's mean ± sd over the repetitions, in percent."""
    def estimate(method: str, metric: str, k: int) -> tuple[float, float]:
        values = 100 * study.estimates[(method, metric)][:, k]
        return values.mean(), values.std(ddof=1)

    return _table3(study.names, lambda metric, k: 100 * study.exact[metric][k], estimate)


def paper_table3() -> pd.DataFrame:
    """The published Table 3 (ML-1M) in the same layout."""
    def estimate(method: str, metric: str, k: int) -> tuple[float, float]:
        return tuple(paper()[key(3, metric, recommender="XYZ"[k], estimator=method, statistic=s)]
                     for s in ("mean", "sd"))

    return _table3(tuple(SYSTEMS), lambda metric, k: paper()[key(3, metric, recommender="XYZ"[k], estimator="exact")],
                   estimate)


def _paper_means(metric: str, estimator: str) -> dict[str, float]:
    return {s: paper()[key(3, metric, recommender=s, estimator=estimator,
                           statistic="" if estimator == "exact" else "mean")] for s in SYSTEMS}


def orders_table(study: SampledStudy) -> pd.DataFrame:
    """Order of the systems by the exact metric and by three estimators (means over the repetitions), one row
    per metric on this build and in the paper."""
    rows = []
    for metric in METRICS:
        ours = {method: study.exact[metric] if method == "exact" else study.mean_estimates(method, metric)
                for method in ORDER_METHODS}
        rows.append({"source": "ours", "metric": metric,
                     **{method: order_text(dict(zip(study.names, values))) for method, values in ours.items()}})
    for metric in METRICS:
        rows.append({"source": "paper (ML-1M)", "metric": metric,
                     **{method: order_text(_paper_means(metric, method)) for method in ORDER_METHODS}})
    return pd.DataFrame(rows).set_index(["source", "metric"]).rename_axis([None, None])


def auc_numbers(study: SampledStudy) -> dict[str, str]:
    """The largest simulated gap of sampled AUC, the gap in expectation from each user's own law, and the gap
    of Z in the paper's Table 3 (percentage points)."""
    gaps, z = auc_gaps(study)
    widest = int(np.argmax(np.abs(gaps)))
    expected = float(np.abs(auc_expected_gaps(study)).max())
    published = paper()[key(3, "AUC", recommender="Z", estimator="sampled", statistic="mean")]
    return {"auc_gap": f"{abs(gaps[widest]):.3f}", "auc_gap_name": study.names[widest], "auc_gap_z": fmt_signed(z[widest]),
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
    candidates each compares, and the one real sample's Recall@10 of X against the simulated repetitions."""
    simulated = study.estimates[("sampled", "Recall@10")][:, 0]
    return {"machine": cost.machine, "time_ratio": f"{cost.exact_seconds / cost.sampled_seconds:.1f}",
            "n_compared_exact": f"{cost.n_compared_exact:,}", "n_compared_sampled": f"{cost.n_compared_sampled:,}",
            "t_corrections": fmt_seconds(study.correction_seconds),
            "one_sample_recall": f"{100 * cost.one_sample_recall:.2f}",
            "simulated_recall": f"{100 * simulated.mean():.2f} ± {100 * simulated.std(ddof=1):.2f}",
            "z_one_sample": fmt_signed(one_sample_z(study, cost))}

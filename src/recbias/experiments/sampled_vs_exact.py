"""Chapter 6 ("Sampled metrics and their corrections"): sampled against exact evaluation on real data.

The experiment of Krichene and Rendle (KDD 2020, Sec. 6) on the build's dataset: a
leave-one-out split (the most recent rating, or one at random without timestamps), the
systems X (iALS), Y and Z (item-kNN), the exact rank of every held-out item among its pool
(:func:`recbias.evaluate.pool_ranks`), sampled ranks from ``repetitions`` samples shared by
the three systems (:func:`recbias.sampled.simulate_common_sampled_ranks`) and every estimator
(:func:`sampled_study`); then the paper's Tables 3 and 4, the orders of the systems, and the
sentences that read them.  The sweep over ``m`` is :mod:`recbias.experiments.sampled_sweep`.

A corrected sampled metric of a fitted system on any split, the call chapter 8 uses, is
:func:`recbias.sampled.corrected_sampled_metric`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias import sampled, splits
from recbias.evaluate import PoolRanks, pool_ranks
from recbias.evaluate.orderings import pair_agreement
from recbias.evaluate.experiment import fit_systems
from recbias.experiments.sampled_published import paper_rows, paper_value
from recbias.ratings import Ratings
from recbias.recommenders import Recommender, make
from recbias.recommenders.factory import PRESETS
from recbias.text import fmt_count, fmt_number, fmt_pct, fmt_pm, fmt_seconds, fmt_signed, order_text


SOURCE = "KDD 2020 Sec. 4-6, Tables 3-4"


#: the paper's three systems, anonymised as X, Y and Z (its appendix), as presets of recbias.recommenders.make
SYSTEMS = {"X": "ials-x", "Y": "item-knn-y", "Z": "item-knn-z"}


METRICS = ("Recall@10", "nDCG@10", "AP", "AUC")


METHODS = ("sampled", "rank estimate", "CLS", "BV 1", "BV 0.1", "BV 0.01", "BV 0.001")


TABLE3_METHODS = METHODS[:-1]


PAIRS = ((0, 1), (0, 2), (1, 2))


#: fewer pools than this holding m items, without replacement: m shrinks to the smallest pool
MIN_FULL_POOLS = 10


@dataclass(frozen=True, eq=False)
class SampledStudy:
    """Exact and sampled evaluation of X, Y and Z on one leave-one-out split.

    Attributes:
        dataset: name of the ratings.
        split_label: how the held-out rating was chosen.
        names: ``("X", "Y", "Z")``; ``labels`` maps them to the systems' display names.
        models: the fitted systems, in the order of ``names``.
        train, test: the split.
        pool: exact ranks of every held-out item (:func:`recbias.evaluate.pool_ranks`, with patterns).
        keep: the targets whose pool holds ``m`` items (all of them with replacement).
        m, m_requested: the sample size used, and the one asked for.
        replace: sampling with replacement (binomial law) or without (hypergeometric).
        repetitions: number of shared samples drawn.
        n_tolerance: relative width of the catalogue-size groups of the corrections.
        bins, bin_sizes: the group of every kept target and the ``n`` of every group.
        tables: ``(method, metric) ->`` correction table, one row per group.
        exact: ``metric ->`` exact metric of each system.
        estimates: ``(method, metric) ->`` ``(repetitions, 3)`` estimates.
        correction_seconds: time to compute ``tables``.
    """

    dataset: str
    split_label: str
    names: tuple[str, ...]
    labels: dict[str, str]
    models: list[Recommender]
    train: Ratings
    test: Ratings
    pool: PoolRanks
    keep: np.ndarray
    m: int
    m_requested: int
    replace: bool
    repetitions: int
    n_tolerance: float
    bins: np.ndarray
    bin_sizes: np.ndarray
    tables: dict[tuple[str, str], np.ndarray]
    exact: dict[str, np.ndarray]
    estimates: dict[tuple[str, str], np.ndarray]
    correction_seconds: float

    @property
    def ranks(self) -> np.ndarray:
        """``(targets, 3)`` exact ranks of the kept targets."""
        return self.pool.ranks[self.keep]

    @property
    def sizes(self) -> np.ndarray:
        """``n`` of each kept target."""
        return self.pool.sizes[self.keep]

    def mean_estimates(self, method: str, metric: str) -> np.ndarray:
        """Mean of each system's estimates over the repetitions."""
        return self.estimates[(method, metric)].mean(axis=0)


def leave_one_out(ratings: Ratings, seed: int) -> tuple[Ratings, Ratings, str]:
    """The paper's split: each user's most recent rating held out, or one at random without timestamps."""
    if ratings.timestamps is not None:
        return *splits.leave_last_out(ratings), "leave-last-out: each user's most recent rating is held out"
    return (*splits.leave_one_random_out(ratings, seed=seed),
            "one rating per user held out at random (this dataset has no timestamps)")


def sampled_study(
    ratings: Ratings, *, seed: int = 0, m: int = 100, repetitions: int = 100, with_replacement: bool = False,
    n_tolerance: float = 0.05,
) -> SampledStudy:
    """Exact ranks, ``repetitions`` shared samples of ``m`` pool items, and every estimator (Tables 3-4).

    Without replacement, when fewer than :data:`MIN_FULL_POOLS` pools hold ``m`` items, ``m``
    becomes the size of the smallest pool (said on the page); otherwise the targets whose pool is
    smaller than ``m`` are left out.  Samples are drawn with ``numpy.random.default_rng(seed + 1)``.
    """
    if m < 1 or repetitions < 2 or not n_tolerance >= 0:
        raise ValueError(f"need m >= 1, repetitions >= 2 and n_tolerance >= 0, got {m}, {repetitions}, {n_tolerance}")
    train, test, split_label = leave_one_out(ratings, seed)
    if test.n_ratings == 0:
        raise ValueError(f"{ratings.name}: no user has two ratings, so nothing can be held out")
    labels = {short: make(preset).name for short, preset in SYSTEMS.items()}
    fitted = fit_systems({labels[s]: p for s, p in SYSTEMS.items()}, train, key_extra=(ratings.name, split_label), seed=seed)
    models = list(fitted.values())
    pool = pool_ranks(models, train, test, patterns=True, seed=seed)
    used = m
    if not with_replacement and np.count_nonzero(pool.sizes - 1 >= m) < MIN_FULL_POOLS:
        used = int(pool.sizes.min()) - 1
    keep = np.ones(pool.n_targets, dtype=bool) if with_replacement else pool.sizes - 1 >= used
    ranks, sizes = pool.ranks[keep], pool.sizes[keep]
    draws = sampled.simulate_common_sampled_ranks(pool.patterns[keep], used, with_replacement, repetitions,
                                                  np.random.default_rng(seed + 1))
    bins, bin_sizes = sampled.catalogue_bins(sizes, n_tolerance)
    start = time.perf_counter()
    tables = sampled.correction_tables(METHODS, METRICS, bin_sizes, used, with_replacement)
    seconds = time.perf_counter() - start
    exact = {metric: np.array([sampled.rank_metric(metric).values(ranks[:, k], sizes).mean() for k in range(3)])
             for metric in METRICS}
    estimates = {
        (method, metric): np.column_stack([tables[(method, metric)][bins[None, :], draws[:, :, k] - 1].mean(axis=1)
                                           for k in range(3)])
        for method in METHODS for metric in METRICS
    }
    return SampledStudy(ratings.name, split_label, tuple(SYSTEMS), labels, models, train, test, pool, keep, used, m,
                        with_replacement, repetitions, n_tolerance, bins, bin_sizes, tables, exact, estimates, seconds)


def systems_table() -> pd.DataFrame:
    """X, Y and Z with their algorithm and settings (the paper's appendix), read from the presets."""
    x, y, z = (PRESETS[SYSTEMS[s]][2] for s in "XYZ")

    def neighbours(params: dict) -> str:
        return "no neighbourhood limit" if params["k_prime"] is None else f"{params['k_prime']} neighbours per item"

    return pd.DataFrame([
        {"system": "X", "algorithm": "implicit alternating least squares",
         "settings": f"{x['factors']} factors, λ = {x['regularization']:g}, α = {x['alpha']:g}"},
        {"system": "Y", "algorithm": "item-based kNN, cosine similarity to the power q",
         "settings": f"q = {y['q']:g}, {neighbours(y)}"},
        {"system": "Z", "algorithm": "item-based kNN, cosine similarity to the power q",
         "settings": f"q = {z['q']:g}, {neighbours(z)}"},
    ])


def study_numbers(study: SampledStudy) -> dict[str, str]:
    """The figures the prose quotes about the split, the pools, the sample and the grouping."""
    sizes, dropped = study.sizes, int((~study.keep).sum())
    return {
        "split_label": study.split_label,
        "n_targets": f"{len(sizes):,}",
        "n_min": f"{sizes.min():,}",
        "n_max": f"{sizes.max():,}",
        "n_median": f"{int(np.median(sizes)):,}",
        "dropped_note": "" if dropped == 0 else
        f" ({fmt_count(dropped, 'user whose pool is', 'users whose pools are')} smaller than m, left out)",
        "m_used": f"{study.m}",
        "m_note": "" if study.m == study.m_requested else
        f" (the size of the smallest pool; m = {study.m_requested} was asked for, more than almost every pool holds)",
        "sampling_law": "binomial (with replacement)" if study.replace else "hypergeometric (without replacement)",
        "repetitions": f"{study.repetitions:,}",
        "n_tolerance": fmt_pct(study.n_tolerance, 0),
        "n_bins": fmt_count(len(study.bin_sizes), "group", "groups"),
        "t_corrections": fmt_seconds(study.correction_seconds),
        "n_over_m": f"{np.median(sizes) / study.m:,.0f}",
    }


def grouping_check(study: SampledStudy) -> dict[str, str]:
    """Largest change of expected Recall@10 and AP under the rank estimate when every distinct ``n``
    gets its own correction instead of its group's (percentage points)."""
    exact_bins, exact_sizes = sampled.catalogue_bins(study.sizes, 0.0)
    largest = 0.0
    for metric in ("Recall@10", "AP"):
        own = sampled.correction_tables(["rank estimate"], [metric], exact_sizes, study.m, study.replace)
        for k in range(3):
            means = [sampled.estimator_moments(table[bins], study.ranks[:, k], study.sizes, study.replace).average
                     for table, bins in ((own[("rank estimate", metric)], exact_bins),
                                         (study.tables[("rank estimate", metric)], study.bins))]
            largest = max(largest, abs(means[0] - means[1]))
    return {"grouping_error": f"{100 * largest:.3f}", "n_distinct": f"{len(exact_sizes):,}"}


def rank_summary(study: SampledStudy) -> pd.DataFrame:
    """Users whose held-out item reaches the top 10 and 100 or lands in the bottom half, and the median rank."""
    ranks, sizes = study.ranks, study.sizes
    return pd.DataFrame([
        {"recommender": study.labels[s], "top 10": int((ranks[:, k] <= 10).sum()),
         "top 100": int((ranks[:, k] <= 100).sum()), "bottom half": int((ranks[:, k] > sizes / 2).sum()),
         "median rank": float(np.median(ranks[:, k]))}
        for k, s in enumerate(study.names)
    ])


def _table3(names: Sequence[str], exact: Callable[[str, int], float],
            estimate: Callable[[str, str, int], tuple[float, float]]) -> pd.DataFrame:
    rows = []
    for metric in METRICS:
        for k, short in enumerate(names):
            row = {"metric": metric, "recommender": short, "exact": fmt_number(exact(metric, k), 2)}
            for method in TABLE3_METHODS:
                row[method] = fmt_pm(*estimate(method, metric, k), digits=2)
            rows.append(row)
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
        return tuple(paper_value(3, recommender="XYZ"[k], metric=metric, estimator=method, statistic=s)
                     for s in ("mean", "sd"))

    return _table3(tuple(SYSTEMS), lambda metric, k: paper_value(3, recommender="XYZ"[k], metric=metric,
                                                                    estimator="exact"), estimate)


def _paper_means(metric: str, estimator: str) -> dict[str, float]:
    statistic = "value" if estimator == "exact" else "mean"
    return {s: paper_value(3, recommender=s, metric=metric, estimator=estimator, statistic=statistic) for s in SYSTEMS}


def orders_table(study: SampledStudy) -> pd.DataFrame:
    """Order of the systems by the exact metric and by three estimators (means over the repetitions), one row
    per metric on this build and in the paper."""
    methods = ("exact", "sampled", "CLS", "BV 0.1")
    rows = []
    for metric in METRICS:
        ours = {method: study.exact[metric] if method == "exact" else study.mean_estimates(method, metric)
                for method in methods}
        rows.append({"source": "ours", "metric": metric,
                     **{method: order_text(dict(zip(study.names, values))) for method, values in ours.items()}})
    for metric in METRICS:
        rows.append({"source": "paper (ML-1M)", "metric": metric,
                     **{method: order_text(_paper_means(metric, method)) for method in methods}})
    return pd.DataFrame(rows).set_index(["source", "metric"]).rename_axis([None, None])


def reversals(study: SampledStudy, method: str = "sampled") -> list[str]:
    """Pairs whose exact order an estimator reverses in expectation, e.g. ``"X and Y on AP"``."""
    out = []
    for metric in METRICS:
        exact, means = study.exact[metric], study.mean_estimates(method, metric)
        out += [f"{study.names[a]} and {study.names[b]} on {metric}" for a, b in PAIRS
                if np.sign(exact[a] - exact[b]) * np.sign(means[a] - means[b]) < 0]
    return out


def reversal_text(study: SampledStudy) -> str:
    found = reversals(study)
    if found:
        return (f"**On this build**, the uncorrected sampled metric reverses the exact order of "
                f"{fmt_count(len(found), 'pair', 'pairs')} of recommenders in the means over the repetitions: "
                f"{'; '.join(found)}.")
    return ("**On this build**, the uncorrected sampled metric keeps the exact order of every pair of recommenders in "
            "the means over the repetitions. Its values are still far from the exact ones, but the three recommenders differ enough here "
            "that the bias does not flip them.")


def right_counts(study: SampledStudy) -> pd.DataFrame:
    """Per estimator, the comparisons (pairs x metrics) it orders right in expectation: top-heavy and AUC."""
    rows = []
    for method in METHODS:
        right = {metric: sum(np.sign(study.mean_estimates(method, metric)[a] - study.mean_estimates(method, metric)[b])
                             == np.sign(study.exact[metric][a] - study.exact[metric][b]) for a, b in PAIRS)
                 for metric in METRICS}
        rows.append({"estimator": method, "top-heavy comparisons right (of 9)": int(sum(right[m] for m in METRICS[:3])),
                     "AUC comparisons right (of 3)": int(right["AUC"])})
    return pd.DataFrame(rows)


def auc_gaps(study: SampledStudy) -> tuple[np.ndarray, np.ndarray]:
    """Mean uncorrected sampled AUC minus exact AUC per system (percentage points), and its z-score."""
    values = 100 * study.estimates[("sampled", "AUC")]
    gaps = values.mean(axis=0) - 100 * study.exact["AUC"]
    return gaps, gaps / (values.std(axis=0, ddof=1) / np.sqrt(study.repetitions))


def auc_expected_gaps(study: SampledStudy) -> np.ndarray:
    """Exact expectation of the uncorrected sampled AUC minus exact AUC per system (AUC units), each user
    under its own law (Eq. sm-law): zero up to rounding, since AUC is linear in the rank."""
    vector = sampled.metric_vector("AUC", study.m + 1)
    return np.array([sampled.estimator_moments(vector, study.ranks[:, k], study.sizes, study.replace).average
                     - study.exact["AUC"][k] for k in range(len(study.names))])


def auc_numbers(study: SampledStudy) -> dict[str, str]:
    """The largest simulated gap of sampled AUC, and the gap in expectation, from each user's own law."""
    gaps, z = auc_gaps(study)
    widest = int(np.argmax(np.abs(gaps)))
    expected = float(np.abs(auc_expected_gaps(study)).max())
    return {"auc_gap": f"{abs(gaps[widest]):.3f}", "auc_gap_name": study.names[widest], "auc_gap_z": fmt_signed(z[widest]),
            "auc_expected_gap": f"{100 * expected:.0e}" if expected > 0 else "0"}


def auc_gap_note(study: SampledStudy) -> str:
    """What a simulated gap of more than three standard errors means, when there is one."""
    if np.all(np.abs(auc_gaps(study)[1]) < 3):
        return ""
    return ("The simulated gap exceeds three standard errors. Since the expectation has no gap, it is an excursion of "
            f"the {study.repetitions} repetitions drawn for this page, of the kind that a comparison of three "
            "recommenders shows now and then, and more repetitions shrink it. This is why the scorecard judges the "
            "unbiasedness of sampled AUC on the exact expectation; the simulation only illustrates it.")


def table4(study: SampledStudy) -> pd.DataFrame:
    """Our Table 4: of the repetitions, how many order each pair as the exact metric does (NaN for exact ties)."""
    rows = []
    for a, b in PAIRS:
        for metric in METRICS:
            exact = study.exact[metric]
            rows.append({"pair": f"{study.names[a]} vs {study.names[b]}", "metric": metric, **{
                method: float(pair_agreement(study.estimates[(method, metric)], exact, a, b)) if exact[a] != exact[b]
                else np.nan for method in METHODS}})
    return pd.DataFrame(rows)


def paper_table4() -> pd.DataFrame:
    """The published Table 4 (ML-1M); cells the text does not give are NaN."""
    rows = []
    for a, b in PAIRS:
        pair = f"{'XYZ'[a]} vs {'XYZ'[b]}"
        for metric in METRICS:
            counts = paper_rows(4, pair=pair, metric=metric).set_index("estimator")["value"]
            rows.append({"pair": pair, "metric": metric, **{method: counts.get(method, np.nan) for method in METHODS}})
    return pd.DataFrame(rows)


def table4_text(study: SampledStudy, ours: pd.DataFrame) -> str:
    """Which estimator has the best worst case on the top-heavy metrics, and how AUC fares."""
    reps = study.repetitions
    top_heavy = ours["metric"] != "AUC"
    worst = {method: int(np.nanmin(ours.loc[top_heavy, method])) for method in METHODS}
    auc_worst = int(np.nanmin(ours.loc[~top_heavy, "sampled"]))
    if worst["sampled"] == reps:
        text = (f"**On this build**, the uncorrected sampled metric orders every pair as the exact metric does in all "
                f"{reps} repetitions, on every top-heavy metric. The corrections can only lose here: their lowest "
                "counts are " + ", ".join(f"{worst[method]} ({method})" for method in METHODS[1:]) + ".")
    else:
        best = max(METHODS[1:], key=lambda method: (worst[method], np.nansum(ours.loc[top_heavy, method])))
        how_often = "in none of the" if worst["sampled"] == 0 else f"in {worst['sampled']} of the"
        text = (f"**On this build**, on a top-heavy metric, the uncorrected sampled metric orders its worst pair "
                f"correctly {how_often} {reps} repetitions. The estimator with the best worst case is *{best}*: "
                f"at least {worst[best]} of {reps} for every pair and top-heavy metric.")
    return text + (f" AUC, uncorrected, orders every pair correctly in all {reps} repetitions." if auc_worst == reps
                   else f" AUC, uncorrected, orders every pair correctly in at least {auc_worst} of {reps} repetitions.")

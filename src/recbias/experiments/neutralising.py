"""Chapter 5 ("Designs that neutralise popularity"): P1R, U1R, UAR and today's alternatives.

Bellogín, Castells and Cantador (IRJ 2017, Sections 6 and 7; thesis Section 4.6)
neutralise the popularity bias with two designs: percentiles (P1R, non-relevant
items drawn from the popularity percentile of the held-out item, the ``m``
percentile values averaged) and uniform test item profiles (U1R, UAR: the same
number ``eta`` of test ratings for each of the ``|T|`` most popular items, with
``C = T``).  :func:`neutralising_study` measures the five systems of the papers
under 1R, U1R, P1R, AR (TI-NN with ``|N_u|`` matched to UAR's random precision),
UAR, AI-UAR and "1R -10% head" (their Fig. 8), and, on the random split, bpref,
infAP and stratified recall (their Fig. 9) with the later IPS and SNIPS estimators
(Yang et al. 2018) over a sweep of their parameter.  The other functions turn the
study into the page's tables, figures, sentences and scorecard claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

from recbias import judgments, splits
from recbias.evaluate import Candidates, compare, rank_positions
from recbias.experiments.runner import PAPER_SYSTEMS, Experiment, fit_systems, make_folds, run_experiment
from recbias.metrics._view import RankedView
from recbias.ratings import Ratings
from recbias.designs import build_runs
from recbias.text import fmt_number, fmt_pct

#: the section of the papers this chapter reproduces
SOURCE = "IRJ 2017 Sec. 6-7; thesis Sec. 4.6"
#: cut-off of every top-n metric, as in the papers
N = 10
PERSONALISED = ("pLSA", "MF", "user-kNN")
#: the designs of the papers' Fig. 8, in their order
FIG8 = ("1R", "U1R", "P1R", "AR", "UAR", "AI-UAR", "1R -head")


@dataclass(frozen=True)
class UniformPlan:
    """``T`` and ``eta`` of the uniform split of a dataset (IRJ 2017 Sec. 6.2).

    Attributes:
        requested: the test ratio asked for.
        used: the test ratio the split was drawn with: ``requested``, or the largest feasible
            ratio (two decimals, rounded down) when the popularity curve cannot hold it.
        min_train_ratio: ``eps``.
        size, eta, achieved: ``|T|``, ``eta`` and ``|T| eta / |R|`` under the paper's rule.
        floor_size, floor_eta: the same under the stricter floor rule (0 when it has no split at ``used``).
        n_items: items with at least one rating.
    """

    requested: float
    used: float
    min_train_ratio: float
    size: int
    eta: int
    achieved: float
    floor_size: int
    floor_eta: int
    n_items: int


def uniform_plan(ratings: Ratings, test_ratio: float = 0.2, min_train_ratio: float = 0.2) -> UniformPlan:
    """The uniform split's ``T`` and ``eta`` under both rules, lowering ``sigma`` only if it is infeasible."""
    counts = ratings.item_counts()
    used = float(test_ratio)
    largest = splits.largest_uniform_ratio(counts, min_train_ratio)
    if used > largest:
        used = float(np.floor(100 * largest) / 100)
    target, eta = splits.uniform_target(counts, used, min_train_ratio)
    try:
        floor_target, floor_eta = splits.uniform_target(counts, used, min_train_ratio, rule="floor")
        floor_size = len(floor_target)
    except ValueError:  # the floor rule holds less than the paper's: no split at this ratio
        floor_size = floor_eta = 0
    return UniformPlan(float(test_ratio), used, float(min_train_ratio), len(target), eta,
                       len(target) * eta / ratings.n_ratings, floor_size, floor_eta, int(np.count_nonzero(counts)))


def plan_table(plans: Sequence[tuple[str, UniformPlan]]) -> pd.DataFrame:
    """|T|, eta and the achieved test ratio of each dataset, both rules."""
    return pd.DataFrame([{
        "dataset": name, "rated items": p.n_items, "σ asked": p.requested, "σ used": p.used, "ε": p.min_train_ratio,
        "|T|": p.size, "η": p.eta, "achieved |T|η/|R|": p.achieved,
        "|T| (floor rule)": p.floor_size, "η (floor rule)": p.floor_eta,
    } for name, p in plans])


def split_profiles(ratings: Ratings, plan: UniformPlan, percentiles: int) -> pd.DataFrame:
    """The papers' Fig. 6 data: per popularity rank, ``r(i)``, the expected test ratings of the
    random split (``sigma r(i)``), those of the uniform split (``eta`` in ``T``) and the P1R percentile."""
    counts = np.sort(ratings.item_counts())[::-1]
    counts = counts[counts > 0]
    rank = np.arange(1, len(counts) + 1)
    return pd.DataFrame({
        "rank": rank, "ratings": counts, "random test": plan.requested * counts,
        "uniform test": np.where(rank <= plan.size, plan.eta, 0),
        "percentile": (rank - 1) * percentiles // len(counts),
    })


def positive_ratio_curve(ratings: Ratings, segments: int = 100) -> pd.DataFrame:
    """``|PR(i)| / |R(i)|`` by popularity rank, averaged over ``segments`` equal slices of the
    rated items (the papers' Fig. 7; :func:`recbias.judgments.positive_ratio_by_popularity`),
    with ``segment`` counted from 0."""
    curve = judgments.positive_ratio_by_popularity(ratings, segments)
    return curve.assign(segment=curve["segment"] - 1).rename(columns={"positive_ratio": "ratio"})[
        ["segment", "rank", "ratio"]]


# --------------------------------------------------------------------------- the study


@dataclass
class DatasetStudy:
    """What :func:`neutralising_study` measured on one dataset.

    Attributes:
        name: the dataset.
        plan: its uniform split.
        designs: label (:data:`FIG8`, plus ``"AR TI-AN"`` and ``"1R"`` for Fig. 9) -> design name.
        runs: per-run table of both experiments, with a ``label`` column.
        reports: per (fold, design) sizes of both experiments.
        lift: predicted and measured advantage of popularity over random (P@10 ratio).
        seconds: wall time per stage.
        note: how the dataset was prepared (e.g. only positive ratings kept).
    """

    name: str
    plan: UniformPlan
    designs: dict[str, str]
    runs: pd.DataFrame
    reports: pd.DataFrame
    lift: pd.DataFrame
    seconds: dict[str, float]
    note: str = ""


def one_relevant_size(ratings: Ratings, target_size: int, percentiles: int) -> int:
    """``|T_u^r|`` of the 1R designs: ``target_size``, or half a percentile's items when a
    percentile has fewer than ``target_size`` items (P1R needs ``|T_u^r| <= |I| / m``)."""
    per_percentile = int(np.count_nonzero(ratings.item_counts())) // percentiles
    return target_size if per_percentile >= target_size else max(2, per_percentile // 2)


def _lift_prediction(fold, design: str, seed: int, weights: Sequence[np.ndarray]) -> list[float]:
    """Eq. 3 read as a ratio, for each item weight: the mean weight of popularity's top n over the
    mean weight of all candidates, averaged over runs."""
    runs = build_runs(fold.train, fold.test, design, seed=seed, on_shortage="exclude")
    popularity = fit_systems({"Popularity": "popularity"}, fold.train, key_extra=fold.key, seed=seed)["Popularity"]
    (scores,) = Candidates([runs]).score(popularity)
    items, run_of = RankedView(rank_positions(runs, scores, seed=seed)).top_items(N)
    listed = np.maximum(np.bincount(run_of, minlength=runs.n_runs), 1)
    lifts = []
    for weight in weights:
        top = np.bincount(run_of, weights=weight[items], minlength=runs.n_runs) / listed
        everything = np.bincount(runs.run_of_entry, weights=weight[runs.items], minlength=runs.n_runs) / runs.sizes
        lifts.append(float(top.mean() / everything.mean()))
    return lifts


def _summary(runs: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    return Experiment(runs=runs, reports=pd.DataFrame()).summary(list(metrics), average="group") if len(runs) else runs


def study_dataset(
    ratings: Ratings,
    *,
    folds: int = 5,
    test_ratio: float = 0.2,
    min_train_ratio: float = 0.2,
    target_size: int = 100,
    percentiles: int = 10,
    head: float = 0.1,
    gammas: Sequence[float] = (0.0, 0.5, 1.0, 2.0, 4.0, np.inf),
    powers: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
    max_entries: int = 25_000_000,
    nonrelevant: int = 2500,
    seed: int = 0,
    note: str = "",
) -> DatasetStudy:
    """The papers' Figs. 8 and 9 on one dataset, with IPS/SNIPS and stratified-recall sweeps.

    Uniform folds (:func:`make_folds` ``method="uniform"``) carry U1R, UAR (TI-AN) and AI-UAR;
    random (coin) folds carry 1R, P1R(m), "1R -x% head", AR TI-NN(k) with ``k`` the mean
    number of non-relevant items of the UAR target sets (so both have the same random
    precision, the papers' 1,700 on ML-1M) and AR TI-AN, on which the Fig. 9 metrics and
    the IPS/SNIPS estimators are computed.  AN designs whose target sets would exceed
    ``max_entries`` entries sample ``nonrelevant`` items instead (NN), as the papers did on Last.fm.
    """
    plan = uniform_plan(ratings, test_ratio, min_train_ratio)
    size = one_relevant_size(ratings, target_size, percentiles)
    one_r = f"1R TI-NN({size - 1})"
    users = int(np.count_nonzero(np.bincount(ratings.users[ratings.positive], minlength=ratings.n_users)))
    too_big = users * ratings.n_items > max_entries
    designs = {
        "U1R": f"U1R TI-NN({size - 1})",
        "UAR": "UAR TI-AN",
        "AI-UAR": f"UAR AI-NN({nonrelevant})" if too_big else "UAR AI-AN",
    }
    uniform = run_experiment(ratings, list(designs.values()), PAPER_SYSTEMS, seed=seed, on_shortage="exclude",
                             folds=make_folds(ratings, method="uniform", folds=folds, test_ratio=plan.used,
                                              min_train_ratio=min_train_ratio, seed=seed),
                             metrics=["P@10", "nDCG@10"])
    uar = uniform.reports[uniform.reports["design"] == designs["UAR"]]
    matched = max(1, int(round(((uar["candidates"] - uar["relevant"]) / uar["n_runs"]).mean())))
    coin_designs = {
        "1R": one_r, "P1R": f"P1R({percentiles}) TI-NN({size - 1})", "1R -head": f"{one_r} -{head * 100:g}% head",
        "AR": f"TI-NN({matched})", "AR TI-AN": f"TI-NN({nonrelevant})" if too_big else "TI-AN",
    }
    metrics = ["P@10", "nDCG@10", "bpref", "infAP", *(f"PSR@10(gamma={g:g})" for g in gammas),
               *(f"{e}-{m}@10(power={b:g})" for e in ("IPS", "SNIPS") for m in ("P", "Recall") for b in powers)]
    coin_folds = make_folds(ratings, folds=folds, test_ratio=test_ratio, seed=seed)
    coin = run_experiment(ratings, list(dict.fromkeys(coin_designs.values())), PAPER_SYSTEMS, folds=coin_folds,
                          seed=seed, on_shortage="exclude", metrics=metrics)
    designs |= coin_designs
    label_of = {name: label for label, name in designs.items()}
    runs = pd.concat([uniform.runs.astype({"design": str}), coin.runs.astype({"design": str})], ignore_index=True)
    runs.insert(2, "label", runs["design"].map(label_of))
    reports = pd.concat([uniform.reports, coin.reports], ignore_index=True)
    reports.insert(2, "label", reports["design"].map(label_of))

    uniform_fold = make_folds(ratings, method="uniform", folds=1, test_ratio=plan.used,
                              min_train_ratio=min_train_ratio, seed=seed)[0]
    counts, positive = ratings.item_counts(), ratings.item_counts(positive_only=True)
    ratio = np.divide(positive, counts, out=np.zeros(len(counts)), where=counts > 0)
    predictions = {}
    for label, fold, expected in (("AR TI-AN", coin_folds[0], test_ratio * positive), ("UAR", uniform_fold, None)):
        if expected is None:  # under U, E[|PR_test(i)|] = eta |PR(i)| / |R(i)| on T
            expected = plan.eta * ratio * np.isin(np.arange(ratings.n_items), np.flatnonzero(fold.test.item_counts()))
        paper = positive.astype(float) if label == "AR TI-AN" else ratio
        # a user can only hold a test rating of i if she has no training rating of i
        per_user = expected / np.maximum(ratings.n_users - fold.train.item_counts(), 1)
        predictions[label] = _lift_prediction(fold, designs[label], seed, [paper, per_user])
    p10 = _summary(runs, ["P@10"]).set_index(["design", "system"])["mean"]
    lift = pd.DataFrame([{
        "design": label, "weight of the paper": "|PR(i)|" if label == "AR TI-AN" else "|PR(i)| / |R(i)|",
        "predicted (paper)": paper, "predicted (training excluded)": excluded,
        "measured": p10[(designs[label], "Popularity")] / p10[(designs[label], "Random")],
    } for label, (paper, excluded) in predictions.items()])
    seconds = {k: uniform.seconds[k] + coin.seconds[k] for k in uniform.seconds}
    return DatasetStudy(ratings.name, plan, designs, runs, reports, lift, seconds, note)


def positive_only(ratings: Ratings) -> Ratings:
    """The positive ratings alone: every rating left counts as relevant (the papers' Last.fm setup)."""
    return ratings.subset(ratings.positive)


# ----------------------------------------------------------------------- tables and figures


def fig8_summary(study: DatasetStudy, metrics: Sequence[str] = ("P@10", "nDCG@10")) -> pd.DataFrame:
    """Means and 95% intervals of ``metrics`` per Fig. 8 design and system (P1R averages its percentiles)."""
    runs = study.runs[study.runs["label"].isin(FIG8)]
    table = _summary(runs, metrics)
    table.insert(0, "label", table["design"].map({v: k for k, v in study.designs.items()}))
    table["dataset"] = study.name
    return table


def fig8_wide(summaries: Sequence[pd.DataFrame], metric: str = "P@10") -> pd.DataFrame:
    """One row per (dataset, design), one column per system: mean ± half-width of the interval."""
    table = pd.concat(summaries, ignore_index=True)
    table = table[table["metric"] == metric]
    table = table.assign(cell=[f"{m:.4f} ± {(h - l) / 2:.4f}" for m, l, h in
                               zip(table["mean"], table["ci_low"], table["ci_high"], strict=True)])
    wide = table.pivot_table(index=["dataset", "label"], columns="system", values="cell", aggfunc="first",
                             observed=True, sort=False)
    return wide.reindex(columns=list(PAPER_SYSTEMS)).reset_index().rename(columns={"label": "design"})


def size_table(studies: Sequence[DatasetStudy]) -> pd.DataFrame:
    """Candidates, runs, target set sizes and excluded runs per dataset and design (means over folds)."""
    reports = pd.concat([s.reports.assign(dataset=s.name) for s in studies], ignore_index=True)
    reports["target size"] = reports["candidates"] / reports["n_runs"].clip(lower=1)
    return (reports.groupby(["dataset", "label", "design"], sort=False)
            .agg(folds=("fold", "nunique"), **{"|C|": ("n_candidates", "mean"), "runs": ("n_runs", "mean"),
                 "mean |T_u|": ("target size", "mean"), "runs excluded": ("shortage_runs", "mean")})
            .reset_index().rename(columns={"label": "label"}))


#: the metric and design behind every row of the popularity-index figure
INDEX_ROWS: tuple[tuple[str, str, str], ...] = (
    ("AR, P@10", "AR TI-AN", "P@10"),
    ("1R, P@10", "1R", "P@10"),
    ("1R -10% head, P@10", "1R -head", "P@10"),
    ("P1R, P@10", "P1R", "P@10"),
    ("U1R, P@10", "U1R", "P@10"),
    ("UAR, P@10", "UAR", "P@10"),
    ("AI-UAR, P@10", "AI-UAR", "P@10"),
    ("AR, bpref", "AR TI-AN", "bpref"),
    ("AR, infAP", "AR TI-AN", "infAP"),
    ("1R, infAP", "1R", "infAP"),
    ("AR, stratified recall (γ = 1)", "AR TI-AN", "PSR@10(gamma=1)"),
    ("1R, stratified recall (γ = 1)", "1R", "PSR@10(gamma=1)"),
    ("AR, IPS-P@10 (β = 0.5)", "AR TI-AN", "IPS-P@10(power=0.5)"),
    ("AR, SNIPS-P@10 (β = 0.5)", "AR TI-AN", "SNIPS-P@10(power=0.5)"),
    ("AR, SNIPS-Recall@10 (β = 0.5)", "AR TI-AN", "SNIPS-Recall@10(power=0.5)"),
)


def popularity_index(study: DatasetStudy, rows: Sequence[tuple[str, str, str]] = INDEX_ROWS) -> pd.DataFrame:
    """Where each design and metric puts Popularity between Random (0) and the best personalised system (1).

    ``index = (M_pop - M_rnd) / (max_s M_s - M_rnd)`` over the personalised systems ``s``; negative
    below random, above 1 when popularity beats every personalised system.
    """
    metrics = list(dict.fromkeys(m for _, _, m in rows))
    means = _summary(study.runs, metrics).set_index(["design", "metric", "system"])["mean"].sort_index()
    out = []
    for row, label, metric in rows:
        cell = means.loc[(study.designs[label], metric)]
        best = cell[list(PERSONALISED)].max()
        out.append({"dataset": study.name, "method": row, "design": study.designs[label], "metric": metric,
                    "Popularity": cell["Popularity"], "Random": cell["Random"], "best personalised": best,
                    "best system": cell[list(PERSONALISED)].idxmax(),
                    "index": (cell["Popularity"] - cell["Random"]) / (best - cell["Random"])})
    return pd.DataFrame(out)


def sweep_index(study: DatasetStudy, gammas: Sequence[float], powers: Sequence[float]) -> pd.DataFrame:
    """The popularity index of stratified recall over ``gamma`` and of IPS/SNIPS over the power (AR TI-AN)."""
    rows = [(f"PSR γ={g:g}", "AR TI-AN", f"PSR@10(gamma={g:g})") for g in gammas]
    rows += [(f"{e}-{m} β={b:g}", "AR TI-AN", f"{e}-{m}@10(power={b:g})")
             for e in ("IPS", "SNIPS") for m in ("P", "Recall") for b in powers]
    table = popularity_index(study, rows)
    table["family"] = [m.split("@")[0] for m in table["metric"]]
    table["parameter"] = [float(m.split("=")[1].rstrip(")")) for m in table["metric"]]
    return table


def fig6_figure(profiles: pd.DataFrame, plan: UniformPlan):
    """The papers' Fig. 6: the random split's expected test ratings per item and the P1R
    percentiles (left), the uniform split's exact ones (right), over the popularity curve."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax in (left, right):
        ax.fill_between(profiles["rank"], profiles["ratings"], color="#c9d6e8", label="all ratings $|R(i)|$")
        ax.set(xlabel="items by popularity rank $k$", yscale="log")
    left.plot(profiles["rank"], profiles["random test"], color="#b42318", ls="--",
              label=r"$E[|R_\mathrm{test}(i)|] = \sigma |R(i)|$")
    for edge in profiles.groupby("percentile")["rank"].min().iloc[1:]:
        left.axvline(edge, color="#555555", lw=0.6, ls=":")
    left.set_title("a) random split, P1R percentiles (dotted)", loc="left", fontsize=10)
    left.set_ylabel("ratings per item (log scale)")
    in_t = profiles[profiles["uniform test"] > 0]
    right.plot(in_t["rank"], in_t["uniform test"], color="#b42318", lw=2, label=rf"$|R_\mathrm{{test}}(i)| = \eta = {plan.eta}$")
    right.axvline(plan.size, color="#555555", lw=0.8, ls=":")
    right.annotate(f"$|T| = {plan.size:,}$", (plan.size, profiles["ratings"].max()), xytext=(4, -4),
                   textcoords="offset points", va="top", fontsize=9)
    right.set_title("b) uniform test item profiles", loc="left", fontsize=10)
    for ax in (left, right):
        ax.set_ylim(bottom=0.8)
        ax.legend(fontsize=8.5, loc="lower left")
    fig.tight_layout()
    return fig


def fig8_figure(summaries: Sequence[pd.DataFrame], colours: dict[str, str],
                metrics: Sequence[str] = ("P@10", "nDCG@10")):
    """Bars of the papers' Fig. 8: one row per metric, one panel per dataset (titled with its
    name), designs on the x axis, systems in ``colours``."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    names = list(PAPER_SYSTEMS)
    widths = [s["label"].nunique() for s in summaries]
    fig, axes = plt.subplots(len(metrics), len(summaries), figsize=(11, 3.6 * len(metrics)), squeeze=False,
                             gridspec_kw={"width_ratios": widths})
    width = 0.8 / len(names)
    for column, summary in enumerate(summaries):
        labels = [d for d in FIG8 if d in set(summary["label"])]
        for row, metric in enumerate(metrics):
            ax = axes[row][column]
            part = summary[summary["metric"] == metric].set_index(["label", "system"])
            for j, system in enumerate(names):
                cells = part.loc[[(d, system) for d in labels]]
                x = np.arange(len(labels)) + (j - (len(names) - 1) / 2) * width
                ax.bar(x, cells["mean"], width, color=colours[system],
                       yerr=[cells["mean"] - cells["ci_low"], cells["ci_high"] - cells["mean"]], capsize=1.5,
                       error_kw={"elinewidth": 0.7})
            ax.set_xticks(range(len(labels)), [d.replace("-head", "−10%\nhead") for d in labels], fontsize=9)
            ax.set_ylabel(metric)
            ax.set_title(f"dataset: {summary['dataset'].iloc[0]}", loc="left", fontsize=9)
    fig.legend(handles=[Patch(color=colours[s], label=s) for s in names], loc="upper center", ncol=len(names),
               fontsize=9, bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def index_figure(indices: pd.DataFrame, sweeps: pd.DataFrame):
    """Left: the popularity index of every design and metric per dataset; right: its sweep over gamma and beta."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 5.6), gridspec_kw={"width_ratios": [1.25, 1]})
    methods = list(dict.fromkeys(indices["method"]))
    markers = dict(zip(dict.fromkeys(indices["dataset"]), ("o", "s", "^", "D"), strict=False))
    for dataset, part in indices.groupby("dataset", sort=False):
        y = [methods.index(m) for m in part["method"]]
        left.scatter(part["index"], y, marker=markers[dataset], s=36, label=dataset, zorder=3)
    left.axvline(0, color="#777777", lw=0.8)
    left.axvline(1, color="#777777", lw=0.8, ls="--")
    left.set_yticks(range(len(methods)), methods, fontsize=8.5)
    left.invert_yaxis()
    left.set_xlabel("popularity index: 0 = Random, 1 = best personalised system")
    left.legend(fontsize=8.5, loc="lower right")
    styles = {"PSR": ("#1f5f99", "-"), "IPS-P": ("#b42318", "--"), "SNIPS-P": ("#b42318", "-"),
              "IPS-Recall": ("#1a7f37", "--"), "SNIPS-Recall": ("#1a7f37", "-")}
    for (dataset, family), part in sweeps.groupby(["dataset", "family"], sort=False):
        colour, line = styles[family]
        x = part["parameter"] if family != "PSR" else part["parameter"] / (part["parameter"] + 1)
        right.plot(x.replace(np.nan, 1.0), part["index"], color=colour, ls=line, marker=markers[dataset], ms=4,
                   label=f"{family} ({dataset})")
    right.axhline(0, color="#777777", lw=0.8)
    right.axhline(1, color="#777777", lw=0.8, ls="--")
    right.set_xlabel(r"weight exponent $\beta$ (stratified recall: $\gamma / (\gamma + 1)$)")
    right.set_ylabel("popularity index")
    right.legend(fontsize=7.5, loc="best")
    fig.tight_layout()
    return fig


def ratio_figure(curves: Sequence[tuple[str, pd.DataFrame]]):
    """The papers' Fig. 7 on every dataset of the chapter: positive ratio against popularity rank."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for name, curve in curves:
        ax.plot(curve["rank"], curve["ratio"], marker="o", ms=2.5, lw=1, label=name)
    ax.set(xscale="log", xlabel="popularity rank (mean of each of 100 segments, log scale)",
           ylabel=r"$|PR(i)| \,/\, |R(i)|$", ylim=(0, 1.05))
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------ sentences and claims


def _index(indices: pd.DataFrame, dataset: str, method: str) -> float:
    return float(indices.set_index(["dataset", "method"]).loc[(dataset, method), "index"])


def plan_text(plan: UniformPlan, dataset: str) -> str:
    """How the uniform split came out on a dataset."""
    lowered = (f"A test ratio of {plan.requested:g} is out of reach on this curve (at most "
               f"{plan.used + 0.005:.2f} fits), so its uniform split holds out σ = {plan.used:g}. "
               if plan.used < plan.requested else "")
    floor = (f"the stricter floor rule would keep {plan.floor_size:,} items with η = {plan.floor_eta}"
             if plan.floor_size else "the stricter floor rule finds no split at this ratio")
    return (f"{lowered}On {dataset}, T holds the {plan.size:,} most popular of its {plan.n_items:,} rated items "
            f"({fmt_pct(plan.size / plan.n_items)}), each with η = {plan.eta} test ratings, which holds out "
            f"{fmt_pct(plan.achieved)} of the ratings; {floor}.")


def lift_text(study: DatasetStudy) -> str:
    """Predicted against measured advantage of popularity over random, on one dataset."""
    rows = study.lift.set_index("design")
    ar, uar = rows.loc["AR TI-AN"], rows.loc["UAR"]
    return (
        f"On {study.name}, the random split gives popularity {fmt_number(ar['measured'], 1)} times the precision of "
        f"random in AR ({study.designs['AR TI-AN']}); weighting items by |PR(i)| alone predicts "
        f"{fmt_number(ar['predicted (paper)'], 1)}, and adding the training exclusion predicts "
        f"{fmt_number(ar['predicted (training excluded)'], 1)}. The uniform split brings the measured ratio down to "
        f"{fmt_number(uar['measured'], 2)} in UAR, against {fmt_number(uar['predicted (paper)'], 2)} predicted from "
        f"the positive ratio alone and {fmt_number(uar['predicted (training excluded)'], 2)} with the training "
        "exclusion."
    )


def findings(main: DatasetStudy, indices: pd.DataFrame, second: DatasetStudy | None = None) -> list[dict]:
    """The qualitative claims of IRJ 2017 Sec. 6.3 and 7 checked on this build (``key``, ``label``, ``holds``,
    ``evidence``, ``dataset``, ``anchor``), a popularity index of at most ``0.15`` counting as random's level."""
    name = main.name
    index = {m: _index(indices, name, m) for m in indices[indices["dataset"] == name]["method"]}
    p10 = fig8_summary(main, ["P@10"]).set_index(["label", "system"])["mean"]
    leaders = {d: p10.loc[d][list(PERSONALISED)].idxmax() for d in FIG8}
    one_r_bpref = main.runs.loc[main.runs["label"] == "1R", "bpref"]
    claims = [
        ("p1r-random-level", "P1R brings popularity to the level of random, relative to the personalised systems",
         index["P1R, P@10"] <= 0.15, f"popularity index {index['P1R, P@10']:.2f} under P1R (1R: {index['1R, P@10']:.2f})",
         "fig-neutralising-index"),
        ("u1r-random-level", "U1R brings popularity to the level of random, relative to the personalised systems",
         index["U1R, P@10"] <= 0.15, f"popularity index {index['U1R, P@10']:.2f} under U1R (1R: {index['1R, P@10']:.2f})",
         "fig-neutralising-index"),
        ("uar-reduces", "UAR reduces popularity's advantage over AR", index["UAR, P@10"] < index["AR, P@10"],
         f"popularity index {index['UAR, P@10']:.2f} (UAR) vs {index['AR, P@10']:.2f} (AR)", "fig-neutralising-index"),
        ("ai-uar-more-bias", "AI-UAR leaves more popularity bias than TI-UAR", index["AI-UAR, P@10"] > index["UAR, P@10"],
         f"popularity index {index['AI-UAR, P@10']:.2f} (AI-UAR) vs {index['UAR, P@10']:.2f} (UAR)",
         "fig-neutralising-index"),
        ("head-less-effective", "removing the 10% head is less effective than P1R and U1R",
         index["1R -10% head, P@10"] > max(index["P1R, P@10"], index["U1R, P@10"]),
         f"popularity index {index['1R -10% head, P@10']:.2f} (-10% head) vs {index['P1R, P@10']:.2f} (P1R) and "
         f"{index['U1R, P@10']:.2f} (U1R)", "fig-neutralising-index"),
        ("best-keeps-lead", "the best personalised system keeps its lead, over popularity too, under every "
         "neutralising design", len(set(leaders.values())) == 1 and all(
             p10[(d, leaders[d])] > p10[(d, "Popularity")] for d in FIG8),
         "best personalised system per design: " + ", ".join(f"{d} {s}" for d, s in leaders.items()),
         "fig-neutralising-fig8"),
        ("bpref-constant-1r", "bpref is 1 for every system in 1R", bool((one_r_bpref == 1).all()),
         f"1R bpref is 1 in {fmt_pct((one_r_bpref == 1).mean())} of {len(one_r_bpref):,} runs, mean "
         f"{one_r_bpref.mean():.3f}; the others drew a judged non-relevant item, which the papers' 1R drops",
         "tbl-neutralising-fig9"),
    ]
    out = [{"key": k, "label": label, "holds": bool(holds), "evidence": evidence, "dataset": name, "anchor": anchor}
           for k, label, holds, evidence, anchor in claims]
    if second is not None:
        u1r = second.runs[(second.runs["label"] == "U1R") & second.runs["system"].isin(["Popularity", "Random"])]
        test = compare(u1r, ["P@10"], systems=["Popularity", "Random"], average="run").iloc[0]
        out.append({"key": "all-positive-u1r-random", "label": "on data where every rating is positive, U1R makes "
                    "popularity exactly random (no significant difference)", "holds": bool(test["t_pvalue"] > 0.05),
                    "evidence": f"{second.name}: U1R P@10 {test['mean_a']:.4f} (Popularity) vs {test['mean_b']:.4f} "
                    f"(Random), p = {test['t_pvalue']:.2f}", "dataset": second.name, "anchor": "fig-neutralising-fig8"})
    return out


def published() -> pd.DataFrame:
    """The published numbers this chapter recomputes (``published/neutralising.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/neutralising.csv").open() as handle:
        return pd.read_csv(handle, comment="#")


def published_numbers(study: DatasetStudy, percentiles: int, dataset: str) -> list[dict]:
    """Arguments of one scorecard number per published value, computed on the page's dataset."""
    ours = {"size": study.plan.size, "eta": study.plan.eta, "items / m": study.plan.n_items / percentiles}
    return [{"key": p["key"], "ours": float(ours[p["column"]]), "paper": float(p["value"]),
             "tolerance": float(p["tolerance"]), "source": "IRJ 2017 Sec. 6.1-6.2", "dataset": dataset,
             "paper_dataset": p["paper_dataset"], "label": p["statistic"], "note": p["note"]}
            for _, p in published().iterrows()]

"""Chapter 4 ("The popularity bias"): how much of popularity's offline score is real, and whom it serves.

Beyond the papers: on simulated worlds with preferences, popularity's measured 1R and AR precision
against its true precision on the complete relevance, as the observation bias and the skew vary
(:func:`observation_grid`); and the "majority" argument of IRJ 2017 Sec. 5.1 measured per user, by how
closely a user's ratings follow the crowd (:func:`mainstream_study`); the page's sentences and figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import Candidates, evaluate_runs, mean_confidence_interval, true_quality
from recbias.experiments.popularity import (
    ALL_RELEVANT_DESIGN,
    METRIC,
    N,
    PERSONALISED,
    one_relevant_design,
    precision_summary,
)
from recbias.evaluate.experiment import PAPER_SYSTEMS, fit_systems, run_experiment
from recbias.splits import fold_seed, make_folds
from recbias.ratings import Ratings
from recbias.synthetic import generate
from recbias.text import fmt_number, fmt_pct, fmt_span

#: the systems of the measured-vs-true and per-user studies, label -> preset
TRUTH_SYSTEMS: dict[str, str] = {"Popularity": "popularity", PERSONALISED: PAPER_SYSTEMS[PERSONALISED],
                                 "Random": "random"}


#: the measures of :func:`observation_grid`: the two offline designs and the truth
MEASURES = ("1R", "AR", "true")


def mean_interval(values: np.ndarray) -> dict:
    mean, low, high = mean_confidence_interval(values[np.isfinite(values)])
    return {"mean": mean, "ci_low": low, "ci_high": high}


def observation_grid(
    alphas: Sequence[float],
    selections: Sequence[float],
    *,
    preset: str = "synthetic",
    seed: int = 0,
    test_ratio: float = 0.2,
    target_size: int = 100,
    cache: bool = True,
) -> pd.DataFrame:
    """Measured and true P@n of :data:`TRUTH_SYSTEMS` on simulated worlds with preferences.

    One world of ``preset`` per (``alpha``, ``selection``): item popularity skew, and how
    strongly users rate what they like (missing not at random).  One coin-flip split; the
    measured values are 1R and AR precision on the observed test ratings, the true value
    is P@n over all items the user did not rate in training, judged on the world's complete
    relevance (:func:`recbias.evaluate.true_quality`).  Returns one row per (alpha,
    selection, system, measure) with ``mean``, ``ci_low``, ``ci_high``.
    """
    designs = {one_relevant_design(target_size): "1R", ALL_RELEVANT_DESIGN: "AR"}
    rows = []
    for alpha in alphas:
        for selection in selections:
            ratings = generate(preset=preset, alpha=float(alpha), selection=float(selection), seed=seed)
            fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
            experiment = run_experiment(ratings, list(designs), TRUTH_SYSTEMS, folds=[fold], metrics=[METRIC],
                                        seed=seed, cache=cache)
            cell = {"alpha": float(alpha), "selection": float(selection)}
            for _, row in precision_summary(experiment.runs, ("design", "system")).iterrows():
                rows.append(cell | {"system": row["system"], "measure": designs[row["design"]], "mean": row["mean"],
                                    "ci_low": row["ci_low"], "ci_high": row["ci_high"]})
            fitted = fit_systems(TRUTH_SYSTEMS, fold.train, key_extra=fold.key, cache=cache, seed=seed)
            truth = true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=seed)[METRIC]
            for system in TRUTH_SYSTEMS:
                rows.append(cell | {"system": system, "measure": "true"} | mean_interval(truth[system].to_numpy()))
    return pd.DataFrame(rows)


def relative_scores(grid: pd.DataFrame) -> pd.DataFrame:
    """Popularity's P@n as a share of the personalised system's, per (alpha, selection, measure)."""
    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean")
    return (wide["Popularity"] / wide[PERSONALISED]).rename("popularity / personalised").reset_index()


def mainstream_scores(train: Ratings) -> np.ndarray:
    """How mainstream each user's taste is: the Pearson correlation, over the user's training
    ratings, between her rating ``r_ui`` and the item's mean rating by the other users,
    ``(sum_v r_vi - r_ui) / (|R_train(i)| - 1)``.  1 when she rates exactly as the crowd
    does; NaN with fewer than three such ratings or no spread."""
    users, values = train.users, train.values
    sums = np.bincount(train.items, weights=values, minlength=train.n_items)
    counts = train.item_counts()
    shared = counts[train.items] > 1
    own, others = values[shared], ((sums[train.items] - values) / np.maximum(counts[train.items] - 1, 1))[shared]
    who = users[shared]

    def total(weights: np.ndarray) -> np.ndarray:
        return np.bincount(who, weights=weights, minlength=train.n_users)

    n = total(np.ones(len(who)))
    with np.errstate(invalid="ignore", divide="ignore"):
        covariance = total(own * others) - total(own) * total(others) / n
        spread = (total(own**2) - total(own) ** 2 / n) * (total(others**2) - total(others) ** 2 / n)
        correlation = covariance / np.sqrt(spread)
    return np.where((n >= 3) & (spread > 1e-12), np.clip(correlation, -1.0, 1.0), np.nan)


def mainstream_study(
    ratings: Ratings, *, seed: int = 0, test_ratio: float = 0.2, groups: int = 5, cache: bool = True
) -> pd.DataFrame:
    """Per-user AR P@n of popularity and the personalised system by mainstream group (IRJ 2017 Sec. 5.1).

    Fold 0 of the coin-flip splits (the fits of chapter 2 are reused through the cache).  Users
    with a relevant test item and a defined :func:`mainstream_scores` are cut into ``groups``
    groups of near-equal size by that score (group 1 the most idiosyncratic).  Rows per (group, system, measure):
    ``measured`` (AR precision on the test ratings) and, on simulated worlds, ``true``;
    ``mean`` with its interval over the group's users, ``users``, the group's range of
    mainstream scores and ``wins``, the share of its users for whom the system's measured
    precision is strictly higher than the other's.
    """
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    systems = {label: TRUTH_SYSTEMS[label] for label in ("Popularity", PERSONALISED)}
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, cache=cache, seed=seed)
    runs = build_runs(fold.train, fold.test, ALL_RELEVANT_DESIGN, seed=fold_seed(seed, 0))
    candidates = Candidates([runs])
    measured = pd.DataFrame({label: evaluate_runs(runs, candidates.score(rec)[0], [METRIC], seed=seed)
                             .set_index("user")[METRIC] for label, rec in fitted.items()})
    mainstream = pd.Series(mainstream_scores(fold.train), name="mainstream").reindex(measured.index).dropna()
    measured = measured.loc[mainstream.index]
    group = pd.qcut(mainstream.rank(method="first"), groups, labels=False) + 1
    per_measure = {"measured": measured}
    if ratings.true_relevance is not None:
        truth = true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=seed)[METRIC]
        per_measure["true"] = truth.reindex(measured.index)
    rows = []
    for g in range(1, groups + 1):
        members = group.index[group == g]
        span = (mainstream[members].min(), mainstream[members].max())
        for measure, table in per_measure.items():
            part = table.loc[members]
            for label in systems:
                other = part[[s for s in systems if s != label][0]]
                rows.append({"group": g, "mainstream low": span[0], "mainstream high": span[1], "system": label,
                             "measure": measure, "users": len(members),
                             "wins": float((part[label] > other).mean())} | mean_interval(part[label].to_numpy()))
    return pd.DataFrame(rows)


def grid_table(grid: pd.DataFrame) -> pd.DataFrame:
    """One row per world of the grid: popularity's P@n over random's and over the personalised system's,
    measured in 1R and AR and on the complete truth."""
    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean")
    lift = (wide["Popularity"] / wide["Random"]).unstack("measure")[list(MEASURES)]
    share = (wide["Popularity"] / wide[PERSONALISED]).unstack("measure")[list(MEASURES)]
    table = pd.concat({"over random": lift.map("{:.1f}×".format), f"over {PERSONALISED}": share.map("{:.0%}".format)},
                      axis=1)
    table.columns = [f"{measure}, {what}" for what, measure in table.columns]
    return table.rename_axis(index=["α", "observation bias"]).reset_index() \
        .assign(**{"α": lambda frame: frame["α"].map("{:g}".format),
                   "observation bias": lambda frame: frame["observation bias"].map("{:g}".format)})


def grid_text(grid: pd.DataFrame) -> str:
    """What the measured-vs-true grid shows: how far the offline lift and the offline share of the personalised
    system's precision are from the true ones."""
    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean")
    lift = (wide["Popularity"] / wide["Random"]).unstack("measure")
    share = (wide["Popularity"] / wide[PERSONALISED]).unstack("measure")
    gaps = share[["1R", "AR"]].sub(share["true"], axis=0).abs().mean()
    closer = "AR" if gaps["AR"] < gaps["1R"] else "1R"
    over = bool((share["1R"] > share["true"]).all())
    strongest = share.index.max()

    def span(values: pd.Series, fmt: str) -> str:
        return fmt_span(values.min(), values.max(), fmt)

    return (
        f"Across the grid, popularity measures {span(lift['1R'], '{:.1f}')} times random's precision in 1R and "
        f"{span(lift['AR'], '{:.1f}')} times in AR, but only {span(lift['true'], '{:.1f}')} times on the complete "
        f"truth. Against {PERSONALISED} the 1R design "
        + ("overstates popularity in every world" if over else "does not overstate popularity in every world")
        + f"; at the strongest observation bias (α = {strongest[0]:g}, strength {strongest[1]:g}) popularity scores "
        f"{fmt_pct(share.loc[strongest, '1R'], 0)} of {PERSONALISED}'s 1R precision against "
        f"{fmt_pct(share.loc[strongest, 'true'], 0)} of its true precision. Of the two designs, {closer} comes closer "
        f"to the true share (mean absolute gap {fmt_number(gaps[closer], 2)} against "
        f"{fmt_number(gaps.drop(closer).iloc[0], 2)})."
    )


def _direction(first: pd.Series, last: pd.Series) -> str:
    """How a group mean moves from the first to the last group, judged by their 95% intervals."""
    if last["ci_low"] > first["ci_high"]:
        return "rises"
    return "falls" if last["ci_high"] < first["ci_low"] else "changes within noise"


def _moves(frame: pd.DataFrame, first: int, last: int, what: str) -> str:
    """How popularity's and the personalised system's ``what`` move from group ``first`` to group ``last``."""
    ends = {system: (frame.loc[(first, system)], frame.loc[(last, system)]) for system in ("Popularity", PERSONALISED)}
    values = {system: f"{fmt_number(a['mean'], 3)} to {fmt_number(b['mean'], 3)}" for system, (a, b) in ends.items()}
    moves = {system: _direction(a, b) for system, (a, b) in ends.items()}
    if set(moves.values()) == {"changes within noise"}:
        return (f"neither popularity's nor {PERSONALISED}'s {what} changes beyond noise (popularity "
                f"{values['Popularity']}, {PERSONALISED} {values[PERSONALISED]})")
    return (f"popularity's {what} {moves['Popularity']} ({values['Popularity']}) and {PERSONALISED}'s "
            f"{moves[PERSONALISED]} ({values[PERSONALISED]})")


def mainstream_text(table: pd.DataFrame, dataset: str) -> str:
    """Popularity and the personalised system from the least to the most mainstream group."""
    measured = table[table["measure"] == "measured"].set_index(["group", "system"])
    first, last = measured.index.get_level_values("group").min(), measured.index.get_level_values("group").max()
    text = (f"On `{dataset}`, from the fifth of users whose ratings follow the crowd least to the fifth who follow "
            f"it most, {_moves(measured, first, last, 'AR precision')}. ")
    wins = [fmt_pct(measured.loc[(group, "Popularity"), "wins"], 0) for group in (first, last)]
    text += (f"Popularity beats {PERSONALISED} for none of the users of these two groups." if wins == ["0%", "0%"]
             else f"Popularity beats {PERSONALISED} for {wins[0]} of the users of each of the two groups."
             if wins[0] == wins[1] else
             f"Popularity beats {PERSONALISED} for {wins[0]} of the least mainstream users and {wins[1]} of the "
             "most mainstream.")
    if (table["measure"] == "true").any():
        true = table[table["measure"] == "true"].set_index(["group", "system"])
        text += f" On the world's complete relevance, {_moves(true, first, last, 'true precision')}."
    return text


#: line style of each measure of the grid
MEASURE_STYLES = {"1R": {"color": "#d62728", "marker": "o"}, "AR": {"color": "#ff9896", "marker": "s"},
                  "true": {"color": "#222222", "marker": "D"}}


def truth_figure(grid: pd.DataFrame):
    """Popularity's lift over random and its score relative to the personalised system, measured and true."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    wide = grid.pivot_table(index=["alpha", "selection", "measure"], columns="system", values="mean").reset_index()
    wide["lift"] = wide["Popularity"] / wide["Random"]
    wide["relative"] = wide["Popularity"] / wide[PERSONALISED]
    alphas = sorted(wide["alpha"].unique())
    dashes = dict(zip(alphas, ["-", "--", ":", "-."] * len(alphas)))
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 4.2 + 0.3 * len(dashes)))
    for ax, column, label in ((axes[0], "lift", "popularity / random"),
                              (axes[1], "relative", f"popularity / {PERSONALISED}")):
        for measure, style in MEASURE_STYLES.items():  # legend columns by measure, rows by alpha
            for alpha, line in dashes.items():
                part = wide[(wide["measure"] == measure) & (wide["alpha"] == alpha)]
                ax.plot(part["selection"], part[column], ls=line, ms=5, lw=1.6, **style,
                        label=f"{measure}, $\\alpha = {alpha:g}$")
        ax.set(xlabel="observation bias", ylabel=label)
        if column == "lift":
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
    axes[1].axhline(1, color="#999999", lw=1, ls=":")
    axes[1].set_ylim(bottom=0)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(MEASURE_STYLES), handletextpad=0.4, columnspacing=1.2)
    fig.tight_layout(rect=(0, 0.05 + 0.06 * len(dashes), 1, 1))
    return fig


def mainstream_figure(table: pd.DataFrame, colours: Mapping[str, str]):
    """Per-user P@10 of popularity and the personalised system by mainstream group, measured (and true)."""
    import matplotlib.pyplot as plt

    measures = list(dict.fromkeys(table["measure"]))
    fig, axes = plt.subplots(1, len(measures), figsize=(7.2 if len(measures) > 1 else 4.8, 4.4), squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        for system, part in table[table["measure"] == measure].groupby("system", sort=False):
            spread = [part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]]
            ax.errorbar(part["group"], part["mean"], yerr=spread, marker="o", ms=5, lw=1.6, capsize=3,
                        color=colours[system], label=system)
        ax.set(xlabel="fifths of users, least to\nmost mainstream", ylabel=f"P@{N} per user, mean",
               xticks=sorted(table["group"].unique()))
        ax.set_ylim(bottom=0)
        ax.set_title("Measured (AR)" if measure == "measured" else "True", loc="left")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig

"""Chapter 3 ("The test-sparsity bias"): the closed forms of random precision against measurement.

Random recommendation is measured over a grid of test ratios, removed test ratings, positive
thresholds and designs, and set against the paper's Eq. 4 (AR, ``sigma delta``) and Eq. 5 (1R,
``1 / t``) and against the exact relevance ratio ``rho`` of the target sets, with the
simulation error of a random order (:func:`random_precision_check`); the page's table, sentences
and figure of that check.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import evaluate_runs
from recbias.evaluate.experiment import DesignChoice
from recbias.splits import fold_seed, make_folds
from recbias.experiments.sparsity_figures import plain_log_ticks
from recbias.experiments.sparsity_sweep import user_sample
from recbias.ratings import Ratings
from recbias.splits import remove_test_ratings
from recbias.text import fmt_number, fmt_pct
from recbias.theory import (
    expected_random_precision_1r,
    expected_random_precision_ar,
    random_precision_sd,
    relevance_ratio,
    target_size,
)

#: the test ratios and removed shares of the theory check (crossed with designs and thresholds)
CHECK_RATIOS = (0.1, 0.4)


CHECK_REMOVED = (0.0, 0.5, 0.9)


def _thresholds(ratings: Ratings) -> list[float]:
    """The dataset's positive threshold and the next rating value below it, when there is one."""
    below = np.unique(ratings.values[ratings.values < ratings.positive_threshold])
    return [float(ratings.positive_threshold)] + ([float(below[-1])] if len(below) else [])


def check_designs(choice: DesignChoice) -> list[str]:
    """Designs of the theory check: the AR designs of ``choice`` (AI and TI candidates), 1R with AI and TI
    candidates at its target size, and 1R TI at twice that size."""
    size = choice.target_size
    return [*choice.ar, f"1R AI-NN({size - 1})", choice.one_r, f"1R TI-NN({2 * size - 1})"]


def random_precision_check(
    ratings: Ratings,
    designs: Sequence[str],
    *,
    test_ratios: Sequence[float] = CHECK_RATIOS,
    removed: Sequence[float] = CHECK_REMOVED,
    n: int = 10,
    max_users: int | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Measured random P@n against its expectation over a grid of configurations.

    For each test ratio ``sigma`` (one coin-flip split, fold 0 of :func:`make_folds`), each
    positive threshold (:func:`_thresholds`), each share ``f`` of test ratings removed and each
    design, the target sets are ranked uniformly at random (scores drawn with a seed of the
    configuration's own, so that configurations are independent draws given their target
    sets).  One row per configuration:
    the measured mean P@n over runs (IRJ Eq. 1 in 1R), ``rho`` (its exact expectation given the
    target sets, :func:`recbias.theory.relevance_ratio`), its simulation standard deviation
    (:func:`recbias.theory.random_precision_sd`), and the closed forms: Eq. 5, ``1 / t``, in 1R;
    Eq. 4, ``sigma (1 - f) |PR| / (t |U|)``, in AR, with ``|U|`` the users averaged over
    (``eq4``) and all users with a rating (``eq4_all_users``).  With ``max_users``, the runs of a
    sample of that many users with a rating (the same in every configuration) are measured, and
    ``|PR|`` and the users with a rating are counted on the sample.  Configurations without runs, or
    with target sets shorter than ``n``, are left out and counted in ``table.attrs["skipped"]``;
    ``table.attrs["users"]`` holds the users measured and the users with a rating.
    """
    rows, skipped = [], 0
    sample = user_sample(np.flatnonzero(ratings.user_counts()), max_users, seed)
    sampled = np.isin(ratings.users, sample)
    for sigma in test_ratios:
        (fold,) = make_folds(ratings, folds=1, test_ratio=sigma, seed=seed)
        runs, settings = {}, {}
        for threshold in _thresholds(ratings):
            n_positive = int(np.count_nonzero(sampled & (ratings.values >= threshold)))
            for k, fraction in enumerate(removed):
                test = remove_test_ratings(fold.test, fraction, seed=fold.seed) if fraction else fold.test
                for d, design in enumerate(designs):
                    built = build_runs(fold.train, test, design, threshold=threshold, on_shortage="exclude",
                                       seed=fold_seed(seed, 100 * k + d), users=sample)
                    if built.n_runs == 0 or built.sizes.min() < n:
                        skipped += 1
                        continue
                    key = f"{design} | sigma {sigma:g} | removed {fraction:g} | threshold {threshold:g}"
                    runs[key] = built
                    settings[key] = {"design": design, "test ratio": sigma, "removed": fraction,
                                     "threshold": threshold, "positives": n_positive}
        for key, built in runs.items():
            scores = np.random.default_rng(fold_seed(seed, len(rows))).random(len(built.items))
            ranked = evaluate_runs(built, scores, [f"P@{n}"])
            measured = float(ranked[f"P@{n}"].mean())
            t, users = target_size(built), int(np.count_nonzero(np.bincount(built.users)))
            one_r = built.design.startswith("1R")
            setting = settings[key]
            share = setting["test ratio"] * (1 - setting["removed"])
            rows.append(setting | {
                "kind": "1R" if one_r else "AR",
                "users": users,
                "runs": built.n_runs,
                "t": t,
                "measured": measured,
                "rho": relevance_ratio(built),
                "sd": random_precision_sd(built, n),
                "theory": expected_random_precision_1r(t) if one_r
                else expected_random_precision_ar(share, setting["positives"], t, users),
                "eq4_all_users": np.nan if one_r
                else expected_random_precision_ar(share, setting["positives"], t, len(sample)),
            })
    table = pd.DataFrame(rows)
    table["z"] = (table["measured"] - table["rho"]) / table["sd"]
    table["z_theory"] = (table["measured"] - table["theory"]) / table["sd"]
    table.attrs["skipped"] = skipped
    table.attrs["users"] = (len(sample), int(np.count_nonzero(ratings.user_counts())))
    return table


def check_summary(check: pd.DataFrame) -> dict[str, float]:
    """How well the closed forms predict the measured random precision: the share of configurations
    within the 95% simulation band (``|z| <= 1.96``) of ``rho``, of Eq. 4/5, of Eq. 5 alone and of Eq. 4
    alone; the largest ``|z|`` against Eq. 4/5; and the range of Eq. 4 with all users over the measured."""
    ar, one_r = check[check["kind"] == "AR"], check[check["kind"] == "1R"]
    with np.errstate(divide="ignore", invalid="ignore"):
        all_users = (ar["eq4_all_users"] / ar["rho"]).to_numpy()
    return {
        "configurations": len(check),
        "within_rho": float((check["z"].abs() <= 1.96).mean()),
        "within_theory": float((check["z_theory"].abs() <= 1.96).mean()),
        "within_theory_1r": float((one_r["z_theory"].abs() <= 1.96).mean()) if len(one_r) else np.nan,
        "within_theory_ar": float((ar["z_theory"].abs() <= 1.96).mean()) if len(ar) else np.nan,
        "max_z": float(check["z_theory"].abs().max()),
        "all_users_low": float(np.nanmin(all_users)) if len(ar) else np.nan,
        "all_users_high": float(np.nanmax(all_users)) if len(ar) else np.nan,
    }


def check_table(check: pd.DataFrame) -> pd.DataFrame:
    """The theory check per design: configurations, the share within the 95% simulation band of the closed
    form (Eq. 4 or Eq. 5) and of ``rho``, and the median ``measured / closed form``."""
    rows = []
    for design, part in check.groupby("design", sort=False):
        rows.append({
            "design": design, "configurations": len(part),
            "closed form": "1/t" if part["kind"].iloc[0] == "1R" else "σ(1−f)·|PR|/(t·|U|)",
            "in band of closed form": fmt_pct((part["z_theory"].abs() <= 1.96).mean(), 0),
            "in band of ρ": fmt_pct((part["z"].abs() <= 1.96).mean(), 0),
            "measured / closed form (median)": fmt_number(float((part["measured"] / part["theory"]).median()), 2),
        })
    return pd.DataFrame(rows)


def check_text(check: pd.DataFrame, ratings: Ratings) -> str:
    """The paragraph that reads the theory check."""
    summary = check_summary(check)
    shown = int((check["measured"] > 0).sum())
    measured, total = check.attrs.get("users", (0, 0))
    sample = f" (the runs of a uniform sample of {measured:,} of its {total:,} users)" if measured < total else ""
    text = (
        f"Over the {summary['configurations']} configurations on *{ratings.name}*{sample}, "
        f"{fmt_pct(summary['within_theory'], 0)} of the measured random precisions lie within the 95% simulation "
        f"band of their closed form ({fmt_pct(summary['within_theory_ar'], 0)} of the AR ones, "
        f"{fmt_pct(summary['within_theory_1r'], 0)} of the 1R ones), and {fmt_pct(summary['within_rho'], 0)} within "
        f"the band of the exact ρ; with independent draws about 95% are expected. The largest deviation is "
        f"{summary['max_z']:.1f} standard deviations."
    )
    skipped = check.attrs.get("skipped", 0)
    if skipped:
        text += (f" {skipped} more configuration{'s' if skipped > 1 else ''} of the grid had no run (too few test "
                 f"ratings or candidates left for the design) and {'are' if skipped > 1 else 'is'} left out.")
    if shown < len(check):
        text += (f" {len(check) - shown} configuration{'s' if len(check) - shown > 1 else ''} measured no relevant "
                 "item at all in the random top lists and cannot be shown on the log scale of the figure.")
    return text


def check_figure(check: pd.DataFrame, n: int):
    """Measured random P@n against Eq. 4 (AR) and Eq. 5 (1R), log-log, with 95% simulation bars (cut at the
    bottom of the axis when they reach zero) and the identity line; grey diamonds: Eq. 4 with every user who
    has a rating in place of the users averaged over."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, 6.6))
    shown = check[check["measured"] > 0]
    ar = shown[shown["kind"] == "AR"]
    values = np.concatenate([shown["theory"], shown["measured"], ar["eq4_all_users"]])
    low, high = values[values > 0].min() / 1.5, values.max() * 1.5
    styles = {"AR": ("#1f77b4", "o"), "1R": ("#d62728", "s")}
    for (kind, candidates), part in shown.groupby([shown["kind"], shown["design"].str.contains("AI")], sort=False):
        colour, marker = styles[kind]
        error = 1.96 * part["sd"]
        below = np.minimum(error, part["measured"] - low)
        ax.errorbar(part["theory"], part["measured"], yerr=[below, error], fmt=marker, ms=6, color=colour,
                    mfc="white" if candidates else colour, elinewidth=1, alpha=0.85,
                    label=f"{kind}, {'AI' if candidates else 'TI'} candidates")
    if len(ar):
        ax.scatter(ar["eq4_all_users"], ar["measured"], marker="D", s=26, facecolors="none", edgecolors="#555555",
                   linewidths=0.9, label=r"AR, closed form with all users in $|\mathcal{U}|$")
    ax.plot([low, high], [low, high], color="#444444", lw=1, ls="--", label="measured = predicted")
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high),
           xlabel=f"predicted random P@{n} (closed form)", ylabel=f"measured random P@{n}")
    plain_log_ticks(ax.xaxis)
    plain_log_ticks(ax.yaxis)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, handletextpad=0.3, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    return fig

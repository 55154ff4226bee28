"""Chapter 3 ("The test-sparsity bias"): how the value of precision follows the density of test ratings.

Bellogín, Castells and Cantador (IRJ 2017, Sec. 4; Bellogín 2012, Sec. 4.4) show that the
expected precision of random recommendation is the share of relevant items in the target
sets, ``rho``: ``sigma delta`` under AR (Eq. 4) and ``1 / t`` under 1R (Eq. 5), so the range
of every system's precision moves with the density of the test ratings.  The chapter's driver
is split by job:

* :mod:`~recbias.experiments.sparsity_check`: the closed forms against measured random precision;
* :mod:`~recbias.experiments.sparsity_sweep`: the sweeps of the papers' Fig. 4 (removed test
  ratings, growing target sets), every metric on the same runs;
* :mod:`~recbias.experiments.sparsity_fits`: bootstrap statistics of the sweeps, fitted lines,
  elasticities and the stability of the order of systems;
* :mod:`~recbias.experiments.sparsity_figures`: the figures of the sweeps;
* :mod:`~recbias.experiments.sparsity_lift`: P@n next to its lift over random on several datasets;
* this module: how the page reads the sweeps (tables and sentences), the papers' statements on
  other metrics, and the scorecard findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias.experiments.sparsity_check import CHECK_RATIOS, CHECK_REMOVED, check_summary
from recbias.experiments.sparsity_fits import SweepStatistics
from recbias.experiments.sparsity_lift import spread_factors
from recbias.experiments.sparsity_sweep import (
    AR_REMOVAL,
    FIT_MAX_REMOVED,
    ONE_R_AI_REMOVAL,
    ONE_R_REMOVAL,
    Sweep,
    personalised,
    point_key,
)
from recbias.ratings import Ratings
from recbias.text import fmt_interval, fmt_number, fmt_pct, fmt_span

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 4"


def fits_table(density: pd.DataFrame, sizes: pd.DataFrame, n: int) -> pd.DataFrame:
    """One row per system: the fitted line of AR P@n in delta, the fitted change of 1R P@n over the removal
    sweep (TI and AI candidates) and the exponent of t, each with its 95% interval."""
    rows = []
    for system in density["system"].unique():
        ar = density[(density["sweep"] == AR_REMOVAL) & (density["system"] == system)]
        row = {"system": system}
        if len(ar):
            r = ar.iloc[0]
            row |= {f"AR P@{n}: slope in δ": fmt_interval(r["slope"], r["slope_ci"], 2),
                    "intercept": fmt_interval(r["intercept"], r["intercept_ci"], 4), "R²": fmt_number(r["r2"], 3)}
        for sweep, label in ((ONE_R_REMOVAL, "1R TI: change"), (ONE_R_AI_REMOVAL, "1R AI: change")):
            part = density[(density["sweep"] == sweep) & (density["system"] == system)]
            if len(part):
                r = part.iloc[0]
                row[label] = f"{r['change']:+.0%} [{r['change_ci'][0]:+.0%}, {r['change_ci'][1]:+.0%}]"
        exponent = sizes[sizes["system"] == system]
        if len(exponent):
            r = exponent.iloc[0]
            row["1R: exponent of t"] = fmt_interval(r["exponent"], r["exponent_ci"], 2)
        rows.append(row)
    return pd.DataFrame(rows)


def elasticity_table(table: pd.DataFrame) -> pd.DataFrame:
    """Elasticities as metric rows and system columns, each cell ``e [low, high]``."""
    doubled = set(table.loc[table["users"] == "all", "metric"])
    labelled = table.assign(
        row=[m if m not in doubled else f"{m}, {'all users' if u == 'all' else 'users with a relevant item'}"
             for m, u in zip(table["metric"], table["users"], strict=True)],
        cell=[fmt_interval(e, ci, 2) for e, ci in zip(table["elasticity"], table["ci"], strict=True)])
    wide = labelled.pivot(index="row", columns="system", values="cell")
    return wide.reindex(index=list(dict.fromkeys(labelled["row"])), columns=list(dict.fromkeys(table["system"]))) \
        .rename_axis(index="metric", columns=None).reset_index()


def order_table(orders: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau of each removal level against the full test set (and the truth), AR and 1R side by side."""
    rows = []
    for x, part in orders.groupby("x", sort=True):
        row = {"test ratings removed": fmt_pct(x, 0)}
        for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
            level = part[part["sweep"] == sweep]
            if not len(level):
                continue
            r = level.iloc[0]
            row[f"{label}: users"] = f"{int(r['users']):,}"
            row[f"{label}: τ vs full test"] = fmt_interval(r["tau"], r["tau_ci"], 2)
            if np.isfinite(r["tau_truth"]):
                row[f"{label}: τ vs truth"] = fmt_interval(r["tau_truth"], r["tau_truth_ci"], 2)
        rows.append(row)
    return pd.DataFrame(rows)


def claims_table(claims: pd.DataFrame) -> pd.DataFrame:
    """The metric statements with their criteria, measured ratios and verdicts."""
    return claims.assign(verdict=np.where(claims["holds"], "holds", "does not hold"))[
        ["statement", "criterion", "ratios", "verdict"]].rename(columns={"ratios": "measured ratios"})


def metric_claims(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """The papers' statements on other metrics (IRJ 2017 Sec. 4.2), each checked on every system but Random.

    Elasticities are compared with that of P@n over the same users (those with a relevant test
    item): ``ratio = e_M / e_P``.  Criteria: recall nearly insensitive, ``|ratio| <= 0.2``; MAP and
    nDCG slightly sensitive, ``0 < ratio <= 0.5``; nDCG@n clearly sensitive, a slope slightly
    flatter than precision's, ``0.5 <= ratio < 1``; MRR like precision, ``0.5 <= ratio <= 1.5``.
    """
    among = table[table["users"] == "with relevant"].set_index(["metric", "system"])["elasticity"]
    systems = [s for s in personalised(list(dict.fromkeys(table["system"]))) if (f"P@{n}", s) in among.index]
    checks = [
        ("recall-insensitive", f"Recall@{n} is nearly insensitive to the density", [f"Recall@{n}"], "|ratio| ≤ 0.2",
         lambda r: abs(r) <= 0.2),
        ("map-ndcg-slightly-sensitive", "MAP and nDCG (no cut-off) are slightly sensitive", ["MAP", "nDCG"],
         "0 < ratio ≤ 0.5", lambda r: 0 < r <= 0.5),
        ("ndcg-at-n-sensitive", f"nDCG@{n} is clearly sensitive, with a slope slightly flatter than P@{n}'s",
         [f"nDCG@{n}"], "0.5 ≤ ratio < 1", lambda r: 0.5 <= r < 1),
        ("mrr-like-precision", f"MRR follows the density as P@{n} does", ["MRR"], "0.5 ≤ ratio ≤ 1.5",
         lambda r: 0.5 <= r <= 1.5),
    ]
    rows = []
    for key, label, metrics, criterion, test in checks:
        ratios = {(m, s): among[(m, s)] / among[(f"P@{n}", s)]
                  for m in metrics for s in systems if (m, s) in among.index}
        if not ratios:
            continue
        rows.append({"key": key, "statement": label, "criterion": criterion,
                     "ratios": f"{min(ratios.values()):.2f} to {max(ratios.values()):.2f}",
                     "holds": bool(all(test(r) for r in ratios.values()))})
    return pd.DataFrame(rows)


def findings(check: pd.DataFrame, density: pd.DataFrame, sizes: pd.DataFrame, orders: pd.DataFrame,
             claims: pd.DataFrame, lift: pd.DataFrame | None, n: int) -> list[dict]:
    """The scorecard findings of Section 4 on this build: ``key``, ``label``, ``holds``, ``evidence``, ``anchor``."""
    out = []
    summary = check_summary(check)
    out.append({"key": "random-precision-is-eq4-eq5", "anchor": "fig-sparsity-check",
                "label": "measured random precision equals Eq. 4 in AR and Eq. 5 in 1R within simulation error",
                "holds": summary["within_theory"] >= 0.9,
                "evidence": f"{fmt_pct(summary['within_theory'], 0)} of {summary['configurations']} configurations "
                            f"within the 95% simulation band (criterion: at least 90%); largest |z| = "
                            f"{summary['max_z']:.1f}"})
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(personalised(density["system"]))]
    if len(ar):
        out.append({"key": "ar-precision-linear-in-density", "anchor": "fig-sparsity-fig4",
                    "label": f"AR P@{n} of every system decreases linearly with the relevance density",
                    "holds": bool((ar["r2"] >= 0.95).all()),
                    "evidence": f"R² of the line in δ: {fmt_span(ar['r2'].min(), ar['r2'].max(), '{:.3f}')} "
                                f"(criterion: at least 0.95 for every system but Random)"})
    personal = density["system"].isin(personalised(density["system"]))
    one_r = density[(density["sweep"] == ONE_R_REMOVAL) & personal]
    one_r_ai = density[(density["sweep"] == ONE_R_AI_REMOVAL) & personal]
    if len(one_r):
        evidence = (f"fitted change from the full test set to {fmt_pct(FIT_MAX_REMOVED, 0)} removed: "
                    f"{fmt_span(one_r['change'].min(), one_r['change'].max(), '{:+.0%}')} with TI-NN candidates")
        if len(one_r_ai):
            evidence += f", {fmt_span(one_r_ai['change'].min(), one_r_ai['change'].max(), '{:+.0%}')} with AI-NN"
        out.append({"key": "1r-precision-independent-of-density", "anchor": "fig-sparsity-fig4",
                    "label": f"1R P@{n} (TI-NN) does not depend on the amount of test ratings",
                    "holds": bool((one_r["change"].abs() <= 0.1).all()),
                    "evidence": evidence + " (criterion: within ±10% for every system but Random)"})
    others = sizes[sizes["system"].isin(personalised(sizes["system"]))]
    if len(others):
        out.append({"key": "1r-precision-inverse-to-t", "anchor": "fig-sparsity-fig4",
                    "label": f"every system's 1R P@{n} is inversely proportional to t",
                    "holds": bool(all(lo <= -1 <= hi for lo, hi in others["exponent_ci"])),
                    "evidence": f"fitted exponents {fmt_span(others['exponent'].min(), others['exponent'].max())} "
                                "for the systems but Random (criterion: -1 inside every 95% interval)"})
    fitted = orders[orders["x"] <= FIT_MAX_REMOVED]
    if len(fitted):
        extreme = orders[orders["x"] > FIT_MAX_REMOVED]
        evidence = (f"Kendall's τ against the full test set: {fmt_span(fitted['tau'].min(), fitted['tau'].max())} "
                    f"up to {fmt_pct(FIT_MAX_REMOVED, 0)} removed")
        if len(extreme):
            evidence += (f"; {fmt_span(extreme['tau'].min(), extreme['tau'].max())} beyond "
                         f"{fmt_pct(FIT_MAX_REMOVED, 0)}")
        out.append({"key": "order-survives-sparsity", "anchor": "fig-sparsity-orders",
                    "label": f"test sparsity does not change the order of systems by P@{n}, except at extreme sparsity",
                    "holds": bool(all(ci[1] >= 1.0 for ci in fitted["tau_ci"])),
                    "evidence": evidence + " (criterion: the 95% interval of τ reaches 1, the full test set's "
                                f"order, at every level up to {fmt_pct(FIT_MAX_REMOVED, 0)})"})
    for _, claim in claims.iterrows():
        out.append({"key": claim["key"], "anchor": "tbl-sparsity-metric-claims", "label": claim["statement"],
                    "holds": bool(claim["holds"]),
                    "evidence": f"elasticity over P@{n}'s: {claim['ratios']} (criterion: {claim['criterion']})"})
    if lift is not None and lift["dataset"].nunique() > 1:
        spread = spread_factors(lift).loc[personalised(lift["system"].unique())]
        out.append({"key": "1r-values-comparable-across-datasets", "anchor": "tbl-sparsity-spread",
                    "label": f"with a fixed t, 1R P@{n} varies less across datasets than AR P@{n}",
                    "holds": bool((spread[("1R", "P")] < spread[("AR", "P")]).all()),
                    "evidence": f"largest over smallest value across {lift['dataset'].nunique()} datasets, systems but "
                                f"Random: 1R {spread[('1R', 'P')].min():.1f} to {spread[('1R', 'P')].max():.1f}, AR "
                                f"{spread[('AR', 'P')].min():.1f} to {spread[('AR', 'P')].max():.1f}"})
    return out


def findings_table(checked: Sequence[Mapping]) -> pd.DataFrame:
    """The registered findings as a table: statement, verdict, evidence."""
    return pd.DataFrame({"statement": [c["label"] for c in checked],
                         "verdict": ["holds" if c["holds"] else "does not hold" for c in checked],
                         "evidence": [c["evidence"] for c in checked]})


def settings_table(ratings: Ratings, ar: str, folds: int, test_ratio: float, n: int, removed: Sequence[float],
                   sizes: Sequence[int], base_size: int, sweep_users: int | None, n_boot: int) -> pd.DataFrame:
    """The page's settings as a two-column table."""
    rows = [
        ("systems", "Popularity, pLSA, MF, user-kNN, Random (the papers' five, as in chapter 2)"),
        ("splits", f"{folds} coin-flip split{'s' if folds > 1 else ''}, σ = {test_ratio:g}"),
        ("positive threshold", f"{ratings.positive_threshold:g}"),
        ("cut-off n", f"{n}"),
        ("AR design", ar),
        ("1R design", f"1R TI-NN({base_size - 1}) and 1R AI-NN({base_size - 1}), |T_u^r| = {base_size}"),
        ("test ratings removed, f", ", ".join(fmt_pct(f, 0) for f in removed)
         + f" (lines fitted up to {fmt_pct(FIT_MAX_REMOVED, 0)})"),
        ("1R target sizes requested", ", ".join(f"{s:,}" for s in sizes)),
        ("users followed by the sweeps and the check", "all" if sweep_users is None
         else f"at most {sweep_users:,}, sampled"),
        ("theory check", f"σ ∈ {{{', '.join(f'{r:g}' for r in CHECK_RATIOS)}}} × f ∈ "
                         f"{{{', '.join(fmt_pct(f, 0) for f in CHECK_REMOVED)}}} × 2 thresholds × 5 designs"),
        ("intervals", f"95%, bootstrap over users ({n_boot} resamples)"),
    ]
    return pd.DataFrame(rows, columns=["setting", "value"])


def sweep_texts(sweep: Sweep, stats: SweepStatistics, density: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, str]:
    """The sentences that read the papers' Fig. 4 on this page."""
    folds = int(sweep.points["fold"].nunique())
    out = {
        "folds_text": f"{folds} coin-flip split{'s' if folds > 1 else ''} of {sweep.dataset}",
        "ar_design": sweep.designs[0], "one_r_design": sweep.designs[1],
        "size_range": (f"{sweep.sizes[0]:,} to {sweep.sizes[-1]:,} items" if sweep.sizes
                       else "larger sizes (none fits this catalogue)"),
        "size_users": f"{sweep.size_users:,}",
        "size_sample": "" if sweep.size_users == 0 else " of the first split",
        "followed_text": (f"all {sweep.followed[1]:,} users with a relevant test item"
                          if sweep.followed[0] == sweep.followed[1]
                          else f"a uniform sample of {sweep.followed[0]:,} of the {sweep.followed[1]:,} users with a "
                               "relevant test item (parameter sweep_users)"),
    }
    personal = personalised(sweep.systems)
    out["ar_text"] = _ar_text(density, personal, sweep.n)
    out["one_r_text"] = _one_r_text(sweep, stats, density, personal)
    out["size_text"] = _size_text(sizes, personal, sweep.n)
    return out


def _covers(ci: tuple[float, float], value: float) -> bool:
    return bool(ci[0] <= value <= ci[1])


def _ar_text(density: pd.DataFrame, personal: Sequence[str], n: int) -> str:
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(personal)]
    if not len(ar):
        return "Too few removal levels had AR runs to fit a line on this dataset."
    text = (
        f"**AR precision is a line in the density.** From the full test set to {fmt_pct(FIT_MAX_REMOVED, 0)} of it "
        f"removed, the AR P@{n} of every system but Random falls by "
        f"{fmt_span(-ar['change'].max(), -ar['change'].min(), '{:.0%}')}, and a straight line in the test density fits "
        f"each of them with R² of {fmt_span(ar['r2'].min(), ar['r2'].max(), '{:.3f}')}. The slopes differ "
        f"({fmt_span(ar['slope'].min(), ar['slope'].max(), '{:.1f}')}): each system turns density into precision at its "
        "own rate, but all of them follow the density."
    )
    random = density[(density["sweep"] == AR_REMOVAL) & (density["system"] == "Random")]
    if len(random):
        r = random.iloc[0]
        text += (f" Random recommendation has slope {fmt_interval(r['slope'], r['slope_ci'])}, "
                 + ("in line with the 1 of Eq. 4." if _covers(r["slope_ci"], 1.0) else "against the 1 of Eq. 4."))
    below = [ci[1] < 0 for ci in ar["intercept_ci"]]
    if all(below):
        text += (
            " The lines do not go through the origin: their intercepts are negative, with intervals below zero. The "
            "reason is the candidate pool. Thinning the test set removes the rarely rated items from the TI pool "
            "first; that lowers t and props up the density, but the systems never ranked those items near the top "
            "anyway, so their precision falls a little faster than the density."
        )
    elif not any(below):
        text += (" Within their intervals, the lines go through the origin or above it: precision is proportional "
                 "to the density.")
    else:
        text += (f" The intercept is negative, with an interval below zero, for {sum(below)} of the {len(below)} "
                 "systems: for them precision falls a little faster than the density, as the rarely rated items that "
                 "leave the TI pool first lower t without costing the systems any hit.")
    return text


def _one_r_text(sweep: Sweep, stats: SweepStatistics, density: pd.DataFrame, personal: Sequence[str]) -> str:
    ti = density[(density["sweep"] == ONE_R_REMOVAL) & density["system"].isin(personal)]
    ai = density[(density["sweep"] == ONE_R_AI_REMOVAL) & density["system"].isin(personal)]
    if not len(ti):
        return "No 1R removal level had runs on this dataset."
    levels = stats.levels[(stats.levels["sweep"] == ONE_R_REMOVAL) & (stats.levels["x"] <= FIT_MAX_REMOVED)]
    last = levels["x"].max()
    pool = sweep.points[sweep.points["sweep"] == ONE_R_REMOVAL].groupby("x")["candidates"].mean()
    flat_ti = bool((ti["change"].abs() <= 0.1).all())
    text = (
        "**1R precision is set by the design, not by the test data, as long as the candidates stay the same.** "
        f"With TI-NN candidates, the papers' design, the 1R P@{sweep.n} of the systems other than Random changes by "
        f"{fmt_span(ti['change'].min(), ti['change'].max(), '{:+.0%}')} from the full test set to {fmt_pct(last, 0)} "
        "removed, while AR precision loses most of its value over the same range. "
    )
    if flat_ti:
        text += "That is within ±10% for every system: 1R precision hardly notices the thinning. "
    else:
        text += (
            "The change is not negligible, and the candidate pool is the reason: TI draws the non-relevant items of a "
            f"run from the items with a test rating, {pool.iloc[0]:,.0f} on the full test set and "
            f"{pool.loc[last]:,.0f} at {fmt_pct(last, 0)} removed. Thinning the test set changes which items can be "
            "sampled as non-relevant (the rarely rated ones leave the pool first) and which users still have enough "
            "of them to get a run at all. "
        )
        if (ti["change"] < 0).all():
            text += ("Here every system loses: the pool that remains is made of popular items, which the systems other "
                     "than Random rank high, so the sampled non-relevant items become harder to beat. ")
    if len(ai):
        flat_ai = bool((ai["change"].abs() <= 0.1).all())
        text += (
            "With AI-NN candidates the pool is the whole catalogue whatever the test set, and the change is "
            f"{fmt_span(ai['change'].min(), ai['change'].max(), '{:+.0%}')}"
            + (": a relevant test rating removed at random leaves the others as they were, and 1R precision, an "
               "average over them, stays where it was." if flat_ai else
               "; on this dataset even the fixed pool does not keep every system within ±10%, as fewer and fewer "
               "users keep a relevant test rating and the average runs over a changing set of users.")
        )
    return text


def _size_text(sizes: pd.DataFrame, personal: Sequence[str], n: int) -> str:
    fitted = sizes[sizes["system"].isin(personal)]
    if not len(fitted):
        return "The catalogue is too small for a size sweep of three or more points."
    random = sizes[sizes["system"] == "Random"]
    slower = bool((fitted["exponent"] > -1).all())
    excluded = sum(not _covers(ci, -1.0) for ci in fitted["exponent_ci"])
    text = "**1R precision falls with the size of the target sets" + (", but more slowly than 1/t.** " if slower
                                                                       else ".** ")
    if len(random):
        r = random.iloc[0]
        text += (f"Random 1R precision has exponent {fmt_interval(r['exponent'], r['exponent_ci'])}, "
                 + ("in line with Eq. 5's -1. " if _covers(r["exponent_ci"], -1.0) else
                    "close to Eq. 5's -1 (a log-log fit of four noisy means; the theory check above tests Eq. 5 "
                    "directly). " if abs(r["exponent"] + 1) <= 0.15 else "against Eq. 5's -1. "))
    which = (f"all {len(fitted)}" if excluded == len(fitted) else "none" if excluded == 0
             else f"{excluded} of the {len(fitted)}")
    text += (f"The other systems have exponents of {fmt_span(fitted['exponent'].min(), fitted['exponent'].max())}; "
             f"the interval excludes -1 for {which}.")
    if slower:
        text += (f" Eq. 5 describes random recommendation exactly; a system that ranks the relevant item high keeps it "
                 f"in its top {n} even when many more non-relevant items are added, so its precision falls more slowly "
                 "than the random baseline, and its lead over random grows with t.")
    return text


def metrics_text(table: pd.DataFrame, n: int, sweep: Sweep) -> str:
    """What the elasticities of the systems other than Random say, metric by metric."""
    personal = table[table["system"].isin(personalised(table["system"].unique()))]
    grouped = personal.groupby(["metric", "users"], sort=False)["elasticity"]
    ranges = {key: (values.min(), values.max()) for key, values in grouped}

    def span(metric: str, users: str = "with relevant") -> str:
        return fmt_span(*ranges[(metric, users)])

    parts = [f"For the systems other than Random, the elasticity of P@{n} over all users of the full test set is "
             f"{span(f'P@{n}', 'all')}, and that of MRR {span('MRR', 'all')}."]
    if (f"P@{n}", "with relevant") in ranges:
        parts.append(f"Over the users who still have a relevant item they are {span(f'P@{n}')} and {span('MRR')}; "
                     "the difference is the part of the sensitivity that comes from users who lose every relevant "
                     "test item and score 0.")
    parts.append(f"Recall@{n} has {span(f'Recall@{n}')}, MAP {span('MAP')}, nDCG {span('nDCG')} and "
                 f"nDCG@{n} {span(f'nDCG@{n}')}.")
    full = sweep.targets[(sweep.targets["point"] == point_key(AR_REMOVAL, 0.0)) & (sweep.targets["run"] >= 0)]
    parts.append(f"On the full test set, {fmt_pct(float((full['relevant'] > n).mean()), 0)} of the users have more "
                 f"than {n} relevant test items.")
    return " ".join(parts)


def order_text(orders: pd.DataFrame, stats: SweepStatistics, ratings: Ratings) -> str:
    """Where the order of systems holds and where it gives way."""
    parts = []
    for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
        part = orders[orders["sweep"] == sweep].sort_values("x")
        if not len(part):
            continue
        broken = part[part["tau"] < 1.0]
        if len(broken):
            first = broken.iloc[0]
            pairs = "; ".join(f"{a} above {b}" for a, b in first["swapped"])
            holds = part[part["x"] < first["x"]]["x"].max()
            kept = (f"holds up to {fmt_pct(holds, 0)} removed" if holds > 0
                    else "changes at the first removal level")
            parts.append(f"Under {label}, the order of the full test set {kept}; at {fmt_pct(first['x'], 0)} τ is "
                         f"{fmt_interval(first['tau'], first['tau_ci'])} with {int(first['users']):,} users left"
                         + (f" ({pairs}, against the order of the full test set)." if pairs else ".")
                         + ("" if first["tau_ci"][1] < 1 else " The interval still reaches 1: the change is within the "
                            "noise of the resampled users."))
        else:
            parts.append(f"Under {label}, the order of the full test set holds at every level, down to "
                         f"{int(part.iloc[-1]['users']):,} users at {fmt_pct(part.iloc[-1]['x'], 0)} removed.")
        shaky = part[(part["same_order"] < 0.5) & (part["tau"] == 1.0)]
        if len(shaky):
            parts.append(f"Even where the point estimate keeps the order, fewer than half of the resamples reproduce "
                         f"it exactly from {fmt_pct(shaky['x'].min(), 0)} removed on: the closest systems are within "
                         "the noise.")
    one_r = stats.levels[stats.levels["sweep"] == ONE_R_REMOVAL].sort_values("x")
    if len(one_r) > 1:
        parts.append("In 1R a user without any relevant test rating has no run at all: "
                     f"{int(one_r.iloc[0]['users']):,} "
                     f"users have runs on the full test set, {int(one_r.iloc[-1]['users']):,} at "
                     f"{fmt_pct(one_r.iloc[-1]['x'], 0)} removed, and the precision of the others is averaged as if "
                     "they did not exist, so 1R hides the thinning that AR shows.")
    truth = orders["tau_truth"].dropna()
    if len(truth):
        full = orders[(orders["x"] == 0) & (orders["sweep"] == AR_REMOVAL)].iloc[0]
        parts.append(f"Against the true order of the simulated world, the full test set scores τ = "
                     f"{full['tau_truth']:.2f} under AR; sparsity does not turn that into a different kind of error, "
                     f"the τ against the truth stays between {truth.min():.2f} and {truth.max():.2f} at every level.")
    elif ratings.true_relevance is None:
        parts.append(f"*{ratings.name}* is observed data without a complete truth, so the true order is not available "
                     "here; build the chapter on `synthetic` to see it.")
    return " ".join(parts)

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
* :mod:`~recbias.experiments.sparsity_findings`: the papers' statements with their verdicts;
* this module: how the page reads the sweeps, in tables and sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.experiments.sparsity_check import CHECK_RATIOS, CHECK_REMOVED
from recbias.experiments.sparsity_fits import SweepStatistics
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
from recbias.text import fmt_ci, fmt_interval, fmt_number, fmt_pct, fmt_span

def ar_fits_table(density: pd.DataFrame) -> pd.DataFrame:
    """One row per system: the line fitted to AR P@n in the density, ``a + b delta``, with 95% intervals, its
    R² and the fitted relative change from the full test set to the sparsest fitted level."""
    ar = density[density["sweep"] == AR_REMOVAL]
    return pd.DataFrame({
        "system": ar["system"],
        "slope b": [fmt_ci(r["slope"], r["slope_ci"], 1) for _, r in ar.iterrows()],
        "intercept a": [fmt_ci(r["intercept"], r["intercept_ci"], 4) for _, r in ar.iterrows()],
        "R²": [fmt_number(r, 3) for r in ar["r2"]],
        f"change, 0 to {fmt_pct(FIT_MAX_REMOVED, 0)} removed": [fmt_ci(r["change"], r["change_ci"], fmt="{:+.0%}")
                                                                for _, r in ar.iterrows()],
    })


def one_r_fits_table(density: pd.DataFrame, sizes: pd.DataFrame) -> pd.DataFrame:
    """One row per system: the fitted relative change of 1R P@n over the removal sweep with TI-NN and AI-NN
    candidates (a rescaled slope in the density, 0 when flat), and the exponent ``e`` of ``P@n ~ t^e`` in the
    size sweep, each with its 95% interval."""
    rows = []
    for system in dict.fromkeys(density["system"]):
        row = {"system": system}
        for sweep, label in ((ONE_R_REMOVAL, "TI-NN: change"), (ONE_R_AI_REMOVAL, "AI-NN: change")):
            part = density[(density["sweep"] == sweep) & (density["system"] == system)]
            if len(part):
                r = part.iloc[0]
                row[f"{label}, 0 to {fmt_pct(FIT_MAX_REMOVED, 0)} removed"] = fmt_ci(r["change"], r["change_ci"],
                                                                                    fmt="{:+.0%}")
        exponent = sizes[sizes["system"] == system]
        if len(exponent):
            r = exponent.iloc[0]
            row["exponent e of t"] = fmt_ci(r["exponent"], r["exponent_ci"], 2)
        rows.append(row)
    return pd.DataFrame(rows)


def elasticity_table(table: pd.DataFrame) -> pd.DataFrame:
    """Elasticities of the systems other than Random as metric rows and system columns, each cell the value over
    its interval (Random's metrics other than precision are noise around their own random level)."""
    table = table[table["system"].isin(personalised(table["system"].unique()))]
    doubled = set(table.loc[table["users"] == "all", "metric"])
    labelled = table.assign(
        row=[m if m not in doubled else f"{m}<br><small>{'all users' if u == 'all' else 'with a relevant item'}</small>"
             for m, u in zip(table["metric"], table["users"], strict=True)],
        cell=[fmt_ci(e, ci, 2) for e, ci in zip(table["elasticity"], table["ci"], strict=True)])
    wide = labelled.pivot(index="row", columns="system", values="cell")
    return wide.reindex(index=list(dict.fromkeys(labelled["row"])), columns=list(dict.fromkeys(table["system"]))) \
        .rename_axis(index="metric", columns=None).reset_index()


def order_table(orders: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau of each removal level against the full test set (and the truth), AR and 1R side by side,
    each tau over its interval."""
    rows = []
    for x, part in orders.groupby("x", sort=True):
        row = {"removed": fmt_pct(x, 0)}
        for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
            level = part[part["sweep"] == sweep]
            if not len(level):
                continue
            r = level.iloc[0]
            row[f"{label}: users"] = f"{int(r['users']):,}"
            row[f"{label}: τ, full test set"] = fmt_ci(r["tau"], r["tau_ci"], 2)
            if np.isfinite(r["tau_truth"]):
                row[f"{label}: τ, truth"] = fmt_ci(r["tau_truth"], r["tau_truth_ci"], 2)
        rows.append(row)
    return pd.DataFrame(rows)


def claims_table(claims: pd.DataFrame) -> pd.DataFrame:
    """The metric statements with their criteria, measured ratios and verdicts."""
    return claims.assign(verdict=np.where(claims["holds"], "holds", "does not hold"))[
        ["statement", "criterion", "ratios", "verdict"]].rename(columns={"ratios": "measured ratios"})


def settings_table(ratings: Ratings, ar: str, folds: int, test_ratio: float, n: int, removed: Sequence[float],
                   sizes: Sequence[int], base_size: int, sweep_users: int | None, n_boot: int) -> pd.DataFrame:
    """The page's settings as a two-column table."""
    rows = [
        ("systems", "Popularity, pLSA, MF, user-kNN, Random (the papers' five, as in chapter 2)"),
        ("splits", f"{folds} coin-flip split{'s' if folds > 1 else ''}, σ = {test_ratio:g}"),
        ("relevant", f"a test rating ≥ {ratings.positive_threshold:g}"),
        ("cut-off n", f"{n}"),
        ("AR design", ar),
        ("1R designs", f"1R TI-NN({base_size - 1}) and 1R AI-NN({base_size - 1}): target sets of {base_size} items, "
                       f"one relevant and {base_size - 1} sampled"),
        ("test ratings removed, f", ", ".join(fmt_pct(f, 0) for f in removed)
         + f" (lines fitted up to {fmt_pct(FIT_MAX_REMOVED, 0)})"),
        ("1R target sizes asked for", ", ".join(f"{s:,}" for s in sizes)),
        ("users followed", "all" if sweep_users is None else f"at most {sweep_users:,} per sweep, sampled"),
        ("theory check", f"σ ∈ {{{', '.join(f'{r:g}' for r in CHECK_RATIOS)}}} × f ∈ "
                         f"{{{', '.join(fmt_pct(f, 0) for f in CHECK_REMOVED)}}} × the positive threshold and the "
                         "rating value below it × 5 designs"),
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
                               "relevant test item (parameter `sweep_users`)"),
    }
    personal = personalised(sweep.systems)
    out["ar_text"] = _ar_text(density, personal, sweep.n)
    out["one_r_text"] = _one_r_text(sweep, density, personal)
    out["size_text"] = _size_text(sizes, personal, sweep.n)
    return out


def _covers(ci: tuple[float, float], value: float) -> bool:
    return bool(ci[0] <= value <= ci[1])


def ar_loss_text(density: pd.DataFrame) -> str:
    """How much AR precision the systems other than Random lose from the full test set to the sparsest
    fitted level, e.g. ``"90% to 92%"``."""
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(personalised(density["system"]))]
    return fmt_span(-ar["change"].max(), -ar["change"].min(), "{:.0%}") if len(ar) else "n/a"


def _ar_text(density: pd.DataFrame, personal: Sequence[str], n: int) -> str:
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(personal)]
    if not len(ar):
        return "Too few removal levels had AR runs to fit a line on this dataset."
    linear = bool((ar["r2"] >= 0.95).all())
    text = (
        ("**AR precision is a line in the density.** " if linear else "**AR precision follows the density, but not "
         "along a straight line for every system.** ")
        + f"From the full test set to {fmt_pct(FIT_MAX_REMOVED, 0)} of it removed, the AR P@{n} of every system but "
        f"Random falls by {ar_loss_text(density)}, and a straight line in the test density fits them with R² of "
        f"{fmt_span(ar['r2'].min(), ar['r2'].max(), '{:.3f}')}. The slopes differ "
        f"({fmt_span(ar['slope'].min(), ar['slope'].max(), '{:.1f}')}): each system turns density into precision at "
        "its own rate."
    )
    random = density[(density["sweep"] == AR_REMOVAL) & (density["system"] == "Random")]
    if len(random):
        r = random.iloc[0]
        text += (f" Random recommendation has slope {fmt_interval(r['slope'], r['slope_ci'])}, "
                 + ("in line with the slope 1 of σδ." if _covers(r["slope_ci"], 1.0) else
                    "away from the slope 1 of σδ."))
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


def _one_r_text(sweep: Sweep, density: pd.DataFrame, personal: Sequence[str]) -> str:
    ti = density[(density["sweep"] == ONE_R_REMOVAL) & density["system"].isin(personal)]
    ai = density[(density["sweep"] == ONE_R_AI_REMOVAL) & density["system"].isin(personal)]
    if not len(ti):
        return "No 1R removal level had runs on this dataset."
    flat_ti = bool((ti["change"].abs() <= 0.1).all())
    flat_ai = bool(len(ai)) and bool((ai["change"].abs() <= 0.1).all())
    pool = sweep.points[(sweep.points["sweep"] == ONE_R_REMOVAL) & (sweep.points["x"] <= FIT_MAX_REMOVED)] \
        .groupby("x")["candidates"].mean()
    head = ("**1R precision does not follow the test data.** " if flat_ti else
            "**1R precision is set by the design, as long as the candidates stay the same.** " if flat_ai else
            "**1R precision moves less than AR precision, but it moves.** ")
    text = (
        head + f"With TI-NN candidates, the papers' design, the 1R P@{sweep.n} of the systems other than Random "
        f"changes by {fmt_span(ti['change'].min(), ti['change'].max(), '{:+.0%}')} from the full test set to "
        f"{fmt_pct(FIT_MAX_REMOVED, 0)} removed, while AR precision loses most of its value. "
    )
    if not flat_ti:
        text += (
            "The candidate pool is the reason: TI draws the sampled items of a run from the items with a test rating, "
            f"{pool.iloc[0]:,.0f} on the full test set and {pool.iloc[-1]:,.0f} at {fmt_pct(pool.index[-1], 0)} "
            "removed. The rarely rated items leave the pool first, "
        )
        text += ("so the sampled items that remain are popular ones, which the systems rank high, and they become "
                 "harder to beat. " if (ti["change"] < 0).all() else "which changes what the sampled items look "
                 "like. ")
    if len(ai):
        text += (
            "With AI-NN candidates the pool is the whole catalogue whatever the test set, and the change is "
            f"{fmt_span(ai['change'].min(), ai['change'].max(), '{:+.0%}')}"
            + (": a relevant test rating removed at random leaves the others as they were, and 1R precision, an "
               "average over them, stays where it was." if flat_ai else
               "; even the fixed pool does not keep every system within ±10% here, as fewer users keep a relevant "
               "test rating and the average runs over a changing set of users.")
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
                 + ("in line with the -1 of 1/t. " if _covers(r["exponent_ci"], -1.0) else
                    "close to the -1 of 1/t (a log-log fit of a few noisy means; the theory check above tests 1/t "
                    "directly). " if abs(r["exponent"] + 1) <= 0.15 else "away from the -1 of 1/t. "))
    which = ("every one of them" if excluded == len(fitted) else "none of them" if excluded == 0
             else f"{excluded} of them")
    text += (f"The other systems have exponents of {fmt_span(fitted['exponent'].min(), fitted['exponent'].max())}, "
             f"and the interval excludes -1 for {which}.")
    if slower:
        text += (f" A system that ranks the relevant item high keeps it in its top {n} even when many more sampled "
                 "items are added, so its precision falls more slowly than the random baseline, and its lead over "
                 "random grows with t.")
    return text


def metrics_text(table: pd.DataFrame, claims: pd.DataFrame, n: int, sweep: Sweep) -> str:
    """What the elasticities of the systems other than Random say, read off the table, in the words that the
    verdicts of :func:`~recbias.experiments.sparsity_findings.metric_claims` allow."""
    personal = table[table["system"].isin(personalised(table["system"].unique()))]
    ranges = {key: (values.min(), values.max())
              for key, values in personal.groupby(["metric", "users"], sort=False)["elasticity"]}
    verdicts = claims.set_index("key")

    def span(metric: str, users: str = "with relevant") -> str:
        return fmt_span(*ranges[(metric, users)])

    def calm(key: str) -> bool:
        return key in verdicts.index and verdicts.loc[key, "highest"] <= 0.5

    parts = [f"Over all users of the full test set, P@{n} has an elasticity of {span(f'P@{n}', 'all')} for the "
             "systems other than Random."]
    if (f"P@{n}", "with relevant") in ranges:
        parts.append(f"Over the users who still have a relevant item it is {span(f'P@{n}')}: the rest of the "
                     "sensitivity comes from users who lose every relevant test item and score 0.")
    if (f"Recall@{n}", "with relevant") in ranges:
        recall = "recall-insensitive" in verdicts.index and verdicts.loc["recall-insensitive", "holds"]
        parts.append(f"Recall@{n} " + ("stays near 0" if recall else "does not stay near 0")
                     + f" ({span(f'Recall@{n}')}), and the metrics without a cut-off, MAP and nDCG, "
                     + ("keep a small part of the trend" if calm("map-ndcg-slightly-sensitive") else "keep much of it")
                     + f" ({span('MAP')} and {span('nDCG')}).")
    if (f"nDCG@{n}", "with relevant") in ranges:
        full = sweep.targets[(sweep.targets["point"] == point_key(AR_REMOVAL, 0.0)) & (sweep.targets["run"] >= 0)]
        many = fmt_pct(float((full["relevant"] > n).mean()), 0)
        parts.append(f"nDCG@{n} ({span(f'nDCG@{n}')}) " + (
            f"sits with them rather than with precision: only {many} of the users have more than {n} relevant test "
            "items on the full test set, the case in which the papers expect it to follow the density."
            if calm("ndcg-at-n-sensitive") else
            f"follows the density more closely, as the papers describe; {many} of the users have more than {n} "
            "relevant test items on the full test set."))
    return " ".join(parts)


def exposure_text(claims: pd.DataFrame, n: int) -> str:
    """The closing summary's sentence on normalised metrics: those whose elasticity is at most half of
    precision's for every system (:func:`~recbias.experiments.sparsity_findings.metric_claims`), or that
    none is."""
    names = {"recall-insensitive": [f"Recall@{n}"], "map-ndcg-slightly-sensitive": ["MAP", "nDCG without a cut-off"],
             "ndcg-at-n-sensitive": [f"nDCG@{n}"]}
    calm = [label for key, high in zip(claims["key"], claims["highest"], strict=True)
            if key in names and high <= 0.5 for label in names[key]]
    if not calm:
        return (f"Here recall, MAP and nDCG follow the density about as closely as P@{n}; report the test density "
                "with all of them.")
    listed = calm[0] if len(calm) == 1 else ", ".join(calm[:-1]) + " and " + calm[-1]
    return (f"Here {listed} react{'s' if len(calm) == 1 else ''} to the density at most half as much as P@{n} does, "
            "but they can only average over users who have relevant test items; say how the others were treated.")


def order_kept_text(orders: pd.DataFrame) -> str:
    """How far the AR order of the full test set held on this page, for the closing summary."""
    part = orders[orders["sweep"] == AR_REMOVAL].sort_values("x")
    broken = part[part["tau"] < 1.0]
    if not len(broken):
        return f"here the AR order held down to {fmt_pct(part['x'].max(), 0)} of the test ratings removed"
    kept = part[part["x"] < broken["x"].iloc[0]]["x"].max()
    return (f"here the AR order held up to {fmt_pct(kept, 0)} of the test ratings removed" if kept > 0
            else "here the AR order changed at the first removal level")


def order_text(orders: pd.DataFrame, stats: SweepStatistics, ratings: Ratings) -> str:
    """Where the order of systems holds and where it gives way."""
    parts = []
    for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
        part = orders[orders["sweep"] == sweep].sort_values("x")
        if not len(part):
            continue
        broken = part[part["tau"] < 1.0]
        firm = part[[ci[1] < 1.0 for ci in part["tau_ci"]]]
        if not len(broken):
            parts.append(f"Under {label}, the order of the full test set holds at every level, down to "
                         f"{int(part.iloc[-1]['users']):,} users at {fmt_pct(part.iloc[-1]['x'], 0)} removed.")
            continue
        first = broken.iloc[0]
        kept = part[part["x"] < first["x"]]["x"].max()
        pairs = " and ".join(f"{a} moves above {b}" for a, b in first["swapped"])
        text = (f"Under {label}, the order of the full test set "
                + (f"holds up to {fmt_pct(kept, 0)} removed" if kept > 0 else "changes at the first removal level")
                + f"; at {fmt_pct(first['x'], 0)} removed, with {int(first['users']):,} users left, "
                + (pairs if pairs else "the order changes")
                + f" (τ = {fmt_interval(first['tau'], first['tau_ci'])}).")
        if len(firm):
            where = [fmt_pct(x, 0) for x in firm["x"]]
            listed = where[0] if len(where) == 1 else ", ".join(where[:-1]) + " and " + where[-1]
            text += (f" At {listed} removed the interval of τ no longer reaches 1: there the change is larger than "
                     "the noise of the users.")
        else:
            text += " The interval of τ still reaches 1 at every level: the changes are within the noise of the users."
        parts.append(text)
    one_r = stats.levels[stats.levels["sweep"] == ONE_R_REMOVAL].sort_values("x")
    if len(one_r) > 1:
        parts.append("In 1R a user without any relevant test rating has no run at all: "
                     f"{int(one_r.iloc[0]['users']):,} users have runs on the full test set and "
                     f"{int(one_r.iloc[-1]['users']):,} at {fmt_pct(one_r.iloc[-1]['x'], 0)} removed, and the "
                     "precision of the others is averaged as if the rest did not exist, so 1R hides the thinning that "
                     "AR shows.")
    truth = orders.loc[orders["sweep"] == AR_REMOVAL, "tau_truth"].dropna()
    if len(truth):
        full = orders[(orders["x"] == 0) & (orders["sweep"] == AR_REMOVAL)].iloc[0]
        parts.append(f"Against the true order of the simulated world, AR on the full test set has τ = "
                     f"{fmt_number(full['tau_truth'], 2)}, and τ against the truth stays between "
                     f"{fmt_number(truth.min(), 2)} and {fmt_number(truth.max(), 2)} at every level: thinning adds "
                     "noise to an order that the full test set already gets "
                     + ("right." if full["tau_truth"] == 1 else "partly wrong."))
    elif ratings.true_relevance is None:
        parts.append(f"*{ratings.name}* is observed data without a complete truth, so the true order is not available "
                     "here; build the chapter on `synthetic` to see it.")
    return " ".join(parts)

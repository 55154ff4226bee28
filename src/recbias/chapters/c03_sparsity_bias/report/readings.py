"""What the page's prose quotes from the study: numbers and verdict words to glue into its sentences
(``*_phrases``, each a ``{glue name: text}`` mapping), and the few sentences whose structure depends
on the data (``*_sentences``, ``*_note``: "" when there is nothing to say)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE
from recbias.chapters.c03_sparsity_bias.claims import (
    FINDINGS,
    Span,
    fit_values,
    lift_values,
    metric_ratios,
    world_values,
)
from recbias.chapters.c03_sparsity_bias.study.fits import ORDER_CHANGED, ORDER_KEPT, ORDER_TOO_WIDE, ORDER_UNCLEAR, fits_of
from recbias.chapters.c03_sparsity_bias.study.lift import is_one_r, spread_factors
from recbias.chapters.c03_sparsity_bias.study.sweeps import (
    AR_REMOVAL,
    FIT_MAX_REMOVED,
    ONE_R_AI_REMOVAL,
    ONE_R_REMOVAL,
    Sweep,
    personalised,
    point_key,
)
from recbias.chapters.c03_sparsity_bias.study.theory_check import CheckSummary
from recbias.text import and_list, fmt_count, fmt_interval, fmt_number, fmt_pct

#: the statements of the papers, by key: the readings use their criteria rather than restating them
BY_KEY = {finding.key: finding for finding in FINDINGS}
#: a metric whose elasticity is at most this share of precision's counts as calm in the readings
CALM = 0.5


def holds(key: str, values: Mapping[str, Any]) -> bool:
    """Whether the finding ``key`` holds on ``values`` (False when a value it needs is missing)."""
    criterion = BY_KEY[key].criterion
    return all(name in values for name in criterion.names) and criterion(values) == HOLDS


def outcome(key: str, values: Mapping[str, Any]) -> str | None:
    """The outcome of the finding ``key`` on ``values`` (None when a value it needs is missing)."""
    criterion = BY_KEY[key].criterion
    return criterion(values) if all(name in values for name in criterion.names) else None


def _systems(table: pd.DataFrame) -> list[str]:
    """The systems of a table of fits other than Random (none when nothing was fitted)."""
    return personalised(table["system"].unique()) if len(table) else []


def _covers(ci: tuple[float, float], value: float) -> bool:
    return bool(ci[0] <= value <= ci[1])


def check_phrases(summary: CheckSummary) -> dict[str, str]:
    """The theory check in numbers: configurations, shares within the 95% band, the largest deviation, the
    users measured, and the range of Eq. 4 with all users over the exact ``rho``."""
    measured, total = summary.users
    return {
        "check_configurations": f"{summary.configurations:,}",
        "check_sample": (f" (the runs of a uniform sample of {measured:,} of its {total:,} users)"
                         if measured < total else ""),
        "check_within": fmt_pct(summary.within_theory, 0), "check_within_ar": fmt_pct(summary.within_theory_ar, 0),
        "check_within_1r": fmt_pct(summary.within_theory_1r, 0), "check_within_rho": fmt_pct(summary.within_rho, 0),
        "check_max_z": f"{summary.max_z:.1f}",
        "all_users_low": fmt_pct(summary.all_users_low, 0), "all_users_high": fmt_pct(summary.all_users_high, 0),
    }


def check_note(summary: CheckSummary) -> str:
    """The configurations of the grid that had no run or that measured nothing a log scale can show."""
    parts = []
    if summary.skipped:
        parts.append(f"{fmt_count(summary.skipped, 'more configuration', 'more configurations')} of the grid had no "
                     "run (too few test ratings or candidates left for the design) and "
                     f"{'is' if summary.skipped == 1 else 'are'} left out.")
    if summary.unshown:
        parts.append(f"{fmt_count(summary.unshown, 'configuration', 'configurations')} measured no relevant item at "
                     "all in the random top lists and cannot be shown on the log scale of the figure.")
    return " ".join(parts)


def sweep_phrases(sweep: Sweep) -> dict[str, str]:
    """How the sweeps were run: splits, users followed, designs and target sizes."""
    folds = int(sweep.points["fold"].nunique())
    followed, rated = sweep.followed
    return {
        "n": f"{sweep.n}", "fit_max_removed": fmt_pct(FIT_MAX_REMOVED, 0),
        "folds_text": f"{fmt_count(folds, 'coin-flip split', 'coin-flip splits')} of {sweep.dataset}",
        "ar_design": sweep.designs[0], "one_r_design": sweep.designs[1],
        "size_range": (f"{sweep.sizes[0]:,} to {sweep.sizes[-1]:,} items" if sweep.sizes
                       else "larger sizes (none fits this catalogue)"),
        "size_users": f"{sweep.size_users:,}",
        "size_sample": "" if sweep.size_users == 0 else " of the first split",
        "followed_text": (f"all {rated:,} users with a relevant test item" if followed == rated
                          else f"a uniform sample of {followed:,} of the {rated:,} users with a relevant test item "
                               "(parameter sweep_users)"),
    }


def _ar_loss(density: pd.DataFrame) -> str:
    """How much AR precision the systems other than Random lose from the full test set to the sparsest
    fitted level, e.g. ``"90% to 92%"``."""
    ar = fits_of(density, AR_REMOVAL, _systems(density))
    return format(Span(-ar["change"]) if len(ar) else Span([]), ".0%")


def _share_of(k: int, total: int) -> str:
    """``"all 4"``, ``"none of the 4"`` or ``"2 of the 4"``."""
    return f"all {total}" if k == total and total else f"none of the {total}" if k == 0 else f"{k} of the {total}"


def ar_phrases(density: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, str]:
    """The reading of the AR removal sweep: the verdict, the loss, R², slopes, Random's slope and the intercepts."""
    ar, random = fits_of(density, AR_REMOVAL, _systems(density)), fits_of(density, AR_REMOVAL, ["Random"])
    below = [high < 0 for _, high in ar["intercept_ci"]] if len(ar) else []
    linear = outcome("ar-precision-linear-in-density", fit_values(density, sizes))
    return {
        "ar_headline": ("Too few removal levels had AR runs to fit a line on this dataset." if not len(ar) else
                        "AR precision is a line in the density." if linear == HOLDS else
                        "AR precision follows the density; for the weakest systems the sampling noise hides "
                        "whether it does so along a line." if linear == INCONCLUSIVE else
                        "AR precision follows the density, but not along a straight line for every system."),
        "ar_loss": _ar_loss(density),
        "ar_r2": format(Span(ar["r2"] if len(ar) else []), ".3f"),
        "ar_slopes": format(Span(ar["slope"] if len(ar) else []), ".1f"),
        "ar_random_slope": fmt_interval(random["slope"].iloc[0], random["slope_ci"].iloc[0]) if len(random) else "n/a",
        "ar_random_reading": "in line with" if len(random) and _covers(random["slope_ci"].iloc[0], 1.0)
        else "away from",
        "ar_negative_intercepts": _share_of(sum(below), len(below)),
    }


def one_r_phrases(sweep: Sweep, density: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, str]:
    """The reading of the 1R removal sweeps: the verdict, the change with TI-NN and AI-NN candidates, and how
    the TI pool shrinks."""
    ti, ai = (fits_of(density, sweep, _systems(density)) for sweep in (ONE_R_REMOVAL, ONE_R_AI_REMOVAL))
    values = fit_values(density, sizes)
    flat_ti = holds("1r-precision-independent-of-density", values)
    unclear_ti = outcome("1r-precision-independent-of-density", values) == INCONCLUSIVE
    flat_ai = "one_r_ai_change_low" in values and holds(
        "1r-precision-independent-of-density",
        {"one_r_change_low": values["one_r_ai_change_low"], "one_r_change_high": values["one_r_ai_change_high"]})
    points = sweep.points
    fitted = points[(points["sweep"] == ONE_R_REMOVAL) & (points["x"] <= FIT_MAX_REMOVED)]
    pool = fitted.groupby("x")["candidates"].mean()
    falls = bool(len(ti)) and bool((ti["change"] < 0).all())
    return {
        "one_r_headline": ("1R precision does not follow the test data." if flat_ti else
                           "Whether 1R precision follows the test data is within the noise here." if unclear_ti else
                           "1R precision is set by the design, as long as the candidates stay the same." if flat_ai
                           else "1R precision moves less than AR precision, but it moves." if len(ti)
                           else "No 1R removal level had runs on this dataset."),
        "one_r_change": format(Span(ti["change"] if len(ti) else []), "+.0%"),
        "one_r_ai_change": format(Span(ai["change"] if len(ai) else []), "+.0%"),
        "pool_full": f"{pool.iloc[0]:,.0f}" if len(pool) else "n/a",
        "pool_thin": f"{pool.iloc[-1]:,.0f}" if len(pool) else "n/a",
        "pool_thin_level": fmt_pct(pool.index[-1], 0) if len(pool) else "n/a",
        "one_r_ti_reading": ("here that barely moves the systems' precision" if flat_ti else
                             "they are harder to beat, and every system loses precision" if falls else
                             "what the sampled items look like changes, and precision with it"),
        "one_r_ai_reading": ("and 1R precision, an average over them, stays where it was" if flat_ai else
                             "yet 1R precision still moves for some system, as fewer users keep a relevant test "
                             "rating and the average runs over a changing set of users"),
    }


def size_phrases(sizes: pd.DataFrame) -> dict[str, str]:
    """The reading of the size sweep: the verdict, Random's exponent against the -1 of 1/t, the others'."""
    fitted, random = fits_of(sizes, None, _systems(sizes)), fits_of(sizes, None, ["Random"])
    excluded = sum(not _covers(ci, -1.0) for ci in fitted["exponent_ci"]) if len(fitted) else 0
    slower = bool(len(fitted)) and bool((fitted["exponent"] > -1).all())
    exponent, ci = (random["exponent"].iloc[0], random["exponent_ci"].iloc[0]) if len(random) else (np.nan, None)
    return {
        "size_headline": ("1R precision falls with the size of the target sets, but more slowly than 1/t." if slower
                          else "1R precision falls with the size of the target sets." if len(fitted)
                          else "The catalogue is too small for a size sweep of three or more points."),
        "size_random_exponent": fmt_interval(exponent, ci) if ci is not None else "n/a",
        "size_random_reading": ("in line with" if ci is not None and _covers(ci, -1.0) else
                                "close to" if abs(exponent + 1) <= 0.15 else "away from"),
        "size_exponents": format(Span(fitted["exponent"] if len(fitted) else []), ".2f"),
        "size_excluded": ("every one of them" if len(fitted) and excluded == len(fitted)
                          else "none of them" if excluded == 0 else f"{excluded} of them"),
    }


def metric_phrases(elasticities: pd.DataFrame, sweep: Sweep) -> dict[str, str]:
    """The reading of the elasticities of the systems other than Random, in the words the verdicts of
    :data:`~.claims.METRIC_FINDINGS` allow."""
    n = sweep.n
    personal = elasticities[elasticities["system"].isin(personalised(elasticities["system"].unique()))]
    spans = {key: format(Span(values), ".2f")
             for key, values in personal.groupby(["metric", "users"], sort=False)["elasticity"]}
    ratios = metric_ratios(elasticities, n)
    full = sweep.targets[(sweep.targets["point"] == point_key(AR_REMOVAL, 0.0)) & (sweep.targets["run"] >= 0)]
    span = {name: spans.get((metric, users), "n/a") for name, metric, users in (
        ("elasticity_p_all", f"P@{n}", "all"), ("elasticity_p_relevant", f"P@{n}", "with relevant"),
        ("elasticity_recall", f"Recall@{n}", "with relevant"), ("elasticity_map", "MAP", "with relevant"),
        ("elasticity_ndcg", "nDCG", "with relevant"), ("elasticity_ndcg_at_n", f"nDCG@{n}", "with relevant"))}
    return span | {
        "recall_reading": "stays near 0" if holds("recall-insensitive", ratios) else "does not stay near 0",
        "map_ndcg_reading": ("keep a small part of the trend" if _calm(ratios, "map_ndcg_ratio")
                             else "keep much of it"),
        "ndcg_at_n_reading": ("sits with them rather than with precision" if _calm(ratios, "ndcg_at_n_ratio")
                              else "follows the density more closely, as the papers describe"),
        "many_relevant": fmt_pct(float((full["relevant"] > n).mean()), 0) if len(full) else "n/a",
    }


def _calm(ratios: Mapping[str, Any], name: str) -> bool:
    """Whether every ratio of ``name`` is at most :data:`CALM` (the metric moves at most half as much as P@n)."""
    return name in ratios and float(np.max(ratios[name])) <= CALM


def exposure_sentence(elasticities: pd.DataFrame, n: int) -> str:
    """The closing summary's sentence on normalised metrics: those that react at most half as much as precision
    for every system, or that none does."""
    ratios = metric_ratios(elasticities, n)
    names = {"recall_ratio": [f"Recall@{n}"], "map_ndcg_ratio": ["MAP", "nDCG without a cut-off"],
             "ndcg_at_n_ratio": [f"nDCG@{n}"]}
    calm = [label for name, labels in names.items() if _calm(ratios, name) for label in labels]
    if not calm:
        return (f"Here recall, MAP and nDCG follow the density about as closely as P@{n}; report the test density "
                "with all of them.")
    return (f"Here {and_list(calm)} react{'s' if len(calm) == 1 else ''} to the density at most half as much as "
            f"P@{n} does, but they can only average over users who have relevant test items; say how the others were treated.")


def _order_sentence(part: pd.DataFrame, label: str) -> str:
    """Where the order of one design holds, where it first changes, and at which levels the interval of tau says the
    order was kept, changed, or cannot tell."""
    broken = part[part["tau"] < 1.0]
    last = part.iloc[-1]
    if not len(broken):
        head = (f"Under {label}, the order of the full test set holds at every level, down to "
                f"{int(last['users']):,} users at {fmt_pct(last['x'], 0)} removed. ")
    else:
        first = broken.iloc[0]
        kept = part[part["x"] < first["x"]]["x"].max()
        swaps = and_list([f"{better} moves above {worse}" for better, worse in first["swapped"]]) \
            if len(first["swapped"]) else "the order changes"
        head = (f"Under {label}, the order of the full test set "
                + (f"holds up to {fmt_pct(kept, 0)} removed" if kept > 0 else "changes at the first removal level")
                + f"; at {fmt_pct(first['x'], 0)} removed, with {int(first['users']):,} users left, {swaps} "
                f"(τ = {fmt_interval(first['tau'], first['tau_ci'])}). ")
    levels = part[part["x"] > 0]
    changed = [fmt_pct(x, 0) for x in levels.loc[levels["verdict"] == ORDER_CHANGED, "x"]]
    unclear = [fmt_pct(x, 0) for x in levels.loc[levels["verdict"] == ORDER_UNCLEAR, "x"]]
    tail = []
    if changed:
        tail.append(f"At {and_list(changed)} removed the interval of τ stays below 1: there the order changed beyond "
                    "the noise of the users.")
    if unclear:
        tail.append(f"At {and_list(unclear)} removed the interval reaches 1 but also {ORDER_TOO_WIDE:g} or below, too "
                    "wide to tell whether the order was kept.")
    if not tail:
        tail.append("At every level the interval of τ reaches 1 and stays above "
                    f"{ORDER_TOO_WIDE:g}: the order is kept within the noise of the users.")
    return head + " ".join(tail)


def world_sentences(world: pd.DataFrame | None, name: str, here: str, sweep: Sweep) -> str:
    """The verdict of the 1R statement on the ML-1M-shaped world, set beside this page's dataset and its TI pool."""
    if world is None or not len(world):
        return f"The check was not run for this build (`world_check = False`); build with it on to see {name}."
    values = world_values(world, name, FIT_MAX_REMOVED)
    verdict = outcome("1r-precision-independent-of-density-ml1m", values)
    others = world[world["system"].isin(personalised(world["system"].tolist()))]
    kept = world["pool_thinned"].iloc[0] / world["pool_full"].iloc[0]
    pool = sweep.points[(sweep.points["sweep"] == ONE_R_REMOVAL) & (sweep.points["x"] <= FIT_MAX_REMOVED)]
    pool = pool.groupby("x")["candidates"].mean()
    here_kept = pool.iloc[-1] / pool.iloc[0] if len(pool) else np.nan
    reading = {HOLDS: "the statement holds there: every interval lies within ±10%",
               FAILS: "the statement fails there: an interval lies wholly outside ±10%",
               INCONCLUSIVE: "the test cannot tell there: an interval straddles ±10%"}[verdict]
    return (f"On {name} the 1R P@n of the systems other than Random changes by {Span(others['change']):+.0%} "
            f"({fmt_count(int(world['users'].iloc[0]), 'user', 'users')} followed), and {reading}. Its TI pool keeps "
            f"{fmt_pct(kept, 0)} of its items at {fmt_pct(FIT_MAX_REMOVED, 0)} removed"
            + (f", against {fmt_pct(here_kept, 0)} on {here}." if np.isfinite(here_kept) else "."))


def order_truth_caption(orders: pd.DataFrame) -> str:
    """The caption's sentence on the true order: what the dashed lines are when they are drawn, or that there are
    none."""
    if len(orders) and orders["tau_truth"].notna().any():
        return "Dashed: τ against the true order of the simulated world."
    return "No true order is drawn: the dataset has no complete truth."


def order_sentences(orders: pd.DataFrame) -> str:
    """Where the order of systems by P@n holds and where it gives way, under AR and under 1R."""
    parts = [(orders[orders["sweep"] == sweep].sort_values("x"), label)
             for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R"))]
    return " ".join(_order_sentence(part, label) for part, label in parts if len(part))


def order_kept(orders: pd.DataFrame) -> str:
    """How far the AR order of the full test set held, for the closing summary."""
    part = orders[orders["sweep"] == AR_REMOVAL].sort_values("x")
    broken = part[part["verdict"] != ORDER_KEPT]
    if not len(broken):
        return f"here the AR order was kept, within noise, down to {fmt_pct(part['x'].max(), 0)} of the test ratings removed"
    first = broken.iloc[0]
    kept = part[part["x"] < first["x"]]["x"].max()
    how = "changed" if first["verdict"] == ORDER_CHANGED else "could no longer be told from noise"
    return (f"here the AR order was kept up to {fmt_pct(kept, 0)} of the test ratings removed and {how} at "
            f"{fmt_pct(first['x'], 0)}" if kept > 0 else f"here the AR order {how} at the first removal level")


def one_r_population_phrases(levels: pd.DataFrame) -> dict[str, str]:
    """Users with a 1R run on the full test set and at the sparsest level that has runs."""
    one_r = levels[levels["sweep"] == ONE_R_REMOVAL].sort_values("x")
    if not len(one_r):
        return {"one_r_users_full": "n/a", "one_r_users_last": "n/a", "one_r_last_level": "n/a"}
    return {"one_r_users_full": f"{int(one_r.iloc[0]['users']):,}",
            "one_r_users_last": f"{int(one_r.iloc[-1]['users']):,}", "one_r_last_level": fmt_pct(one_r.iloc[-1]["x"], 0)}


def truth_sentence(orders: pd.DataFrame, dataset: str, simulated: bool) -> str:
    """How the measured order compares with the true order of a simulated world, or why there is none."""
    ar = orders[orders["sweep"] == AR_REMOVAL]
    truth = ar["tau_truth"].dropna()
    if not len(truth):
        return "" if simulated else (f"*{dataset}* is observed data without a complete truth, so the true order is "
                                     "not available here; build the chapter on `synthetic` to see it.")
    full = ar.loc[ar["x"] == 0, "tau_truth"].iloc[0]
    low, high = fmt_number(truth.min(), 2), fmt_number(truth.max(), 2)
    return (f"Against the true order of the simulated world, AR on the full test set has τ = {fmt_number(full, 2)}, "
            f"and τ against the truth stays {f'at {low}' if low == high else f'between {low} and {high}'} at every "
            "level: thinning adds noise to an order that the full test set already gets "
            + ("right." if full == 1 else "partly wrong."))


def lift_sentences(lift: pd.DataFrame, n: int) -> str:
    """How far ρ, P@n and the lift over random spread across the datasets and designs of the lift study."""
    configurations = lift.groupby(["dataset", "design"], sort=False).ngroups
    if lift["dataset"].nunique() < 2:
        return (f"Only this page's dataset is available to this build ({configurations} designs), so the comparison "
                "across datasets is not made; build with `compare_all = True` on a machine with the other datasets.")
    spread = spread_factors(lift).loc[personalised(lift["system"].unique())]
    rho = lift[~is_one_r(lift["design"])].groupby("dataset", sort=False)["rho"].first()
    t = round(1 / lift.loc[is_one_r(lift["design"]), "rho"].iloc[0])
    span = {column: format(Span(spread[column]), ".1f") for column in spread.columns}
    one_r_better = holds("1r-values-comparable-across-datasets", lift_values(lift))
    lift_helps = bool((spread[("AR", "lift")] < spread[("AR", "P")]).all())
    return (
        f"Across the datasets, ρ under AR ranges from {rho.min():.4f} ({rho.idxmin()}) to {rho.max():.4f} "
        f"({rho.idxmax()}); under 1R it is 1/{t} everywhere. For the systems other than Random, AR P@{n} spreads by a "
        f"factor of {span[('AR', 'P')]} across the datasets and 1R P@{n} by {span[('1R', 'P')]}"
        + (": with t fixed by the design, 1R values are the more comparable, as the papers suggest. " if one_r_better
           else ": fixing t does not make 1R values more comparable than AR ones here. ")
        + (f"Dividing by ρ narrows the spread of AR values to {span[('AR', 'lift')]}" if lift_helps
           else f"Dividing by ρ does not help AR: the lift spreads by {span[('AR', 'lift')]}")
        + f"; across all datasets and designs together the lift spreads by {span[('all', 'lift')]} against "
        f"{span[('all', 'P')]} for P@{n} itself."
    )

"""The statements of IRJ 2017 Section 4 as findings (Section 4 publishes no number: ``published.csv`` is header-only),
each with its criterion and what the page says of each outcome, and :func:`measured`, the one flat mapping of values
they are checked on and the page quotes, in which a :class:`Span` holds the values of several systems (or levels):
every one is tested, and a template shows their range.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import (CLOSE_SHARE, CLOSE_SHARE_ORIGIN, CODE, FAILS, HOLDS, INCONCLUSIVE,
                                    MEASURED, NOT_CHECKED, Finding, at_least, interval_between, measured_only,
                                    none_of, resampled_share)
from recbias.chapters.c03_sparsity_bias.study.fits import elasticity_ratio, fits_of
from recbias.chapters.c03_sparsity_bias.study.lift import is_one_r, spread_below_share, spread_factors
from recbias.chapters.c03_sparsity_bias.study.sweeps import (AR_REMOVAL, FIT_MAX_REMOVED, ONE_R_AI_REMOVAL,
                                                             ONE_R_REMOVAL, Sweep, personalised, point_key)
from recbias.chapters.c03_sparsity_bias.study.theory_check import CheckSummary
from recbias.text import fmt_pct, fmt_span

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 4"
#: the papers' numbers the chapter reproduces (none: the file is header-only)
PUBLISHED = Path(__file__).with_name("published.csv")


class Span(np.ndarray):
    """Values of several systems, levels or configurations, tested one by one by a criterion and shown in a template
    as their range (:func:`recbias.text.fmt_span`): ``"{r2:.3f}"`` gives ``"0.999 to 1.000"``, or ``"n/a"``."""

    def __new__(cls, values: Any) -> Span:
        return np.asarray(values, dtype=float).reshape(-1).view(cls)

    def __format__(self, spec: str) -> str:
        if self.size == 0:
            return "n/a"
        return fmt_span(float(np.min(self)), float(np.max(self)), "{:" + spec + "}")


#: the relative 1R change from the full test set to the sparsest fitted level within which 1R P@n counts as not
#: depending on the amount of test ratings: the papers give no number, so the book's one margin for "close to"
ONE_R_BOUND = CLOSE_SHARE
#: the share of the theory check's configurations that must lie within their 95% simulation band
CHECK_SHARE = 0.9
CHECK_SHARE_ORIGIN = ("the book's: a 95% band misses about one configuration in twenty by chance, and 0.9 allows "
                      "twice that")
#: the papers' words on the shape of AR and 1R precision, which no margin can be traced to
NO_MARGIN = "no verdict: the papers give no number to say how close to {} the fit must come"

#: the papers' statements on other metrics (Sec. 4.2), each measured by the ratio of the metric's elasticity to
#: P@n's over the same users, with its 95% interval over the same resamples; the papers put no number on "nearly
#: insensitive", "slightly" or "clearly", so no margin can be traced and the book gives no verdict
RATIO_EVIDENCE = ("elasticity over P@{{n}}'s: {{{name}:.2f}} (95% intervals from {{{name}_low:.2f}} up to "
                  "{{{name}_high:.2f}})")
RATIO_WORDS = "no verdict: the papers give no number to set the ratio against"
#: what the page says of a statement on another metric
RATIO_SAYS = ("The papers say that *{statement}*; here its elasticity over P@{{n}}'s is {{{name}:.2f}} (95% "
              "intervals from {{{name}_low:.2f}} up to {{{name}_high:.2f}}).")


def _ratio_finding(key: str, statement: str, name: str) -> Finding:
    """A statement on a metric's elasticity relative to P@n's: the ratio and its intervals, without a verdict."""
    return Finding(key, statement, SOURCE, "tbl-sparsity-metric-claims",
                   measured_only(name, f"{name}_low", f"{name}_high", words=RATIO_WORDS),
                   RATIO_EVIDENCE.format(name=name), says={MEASURED: RATIO_SAYS.format(statement=statement, name=name)})


METRIC_FINDINGS = [
    _ratio_finding("recall-insensitive", "Recall@{n} is nearly insensitive to the density", "recall_ratio"),
    _ratio_finding("map-ndcg-slightly-sensitive", "MAP and nDCG (no cut-off) are slightly sensitive", "map_ndcg_ratio"),
    _ratio_finding("ndcg-at-n-sensitive", "nDCG@{n} is clearly sensitive, with a slope slightly flatter than P@{n}'s",
                   "ndcg_at_n_ratio"),
    _ratio_finding("mrr-like-precision", "MRR follows the density as P@{n} does", "mrr_ratio"),
]

#: what the page says of the ML-1M-shaped world, around the words of each outcome
WORLD_SAYS = ("On {{world}} the 1R P@n of the systems other than Random changes by {{world_change:+.0%}} "
              "({{world_users:,}} users followed), and {}. Its TI pool keeps {{world_pool_kept:.0%}} of its items at "
              "{{world_removed:.0%}} removed, against {{pool_kept:.0%}} on {{dataset}}.")
#: what the page says of the spread across datasets, around the words of each outcome
LIFT_SAYS = ("Across the datasets, ρ under AR ranges from {{rho_low:.4f}} ({{rho_low_dataset}}) to {{rho_high:.4f}} "
             "({{rho_high_dataset}}); under 1R it is 1/{{one_r_t:.0f}} everywhere. For the systems other than Random, "
             "AR P@{{n}} spreads by a factor of {{spread_ar:.1f}} across the datasets and 1R P@{{n}} by "
             "{{spread_1r:.1f}}: {}. Divided by ρ, AR values spread by {{spread_ar_lift:.1f}}; across all datasets "
             "and designs together the lift spreads by {{spread_all_lift:.1f}} against {{spread_all_p:.1f}} for "
             "P@{{n}} itself.")

#: every statement of Section 4 the page checks
FINDINGS = [
    Finding("random-precision-is-eq4-eq5",
            "measured random precision equals the paper's Eq. 4 (AR) and Eq. 5 (1R) within simulation error",
            SOURCE, "fig-sparsity-check",
            at_least("check_within", CHECK_SHARE, what="the share within the band", origin=CHECK_SHARE_ORIGIN),
            "{check_within:.0%} of {check_configurations} configurations within the 95% simulation band; "
            "largest |z| = {check_max_z:.1f}", origin=CODE),
    Finding("ar-precision-linear-in-density", "AR P@{n} of every system decreases linearly with the relevance density",
            SOURCE, "fig-sparsity-ar",
            measured_only("ar_r2", "ar_scatter", words=NO_MARGIN.format("a line")),
            "R² of the line in δ: {ar_r2:.3f}; scatter about it {ar_scatter:.1f} times the points' sampling noise",
            says={MEASURED: "**AR precision follows the density.** The papers call the relation linear without a "
                            "number that would say how straight, so the book shows the fit and gives no verdict: the "
                            "points stray from the line by {ar_scatter:.1f} times their sampling noise (about 1 when "
                            "only noise is left)."}),
    Finding("1r-precision-independent-of-density", "1R P@{n} (TI-NN) does not depend on the amount of test ratings",
            SOURCE, "fig-sparsity-one-r",
            interval_between("one_r_change_low", "one_r_change_high", -ONE_R_BOUND, ONE_R_BOUND,
                             what="the TI-NN change", origin=CLOSE_SHARE_ORIGIN),
            "fitted change from the full test set to {fit_max_removed:.0%} removed, systems but Random: "
            "{one_r_change:+.0%} with TI-NN candidates (95% intervals from {one_r_change_low:+.0%} up to "
            "{one_r_change_high:+.0%}), {one_r_ai_change:+.0%} with AI-NN",
            note="on a small dataset the TI pool shrinks as test ratings are removed (see the page)",
            says={HOLDS: "**1R precision does not follow the test data.**",
                  FAILS: "**1R precision moves less than AR precision, but it moves.**",
                  INCONCLUSIVE: "**Whether 1R precision follows the test data is within the noise here.**"}),
    Finding("1r-ai-precision-independent-of-density",
            "1R P@{n} with AI-NN candidates does not depend on the amount of test ratings", SOURCE,
            "fig-sparsity-one-r",
            interval_between("one_r_ai_change_low", "one_r_ai_change_high", -ONE_R_BOUND, ONE_R_BOUND,
                             what="the AI-NN change", origin=CLOSE_SHARE_ORIGIN),
            "fitted change from the full test set to {fit_max_removed:.0%} removed, systems but Random, with AI-NN "
            "candidates: {one_r_ai_change:+.0%} (95% intervals from {one_r_ai_change_low:+.0%} up to "
            "{one_r_ai_change_high:+.0%})",
            departs="AI-NN candidates in place of the papers' TI-NN, to tell the design from its shrinking pool",
            says={HOLDS: "A relevant test rating removed at random leaves the others as they were, and 1R precision, "
                         "an average over them, stays where it was, within ±10%: **1R precision is set by the design, "
                         "as long as the candidates stay the same.**",
                  FAILS: "A relevant test rating removed at random leaves the others as they were, yet 1R precision "
                         "moves beyond ±10% for some system, as fewer users keep a relevant test rating and the "
                         "average runs over a changing set of users.",
                  INCONCLUSIVE: "A relevant test rating removed at random leaves the others as they were; whether 1R "
                                "precision, an average over them, stays within ±10% is within the noise here."}),
    Finding("1r-precision-independent-of-density-ml1m",
            "1R P@{n} (TI-NN) does not depend on the amount of test ratings, on a world of MovieLens 1M's shape",
            SOURCE, "tbl-sparsity-one-r-world",
            interval_between("world_change_low", "world_change_high", -ONE_R_BOUND, ONE_R_BOUND, what="the change",
                             origin=CLOSE_SHARE_ORIGIN),
            "on {world}, change from the full test set to {world_removed:.0%} removed, systems but Random: "
            "{world_change:+.0%} (95% intervals from {world_change_low:+.0%} up to {world_change_high:+.0%}); "
            "TI pool {world_pool_full:,} to {world_pool_thinned:,} items",
            departs="a simulated world of MovieLens 1M's shape, one split, in place of MovieLens 1M and five splits",
            says={HOLDS: WORLD_SAYS.format("the statement holds there: every interval lies within ±10%"),
                  FAILS: WORLD_SAYS.format("the statement fails there: an interval lies wholly outside ±10%"),
                  INCONCLUSIVE: WORLD_SAYS.format("the test cannot tell there: an interval straddles ±10%")}),
    Finding("1r-precision-inverse-to-t", "every system's 1R P@{n} is inversely proportional to t", SOURCE,
            "fig-sparsity-size",
            measured_only("size_exponent", "size_exponent_low", "size_exponent_high",
                          words=NO_MARGIN.format("an exponent of −1")),
            "fitted exponents {size_exponent:.2f} for the systems but Random (95% intervals from "
            "{size_exponent_low:.2f} up to {size_exponent_high:.2f}); 1/t has −1",
            says={MEASURED: "**1R precision falls with the size of the target sets.** The papers call it inversely "
                            "proportional to t without a number that would say how close to −1 the exponent must "
                            "come, so the book measures it and gives no verdict."}),
    Finding("order-survives-sparsity",
            "test sparsity does not change the order of systems by P@{n}, except at extreme sparsity", SOURCE,
            "fig-sparsity-orders",
            none_of("order_changed", "order_kept", "order_levels", words=(
                "holds if τ's 95% interval lies above the τ of one swapped pair at every level up to {} removed (the "
                "order kept beyond noise), fails if it stays below 1 at one, inconclusive otherwise"
            ).format(fmt_pct(FIT_MAX_REMOVED, 0))),
            "Kendall's τ against the full test set: {order_tau:.2f} up to {fit_max_removed:.0%} removed (95% "
            "intervals from {order_tau_low:.2f} up to {order_tau_high:.2f}); {order_tau_beyond:.2f} beyond "
            "{fit_max_removed:.0%}",
            says={HOLDS: "Up to {fit_max_removed:.0%} removed, the order is kept within the noise of the users at all "
                         "{order_levels} levels of AR and 1R (the full test set included): the interval of τ reaches "
                         "1 at each.",
                  FAILS: "Up to {fit_max_removed:.0%} removed, under AR and 1R, the order changed beyond the noise of "
                         "the users at {order_changed} of the {order_levels} levels, where the interval of τ stays "
                         "below 1.",
                  INCONCLUSIVE: "Up to {fit_max_removed:.0%} removed, under AR and 1R, no level changed the order "
                                "beyond the noise of the users, but at {order_unclear} of the {order_levels} levels "
                                "the interval of τ reaches {order_one_swap:.2f}, the τ of one swapped pair, or below: "
                                "too wide to tell whether the order was kept."}),
    *METRIC_FINDINGS,
    Finding("1r-values-comparable-across-datasets",
            "with a fixed t, 1R P@{n} varies less across datasets than AR P@{n}", SOURCE, "tbl-sparsity-spread",
            resampled_share("spread_below_share", what="the share of resamples of the users (within each dataset) in "
                            "which the 1R spread is below the AR spread for every system but Random"),
            "largest over smallest value across {lift_datasets} datasets, systems but Random: 1R {spread_1r:.1f}, "
            "AR {spread_ar:.1f}; 1R below AR for every system in {spread_below_share:.1%} of the resamples",
            says={HOLDS: LIFT_SAYS.format("with t fixed by the design, 1R values are the more comparable, as the "
                                          "papers suggest"),
                  FAILS: LIFT_SAYS.format("fixing t does not make 1R values more comparable than AR ones here"),
                  INCONCLUSIVE: LIFT_SAYS.format("the 1R spread is below the AR spread for every system in "
                                                 "{spread_below_share:.0%} of the resamples of the users, too few to "
                                                 "tell beyond noise whether fixing t makes 1R values more "
                                                 "comparable")}),
]

#: what the page says in place of a finding this build did not check, when it says more than that it could not
UNMEASURED = {
    "1r-precision-independent-of-density-ml1m": "The check was not run for this build (`world_check = False`); "
                                                "build with it on to see the world of MovieLens 1M's shape.",
    "1r-values-comparable-across-datasets": "Only this page's dataset is available to this build, so the comparison "
                                            "across datasets is not made; build with `compare_all = True` on a "
                                            "machine with the other datasets.",
}
#: what the page says in place of any other finding it could not check (too few levels or sizes had runs)
NOT_MEASURED = "*This dataset has too few test ratings or items for this check.*"
FINDINGS = [replace(finding, says={NOT_CHECKED: UNMEASURED.get(finding.key, NOT_MEASURED)} | finding.says)
            for finding in FINDINGS]
#: what the page says of the true order: on a simulated world, and on observed data without one
TRUTH = {True: "Against the true order of the simulated world, AR on the full test set has τ = {truth_tau_full:.2f}, "
               "and τ against the truth takes values of {truth_tau:.2f} across the levels: thinning adds noise to "
               "the order of the full test set, which is itself as far from the true order as that first τ says "
               "(τ = 1 when they agree).",
         False: "*{dataset}* is observed data without a complete truth, so the true order is not available here; "
                "build the chapter on `synthetic` to see it."}


def sweep_values(sweep: Sweep) -> dict[str, Any]:
    """How the sweeps were run, the 1R TI pool at the full test set and at the sparsest fitted level, and the share of
    the users of the full AR test set with more than n relevant items."""
    followed, rated = sweep.followed
    points = sweep.points
    one_r = points[(points["sweep"] == ONE_R_REMOVAL) & (points["x"] <= FIT_MAX_REMOVED)]
    pool = one_r.groupby("x")["candidates"].mean() if len(one_r) else pd.Series([np.nan], index=[np.nan])
    full = sweep.targets[(sweep.targets["point"] == point_key(AR_REMOVAL, 0.0)) & (sweep.targets["run"] >= 0)]
    return {"n": sweep.n, "dataset": sweep.dataset, "fit_max_removed": FIT_MAX_REMOVED,
            "folds": int(points["fold"].nunique()), "followed": followed, "rated": rated,
            "ar_design": sweep.designs[0], "one_r_design": sweep.designs[1],
            "size_low": min(sweep.sizes, default=np.nan), "size_high": max(sweep.sizes, default=np.nan),
            "size_users": sweep.size_users, "pool_full": pool.iloc[0], "pool_thin": pool.iloc[-1],
            "pool_thin_level": pool.index[-1], "pool_kept": pool.iloc[-1] / pool.iloc[0],
            "many_relevant": float((full["relevant"] > sweep.n).mean()) if len(full) else np.nan}


def _interval(name: str, intervals: pd.Series) -> dict[str, Span]:
    """The lower and upper ends of a column of intervals as ``<name>_low`` and ``<name>_high``."""
    low, high = zip(*intervals, strict=True)
    return {f"{name}_low": Span(low), f"{name}_high": Span(high)}


def fit_values(density: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, Any]:
    """What was fitted: along the AR sweep, R², scatter, loss, slopes, intercepts below zero, Random's slope; the change along the 1R sweeps; the
    exponent of ``t`` (Random's apart); 95% intervals as ``<name>_low`` and ``<name>_high``."""
    values: dict[str, Any] = {}
    ar, one_r, one_r_ai = (fits_of(density, sweep) for sweep in (AR_REMOVAL, ONE_R_REMOVAL, ONE_R_AI_REMOVAL))
    random = fits_of(density, AR_REMOVAL, ["Random"])
    if len(ar):
        values |= {"ar_r2": Span(ar["r2"]), "ar_scatter": Span(ar["scatter"]), "ar_systems": len(ar),
                   "ar_loss": Span(-ar["change"]), "ar_slope": Span(ar["slope"]),
                   "ar_intercept_below": sum(high < 0 for _, high in ar["intercept_ci"])}
    if len(random):
        values |= {"ar_random_slope": random["slope"].iloc[0]} | _interval("ar_random_slope", random["slope_ci"])
    if len(one_r):
        values |= {"one_r_change": Span(one_r["change"]), "one_r_ai_change": Span(one_r_ai["change"])}
        values |= _interval("one_r_change", one_r["change_ci"])
    if len(one_r_ai):
        values |= _interval("one_r_ai_change", one_r_ai["change_ci"])
    others = fits_of(sizes, None)
    if len(others):
        values |= {"size_exponent": Span(others["exponent"])} | _interval("size_exponent", others["exponent_ci"])
    random = fits_of(sizes, None, ["Random"])
    if len(random):
        values |= {"size_random_exponent": random["exponent"].iloc[0]}
        values |= _interval("size_random_exponent", random["exponent_ci"])
    return values


def order_values(orders: pd.DataFrame) -> dict[str, Any]:
    """Kendall's tau against the full test set up to :data:`FIT_MAX_REMOVED` (its interval ends; the levels that kept
    the order, changed it, or cannot tell) and beyond; AR's tau against a simulated world's truth; the 1R users."""
    fitted = orders[orders["x"] <= FIT_MAX_REMOVED] if len(orders) else orders
    if not len(fitted):
        return {}
    low, high = (np.array(ends) for ends in zip(*fitted["tau_ci"], strict=True))
    systems = fitted["systems"].to_numpy()
    one_swap = 1 - 4 / (systems * (systems - 1))  # tau of an order with one pair swapped
    changed = high < 1.0
    kept = ~changed & (low > one_swap)
    values = {"order_tau": Span(fitted["tau"]), "order_tau_low": Span(low), "order_tau_high": Span(high),
              "order_tau_beyond": Span(orders.loc[orders["x"] > FIT_MAX_REMOVED, "tau"]),
              "order_levels": len(fitted), "order_changed": int(changed.sum()), "order_kept": int(kept.sum()),
              "order_unclear": int((~changed & ~kept).sum()), "order_one_swap": Span(one_swap)}
    ar, one_r = (orders[orders["sweep"] == sweep].sort_values("x") for sweep in (AR_REMOVAL, ONE_R_REMOVAL))
    if ar["tau_truth"].notna().any():
        values |= {"truth_tau_full": ar["tau_truth"].iloc[0], "truth_tau": Span(ar["tau_truth"].dropna())}
    if len(one_r):
        values |= {"one_r_users_full": one_r["users"].iloc[0], "one_r_users_last": one_r["users"].iloc[-1],
                   "one_r_last_level": one_r["x"].iloc[-1]}
    return values


#: the metrics of each statement of :data:`METRIC_FINDINGS`, by measured value
METRIC_RATIOS = {"recall_ratio": ("Recall@{n}",), "map_ndcg_ratio": ("MAP", "nDCG"),
                 "ndcg_at_n_ratio": ("nDCG@{n}",), "mrr_ratio": ("MRR",)}
#: the elasticities the page quotes: value name -> (metric, users)
ELASTICITIES = {"elasticity_p_all": ("P@{n}", "all"), "elasticity_p_relevant": ("P@{n}", "with relevant"),
                "elasticity_recall": ("Recall@{n}", "with relevant"), "elasticity_map": ("MAP", "with relevant"),
                "elasticity_ndcg": ("nDCG", "with relevant"), "elasticity_ndcg_at_n": ("nDCG@{n}", "with relevant")}


def metric_ratios(elasticities: pd.DataFrame, n: int) -> dict[str, Any]:
    """For each statement on other metrics, the ratios ``e_M / e_P`` of the systems but Random, both over the users
    with a relevant test item, with their 95% intervals (:func:`~.study.fits.elasticity_ratio`); the elasticities of
    :data:`ELASTICITIES`; and ``n``."""
    among = elasticities[elasticities["users"] == "with relevant"].set_index(["metric", "system"])["draws"]
    precision = f"P@{n}"
    systems = [s for s in personalised(list(dict.fromkeys(elasticities["system"]))) if (precision, s) in among.index]
    values: dict[str, Any] = {"n": n}
    for name, metrics in METRIC_RATIOS.items():
        ratios = [elasticity_ratio(among[(m, s)], among[(precision, s)]) for m in (m.format(n=n) for m in metrics)
                  for s in systems if (m, s) in among.index]
        if ratios:
            point, low, high = (Span(column) for column in zip(*ratios, strict=True))
            values |= {name: point, f"{name}_low": low, f"{name}_high": high}
    personal = elasticities[elasticities["system"].isin(personalised(elasticities["system"].unique()))]
    by_metric = personal.groupby(["metric", "users"], sort=False)["elasticity"]
    for name, (metric, users) in ELASTICITIES.items():
        if (metric.format(n=n), users) in by_metric.groups:
            values[name] = Span(by_metric.get_group((metric.format(n=n), users)))
    return values


def lift_values(lift: pd.DataFrame) -> dict[str, Any]:
    """How far the systems but Random spread across datasets, under 1R and under AR (largest over smallest P@n and
    lift), the share of resamples of the users in which the 1R spread is below the AR spread for all of them
    (:func:`~recbias.chapters.c03_sparsity_bias.study.lift.spread_below_share`), and the range of ``rho`` under AR,
    when the lift study has more than one dataset."""
    if lift["dataset"].nunique() < 2:
        return {}
    spread = spread_factors(lift).loc[personalised(lift["system"].unique())]
    rho = lift[~is_one_r(lift["design"])].groupby("dataset", sort=False)["rho"].first()
    one_r, ar = spread[("1R", "P")], spread[("AR", "P")]
    return {"lift_datasets": lift["dataset"].nunique(), "spread_1r": Span(one_r), "spread_ar": Span(ar),
            "spread_below_share": spread_below_share(lift, list(spread.index)),
            "spread_ar_lift": Span(spread[("AR", "lift")]),
            "spread_all_lift": Span(spread[("all", "lift")]), "spread_all_p": Span(spread[("all", "P")]),
            "rho_low": rho.min(), "rho_low_dataset": rho.idxmin(), "rho_high": rho.max(),
            "rho_high_dataset": rho.idxmax(), "one_r_t": 1 / lift.loc[is_one_r(lift["design"]), "rho"].iloc[0]}


def world_values(world: pd.DataFrame | None, name: str, removed: float) -> dict[str, Any]:
    """The 1R change on the world of MovieLens 1M's shape (:mod:`.study.world_check`) for the systems but Random,
    with its interval ends, the users followed and the TI pool; nothing when the check was switched off."""
    if world is None or not len(world):
        return {}
    rows = world[world["system"].isin(personalised(world["system"].tolist()))]
    full, thinned = int(world["pool_full"].iloc[0]), int(world["pool_thinned"].iloc[0])
    return {"world": name, "world_removed": removed, "world_change": Span(rows["change"]),
            "world_users": int(world["users"].iloc[0]), "world_pool_full": full, "world_pool_thinned": thinned,
            "world_pool_kept": thinned / full} | _interval("world_change", rows["change_ci"])


def measured(summary: CheckSummary, sweep: Sweep, density: pd.DataFrame, sizes: pd.DataFrame, orders: pd.DataFrame,
             elasticities: pd.DataFrame, lift: pd.DataFrame, world: pd.DataFrame | None = None,
             world_name: str = "") -> dict[str, Any]:
    """Every value :data:`FINDINGS` are checked on and the page quotes, in one flat mapping (the theory check's
    prefixed ``check_``)."""
    return ({f"check_{name}": value for name, value in asdict(summary).items()} | sweep_values(sweep)
            | fit_values(density, sizes) | order_values(orders) | metric_ratios(elasticities, sweep.n)
            | lift_values(lift) | world_values(world, world_name, FIT_MAX_REMOVED))

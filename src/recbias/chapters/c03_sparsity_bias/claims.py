"""The statements of IRJ 2017 Section 4 as findings, and the values this page checks them on.

Section 4 publishes its evidence as figures without numbers, so the chapter has findings only
(its ``published.csv`` is header-only).  :data:`FINDINGS` states each criterion once;
:func:`measured` turns the page's results into the one flat mapping they are checked on, in
which a :class:`Span` holds the values of several systems (or levels): every one of them is
tested, and the evidence shows their range.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    Criterion,
    Finding,
    all_of,
    at_least,
    at_most,
    interval_between,
    is_true,
)
from recbias.chapters.c03_sparsity_bias.study.fits import (
    ORDER_CHANGED,
    ORDER_KEPT,
    ORDER_TOO_WIDE,
    elasticity_ratio,
    fits_of,
    order_verdict,
)
from recbias.chapters.c03_sparsity_bias.study.lift import spread_factors
from recbias.chapters.c03_sparsity_bias.study.sweeps import (
    AR_REMOVAL,
    FIT_MAX_REMOVED,
    ONE_R_AI_REMOVAL,
    ONE_R_REMOVAL,
    personalised,
)
from recbias.chapters.c03_sparsity_bias.study.theory_check import CheckSummary
from recbias.text import fmt_pct, fmt_span

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 4"
#: the papers' numbers the chapter reproduces (none: the file is header-only)
PUBLISHED = Path(__file__).with_name("published.csv")


class Span(np.ndarray):
    """Measured values of several systems, levels or configurations, tested one by one by a criterion
    and shown in an evidence template as their range: ``"{r2:.3f}"`` gives ``"0.999 to 1.000"``
    (:func:`recbias.text.fmt_span`), or ``"n/a"`` when there is no value."""

    def __new__(cls, values: Any) -> Span:
        return np.asarray(values, dtype=float).reshape(-1).view(cls)

    def __format__(self, spec: str) -> str:
        if self.size == 0:
            return "n/a"
        return fmt_span(float(np.min(self)), float(np.max(self)), "{:" + spec + "}")


#: the bound on the 1R change from the full test set to the sparsest fitted level under which 1R P@n counts as
#: not depending on the amount of test ratings (ours: the papers give no number)
ONE_R_BOUND = 0.1

#: the R² at which AR P@n counts as a line in the density, and the scatter about the line (in units of the
#: points' own sampling noise, :func:`.study.fits.scatter_over_noise`) beyond which a lower R² is decided
LINE_R2, SCATTER_BEYOND_NOISE = 0.95, 2.0


def linear_up_to_noise() -> Criterion:
    """Three outcomes on the AR fits of the systems but Random: holds when every R² reaches :data:`LINE_R2`,
    fails when a system below it strays from its line by more than :data:`SCATTER_BEYOND_NOISE` times the
    points' noise, inconclusive when every system below it stays within that (the noise hides the line)."""

    def test(values: Mapping[str, Any]) -> str:
        r2, scatter = np.asarray(values["ar_r2"], dtype=float), np.asarray(values["ar_scatter"], dtype=float)
        if r2.size == 0 or r2.shape != scatter.shape:
            raise ValueError("a criterion was given no fitted line to test")
        below = r2 < LINE_R2
        if not below.any():
            return HOLDS
        return FAILS if np.any(scatter[below] > SCATTER_BEYOND_NOISE) else INCONCLUSIVE

    words = ("R² of every system but Random at least {:g}; a lower R² fails only where the points stray from the "
             "line by more than {:g} times their sampling noise, and is inconclusive otherwise")
    return Criterion(words.format(LINE_R2, SCATTER_BEYOND_NOISE), ("ar_r2", "ar_scatter"), test)


def order_kept_everywhere() -> Criterion:
    """Three outcomes on the levels up to :data:`FIT_MAX_REMOVED` (:func:`.study.fits.order_verdict`): holds when the
    order is kept at every level, fails when it changed at one, inconclusive when an interval is too wide to tell."""

    def test(values: Mapping[str, Any]) -> str:
        verdicts = [order_verdict(low, high) for low, high in zip(values["order_tau_low"], values["order_tau_high"],
                                                                  strict=True)]
        if not verdicts:
            raise ValueError("a criterion was given no measured interval to test")
        return FAILS if ORDER_CHANGED in verdicts else HOLDS if set(verdicts) == {ORDER_KEPT} else INCONCLUSIVE

    words = ("holds if τ's 95% interval reaches 1 with its lower end above {:g} at every level up to {} removed, "
             "fails if it stays below 1 at one, inconclusive otherwise")
    return Criterion(words.format(ORDER_TOO_WIDE, fmt_pct(FIT_MAX_REMOVED, 0)), ("order_tau_low", "order_tau_high"),
                     test)


#: the papers' statements on other metrics than precision (Sec. 4.2), each checked on the ratio of the
#: metric's elasticity to that of P@n over the same users, with its 95% interval over the same resamples of
#: users (criteria ours: the papers give no numbers)
RATIO_EVIDENCE = ("elasticity over P@{{n}}'s: {{{name}:.2f}} (95% intervals from {{{name}_low:.2f}} up to "
                  "{{{name}_high:.2f}})")


def _ratio_finding(key: str, statement: str, name: str, low: float, high: float) -> Finding:
    """A statement on a metric's elasticity relative to P@n's, decided on the ratios' intervals."""
    return Finding(key, statement, SOURCE, "tbl-sparsity-metric-claims",
                   interval_between(f"{name}_low", f"{name}_high", low, high, what="the ratio"),
                   RATIO_EVIDENCE.format(name=name))


METRIC_FINDINGS = [
    _ratio_finding("recall-insensitive", "Recall@{n} is nearly insensitive to the density", "recall_ratio", -0.2, 0.2),
    _ratio_finding("map-ndcg-slightly-sensitive", "MAP and nDCG (no cut-off) are slightly sensitive", "map_ndcg_ratio",
                   0.0, 0.5),
    _ratio_finding("ndcg-at-n-sensitive", "nDCG@{n} is clearly sensitive, with a slope slightly flatter than P@{n}'s",
                   "ndcg_at_n_ratio", 0.5, 1.0),
    _ratio_finding("mrr-like-precision", "MRR follows the density as P@{n} does", "mrr_ratio", 0.5, 1.5),
]

#: every statement of Section 4 the page checks
FINDINGS = [
    Finding("random-precision-is-eq4-eq5",
            "measured random precision equals the paper's Eq. 4 (AR) and Eq. 5 (1R) within simulation error",
            SOURCE, "fig-sparsity-check", at_least("check_within", 0.9, what="the share within the band"),
            "{check_within:.0%} of {check_configurations} configurations within the 95% simulation band; "
            "largest |z| = {check_max_z:.1f}"),
    Finding("ar-precision-linear-in-density", "AR P@{n} of every system decreases linearly with the relevance density",
            SOURCE, "fig-sparsity-ar", linear_up_to_noise(),
            "R² of the line in δ: {ar_r2:.3f}; scatter about it {ar_scatter:.1f} times the points' sampling noise"),
    Finding("1r-precision-independent-of-density", "1R P@{n} (TI-NN) does not depend on the amount of test ratings",
            SOURCE, "fig-sparsity-one-r",
            interval_between("one_r_change_low", "one_r_change_high", -ONE_R_BOUND, ONE_R_BOUND,
                             what="the TI-NN change"),
            "fitted change from the full test set to {fit_max_removed:.0%} removed, systems but Random: "
            "{one_r_change:+.0%} with TI-NN candidates (95% intervals from {one_r_change_low:+.0%} up to "
            "{one_r_change_high:+.0%}), {one_r_ai_change:+.0%} with AI-NN",
            note="on a small dataset the TI pool shrinks as test ratings are removed (see the page)"),
    Finding("1r-precision-independent-of-density-ml1m",
            "1R P@{n} (TI-NN) does not depend on the amount of test ratings, on a world of MovieLens 1M's shape",
            SOURCE, "tbl-sparsity-one-r-world",
            interval_between("world_change_low", "world_change_high", -ONE_R_BOUND, ONE_R_BOUND, what="the change"),
            "on {world}, change from the full test set to {world_removed:.0%} removed, systems but Random: "
            "{world_change:+.0%} (95% intervals from {world_change_low:+.0%} up to {world_change_high:+.0%}); "
            "TI pool {world_pool_full:,} to {world_pool_thinned:,} items",
            departs="a simulated world of MovieLens 1M's shape, one split, in place of MovieLens 1M and five splits"),
    Finding("1r-precision-inverse-to-t", "every system's 1R P@{n} is inversely proportional to t", SOURCE,
            "fig-sparsity-size",
            all_of(at_most("size_exponent_low", -1, what="the lower end of every system's 95% interval"),
                   at_least("size_exponent_high", -1, what="its upper end")),
            "fitted exponents {size_exponent:.2f} for the systems but Random"),
    Finding("order-survives-sparsity",
            "test sparsity does not change the order of systems by P@{n}, except at extreme sparsity", SOURCE,
            "fig-sparsity-orders",
            order_kept_everywhere(),
            "Kendall's τ against the full test set: {order_tau:.2f} up to {fit_max_removed:.0%} removed (95% "
            "intervals from {order_tau_low:.2f} up to {order_tau_high:.2f}); {order_tau_beyond:.2f} beyond "
            "{fit_max_removed:.0%}"),
    *METRIC_FINDINGS,
    Finding("1r-values-comparable-across-datasets",
            "with a fixed t, 1R P@{n} varies less across datasets than AR P@{n}", SOURCE, "tbl-sparsity-spread",
            is_true("spread_1r_below_ar", "the 1R spread below the AR spread for every system but Random"),
            "largest over smallest value across {lift_datasets} datasets, systems but Random: 1R {spread_1r:.1f}, "
            "AR {spread_ar:.1f}"),
]


def check_values(summary: CheckSummary) -> dict[str, Any]:
    """The theory check: share of configurations within the band of Eq. 4/5, their number, the largest ``|z|``."""
    return {"check_within": summary.within_theory, "check_configurations": summary.configurations,
            "check_max_z": summary.max_z}


def fit_values(density: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, Any]:
    """The fitted lines of the systems but Random: R² along the AR sweep, the relative change along the 1R
    sweeps, the exponent of ``t`` and its 95% interval along the size sweep (only those fitted)."""
    values: dict[str, Any] = {}
    systems = personalised(density["system"].unique()) if len(density) else []
    ar, one_r, one_r_ai = (fits_of(density, s, systems) for s in (AR_REMOVAL, ONE_R_REMOVAL, ONE_R_AI_REMOVAL))
    if len(ar):
        values |= {"ar_r2": Span(ar["r2"]), "ar_scatter": Span(ar["scatter"])}
    if len(one_r):
        low, high = zip(*one_r["change_ci"], strict=True)
        values |= {"one_r_change": Span(one_r["change"]), "one_r_change_low": Span(low),
                   "one_r_change_high": Span(high), "one_r_ai_change": Span(one_r_ai["change"])}
    if len(one_r_ai):
        low, high = zip(*one_r_ai["change_ci"], strict=True)
        values |= {"one_r_ai_change_low": Span(low), "one_r_ai_change_high": Span(high)}
    others = fits_of(sizes, None, personalised(sizes["system"].unique()) if len(sizes) else [])
    if len(others):
        low, high = zip(*others["exponent_ci"], strict=True)
        values |= {"size_exponent": Span(others["exponent"]), "size_exponent_low": Span(low),
                   "size_exponent_high": Span(high)}
    return values


def order_values(orders: pd.DataFrame) -> dict[str, Any]:
    """Kendall's tau against the full test set at the levels up to :data:`FIT_MAX_REMOVED` (with the upper ends
    of their intervals) and beyond."""
    fitted = orders[orders["x"] <= FIT_MAX_REMOVED] if len(orders) else orders
    if not len(fitted):
        return {}
    return {"order_tau": Span(fitted["tau"]), "order_tau_low": Span([low for low, _ in fitted["tau_ci"]]),
            "order_tau_high": Span([high for _, high in fitted["tau_ci"]]),
            "order_tau_beyond": Span(orders.loc[orders["x"] > FIT_MAX_REMOVED, "tau"])}


#: the metrics of each statement of :data:`METRIC_FINDINGS`, by measured value
METRIC_RATIOS = {"recall_ratio": ("Recall@{n}",), "map_ndcg_ratio": ("MAP", "nDCG"),
                 "ndcg_at_n_ratio": ("nDCG@{n}",), "mrr_ratio": ("MRR",)}


def metric_ratios(elasticities: pd.DataFrame, n: int) -> dict[str, Any]:
    """For each statement on other metrics, the ratios ``e_M / e_P`` of the metrics' elasticities to that of
    P@n, both over the users with a relevant test item, for every system but Random, with their 95% intervals
    (``<name>_low``, ``<name>_high``; :func:`~.study.fits.elasticity_ratio`); statements without any ratio are
    left out; and ``n``."""
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
    return values


def lift_values(lift: pd.DataFrame) -> dict[str, Any]:
    """How far the systems but Random spread across datasets, under 1R and under AR (largest over smallest
    P@n), when the lift study has more than one dataset."""
    if lift["dataset"].nunique() < 2:
        return {}
    spread = spread_factors(lift).loc[personalised(lift["system"].unique())]
    return {"lift_datasets": lift["dataset"].nunique(), "spread_1r": Span(spread[("1R", "P")]),
            "spread_ar": Span(spread[("AR", "P")]),
            "spread_1r_below_ar": Span(spread[("1R", "P")] < spread[("AR", "P")])}


def world_values(world: pd.DataFrame | None, name: str, removed: float) -> dict[str, Any]:
    """The 1R change on the world of MovieLens 1M's shape (:mod:`.study.world_check`) for the systems but Random,
    with its interval ends and the TI pool; nothing when the check was switched off."""
    if world is None or not len(world):
        return {}
    rows = world[world["system"].isin(personalised(world["system"].tolist()))]
    low, high = zip(*rows["change_ci"], strict=True)
    return {"world": name, "world_removed": removed, "world_change": Span(rows["change"]),
            "world_change_low": Span(low), "world_change_high": Span(high),
            "world_pool_full": int(world["pool_full"].iloc[0]), "world_pool_thinned": int(world["pool_thinned"].iloc[0])}


def measured(summary: CheckSummary, density: pd.DataFrame, sizes: pd.DataFrame, orders: pd.DataFrame,
             elasticities: pd.DataFrame, lift: pd.DataFrame, n: int, world: pd.DataFrame | None = None,
             world_name: str = "") -> dict[str, Any]:
    """Every value :data:`FINDINGS` are checked on, in one flat mapping."""
    return ({"fit_max_removed": FIT_MAX_REMOVED} | check_values(summary) | fit_values(density, sizes)
            | order_values(orders) | metric_ratios(elasticities, n) | lift_values(lift)
            | world_values(world, world_name, FIT_MAX_REMOVED))

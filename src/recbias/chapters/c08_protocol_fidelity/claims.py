"""Chapter 8's findings as data, and the values they are checked on.

The chapter states general claims about protocol fidelity and checks them on three truths:
:data:`ON_GRID` on the grid of simulated worlds, :data:`FINDINGS` on the build's truth and
:data:`ON_SECOND` on the second truth; the claims about the papers' designs are checked with today's
field of systems and with the papers' five (:data:`PAPERS_FINDINGS`, :data:`PAPERS_ON_GRID`).
:func:`measured` turns the fidelity tables and the grids into one mapping of values; a claim whose
values were not measured (no second truth, one strength of observation bias) is left out.  A
comparison holds or fails only when it is beyond the noise of paired user resamples (two-sided, at
:data:`LEVEL`), and is inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, Criterion, Finding, beyond_noise, between
from recbias.chapters.c08_protocol_fidelity.study import (
    LEVEL,
    families,
    family_gain,
    family_gap,
    family_means,
    leaders,
    means_by,
    median_margin,
    skew_loss,
)
from recbias.evaluate import resampled_pvalue
from recbias.evaluate.fidelity import higher_share, paired_pvalue

#: the chapter reproduces no published number: the header of the common schema only
PUBLISHED = Path(__file__).with_name("published.csv")
SOURCE = "recbias chapter 8"
#: where the grid's findings are checked
GRID = "simulation grid"
#: the protocols the comparisons read, with the name of their tau among the measured values
COMPARED = {"full-catalogue nDCG@10": "full", "sampled HR@10": "sampled", "sampled HR@10, corrected (BV 0.1)":
            "corrected", "SNIPS-P@10 (power 0.5)": "snips", "AR TI-AN P@10": "ar", "discounted AUC": "dauc",
            "discounted AUC, 2% short head off": "dauc_off"}
#: comparison -> (the protocol that should be closer to the truth, the one it is compared with)
COMPARISONS = {"full_vs_sampled": ("full-catalogue nDCG@10", "sampled HR@10"),
               "corrected_vs_sampled": ("sampled HR@10, corrected (BV 0.1)", "sampled HR@10"),
               "snips_vs_ar": ("SNIPS-P@10 (power 0.5)", "AR TI-AN P@10"),
               "dauc_vs_off": ("discounted AUC", "discounted AUC, 2% short head off")}
#: the prefix of the values measured with the papers' five systems
PAPERS_PREFIX = "papers_"


def _share(name: str, what: str) -> Criterion:
    """A share of user resamples: holds at ``1 - LEVEL`` or more, fails at ``LEVEL`` or less, inconclusive
    between."""
    def test(values: Mapping[str, Any]) -> str:
        share = float(values[name])
        return HOLDS if share >= 1 - LEVEL else FAILS if share <= LEVEL else INCONCLUSIVE

    return Criterion(what + " at least " + f"{1 - LEVEL:g}" + " to hold, at most " + f"{LEVEL:g}" + " to fail",
                     (name,), test)


def _gain(prefix: str) -> Criterion:
    return beyond_noise(prefix + "neutralising_gain", prefix + "neutralising_gain_p", level=LEVEL,
                        what="mean τ of the neutralising designs minus the standard ones")


def _best(prefix: str) -> Criterion:
    return _share(prefix + "standard_best_share", "the largest share of resamples in which a standard protocol puts "
                  "the truly best system first")


NEUTRALISING_STATEMENT = ("popularity-neutralising designs recover the true order better than the standard AR/1R "
                          "protocols")
BEST_STATEMENT = "a standard protocol (AR or 1R) puts the truly best system first"
ON_GRID = [
    Finding("neutralising-beats-standard-under-strong-bias",
            "on worlds with strong observation bias, " + NEUTRALISING_STATEMENT + " (today's field)", SOURCE,
            "fig-truth-grid", _gain(""),
            "mean Kendall's τ at bias strength {strongest:g} over {grid_worlds} worlds: neutralising "
            "{grid_neutralising:.2f}, standard {grid_standard:.2f}; p = {neutralising_gain_p:.3f}"),
    Finding("skew-hurts-fidelity", "protocols recover the true order less well on worlds with more skewed popularity",
            SOURCE, "fig-truth-grid",
            beyond_noise("skew_loss", "skew_loss_p", level=LEVEL, what="mean τ at the least skew minus at the most"),
            "mean τ over protocols: {skew_taus}; p = {skew_loss_p:.3f}"),
]
PAPERS_ON_GRID = [
    Finding("neutralising-beats-standard-under-strong-bias-papers-set",
            "on worlds with strong observation bias, " + NEUTRALISING_STATEMENT + " (the papers' five systems)",
            SOURCE, "tbl-truth-papers", _gain(PAPERS_PREFIX),
            "mean Kendall's τ at bias strength {papers_strongest:g} over {papers_grid_worlds} worlds: neutralising "
            "{papers_grid_neutralising:.2f}, standard {papers_grid_standard:.2f}; p = "
            "{papers_neutralising_gain_p:.3f}"),
]
FINDINGS = [
    Finding("full-catalogue-beats-sampled", "full-catalogue nDCG@10 orders systems closer to the truth than the "
            "uncorrected sampled metric", SOURCE, "tbl-truth-main",
            beyond_noise("gap_full_vs_sampled", "p_full_vs_sampled", level=LEVEL,
                         what="τ of full-catalogue nDCG@10 minus sampled HR@10"),
            "τ {tau_full:.2f} (full-catalogue nDCG@10) against {tau_sampled:.2f} (sampled HR@10); higher in "
            "{share_full_vs_sampled:.0%} of paired user resamples, p = {p_full_vs_sampled:.3f}"),
    Finding("correction-helps-sampled", "correcting the sampled metric (bias-variance, γ = 0.1) brings its order "
            "closer to the truth", SOURCE, "tbl-truth-main",
            beyond_noise("gap_corrected_vs_sampled", "p_corrected_vs_sampled", level=LEVEL,
                         what="τ of the corrected minus the sampled HR@10"),
            "τ {tau_corrected:.2f} (sampled HR@10, corrected (BV 0.1)) against {tau_sampled:.2f} (sampled HR@10); "
            "higher in {share_corrected_vs_sampled:.0%} of paired user resamples, p = {p_corrected_vs_sampled:.3f}"),
    Finding("snips-beats-plain", "self-normalised propensity weighting orders systems closer to the truth than the "
            "same precision unweighted", SOURCE, "tbl-truth-main",
            beyond_noise("gap_snips_vs_ar", "p_snips_vs_ar", level=LEVEL, what="τ of SNIPS-P@10 minus AR TI-AN P@10"),
            "τ {tau_snips:.2f} (SNIPS-P@10 (power 0.5)) against {tau_ar:.2f} (AR TI-AN P@10); higher in "
            "{share_snips_vs_ar:.0%} of paired user resamples, p = {p_snips_vs_ar:.3f}"),
    Finding("step-hurts-discounted-auc", "switching off the short head in the discounted AUC moves its order away "
            "from the truth", SOURCE, "tbl-truth-main",
            beyond_noise("gap_dauc_vs_off", "p_dauc_vs_off", level=LEVEL,
                         what="τ of the discounted AUC minus the same with its short head off"),
            "τ {tau_dauc:.2f} (discounted AUC) against {tau_dauc_off:.2f} (discounted AUC, 2% short head off); "
            "higher in {share_dauc_vs_off:.0%} of paired user resamples, p = {p_dauc_vs_off:.3f}"),
    Finding("neutralising-beats-standard", NEUTRALISING_STATEMENT + " (today's field)", SOURCE, "tbl-truth-main",
            _gain("main_"),
            "mean τ of the neutralising designs {main_neutralising:.2f}, of the standard ones {main_standard:.2f}; "
            "p = {main_neutralising_gain_p:.3f}"),
    Finding("standard-protocols-pick-the-best", BEST_STATEMENT + " (today's field)", SOURCE, "tbl-truth-main",
            _best(""), "{standard_first}"),
    Finding("no-protocol-is-exact", "no protocol reproduces the true order of the field exactly", SOURCE,
            "tbl-truth-main", between("tau_max", -1, 1, open_high=True, what="the highest mean τ"),
            "highest mean τ {tau_max:.2f} ({tau_max_protocol})"),
]
PAPERS_FINDINGS = [
    Finding("neutralising-beats-standard-papers-set", NEUTRALISING_STATEMENT + " (the papers' five systems)", SOURCE,
            "tbl-truth-papers", _gain(PAPERS_PREFIX + "main_"),
            "mean τ of the neutralising designs {papers_main_neutralising:.2f}, of the standard ones "
            "{papers_main_standard:.2f}; p = {papers_main_neutralising_gain_p:.3f}"),
    Finding("standard-protocols-pick-the-best-papers-set", BEST_STATEMENT + " (the papers' five systems)", SOURCE,
            "tbl-truth-papers", _best(PAPERS_PREFIX), "{papers_standard_first}"),
]
ON_SECOND = [
    Finding("leaders-hold-on-second-truth", "the protocols that are most faithful on {dataset} are at least median "
            "on {second}", SOURCE, "tbl-truth-second",
            beyond_noise("leaders_margin", "leaders_margin_p", level=LEVEL,
                         what="the weakest leader's τ minus the median τ on the second truth"),
            "{leaders_on_second}"),
]


#: the evidence of the standard protocols' pick of the best system
STANDARD_FIRST = "truly best system first in {share:.0%} of the user resamples under {protocol}, the most of the " \
                 "standard protocols"
#: the evidence of the leaders on the second truth: each leader's margin over the median, with its p-value
LEADERS_ON_SECOND = "τ on {second} minus the median τ there ({median:.2f}): {margins}"
MARGIN = "{protocol} {margin:+.2f} (p = {p:.3f})"


def _difference(name: str, draws: Any) -> dict[str, float]:
    """A difference on the full sample (``draws[0]``) and its p-value over the resamples (``draws[1:]``)."""
    return {name: float(draws[0]), f"{name}_p": resampled_pvalue(draws[1:])}


def measured_grid(grid: pd.DataFrame, prefix: str = "") -> dict[str, Any]:
    """The values of :data:`ON_GRID` (or, with ``prefix``, of :data:`PAPERS_ON_GRID`): the mean tau of the
    neutralising and the standard protocols at the strongest observation bias (when it is above 0) and
    their difference with its p-value, and the mean tau at each skew with the difference between the least
    and the most skewed worlds (when there are two skews)."""
    values: dict[str, Any] = {}
    strongest = grid["selection"].max()
    if strongest > 0:
        cells = grid[grid["selection"] == strongest]
        by_family = family_means(cells, families())
        values |= {"strongest": strongest, "grid_neutralising": by_family.get("neutralising", float("nan")),
                   "grid_standard": by_family.get("standard", float("nan")),
                   "grid_worlds": len(cells.groupby(["alpha", "seed"]))}
        values |= _difference("neutralising_gain", family_gain(grid, families(), strongest, "neutralising",
                                                               "standard"))
    skew = means_by(grid, "alpha")
    if len(skew) > 1:
        values |= _difference("skew_loss", skew_loss(grid))
        values["skew_taus"] = ", ".join(f"α {a:g}: {t:.2f}" for a, t in skew.items())
    return {prefix + name: value for name, value in values.items()}


def measured_main(main: pd.DataFrame, prefix: str = "") -> dict[str, Any]:
    """The values of :data:`FINDINGS` (or, with ``prefix``, of :data:`PAPERS_FINDINGS`) on the build's truth
    (``main``: :func:`recbias.evaluate.fidelity.fidelity_over_seeds`): the compared protocols' tau, their
    differences with the share of paired resamples in which the first is higher and the p-value, the
    neutralising designs against the standard ones, the standard protocols' pick of the best system and the
    highest tau."""
    tau = main.set_index("protocol")["tau"]
    best_share = main.set_index("protocol")["best_share"]
    values: dict[str, Any] = {f"tau_{name}": tau[label] for label, name in COMPARED.items() if label in tau.index}
    for comparison, (first, second) in COMPARISONS.items():
        if first in tau.index and second in tau.index:
            values[f"gap_{comparison}"] = tau[first] - tau[second]
            values[f"share_{comparison}"] = higher_share(main, first, second)
            values[f"p_{comparison}"] = paired_pvalue(main, first, second)
    family = families()
    kinds = tau.index.map(family)
    if {"neutralising", "standard"} <= set(kinds):
        values |= _difference("main_neutralising_gain", family_gap(main, family, "neutralising", "standard"))
        means = family_means(main, family)
        values |= {"main_neutralising": means["neutralising"], "main_standard": means["standard"]}
    standard = best_share[kinds == "standard"]
    if len(standard):
        values |= {"standard_best_share": standard.max(),
                   "standard_first": STANDARD_FIRST.format(share=standard.max(), protocol=standard.idxmax())}
    values |= {"tau_max": tau.max(), "tau_max_protocol": tau.idxmax()}
    return {prefix + name: value for name, value in values.items()}


def measured_second(main: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str]) -> dict[str, Any]:
    """The values of :data:`ON_SECOND`: each most faithful protocol of the build's truth (:func:`.study.leaders`)
    against the median tau of the second truth, on the second truth's user resamples; the margin and p-value
    read are the weakest leader's (the first to fail, else to be inconclusive, else the largest p-value), so
    that the finding holds only when every leader is above the median beyond noise (``names``: the two
    truths)."""
    others = set(second["protocol"])
    measured = {p: _difference("margin", median_margin(second, p)) for p in leaders(main, LEVEL) if p in others}
    rank = {FAILS: 0, INCONCLUSIVE: 1, HOLDS: 2}
    test = beyond_noise("margin", "margin_p", level=LEVEL)
    weakest = min(measured, key=lambda p: (rank[test(measured[p])], -measured[p]["margin_p"]))
    margins = ", ".join(MARGIN.format(protocol=p, margin=m["margin"], p=m["margin_p"]) for p, m in measured.items())
    return {"dataset": names[0], "second": names[1], "leaders_margin": measured[weakest]["margin"],
            "leaders_margin_p": measured[weakest]["margin_p"],
            "leaders_on_second": LEADERS_ON_SECOND.format(second=names[1], median=second["tau"].median(),
                                                          margins=margins)}


def measured(main: pd.DataFrame, grid: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str], *,
             papers_main: pd.DataFrame | None = None, papers_grid: pd.DataFrame | None = None) -> dict[str, Any]:
    """The values every finding of the chapter is checked on: :func:`measured_grid` and :func:`measured_main`
    of today's field, with a second truth :func:`measured_second`, and those of the papers' set (values
    prefixed :data:`PAPERS_PREFIX`) when its tables are given."""
    values = measured_grid(grid) | measured_main(main)
    values |= measured_second(main, second, names) if second is not None else {}
    values |= measured_main(papers_main, PAPERS_PREFIX) if papers_main is not None else {}
    return values | (measured_grid(papers_grid, PAPERS_PREFIX) if papers_grid is not None else {})

"""Chapter 8's findings as data, and the values they are checked on.

The chapter states general claims about protocol fidelity and checks them on three truths:
:data:`ON_GRID` on the grid of simulated worlds, :data:`FINDINGS` on the build's truth and
:data:`ON_SECOND` on the second truth.  :func:`measured` turns the fidelity tables and the grid into
one mapping of values for all three; a claim whose values were not measured (no second truth, one
strength of observation bias) is left out.  A comparison of two protocols holds when the first has the
higher mean tau; its evidence gives the share of paired user resamples in which it is higher.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from recbias.bookkit.claims import Finding, at_least, at_most, between
from recbias.chapters.c08_protocol_fidelity.study import families, family_means, leaders, means_by
from recbias.evaluate.fidelity import higher_share
from recbias.text import and_list

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
#: the evidence of the two findings whose wording depends on what was found
STANDARD_FIRST = {True: "truly best system first under {names}",
                  False: "no standard protocol puts it first on every split"}
LEADERS_ON_SECOND = {True: "below the median τ ({median:.2f}) on {second}: {names}",
                     False: "all of {names} reach the median τ ({median:.2f}) on {second}"}


ON_GRID = [
    Finding("neutralising-beats-standard-under-strong-bias",
            "on worlds with strong observation bias, popularity-neutralising designs recover the true order better "
            "than the standard AR/1R protocols", SOURCE, "fig-truth-grid",
            between("neutralising_gain", 0, 2, open_low=True,
                    what="mean τ of the neutralising designs minus the standard ones"),
            "mean Kendall's τ at bias strength {strongest:g}: neutralising {grid_neutralising:.2f}, "
            "standard {grid_standard:.2f}"),
    Finding("skew-hurts-fidelity", "protocols recover the true order less well on worlds with more skewed popularity",
            SOURCE, "fig-truth-grid",
            between("skew_loss", 0, 2, open_low=True, what="mean τ at the least skew minus at the most"),
            "mean τ over protocols: {skew_taus}"),
]
FINDINGS = [
    Finding("full-catalogue-beats-sampled", "full-catalogue nDCG@10 orders systems closer to the truth than the "
            "uncorrected sampled metric", SOURCE, "tbl-truth-main",
            between("gap_full_vs_sampled", 0, 2, open_low=True,
                    what="τ of full-catalogue nDCG@10 minus sampled HR@10"),
            "τ {tau_full:.2f} (full-catalogue nDCG@10) against {tau_sampled:.2f} (sampled HR@10); higher in "
            "{share_full_vs_sampled:.0%} of paired user resamples"),
    Finding("correction-helps-sampled", "correcting the sampled metric (bias-variance, γ = 0.1) brings its order "
            "closer to the truth", SOURCE, "tbl-truth-main",
            between("gap_corrected_vs_sampled", 0, 2, open_low=True,
                    what="τ of the corrected minus the sampled HR@10"),
            "τ {tau_corrected:.2f} (sampled HR@10, corrected (BV 0.1)) against {tau_sampled:.2f} (sampled HR@10); "
            "higher in {share_corrected_vs_sampled:.0%} of paired user resamples"),
    Finding("snips-beats-plain", "self-normalised propensity weighting orders systems closer to the truth than the "
            "same precision unweighted", SOURCE, "tbl-truth-main",
            between("gap_snips_vs_ar", 0, 2, open_low=True, what="τ of SNIPS-P@10 minus AR TI-AN P@10"),
            "τ {tau_snips:.2f} (SNIPS-P@10 (power 0.5)) against {tau_ar:.2f} (AR TI-AN P@10); higher in "
            "{share_snips_vs_ar:.0%} of paired user resamples"),
    Finding("step-hurts-discounted-auc", "switching off the short head in the discounted AUC moves its order away "
            "from the truth", SOURCE, "tbl-truth-main",
            between("gap_dauc_vs_off", 0, 2, open_low=True,
                    what="τ of the discounted AUC minus the same with its short head off"),
            "τ {tau_dauc:.2f} (discounted AUC) against {tau_dauc_off:.2f} (discounted AUC, 2% short head off); "
            "higher in {share_dauc_vs_off:.0%} of paired user resamples"),
    Finding("standard-protocols-pick-the-best", "a standard protocol (AR or 1R) puts the truly best system first",
            SOURCE, "tbl-truth-main",
            at_least("standard_best_first", 1,
                     what="the largest share of splits in which a standard protocol puts the truly best system first"),
            "{standard_first}"),
    Finding("no-protocol-is-exact", "no protocol reproduces the true order of the field exactly", SOURCE,
            "tbl-truth-main", between("tau_max", -1, 1, open_high=True, what="the highest mean τ"),
            "highest mean τ {tau_max:.2f} ({tau_max_protocol})"),
]
ON_SECOND = [
    Finding("leaders-hold-on-second-truth", "the protocols that are most faithful on {dataset} are at least median "
            "on {second}", SOURCE, "tbl-truth-second",
            at_most("leaders_below_median", 0,
                    what="the most faithful protocols below the median τ of the second truth"),
            "{leaders_on_second}"),
]


def measured_grid(grid: pd.DataFrame) -> dict[str, Any]:
    """The values of :data:`ON_GRID`: the mean tau of the neutralising and the standard protocols at the
    strongest observation bias (when it is above 0), and the mean tau at each skew (when there are two)."""
    values: dict[str, Any] = {}
    strongest = grid["selection"].max()
    if strongest > 0:
        by_family = family_means(grid, families(), strongest)
        neutralising, standard = by_family.get("neutralising", float("nan")), by_family.get("standard", float("nan"))
        values |= {"strongest": strongest, "grid_neutralising": neutralising, "grid_standard": standard,
                   "neutralising_gain": neutralising - standard}
    skew = means_by(grid, "alpha")
    if len(skew) > 1:
        values |= {"skew_loss": skew.iloc[0] - skew.iloc[-1],
                   "skew_taus": ", ".join(f"α {a:g}: {t:.2f}" for a, t in skew.items())}
    return values


def measured_main(main: pd.DataFrame) -> dict[str, Any]:
    """The values of :data:`FINDINGS` on the build's truth (``main``:
    :func:`recbias.evaluate.fidelity.fidelity_over_seeds`)."""
    tau = main.set_index("protocol")["tau"]
    best = main.set_index("protocol")["best"]
    values: dict[str, Any] = {f"tau_{name}": tau[label] for label, name in COMPARED.items() if label in tau.index}
    for comparison, (first, second) in COMPARISONS.items():
        if first in tau.index and second in tau.index:
            values[f"gap_{comparison}"] = tau[first] - tau[second]
            values[f"share_{comparison}"] = higher_share(main, first, second)
    family = families()
    standard = [p for p in tau.index if family.get(p) == "standard"]
    first = [p for p in standard if best[p] == 1.0]
    return values | {
        "standard_best_first": best[standard].max(),
        "standard_first": STANDARD_FIRST[bool(first)].format(names=and_list(first) if first else ""),
        "tau_max": tau.max(), "tau_max_protocol": tau.idxmax(),
    }


def measured_second(main: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str]) -> dict[str, Any]:
    """The values of :data:`ON_SECOND`: the most faithful protocols of the build's truth that fall below the
    median tau of the second truth (``names``: the two truths)."""
    other = second.set_index("protocol")["tau"]
    top = [p for p in leaders(main) if p in other.index]
    below = [p for p in top if other[p] < other.median()]
    return {"dataset": names[0], "second": names[1], "leaders_below_median": len(below),
            "leaders_on_second": LEADERS_ON_SECOND[bool(below)].format(median=other.median(), second=names[1],
                                                                       names=and_list(below or top))}


def measured(main: pd.DataFrame, grid: pd.DataFrame, second: pd.DataFrame | None,
             names: tuple[str, str]) -> dict[str, Any]:
    """The values every finding of the chapter is checked on: :func:`measured_grid`, :func:`measured_main`
    and, with a second truth, :func:`measured_second`."""
    values = measured_grid(grid) | measured_main(main)
    return values | (measured_second(main, second, names) if second is not None else {})

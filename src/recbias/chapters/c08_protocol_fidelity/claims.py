"""Chapter 8's findings as data, and the values they are checked on.

The chapter checks general claims about protocol fidelity on three truths: :data:`ON_GRID` on the grid of
simulated worlds (values of :func:`measured_grid`), :data:`FINDINGS` on the build's truth
(:func:`measured_main`) and :data:`ON_SECOND` on the second truth (:func:`measured_second`); the claims about
the papers' designs are checked with today's field and with the papers' five systems (:data:`PAPERS_FINDINGS`,
:data:`PAPERS_ON_GRID`, on values prefixed :data:`PAPERS_PREFIX`).  A claim whose values were not measured
(no second truth, one strength of observation bias) is left out.
"""

from __future__ import annotations

from dataclasses import replace

from pathlib import Path
from typing import Any

import pandas as pd

from recbias.bookkit.claims import (BOOK, BY_WORDS, FAILS, HOLDS, INCONCLUSIVE, LEVEL, Criterion, Finding, at_least, at_most,
                                   beyond_noise, between, resampled_share)
from recbias.chapters.c08_protocol_fidelity.study import (agreement, change_along, families, family_gain, family_gap,
                                                          family_means, leaders, means_by, median_margin)
from recbias.evaluate import resampled_pvalue
from recbias.evaluate.fidelity import higher_share, paired_pvalue
from recbias.protocol_study import LABEL_SEPARATOR

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


#: the evidence of a comparison of two protocols (:data:`COMPARISONS`), filled in by :func:`_closer`
CLOSER = ("τ {{tau_{a}:.2f}} ({first}) against {{tau_{b}:.2f}} ({second}); higher in {{share_{c}:.0%}} of paired "
          "user resamples, p = {{p_{c}:.3f}}")


def _closer(key: str, statement: str, comparison: str, what: str) -> Finding:
    """The finding that the first protocol of ``comparison`` orders systems closer to the truth than the second."""
    first, second = COMPARISONS[comparison]
    evidence = CLOSER.format(a=COMPARED[first], b=COMPARED[second], first=first, second=second, c=comparison)
    return Finding(key, statement, SOURCE, "tbl-truth-main",
                   beyond_noise(f"gap_{comparison}", f"p_{comparison}", what=what), evidence)


def _gain(prefix: str) -> Criterion:
    return beyond_noise(prefix + "neutralising_gain", prefix + "neutralising_gain_p",
                        what="mean τ of the neutralising designs minus the standard ones")


def _best(prefix: str) -> Criterion:
    return resampled_share(prefix + "standard_best_share",
                           what="the largest share of resamples in which a standard protocol puts the truly best "
                                "system first")


NEUTRALISING_STATEMENT = ("popularity-neutralising designs recover the true order better than the standard AR/1R "
                          "protocols")
BEST_STATEMENT = "a standard protocol (AR or 1R) puts the truly best system first"
#: the mean tau at the weakest and the strongest observation bias, in the words of the grid's trend
BIAS_VALUES = ("mean Kendall's τ over protocols {bias_low:.2f} at strength {weakest:g} and {bias_high:.2f} at "
               "{strongest:g}")
ON_GRID = [
    Finding("neutralising-beats-standard-under-strong-bias",
            "on worlds with strong observation bias, " + NEUTRALISING_STATEMENT + " (today's field)", SOURCE,
            "fig-truth-grid", _gain(""),
            "mean Kendall's τ at bias strength {strongest:g} over {grid_worlds} worlds: neutralising "
            "{grid_neutralising:.2f}, standard {grid_standard:.2f}; p = {neutralising_gain_p:.3f}"),
    Finding("skew-hurts-fidelity", "protocols recover the true order less well on worlds with more skewed popularity",
            SOURCE, "fig-truth-grid",
            beyond_noise("skew_loss", "skew_loss_p", what="mean τ at the least skew minus at the most"),
            "mean τ over protocols: {skew_taus}; p = {skew_loss_p:.3f}"),
    Finding("bias-helps-fidelity", "protocols recover the true order better on worlds with stronger observation bias",
            SOURCE, "fig-truth-grid",
            beyond_noise("bias_gain", "bias_gain_p", what="mean τ at the strongest observation bias minus at the "
                         "weakest"), BIAS_VALUES + "; p = {bias_gain_p:.3f}",
            says={HOLDS: "In this grid fidelity rises with observation bias (" + BIAS_VALUES + "). Under strong "
                  "selection users rate what they like, so their observed ratings say more about their taste and "
                  "separate good systems from weak ones more clearly; without it, which items get rated says nothing "
                  "about taste, and every protocol is left mostly with popularity and noise.",
                  FAILS: "In this grid fidelity falls with observation bias (" + BIAS_VALUES + "): the "
                  "missing-not-at-random observation distorts the protocols more than it informs them.",
                  INCONCLUSIVE: "In this grid fidelity does not rise with observation bias beyond resampling noise ("
                  + BIAS_VALUES + "): the missing-not-at-random observation informs the protocols no more than it "
                  "distorts them."}),
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
    _closer("full-catalogue-beats-sampled", "full-catalogue nDCG@10 orders systems closer to the truth than the "
            "uncorrected sampled metric", "full_vs_sampled", "τ of full-catalogue nDCG@10 minus sampled HR@10"),
    _closer("correction-helps-sampled", "correcting the sampled metric (bias-variance, γ = 0.1) brings its order "
            "closer to the truth", "corrected_vs_sampled", "τ of the corrected minus the sampled HR@10"),
    _closer("snips-beats-plain", "self-normalised propensity weighting orders systems closer to the truth than the "
            "same precision unweighted", "snips_vs_ar", "τ of SNIPS-P@10 minus AR TI-AN P@10"),
    _closer("step-hurts-discounted-auc", "switching off the short head in the discounted AUC moves its order away "
            "from the truth", "dauc_vs_off", "τ of the discounted AUC minus the same with its short head off"),
    Finding("neutralising-beats-standard", NEUTRALISING_STATEMENT + " (today's field)", SOURCE, "tbl-truth-main",
            _gain("main_"),
            "mean τ of the neutralising designs {main_neutralising:.2f}, of the standard ones {main_standard:.2f}; "
            "p = {main_neutralising_gain_p:.3f}"),
    Finding("standard-protocols-pick-the-best", BEST_STATEMENT + " (today's field)", SOURCE, "tbl-truth-main",
            _best(""), "{standard_first}"),
    Finding("no-protocol-is-exact", "no protocol reproduces the true order of the field exactly", SOURCE,
            "tbl-truth-main", between("tau_max", -1, 1, open_high=True, what="the highest mean τ", origin=BY_WORDS),
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
#: where the book's bar for "alike" of two rankings of the protocols comes from
ALIKE_ORIGIN = "the book's: a correlation of one half, Cohen's (1988) threshold of a large one"
AGREEMENT = ("over the {truths_n} protocols, the rank correlation between their τ on the one and on the other is "
             "{truths_rho:.2f}. In the top third on both: {truths_top}. They disagree most on {truths_furthest} "
             "({truths_rank_first} of {truths_n} on {dataset}, {truths_rank_second} on {second}).")
ON_SECOND = [
    Finding("leaders-hold-on-second-truth", "the protocols that are most faithful on {dataset} are at least median "
            "on {second}", SOURCE, "tbl-truth-second",
            beyond_noise("leaders_margin", "leaders_margin_p",
                         what="the weakest leader's τ minus the median τ on the second truth"),
            "{leaders_on_second}"),
    Finding("truths-rank-protocols-alike", "{dataset} and {second} rank the protocols alike", SOURCE,
            "tbl-truth-second", at_least("truths_rho", 0.5, what="their rank correlation", origin=ALIKE_ORIGIN),
            "rank correlation {truths_rho:.2f} over {truths_n} protocols",
            says={HOLDS: "The two truths rank the protocols alike: " + AGREEMENT,
                  FAILS: "The two truths rank the protocols differently: " + AGREEMENT}),
    Finding("truths-agree-on-every-protocol", "{dataset} and {second} agree on the fidelity of every protocol within "
            "resampling noise", SOURCE, "tbl-truth-second",
            at_most("truths_apart", 0, what="the protocols whose τ on each truth lies outside the other's interval",
                    origin=BY_WORDS),
            "{truths_apart} of {truths_n} protocols apart beyond noise",
            says={HOLDS: "On no protocol do the two truths part beyond resampling noise: no protocol's τ on one lies "
                  "outside its interval over users on the other. Where their orders of the protocols differ, the "
                  "intervals say the difference may be noise, and {second} cannot settle the finer distinctions of "
                  "{dataset}.",
                  FAILS: "The two truths part beyond resampling noise on {truths_apart} of the {truths_n} protocols "
                  "(marked in the table): {dataset} gives the higher τ on {truths_higher_first} of them and {second} "
                  "on {truths_higher_second}. Part of such a gap is the truth's own noise rather than the protocols': "
                  "a truth that is itself an estimate, as {truths_noisier}'s is with its wider intervals, orders the "
                  "systems less firmly, and every protocol's τ against it shrinks. A gap in the order of the "
                  "protocols is the firmer sign of a real disagreement, which the rank correlation above measures."}),
]

#: every statement of the chapter is the book's own (chapter 8 goes beyond the papers)
ON_GRID, PAPERS_ON_GRID, FINDINGS, PAPERS_FINDINGS, ON_SECOND = (
    [replace(finding, origin=BOOK) for finding in group]
    for group in (ON_GRID, PAPERS_ON_GRID, FINDINGS, PAPERS_FINDINGS, ON_SECOND))


#: the evidence of the standard protocols' pick of the best system
STANDARD_FIRST = "truly best system first in {share:.0%} of the user resamples under {protocol}, the most of the " \
                 "standard protocols"
#: the evidence of the leaders on the second truth: each leader's margin over the median, with its p-value
LEADERS_ON_SECOND = "τ on {second} minus the median τ there ({median:.2f}): {margins}"
#: one leader's margin in that evidence; margins are joined by :data:`recbias.protocol_study.LABEL_SEPARATOR`
MARGIN = "{protocol} {margin:+.2f} (p = {p:.3f})"


def _difference(name: str, draws: Any) -> dict[str, float]:
    """A difference on the full sample (``draws[0]``) and its p-value over the resamples (``draws[1:]``)."""
    return {name: float(draws[0]), f"{name}_p": resampled_pvalue(draws[1:])}


def measured_grid(grid: pd.DataFrame, prefix: str = "") -> dict[str, Any]:
    """The values of :data:`ON_GRID` (or, with ``prefix``, of :data:`PAPERS_ON_GRID`), each difference with its
    p-value: the neutralising against the standard protocols at the strongest observation bias (when above 0),
    the least against the most skewed worlds and the strongest against the weakest bias (when there are two)."""
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
    skew, bias = means_by(grid, "alpha"), means_by(grid, "selection")
    if len(skew) > 1:
        values |= _difference("skew_loss", -change_along(grid, "alpha"))
        values["skew_taus"] = ", ".join(f"α {a:g}: {t:.2f}" for a, t in skew.items())
    if len(bias) > 1:
        values |= _difference("bias_gain", change_along(grid, "selection"))
        values |= {"bias_low": bias.iloc[0], "bias_high": bias.iloc[-1], "weakest": bias.index[0],
                   "strongest": bias.index[-1]}
    return {prefix + name: value for name, value in values.items()}


def measured_main(main: pd.DataFrame, prefix: str = "") -> dict[str, Any]:
    """The values of :data:`FINDINGS` (or, with ``prefix``, of :data:`PAPERS_FINDINGS`) on the build's truth
    (``main``, a fidelity table): the compared protocols' tau and differences, the neutralising designs against
    the standard ones, the standard protocols' pick of the best system and the highest tau."""
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


def measured_second(main: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str]) -> dict[str, Any]:
    """The values of :data:`ON_SECOND` (none without a second truth; ``names``: the two truths): how alike they
    rank the protocols (:func:`.study.agreement`), and each most faithful protocol of the build's truth
    (:func:`.study.leaders`) against the median tau of the second truth on its user resamples, read at the
    weakest leader (the first to fail, else to be inconclusive, else the one with the largest p-value)."""
    if second is None:
        return {}
    others = set(second["protocol"])
    measured = {p: _difference("margin", median_margin(second, p)) for p in leaders(main, LEVEL) if p in others}
    rank = {FAILS: 0, INCONCLUSIVE: 1, HOLDS: 2}
    test = beyond_noise("margin", "margin_p")
    weakest = min(measured, key=lambda p: (rank[test(measured[p])], -measured[p]["margin_p"]))
    margins = LABEL_SEPARATOR.join(MARGIN.format(protocol=p, margin=m["margin"], p=m["margin_p"])
                                   for p, m in measured.items())
    return {"dataset": names[0], "second": names[1], "leaders_margin": measured[weakest]["margin"],
            "leaders_margin_p": measured[weakest]["margin_p"],
            "leaders_on_second": LEADERS_ON_SECOND.format(second=names[1], median=second["tau"].median(),
                                                          margins=margins)} | agreement(main, second, names)

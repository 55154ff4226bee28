"""The chapter's claims: the papers' statements on the comparison of designs (IRJ 2017 Sec. 3.3, Fig. 2) and
the lemma (Eq. 2, Fig. 3), the numbers they print (``published.csv``), and the page's sentences that a condition
other than a verdict picks, as templates.

Each statement about systems is checked on **the papers' set**, and a twin finding (key ending :data:`TWIN`)
says whether it carries over to **today's top-N set**, which departs from the papers by construction.  A
comparison of two systems is decided beyond noise (Wilcoxon signed-rank tests, the user as the unit), and so
is the AR-1R disagreement; the AI-TI likeness is an equivalence within ±:data:`ALIKE` on 95% intervals.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import (
    BY_WORDS,
    CODE,
    FAILS,
    HOLDS,
    LEVEL,
    Criterion,
    Finding,
    all_of,
    beyond_noise,
    between,
    is_true,
    published,
    some_of,
    within_margin,
)
from recbias.chapters.c02_designs.study.comparison import ALPHA, PAPERS, ROLES, SETS, TOP_N, DesignStudy, reversals
from recbias.text import ordinal

#: where the papers state the findings of the comparison
SOURCE = "IRJ 2017 Sec. 3.3, Fig. 2"
#: where the page lists them
ANCHOR = "tbl-designs-papers"
#: the key suffix of a finding that checks a statement of the papers on today's top-N set
TWIN = "/todays-set"
#: set -> the suffix of the names of its measured values
SUFFIX = {PAPERS: "", TOP_N: "_top_n"}
#: set -> how the statements of its findings name it
AMONG = {PAPERS: "the papers' five systems", TOP_N: "today's top-N set"}
#: how every twin finding departs from the papers
TODAYS_DEPARTS = ("today's top-N learners, implicit ALS (Hu et al. 2008) and unnormalised user-kNN, which learn "
                  "which items get rated, stand in for the papers' rating-prediction MF and kNN: the finding says "
                  "whether the papers' statement carries over to them")
#: how every finding on the second dataset departs from the papers' Last.fm experiment
SECOND_DEPARTS = ("the papers' Last.fm sample (complete listening histories of about 1,000 users, split by time) "
                  "is not available: the check runs on the page's second dataset, by default the HetRec 2011 "
                  "release, which keeps each user's 50 most played artists and, having no timestamps, is split by "
                  "a coin flip")
#: the largest AI-TI difference in P@10 that counts as "almost the same", and where it comes from
ALIKE = 0.01
ALIKE_ORIGIN = ("IRJ 2017 Sec. 3.3: the paper reads its Fig. 2 to two decimals (Popularity's AR P@10 0.08 on "
                "MovieLens 1M, 0.35 on Last.fm), so a gap under 0.01 is finer than anything it reports")
#: where the level of "significantly" comes from
SIGNIFICANT_ORIGIN = "IRJ 2017 Sec. 3.3: Wilcoxon p ≪ 0.001 for all differences"

#: the papers' numbers; those published on Last.fm are recomputed on the page's second dataset
NUMBERS = published(Path(__file__).with_name("published.csv"))
SECOND_NUMBERS = [number for number in NUMBERS if number.paper_dataset == "lastfm-1k"]
MAIN_NUMBERS = [number for number in NUMBERS if number.paper_dataset != "lastfm-1k"]

#: the AR-1R disagreement: some pair of systems ordered oppositely by AR and 1R, each beyond noise
DISAGREE = ("a pair of systems that AR and 1R order oppositely, each with p < {:g} with the user as the unit "
            "(fails when both order every pair alike beyond noise)").format(LEVEL)
#: a pair of systems that does not differ significantly, as the evidence lists it
UNSETTLED = "{system_a} vs {system_b} under {design} (p = {wilcoxon_pvalue:.2g})"
#: the AI-TI likeness: an equivalence within ±:data:`ALIKE` on every system's 95% interval
AI_TI_ALIKE = ("every system's 95% interval of AI − TI (the user as the unit) within ±{0:g} (fails when one lies "
               "wholly beyond ±{0:g})").format(ALIKE)


def _finding(which: str, key: str, statement: str, criterion: Callable[[str], Criterion], evidence: str,
             departs: str = "") -> Finding:
    """A statement of the papers on the set ``which`` (its key ends :data:`TWIN` on today's set): ``statement``
    may name ``{among}``, ``{mf}`` and ``{knn}``; ``evidence`` and ``criterion`` read the set's value names
    (``{{name{sfx}}}`` and ``criterion(sfx)``)."""
    (mf, knn), sfx = ROLES[which], SUFFIX[which]
    departures = [text for text in ("" if which == PAPERS else TODAYS_DEPARTS, departs) if text]
    return Finding(key if which == PAPERS else key + TWIN, statement.format(among=AMONG[which], mf=mf, knn=knn),
                   SOURCE, ANCHOR, criterion(sfx), evidence.format(sfx=sfx, mf=mf, knn=knn),
                   departs="; ".join(departures))


def _lead(name: str, what: str) -> Callable[[str], Criterion]:
    """The value ``name`` of a set (with its suffix) above zero beyond noise, its p-value in ``name_p``."""
    return lambda sfx: beyond_noise(f"{name}{sfx}", f"{name}{sfx}_p", what=what)


def _popularity_second(sfx: str) -> Criterion:
    return all_of(_lead("ar_first_over_popularity", "the best other system's AR P@10 minus Popularity's")(sfx),
                  _lead("ar_popularity_over_second", "Popularity's AR P@10 minus the second best other system's")(sfx))


def set_findings(which: str) -> list[Finding]:
    """The statements of the comparison on the page's dataset, checked on the set of systems ``which``."""
    mf, knn = ROLES[which]
    return [
        _finding(which, "fig2/AR/pLSA-first", "pLSA has the best AR precision of {among}",
                 _lead("ar_plsa_lead", "pLSA's AR P@10 minus the best other system's"),
                 "AR {{ar_design}} order: {{ar_order{sfx}}}"),
        _finding(which, "fig2/1R/pLSA-first", "pLSA has the best 1R precision of {among}",
                 _lead("one_r_plsa_lead", "pLSA's 1R P@10 minus the best other system's"),
                 "1R order: {{one_r_order{sfx}}}"),
        _finding(which, "fig2/AR/Popularity-second",
                 "Popularity comes second under AR among {among}, ahead of two personalised systems",
                 _popularity_second, "Popularity is {{ar_popularity_place{sfx}}} under AR"),
        _finding(which, "fig2/AR/MF-above-kNN", "MF ({mf}) beats kNN ({knn}) under AR",
                 _lead("ar_mf_over_knn", "{}'s AR P@10 minus {}'s".format(mf, knn)),
                 "AR P@10: {mf} {{ar_mf{sfx}:.4f}}, {knn} {{ar_knn{sfx}:.4f}}"),
        _finding(which, "fig2/1R/MF-above-kNN", "MF ({mf}) beats kNN ({knn}) under 1R",
                 _lead("one_r_mf_over_knn", "{}'s 1R P@10 minus {}'s".format(mf, knn)),
                 "1R P@10: {mf} {{one_r_mf{sfx}:.4f}}, {knn} {{one_r_knn{sfx}:.4f}}"),
        _finding(which, "fig2/all-pairs-significant", "every pair of {among} differs significantly in every design",
                 lambda s: between(f"pair_p{s}", 0, ALPHA, open_high=True, what="the Wilcoxon p-value of every pair",
                                   origin=(BY_WORDS, SIGNIFICANT_ORIGIN)),
                 "{{significant_pairs{sfx}}} of {{tested_pairs{sfx}}} pairs; not significant: {{unsettled_pairs{sfx}}}"),
    ]


def second_findings(which: str) -> list[Finding]:
    """The statements of the comparison on Last.fm, checked on the second dataset with the set ``which``."""
    return [
        _finding(which, "fig2/AR-lastfm/Popularity-first",
                 "on Last.fm, Popularity has the best AR precision of {among}",
                 _lead("second_popularity_lead", "Popularity's AR P@10 minus the best other system's"),
                 "AR {{second_ar_design}} order: {{second_ar_order{sfx}}}", SECOND_DEPARTS),
        _finding(which, "fig2/lastfm/AR-1R-disagree", "on Last.fm, AR and 1R order some pairs of {among} differently",
                 lambda s: some_of(f"second_reversed{s}", f"second_alike{s}", f"second_pairs{s}", words=DISAGREE),
                 "AR: {{second_ar_order{sfx}}}; 1R: {{second_one_r_order{sfx}}}; reversed beyond noise: "
                 "{{second_reversed_pairs{sfx}}}; ordered alike beyond noise: {{second_alike{sfx}}} of "
                 "{{second_pairs{sfx}}} pairs", SECOND_DEPARTS),
    ]


def _interleaved(build: Callable[[str], list[Finding]]) -> list[Finding]:
    """The findings of ``build`` for the papers' set, each followed by its twin on today's set."""
    return [finding for twins in zip(*(build(which) for which in SETS), strict=True) for finding in twins]


FINDINGS = [
    *_interleaved(set_findings),
    Finding("fig2/AI-TI-alike", "AI and TI candidate sets give almost the same AR precision", SOURCE, ANCHOR,
            within_margin("ai_ti_outer", "ai_ti_inner", ALIKE, words=AI_TI_ALIKE, origin=ALIKE_ORIGIN),
            "largest |{ai_design} − {ar_design}| P@10 gap of the papers' set: {ai_ti_gap:.4f}; its intervals reach "
            "±{ai_ti_outer:.4f}"),
]

SECOND_FINDINGS = _interleaved(second_findings)

LEMMA_FINDINGS = [
    Finding("fig3/lemma-holds", "1R precision lies within the lemma's AR bounds at every point of both sweeps",
            "IRJ 2017 Eq. 2, Fig. 3", "fig-designs-lemma",
            is_true("lemma_holds", "1R P@10 within its bounds at every point"),
            "{lemma_within} of {lemma_points} points within the bounds",
            says={HOLDS: "The bounds hold on all {lemma_points} points.",
                  FAILS: "The bounds hold on {lemma_within} of the {lemma_points} points only: a violation means the "
                         "lemma's conditions were broken (shared non-relevant items, one order of items per user)."},
            origin=CODE),
]


def _lead_values(study: DesignStudy, dataset: str, design: str, system: str, which: str, name: str) -> dict:
    """``system``'s P@10 minus the best other system's of the set ``which`` under one design, and its p-value."""
    values = study.measured(dataset, design, which)
    best_other = max((s for s in values if s != system), key=lambda s: values[s])
    difference, p = study.pair(dataset, design, system, best_other)
    return {name: difference, f"{name}_p": p}


def _popularity_place(study: DesignStudy, dataset: str, design: str, which: str, sfx: str) -> dict[str, Any]:
    """Popularity against the best and the second best of the other systems of a set under one design."""
    order = study.order(dataset, design, which)
    others = [s for s in order if s != "Popularity"]
    above, above_p = study.pair(dataset, design, others[0], "Popularity")
    below, below_p = study.pair(dataset, design, "Popularity", others[1])
    return {f"ar_popularity_place{sfx}": ordinal(order.index("Popularity") + 1),
            f"ar_first_over_popularity{sfx}": above, f"ar_first_over_popularity{sfx}_p": above_p,
            f"ar_popularity_over_second{sfx}": below, f"ar_popularity_over_second{sfx}_p": below_p}


def _mf_knn(study: DesignStudy, dataset: str, design: str, which: str, prefix: str) -> dict[str, float]:
    """The MF and the kNN of a set under one design, their difference and its p-value."""
    (mf, knn), values = ROLES[which], study.measured(dataset, design)
    difference, p = study.pair(dataset, design, mf, knn)
    sfx = SUFFIX[which]
    return {f"{prefix}_mf{sfx}": values[mf], f"{prefix}_knn{sfx}": values[knn],
            f"{prefix}_mf_over_knn{sfx}": difference, f"{prefix}_mf_over_knn{sfx}_p": p}


def _set_values(study: DesignStudy, which: str) -> dict[str, Any]:
    """The values of :func:`set_findings` on the page's dataset for the set ``which``."""
    here, ar, one_r, sfx = study.ratings.name, study.choice.main_ar, study.choice.one_r, SUFFIX[which]
    tests = study.set_comparisons(which)
    tests = tests[tests["dataset"] == here]
    return {
        f"ar_order{sfx}": " > ".join(study.order(here, ar, which)),
        f"one_r_order{sfx}": " > ".join(study.order(here, one_r, which)),
        **_lead_values(study, here, ar, "pLSA", which, f"ar_plsa_lead{sfx}"),
        **_lead_values(study, here, one_r, "pLSA", which, f"one_r_plsa_lead{sfx}"),
        **_popularity_place(study, here, ar, which, sfx),
        **_mf_knn(study, here, ar, which, "ar"), **_mf_knn(study, here, one_r, which, "one_r"),
        f"pair_p{sfx}": tests["wilcoxon_pvalue"].to_numpy(),
        f"significant_pairs{sfx}": int((tests["wilcoxon_pvalue"] < ALPHA).sum()), f"tested_pairs{sfx}": len(tests),
        f"unsettled_pairs{sfx}": "; ".join(UNSETTLED.format(**row) for row in tests[
            tests["wilcoxon_pvalue"] >= ALPHA].to_dict("records")) or "none",
    }


def _second_values(study: DesignStudy, which: str) -> dict[str, Any]:
    """The values of :func:`second_findings` for the set ``which``."""
    other, ar, one_r, sfx = study.second_name, study.second_ar, study.choice.one_r, SUFFIX[which]
    pairs = reversals(study.set_comparisons(which), other, ar, one_r)
    flipped = pairs[pairs["reversed"]]
    return {f"second_ar_order{sfx}": " > ".join(study.order(other, ar, which)),
            f"second_one_r_order{sfx}": " > ".join(study.order(other, one_r, which)),
            **_lead_values(study, other, ar, "Popularity", which, f"second_popularity_lead{sfx}"),
            f"second_reversed{sfx}": len(flipped), f"second_alike{sfx}": int(pairs["alike"].sum()),
            f"second_pairs{sfx}": len(pairs),
            f"second_reversed_pairs{sfx}": ", ".join(f"{a} vs {b}" for a, b in zip(
                flipped["system_a"], flipped["system_b"], strict=True)) or "none"}


def _ai_ti_values(study: DesignStudy) -> dict[str, float]:
    """The AI - TI differences of the papers' set: the largest gap, the farthest end of any 95% interval from
    zero and the largest distance of an interval from zero (0 for one that covers zero)."""
    found = study.ai_ti[study.ai_ti["system"].isin(SETS[PAPERS])]
    low, high = found["ci_low"].to_numpy(), found["ci_high"].to_numpy()
    inner = np.where((low > 0) | (high < 0), np.minimum(np.abs(low), np.abs(high)), 0.0)
    return {"ai_ti_gap": float(found["difference"].abs().max()),
            "ai_ti_outer": float(np.maximum(np.abs(low), np.abs(high)).max()), "ai_ti_inner": float(inner.max())}


def measured(study: DesignStudy) -> dict[str, Any]:
    """The values the comparison's claims are checked on: per set of systems, the orders, leads and gaps with
    their paired p-values, on both datasets; the AI-TI differences; the published numbers' recomputations."""
    here, ar = study.ratings.name, study.choice.main_ar
    values: dict[str, Any] = {"ar_design": ar, "ai_design": study.choice.ar[0], **_ai_ti_values(study),
                              "fig2/AR/Popularity/P@10": study.measured(here, ar)["Popularity"],
                              "fig2/1R/ceiling": study.ceiling}
    for which in SETS:
        values |= _set_values(study, which)
    if study.second is not None:
        values |= {"second_ar_design": study.second_ar,
                   "fig2/AR-lastfm/Popularity/P@10": study.measured(study.second_name, study.second_ar)["Popularity"]}
        for which in SETS:
            values |= _second_values(study, which)
    return values


def lemma_measured(sweep: pd.DataFrame) -> dict[str, Any]:
    """The values of :data:`LEMMA_FINDINGS`: whether each point of the sweeps lies within its bounds."""
    return {"lemma_holds": sweep["holds"].to_numpy(), "lemma_within": int(sweep["holds"].sum()),
            "lemma_points": len(sweep)}


# The page's sentences that a condition other than a verdict picks (templates over the values named).
#: what became of the page's second dataset: why it was not run (:func:`~.study.comparison.second_status`)
#: or how it was split (:func:`~.study.comparison.second_split`); ``{second}`` is its name
SECOND_NOTES = {
    "empty": "No second dataset was requested (`second_dataset` is empty).",
    "same": "The second dataset, *{second}*, is the chapter's own dataset: it is not repeated.",
    "unavailable": "The second dataset, *{second}*, is not available on the machine that built this page.",
    "temporal": "The second dataset, *{second}*, was split once by time (the most recent ratings in test), as the "
                "papers did on Last.fm.",
    "coin": "The second dataset, *{second}*, was split once by a coin flip per rating: it has no timestamps, so the "
            "temporal split of the papers cannot be reproduced on it.",
}
#: the lemma's band along the size sweep (:func:`~.study.lemma.band_ends`), or why there is none
BAND_GROWTH = ("Along the size sweep, on a fixed population of {users:,.0f} users, it goes from {small:.4f} "
               "({small_relative:.0%}) with target sets of {small_size:,.0f} items to {big:.4f} ({big_relative:.0%}) "
               "with {big_size:,.0f}.")
NO_SIZE_SWEEP = "The catalogue is too small for the size sweep."
#: the check against the truth in one set of systems (:func:`~.study.truth.readings`), and its widest swap
TRUTH = ("Among {among}, the true order is **{order}**, and {right} of the {designs} designs order the systems "
         "as the truth does.")
SWAP = ("The widest pair a design swaps is {a} and {b}: {a} is measured above {b}, although its true P@10 is "
        "{gap:.1%} lower ({true_a:.4f} against {true_b:.4f}). A swap of systems close in truth may be noise; a "
        "wide one means that the design itself, not only noise, moves the order, which the chapters on popularity "
        "bias return to.")
#: the best true precision against the best measured one
SCALE = ("The scale differs too: the best true precision, {best:.3f}, is {ratio:.1f} times the best value any design "
         "measures here, because most relevant items were never rated and count as failures.")
#: why observed data get no check against a truth
NO_TRUTH = ("*{dataset}* is observed data, without the relevance of the pairs nobody rated, so the orders cannot be "
            "checked against a truth here: the table gives the measured orders only. Build the chapter on "
            "`synthetic` to see the check.")

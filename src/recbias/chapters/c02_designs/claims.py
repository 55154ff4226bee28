"""The chapter's claims: what the papers state about the comparison of designs and the lemma, and the
numbers they print (``published.csv``).

IRJ 2017 Sec. 3.3 and Fig. 2 state which system leads under AR and 1R, where popularity stands, that AI
and TI give nearly the same precision and that every pair of systems differs significantly; on Last.fm,
that popularity leads under AR and that AR and 1R disagree.  A statement that compares two systems is
decided beyond noise only (:func:`~recbias.bookkit.claims.beyond_noise`, Wilcoxon signed-rank tests with
the user as the unit).  IRJ Eq. 2 and Fig. 3 state that 1R precision lies within two AR bounds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from recbias.bookkit.claims import Finding, all_of, beyond_noise, between, is_true, published
from recbias.chapters.c02_designs.study.comparison import ALPHA, DesignStudy
from recbias.text import ordinal

#: where the papers state the findings of the comparison
SOURCE = "IRJ 2017 Sec. 3.3, Fig. 2"
#: where the page lists them
ANCHOR = "tbl-designs-papers"
#: how the systems of the comparison depart from the papers'
SYSTEMS_DEPART = ("the papers' MF is the rating-prediction model of Koren et al. (2009), ours implicit-feedback "
                  "ALS (Hu et al. 2008), and the settings of all five systems are the book's")
#: the largest AI-TI gap in P@10 that counts as "almost the same"
ALIKE = 0.01

#: the papers' numbers; those published on Last.fm are recomputed on the page's second dataset
NUMBERS = published(Path(__file__).with_name("published.csv"))
SECOND_NUMBERS = [number for number in NUMBERS if number.paper_dataset == "lastfm-1k"]
MAIN_NUMBERS = [number for number in NUMBERS if number.paper_dataset != "lastfm-1k"]


def _compares(key: str, statement: str, difference: str, what: str, evidence: str) -> Finding:
    """A statement on the page's dataset that one P@10 is above another, decided beyond noise: it holds when
    ``values[difference]`` is above zero with ``values[difference + "_p"]`` below 0.05."""
    return Finding(key, statement, SOURCE, ANCHOR, beyond_noise(difference, f"{difference}_p", what=what), evidence,
                   departs=SYSTEMS_DEPART)


FINDINGS = [
    _compares("fig2/AR/pLSA-first", "pLSA has the best AR precision of the five systems", "ar_plsa_lead",
              "pLSA's AR P@10 minus the best other system's", "AR {ar_design} order: {ar_order}"),
    _compares("fig2/1R/pLSA-first", "pLSA has the best 1R precision of the five systems", "one_r_plsa_lead",
              "pLSA's 1R P@10 minus the best other system's", "1R order: {one_r_order}"),
    Finding("fig2/AR/Popularity-second", "Popularity comes second under AR, ahead of two personalised systems",
            SOURCE, ANCHOR,
            all_of(beyond_noise("ar_first_over_popularity", "ar_first_over_popularity_p",
                                what="the best other system's AR P@10 minus Popularity's"),
                   beyond_noise("ar_popularity_over_second", "ar_popularity_over_second_p",
                                what="Popularity's AR P@10 minus the second best other system's")),
            "Popularity is {ar_popularity_place} under AR", departs=SYSTEMS_DEPART),
    _compares("fig2/AR/MF-above-kNN", "MF beats user-kNN under AR", "ar_mf_over_knn",
              "MF's AR P@10 minus user-kNN's", "AR P@10: MF {ar_mf:.4f}, user-kNN {ar_knn:.4f}"),
    _compares("fig2/1R/MF-above-kNN", "MF beats user-kNN under 1R", "one_r_mf_over_knn",
              "MF's 1R P@10 minus user-kNN's", "1R P@10: MF {one_r_mf:.4f}, user-kNN {one_r_knn:.4f}"),
    Finding("fig2/AI-TI-alike", "AI and TI candidate sets give almost the same AR precision", SOURCE, ANCHOR,
            between("ai_ti_gap", 0, ALIKE, open_high=True, what="the largest |AI − TI| gap in P@10"),
            "largest |{ai_design} - {ar_design}| P@10 gap: {ai_ti_gap:.4f}"),
    Finding("fig2/all-pairs-significant", "every pair of systems differs significantly in every design", SOURCE,
            ANCHOR, between("pair_p", 0, ALPHA, open_high=True, what="the Wilcoxon p-value of every pair"),
            "{significant_pairs} of {tested_pairs} pairs", departs=SYSTEMS_DEPART),
]

SECOND_FINDINGS = [
    Finding("fig2/AR-lastfm/Popularity-first", "on Last.fm, Popularity has the best AR precision", SOURCE, ANCHOR,
            beyond_noise("second_popularity_lead", "second_popularity_lead_p",
                         what="Popularity's AR P@10 minus the best other system's"),
            "AR {second_ar_design} order: {second_ar_order}", departs=SYSTEMS_DEPART),
    Finding("fig2/lastfm/AR-1R-disagree", "on Last.fm, AR and 1R order some pairs of systems differently", SOURCE,
            ANCHOR, is_true("second_orders_differ", "the AR order differs from the 1R order"),
            "AR: {second_ar_order}; 1R: {second_one_r_order}", departs=SYSTEMS_DEPART),
]

LEMMA_FINDINGS = [
    Finding("fig3/lemma-holds", "1R precision lies within the lemma's AR bounds at every point of both sweeps",
            "IRJ 2017 Eq. 2, Fig. 3", "fig-designs-lemma",
            is_true("lemma_holds", "1R P@10 within its bounds at every point"),
            "{lemma_within} of {lemma_points} points within the bounds"),
]


def _lead_values(study: DesignStudy, dataset: str, design: str, system: str, name: str) -> dict[str, float]:
    """``system``'s P@10 minus the best other system's under one design, and the p-value of that pair."""
    values = study.measured(dataset, design)
    best_other = max((s for s in study.systems if s != system), key=lambda s: values[s])
    difference, p = study.pair(dataset, design, system, best_other)
    return {name: difference, f"{name}_p": p}


def _popularity_place(study: DesignStudy, dataset: str, design: str) -> dict[str, Any]:
    """Popularity against the best and the second best of the other systems under one design."""
    order = study.order(dataset, design)
    others = [s for s in order if s != "Popularity"]
    above, above_p = study.pair(dataset, design, others[0], "Popularity")
    below, below_p = study.pair(dataset, design, "Popularity", others[1])
    return {"ar_popularity_place": ordinal(order.index("Popularity") + 1),
            "ar_first_over_popularity": above, "ar_first_over_popularity_p": above_p,
            "ar_popularity_over_second": below, "ar_popularity_over_second_p": below_p}


def _mf_knn(study: DesignStudy, dataset: str, design: str, prefix: str) -> dict[str, float]:
    values = study.measured(dataset, design)
    difference, p = study.pair(dataset, design, "MF", "user-kNN")
    return {f"{prefix}_mf": values["MF"], f"{prefix}_knn": values["user-kNN"], f"{prefix}_mf_over_knn": difference,
            f"{prefix}_mf_over_knn_p": p}


def _second(study: DesignStudy) -> dict[str, Any]:
    """The values of :data:`SECOND_FINDINGS` and :data:`SECOND_NUMBERS` (none without a second dataset)."""
    if study.second is None:
        return {}
    other, ar, one_r = study.second_name, study.second_ar, study.choice.one_r
    ar_order, one_r_order = study.order(other, ar), study.order(other, one_r)
    return {"second_dataset": other, "second_ar_design": ar, "second_ar_order": " > ".join(ar_order),
            "second_one_r_order": " > ".join(one_r_order), "second_orders_differ": ar_order != one_r_order,
            **_lead_values(study, other, ar, "Popularity", "second_popularity_lead"),
            "fig2/AR-lastfm/Popularity/P@10": study.measured(other, ar)["Popularity"]}


def measured(study: DesignStudy) -> dict[str, Any]:
    """The values the comparison's claims are checked on: the orders of the systems, the leads and gaps
    they rest on with their paired p-values, the AI-TI gap, the p-values of every pair of systems on the
    page's dataset, and the published numbers' recomputations."""
    here, ar, one_r = study.ratings.name, study.choice.main_ar, study.choice.one_r
    tests = study.comparisons[study.comparisons["dataset"] == here]
    return {
        "dataset": here, "ar_design": ar, "ai_design": study.choice.ar[0], "one_r_design": one_r,
        "ar_order": " > ".join(study.order(here, ar)), "one_r_order": " > ".join(study.order(here, one_r)),
        **_lead_values(study, here, ar, "pLSA", "ar_plsa_lead"),
        **_lead_values(study, here, one_r, "pLSA", "one_r_plsa_lead"),
        **_popularity_place(study, here, ar),
        **_mf_knn(study, here, ar, "ar"), **_mf_knn(study, here, one_r, "one_r"),
        "ai_ti_gap": study.ai_ti_gap,
        "pair_p": tests["wilcoxon_pvalue"].to_numpy(), "significant_pairs": int((tests["wilcoxon_pvalue"] < ALPHA).sum()),
        "tested_pairs": len(tests),
        "fig2/AR/Popularity/P@10": study.measured(here, ar)["Popularity"], "fig2/1R/ceiling": study.ceiling,
        **_second(study),
    }


def lemma_measured(sweep: pd.DataFrame) -> dict[str, Any]:
    """The values of :data:`LEMMA_FINDINGS`: whether each point of the sweeps lies within its bounds."""
    return {"lemma_holds": sweep["holds"].to_numpy(), "lemma_within": int(sweep["holds"].sum()),
            "lemma_points": len(sweep)}


def published_value(key: str) -> float:
    """The value the papers print for the published number ``key``."""
    found = {number.key: number.value for number in NUMBERS}
    if key not in found:
        raise KeyError(f"no published number {key!r}; known: {', '.join(found)}")
    return found[key]

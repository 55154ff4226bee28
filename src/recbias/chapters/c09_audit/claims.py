"""Chapter 9's finding as data: on the audited data, the neutralising designs leave popularity less of the
scale than AR does (IRJ 2017 Sec. 6), and the values it is checked on."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from recbias.bookkit.claims import Finding, above
from recbias.chapters.c09_audit.study.protocols import ar_protocol, neutralising
from recbias.protocol_study import Protocol

#: the chapter reproduces no published number: the header of the common schema only
PUBLISHED = Path(__file__).with_name("published.csv")

FINDINGS = [
    Finding(key="audit_neutralising_index", statement="Neutralising designs give popularity a smaller share of "
            "the scale than AR does on the audited data", source="IRJ 2017 Sec. 6", anchor="tbl-audit-popularity",
            criterion=above("ar_index", "neutralising_index", what="popularity index under AR",
                            than="the largest under P1R, U1R and UAR"),
            evidence="popularity index {ar_index:.2f} under AR, at most {neutralising_index:.2f} when neutralised",
            departs="the audited systems, not the papers' pLSA, MF and kNN, set the top of the scale"),
]


#: what the page says of the set of protocols the data cannot tell apart, by whether the data rank them at all
RANKING = {True: "The data rank the protocols: the ones behind the most faithful one are behind it beyond noise.",
           False: "The data cannot rank these protocols: none is behind the most faithful one beyond noise, so "
                  "the choice among them is the rule's, not the evidence's; report the set beside the pick."}


#: what the page says of the map of agreement between protocols, by whether the systems are too few for τ
FEW_SYSTEMS = {True: "With {systems} systems there are only {pairs} pairs to order, and one swapped pair moves τ by "
                     "{step:.2f}; the map therefore counts the share of pairs that two protocols order alike.",
               False: "The map gives Kendall's τ between every two protocols' orders of the {systems} systems."}


#: what the page says of the metric the protocols read, by whether each reads its usual one (``metric = "usual"``)
METRIC_READ = {True: "each reads its usual metric at a cutoff of {cutoff}: precision on target sets, the hit rate "
                     "when sampled and nDCG over the whole catalogue",
               False: "every one reads {metric} at a cutoff of {cutoff}"}


#: what the page says when the skew's exponent was fitted at an end of its range, by whether it was
ALPHA_AT_BOUND = {True: "The fitted α of the audited data sits at an end of the range the fit searches ({alpha:.2f}): "
                        "the curve fits its popularity poorly, so the stand-in world below copies the skew only "
                        "roughly, and the advice leans on that world more than usual.", False: ""}


def measured(share: pd.DataFrame, plan: Sequence[Protocol]) -> dict[str, float]:
    """The values the finding reads, from :func:`recbias.chapters.c09_audit.study.compare.popularity_share` of the
    protocols of ``plan``."""
    index = share["popularity index"]
    ar, neutral = ar_protocol(plan), [p for p in neutralising(plan) if p in index.index]
    if ar not in index.index or not neutral:
        return {}
    return {"ar_index": float(index[ar]), "neutralising_index": float(index[neutral].max())}

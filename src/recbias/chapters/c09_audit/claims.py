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


#: what the page says of the truth the protocols are measured against, by the kind of truth the data carry
#: (:func:`recbias.protocol_study.truth_kind`, empty for none)
TRUTH_SOURCE = {
    "complete relevance": "The audited data are a simulated world and carry its complete relevance, so the "
                          "measurement reads that truth directly, as chapter 8 does.",
    "random items": "The audited data carry ratings of items drawn at random, as Coat's do, so the measurement reads "
                    "that truth directly, as chapter 8 does.",
    "": "The audited data carry no truth, so the measurement runs on a world drawn in their shape. The world has the "
        "data's users, items and ratings, item counts that follow the shifted power law fitted to the data's, the "
        "data's least active user as its floor of activity and the same share of positive ratings; its observation "
        "bias and the tie between quality and popularity are fitted so that the share of positive ratings moves "
        "with the activity of users and with the popularity of items as it does in the data (the two rank "
        "correlations of the profile). What it cannot copy are the tastes behind the ratings."}


#: why the truth orders the systems by the metric it does, by whether the protocols read their usual metrics
TRUTH_METRIC = {True: "chapter 8's measure of the truth, the protocols reading their usual metrics",
                False: "the metric every protocol reads, over every item a user did not rate in training or over "
                       "the random items"}


#: what the page says of the map of agreement between protocols, by whether the systems are too few for τ
FEW_SYSTEMS = {True: "With {systems} systems there are only {pairs} pairs to order, and one swapped pair moves τ by "
                     "{step:.2f}; the map therefore counts the share of pairs that two protocols order alike.",
               False: "The map gives Kendall's τ between every two protocols' orders of the {systems} systems."}


#: what the page says of the metric the protocols read, by whether each reads its usual one (``metric = "usual"``)
METRIC_READ = {True: "each reads its usual metric at a cutoff of {cutoff}: precision on target sets, the hit rate "
                     "when sampled and nDCG over the whole catalogue, and bpref and infAP read theirs over the whole "
                     "ranking of the test items",
               False: "every one reads {metric} at a cutoff of {cutoff}, and bpref and infAP, which have no form at a "
                      "cutoff, are left out"}


#: what the page says when the skew's exponent was fitted at an end of its range, by whether it was
ALPHA_AT_BOUND = {True: "The fitted α of the audited data sits at an end of the range the fit searches ({alpha:.2f}): "
                        "the curve fits its popularity poorly, so a stand-in world below would copy the skew only "
                        "roughly, and the advice would lean on that world more than usual.", False: ""}


#: what the page says when parameters of the stand-in world were fitted at an end of their range (``listed``: what
#: each copies, with its value)
WORLD_AT_BOUND = ("The fit of the world reached an end of its range for {listed}: the world copies that side of the "
                  "data only roughly, so its ranking of the protocols is a weaker guide than usual.")


def measured(share: pd.DataFrame, plan: Sequence[Protocol]) -> dict[str, float]:
    """The values the finding reads, from :func:`recbias.chapters.c09_audit.study.compare.popularity_share` of the
    protocols of ``plan``."""
    index = share["popularity index"]
    ar, neutral = ar_protocol(plan), [p for p in neutralising(plan) if p in index.index]
    if ar not in index.index or not neutral:
        return {}
    return {"ar_index": float(index[ar]), "neutralising_index": float(index[neutral].max())}

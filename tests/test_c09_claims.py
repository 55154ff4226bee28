"""Chapter 9's finding reads the popularity index under AR and under the neutralising designs."""

import pandas as pd

from recbias.bookkit.claims import FAILS, HOLDS, published
from recbias.chapters.c09_audit import claims
from recbias.chapters.c09_audit.study.protocols import audit_protocols


def test_the_finding_holds_when_ar_gives_popularity_the_larger_share() -> None:
    share = pd.DataFrame({"popularity index": [0.8, 0.3, 0.5]}, index=["AR TI-AN P@10", "P1R(10) P@10", "UAR P@10"])
    plan = audit_protocols(1000)
    values = claims.measured(share, plan)
    assert values == {"ar_index": 0.8, "neutralising_index": 0.5}
    assert claims.FINDINGS[0].criterion(values) == HOLDS
    assert claims.FINDINGS[0].criterion({"ar_index": 0.4, "neutralising_index": 0.5}) == FAILS
    assert claims.measured(share.loc[["AR TI-AN P@10"]], plan) == {}
    # read with another metric, the protocols keep their roles under their new labels
    renamed = share.rename(index=lambda label: label.replace("P@10", "nDCG@5"))
    assert claims.measured(renamed, audit_protocols(1000, "nDCG", 5)) == values
    assert claims.measured(renamed, plan) == {}
    assert published(claims.PUBLISHED) == []


def test_the_metric_the_protocols_read_is_said_for_either_choice() -> None:
    assert "nDCG over the whole catalogue" in claims.METRIC_READ[True].format(metric="usual", cutoff=10)
    forced = claims.METRIC_READ[False].format(metric="nDCG", cutoff=5)
    assert forced.startswith("every one reads nDCG at a cutoff of 5") and "bpref and infAP" in forced

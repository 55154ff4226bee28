"""Chapter 9's finding reads the popularity index under AR and under the neutralising designs."""

import pandas as pd

from recbias.bookkit.claims import FAILS, HOLDS, published
from recbias.chapters.c09_audit import claims


def test_the_finding_holds_when_ar_gives_popularity_the_larger_share() -> None:
    share = pd.DataFrame({"popularity index": [0.8, 0.3, 0.5]}, index=["AR TI-AN P@10", "P1R(10) P@10", "UAR P@10"])
    values = claims.measured(share)
    assert values == {"ar_index": 0.8, "neutralising_index": 0.5}
    assert claims.FINDINGS[0].criterion(values) == HOLDS
    assert claims.FINDINGS[0].criterion({"ar_index": 0.4, "neutralising_index": 0.5}) == FAILS
    assert claims.measured(share.loc[["AR TI-AN P@10"]]) == {}
    assert published(claims.PUBLISHED) == []

"""Chapter 1's driver: the spread study of IR judgments and ratings, its text, tables and claims."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import datasets
from recbias.experiments import cranfield


@pytest.fixture(scope="module")
def study() -> cranfield.SpreadStudy:
    return cranfield.spread_study(datasets.load("synthetic-small", seed=0), seed=0, cutoff=5, compare_all=False)


def test_the_study_holds_the_ir_collections_the_page_and_its_truth(study: cranfield.SpreadStudy) -> None:
    assert {"cranfield", "trec8-adhoc", "synthetic-small", f"synthetic-small{cranfield.TRUTH}"} == set(study.stats.index)
    assert study.stats.loc["synthetic-small", "label"] == "synthetic-small (this page)"
    assert study.fixed == "fixed-list P@5" and study.fixed in study.stats.columns
    assert list(study.rated.index) == ["synthetic-small"] and set(study.ir.index) == {"cranfield", "trec8-adhoc"}
    assert study.skipped == []  # compare_all=False: no other rating dataset is looked for
    assert set(study.shipped) <= {"cranfield", "trec8-adhoc"}


def test_head_share_is_read_off_the_cumulative_curve(study: cranfield.SpreadStudy) -> None:
    counts = np.sort(np.bincount(study.ratings[0].items[study.ratings[0].positive]))[::-1]
    counts = counts[counts > 0]
    head = counts[: int(np.floor(0.1 * len(counts)))].sum() / counts.sum()
    assert study.head_share["synthetic-small"] == pytest.approx(head, abs=1.5 * counts[0] / counts.sum())


def test_published_numbers_come_from_the_data_file_and_apply_where_they_should(study: cranfield.SpreadStudy) -> None:
    table = cranfield.published()
    assert {"trec/max-positives-per-document", "top-item-reach/movielens-1m"} <= set(table["key"])
    claims = {c["key"]: c for c in cranfield.published_numbers(study, "synthetic-small")}
    assert claims["trec/max-positives-per-document"]["dataset"] == "trec8-adhoc"
    assert claims["trec/max-positives-per-document"]["ours"] == study.stats.loc["trec8-adhoc", "max positives per document"]
    assert claims["top-item-reach/netflix"]["dataset"] == "synthetic-small"
    shown = cranfield.published_table(study)
    assert (shown.loc[shown["statistic"] == "users who like the most-liked item", "ours on"] == "–").all()


def test_findings_compare_the_page_with_every_ir_collection(study: cranfield.SpreadStudy) -> None:
    found = {f["key"]: f for f in cranfield.findings(study)}
    mine, ir = study.stats.loc["synthetic-small"], study.ir
    assert found["likes-concentrate"]["holds"] == bool(mine["gini"] > ir["gini"].max())
    assert all(f["label"] and f["evidence"] for f in found.values())


def test_texts_name_the_page_and_its_numbers(study: cranfield.SpreadStudy) -> None:
    assert "`synthetic-small`" in cranfield.spread_text(study)
    assert "synthetic-small" in cranfield.truth_text(study)
    numbers = cranfield.ir_numbers(study)
    assert f"a small collection of {study.stats.loc['cranfield', 'queries']:,} queries" in numbers["single_query_ir"]
    sweeps = cranfield.threshold_sweeps(study)
    assert set(sweeps["collection"]) == {"synthetic-small"} and sweeps["default"].sum() == 1
    assert "threshold (5" in cranfield.threshold_text(study, sweeps)
    assert len(cranfield.threshold_table(study, sweeps)) == len(sweeps)

"""Chapter 1's tables, on hand-made collections whose every statistic is worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c01_cranfield import report
from recbias.chapters.c01_cranfield import study as spread
from recbias.judgments import Spread
from recbias.ratings import Ratings

#: Cranfield: 10 queries, one document relevant to two of them, three to one: s1 = 75%, reach 20%
CRANFIELD = Spread("cranfield", "IR", n_queries=10, n_judgments=30, counts=np.array([2, 1, 1, 1]))
#: TREC-8: 20 topics, ten documents relevant to one each: s1 = 100%, reach 5%, the top tenth holds 10%
TREC = Spread("trec8-adhoc", "IR", n_queries=20, n_judgments=100, counts=np.ones(10, dtype=int))
#: (user, item, stars) of a four-user toy; 5 stars are positive, so items 0 and 1 are liked by 2 users each
TOY = np.array([(0, 0, 5), (0, 1, 5), (1, 0, 5), (1, 2, 3), (2, 0, 4), (3, 1, 5)])
#: what the toy's users would truly like: four of these six pairs are rated 5 stars
TRUTH = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=bool)


def toy(name: str = "toy", truth: np.ndarray | None = None) -> Ratings:
    return Ratings.from_codes(TOY[:, 0], TOY[:, 1], TOY[:, 2].astype(float), (4, 3), positive_threshold=5, name=name,
                              true_relevance=truth)


def plays(name: str = "lastfm-2k") -> Ratings:
    """Two users' play counts; more than two plays is positive, so both like item 0 and 2 of 3 rows count."""
    return Ratings.from_codes(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([10.0, 3.0, 1.0]), (2, 2),
                              positive_threshold=3, name=name, scale=(1.0, 10.0))


def hand_study(*rating_sets: Ratings, **notes) -> spread.SpreadStudy:
    return spread.collect([CRANFIELD, TREC], list(rating_sets), cutoff=2, **notes)


def test_tables_show_every_collection_under_the_chapters_names() -> None:
    study = hand_study(toy())
    sizes = report.size_table(study)
    assert sizes["collection"].tolist() == ["cranfield", "trec8-adhoc", "toy (this page)"]
    assert sizes["per query"].tolist() == [0.5, 0.5, 1.0]  # 5 of 10, 10 of 20, 4 of 4
    assert sizes["judged per query"].tolist() == [3.0, 5.0, 1.5]  # 30 of 10, 100 of 20, 6 of 4
    assert sizes["positive share"].tolist() == pytest.approx([5 / 30, 10 / 100, 4 / 6])
    shown = report.spread_table(study).set_index("collection")
    assert list(shown.columns) == [*report.SPREAD_HEADERS.values(), "fixed-list P@2"]
    assert shown.loc["trec8-adhoc", report.SPREAD_HEADERS["head share"]] == pytest.approx(0.1)
    assert shown.loc["cranfield", report.SPREAD_HEADERS["max positives per document"]] == 2
    sweep = report.threshold_table(study)
    assert sweep["threshold"].tolist() == [3, 4, 5] and sweep["share of ratings positive"].tolist()[-1] == 4 / 6


def test_the_threshold_effect_table_sets_each_own_threshold_against_every_rating_positive() -> None:
    table = report.threshold_effect_table(hand_study(toy(), plays()))
    assert table.index.tolist() == ["toy", "lastfm-2k"]
    assert table.columns.tolist() == ["threshold", "share of ratings positive", "reach₁, all positive", "reach₁",
                                      "Gini, all positive", "Gini", "reach₁ drop", "Gini change"]
    # the toy, every rating positive (3 stars up): item 0 reaches 3 of 4 users, Gini of (3, 2, 1) is 2/9; at its own
    # 5 stars, items 0 and 1 reach 2 users each, Gini 0
    row = table.loc["toy"]
    assert (row["threshold"], row["share of ratings positive"]) == (5, pytest.approx(4 / 6))
    assert (row["reach₁, all positive"], row["reach₁"], row["reach₁ drop"]) == (0.75, 0.5, pytest.approx(1 / 3))
    assert (row["Gini, all positive"], row["Gini"], row["Gini change"]) == (pytest.approx(2 / 9), 0, pytest.approx(2 / 9))
    # the plays: more than two plays keeps 2 of 3 rows; item 0 is liked by both users either way
    row = table.loc["lastfm-2k"]
    assert (row["share of ratings positive"], row["reach₁"], row["reach₁ drop"]) == (pytest.approx(2 / 3), 1.0, 0.0)


def test_the_published_table_sets_each_number_against_the_collections_it_applies_to() -> None:
    table = report.published_table(hand_study(toy("ml-100k")))
    queries = table.iloc[:2]  # the TREC aggregate's counts come first, as counts
    assert queries["published"].tolist() == ["703", ""] and queries["ours"].tolist() == ["20", "10"]
    share = table.index[table["published statistic"].str.startswith("documents relevant to one query")][0]
    trec = table.loc[share:share + 1]
    assert trec["ours on"].tolist() == ["trec8-adhoc", "cranfield"] and trec["ours"].tolist() == ["100.0%", "75.0%"]
    assert trec["published"].tolist() == ["87.2%", ""]  # the published side on the first row only
    maximum = table[table["published statistic"].str.startswith("max positives on one document (")].iloc[0]
    assert (maximum["published"], maximum["ours"]) == ("25", "1")
    movielens = table[table["ours on"] == "ml-100k (this page)"]
    assert movielens["ours"].tolist() == ["50.0%"] and movielens["published"].tolist() == ["32.7%"]
    missing = table[table["published statistic"].str.contains("Last.fm|Netflix")]
    assert (missing["ours on"] == "–").all() and (missing["ours"] == "–").all()


def test_a_page_without_the_papers_datasets_shows_none_of_their_values() -> None:
    study = spread.spread_study(datasets.load("synthetic-small", seed=0), seed=0, cutoff=5, compare_all=False)
    shown = report.published_table(study)
    assert (shown.loc[shown["published statistic"].str.startswith("users who like the most-liked item"),
                      "ours on"] == "–").all()
    assert len(report.threshold_table(study)) == len(study.sweeps)
    assert report.threshold_effect_table(study).index.tolist() == ["synthetic-small"]

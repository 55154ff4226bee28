"""Relevance-spread statistics of IR judgments and ratings (recbias.judgments)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from recbias import datasets, judgments
from recbias.ratings import Ratings


def make_ratings(rows: list[tuple[int, int, float]], n_users: int, n_items: int, threshold: float = 4.0,
                 truth: np.ndarray | None = None) -> Ratings:
    users, items, values = (np.array(c) for c in zip(*rows))
    return Ratings.from_codes(users, items, values, (n_users, n_items), positive_threshold=threshold,
                              name="toy", true_relevance=truth)


# ----------------------------------------------------------------- gini
def test_gini_hand_worked_values():
    assert judgments.gini([3, 3, 3, 3]) == pytest.approx(0.0)
    assert judgments.gini([1, 3]) == pytest.approx(0.25)  # sum |xi - xj| / (2 m^2 mean) = 4 / 16
    assert judgments.gini([5]) == pytest.approx(0.0)
    assert judgments.gini([0, 0, 0, 4]) == pytest.approx(0.75)  # (m - 1) / m when one holds all
    assert np.isnan(judgments.gini([])) and np.isnan(judgments.gini([0, 0]))
    with pytest.raises(ValueError, match="non-negative"):
        judgments.gini([1, -1])


def test_gini_matches_mean_absolute_difference():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.integers(0, 50, size=rng.integers(1, 40))
        if x.sum() == 0:
            continue
        brute = np.abs(x[:, None] - x[None, :]).sum() / (2 * len(x) ** 2 * x.mean())
        assert judgments.gini(x) == pytest.approx(brute)
        assert judgments.gini(rng.permutation(x)) == pytest.approx(brute)
        assert judgments.gini(7 * x) == pytest.approx(brute)  # scale invariant


# ---------------------------------------------------------------- qrels
def qrels_frame() -> pd.DataFrame:
    # doc a: relevant to q1, q2, q3; b: q1; c: judged for q2 but not relevant; d: q3 (twice, counts once)
    rows = [(1, "a", 1), (2, "a", 1), (3, "a", 2), (1, "b", 1), (2, "c", 0), (3, "d", 1), (3, "d", 1), (4, "b", 0)]
    frame = pd.DataFrame(rows, columns=["query", "doc", "grade"])
    frame["relevant"] = frame["grade"] >= 1
    return frame


def test_from_qrels_counts_distinct_relevant_pairs():
    spread = judgments.from_qrels(qrels_frame(), "toy-ir")
    assert spread.kind == "IR"
    assert spread.n_queries == 4  # query 4 has no relevant document but was judged
    assert spread.n_judgments == 7  # the duplicate (3, d) counts once
    assert spread.counts.tolist() == [3, 1, 1]
    assert spread.n_documents == 3 and spread.n_positive == 5


def test_summary_by_hand():
    row = judgments.summary(judgments.from_qrels(qrels_frame(), "toy-ir"), n=2)
    assert row["share relevant to one query"] == pytest.approx(2 / 3)
    assert row["max positives per document"] == 3
    assert row["top reach"] == pytest.approx(3 / 4)
    assert row["positives per query"] == pytest.approx(5 / 4)
    assert row["fixed-list P@2"] == pytest.approx((3 + 1) / (2 * 4))
    assert row["gini"] == pytest.approx(judgments.gini([3, 1, 1]))


def test_from_qrels_rejects_missing_columns():
    with pytest.raises(ValueError, match="relevant"):
        judgments.from_qrels(pd.DataFrame({"query": [1], "doc": ["a"]}), "bad")


# -------------------------------------------------------------- ratings
def test_from_ratings_counts_likers_per_item():
    rows = [(0, 0, 5), (1, 0, 4), (2, 0, 5), (0, 1, 3), (1, 1, 4), (2, 2, 1), (3, 3, 5)]
    ratings = make_ratings(rows, n_users=5, n_items=5)
    spread = judgments.from_ratings(ratings)
    assert spread.kind == "recommendation"
    assert spread.n_queries == 5  # user 4 rated nothing but is a user of the dataset
    assert spread.n_judgments == 7
    assert spread.counts.tolist() == [3, 1, 1]  # item 0 by three users, items 1 and 3 by one
    stricter = judgments.from_ratings(ratings, threshold=5)
    assert stricter.counts.tolist() == [2, 1]
    assert ratings.positive_threshold == 4.0  # the dataset itself is unchanged


def test_duplicate_ratings_count_one_user_once():
    ratings = make_ratings([(0, 0, 5), (0, 0, 5), (1, 0, 2)], n_users=2, n_items=1)
    assert judgments.from_ratings(ratings).counts.tolist() == [1]


def test_fixed_list_precision_is_best_over_all_fixed_lists():
    rng = np.random.default_rng(0)
    n_users, n_items = 6, 7
    liked = rng.random((n_users, n_items)) < 0.35
    liked[0, 0] = True
    u, i = np.nonzero(liked)
    ratings = make_ratings([(a, b, 5.0) for a, b in zip(u, i)], n_users, n_items)
    spread = judgments.from_ratings(ratings)
    for n in (1, 2, 3):
        best = max(liked[:, list(lst)].sum() / (n * n_users) for lst in itertools.combinations(range(n_items), n))
        assert judgments.fixed_list_precision(spread, n) == pytest.approx(best)
    with pytest.raises(ValueError, match="at least 1"):
        judgments.fixed_list_precision(spread, 0)


def test_cumulative_share_curve():
    spread = judgments.Spread("x", "IR", n_queries=10, n_judgments=20, counts=np.array([1, 4, 2, 1]))
    curve = judgments.cumulative_share(spread)
    assert curve["positives"].tolist() == [4, 2, 1, 1]
    assert curve["cumulative_share"].tolist() == pytest.approx([0.5, 0.75, 0.875, 1.0])
    assert curve["rank_share"].tolist() == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert curve["reach"].tolist() == pytest.approx([0.4, 0.2, 0.1, 0.1])
    assert (curve["collection"] == "x").all()


def test_uniform_spread_has_a_diagonal_curve_and_zero_gini():
    spread = judgments.Spread("flat", "IR", n_queries=3, n_judgments=9, counts=np.ones(9, dtype=int))
    curve = judgments.cumulative_share(spread)
    assert np.allclose(curve["cumulative_share"], curve["rank_share"])
    assert judgments.summary(spread)["gini"] == pytest.approx(0.0)
    assert judgments.summary(spread)["share relevant to one query"] == 1.0


def test_spread_validates_its_input():
    with pytest.raises(ValueError, match="kind"):
        judgments.Spread("x", "web", 3, 3, np.array([1]))
    with pytest.raises(ValueError, match="positive integers"):
        judgments.Spread("x", "IR", 3, 3, np.array([0, 1]))
    with pytest.raises(ValueError, match="only 2 queries"):
        judgments.Spread("x", "IR", 2, 3, np.array([3]))


def test_empty_spread_summary():
    ratings = make_ratings([(0, 0, 1.0)], n_users=2, n_items=2)
    row = judgments.summary(judgments.from_ratings(ratings))
    assert row["relevant documents"] == 0 and row["top reach"] == 0.0
    assert np.isnan(row["share relevant to one query"]) and np.isnan(row["gini"])


# ------------------------------------------------------------ thresholds
def test_star_thresholds_use_every_rating_level():
    ratings = make_ratings([(0, 0, 1), (0, 1, 3), (1, 0, 5), (1, 1, 4.5)], n_users=2, n_items=2)
    assert judgments.rating_thresholds(ratings).tolist() == [1.0, 3.0, 4.0, 4.5, 5.0]  # 4 is the dataset's own


def test_count_thresholds_use_a_1_2_5_grid():
    rng = np.random.default_rng(1)
    plays = np.append(1.0, rng.integers(1, 2000, size=499).astype(float))
    ratings = make_ratings([(k % 50, k % 40, v) for k, v in enumerate(plays)], n_users=50, n_items=40, threshold=3)
    grid = judgments.rating_thresholds(ratings).tolist()
    assert grid[:5] == [1.0, 2.0, 3.0, 5.0, 10.0]
    assert max(grid) <= np.quantile(plays, 0.99)


def test_threshold_sweep_is_monotone():
    ratings = datasets.load("synthetic-small", seed=0)
    sweep = judgments.threshold_sweep(ratings)
    assert sweep["threshold"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert sweep["default"].tolist() == [False, False, False, False, True]
    assert sweep["positive share of ratings"].iloc[0] == pytest.approx(1.0)
    assert (np.diff(sweep["positive judgments"]) <= 0).all()
    assert (np.diff(sweep["max positives per document"]) <= 0).all()
    assert sweep["positive judgments"].iloc[-1] == ratings.positive.sum()


# ---------------------------------------------------------------- truth
def test_truth_spread_and_coverage_by_hand():
    truth = np.array([[True, True, False], [True, False, True]])
    ratings = make_ratings([(0, 0, 5), (0, 2, 2), (1, 2, 4)], n_users=2, n_items=3, truth=truth)
    spread = judgments.from_truth(ratings)
    assert spread.kind == "simulation" and spread.name == "toy (true relevance)"
    assert spread.counts.tolist() == [2, 1, 1] and spread.n_judgments == 6
    assert judgments.truth_coverage(ratings) == pytest.approx(2 / 4)


def test_truth_functions_refuse_real_data():
    ratings = make_ratings([(0, 0, 5)], n_users=1, n_items=1)
    with pytest.raises(ValueError, match="no true relevance"):
        judgments.from_truth(ratings)
    with pytest.raises(ValueError, match="no true relevance"):
        judgments.truth_coverage(ratings)


def test_simulated_world_observes_only_part_of_the_truth():
    ratings = datasets.load("synthetic-small", seed=0)
    observed, truth = judgments.from_ratings(ratings), judgments.from_truth(ratings)
    assert observed.kind == "simulation"
    assert 0 < judgments.truth_coverage(ratings) < 1
    assert observed.n_positive <= truth.n_positive


# ------------------------------------------------------ positive ratio by popularity


def test_positive_ratio_by_popularity_by_hand():
    # item 0: 4 ratings, 3 positive; item 1: 2 ratings, 0 positive; item 2: 1 rating, positive; item 3: unrated
    rows = [(0, 0, 5), (1, 0, 4), (2, 0, 5), (3, 0, 1), (0, 1, 2), (1, 1, 3), (2, 2, 4)]
    curve = judgments.positive_ratio_by_popularity(make_ratings(rows, 4, 4), segments=2)
    assert curve["segment"].tolist() == [1, 2]
    # rated items by popularity: 0, 1 | 2 (three items in two segments: 2 + 1)
    assert curve["positive_ratio"].tolist() == pytest.approx([(0.75 + 0.0) / 2, 1.0])
    assert curve["ratings"].tolist() == pytest.approx([3.0, 1.0])
    assert curve["rank_share"].tolist() == pytest.approx([1 / 3, 5 / 6])
    assert curve["rank"].tolist() == pytest.approx([1.5, 3.0])
    one_each = judgments.positive_ratio_by_popularity(make_ratings(rows, 4, 4), segments=100)
    assert len(one_each) == 3  # never more segments than rated items
    with pytest.raises(ValueError, match="segments"):
        judgments.positive_ratio_by_popularity(make_ratings(rows, 4, 4), segments=0)


# ----------------------------------------------------------------- spreads shipped for the IR collections
def test_without_the_judgment_files_the_shipped_spreads_stand_in(monkeypatch, tmp_path):
    monkeypatch.setenv("RECBIAS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    cranfield, trec = judgments.ir_spread("cranfield"), judgments.ir_spread("trec8-adhoc")
    # facts of the files: 1,837 Cranfield judgments of 225 queries, each query with one -1 line;
    # 86,830 TREC-8 judgments of 50 topics, 4,728 of them relevant
    assert (cranfield.n_queries, cranfield.n_judgments, cranfield.n_positive) == (225, 1_837, 1_837 - 225)
    assert (trec.n_queries, trec.n_judgments, trec.n_positive) == (50, 86_830, 4_728)
    assert cranfield.kind == trec.kind == "IR"


def test_an_unknown_shipped_spread_is_named():
    with pytest.raises(ValueError, match="no shipped spread for IR collection 'robust04'; shipped: cranfield"):
        judgments.shipped_spread("robust04")


def test_shipped_rows_give_back_the_spread():
    spread = judgments.Spread("toy", "IR", 4, 9, np.array([3, 1, 1, 2]))
    rows = judgments.spread_rows(spread, "f" * 64)
    assert rows[["positives", "documents"]].values.tolist() == [[1, 2], [2, 1], [3, 1]]
    assert np.repeat(rows["positives"], rows["documents"]).sum() == spread.n_positive


@pytest.mark.realdata
def test_the_shipped_spreads_equal_those_of_the_pinned_files(tmp_path):
    for name in datasets.qrels_names():
        if not datasets.available(name):
            pytest.skip(f"the judgment files of {name} are not in the data directory")
    judgments.write_shipped_spreads(tmp_path / "derived.csv")
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "derived.csv"), pd.read_csv(judgments.SHIPPED_SPREADS))
    shipped = pd.read_csv(judgments.SHIPPED_SPREADS).groupby("collection")["source_sha256"].unique()
    for name in datasets.qrels_names():
        assert list(shipped[name]) == list(datasets.info(name).files.pins.values())
        from_files, from_table = judgments.ir_spread(name), judgments.shipped_spread(name)
        assert (from_files.n_queries, from_files.n_judgments) == (from_table.n_queries, from_table.n_judgments)
        np.testing.assert_array_equal(from_files.counts, from_table.counts)


def test_a_damaged_local_judgment_file_is_an_error_not_a_silent_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv("RECBIAS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    (tmp_path / "cranfield").mkdir()
    (tmp_path / "cranfield" / "cranqrel").write_text("1 184 2\n")
    with pytest.raises(datasets.ChecksumError, match="cranqrel"):
        judgments.ir_spread("cranfield")

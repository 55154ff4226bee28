"""Invariants and oracles for recbias.splits."""

from __future__ import annotations


import numpy as np
import pytest

from recbias.ratings import Ratings
from test_datasets_support import load_real
from recbias.splits import (
    kfold_split,
    leave_last_out,
    leave_one_random_out,
    random_split,
    remove_head,
    remove_test_ratings,
    temporal_split,
    uniform_split,
    uniform_target,
)



def make_ratings(n_users: int = 60, n_items: int = 80, n_ratings: int = 1500, seed: int = 0, ties: bool = True) -> Ratings:
    """Random distinct (user, item) pairs with a skewed item popularity; ``values`` holds the row id."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.8
    users = rng.integers(0, n_users, 4 * n_ratings)
    items = rng.choice(n_items, 4 * n_ratings, p=weights / weights.sum())
    _, first = np.unique(users * n_items + items, return_index=True)
    first = np.sort(rng.choice(first, n_ratings, replace=False))
    users, items = users[first], items[first]
    timestamps = rng.integers(0, 200 if ties else 10**9, n_ratings)
    return Ratings.from_codes(users, items, np.arange(n_ratings), (n_users, n_items), positive_threshold=0,
                              scale=(0, n_ratings), timestamps=timestamps, name="toy")


def row_ids(ratings: Ratings) -> np.ndarray:
    return ratings.values.astype(np.int64)


def assert_partition(ratings: Ratings, train: Ratings, test: Ratings) -> None:
    assert train.shape == test.shape == ratings.shape
    together = np.sort(np.concatenate([row_ids(train), row_ids(test)]))
    np.testing.assert_array_equal(together, np.arange(ratings.n_ratings))


# ---------------------------------------------------------------------------- random


def test_random_split_share_within_binomial_error() -> None:
    ratings = make_ratings(n_users=300, n_items=300, n_ratings=20000)
    for sigma in (0.1, 0.2, 0.5):
        train, test = random_split(ratings, sigma, seed=3)
        assert_partition(ratings, train, test)
        standard_error = np.sqrt(ratings.n_ratings * sigma * (1 - sigma))
        assert abs(test.n_ratings - sigma * ratings.n_ratings) < 4 * standard_error


def test_random_split_is_independent_per_rating() -> None:
    # Each item's test share is Binomial(r(i), sigma): the pooled chi-square stays near its df.
    ratings = make_ratings(n_users=300, n_items=60, n_ratings=15000)
    sigma = 0.3
    _, test = random_split(ratings, sigma, seed=5)
    r = ratings.item_counts()
    observed = test.item_counts()
    rated = r > 0
    chi2 = np.sum((observed[rated] - sigma * r[rated]) ** 2 / (sigma * (1 - sigma) * r[rated]))
    df = rated.sum()
    assert abs(chi2 - df) < 5 * np.sqrt(2 * df)


def test_random_split_deterministic_by_seed() -> None:
    ratings = make_ratings()
    a, b, c = (random_split(ratings, 0.2, seed=s)[1] for s in (7, 7, 8))
    np.testing.assert_array_equal(row_ids(a), row_ids(b))
    assert not np.array_equal(row_ids(a), row_ids(c))


@pytest.mark.parametrize(
    "split",
    [
        lambda r, seed: kfold_split(r, 5, seed=seed)[2][1],
        lambda r, seed: uniform_split(r, 0.2, 0.2, seed=seed).test,
        lambda r, seed: remove_test_ratings(r, 0.5, seed=seed),
    ],
    ids=["kfold", "uniform", "remove_test_ratings"],
)
def test_seeded_splits_are_deterministic(split) -> None:
    ratings = make_ratings(n_users=200, n_items=100, n_ratings=6000)
    a, b, c = (row_ids(split(ratings, seed)) for seed in (3, 3, 4))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("ratio", [0, 1, -0.1, 1.5, float("nan")])
def test_random_split_rejects_impossible_ratio(ratio: float) -> None:
    with pytest.raises(ValueError, match="test_ratio"):
        random_split(make_ratings(), ratio)


# ---------------------------------------------------------------------------- k-fold


def test_kfold_partitions_every_rating_once() -> None:
    ratings = make_ratings(n_ratings=1003)
    folds = kfold_split(ratings, 5, seed=1)
    assert len(folds) == 5
    tests = [row_ids(test) for _, test in folds]
    np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(ratings.n_ratings))
    sizes = [len(t) for t in tests]
    assert max(sizes) - min(sizes) <= 1
    for train, test in folds:
        assert_partition(ratings, train, test)


def test_kfold_rejects_bad_fold_counts() -> None:
    with pytest.raises(ValueError, match="n_folds"):
        kfold_split(make_ratings(), 1)
    with pytest.raises(ValueError, match="n_folds"):
        kfold_split(make_ratings(n_ratings=3), 5)


# -------------------------------------------------------------------------- temporal


def test_global_temporal_split_respects_time() -> None:
    ratings = make_ratings(ties=True)
    train, test = temporal_split(ratings, 0.2)
    assert_partition(ratings, train, test)
    assert train.timestamps.max() < test.timestamps.min()  # ties at the cut all go to test
    assert test.n_ratings >= round(0.2 * ratings.n_ratings)


def test_global_temporal_split_exact_share_without_ties() -> None:
    ratings = make_ratings(ties=False)
    assert len(np.unique(ratings.timestamps)) == ratings.n_ratings
    _, test = temporal_split(ratings, 0.25)
    assert test.n_ratings == round(0.25 * ratings.n_ratings)


def test_per_user_temporal_split_matches_loop_oracle() -> None:
    ratings = make_ratings(ties=True)
    sigma = 0.3
    train, test = temporal_split(ratings, sigma, per_user=True)
    assert_partition(ratings, train, test)
    expected = []
    frame = ratings.to_frame().assign(row=np.arange(ratings.n_ratings))
    for _, group in frame.groupby("user"):
        ordered = group.sort_values(["timestamp", "row"])
        n_test = int(np.floor(sigma * len(group) + 0.5))
        expected.extend(ordered["row"].to_numpy()[len(group) - n_test :])
    np.testing.assert_array_equal(np.sort(row_ids(test)), np.sort(expected))


def test_temporal_split_needs_timestamps() -> None:
    from dataclasses import replace

    ratings = replace(make_ratings(), timestamps=None)
    with pytest.raises(ValueError, match="timestamps"):
        temporal_split(ratings, 0.2)
    with pytest.raises(ValueError, match="timestamps"):
        leave_last_out(ratings)


def test_leave_last_out_picks_latest_with_row_tie_break() -> None:
    ratings = make_ratings(ties=True)
    train, test = leave_last_out(ratings)
    assert_partition(ratings, train, test)
    frame = ratings.to_frame().assign(row=np.arange(ratings.n_ratings))
    latest = frame.sort_values(["timestamp", "row"]).groupby("user").tail(1)
    multi = frame.groupby("user").size()
    latest = latest[latest["user"].map(multi) >= 2]
    np.testing.assert_array_equal(np.sort(row_ids(test)), np.sort(latest["row"].to_numpy()))
    assert np.all(np.bincount(test.users, minlength=ratings.n_users) <= 1)


def test_leave_last_out_hand_example() -> None:
    # user 0: times 5, 9, 9 -> the later row among the tied 9s; user 1: a single rating stays in training.
    ratings = Ratings.from_codes([0, 0, 0, 1], [0, 1, 2, 0], [0, 1, 2, 3], (2, 3), positive_threshold=0,
                                 scale=(0, 3), timestamps=[5, 9, 9, 4], name="hand")
    train, test = leave_last_out(ratings)
    assert row_ids(test).tolist() == [2]
    assert sorted(row_ids(train).tolist()) == [0, 1, 3]


# --------------------------------------------------------------------------- uniform


def zeta_oracle(counts: np.ndarray, n_ratings: int, sigma: float, epsilon: float, rule: str = "paper") -> tuple[int, int]:
    """Loop transcription of IRJ 2017 Section 6.2 (``rule="paper"``): the largest k with
    (1 - eps) r(i_k) k / |R| >= sigma, eta = (1 - eps) r(i_zeta) rounded; ``rule="floor"``
    floors the capacity first and takes eta = ceil(sigma |R| / zeta)."""
    order = sorted(range(len(counts)), key=lambda i: (-counts[i], i))
    zeta = 0
    for k, item in enumerate(order, start=1):
        capacity = round((1 - epsilon) * counts[item], 9)
        if rule == "floor":
            capacity = int(np.floor(capacity))
        keeps_one = epsilon == 0 or np.floor(capacity + 0.5) < counts[item]
        if round(capacity, 9) >= 0.5 and keeps_one and round(capacity * k / n_ratings, 9) >= sigma:
            zeta = k
    assert zeta > 0
    if rule == "paper":
        return zeta, int(np.floor((1 - epsilon) * counts[order[zeta - 1]] + 0.5))
    return zeta, int(np.ceil(round(sigma * n_ratings / zeta, 9)))


@pytest.mark.parametrize("rule", ["paper", "floor"])
@pytest.mark.parametrize(("sigma", "epsilon"), [(0.2, 0.2), (0.1, 0.5), (0.3, 0.0)])
def test_uniform_split_invariants(sigma: float, epsilon: float, rule: str) -> None:
    ratings = make_ratings(n_users=200, n_items=100, n_ratings=6000)
    split = uniform_split(ratings, sigma, epsilon, rule=rule, seed=2)
    train, test = split
    assert_partition(ratings, train, test)
    zeta, eta = zeta_oracle(ratings.item_counts(), ratings.n_ratings, sigma, epsilon, rule)
    assert (len(split.target_items), split.eta, split.rule) == (zeta, eta, rule)
    test_counts = test.item_counts()
    np.testing.assert_array_equal(np.nonzero(test_counts)[0], np.sort(split.target_items))
    assert np.all(test_counts[split.target_items] == eta)
    r = ratings.item_counts()
    kept = train.item_counts()[split.target_items]
    if rule == "floor":
        assert np.all(kept >= epsilon * r[split.target_items])
        # |T| eta / |R| reaches sigma and overshoots by less than one rating per target item.
        assert sigma <= split.achieved_test_ratio < sigma + zeta / ratings.n_ratings
    else:
        # eta may be rounded up by less than one rating: the training minimum holds to within one rating,
        # and sigma is reached up to that rounding (the paper's eta overshoots it when popularity is flat).
        assert np.all(kept > epsilon * r[split.target_items] - 1)
        assert len(split.target_items) * (split.eta + 0.5) >= sigma * ratings.n_ratings


def counts_ratings(counts: list[int]) -> Ratings:
    """A rating set whose item ``i`` has ``counts[i]`` ratings, by distinct users."""
    items = np.repeat(np.arange(len(counts)), counts)
    users = np.concatenate([np.arange(c) for c in counts])
    return Ratings.from_codes(users, items, np.arange(len(items)), (max(counts), len(counts)), positive_threshold=0,
                              scale=(0, len(items)), name="curve")


def test_uniform_target_paper_rule_by_hand() -> None:
    # |R| = 300, sigma = 0.2 -> 60 test ratings, eps = 0.2.  Sorted counts 100, 80, 50, 40, 20, 10:
    # (1 - eps) r(i_k) k = 80, 128, 120, 128, 80, 48 -> the largest k with >= 60 is k = 5 (item 4),
    # eta = 0.8 * 20 = 16, |T| eta / |R| = 80 / 300.  The floor rule agrees here: capacities are integers.
    counts = np.array([50, 100, 10, 40, 20, 80])
    target, eta = uniform_target(counts, 0.2, 0.2)
    np.testing.assert_array_equal(target, [1, 5, 0, 3, 4])
    assert eta == 16
    assert uniform_target(counts, 0.2, 0.2, rule="floor") == (pytest.approx(target), 12)


def test_uniform_target_rounds_eta_like_the_paper() -> None:
    # Ten items tie at 147 ratings right at the cut-off, so (1 - eps) r(i_zeta) = 117.6, the paper's ML-1M
    # value, and the tail r(i_k) = floor(1900 / k) never reaches 0.2 |R| again: |R| = 8,707, |T| = 15.
    counts = np.array([400] * 5 + [147] * 10 + [1900 // k for k in range(16, 260)])
    target, eta = uniform_target(counts, 0.2, 0.2)
    assert (len(target), eta) == (15, 118)  # 117.6 rounded, as in the paper
    split = uniform_split(counts_ratings(counts.tolist()), 0.2, 0.2, seed=1)
    # the tied items keep 147 - 118 = 29 training ratings, 0.4 short of 0.2 * 147
    assert split.eta == 118 and np.all(split.train.item_counts()[5:15] == 29)
    assert split.achieved_test_ratio == pytest.approx(15 * 118 / 8707)
    # The floor rule takes the smallest eta that reaches sigma, ceil(1,741.4 / 15) = 117, and keeps 30.
    assert uniform_target(counts, 0.2, 0.2, rule="floor")[1] == 117


def test_uniform_target_leaves_every_target_item_a_training_rating() -> None:
    # A long tail of single ratings: 0.8 * 1 rounds to eta = 1, which would move the only rating to test,
    # so the tail stays out of T; at r = 5, eta = 4 leaves one training rating.
    counts = np.array([20, 10, 5, 5] + [1] * 40)  # |R| = 80, sigma = 0.2 -> 16 test ratings
    target, eta = uniform_target(counts, 0.2, 0.2)
    np.testing.assert_array_equal(target, [0, 1, 2, 3])
    assert eta == 4
    assert len(uniform_target(counts, 0.2, 0.0)[0]) == 44  # without a training minimum the tail may go


@pytest.mark.parametrize("rule", ["paper", "floor"])
def test_uniform_target_keeps_ties_at_the_cutoff_together(rule: str) -> None:
    # Four items tie at 30 ratings around the cut-off: the condition grows with k among tied items,
    # so either all of them are in T or none is.  |R| = 320, sigma = 0.25 -> 80 test ratings;
    # 0.8 * 30 k >= 80 from k = 4, so the tie (ranks 3 to 6) is in T whole.
    counts = np.array([30, 90, 30, 10, 30, 100, 30])
    target, eta = uniform_target(counts, 0.25, 0.2, rule)
    np.testing.assert_array_equal(target, [5, 1, 0, 2, 4, 6])
    assert eta == (24 if rule == "paper" else 14)  # paper: 0.8 * 30; floor: ceil(80 / 6)
    # With a larger sigma the tie cannot hold the test ratings: the whole tie leaves T.
    counts = np.array([30, 300, 30, 10, 30, 290, 30])  # |R| = 720, sigma = 0.4 -> 288 test ratings
    target, _ = uniform_target(counts, 0.4, 0.2, rule)
    np.testing.assert_array_equal(target, [1, 5])


def test_uniform_split_draws_uniformly_within_items() -> None:
    ratings = make_ratings(n_users=200, n_items=40, n_ratings=3000)
    hits = np.zeros(ratings.n_ratings)
    n_draws = 200
    for seed in range(n_draws):
        split = uniform_split(ratings, 0.2, 0.2, seed=seed)
        hits[row_ids(split.test)] += 1
    r = ratings.item_counts()[ratings.items]
    in_target = np.isin(ratings.items, split.target_items)
    p = split.eta / r[in_target]
    z = (hits[in_target] - n_draws * p) / np.sqrt(n_draws * p * (1 - p) + 1e-12)
    assert np.abs(z).max() < 5
    assert hits[~in_target].sum() == 0


def test_uniform_split_infeasible_raises() -> None:
    ratings = make_ratings()
    with pytest.raises(ValueError, match="test_ratio=0.9.*min_train_ratio=0.5"):
        uniform_split(ratings, 0.9, 0.5)
    with pytest.raises(ValueError, match="min_train_ratio"):
        uniform_split(ratings, 0.2, 1.0)
    with pytest.raises(ValueError, match="rule"):
        uniform_split(ratings, 0.2, 0.2, rule="ceil")


@pytest.mark.realdata
def test_uniform_split_on_movielens_100k() -> None:
    ratings = load_real("ml-100k")
    split = uniform_split(ratings, 0.2, 0.2, seed=0)
    print(f"ml-100k U split: |T| = {len(split.target_items)}, eta = {split.eta}, sigma = {split.achieved_test_ratio:.4f}")
    zeta, eta = zeta_oracle(ratings.item_counts(), ratings.n_ratings, 0.2, 0.2)
    assert (len(split.target_items), split.eta) == (zeta, eta) == (783, 26)
    assert np.all(split.test.item_counts()[split.target_items] == eta)


# --------------------------------------------------------------------- test reductions


def test_remove_test_ratings_count_and_nesting() -> None:
    _, test = random_split(make_ratings(), 0.3, seed=0)
    kept = {f: set(row_ids(remove_test_ratings(test, f, seed=4))) for f in (0.0, 0.25, 0.5, 1.0)}
    assert kept[0.0] == set(row_ids(test))
    assert kept[1.0] == set()
    assert len(kept[0.25]) == test.n_ratings - round(0.25 * test.n_ratings)
    assert kept[0.5] <= kept[0.25] <= kept[0.0]
    with pytest.raises(ValueError, match="fraction"):
        remove_test_ratings(test, 1.2)


def test_remove_head_hand_example() -> None:
    # r(i): item 0 -> 4, item 1 -> 3, item 2 -> 3, item 3 -> 1, item 4 unrated; 4 rated items.
    users = [0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 3]
    items = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    ratings = Ratings.from_codes(users, items, np.arange(len(users)), (4, 5), positive_threshold=0, scale=(0, 10),
                                 name="hand")
    test_mask = np.isin(np.arange(len(users)), [0, 4, 7, 10])
    train, test = ratings.subset(~test_mask), ratings.subset(test_mask)
    reduced, head = remove_head(train, test, 0.5)  # floor(0.5 * 4) = 2 head items: 0, then 1 (tie with 2 by code)
    assert head.tolist() == [0, 1]
    assert sorted(row_ids(reduced).tolist()) == [7, 10]
    reduced, head = remove_head(train, test, 0.2)  # floor(0.8) = 0
    assert head.tolist() == [] and reduced.n_ratings == test.n_ratings


def test_leave_one_random_out() -> None:
    users = np.array([0, 0, 0, 1, 2, 2, 3, 3, 3, 3])
    items = np.array([0, 1, 2, 0, 1, 3, 0, 1, 2, 3])
    ratings = Ratings.from_codes(users, items, np.ones(10), (4, 4), positive_threshold=1.0, name="tiny")
    train, test = leave_one_random_out(ratings, seed=4)
    assert sorted(test.users.tolist()) == [0, 2, 3]
    assert train.n_ratings + test.n_ratings == ratings.n_ratings
    again = leave_one_random_out(ratings, seed=4)[1]
    np.testing.assert_array_equal(again.items, test.items)
    chosen = {tuple(leave_one_random_out(ratings, seed=s)[1].items.tolist()) for s in range(30)}
    assert len(chosen) > 1


def test_the_registry_names_every_split_the_module_draws_once() -> None:
    """Every public function that draws a training/test split is in ``SPLITS`` (the audit's card lists them all),
    and every method of ``make_folds`` is named there alike."""
    from recbias import splits

    drawing = {name for name, value in vars(splits).items() if callable(value) and not name.startswith("_")
               and getattr(value, "__module__", "") == splits.__name__ and name.endswith(("_split", "_splits", "_out"))}
    registered = [function.__name__ for _, function in splits.SPLITS.values()]
    assert sorted(registered) == sorted(drawing) and len(set(registered)) == len(registered)
    assert set(splits._SPLIT_METHODS) <= set(splits.SPLITS)
    words = [name for name, _ in splits.SPLITS.values()]
    assert len(set(words)) == len(words) and all(words)

"""The papers' rating predictors: biased MF by ALS and mean-centred user-kNN.

MF is checked against the stationarity conditions of its loss and its published
accuracy on MovieLens 100K; kNN against a pure-Python reading of its formula.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from recbias.recommenders import RatingMF, RatingUserKNN, rating_knn, rating_mf
from recbias.recommenders._lapack import POSV, SYRK
from test_datasets_support import real_data_dir
from test_recommenders_support import load_ml100k, low_rank_world, make_ratings

# ------------------------------------------------------------------- rating-MF


def mf_residuals(model: RatingMF, users: np.ndarray, items: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``r - (mu + b_u + b_i + <p_u, q_i>)`` from the fitted parameters, without the model's scoring."""
    dots = np.einsum("kf,kf->k", model.user_factors_[users], model.item_factors_[items])
    return values - (model.mu_ + model.user_bias_[users] + model.item_bias_[items] + dots)


def mf_loss(model: RatingMF, users, items, values) -> float:
    """Squared error plus lambda n (|factors|^2 + bias^2) for every user and item."""
    lam = model.regularization
    n_u = np.bincount(users, minlength=model.n_users)
    n_i = np.bincount(items, minlength=model.n_items)
    penalty = n_u @ ((model.user_factors_**2).sum(axis=1) + model.user_bias_**2)
    penalty += n_i @ ((model.item_factors_**2).sum(axis=1) + model.item_bias_**2)
    return float((mf_residuals(model, users, items, values) ** 2).sum() + lam * penalty)


def mf_gradient(model: RatingMF, users, items, values, side: str) -> np.ndarray:
    """Gradient of the loss in every row's (factors, bias) of ``side`` ('user' or 'item')."""
    residual = mf_residuals(model, users, items, values)
    own, other = (users, items) if side == "user" else (items, users)
    other_factors = model.item_factors_ if side == "user" else model.user_factors_
    own_factors = model.user_factors_ if side == "user" else model.item_factors_
    own_bias = model.user_bias_ if side == "user" else model.item_bias_
    partner = np.hstack([other_factors[other], np.ones((len(other), 1))])
    gradient = np.zeros((len(own_factors), partner.shape[1]))
    np.add.at(gradient, own, -2.0 * residual[:, None] * partner)
    counts = np.bincount(own, minlength=len(own_factors))
    gradient += 2.0 * model.regularization * counts[:, None] * np.hstack([own_factors, own_bias[:, None]])
    return gradient


@pytest.fixture(scope="module")
def world():
    data = low_rank_world(n_users=80, n_items=60, rank=3, density=0.2, seed=4)
    return data.subset(data.users != 0)  # user 0 has no training rating


def test_the_last_item_step_is_exact(world):
    """Every item's (q_i, b_i) minimises the loss given the users: its gradient vanishes."""
    model = RatingMF(factors=4, regularization=0.1, iterations=3, seed=2).fit(world)
    args = (world.users, world.items, world.values)
    scale = np.abs(mf_gradient(model, *args, "item")).max()
    assert scale < 1e-9
    # control: the users were solved against the previous item factors, so theirs does not vanish
    assert np.abs(mf_gradient(model, *args, "user")).max() > 1e3 * scale


def test_the_first_user_step_is_exact_against_the_documented_start(world):
    """With one iteration the users are solved against item factors N(0, 0.1^2) drawn with the seed."""
    model = RatingMF(factors=3, regularization=0.2, iterations=1, seed=5).fit(world)
    start = RatingMF(factors=3, regularization=0.2, iterations=1, seed=5)
    start.n_users, start.n_items = world.shape
    start.mu_ = float(world.values.mean())
    start.user_factors_, start.user_bias_ = model.user_factors_, model.user_bias_
    start.item_factors_ = np.random.default_rng(5).standard_normal((world.n_items, 3)) * 0.1
    start.item_bias_ = np.zeros(world.n_items)
    assert np.abs(mf_gradient(start, world.users, world.items, world.values, "user")).max() < 1e-9


def test_alternating_exact_steps_never_raise_the_loss(world):
    args = (world.users, world.items, world.values)
    losses = [mf_loss(RatingMF(factors=5, iterations=t, seed=1).fit(world), *args) for t in range(1, 9)]
    assert all(later <= earlier * (1 + 1e-12) for earlier, later in zip(losses, losses[1:]))
    assert losses[-1] < 0.9 * losses[0]


def test_mf_scores_are_predicted_ratings_and_cold_users_score_zero(world):
    model = RatingMF(factors=4, iterations=4).fit(world)
    users = np.arange(1, world.n_users)
    block = model.score_users(users)
    dots = model.user_factors_[users] @ model.item_factors_.T
    expected = model.mu_ + model.user_bias_[users, None] + model.item_bias_[None, :] + dots
    np.testing.assert_allclose(block, expected, rtol=1e-12)
    assert np.all(model.score_users(np.array([0])) == 0)
    np.testing.assert_allclose(model.score(world.users, world.items),
                               world.values - mf_residuals(model, world.users, world.items, world.values), rtol=1e-12)


def test_mf_rejects_impossible_settings():
    for bad in ({"factors": 0}, {"iterations": 0}, {"regularization": 0.0}, {"regularization": float("nan")}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            RatingMF(**bad)
    twice = make_ratings([0, 0], [1, 1], [3, 4], n_users=2, n_items=2)
    with pytest.raises(ValueError, match="twice"):
        RatingMF().fit(twice)


def test_each_row_solves_its_normal_equations_as_numpy_does():
    rng = np.random.default_rng(7)
    fixed, fixed_bias = rng.standard_normal((9, 4)), rng.standard_normal(9)
    indptr = np.array([0, 3, 3, 9, 10])
    indices = np.array([0, 4, 8, 1, 2, 3, 5, 6, 7, 2])
    centred = rng.standard_normal(len(indices))
    factors, bias = np.full((4, 4), np.nan), np.full(4, np.nan)
    status = rating_mf._solve_rows(SYRK, POSV, indptr, indices, centred, fixed, fixed_bias, 0.3, factors, bias)
    assert status.tolist() == [0, 0, 0, 0]
    assert np.all(factors[1] == 0) and bias[1] == 0  # a row without ratings
    for row in (0, 2, 3):
        cols = indices[indptr[row] : indptr[row + 1]]
        design = np.column_stack([fixed[cols], np.ones(len(cols))])
        normal = design.T @ design + 0.3 * len(cols) * np.eye(5)
        expected = np.linalg.solve(normal, design.T @ (centred[indptr[row] : indptr[row + 1]] - fixed_bias[cols]))
        np.testing.assert_allclose(np.append(factors[row], bias[row]), expected, rtol=1e-12, atol=1e-14)


def test_rows_whose_normal_equations_are_singular_are_reported():
    fixed, fixed_bias = np.ones((4, 2)), np.zeros(4)  # design rows (1, 1, 1): rank one
    indptr, indices, centred = np.array([0, 1, 5]), np.array([0, 0, 1, 2, 3]), np.arange(5.0)
    factors, bias = np.zeros((2, 2)), np.zeros(2)
    status = rating_mf._solve_rows(SYRK, POSV, indptr, indices, centred, fixed, fixed_bias, 0.0, factors, bias)
    assert status[0] > 0 and status[1] > 0  # without a ridge, D'D = 11' (times 1 or 4) has no Cholesky factor
    model = RatingMF(regularization=1e-3)
    with pytest.raises(FloatingPointError, match=r"2 users \(user code 0 first\).*regularization \(now 0.001\)"):
        model._check_solved("user", status)
    model._check_solved("item", np.zeros(3, np.int32))  # all solved: silent


def u1_split():
    """MovieLens 100K's canonical u1.base / u1.test split, in the loader's code space."""
    ratings = load_ml100k()
    base = np.loadtxt(real_data_dir("ml-100k") / "ml-100k" / "u1.base", dtype=np.int64, usecols=(0, 1))
    keys = ratings.user_ids[ratings.users].astype(np.int64) * 10**6 + ratings.item_ids[ratings.items]
    in_base = np.isin(keys, base[:, 0] * 10**6 + base[:, 1])
    assert in_base.sum() == len(base) == 80_000
    return ratings.subset(in_base), ratings.subset(~in_base)


@pytest.mark.realdata
def test_rmse_on_the_u1_split_of_movielens_100k():
    """Biased MF reaches about 0.93 RMSE on u1 in the literature; the defaults must stay within 0.95."""
    train, test = u1_split()
    model = RatingMF().fit(train)
    rmse = float(np.sqrt(np.mean((model.score(test.users, test.items) - test.values) ** 2)))
    assert rmse <= 0.95, rmse
    # control: the item means alone do clearly worse
    means = np.bincount(train.items, train.values, train.n_items) / np.maximum(train.item_counts(), 1)
    baseline = np.where(train.item_counts() > 0, means, train.values.mean())[test.items]
    assert rmse < float(np.sqrt(np.mean((baseline - test.values) ** 2))) - 0.05


# ------------------------------------------------------------------ rating-kNN


def brute_rating_knn(matrix: np.ndarray, k: int | None, min_support: int = 1) -> np.ndarray:
    """The module's formula pair by pair (0 = unrated), with the same integer-scaled centring.

    Neighbours of ``u`` for ``i``: other users who rated ``i`` with positive similarity,
    sorted by (similarity descending, code ascending), the first ``k`` of them; fewer than
    ``min_support`` of them predict the user's mean.
    """
    n_users, n_items = matrix.shape
    rated = matrix > 0
    counts = rated.sum(axis=1)
    sums = [int(matrix[u].sum()) for u in range(n_users)]
    means = [sums[u] / counts[u] if counts[u] else 0.0 for u in range(n_users)]
    centred = [[int(counts[u] * matrix[u, i]) - sums[u] if rated[u, i] else 0 for i in range(n_items)]
               for u in range(n_users)]
    squares = [sum(c * c for c in centred[u]) for u in range(n_users)]

    def similarity(u: int, v: int) -> float:
        norm = math.sqrt(float(squares[u] * squares[v]))
        return sum(a * b for a, b in zip(centred[u], centred[v])) / norm if norm > 0 else 0.0

    out = np.zeros((n_users, n_items))
    for u in range(n_users):
        if not counts[u]:
            continue
        sims = {v: similarity(u, v) for v in range(n_users) if v != u}
        for i in range(n_items):
            ranked = sorted((-sims[v], v) for v in range(n_users) if v != u and rated[v, i] and sims[v] > 0)
            chosen = [v for _, v in ranked[: len(ranked) if k is None else k]]
            numerator = sum(sims[v] * (matrix[v, i] - means[v]) for v in chosen)
            denominator = sum(abs(sims[v]) for v in chosen)
            enough = denominator and len(chosen) >= min_support
            out[u, i] = means[u] + (numerator / denominator if enough else 0.0)
    return out


def knn_world(seed: int):
    """Random 1-5 stars with exact similarity ties: users 1-3 repeat users 4-6, one user rates
    everything alike (no spread), one user and one item have no ratings."""
    rng = np.random.default_rng(seed)
    matrix = np.where(rng.random((24, 15)) < 0.45, rng.integers(1, 6, (24, 15)), 0)
    matrix[1:4] = matrix[4:7]
    matrix[7] = np.where(matrix[7] > 0, 3, 0)
    matrix[-1] = 0
    matrix[:, -1] = 0
    users, items = np.nonzero(matrix)
    return matrix.astype(float), make_ratings(users, items, matrix[users, items], *matrix.shape)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 2, 3, 6, None])
@pytest.mark.parametrize("kept", [True, False], ids=["predicted-at-fit", "predicted-when-scored"])
def test_rating_knn_matches_brute_force(seed, k, kept, monkeypatch):
    if not kept:
        monkeypatch.setattr(rating_knn, "PREDICT_ALL_BUDGET", 0)
    matrix, train = knn_world(seed)
    model = RatingUserKNN(k=k).fit(train)
    assert (model.predictions_ is not None) == kept
    expected = brute_rating_knn(matrix, k)
    np.testing.assert_allclose(model.score_users(np.arange(train.n_users)), expected, rtol=1e-12, atol=1e-12)
    users, items = np.divmod(np.arange(train.n_users * train.n_items), train.n_items)
    order = np.random.default_rng(seed).permutation(len(users))
    np.testing.assert_allclose(model.score(users[order], items[order]), expected.ravel()[order], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("k", "min_support"), [(2, 2), (3, 2), (6, 3), (None, 4)])
@pytest.mark.parametrize("kept", [True, False], ids=["predicted-at-fit", "predicted-when-scored"])
def test_rating_knn_with_a_minimum_of_neighbours_matches_brute_force(seed, k, min_support, kept, monkeypatch):
    if not kept:
        monkeypatch.setattr(rating_knn, "PREDICT_ALL_BUDGET", 0)
    matrix, train = knn_world(seed)
    expected = brute_rating_knn(matrix, k, min_support)
    scores = RatingUserKNN(k=k, min_support=min_support).fit(train).score_users(np.arange(train.n_users))
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    # control: the minimum changes some predictions of this world
    assert not np.allclose(expected, brute_rating_knn(matrix, k), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [1, 3, None])
def test_a_minimum_of_one_neighbour_is_the_papers_predictor_bit_for_bit(k):
    """``min_support=1`` keeps every prediction; a larger minimum keeps those of the items with enough
    neighbours bit for bit and gives the others the user's mean."""
    matrix, train = knn_world(3)
    users = np.arange(train.n_users)
    papers = RatingUserKNN(k=k).fit(train).score_users(users)
    assert np.array_equal(RatingUserKNN(k=k, min_support=1).fit(train).score_users(users), papers)
    model = RatingUserKNN(k=k, min_support=min(2, k or 2)).fit(train)
    strict = model.score_users(users)
    kept = strict != model.user_means_[:, None]
    assert np.array_equal(strict[kept], papers[kept]) and 0 < kept.sum() < kept.size


def test_a_minimum_of_two_neighbours_by_hand():
    # u0 (5, 1 on items 0, 1; mean 3) has cosine 1/sqrt(2) with u1 (5, 1, 5, 1) and 1 with u2 (5, 1, 3):
    # item 2 has two neighbours, deviations +2 (u1) and 0 (u2); item 3 only u1, deviation -2.
    users = [0, 0, 1, 1, 1, 1, 2, 2, 2]
    items = [0, 1, 0, 1, 2, 3, 0, 1, 2]
    values = [5, 1, 5, 1, 5, 1, 5, 1, 3]
    train = make_ratings(users, items, values, n_users=3, n_items=4)
    papers = RatingUserKNN().fit(train).score_users(np.array([0]))[0]
    np.testing.assert_allclose(papers[[2, 3]], [3 + 2 * (math.sqrt(2) - 1), 3 - 2])
    two = RatingUserKNN(min_support=2).fit(train).score_users(np.array([0]))[0]
    np.testing.assert_allclose(two[[2, 3]], [3 + 2 * (math.sqrt(2) - 1), 3.0])  # item 3 falls back to the mean


@pytest.mark.parametrize("seed", range(4))
def test_positive_entries_by_decreasing_value_as_a_stable_sort_orders_them(seed):
    rng = np.random.default_rng(seed)
    row = rng.random(3000) * 2.0 - 0.5  # negative and positive values
    row[::5] = np.round(row[::5], 2)  # many exact ties
    row[::11] = 0.0
    row[:3] = [5e-324, 1e-310, 1e300]  # subnormal and huge values: every digit of the bits in play
    positive = np.flatnonzero(row > 0)
    expected = positive[np.argsort(-row[positive], kind="stable")]
    assert rating_knn._positive_by_decreasing(row).tolist() == expected.tolist()


@pytest.mark.parametrize("row", [np.zeros(0), np.zeros(4), -np.ones(3), np.full(5, 0.25)])
def test_positive_entries_by_decreasing_value_of_rows_with_few_or_equal_values(row):
    assert rating_knn._positive_by_decreasing(row).tolist() == np.flatnonzero(row > 0).tolist()


def test_rating_knn_by_hand_with_a_tie():
    # u0 rates items 0, 1 as 5, 1 (mean 3); u1 and u2 agree with u0 on items 0, 1 and
    # disagree on items 3, 4: both have centred cosine 1/sqrt(2) with u0, an exact tie.
    users = [0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    items = [0, 1, 0, 1, 3, 4, 0, 1, 3, 4]
    values = [5, 1, 5, 1, 5, 1, 5, 1, 1, 5]
    train = make_ratings(users, items, values, n_users=3, n_items=5)
    # k = 1: item 3 goes to u1 (lower code, deviation +2) -> 3 + 2; item 2 has no rater -> mean 3
    one = RatingUserKNN(k=1).fit(train).score_users(np.array([0]))[0]
    np.testing.assert_allclose(one[[2, 3, 4]], [3.0, 5.0, 1.0])
    # k = 2: +2 and -2 with equal weights cancel
    two = RatingUserKNN(k=2).fit(train).score_users(np.array([0]))[0]
    np.testing.assert_allclose(two[[3, 4]], [3.0, 3.0])
    # u1's neighbours: u0 (cos 1/sqrt(2)) and u2 (cos 0, never a neighbour) -> item 0 by u0: 3 + (5 - 3)
    assert RatingUserKNN(k=5).fit(train).score(np.array([1]), np.array([0]))[0] == pytest.approx(3.0 + 2.0)


@pytest.mark.realdata
def test_rating_knn_rmse_on_the_u1_split_of_movielens_100k():
    """KNNWithMeans is reported at about 0.95 RMSE on MovieLens 100K (Surprise's benchmark, 5 folds)."""
    train, test = u1_split()
    predicted = RatingUserKNN().fit(train).score(test.users, test.items)
    assert float(np.sqrt(np.mean((predicted - test.values) ** 2))) <= 0.96


def test_rating_knn_rejects_bad_neighbourhoods():
    with pytest.raises(ValueError, match="k must be"):
        RatingUserKNN(k=0)
    for bad in (0, 51, 2.0, True, None):
        with pytest.raises(ValueError, match=r"min_support must be an integer in \[1, k = 50\]"):
            RatingUserKNN(min_support=bad)
    assert RatingUserKNN(k=None, min_support=500).min_support == 500

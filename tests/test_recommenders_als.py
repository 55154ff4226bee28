"""ALS through implicit against dense numpy solves of the losses it is meant to minimise."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from recbias.recommenders import ALS, IALS, hkv_from_krichene_rendle
from test_recommenders_support import low_rank_world


def weighted_grams(weights: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Per row r: sum_i weights[r, i] f_i f_i' (a stack of d x d matrices)."""
    outer = (fixed[:, :, None] * fixed[:, None, :]).reshape(len(fixed), -1)
    return (weights @ outer).reshape(len(weights), fixed.shape[1], fixed.shape[1])


def alternate(solve_rows, n_items: int, factors: int, iterations: int, seed: int):
    """Exact alternating minimisation: users from items, then items from users."""
    items = np.random.default_rng(seed).standard_normal((n_items, factors)) * 0.1
    with threadpool_limits(1, "blas"):  # tiny matrices: threads only add overhead
        for _ in range(iterations):
            users = solve_rows(items, transpose=False)
            items = solve_rows(users, transpose=True)
    return users, items


def krichene_rendle_loss(observed, users, items, alpha, lam):
    """Section 9 of Krichene and Rendle: sum_H (y-1)^2 + alpha sum_all y^2 + lambda ||V||^2."""
    y = users @ items.T
    return ((y - 1) ** 2 * observed).sum() + alpha * (y**2).sum() + lam * ((users**2).sum() + (items**2).sum())


def krichene_rendle_reference(observed, factors, alpha, lam, iterations=1000, seed=0):
    """Setting the gradient of their loss in x_u to zero:
    (sum_{i in H_u} v_i v_i' + alpha sum_i v_i v_i' + lambda I) x_u = sum_{i in H_u} v_i."""

    def solve_rows(fixed, transpose):
        h = observed.T if transpose else observed
        lhs = alpha * fixed.T @ fixed + lam * np.eye(factors) + weighted_grams(h, fixed)
        return np.linalg.solve(lhs, (h @ fixed)[..., None])[..., 0]

    return alternate(solve_rows, observed.shape[1], factors, iterations, seed)


def hkv_loss(confidence, preference, users, items, lam):
    y = users @ items.T
    return (confidence * (preference - y) ** 2).sum() + lam * ((users**2).sum() + (items**2).sum())


def hkv_reference(confidence, preference, factors, lam, iterations=1000, seed=0):
    """Hu et al. 2008 Eq. 4: x_u = (Y' C_u Y + lambda I)^-1 Y' C_u p_u."""

    def solve_rows(fixed, transpose):
        c, p = (confidence.T, preference.T) if transpose else (confidence, preference)
        lhs = weighted_grams(c, fixed) + lam * np.eye(factors)
        return np.linalg.solve(lhs, ((c * p) @ fixed)[..., None])[..., 0]

    return alternate(solve_rows, confidence.shape[1], factors, iterations, seed)


@pytest.fixture(scope="module")
def world():
    return low_rank_world(n_users=120, n_items=80, rank=3, density=0.15, seed=3)


def test_mapping_by_hand():
    mapped = hkv_from_krichene_rendle(alpha=0.2, regularization=10.0)
    # c = (1 + 0.2) / 0.2 = 6 = 1 + 5; lambda' = 10 * 6 = 60; y = y' / 1.2
    assert mapped.confidence_alpha == pytest.approx(5.0)
    assert mapped.regularization == pytest.approx(60.0)
    assert mapped.score_scale == pytest.approx(1 / 1.2)


@pytest.mark.parametrize("factors, alpha, lam", [(3, 0.2, 1.0), (4, 0.5, 0.3), (16, 0.2, 10.0)])
def test_ials_reaches_the_minimum_of_the_krichene_rendle_loss(world, factors, alpha, lam):
    observed = world.matrix("binary").toarray()
    ref_users, ref_items = krichene_rendle_reference(observed, factors, alpha, lam)
    model = IALS(factors=factors, alpha=alpha, regularization=lam, iterations=600, seed=1).fit(world)
    reference = krichene_rendle_loss(observed, ref_users, ref_items, alpha, lam)
    ours = krichene_rendle_loss(observed, model.user_factors_, model.item_factors_, alpha, lam)
    assert reference < observed.sum()  # a non-trivial optimum, not the all-zero factors
    assert ours == pytest.approx(reference, rel=1e-6)
    np.testing.assert_allclose(model.score_users(np.arange(world.n_users)), ref_users @ ref_items.T, atol=1e-4)


def test_the_unmapped_parameters_would_miss_that_minimum(world):
    # control: feeding alpha and lambda to the HKV loss unchanged is a different problem
    observed = world.matrix("binary").toarray()
    ref_users, ref_items = krichene_rendle_reference(observed, 4, 0.5, 0.3)
    naive = ALS(factors=4, alpha=0.5, regularization=0.3, feedback="binary", iterations=600).fit(world)
    reference = krichene_rendle_loss(observed, ref_users, ref_items, 0.5, 0.3)
    assert krichene_rendle_loss(observed, naive.user_factors_, naive.item_factors_, 0.5, 0.3) > 1.05 * reference


def test_als_reaches_the_minimum_of_the_hkv_loss(world):
    values = world.matrix("values").toarray()
    confidence, preference = 1.0 + 0.5 * values, (values > 0).astype(float)
    ref_users, ref_items = hkv_reference(confidence, preference, 5, 2.0)
    model = ALS(factors=5, alpha=0.5, regularization=2.0, feedback="values", iterations=600).fit(world)
    reference = hkv_loss(confidence, preference, ref_users, ref_items, 2.0)
    ours = hkv_loss(confidence, preference, model.user_factors_, model.item_factors_, 2.0)
    assert ours == pytest.approx(reference, rel=1e-6)
    np.testing.assert_allclose(model.score_users(np.arange(world.n_users)), ref_users @ ref_items.T, atol=1e-4)


def test_fold_in_is_the_exact_user_step_of_the_hkv_loss():
    """A user folded in from her ratings gets x_u = (Y' C_u Y + lambda I)^-1 Y' C_u p_u with Y fixed."""
    from recbias.ratings import Ratings

    rng = np.random.default_rng(3)
    users, items = np.nonzero(rng.random((30, 25)) < 0.3)
    values = rng.integers(1, 6, len(users)).astype(float)
    train = Ratings.from_codes(users, items, values, (30, 25), positive_threshold=4)
    model = ALS(factors=4, regularization=2.0, alpha=0.5, iterations=3, seed=1).fit(train)
    folded = model.fold_in(train, np.array([0, 7]))
    y = model.item_factors_
    for user in (0, 7):
        row = np.zeros(25)
        row[items[users == user]] = values[users == user]
        confidence = 1.0 + 0.5 * row
        expected = np.linalg.solve(y.T @ (confidence[:, None] * y) + 2.0 * np.eye(4), y.T @ (confidence * (row > 0)))
        np.testing.assert_allclose(folded.user_factors_[user], expected, rtol=1e-9)
    untouched = np.setdiff1d(np.arange(30), [0, 7])
    np.testing.assert_array_equal(folded.user_factors_[untouched], model.user_factors_[untouched])
    np.testing.assert_array_equal(model.fold_in(train.subset(users != 5), np.array([5])).user_factors_[5], 0.0)

"""Rating-prediction matrix factorisation with biases, fitted by alternating least squares.

The model of Koren, Bell and Volinsky (IEEE Computer 2009, Eq. 4 there),

.. math:: \\hat r_{ui} = \\mu + b_u + b_i + p_u^\\top q_i,

fitted to the observed rating *values* (every rating, whatever its value), is the
"MF" of Bellogín et al. (IRJ 2017, Section 3.3), which ranks items by the predicted
rating.  The loss is the squared error on the training ratings with the
count-weighted ridge penalty of Zhou et al. (AAIM 2008, "ALS-WR"):

.. math:: \\sum_{(u,i) \\in R} (r_{ui} - \\hat r_{ui})^2
          + \\lambda \\sum_u n_u (\\lVert p_u \\rVert^2 + b_u^2)
          + \\lambda \\sum_i n_i (\\lVert q_i \\rVert^2 + b_i^2),

with ``n_u`` and ``n_i`` the training ratings of the user and of the item and
``mu`` the mean training rating (not fitted).  Each half step solves every user
(then every item) exactly: the bias joins the factors as one more coordinate whose
fixed partner is 1.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange
from threadpoolctl import threadpool_limits

from recbias.ratings import Ratings
from recbias.recommenders._lapack import NO_TRANSPOSE, POSV, SYRK, UPPER
from recbias.recommenders._pairs import pairwise_dot
from recbias.recommenders._progress import progress_bar
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import rating_values


@njit(cache=True, nogil=True, parallel=True)
def _solve_rows(
    syrk: Callable,
    posv: Callable,
    indptr: np.ndarray,
    indices: np.ndarray,
    centred: np.ndarray,
    fixed: np.ndarray,
    fixed_bias: np.ndarray,
    regularization: float,
    factors: np.ndarray,
    bias: np.ndarray,
) -> np.ndarray:
    """Row ``a`` of a CSR matrix of centred ratings ``r - mu``: the minimiser ``(x_a, b_a)`` of
    ``sum_j (r_aj - mu - fixed_bias_j - b_a - <x_a, fixed_j>)^2 + regularization n_a (|x_a|^2 + b_a^2)``,
    written to ``factors[a]`` and ``bias[a]`` (zero for a row without ratings).

    With ``D`` the row's ``n_a x (f + 1)`` design (``fixed_j`` and 1) and ``t`` its targets, the normal
    equations ``(D'D + regularization n_a I) (x_a, b_a) = D't`` are symmetric positive definite: ``D'D``
    by a rank-``n_a`` update of one triangle (``syrk``, :data:`recbias.recommenders._lapack.SYRK`), the
    solution by Cholesky (``posv``, :data:`~recbias.recommenders._lapack.POSV`).  Returns LAPACK's
    ``info`` per row (0 when solved).
    """
    dim = fixed.shape[1] + 1
    status = np.zeros(indptr.shape[0] - 1, np.int32)
    flags = np.array([UPPER, NO_TRANSPOSE], np.uint8)  # read only: shared by every row
    weights = np.array([1.0, 0.0])  # alpha, beta of syrk: D'D replaces the triangle
    for row in prange(indptr.shape[0] - 1):
        start, stop = indptr[row], indptr[row + 1]
        count = stop - start
        if count == 0:
            factors[row, :] = 0.0
            bias[row] = 0.0
            continue
        design = np.empty((count, dim))  # C order: the dim x count matrix D' to Fortran
        target = np.empty(count)
        for k in range(count):
            col = indices[start + k]
            design[k, : dim - 1] = fixed[col]
            design[k, dim - 1] = 1.0
            target[k] = centred[start + k] - fixed_bias[col]
        gram = np.empty((dim, dim))
        solution = design.T @ target
        sizes = np.array([dim, count, 1, 0], np.int32)  # n, k, right-hand sides, info: the row's own
        syrk(flags[0:].ctypes, flags[1:].ctypes, sizes[0:].ctypes, sizes[1:].ctypes, weights[0:].ctypes,
             design.ctypes, sizes[0:].ctypes, weights[1:].ctypes, gram.ctypes, sizes[0:].ctypes)
        for d in range(dim):
            gram[d, d] += regularization * count
        posv(flags[0:].ctypes, sizes[0:].ctypes, sizes[2:].ctypes, gram.ctypes, sizes[0:].ctypes,
             solution.ctypes, sizes[0:].ctypes, sizes[3:].ctypes)
        status[row] = sizes[3]
        factors[row, :] = solution[: dim - 1]
        bias[row] = solution[dim - 1]
    return status


class RatingMF(Recommender):
    """Biased MF ``r^_ui = mu + b_u + b_i + <p_u, q_i>`` on rating values, by ALS (papers' set).

    One of **the papers' set** of recommenders (IRJ 2017, Section 3.3: MF after Koren,
    Bell and Volinsky 2009), which predict ratings and rank items by the prediction;
    the implicit top-N learners of :mod:`recbias.recommenders.als` are today's set.
    Minimises the loss of the module docstring by ``iterations`` alternations of exact
    user and item solves, from item factors drawn as ``N(0, 0.1^2)`` with ``seed`` and
    zero item biases.  Scores are the predicted ratings; users without training
    ratings score 0 for every item (as every personalised model here).
    """

    name = "rating-MF"

    def __init__(self, factors: int = 50, regularization: float = 0.1, iterations: int = 15, seed: int = 0) -> None:
        super().__init__(seed=seed)
        if isinstance(factors, bool) or not isinstance(factors, (int, np.integer)) or factors < 1:
            raise ValueError(f"{self.name}: factors must be a positive integer, got {factors!r}")
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise ValueError(f"{self.name}: iterations must be a positive integer, got {iterations!r}")
        if not (np.isfinite(regularization) and regularization > 0):
            raise ValueError(f"{self.name}: regularization must be a positive number, got {regularization!r}")
        self.factors = int(factors)
        self.regularization = float(regularization)
        self.iterations = int(iterations)

    def uses_positive_threshold(self) -> bool:
        return False

    def _fit(self, train: Ratings) -> None:
        by_user = rating_values(self.name, train)
        by_item = by_user.T.tocsr()
        by_item.sort_indices()
        for side in (by_user, by_item):  # one index type for both halves: one compiled _solve_rows
            side.indptr, side.indices = side.indptr.astype(np.int64), side.indices.astype(np.int64)
        self.mu_ = float(train.values.mean()) if train.n_ratings else 0.0
        user_centred, item_centred = by_user.data - self.mu_, by_item.data - self.mu_
        rng = np.random.default_rng(self.seed)
        self.item_factors_ = rng.standard_normal((self.n_items, self.factors)) * 0.1
        self.item_bias_ = np.zeros(self.n_items)
        self.user_factors_ = np.zeros((self.n_users, self.factors))
        self.user_bias_ = np.zeros(self.n_users)
        with threadpool_limits(1, "blas"), progress_bar(self.iterations, f"fit {self.name}") as bar:
            for _ in range(self.iterations):
                self._check_solved("user", _solve_rows(
                    SYRK, POSV, by_user.indptr, by_user.indices, user_centred, self.item_factors_, self.item_bias_,
                    self.regularization, self.user_factors_, self.user_bias_))
                self._check_solved("item", _solve_rows(
                    SYRK, POSV, by_item.indptr, by_item.indices, item_centred, self.user_factors_, self.user_bias_,
                    self.regularization, self.item_factors_, self.item_bias_))
                bar.update()
        self.known_users_ = np.diff(by_user.indptr) > 0

    def _check_solved(self, side: str, status: np.ndarray) -> None:
        """Raise if LAPACK could not solve the normal equations of some ``side`` (``status`` per row)."""
        failed = np.flatnonzero(status)
        if len(failed):
            raise FloatingPointError(
                f"{self.name}: the normal equations of {len(failed)} {side}s ({side} code {failed[0]} first) are not "
                f"numerically positive definite; raise the regularization (now {self.regularization:g})")

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        block = self.user_factors_[users] @ self.item_factors_.T
        block += (self.mu_ + self.user_bias_[users])[:, None]
        block += self.item_bias_[None, :]
        block[~self.known_users_[users]] = 0.0
        return block

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        users, items = self._check(users, items)
        predicted = pairwise_dot(self.user_factors_, self.item_factors_, users, items)
        predicted += self.mu_ + self.user_bias_[users] + self.item_bias_[items]
        return np.where(self.known_users_[users], predicted, 0.0)

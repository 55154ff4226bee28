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

import numpy as np
from numba import njit, prange
from threadpoolctl import threadpool_limits

from recbias.ratings import Ratings
from recbias.recommenders._pairs import pairwise_dot
from recbias.recommenders._progress import progress_bar
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import rating_values


@njit(cache=True, nogil=True, parallel=True)
def _solve_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    centred: np.ndarray,
    fixed: np.ndarray,
    fixed_bias: np.ndarray,
    regularization: float,
    factors: np.ndarray,
    bias: np.ndarray,
) -> None:
    """Row ``a`` of a CSR matrix of centred ratings ``r - mu``: the minimiser ``(x_a, b_a)`` of
    ``sum_j (r_aj - mu - fixed_bias_j - b_a - <x_a, fixed_j>)^2 + regularization n_a (|x_a|^2 + b_a^2)``,
    written to ``factors[a]`` and ``bias[a]`` (zero for a row without ratings)."""
    dim = fixed.shape[1] + 1
    for row in prange(indptr.shape[0] - 1):
        start, stop = indptr[row], indptr[row + 1]
        count = stop - start
        if count == 0:
            factors[row, :] = 0.0
            bias[row] = 0.0
            continue
        design = np.empty((count, dim))
        target = np.empty(count)
        for k in range(count):
            col = indices[start + k]
            design[k, : dim - 1] = fixed[col]
            design[k, dim - 1] = 1.0
            target[k] = centred[start + k] - fixed_bias[col]
        gram = design.T @ design
        for d in range(dim):
            gram[d, d] += regularization * count
        solution = np.linalg.solve(gram, design.T @ target)
        factors[row, :] = solution[: dim - 1]
        bias[row] = solution[dim - 1]


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
        self.mu_ = float(train.values.mean()) if train.n_ratings else 0.0
        user_centred, item_centred = by_user.data - self.mu_, by_item.data - self.mu_
        rng = np.random.default_rng(self.seed)
        self.item_factors_ = rng.standard_normal((self.n_items, self.factors)) * 0.1
        self.item_bias_ = np.zeros(self.n_items)
        self.user_factors_ = np.zeros((self.n_users, self.factors))
        self.user_bias_ = np.zeros(self.n_users)
        with threadpool_limits(1, "blas"), progress_bar(self.iterations, f"fit {self.name}") as bar:
            for _ in range(self.iterations):
                _solve_rows(by_user.indptr, by_user.indices, user_centred, self.item_factors_, self.item_bias_,
                            self.regularization, self.user_factors_, self.user_bias_)
                _solve_rows(by_item.indptr, by_item.indices, item_centred, self.user_factors_, self.user_bias_,
                            self.regularization, self.item_factors_, self.item_bias_)
                bar.update()
        self.known_users_ = np.diff(by_user.indptr) > 0

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

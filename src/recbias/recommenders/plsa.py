"""Probabilistic latent semantic analysis (pLSA) for collaborative filtering.

The aspect model of Hofmann (2004, ACM TOIS 22(1), Sections 3.1-3.3 there)
explains each user-item co-occurrence through a latent class ``z`` out of
``k``::

    P(i | u) = sum_z P(z | u) P(i | z)

and is fitted by (tempered) expectation-maximisation on the observed pairs.
It is the strongest recommender in Bellogín et al. (IRJ 2017, Section 3.3;
thesis Section 4.3).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from recbias.ratings import Ratings
from recbias.recommenders._pairs import pairwise_dot
from recbias.recommenders._progress import progress_bar
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import check_feedback, feedback_matrix, uses_threshold


def _normalise(matrix: np.ndarray, axis: int) -> np.ndarray:
    """Scale ``matrix`` to sum to one along ``axis``; all-zero slices stay zero."""
    totals = matrix.sum(axis=axis, keepdims=True)
    return np.divide(matrix, totals, out=np.zeros_like(matrix), where=totals > 0)


class PLSA(Recommender):
    """pLSA aspect model ``P(i|u) = sum_z P(z|u) P(i|z)`` fitted by EM.

    With co-occurrence weights ``n_ui`` (see ``feedback``), one EM step is

    * E: ``q(z|u,i) = [P(z|u) P(i|z)]^beta / sum_z' [P(z'|u) P(i|z')]^beta``;
    * M: ``P(z|u) ∝ sum_i n_ui q(z|u,i)`` and ``P(i|z) ∝ sum_u n_ui q(z|u,i)``.

    Both sums are sparse products over the non-zeros, so no ``q`` array is
    stored.  ``beta = 1`` is plain EM, under which the log-likelihood
    ``L = sum_{u,i} n_ui log P(i|u)`` (recorded in ``log_likelihood_`` before
    the first and after every step) never decreases; ``beta < 1`` is Hofmann's
    tempered EM.  Fitting stops after ``iterations`` steps, or earlier once an
    EM step raises ``L`` by less than ``tol * |L|``.

    The score of ``(u, i)`` is ``P(i|u)``.  Users without training ratings
    score 0 for every item.
    """

    name = "pLSA"

    def __init__(
        self,
        n_aspects: int = 20,
        iterations: int = 100,
        tol: float | None = 1e-5,
        beta: float = 1.0,
        feedback: str = "values",
        seed: int = 0,
    ) -> None:
        super().__init__(seed=seed)
        if n_aspects < 1:
            raise ValueError(f"{self.name}: n_aspects must be >= 1, got {n_aspects}")
        if iterations < 1:
            raise ValueError(f"{self.name}: iterations must be >= 1, got {iterations}")
        if tol is not None and tol < 0:
            raise ValueError(f"{self.name}: tol must be >= 0 or None, got {tol}")
        if not 0 < beta <= 1:
            raise ValueError(f"{self.name}: tempering beta must lie in (0, 1], got {beta}")
        self.n_aspects = n_aspects
        self.iterations = iterations
        self.tol = tol
        self.beta = beta
        self.feedback = check_feedback(self.name, feedback)

    def uses_positive_threshold(self) -> bool:
        return uses_threshold(self.feedback)

    def _fit(self, train: Ratings) -> None:
        counts = feedback_matrix(self.name, train, self.feedback)
        rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        cols = counts.indices
        rng = np.random.default_rng(self.seed)
        has_ratings = np.diff(counts.indptr) > 0
        user_aspects = _normalise(rng.random((self.n_users, self.n_aspects)) * has_ratings[:, None], axis=1)
        item_aspects = _normalise(rng.random((self.n_items, self.n_aspects)), axis=0)

        likelihood = pairwise_dot(user_aspects, item_aspects, rows, cols)
        log_likelihood = [float(counts.data @ np.log(likelihood))]
        with progress_bar(self.iterations, f"fit {self.name}") as bar:
            for _ in range(self.iterations):
                if self.beta == 1.0:
                    tempered_users, tempered_items, tempered = user_aspects, item_aspects, likelihood
                else:
                    tempered_users, tempered_items = user_aspects**self.beta, item_aspects**self.beta
                    tempered = pairwise_dot(tempered_users, tempered_items, rows, cols)
                ratio = sp.csr_matrix((counts.data / tempered, counts.indices, counts.indptr), shape=counts.shape)
                user_aspects = _normalise(tempered_users * (ratio @ tempered_items), axis=1)
                item_aspects = _normalise(tempered_items * (ratio.T @ tempered_users), axis=0)
                likelihood = pairwise_dot(user_aspects, item_aspects, rows, cols)
                log_likelihood.append(float(counts.data @ np.log(likelihood)))
                bar.update()
                gain = log_likelihood[-1] - log_likelihood[-2]
                if self.tol is not None and gain < self.tol * abs(log_likelihood[-2]):
                    break
        self.user_aspects_ = user_aspects  # P(z|u), rows sum to 1
        self.item_aspects_ = item_aspects  # P(i|z), columns sum to 1
        self.log_likelihood_ = np.array(log_likelihood)

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return self.user_aspects_[users] @ self.item_aspects_.T

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        users, items = self._check(users, items)
        return pairwise_dot(self.user_aspects_, self.item_aspects_, users, items)

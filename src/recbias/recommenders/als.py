"""Matrix factorisation by implicit alternating least squares.

Two parameterisations of the same weighted least-squares problem:

* :class:`ALS`, the confidence-weighted loss of Hu, Koren and Volinsky (ICDM
  2008, Eq. 3 there);
* :class:`IALS`, recommender X of Krichene and Rendle (KDD 2020, Section 9),
  whose loss weights every unobserved entry by ``alpha``; it is mapped exactly
  onto the first form by :func:`hkv_from_krichene_rendle`.

Both are solved by ``implicit``'s CPU ALS (conjugate-gradient inner solver).
They belong to **today's top-N set**: trained to tell rated from unrated pairs,
they learn which items get rated and so lean towards popular items.  The "MF" of
Bellogín et al. (IRJ 2017, Section 3.3) predicts rating values instead; it is
:class:`recbias.recommenders.RatingMF`, in the papers' set.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from threadpoolctl import threadpool_limits
from tqdm import TqdmWarning

with warnings.catch_warnings():  # implicit imports tqdm.auto, which warns in notebooks without ipywidgets
    warnings.simplefilter("ignore", TqdmWarning)
    from implicit.cpu.als import AlternatingLeastSquares

from recbias.ratings import Ratings
from recbias.recommenders._pairs import pairwise_dot
from recbias.recommenders._progress import progress_bar
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import check_feedback, feedback_matrix, uses_threshold


@njit(cache=True, nogil=True, parallel=True)
def _confidence_systems(
    indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray, items: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per row ``u`` of a CSR matrix of weights ``c_ui - 1``: ``Y' (C_u - I) Y`` and ``Y' C_u p_u``
    (Hu et al. 2008, Eq. 4), each summed over the row's entries in order, from zero."""
    n_rows, factors = indptr.shape[0] - 1, items.shape[1]
    lhs = np.zeros((n_rows, factors, factors))
    rhs = np.zeros((n_rows, factors))
    for row in prange(n_rows):
        for entry in range(indptr[row], indptr[row + 1]):
            y, weight = items[indices[entry]], weights[entry]
            for a in range(factors):
                for b in range(factors):
                    lhs[row, a, b] += (y[a] * y[b]) * weight
                rhs[row, a] += y[a] * (1.0 + weight)
    return lhs, rhs


@dataclass(frozen=True)
class HKVParameters:
    """Hu-Koren-Volinsky loss settings equivalent to a Krichene-Rendle loss.

    ``confidence_alpha`` and ``regularization`` define the HKV loss; its
    optimal scores times ``score_scale`` are the optimal Krichene-Rendle scores.
    """

    confidence_alpha: float
    regularization: float
    score_scale: float


def hkv_from_krichene_rendle(alpha: float, regularization: float) -> HKVParameters:
    """Map the loss of Krichene and Rendle (KDD 2020, Section 9) onto the HKV loss.

    Their loss over factors ``V`` with ``y = <v_u, v_i>`` and training pairs ``H`` is::

        L_KR = sum_{(u,i) in H} (y - 1)^2 + alpha * sum_{u,i} y^2 + lambda * ||V||^2.

    On an observed pair the two terms add up to ``(1 + alpha) y^2 - 2 y + 1``, so
    ``L_KR = alpha * [sum_{u,i} c_ui (p_ui t - y)^2 + (lambda / alpha) ||V||^2] + const``
    with unobserved weight 1, observed weight ``c = (1 + alpha) / alpha`` and
    target ``t = 1 / (1 + alpha)`` (``p_ui = 1`` on ``H``, else 0).  Substituting
    ``V = sqrt(t) V'`` turns the bracket into ``t^2`` times the HKV loss with
    target 1::

        L_HKV = sum_{u,i} c_ui (p_ui - y')^2 + lambda' ||V'||^2,
        c_ui = 1 + alpha' on H, 1 elsewhere,

    with ``alpha' = 1 / alpha``, ``lambda' = lambda (1 + alpha) / alpha`` and
    ``y = y' / (1 + alpha)``.  The minimisers therefore correspond one to one.
    """
    if alpha <= 0:
        raise ValueError(f"Krichene-Rendle alpha (weight of unobserved entries) must be > 0, got {alpha}")
    if regularization < 0:
        raise ValueError(f"regularization must be >= 0, got {regularization}")
    return HKVParameters(
        confidence_alpha=1.0 / alpha,
        regularization=regularization * (1.0 + alpha) / alpha,
        score_scale=1.0 / (1.0 + alpha),
    )


def fit_hkv(
    preferences: sp.csr_matrix,
    confidence_alpha: float,
    regularization: float,
    factors: int,
    iterations: int,
    seed: int,
    desc: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Minimise the HKV loss ``sum_{u,i} c_ui (p_ui - <x_u, y_i>)^2 + lambda (||X||^2 + ||Y||^2)``.

    ``c_ui = 1 + confidence_alpha * r_ui`` where ``preferences`` stores
    ``r_ui > 0`` (and ``p_ui = 1``), ``c_ui = 1`` and ``p_ui = 0`` elsewhere.
    implicit 0.7 (``cpu/als.py``) uses a stored value *as* the confidence and
    adds ``regularization * I`` unscaled, so it is given ``1 + alpha * r``.
    Returns float64 user and item factors.
    """
    values = (1.0 + confidence_alpha * preferences.data).astype(np.float32)
    confidence = sp.csr_matrix((values, preferences.indices, preferences.indptr), shape=preferences.shape)
    rng = np.random.default_rng(seed)
    with threadpool_limits(1, "blas"), progress_bar(iterations, desc) as bar:
        model = AlternatingLeastSquares(
            factors=factors,
            regularization=regularization,
            alpha=1.0,
            dtype=np.float32,
            iterations=iterations,
            num_threads=1,
        )
        # users are solved first from the item factors, so only these need a start
        model.item_factors = (rng.standard_normal((confidence.shape[1], factors)) * 0.01).astype(np.float32)
        model.user_factors = np.zeros((confidence.shape[0], factors), dtype=np.float32)
        model.fit(confidence, show_progress=False, callback=lambda *_: bar.update())
    return model.user_factors.astype(np.float64), model.item_factors.astype(np.float64)


class _FactorModel(Recommender):
    """Fits user and item factors with :func:`fit_hkv`; scores ``<x_u, y_i>``."""

    user_factors_: np.ndarray
    item_factors_: np.ndarray

    def __init__(self, factors: int, regularization: float, alpha: float, iterations: int, seed: int) -> None:
        super().__init__(seed=seed)
        if factors < 1:
            raise ValueError(f"{self.name}: factors must be >= 1, got {factors}")
        if iterations < 1:
            raise ValueError(f"{self.name}: iterations must be >= 1, got {iterations}")
        self.factors = factors
        self.regularization = regularization
        self.alpha = alpha
        self.iterations = iterations

    def _fit_hkv(
        self, preferences: sp.csr_matrix, confidence_alpha: float, regularization: float
    ) -> tuple[np.ndarray, np.ndarray]:
        return fit_hkv(
            preferences, confidence_alpha, regularization, self.factors, self.iterations, self.seed, f"fit {self.name}"
        )

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return self.user_factors_[users] @ self.item_factors_.T

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        users, items = self._check(users, items)
        return pairwise_dot(self.user_factors_, self.item_factors_, users, items)


class ALS(_FactorModel):
    """Implicit-feedback MF with the Hu-Koren-Volinsky loss (ICDM 2008, Eq. 3), of today's top-N set.

    ``min sum_{u,i} c_ui (p_ui - <x_u, y_i>)^2 + regularization (||X||^2 + ||Y||^2)``
    with ``p_ui = 1`` and confidence ``c_ui = 1 + alpha * r_ui`` for training
    pairs (``r_ui`` from ``feedback``), ``p_ui = 0`` and ``c_ui = 1`` elsewhere.
    Users without training ratings get zero factors, hence score 0.
    """

    name = "MF"

    def __init__(
        self,
        factors: int = 20,
        regularization: float = 10.0,
        alpha: float = 1.0,
        iterations: int = 15,
        feedback: str = "values",
        seed: int = 0,
    ) -> None:
        super().__init__(factors, regularization, alpha, iterations, seed)
        if alpha < 0 or regularization < 0:
            raise ValueError(f"{self.name}: alpha and regularization must be >= 0, got {alpha}, {regularization}")
        self.feedback = check_feedback(self.name, feedback)

    def uses_positive_threshold(self) -> bool:
        return uses_threshold(self.feedback)

    def _fit(self, train: Ratings) -> None:
        preferences = feedback_matrix(self.name, train, self.feedback)
        self.user_factors_, self.item_factors_ = self._fit_hkv(preferences, self.alpha, self.regularization)

    def fold_in(self, train: Ratings, users: np.ndarray) -> ALS:
        """A copy whose factors for ``users`` are solved from their ratings in ``train``, the item factors fixed.

        One exact user step of the HKV loss (Hu et al. 2008, Eq. 4):
        ``x_u = (Y'Y + Y' (C_u - I) Y + lambda I)^-1 Y' C_u p_u``, with ``c_ui = 1 + alpha r_ui`` on
        the user's rated items.  This is how a fitted model serves users who arrive after the fit
        (a user without ratings gets zero factors).  ``train`` must share the fit's code space.
        """
        users, _ = self._check(users)
        if train.shape != (self.n_users, self.n_items):
            raise ValueError(f"{self.name}: train has shape {train.shape}, the fit {(self.n_users, self.n_items)}")
        rows = feedback_matrix(self.name, train, self.feedback)[users]
        items = self.item_factors_
        lhs, rhs = _confidence_systems(rows.indptr, rows.indices, self.alpha * rows.data, items)
        lhs += items.T @ items + self.regularization * np.eye(items.shape[1])
        folded = copy.copy(self)
        folded.user_factors_ = self.user_factors_.copy()
        folded.user_factors_[users] = np.linalg.solve(lhs, rhs[..., None])[..., 0]
        return folded


class IALS(_FactorModel):
    """Recommender X of Krichene and Rendle (KDD 2020, Section 9): iALS on binary data.

    Minimises ``sum_{(u,i) in H} (y - 1)^2 + alpha sum_{u,i} y^2 + regularization ||V||^2``
    (their ``lambda``), ``y = <v_u, v_i>``, through the exact mapping of
    :func:`hkv_from_krichene_rendle`; the stored factors and the scores are in
    their parameterisation.  Paper settings: ``factors=16``,
    ``regularization=10``, ``alpha=0.2``.  Users without training ratings score 0.
    """

    name = "iALS"

    def __init__(
        self,
        factors: int = 16,
        regularization: float = 10.0,
        alpha: float = 0.2,
        iterations: int = 15,
        seed: int = 0,
    ) -> None:
        super().__init__(factors, regularization, alpha, iterations, seed)
        self.mapping = hkv_from_krichene_rendle(alpha, regularization)

    def uses_positive_threshold(self) -> bool:
        return False

    def _fit(self, train: Ratings) -> None:
        preferences = feedback_matrix(self.name, train, "binary")
        users, items = self._fit_hkv(preferences, self.mapping.confidence_alpha, self.mapping.regularization)
        shrink = np.sqrt(self.mapping.score_scale)
        self.user_factors_, self.item_factors_ = users * shrink, items * shrink

"""Rating-prediction user-based kNN with mean-centring ("KNNWithMeans").

The user-based neighbourhood predictor of Resnick et al. (CSCW 1994) and
Herlocker et al. (SIGIR 1999) in the form used by Cremonesi et al. (RecSys 2010)
and hence by Bellogín et al. (IRJ 2017, Section 3.3), which rank items by the
predicted rating:

.. math:: \\hat r_{ui} = \\mu_u + \\frac{\\sum_{v \\in N_k(u; i)} s_{uv} (r_{vi} - \\mu_v)}
                                     {\\sum_{v \\in N_k(u; i)} |s_{uv}|},

with ``mu_u`` the user's mean training rating and ``s_uv`` the cosine of the two
users' mean-centred rating vectors (zero where unrated), whose numerator runs over
the co-rated items.  ``N_k(u; i)`` are the ``k`` users most similar to ``u`` *among
those who rated i* (a neighbourhood per item), with positive similarity; equal
similarities go to the lower user code.  Without such a neighbour the prediction is
``mu_u``, and so it is with fewer than ``m = min_support`` of them (default 1: the papers'
predictor, unchanged): an item needs ``|N_k(u; i)| >= m`` for its neighbours to speak.  That is
the per-item minimum of neighbours of LensKit's user-user scorer (``MinNeighbors``, LensKit for
Java 2.1 and later; ``min_nbrs`` of LKPY's ``UserUser``; Ekstrand et al., RecSys 2011), which
leaves an item below it to a baseline scorer (its ``FallbackItemScorer``); our baseline is the
user's mean, the one the papers' predictor falls back to already.

Similarities are computed in blocks of users and never stored whole;
predicting every item for a block of users costs about one pass over the neighbours'
ratings per user, less the ratings of popular items that already have their ``k``
neighbours.  That pass is the costliest step of the papers' set, so a fit whose
``users x items`` matrix fits in :data:`PREDICT_ALL_BUDGET` predicts every rating once
and keeps them: each later score is a slice, and the fit cache shares them between
every page that scores the same fit.  Larger data are predicted block by block
whenever scored, in memory bounded by the block.  The minimum ``m`` is applied when
scoring, to the predictions of ``m = 1`` and the neighbour counts kept beside them, so
predictors that differ only in ``m`` share one fit.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from recbias.ratings import Ratings
from recbias.recommenders._pairs import BLOCK_BUDGET, dense_product
from recbias.recommenders.base import Recommender
from recbias.recommenders.feedback import rating_values
from recbias.recommenders.knn import _neighbour_count

#: largest ``users x items`` a fit predicts whole and keeps (2^25 entries, 268 MB of float64:
#: MovieLens 1M's 22.4 million fit, ML-10M's 750 million are predicted when scored)
PREDICT_ALL_BUDGET = 1 << 25


#: bits of the digit of each pass of :func:`_positive_by_decreasing`'s radix sort
DIGIT_BITS = 8


@njit(cache=True, nogil=True)
def _positive_by_decreasing(row: np.ndarray) -> np.ndarray:
    """The indices of the positive entries of ``row``, by decreasing value; equal values keep
    increasing index.  The same order as a stable sort, by a least-significant-digit radix sort.

    A positive double's bits order as an unsigned integer does, so their complement orders the
    values decreasingly.  Each pass is stable, and a pass is skipped when every key has the same
    digit (the top digits of similarities mostly are): at most eight passes over the keys instead
    of a comparison sort's ``log2`` of their number.
    """
    positive = np.flatnonzero(row > 0)
    keys = ~row[positive].view(np.uint64)
    order = np.arange(positive.shape[0])
    spare = np.empty_like(order)
    starts = np.empty(1 << DIGIT_BITS, np.int64)
    mask = np.uint64((1 << DIGIT_BITS) - 1)
    for shift in range(0, 64, DIGIT_BITS):
        starts[:] = 0
        for key in keys:
            starts[(key >> np.uint64(shift)) & mask] += 1
        if order.shape[0] == 0 or starts[(keys[0] >> np.uint64(shift)) & mask] == order.shape[0]:
            continue  # every key has this digit: the pass would keep the order
        total = 0
        for digit in range(starts.shape[0]):
            total, starts[digit] = total + starts[digit], total
        for index in order:
            digit = (keys[index] >> np.uint64(shift)) & mask
            spare[starts[digit]] = index
            starts[digit] += 1
        order, spare = spare, order
    return positive[order]


@njit(cache=True, nogil=True, parallel=True)
def _predict_rows(
    similarity: np.ndarray,
    means: np.ndarray,
    indptr: np.ndarray,
    ranks: np.ndarray,
    deviations: np.ndarray,
    items_by_rank: np.ndarray,
    k: int,
    out: np.ndarray,
    support: np.ndarray,
) -> None:
    """``out[a, i] = means[a] + sum s (r_vi - mu_v) / sum s`` over the ``k`` most similar raters ``v`` of
    ``i`` with ``s = similarity[a, v] > 0`` (equal similarities: lower ``v`` first), ``means[a]`` without
    such a rater; ``support[a, i]`` is the number of those raters, ``|N_k(a; i)|``.

    Walking the neighbours of ``a`` from the most similar down, each rating of a neighbour
    joins its item's sum while the item has fewer than ``k`` neighbours, which picks exactly
    the ``k`` most similar raters of every item.  ``indptr``, ``ranks`` and ``deviations`` hold
    ``r_vi - mu_v`` by user in CSR form with items replaced by their popularity rank
    (``items_by_rank[rank]`` is the item), ascending within each user; once the ``prefix``
    most popular items all have ``k`` neighbours, a neighbour's ratings of them are skipped
    unread, which changes nothing but the work.
    """
    n_items = out.shape[1]
    for a in prange(similarity.shape[0]):
        row = similarity[a]
        order = _positive_by_decreasing(row)
        sums = np.zeros((n_items, 3))  # by rank: neighbours taken, numerator, denominator (side by side in memory)
        prefix = 0
        for v in order:
            weight = row[v]
            first, stop = indptr[v], indptr[v + 1]
            if prefix:
                first += np.searchsorted(ranks[first:stop], prefix)
            rated, deviation = ranks[first:stop], deviations[first:stop]  # slices compile tighter than indexing
            for entry in range(stop - first):
                rank = rated[entry]
                take = 1.0 if sums[rank, 0] < k else 0.0  # adding 0.0 keeps a sum bit for bit: no branch to mispredict
                sums[rank, 0] += take
                sums[rank, 1] += take * (weight * deviation[entry])
                sums[rank, 2] += take * weight
            while prefix < n_items and sums[prefix, 0] >= k:
                prefix += 1
        for rank in range(n_items):
            item = items_by_rank[rank]
            support[a, item] = sums[rank, 0]
            if sums[rank, 0] > 0:  # every neighbour taken adds a positive weight
                out[a, item] = means[a] + sums[rank, 1] / sums[rank, 2]
            else:
                out[a, item] = means[a]


class RatingUserKNN(Recommender):
    """Mean-centred user-kNN rating predictor with per-item neighbourhoods (papers' set).

    One of **the papers' set** of recommenders (IRJ 2017, Section 3.3: user-based kNN
    after Cremonesi et al. 2010), the classic "KNNWithMeans"; it predicts
    ``r^_ui = mu_u + sum_{v in N_k(u;i)} s_uv (r_vi - mu_v) / sum |s_uv|`` (module docstring)
    and ranks items by it.  The top-N learner :class:`recbias.recommenders.UserKNN`,
    which sums the neighbours' raw ratings, belongs to today's set.

    The similarity is computed on integer-scaled centred vectors
    ``c_ui = n_u r_ui - sum_j r_uj`` (the cosine is blind to the scale ``n_u``), so with whole-star
    ratings its numerator and the product under the root are exact and equal similarities tie
    exactly.  ``k=None`` uses every positive neighbour.  ``min_support`` is the fewest neighbours
    ``|N_k(u; i)|`` that predict an item; with fewer the item gets ``mu_u`` (module docstring), so it
    ranks between the items predicted above and below the user's mean rather than last: the kNN cannot
    judge it, which is not the same as judging it bad.  Users without training ratings score 0.
    ``min_support`` is read only when scoring (a scoring parameter): one fit serves every minimum.
    """

    name = "rating-kNN"
    scoring_parameters = ("min_support",)

    def __init__(self, k: int | None = 50, min_support: int = 1, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.k = _neighbour_count(self.name, "k", k)
        whole = isinstance(min_support, (int, np.integer)) and not isinstance(min_support, bool)
        if not whole or not 1 <= min_support <= (self.k or min_support):
            raise ValueError(f"{self.name}: min_support must be an integer in [1, k = {self.k}], got {min_support!r}")
        self.min_support = int(min_support)

    def uses_positive_threshold(self) -> bool:
        return False

    def _fit(self, train: Ratings) -> None:
        ratings = rating_values(self.name, train)
        counts = np.diff(ratings.indptr)
        owner = np.repeat(np.arange(self.n_users), counts)
        sums = np.bincount(owner, weights=ratings.data, minlength=self.n_users)
        self.user_means_ = np.divide(sums, counts, out=np.zeros(self.n_users), where=counts > 0)
        centred = ratings.copy()
        centred.data = counts[owner] * ratings.data - sums[owner]
        self.centred_ = centred
        self.centred_by_item_ = centred.T.tocsr()  # the other side of every similarity product, made once
        self.squares_ = np.asarray(centred.multiply(centred).sum(axis=1), dtype=np.float64).ravel()
        self.items_by_rank_ = np.argsort(-np.bincount(ratings.indices, minlength=self.n_items), kind="stable")
        rank_of = np.empty(self.n_items, dtype=np.int64)
        rank_of[self.items_by_rank_] = np.arange(self.n_items)
        deviations = ratings.data - self.user_means_[owner]
        self.deviations_ = sp.csr_matrix((deviations, rank_of[ratings.indices], ratings.indptr), shape=train.shape)
        self.deviations_.sort_indices()  # by popularity rank within each user
        whole = self.n_users * self.n_items <= PREDICT_ALL_BUDGET
        self.predictions_, self.support_ = self._predict(np.arange(self.n_users)) if whole else (None, None)

    def _similarity(self, users: np.ndarray) -> np.ndarray:
        """``s_uv`` of each of ``users`` to every user (0 to itself and to users without spread)."""
        gram = dense_product(self.centred_, self.centred_by_item_, users)
        norms = np.sqrt(self.squares_[users, None] * self.squares_[None, :])
        similarity = np.divide(gram, norms, out=np.zeros_like(gram), where=norms > 0)
        similarity[np.arange(len(users)), users] = 0.0
        return similarity

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        if self.min_support == 1:  # every prediction stands
            return self._predict(users)[0] if self.predictions_ is None else self.predictions_[users]
        predictions, support = (self._predict(users) if self.predictions_ is None
                                else (self.predictions_[users], self.support_[users]))
        return np.where(support >= self.min_support, predictions, self.user_means_[users, None])

    def _predict(self, users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The predicted rating of every item for each of ``users`` with a minimum of one neighbour (0 for
        users without training ratings), and the number of neighbours behind each, ``|N_k(u; i)|``; in
        blocks of :data:`~recbias.recommenders._pairs.BLOCK_BUDGET` similarities."""
        k = self.n_users if self.k is None else self.k
        out = np.empty((len(users), self.n_items))
        support = np.empty((len(users), self.n_items), dtype=np.min_scalar_type(k))
        rows = max(1, BLOCK_BUDGET // max(self.n_users, self.n_items))
        deviations = self.deviations_
        for start in range(0, len(users), rows):
            chunk = users[start : start + rows]
            _predict_rows(self._similarity(chunk), self.user_means_[chunk], deviations.indptr,
                          deviations.indices, deviations.data, self.items_by_rank_, k,
                          out[start : start + rows], support[start : start + rows])
        out[np.diff(deviations.indptr)[users] == 0] = 0.0
        return out, support

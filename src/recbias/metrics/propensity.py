"""Observation propensities of relevant items from their popularity (Yang et al., RecSys 2018).

The propensity of item ``i`` is the probability that a relevant pair ``(u, i)``
outside the training set shows up as a positive test rating, taken to be the same
for every user (Yang et al. 2018, Sec. 4; the popularity-based propensities of
Schnabel et al., ICML 2016, Sec. 5).  With these true probabilities the
inverse-propensity estimates of :mod:`recbias.metrics.ips` are unbiased for
precision on complete relevance.  They are modelled as a power of the item's
positive *training* ratings ``n_i`` (nothing of the test set but its size enters
the weights), scaled to the rate at which pairs are observed:

.. math:: p_i = \\min\\bigl(1,\\; c\\,(n_i + 1)^{\\beta}\\bigr), \\qquad
          c = \\frac{|R_\\text{test}|}{\\sum_j o_j\\,(n_j + 1)^{\\beta}},

where ``o_j = |U| - |R_train(j)|`` counts the pairs of item ``j`` outside the
training set.  Before the cap at 1 (which binds only for items nearly certain to
be observed), the propensities summed over every pair outside the training set
equal the number of test ratings: a pair is observed as often as the data show,
relevant or not, and popular items more often.  ``beta = 0`` is missing at random
(``p_i`` = the test density); the ``+ 1`` keeps items without a positive training
rating finite.  Under Steck's (2011) model, where the chance of observing a
relevant rating grows as the ``gamma``-th power of the item's true number of fans,
``beta = gamma / (gamma + 1)``.  The scale of ``c`` matters to IPS only; SNIPS
does not see it.
"""

from __future__ import annotations

import numpy as np

from recbias.ratings import Ratings

__all__ = ["popularity_propensity", "propensity_from_counts"]


def propensity_from_counts(counts: np.ndarray, power: float, outside_pairs: np.ndarray, n_test: int) -> np.ndarray:
    """``p_i = min(1, c (n_i + 1)^power)`` with ``c = n_test / sum_j outside_pairs_j (n_j + 1)^power``.

    ``counts`` are the items' positive training ratings, ``outside_pairs`` their pairs
    outside the training set (users minus training ratings) and ``n_test`` the number
    of test ratings.

    Shapes ``(0 + 1)^1 = 1`` and ``(3 + 1)^1 = 4`` over 10 outside pairs each: ``c = 5 / 50``.

    >>> propensity_from_counts(np.array([0, 3]), power=1.0, outside_pairs=np.array([10, 10]), n_test=5).tolist()
    [0.1, 0.4]
    """
    power = float(power)
    if not (np.isfinite(power) and power >= 0):
        raise ValueError(f"propensity power must be a non-negative number, got {power!r}")
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1 or counts.size == 0 or np.any(counts < 0):
        raise ValueError("counts must be a non-empty vector of non-negative item counts")
    outside_pairs = np.asarray(outside_pairs, dtype=np.float64)
    if outside_pairs.shape != counts.shape or np.any(outside_pairs < 0):
        raise ValueError("outside_pairs must hold one non-negative number of pairs per item, like counts")
    if isinstance(n_test, bool) or not isinstance(n_test, (int, np.integer)) or n_test < 0:
        raise ValueError(f"n_test must be a non-negative number of test ratings, got {n_test!r}")
    shape = (counts + 1.0) ** power
    total = float(outside_pairs @ shape)
    if total <= 0:
        raise ValueError("no (user, item) pair lies outside the training set: nothing could be observed")
    return np.minimum(1.0, shape * (n_test / total))


def popularity_propensity(train: Ratings, test: Ratings, power: float) -> np.ndarray:
    """Propensities of every item code from ``train``'s positive counts, scaled to ``test``'s size.

    Three of four users like item 1 in training, none item 0; two test ratings: ``c = 2 / (4 * 1 + 1 * 4)``.

    >>> train = Ratings.from_codes([0, 1, 2], [1, 1, 1], [5.0, 5.0, 5.0], (4, 2), positive_threshold=4)
    >>> test = Ratings.from_codes([3, 0], [1, 0], [5.0, 5.0], (4, 2), positive_threshold=4)
    >>> popularity_propensity(train, test, power=1.0).tolist()
    [0.25, 1.0]
    """
    if train.shape != test.shape:
        raise ValueError(f"train and test code spaces differ: {train.shape} vs {test.shape}")
    return propensity_from_counts(
        train.item_counts(positive_only=True), power, train.n_users - train.item_counts(), test.n_ratings
    )

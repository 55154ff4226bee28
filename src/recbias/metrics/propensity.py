"""Observation propensities of relevant items from their popularity (Yang et al., RecSys 2018).

A relevant user-item pair is observed (here: held out as a positive test rating)
with probability ``p_i``, the same for every user, growing as a power of the
item's popularity:

.. math:: p_i = \\left(\\frac{n_i + 1}{\\max_j n_j + 1}\\right)^{\\beta},

with ``n_i`` the item's positive *training* ratings, so that nothing of the test
set enters its own weights.  ``beta = 0`` is missing at random (``p_i = 1``); the
most popular item has ``p = 1``, which fixes the scale that IPS needs and SNIPS
ignores; the ``+ 1`` keeps items without a positive training rating finite.
Under Steck's (2011) model, where the chance of observing a relevant rating grows
as the ``gamma``-th power of the item's true number of fans, ``beta = gamma / (gamma + 1)``.
"""

from __future__ import annotations

import numpy as np

from recbias.ratings import Ratings

__all__ = ["popularity_propensity", "propensity_from_counts"]


def propensity_from_counts(counts: np.ndarray, power: float) -> np.ndarray:
    """``p_i = ((n_i + 1) / (max n + 1))^power`` for the positive counts ``n_i`` of every item."""
    power = float(power)
    if not (np.isfinite(power) and power >= 0):
        raise ValueError(f"propensity power must be a non-negative number, got {power!r}")
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1 or counts.size == 0 or np.any(counts < 0):
        raise ValueError("counts must be a non-empty vector of non-negative item counts")
    return ((counts + 1.0) / (counts.max() + 1.0)) ** power


def popularity_propensity(train: Ratings, power: float) -> np.ndarray:
    """Propensities of every item code of ``train`` from its positive training ratings."""
    return propensity_from_counts(train.item_counts(positive_only=True), power)

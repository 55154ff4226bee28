"""Timestamps of the simulated ratings.

Each user joins at a uniform time in the window and rates during one active
period whose length is log-normal (median one day, log-sd 2.5, cut at the end
of the window): like MovieLens users, most rate everything in a single sitting
and a few return over months.  Within the period rating times are uniform.
"""

from __future__ import annotations

import numpy as np

SECONDS_PER_DAY = 86_400
#: median length of a user's active period, in days, and the log-sd around it
ACTIVE_PERIOD_MEDIAN_DAYS = 1.0
ACTIVE_PERIOD_LOG_SD = 2.5


def rating_times(rng: np.random.Generator, users: np.ndarray, n_users: int, start: int, days: float) -> np.ndarray:
    """Integer timestamps in ``[start, start + days * 86400]``, one per entry of ``users``."""
    window = days * SECONDS_PER_DAY
    joined = rng.uniform(0.0, window, size=n_users)
    active = SECONDS_PER_DAY * ACTIVE_PERIOD_MEDIAN_DAYS * np.exp(ACTIVE_PERIOD_LOG_SD * rng.standard_normal(n_users))
    active = np.minimum(active, window - joined)
    offsets = joined[users] + active[users] * rng.uniform(size=len(users))
    return start + np.floor(offsets).astype(np.int64)

"""How much of a protocol's scale popularity alone reaches: the popularity index (IRJ 2017 Sec. 6, Fig. 8).

``index = (M_pop - M_rnd) / (max_s M_s - M_rnd)``, ``s`` over the personalised systems: 0 when
Popularity scores like Random, 1 when it scores like the best personalised system, above 1 when it beats
them all, negative below random.
"""

from __future__ import annotations

import numpy as np


def popularity_index(popularity: float | np.ndarray, random: float | np.ndarray,
                     best: float | np.ndarray) -> float | np.ndarray:
    """``(popularity - random) / (best - random)``, element-wise; NaN where ``best == random``."""
    popularity, random, best = (np.asarray(v, dtype=float) for v in (popularity, random, best))
    span = best - random
    with np.errstate(divide="ignore", invalid="ignore"):
        index = np.where(span != 0, (popularity - random) / np.where(span != 0, span, 1.0), np.nan)
    return float(index) if index.ndim == 0 else index

"""Bootstrap weights: every unit drawn with replacement, reproducibly."""

from __future__ import annotations

import numpy as np
import pytest

from recbias.evaluate import bootstrap_counts


def test_bootstrap_counts_draw_every_unit_with_replacement():
    counts = bootstrap_counts(50, 400, seed=1)
    assert counts.shape == (400, 50) and (counts.sum(axis=1) == 50).all()
    assert counts.mean() == pytest.approx(1.0) and np.array_equal(counts, bootstrap_counts(50, 400, seed=1))
    assert counts.var() == pytest.approx(1 - 1 / 50, rel=0.1)  # binomial(50, 1/50)
    with pytest.raises(ValueError, match="n_boot must be a positive integer"):
        bootstrap_counts(5, 0)

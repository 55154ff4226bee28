"""Orders of systems against a reference: tau-b against scipy, pair shares, best system, discordant pairs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from recbias.evaluate.orderings import (
    discordant_pairs,
    first_consistent,
    kendall_tau,
    order_agreement,
    pair_agreement,
)


def test_kendall_tau_on_hand_made_orders() -> None:
    true = {"a": 3.0, "b": 2.0, "c": 1.0}
    assert kendall_tau({"a": 0.3, "b": 0.2, "c": 0.1}, true) == pytest.approx(1.0)
    assert kendall_tau({"a": 0.1, "b": 0.2, "c": 0.3}, true) == pytest.approx(-1.0)
    assert kendall_tau({"a": 0.3, "b": 0.1, "c": 0.2}, true) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        kendall_tau({"a": 1.0}, true)


def test_order_agreement_is_scipys_tau_b_with_ties_row_by_row() -> None:
    rng = np.random.default_rng(0)
    measured = rng.integers(0, 4, size=(50, 6)).astype(float)  # many ties on purpose
    reference = rng.integers(0, 4, size=(50, 6)).astype(float)
    got = order_agreement(measured, reference)
    for row in range(50):
        expected = stats.kendalltau(measured[row], reference[row]).statistic
        assert got.tau[row] == pytest.approx(expected, nan_ok=True)


def test_order_agreement_on_hand_made_orders() -> None:
    true = np.array([[3.0, 2.0, 1.0, 0.0]])
    same = order_agreement(np.array([[0.4, 0.3, 0.2, 0.1]]), true)
    assert (same.tau[0], same.pairs[0], same.best[0]) == (1.0, 1.0, True)
    reversed_ = order_agreement(np.array([[0.1, 0.2, 0.3, 0.4]]), true)
    assert (reversed_.tau[0], reversed_.pairs[0], reversed_.best[0]) == (-1.0, 0.0, False)
    one_tie = order_agreement(np.array([[0.4, 0.4, 0.2, 0.1]]), true)  # one tie among six pairs
    assert one_tie.pairs[0] == pytest.approx(5 / 6) and one_tie.tau[0] == pytest.approx(5 / np.sqrt(5 * 6))


def test_discordant_pairs() -> None:
    true = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 1.0}
    assert discordant_pairs({"a": 0.3, "b": 0.2, "c": 0.1, "d": 0.05}, true) == []
    assert discordant_pairs({"a": 0.1, "b": 0.3, "c": 0.2, "d": 0.0}, true) == [("b", "a"), ("c", "a")]
    assert discordant_pairs({"a": 0.3, "b": 0.2, "c": 0.1, "d": 0.2}, true) == []  # c, d tied in truth


def test_pair_agreement_and_first_consistent() -> None:
    values = np.array([[0.1, 0.2], [0.3, 0.2], [0.2, 0.2], [0.0, 0.5]])
    assert pair_agreement(values, np.array([0.05, 0.06]), 0, 1) == 2
    assert pair_agreement(values, np.array([0.07, 0.06]), 0, 1) == 1
    with pytest.raises(ValueError):
        pair_agreement(values, np.array([0.06, 0.06]), 0, 1)
    ms = [10, 20, 50, 100]
    grid = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    assert first_consistent(ms, grid, np.array([0.0, 1.0]), 0, 1) == 100
    assert first_consistent(ms, grid[[1, 3, 1, 3]], np.array([0.0, 1.0]), 0, 1) == 10
    assert first_consistent(ms, grid[[1, 1, 1, 0]], np.array([0.0, 1.0]), 0, 1) is None

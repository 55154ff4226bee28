"""The shared scoring kernels against dense products, across chunk boundaries."""

import numpy as np
import pytest
import scipy.sparse as sp

from recbias.recommenders import _pairs, _progress


@pytest.fixture(params=[1 << 22, 5], ids=["one-chunk", "many-chunks"])
def budget(request, monkeypatch):
    monkeypatch.setattr(_pairs, "BLOCK_BUDGET", request.param)
    return request.param


def test_pairwise_dot_equals_gathered_matrix_product(budget):
    rng = np.random.default_rng(0)
    left, right = rng.standard_normal((30, 4)), rng.standard_normal((20, 4))
    rows, cols = rng.integers(0, 30, 333), rng.integers(0, 20, 333)
    np.testing.assert_allclose(_pairs.pairwise_dot(left, right, rows, cols), (left @ right.T)[rows, cols], rtol=1e-12)


@pytest.mark.parametrize("dense_right", [False, True])
def test_product_entries_equal_the_sparse_product(budget, dense_right):
    rng = np.random.default_rng(1)
    keep = np.ones(40)
    keep[3] = 0  # an empty row
    left = (sp.diags(keep) @ sp.random(40, 25, density=0.2, format="csr", random_state=2)).tocsr()
    left.eliminate_zeros()
    right = sp.random(25, 35, density=0.3, format="csr", random_state=3)
    rows, cols = rng.integers(0, 40, 500), rng.integers(0, 35, 500)
    expected = (left @ right).toarray()[rows, cols]
    operand = right.toarray() if dense_right else right
    np.testing.assert_allclose(_pairs.product_entries(left, operand, rows, cols), expected, rtol=1e-12, atol=1e-15)
    assert _pairs.product_entries(left, operand, rows[:0], cols[:0]).shape == (0,)


@pytest.mark.parametrize("right_format", ["csr", "csc", "dense"])
def test_dense_product_equals_scipys_product_bit_for_bit(right_format):
    rng = np.random.default_rng(4)
    left = sp.random(50, 30, density=0.3, format="csr", random_state=5)
    left.data = rng.standard_normal(left.nnz)  # sums of arbitrary doubles depend on their order
    keep = np.ones(50)
    keep[7] = 0  # an empty row
    left = (sp.diags(keep) @ left).tocsr()
    left.eliminate_zeros()
    right = sp.random(30, 45, density=0.4, format=right_format if right_format != "dense" else "csr", random_state=6)
    right.data = rng.standard_normal(right.nnz)
    operand = right.toarray() if right_format == "dense" else right
    rows = rng.integers(0, 50, 80)
    got = _pairs.dense_product(left, operand, rows)
    expected = left[rows] @ operand
    expected = expected if right_format == "dense" else expected.toarray()
    assert got.dtype == np.float64 and got.shape == (80, 45)
    np.testing.assert_array_equal(got, expected)
    assert _pairs.dense_product(left, operand, rows[:0]).shape == (0, 45)


def test_progress_bars_respect_the_switch_and_the_terminal(monkeypatch):
    monkeypatch.setattr(_progress.sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("RECBIAS_PROGRESS", "1")
    assert _progress.progress_enabled()
    monkeypatch.setenv("RECBIAS_PROGRESS", "0")
    assert not _progress.progress_enabled()
    monkeypatch.setenv("RECBIAS_PROGRESS", "1")
    monkeypatch.setattr(_progress.sys.stderr, "isatty", lambda: False, raising=False)
    assert not _progress.progress_enabled()

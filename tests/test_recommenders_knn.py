"""User- and item-kNN against brute-force loops over tiny matrices."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from recbias.recommenders import ItemKNN, UserKNN, cosine_neighbours, knn
from test_recommenders_support import make_ratings


def tiny_world(seed: int, n_users: int = 25, n_items: int = 15, density: float = 0.3):
    rng = np.random.default_rng(seed)
    observed = rng.random((n_users, n_items)) < density
    observed[-1] = False  # one user without ratings
    users, items = np.nonzero(observed)
    return make_ratings(users, items, rng.integers(1, 6, len(users)), n_users, n_items)


def nearest(similarity_to: dict[int, float], k: int | None) -> set[int]:
    """The k most similar with positive similarity; equal similarities: lower index first."""
    ranked = sorted((-s, other) for other, s in similarity_to.items() if s > 0)
    return {other for _, other in ranked[: k if k is not None else len(ranked)]}


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    # same rounding as the implementation: exact integer dot and product, one root, one division
    den = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b) / den if den > 0 else 0.0


def brute_user_knn(matrix: np.ndarray, k: int | None) -> np.ndarray:
    n_users, n_items = matrix.shape
    scores = np.zeros((n_users, n_items))
    for u in range(n_users):
        sims = {v: cosine(matrix[u], matrix[v]) for v in range(n_users) if v != u}
        for v in nearest(sims, k):
            for i in range(n_items):
                scores[u, i] += sims[v] * matrix[v, i]
    return scores


def brute_item_knn(rated: np.ndarray, q: float, k: int | None, k_prime: int | None) -> np.ndarray:
    """Krichene and Rendle Eq. 27-30 taken literally, with the L2 row norm in Eq. 29."""
    n_users, n_items = rated.shape
    s = np.zeros((n_items, n_items))
    for i in range(n_items):
        for j in range(n_items):
            if i != j:
                s[i, j] = cosine(rated[:, i], rated[:, j]) ** q
    column_nn = {j: nearest({i: s[i, j] for i in range(n_items)}, k) for j in range(n_items)}
    row_nn = {i: nearest({j: s[i, j] for j in range(n_items)}, k_prime) for i in range(n_items)}
    s1 = np.zeros_like(s)
    for i in range(n_items):
        for j in range(n_items):
            if i in column_nn[j] and j in row_nn[i]:
                s1[i, j] = s[i, j]
    s2 = np.zeros_like(s)
    for i in range(n_items):
        norm = math.sqrt(sum(x * x for x in s1[i]))
        if norm > 0:
            s2[i] = s1[i] / norm
    scores = np.zeros((n_users, n_items))
    for u in range(n_users):
        for i in range(n_items):
            total = s2[i].sum()
            if total > 0:
                scores[u, i] = sum(s2[i, j] for j in range(n_items) if rated[u, j]) / total
    return scores


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [None, 1, 3, 8])
@pytest.mark.parametrize("feedback", ["values", "binary", "positive"])
def test_user_knn_matches_brute_force(seed, k, feedback):
    train = tiny_world(seed)
    matrix = train.matrix(feedback).toarray()
    model = UserKNN(k=k, feedback=feedback).fit(train)
    expected = brute_user_knn(matrix, k)
    np.testing.assert_allclose(model.score_users(np.arange(train.n_users)), expected, rtol=1e-12, atol=1e-12)
    users, items = np.divmod(np.arange(train.n_users * train.n_items), train.n_items)
    np.testing.assert_allclose(model.score(users, items), expected.ravel(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "q, k, k_prime",
    [(3.0, None, None), (1.0, None, 10), (1.0, None, None), (1.0, 2, None), (2.0, 3, 4), (0.5, 1, 1), (1.0, None, 2)],
)
def test_item_knn_matches_eq_27_to_30(seed, q, k, k_prime):
    train = tiny_world(seed)
    rated = train.matrix("binary").toarray()
    model = ItemKNN(q=q, k=k, k_prime=k_prime).fit(train)
    expected = brute_item_knn(rated, q, k, k_prime)
    np.testing.assert_allclose(model.score_users(np.arange(train.n_users)), expected, rtol=1e-12, atol=1e-12)
    users, items = np.divmod(np.arange(train.n_users * train.n_items), train.n_items)
    np.testing.assert_allclose(model.score(users, items), expected.ravel(), rtol=1e-12, atol=1e-12)


def test_neighbour_ties_go_to_the_lower_index():
    # row 0 is equally similar (cos = 1/2) to rows 1, 2 and 3
    vectors = np.array([[1, 1, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=float)
    kept = cosine_neighbours(sp.csr_matrix(vectors), k=2).toarray()
    assert np.flatnonzero(kept[0]).tolist() == [1, 2]
    np.testing.assert_allclose(kept[0, [1, 2]], 0.5)
    assert kept[1].tolist() == [0.5, 0, 0, 0]  # orthogonal rows are never neighbours


@pytest.mark.parametrize("seed", range(6))
def test_nearest_rows_equal_scipys_product_cut_by_brute_force(seed):
    # real-valued data, so that a different order of the sums would show in the last bits
    rng = np.random.default_rng(seed)
    n, m = 40, 30
    values = np.where(rng.random((n, m)) < 0.3, rng.random((n, m)) * 4.5 + 0.5, 0.0)
    values[:4, :] = values[4, :]  # identical rows: exactly tied similarities
    values[7] = 0.0  # a row without entries
    vectors = sp.csr_matrix(values)
    gram = (vectors @ vectors.T.tocsr()).toarray()  # scipy's sparse product: the sums the kernel must match
    squares = np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel()
    for k, q in ((1, 1.0), (3, 1.0), (5, 3.0), (60, 1.0)):
        kept = cosine_neighbours(vectors, k=k, q=q)
        assert np.all(np.diff(kept.indptr) <= k)
        for a in range(n):
            similarity = {b: (gram[a, b] / math.sqrt(squares[a] * squares[b])) ** q
                          for b in range(n) if b != a and squares[a] * squares[b] > 0}
            expected = sorted(nearest(similarity, k))
            row = slice(kept.indptr[a], kept.indptr[a + 1])
            assert kept.indices[row].tolist() == expected
            assert kept.data[row].tolist() == [similarity[b] for b in expected]  # the same floats


def row_squares(vectors: sp.csr_matrix) -> np.ndarray:
    return np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel()


def exact_world(rng: np.random.Generator, n: int, m: int, top: float, step: float) -> sp.csr_matrix:
    """Whole multiples of ``step`` up to ``top``: four columns held by most rows, the rest by few;
    rows 0-3 equal (exact ties), row 7 empty, negative entries in row 9."""
    share = np.where(np.arange(m) < 4, 0.8, 0.03)
    values = np.where(rng.random((n, m)) < share, step * rng.integers(1, int(top / step) + 1, (n, m)), 0.0)
    values[:4] = values[4]
    values[7] = 0.0
    values[9] = -values[9]
    return sp.csr_matrix(values)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("top, step, dtype", [(5.0, 0.5, np.float32), (3000.0, 1.0, np.float64)])
def test_dense_columns_give_the_same_floats_as_the_sparse_walk(monkeypatch, seed, top, step, dtype):
    # half stars sum exactly in float32 over the dense columns; large counts need float64 there
    vectors = exact_world(np.random.default_rng(seed), 60, 25, top, step)
    columns, unit, chosen = knn._dense_columns(vectors, row_squares(vectors))
    counts = np.diff(vectors.tocsc().indptr)
    assert columns.tolist() == np.flatnonzero(counts >= knn.DENSE_COLUMN_SHARE * 60).tolist()
    assert {0, 1, 2, 3} <= set(columns.tolist()) and len(columns) < 20  # most columns stay sparse
    assert unit == step and chosen is dtype
    gram = (vectors @ vectors.T.tocsr()).toarray()
    squares = row_squares(vectors)
    monkeypatch.setattr(knn, "DENSE_BLOCK_ENTRIES", 7 * 60)  # several blocks of seven rows
    for k, q in ((1, 1.0), (3, 1.0), (5, 3.0), (70, 1.0)):
        kept = cosine_neighbours(vectors, k=k, q=q)
        for a in range(vectors.shape[0]):
            similarity = {b: (gram[a, b] / math.sqrt(squares[a] * squares[b])) ** q
                          for b in range(vectors.shape[0]) if b != a and gram[a, b] > 0}
            expected = sorted(nearest(similarity, k))
            row = slice(kept.indptr[a], kept.indptr[a + 1])
            assert kept.indices[row].tolist() == expected
            assert kept.data[row].tolist() == [similarity[b] for b in expected]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(knn, "DENSE_COLUMN_SHARE", 2.0)  # no dense column: the plain sparse walk
            walked = cosine_neighbours(vectors, k=k, q=q)
        assert (walked != kept).nnz == 0 and np.array_equal(walked.indices, kept.indices)
        assert np.array_equal(walked.indptr, kept.indptr) and walked.data.tolist() == kept.data.tolist()


def test_dense_columns_only_where_every_sum_is_exact():
    rng = np.random.default_rng(0)
    halves = exact_world(rng, 30, 10, 5.0, 0.5)
    assert len(knn._dense_columns(halves, row_squares(halves))[0]) >= 4
    thirds = halves.copy()
    thirds.data = thirds.data / 3.0  # not a whole multiple of any power of two
    assert len(knn._dense_columns(thirds, row_squares(thirds))[0]) == 0
    huge = halves.copy()
    huge.data = huge.data * 2.0**30  # sums of squares beyond 2^53
    assert len(knn._dense_columns(huge, row_squares(huge))[0]) == 0
    assert len(knn._dense_columns(sp.csr_matrix((0, 3)), np.zeros(0))[0]) == 0


def test_equal_similarities_after_the_neighbourhood_fills_keep_the_lower_index():
    # row 0 meets rows 1..6 with similarities 1/2, 1/2, 1/4, 1/2, 1/2, 1/2 (by row): with k = 3 the
    # first three halves fill the neighbourhood, and later halves must not replace an equal earlier one
    vectors = np.zeros((7, 8))
    vectors[0, :4] = 1.0
    for row, (column, extra) in enumerate([(0, 1), (1, 1), (2, 3), (3, 1), (0, 1), (1, 1)], start=1):
        vectors[row, column] = 1.0
        vectors[row, 4:4 + extra] = 0.0 if extra == 1 else 1.0
    kept = cosine_neighbours(sp.csr_matrix(vectors), k=3)
    assert kept[0].indices.tolist() == [1, 2, 4]
    assert kept[0].data.tolist() == [0.5, 0.5, 0.5]


def test_item_knn_hand_example():
    # users x items: u0 rated {0, 1}, u1 rated {0, 1, 2}, u2 rated {2}
    train = make_ratings([0, 0, 1, 1, 1, 2], [0, 1, 0, 1, 2, 2], [5] * 6, n_users=3, n_items=3)
    # cos(0,1) = 2/sqrt(2*2) = 1, cos(0,2) = cos(1,2) = 1/sqrt(2*2) = 1/2
    # q = 1: row 0 = (0, 1, 1/2) -> sums 3/2; user 2 holds item 2 -> score(2, 0) = (1/2) / (3/2)
    model = ItemKNN(q=1.0, k=None, k_prime=None).fit(train)
    assert model.score(np.array([2, 2, 0]), np.array([0, 2, 2])) == pytest.approx([1 / 3, 0.0, 1.0])

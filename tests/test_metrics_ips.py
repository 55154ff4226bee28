"""IPS and SNIPS precision and recall, and the popularity propensity model they use."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from recbias.metrics import (
    ItemPopularity,
    compute_metrics,
    ips_precision,
    ips_recall,
    popularity_propensity,
    precision,
    propensity_from_counts,
    recall,
    stratified_recall,
)
from recbias.ratings import Ratings
from recbias.runs import Runs


def in_order(lists: list[list[int]], relevant: list[set[int]], users: list[int] | None = None) -> Runs:
    """Runs whose candidates are listed in rank order, with the given relevant items."""
    items = np.concatenate([np.asarray(run, dtype=np.int64) for run in lists])
    labels = np.concatenate([[i in rel for i in run] for run, rel in zip(lists, relevant, strict=True)])
    offsets = np.concatenate([[0], np.cumsum([len(run) for run in lists])])
    return Runs.from_arrays(offsets, users or list(range(len(lists))), items, labels)


def test_propensity_from_counts_by_hand() -> None:
    p = propensity_from_counts(np.array([0, 3, 15]), 0.5)
    np.testing.assert_allclose(p, [np.sqrt(1 / 16), np.sqrt(4 / 16), 1.0])
    np.testing.assert_array_equal(propensity_from_counts(np.array([0, 3, 15]), 0.0), 1.0)
    with pytest.raises(ValueError, match="power"):
        propensity_from_counts(np.array([1, 2]), -1.0)
    with pytest.raises(ValueError, match="counts"):
        propensity_from_counts(np.array([1, -2]), 1.0)


def test_popularity_propensity_counts_positive_training_ratings_only() -> None:
    train = Ratings.from_codes(np.array([0, 1, 2, 0]), np.array([0, 0, 0, 1]), np.array([5.0, 5.0, 1.0, 5.0]),
                               (3, 3), positive_threshold=4, scale=(1, 5), name="t")
    # positive counts 2, 1, 0 -> ((n + 1) / 3)^1
    np.testing.assert_allclose(popularity_propensity(train, 1.0), [1.0, 2 / 3, 1 / 3])


def test_ips_and_snips_by_hand() -> None:
    # One run in rank order a, b, c, d (codes 0..3); relevant: a (p = 0.5) and c (p = 0.25); n = 2.
    runs = in_order([[0, 1, 2, 3]], [{0, 2}])
    p = np.array([0.5, 1.0, 0.25, 1.0])
    # IPS-P@2 = (1/2)(1/0.5) = 1; IPS-Recall@2 = (1/2)(2) = 1
    assert ips_precision(runs, 2, p)[0] == pytest.approx(1.0)
    assert ips_recall(runs, 2, p)[0] == pytest.approx(1.0)
    # SNIPS: weights 2 and 4 rescaled to mean 1 over the two relevant items: 2 * 2 / 6 = 2/3
    assert ips_precision(runs, 2, p, self_normalised=True)[0] == pytest.approx(1 / 3)
    assert ips_recall(runs, 2, p, self_normalised=True)[0] == pytest.approx(1 / 3)
    assert ips_recall(runs, 3, p, self_normalised=True)[0] == pytest.approx(1.0)


def test_snips_equals_ips_and_the_plain_metrics_under_uniform_propensities() -> None:
    rng = np.random.default_rng(3)
    lists = [list(rng.permutation(30)[: rng.integers(5, 30)]) for _ in range(40)]
    relevant = [set(rng.choice(run, size=rng.integers(1, len(run)), replace=False)) for run in lists]
    runs = in_order(lists, relevant)
    ones = np.ones(30)
    for n in (1, 5, 10):
        for snips in (False, True):
            np.testing.assert_allclose(ips_precision(runs, n, ones, snips), precision(runs, n))
            np.testing.assert_allclose(ips_recall(runs, n, ones, snips), recall(runs, n))
        # a uniform propensity c < 1 scales IPS by 1/c and leaves SNIPS unchanged
        np.testing.assert_allclose(ips_precision(runs, n, ones / 4), 4 * precision(runs, n))
        np.testing.assert_allclose(ips_precision(runs, n, ones / 4, True), precision(runs, n))


def test_ips_precision_is_unbiased_on_a_simulated_world() -> None:
    """Complete relevance Y, each relevant pair observed with a known p_i: the mean IPS-P@n over
    observation draws matches P@n on complete relevance; observed precision and SNIPS do not."""
    rng = np.random.default_rng(7)
    n_users, n_items, n = 60, 50, 10
    truth = rng.random((n_users, n_items)) < np.linspace(0.5, 0.1, n_items)
    p = np.linspace(0.9, 0.05, n_items)  # popular items (low codes) are observed far more often
    order = np.argsort(-(truth + rng.random((n_users, n_items))), axis=1)  # a good personalised ranking
    lists = [list(row) for row in order]
    complete = in_order(lists, [set(np.flatnonzero(row)) for row in truth])
    true_precision = precision(complete, n).mean()
    draws = 3000
    ips, plain = np.empty(draws), np.empty(draws)
    for d in range(draws):
        observed = truth & (rng.random((n_users, n_items)) < p)
        runs = in_order(lists, [set(np.flatnonzero(row)) for row in observed])
        ips[d] = ips_precision(runs, n, p).mean()
        plain[d] = precision(runs, n).mean()
    standard_error = ips.std(ddof=1) / np.sqrt(draws)
    assert abs(ips.mean() - true_precision) < 4 * standard_error
    assert plain.mean() < true_precision - 20 * standard_error  # observed precision is biased down


def test_snips_uses_the_test_set_in_one_relevant_runs() -> None:
    # User 0 has relevant test items 0 (p = 0.5) and 2 (p = 0.25); two 1R runs, item 0 hit, item 2 missed.
    runs = Runs.from_arrays(np.array([0, 3, 6]), [0, 0], np.array([0, 5, 6, 5, 2, 6]),
                            np.array([1, 0, 0, 0, 1, 0], dtype=bool), n_relevant=np.array([1, 1]))
    p = np.array([0.5, 1, 0.25, 1, 1, 1, 1])
    positive = sp.csr_matrix((np.ones(2), ([0, 0], [0, 2])), shape=(1, 7))
    with pytest.raises(ValueError, match="test_positive"):
        ips_recall(runs, 1, p, self_normalised=True)
    values = ips_recall(runs, 1, p, self_normalised=True, test_positive=positive)
    # weights 2 and 4 -> normalised 2/3 and 4/3; run 1 hits, run 2 misses; mean over runs = 1/3 = 2 / (2 + 4)
    np.testing.assert_allclose(values, [2 / 3, 0.0])


def test_snips_recall_is_stratified_recall_with_matching_weights() -> None:
    rng = np.random.default_rng(5)
    lists = [list(rng.permutation(40)[:25]) for _ in range(30)]
    relevant = [set(rng.choice(run, size=6, replace=False)) for run in lists]
    runs = in_order(lists, relevant)
    counts = rng.integers(0, 50, size=40)
    popularity = ItemPopularity(positive_counts=counts + 1, rating_counts=counts + 1, n_users=30)
    # p ∝ (n + 1)^beta is Steck's weight |PR(i)|^(-gamma/(gamma+1)) with |PR(i)| = n + 1, beta = gamma/(gamma+1)
    for gamma in (0.5, 1.0, 3.0):
        beta = gamma / (gamma + 1)
        np.testing.assert_allclose(ips_recall(runs, 10, propensity_from_counts(counts, beta), True),
                                   stratified_recall(runs, 10, popularity, gamma))


def test_grammar_fits_propensities_on_training_counts() -> None:
    train = Ratings.from_codes(np.array([0, 1, 2, 2]), np.array([0, 0, 0, 1]), np.full(4, 5.0), (3, 3),
                               positive_threshold=4, scale=(1, 5), name="t")
    runs = in_order([[2, 1, 0]], [{2, 1}])
    popularity = ItemPopularity.from_ratings(train, train=train)  # training counts 3, 1, 0
    values = compute_metrics(runs, ["IPS-P@2(power=1)", "SNIPS-Recall@1", "IPS-Recall@2(power=0)"], popularity)
    p = np.array([1.0, 0.5, 0.25])
    assert values["IPS-P@2(power=1)"][0] == pytest.approx((4 + 2) / 2)
    assert values["SNIPS-Recall@1"][0] == pytest.approx(np.sqrt(4) / (np.sqrt(4) + np.sqrt(2)))
    assert values["IPS-Recall@2(power=0)"][0] == pytest.approx(1.0)
    assert p[2] == pytest.approx(propensity_from_counts(np.array([3, 1, 0]), 1.0)[2])
    with pytest.raises(ValueError, match="training"):
        compute_metrics(runs, ["IPS-P@2"], ItemPopularity.from_ratings(train))

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
    # shape (n + 1)^0.5 = 1, 2, 4; outside pairs 10, 5, 2 -> sum 10 + 10 + 8 = 28; 7 test ratings -> c = 1/4
    p = propensity_from_counts(np.array([0, 3, 15]), 0.5, np.array([10, 5, 2]), 7)
    np.testing.assert_allclose(p, [0.25, 0.5, 1.0])
    assert np.array([10, 5, 2]) @ p == pytest.approx(7)  # the propensities reproduce the test size
    # missing at random: every item at the test density 7 / 17
    np.testing.assert_allclose(propensity_from_counts(np.array([0, 3, 15]), 0.0, np.array([10, 5, 2]), 7), 7 / 17)
    # the cap: with 14 test ratings the last item would reach 2
    np.testing.assert_allclose(propensity_from_counts(np.array([0, 3, 15]), 0.5, np.array([10, 5, 2]), 14),
                               [0.5, 1.0, 1.0])
    with pytest.raises(ValueError, match="power"):
        propensity_from_counts(np.array([1, 2]), -1.0, np.array([1, 1]), 1)
    with pytest.raises(ValueError, match="counts"):
        propensity_from_counts(np.array([1, -2]), 1.0, np.array([1, 1]), 1)
    with pytest.raises(ValueError, match="outside_pairs"):
        propensity_from_counts(np.array([1, 2]), 1.0, np.array([1]), 1)
    with pytest.raises(ValueError, match="outside the training"):
        propensity_from_counts(np.array([1, 2]), 1.0, np.array([0, 0]), 1)


def test_popularity_propensity_counts_positive_training_ratings_only() -> None:
    train = Ratings.from_codes(np.array([0, 1, 2, 0]), np.array([0, 0, 0, 1]), np.array([5.0, 5.0, 1.0, 5.0]),
                               (3, 3), positive_threshold=4, scale=(1, 5), name="t")
    test = Ratings.from_codes(np.array([1, 2]), np.array([1, 2]), np.array([5.0, 2.0]), (3, 3),
                              positive_threshold=4, scale=(1, 5), name="t")
    # positive counts 2, 1, 0 -> shape 3, 2, 1; outside pairs 0, 2, 3 -> sum 7; 2 test ratings
    np.testing.assert_allclose(popularity_propensity(train, test, 1.0), np.array([3, 2, 1]) * 2 / 7)


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
        p = propensity_from_counts(counts, beta, np.full(40, 100), 50)
        np.testing.assert_allclose(ips_recall(runs, 10, p, True), stratified_recall(runs, 10, popularity, gamma))


def test_grammar_fits_propensities_on_training_counts_and_the_test_size() -> None:
    train = Ratings.from_codes(np.array([0, 1, 2, 2]), np.array([0, 0, 0, 1]), np.full(4, 5.0), (3, 3),
                               positive_threshold=4, scale=(1, 5), name="t")
    test = Ratings.from_codes(np.array([0, 0]), np.array([2, 1]), np.full(2, 5.0), (3, 3),
                              positive_threshold=4, scale=(1, 5), name="t")
    runs = in_order([[2, 1, 0]], [{2, 1}])
    popularity = ItemPopularity.from_ratings(train, test, train=train)
    # training counts 3, 1, 0 -> shape (power 1) 4, 2, 1; outside pairs 0, 2, 3 -> sum 7; 2 test ratings
    p = np.array([4.0, 2.0, 1.0]) * 2 / 7
    values = compute_metrics(runs, ["IPS-P@2(power=1)", "SNIPS-Recall@1", "IPS-Recall@2(power=0)"], popularity)
    assert values["IPS-P@2(power=1)"][0] == pytest.approx((1 / p[2] + 1 / p[1]) / 2)
    assert values["SNIPS-Recall@1"][0] == pytest.approx(np.sqrt(2) / (np.sqrt(2) + np.sqrt(1)))
    assert values["IPS-Recall@2(power=0)"][0] == pytest.approx(1 / (2 / 5))  # p = test density 2 / 5
    with pytest.raises(ValueError, match="training counts and the test"):
        compute_metrics(runs, ["IPS-P@2"], ItemPopularity.from_ratings(train, train=train))


def test_snips_precision_is_a_per_user_rescaling_of_snips_recall() -> None:
    rng = np.random.default_rng(11)
    lists = [list(rng.permutation(30)[: rng.integers(12, 30)]) for _ in range(25)]
    relevant = [set(rng.choice(run, size=rng.integers(1, 10), replace=False)) for run in lists]
    runs = in_order(lists, relevant)
    p = rng.uniform(0.05, 1.0, 30)
    sizes = np.array([len(r) for r in relevant])
    for n in (1, 5, 10):
        np.testing.assert_allclose(ips_precision(runs, n, p, True), sizes / n * ips_recall(runs, n, p, True))
        np.testing.assert_allclose(ips_recall(runs, n, p), n / sizes * ips_precision(runs, n, p))


def item_observation_world(seed: int, theta: np.ndarray, n_users: int = 300, test_share: float = 0.3):
    """Complete relevance with varying prevalence; each pair rated with its item's probability
    ``theta_i`` whatever its relevance, a rated pair held out with probability ``test_share``.

    Returns the observed runs (the positive test items marked), the complete runs (every truly
    relevant candidate marked), the split and the true propensities
    ``P(positive test | relevant, outside training) = s theta / (1 - (1 - s) theta)``.  Each
    user's candidates are her items outside training, in the order of scores that mix
    relevance, popularity and noise and do not depend on the observation.
    """
    rng = np.random.default_rng(seed)
    n_items = len(theta)
    truth = rng.random((n_users, n_items)) < rng.uniform(0.05, 0.4, n_items)
    rated = rng.random((n_users, n_items)) < theta
    held_out = rated & (rng.random((n_users, n_items)) < test_share)
    trained = rated & ~held_out
    scores = truth + 0.5 * np.log(theta) + rng.standard_normal((n_users, n_items))
    lists = [list(np.flatnonzero(~trained[u])[np.argsort(-scores[u, ~trained[u]])]) for u in range(n_users)]
    observed = in_order(lists, [set(np.flatnonzero(held_out[u] & truth[u])) for u in range(n_users)])
    complete = in_order(lists, [set(np.flatnonzero(truth[u])) for u in range(n_users)])
    users, items = np.nonzero(rated)
    values = np.where(truth[users, items], 5.0, 2.0)
    split = [Ratings.from_codes(users[mask], items[mask], values[mask], truth.shape, positive_threshold=4, name="w")
             for mask in (trained[users, items], held_out[users, items])]
    return observed, complete, split, test_share * theta / (1 - (1 - test_share) * theta)


def test_ips_precision_is_unbiased_for_complete_precision_over_worlds() -> None:
    """Popularity-skewed observation, true propensities: over 40 worlds the mean IPS-P@10 (users
    without an observed relevant item count as 0) is within noise of P@10 on complete relevance."""
    theta = 0.5 * np.arange(1, 151) ** -0.6
    gaps, plain, truths = [], [], []
    for seed in range(40):
        observed, complete, _, p = item_observation_world(seed, np.random.default_rng(seed).permutation(theta))
        truths.append(precision(complete, 10).mean())
        gaps.append(ips_precision(observed, 10, p).mean() - truths[-1])
        plain.append(precision(observed, 10).mean())
    gaps = np.array(gaps)
    assert abs(gaps.mean()) < 3 * gaps.std(ddof=1) / np.sqrt(len(gaps))
    assert np.mean(plain) < 0.5 * np.mean(truths)  # control: observed precision is far off


def test_fitted_propensities_take_the_observed_rate_as_their_scale() -> None:
    """Missing completely at random (one theta for every item): the fitted beta = 0 propensity
    is the test density among pairs outside training, the true one, so IPS-P@10 with it is
    unbiased over worlds; the former scale (the most popular item at p = 1, so p = 1 for every
    item here, which is plain precision) was not."""
    gaps, former_gaps, true_p, fitted_p = [], [], [], []
    for seed in range(40):
        observed, complete, (train, test), p = item_observation_world(seed, np.full(150, 0.1))
        fitted = popularity_propensity(train, test, 0.0)
        truth = precision(complete, 10).mean()
        gaps.append(ips_precision(observed, 10, fitted).mean() - truth)
        former_gaps.append(ips_precision(observed, 10, np.ones(150)).mean() - truth)
        true_p.append(p[0])
        fitted_p.append(fitted[0])
    gaps = np.array(gaps)
    assert abs(gaps.mean()) < 3 * gaps.std(ddof=1) / np.sqrt(len(gaps))
    assert np.mean(fitted_p) == pytest.approx(np.mean(true_p), rel=0.01)
    assert np.mean(former_gaps) < -0.5 * truth

"""True quality under any position discount (the behavioural AUC of chapter 7 on complete relevance), by brute force."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import datasets, splits
from recbias.evaluate import true_quality
from recbias.metrics import continuation_probability, position_discount
from recbias.recommenders import make


def test_true_quality_weighs_hits_by_a_discount():
    world = datasets.load("synthetic-small", seed=1, positive_threshold=4)
    train = splits.random_split(world, 0.2, seed=1)[0]
    fitted = {"MF": make("mf", seed=1).fit(train)}
    flat = np.full(10, 0.1)
    discount = position_discount(continuation_probability(0.3, 10), 20, 20)
    truths = true_quality(fitted, train, world.true_relevance, n=10, seed=None,
                          discounts={"flat": flat, "behavioural": discount})
    np.testing.assert_allclose(truths["flat"]["MF"], truths["P@10"]["MF"])
    scores = fitted["MF"].score_users(np.arange(world.n_users))
    rated = train.matrix("binary").toarray() > 0
    scores[rated] = -np.inf
    top = np.argsort(-scores, axis=1, kind="stable")[:, :20]
    hits = np.take_along_axis(world.true_relevance, top, axis=1) & ~np.take_along_axis(rated, top, axis=1)
    np.testing.assert_allclose(truths["behavioural"]["MF"], hits @ discount)


def test_true_quality_reads_any_metric_with_a_cutoff_from_the_top_lists():
    """Recall, the hit rate and AP (divided by the relevant items outside training) against a brute-force ranking
    of every item a user did not rate; a metric without a cutoff cannot be read from a top list."""
    world = datasets.load("synthetic-small", seed=2)
    train = splits.random_split(world, 0.2, seed=2)[0]
    fitted = {"MF": make("mf", seed=2).fit(train)}
    truths = true_quality(fitted, train, world.true_relevance, n=10, seed=None,
                          metrics=["Recall@5", "HR@3", "AP@20", "P@10"])
    scores = fitted["MF"].score_users(np.arange(world.n_users))
    rated = train.matrix("binary").toarray() > 0
    scores[rated] = -np.inf
    top = np.argsort(-scores, axis=1, kind="stable")[:, :20]
    relevant = world.true_relevance & ~rated
    hits = np.take_along_axis(relevant, top, axis=1)
    total = relevant.sum(axis=1)
    recall = np.divide(hits[:, :5].sum(axis=1), total, out=np.zeros(len(total)), where=total > 0)
    precision_at = np.cumsum(hits, axis=1) / np.arange(1, 21)
    ap = np.divide((precision_at * hits).sum(axis=1), total, out=np.zeros(len(total)), where=total > 0)
    np.testing.assert_allclose(truths["Recall@5"]["MF"], recall)
    np.testing.assert_array_equal(truths["HR@3"]["MF"], hits[:, :3].any(axis=1))
    np.testing.assert_allclose(truths["AP@20"]["MF"], ap)
    np.testing.assert_allclose(truths["P@10"]["MF"], hits[:, :10].mean(axis=1))  # the table P@n already has
    with pytest.raises(ValueError, match="needs a cutoff: AP"):
        true_quality(fitted, train, world.true_relevance, metrics=["AP"])

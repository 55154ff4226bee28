"""True quality under any position discount (the behavioural AUC of chapter 7 on complete relevance), by brute force."""

from __future__ import annotations

import numpy as np

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

"""A corrected sampled metric of a fitted system on a split, against the exact expectation of its correction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.evaluate import pool_ranks
from recbias.splits import make_folds
from recbias.recommenders import make
from recbias.sampled import catalogue_bins, corrected_sampled_metric, correction_tables, estimator_moments, metric_vector


@pytest.fixture(scope="module")
def ratings():
    return datasets.load("synthetic-small", seed=1)


def test_corrected_sampled_metric_has_the_exact_expectation(ratings) -> None:
    """The chapter-8 call, averaged over draws of the design, against the exact expectation of the same correction."""
    fold = make_folds(ratings, folds=1, test_ratio=0.2, seed=2)[0]
    model = make("item-knn").fit(fold.train)
    m, threshold = 30, ratings.positive_threshold
    draws = [corrected_sampled_metric({"kNN": model}, fold.train, fold.test, metric="nDCG@10", method="BV 0.1", m=m,
                                      seed=s) for s in range(60)]
    first = draws[0]
    assert list(first.columns) == ["system", "user", "item", "n", "sampled rank", "value"]
    means = np.array([d["value"].mean() for d in draws])
    exact = pool_ranks(model, fold.train, fold.test, threshold=threshold, exclude_other_targets=True, seed=0)
    keep = exact.sizes - 1 >= m
    bins, bin_sizes = catalogue_bins(exact.sizes[keep], 0.05)
    table = correction_tables(["BV 0.1"], ["nDCG@10"], bin_sizes, m, False)[("BV 0.1", "nDCG@10")]
    expected = estimator_moments(table[bins], exact.ranks[keep, 0], exact.sizes[keep], False)
    assert len(first) == keep.sum()
    assert abs(means.mean() - expected.average) <= 4 * expected.average_std / np.sqrt(len(means))


def test_systems_share_one_sample_and_uncorrected_values_read_the_sampled_rank(ratings) -> None:
    fold = make_folds(ratings, folds=1, test_ratio=0.2, seed=2)[0]
    systems = {"kNN": make("item-knn").fit(fold.train), "Popularity": make("popularity").fit(fold.train)}
    m = 30
    plain = corrected_sampled_metric(systems, fold.train, fold.test, metric="nDCG@10", method="sampled", m=m)
    np.testing.assert_allclose(plain["value"], metric_vector("nDCG@10", m + 1)[plain["sampled rank"] - 1])
    by_system = {label: frame.drop(columns=["system", "sampled rank", "value"]).reset_index(drop=True)
                 for label, frame in plain.groupby("system", sort=False)}
    pd.testing.assert_frame_equal(by_system["kNN"], by_system["Popularity"])  # the same runs for both systems
    alone = corrected_sampled_metric({"kNN": systems["kNN"]}, fold.train, fold.test, metric="nDCG@10",
                                     method="sampled", m=m)
    np.testing.assert_array_equal(alone["sampled rank"], plain.loc[plain["system"] == "kNN", "sampled rank"])
    with pytest.raises(ValueError, match="AI' or 'TI"):
        corrected_sampled_metric(systems, fold.train, fold.test, candidates="all")

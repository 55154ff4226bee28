"""Sampled ranking metrics and their corrections (Krichene & Rendle, KDD 2020).

* :mod:`~recbias.sampled.rank_metrics`: metrics of the package's grammar as functions of the rank of one relevant item;
* :mod:`~recbias.sampled.distribution`: the law of the sampled rank given the true rank and the catalogue
  size (one per target allowed), and samples shared by several recommenders;
* :mod:`~recbias.sampled.moments`: exact mean and variance of sampled estimators;
* :mod:`~recbias.sampled.corrections`: rank estimate, least-squares and bias-variance corrections, and
  their tables per catalogue size;
* :mod:`~recbias.sampled.corrected`: a corrected sampled metric of a fitted system on a split.
"""

from recbias.sampled.corrected import CorrectedSample, corrected_sample, corrected_sampled_metric, one_relevant_pool_sizes
from recbias.sampled.corrections import (
    apply_correction,
    bias_variance_correction,
    bias_variance_corrections,
    catalogue_bins,
    check_prior,
    constrained_least_squares_correction,
    correction_objective,
    correction_tables,
    minimal_bias_correction,
    parse_method,
    rank_estimate_correction,
)
from recbias.sampled.distribution import (
    check_setting,
    check_true_ranks,
    sampled_rank_distribution,
    sampled_rank_matrix,
    simulate_common_sampled_ranks,
    simulate_sampled_ranks,
)
from recbias.sampled.moments import (
    SampledMoments,
    estimator_moments,
    expected_sampled_hits,
    sampled_metric_moments,
)
from recbias.sampled.rank_metrics import RANK_FAMILIES, RankMetric, metric_vector, rank_metric

__all__ = [
    "CorrectedSample",
    "corrected_sample",
    "corrected_sampled_metric",
    "one_relevant_pool_sizes",
    "RANK_FAMILIES",
    "RankMetric",
    "SampledMoments",
    "apply_correction",
    "bias_variance_correction",
    "bias_variance_corrections",
    "catalogue_bins",
    "check_prior",
    "check_setting",
    "check_true_ranks",
    "constrained_least_squares_correction",
    "correction_objective",
    "correction_tables",
    "estimator_moments",
    "expected_sampled_hits",
    "metric_vector",
    "minimal_bias_correction",
    "parse_method",
    "rank_estimate_correction",
    "rank_metric",
    "sampled_metric_moments",
    "sampled_rank_distribution",
    "sampled_rank_matrix",
    "simulate_common_sampled_ranks",
    "simulate_sampled_ranks",
]

"""Sampled ranking metrics and their corrections (Krichene & Rendle, KDD 2020).

* :mod:`~recbias.sampled.rank_metrics`: metrics as functions of the rank of one relevant item;
* :mod:`~recbias.sampled.distribution`: the law of the sampled rank given the true rank;
* :mod:`~recbias.sampled.moments`: exact mean and variance of sampled estimators;
* :mod:`~recbias.sampled.corrections`: rank estimate, least-squares and bias-variance corrections.
"""

from recbias.sampled.corrections import (
    apply_correction,
    bias_variance_correction,
    check_prior,
    constrained_least_squares_correction,
    correction_objective,
    minimal_bias_correction,
    rank_estimate_correction,
)
from recbias.sampled.distribution import (
    check_setting,
    check_true_ranks,
    sampled_rank_distribution,
    sampled_rank_matrix,
    simulate_sampled_ranks,
)
from recbias.sampled.moments import SampledMoments, estimator_moments, sampled_metric_moments
from recbias.sampled.rank_metrics import RankMetric, metric_vector, parse_metric

__all__ = [
    "RankMetric",
    "SampledMoments",
    "apply_correction",
    "bias_variance_correction",
    "check_prior",
    "check_setting",
    "check_true_ranks",
    "constrained_least_squares_correction",
    "correction_objective",
    "estimator_moments",
    "metric_vector",
    "minimal_bias_correction",
    "parse_metric",
    "rank_estimate_correction",
    "sampled_metric_moments",
    "sampled_rank_distribution",
    "sampled_rank_matrix",
    "simulate_sampled_ranks",
]

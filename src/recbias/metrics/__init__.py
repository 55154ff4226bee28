"""Ranking metrics computed from runs in rank order, vectorised over all runs at once.

Per-run metrics return one ``float64`` value per run; the catalogue metrics
return one number per system.  See :mod:`recbias.metrics.accuracy` for the
conventions (denominators, empty runs, cutoffs) shared by all of them.
"""

from recbias.metrics.accuracy import (
    auc,
    average_precision,
    f1,
    hit_rate,
    ndcg,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
)
from recbias.metrics.discounted_auc import attention_weights, continuation_probability, discounted_auc, position_discount, short_head
from recbias.metrics.catalogue import catalogue_coverage, gini_index, recommendation_counts
from recbias.metrics.incomplete import TREC_EVAL_INFAP_EPSILON, bpref, infap
from recbias.metrics.ips import ips_precision, ips_recall
from recbias.metrics.popularity import ItemPopularity, novelty, stratified_recall
from recbias.metrics.propensity import popularity_propensity, propensity_from_counts
from recbias.metrics.spec import MetricSpec, compute_metrics, parse_metric, valid_metric_names

__all__ = [
    "TREC_EVAL_INFAP_EPSILON",
    "ItemPopularity",
    "MetricSpec",
    "auc",
    "attention_weights",
    "average_precision",
    "bpref",
    "catalogue_coverage",
    "compute_metrics",
    "continuation_probability",
    "discounted_auc",
    "f1",
    "gini_index",
    "hit_rate",
    "infap",
    "ips_precision",
    "ips_recall",
    "ndcg",
    "novelty",
    "parse_metric",
    "popularity_propensity",
    "position_discount",
    "precision",
    "propensity_from_counts",
    "r_precision",
    "recall",
    "recommendation_counts",
    "reciprocal_rank",
    "short_head",
    "stratified_recall",
    "valid_metric_names",
]

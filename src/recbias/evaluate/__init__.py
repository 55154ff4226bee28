"""Scores of candidates -> ranks -> per-run metric tables -> summaries with confidence intervals and paired tests.

Also the exact full-catalogue ranks of test items, computed in user chunks, quality under a
simulated world's complete relevance, and the agreement of orders of systems.
"""

from recbias.evaluate.complete import true_quality
from recbias.evaluate.full_catalogue import full_catalogue_ranks
from recbias.evaluate.orderings import discordant_pairs, kendall_tau, order_agreement
from recbias.evaluate.per_run import DEFAULT_METRICS, evaluate_runs
from recbias.evaluate.ranking import TIE_POLICIES, rank_positions, rank_runs
from recbias.evaluate.scoring import SCORE_BLOCK, Candidates, score_runs
from recbias.evaluate.statistics import (
    UserBootstrap,
    averaging_units,
    compare,
    mean_confidence_interval,
    metric_columns,
    paired_tests,
    percentile_interval,
    summarize,
)

__all__ = [
    "DEFAULT_METRICS",
    "SCORE_BLOCK",
    "Candidates",
    "TIE_POLICIES",
    "UserBootstrap",
    "averaging_units",
    "compare",
    "discordant_pairs",
    "evaluate_runs",
    "full_catalogue_ranks",
    "kendall_tau",
    "mean_confidence_interval",
    "metric_columns",
    "order_agreement",
    "paired_tests",
    "percentile_interval",
    "rank_positions",
    "rank_runs",
    "score_runs",
    "summarize",
    "true_quality",
]

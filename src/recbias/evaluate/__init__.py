"""Scores of candidates -> ranks -> per-run metric tables -> summaries with confidence intervals and paired tests.

Also the exact ranks of held-out items among their pools (the full catalogue, or the
candidates of a 1R design), computed in user chunks, quality under a simulated world's
complete relevance, and the agreement of orders of systems.
"""

from recbias.evaluate.complete import true_quality
from recbias.evaluate.orderings import discordant_pairs, kendall_tau, order_agreement
from recbias.evaluate.pools import PoolRanks, pool_ranks, relevant_ranks
from recbias.evaluate.per_run import DEFAULT_METRICS, evaluate_runs
from recbias.evaluate.ranking import TIE_POLICIES, rank_positions, rank_runs
from recbias.evaluate.scoring import SCORE_BLOCK, Candidates, score_runs
from recbias.evaluate.statistics import (
    UserBootstrap,
    averaging_units,
    bootstrap_counts,
    compare,
    mean_confidence_interval,
    metric_columns,
    paired_tests,
    percentile_interval,
    resampled_pvalue,
    summarize,
)

__all__ = [
    "DEFAULT_METRICS",
    "PoolRanks",
    "SCORE_BLOCK",
    "Candidates",
    "TIE_POLICIES",
    "UserBootstrap",
    "averaging_units",
    "bootstrap_counts",
    "compare",
    "discordant_pairs",
    "evaluate_runs",
    "kendall_tau",
    "mean_confidence_interval",
    "metric_columns",
    "order_agreement",
    "paired_tests",
    "percentile_interval",
    "pool_ranks",
    "rank_positions",
    "rank_runs",
    "relevant_ranks",
    "resampled_pvalue",
    "score_runs",
    "summarize",
    "true_quality",
]

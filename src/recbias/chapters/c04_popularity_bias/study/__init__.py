"""What chapter 4 computes: popularity against other fixed orderings (:mod:`.orderings`), the
preference-free worlds of growing skew (:mod:`.skew`), the share of positive ratings along the
popularity ranking (:mod:`.ratio`), and measured against true precision and per-user precision by
how mainstream a user is (:mod:`.truth`); :mod:`.setup` holds what they share."""

from recbias.chapters.c04_popularity_bias.study.orderings import ordering_study
from recbias.chapters.c04_popularity_bias.study.ratio import positive_ratio_curves, ratio_trends, real_datasets
from recbias.chapters.c04_popularity_bias.study.setup import PERSONALISED
from recbias.chapters.c04_popularity_bias.study.skew import (EXACT, IN_EXPECTATION, SWEEP_METRICS, SkewSweep,
                                                             skew_sweep, sweep_systems)
from recbias.chapters.c04_popularity_bias.study.truth import mainstream_study, observation_grid

__all__ = ["EXACT", "IN_EXPECTATION", "PERSONALISED", "SWEEP_METRICS", "SkewSweep", "mainstream_study",
           "observation_grid", "ordering_study", "positive_ratio_curves", "ratio_trends", "real_datasets",
           "skew_sweep", "sweep_systems"]

"""What chapter 4 computes: :mod:`.orderings`, :mod:`.skew` (the preference-free sweep), :mod:`.ratio` (positive
ratings along popularity), :mod:`.truth` (measured against true precision, and by user); :mod:`.setup` is shared."""

from recbias.chapters.c04_popularity_bias.study.orderings import ordering_study
from recbias.chapters.c04_popularity_bias.study.ratio import positive_ratio_curves, ratio_trends, real_datasets
from recbias.chapters.c04_popularity_bias.study.setup import PERSONALISED
from recbias.chapters.c04_popularity_bias.study.skew import (EXACT, IN_EXPECTATION, SWEEP_METRICS, SkewSweep,
                                                             skew_sweep, sweep_systems)
from recbias.chapters.c04_popularity_bias.study.truth import ObservationGrid, mainstream_study, observation_grid

__all__ = ["EXACT", "IN_EXPECTATION", "PERSONALISED", "SWEEP_METRICS", "ObservationGrid", "SkewSweep",
           "mainstream_study", "observation_grid", "ordering_study", "positive_ratio_curves", "ratio_trends",
           "real_datasets", "skew_sweep", "sweep_systems"]

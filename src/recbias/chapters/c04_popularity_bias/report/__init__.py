"""What chapter 4 shows besides its figures: display tables (:mod:`.tables`) and the phrases its
prose glues in (:mod:`.phrases`)."""

from recbias.chapters.c04_popularity_bias.report.phrases import (
    bounds_phrases,
    grid_phrases,
    mainstream_phrases,
    orderings_phrases,
    ratio_phrases,
    sweep_phrases,
    uniform_phrases,
)
from recbias.chapters.c04_popularity_bias.report.tables import (
    grid_table,
    metrics_table,
    orderings_bounds_table,
    ratio_table,
    sweep_settings_table,
    sweep_table,
    uniform_table,
    worlds_table,
)

__all__ = [
    "bounds_phrases",
    "grid_phrases",
    "grid_table",
    "mainstream_phrases",
    "metrics_table",
    "orderings_bounds_table",
    "orderings_phrases",
    "ratio_phrases",
    "ratio_table",
    "sweep_phrases",
    "sweep_settings_table",
    "sweep_table",
    "uniform_phrases",
    "uniform_table",
    "worlds_table",
]

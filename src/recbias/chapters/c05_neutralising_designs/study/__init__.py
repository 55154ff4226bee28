"""Chapter 5's computation: the uniform split and the data of the papers' Figs. 6 and 7 (:mod:`.plan`),
the designs of their Figs. 8 and 9 and the experiments that measure them on the papers' set of systems
and today's top-N learners (:mod:`.designs`), popularity's advantage predicted from IRJ 2017 Eq. 3
(:mod:`.residual`), the popularity index (:mod:`.index`), the resamples of users behind the chapter's
verdicts (:mod:`.noise`) and one dataset's study (:mod:`.dataset`)."""

from recbias.chapters.c05_neutralising_designs.study.dataset import (
    AVAILABLE,
    positive_only,
    second_status,
    study_dataset,
    study_datasets,
)
from recbias.chapters.c05_neutralising_designs.study.designs import (
    FIG8,
    GAMMAS,
    NEUTRALISING,
    PAPERS,
    PAPERS_SET,
    PERSONALISED,
    POWERS,
    SYSTEMS,
    TOP_N,
    TOP_N_LEARNERS,
    DatasetStudy,
    bpref_below_one,
    design_summary,
    fig8_summary,
    one_relevant_size,
    p1r_left_out,
)
from recbias.chapters.c05_neutralising_designs.study.index import (
    FAMILIES,
    FIG9,
    INDEX_ROWS,
    index_of,
    index_table,
    popularity_index,
    sweep_index,
    sweep_table,
)
from recbias.chapters.c05_neutralising_designs.study.noise import index_draws, lead_draws, mean_draws
from recbias.chapters.c05_neutralising_designs.study.plan import (
    UniformPlan,
    positive_ratio_curve,
    split_profiles,
    uniform_plan,
)
from recbias.chapters.c05_neutralising_designs.study.residual import lift_prediction, residual_lift

__all__ = ["AVAILABLE", "FAMILIES", "FIG8", "FIG9", "GAMMAS", "INDEX_ROWS", "NEUTRALISING", "PAPERS", "PAPERS_SET",
           "PERSONALISED", "POWERS", "SYSTEMS", "TOP_N", "TOP_N_LEARNERS", "DatasetStudy", "UniformPlan", "bpref_below_one",
           "design_summary", "fig8_summary", "index_draws", "index_of", "index_table", "lead_draws", "lift_prediction",
           "mean_draws", "one_relevant_size", "p1r_left_out", "popularity_index", "positive_only",
           "positive_ratio_curve", "residual_lift", "second_status", "split_profiles", "study_dataset",
           "study_datasets", "sweep_index", "sweep_table", "uniform_plan"]

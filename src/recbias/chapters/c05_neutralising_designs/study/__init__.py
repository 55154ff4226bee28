"""Chapter 5's computation: the uniform split and the data of the papers' Figs. 6 and 7 (:mod:`.plan`), the
designs of their Figs. 8 and 9 and the experiments that measure them (:mod:`.designs`), popularity's advantage
predicted from IRJ 2017 Eq. 3 (:mod:`.residual`), the popularity index and its resamples of users behind the
chapter's verdicts (:mod:`.index`) and one dataset's study (:mod:`.dataset`)."""

from recbias.chapters.c05_neutralising_designs.study.dataset import (
    AVAILABLE, positive_only, second_status, study_dataset,
)
from recbias.chapters.c05_neutralising_designs.study.designs import (
    FIG8, GAMMAS, PAPERS, PAPERS_SET, PERSONALISED, POWERS, SYSTEMS, TOP_N, TOP_N_LEARNERS, DatasetStudy,
    UNCAPPED_BPREF, bpref_below_one, bpref_caps, design_summary, fig8_summary, one_relevant_size, p1r_left_out,
)
from recbias.chapters.c05_neutralising_designs.study.index import (
    FAMILIES, FIG9, INDEX_ROWS, index_draws, lead_draws, mean_draws, popularity_index, sweep_index,
)
from recbias.chapters.c05_neutralising_designs.study.plan import (
    UniformPlan, positive_ratio_curve, split_profiles, uniform_plan,
)
from recbias.chapters.c05_neutralising_designs.study.residual import lift_prediction

"""Chapter 7's computations (no figures, no sentences), one module per part of the page:

``setting``
    the metric's settings (:class:`Setting`), the positive threshold (:func:`judged_at`), the audience
    segmentations a dataset offers (:func:`segmentations`);
``scored``
    the chapter-2 systems on one split, scored once (:func:`system_study`);
``attention``
    the attention model ``w_N`` and the position discount ``d_k`` it implies;
``systems``
    the four cases of the paper's Section 2, the sweep over ``Q``, the systems with and without the step;
``short_head``
    segment lists and the search for the step (Eq. 10-15);
``new_users``
    recommendations for new users (the paper's Fig. 4);
``truth``
    agreement with the truth of a simulated world.

Each optional part returns None where the dataset lacks what it needs (user attributes, users with
enough ratings, complete relevance).
"""

from recbias.chapters.c07_discounted_auc.study.attention import attention_curves, attention_summary, discount_curves
from recbias.chapters.c07_discounted_auc.study.new_users import NewUserStudy, new_user_study, system_presets
from recbias.chapters.c07_discounted_auc.study.scored import PAPERS_SET, SYSTEMS, SystemStudy, system_study
from recbias.chapters.c07_discounted_auc.study.setting import MIN_TEST, Setting, judged_at, segmentations
from recbias.chapters.c07_discounted_auc.study.short_head import SensitivitySearch, chosen_step, head_shares
from recbias.chapters.c07_discounted_auc.study.short_head import sensitivity_search, summary
from recbias.chapters.c07_discounted_auc.study.systems import four_cases, mishit_effect, mishits_per_hit, order_runs
from recbias.chapters.c07_discounted_auc.study.systems import q_sweep, ranking_means
from recbias.chapters.c07_discounted_auc.study.truth import truth_agreement

"""Chapter 7's computations (no figures, no sentences), one module per part of the page: ``setting``,
``scored`` (the systems on one split, scored once), ``attention``, ``systems`` (the four cases, the sweep
over ``Q``, the ranking), ``short_head``, ``new_users`` and ``truth``. Each optional part returns None
where the dataset lacks what it needs (user attributes, users with enough ratings, complete relevance)."""

from recbias.chapters.c07_discounted_auc.study.attention import attention_curves, attention_summary, discount_curves
from recbias.chapters.c07_discounted_auc.study.new_users import NewUserStudy, new_user_study, system_presets
from recbias.chapters.c07_discounted_auc.study.scored import PAPERS_SET, SYSTEMS, SystemStudy, system_study
from recbias.chapters.c07_discounted_auc.study.setting import MIN_TEST, Setting, judged_at, segmentations
from recbias.chapters.c07_discounted_auc.study.short_head import SensitivitySearch
from recbias.chapters.c07_discounted_auc.study.short_head import sensitivity_search, summary
from recbias.chapters.c07_discounted_auc.study.systems import four_cases, mishit_effect, mishits_per_hit, order_runs
from recbias.chapters.c07_discounted_auc.study.systems import head_shares, q_sweep, ranking_means
from recbias.chapters.c07_discounted_auc.study.truth import truth_agreement

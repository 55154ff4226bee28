"""Recommenders used by the papers and by today's practice, behind one small interface.

Two sets: the papers' set (IRJ 2017, Section 3.3), whose MF and user-kNN predict
rating values and rank by the prediction (:class:`RatingMF`, :class:`RatingUserKNN`,
beside Random, Popularity and pLSA), and today's top-N set, which learns which
items get rated (implicit :class:`ALS`, :class:`IALS`, the unnormalised
:class:`UserKNN` and the item-kNNs).

Every recommender is fitted with ``fit(train)`` and scores any ``(user, item)``
pairs of the training code space (higher is better).  Users without training
ratings get the neutral score 0 for every item from the personalised models;
the non-personalised baselines score them like anybody else.  ``make(name)``
builds one from a named preset; :mod:`recbias.recommenders.sets` names the two sets.
"""

from recbias.recommenders.als import ALS, IALS, hkv_from_krichene_rendle
from recbias.recommenders.base import Recommender
from recbias.recommenders.baselines import HeldOutPopularity, MeanRating, Popularity, Random
from recbias.recommenders.blend import BaseRanks, PopularityBlend, percentile_ranks
from recbias.recommenders.factory import PRESETS, make
from recbias.recommenders.knn import ItemKNN, UserKNN, cosine_neighbours
from recbias.recommenders.plsa import PLSA
from recbias.recommenders.rating_knn import RatingUserKNN
from recbias.recommenders.rating_mf import RatingMF
from recbias.recommenders.segments import SegmentPopularity, attribute_levels
from recbias.recommenders.sets import (
    PAPERS_PERSONALISED,
    PAPERS_SET,
    RATING_PREDICTORS,
    SUPPORTED_KNN,
    TOP_N_LEARNERS,
    TOP_N_SET,
)

__all__ = [
    "ALS",
    "BaseRanks",
    "IALS",
    "HeldOutPopularity",
    "PAPERS_PERSONALISED",
    "PAPERS_SET",
    "PLSA",
    "PRESETS",
    "RATING_PREDICTORS",
    "ItemKNN",
    "MeanRating",
    "Popularity",
    "PopularityBlend",
    "Random",
    "RatingMF",
    "RatingUserKNN",
    "Recommender",
    "SUPPORTED_KNN",
    "SegmentPopularity",
    "TOP_N_LEARNERS",
    "TOP_N_SET",
    "UserKNN",
    "attribute_levels",
    "cosine_neighbours",
    "hkv_from_krichene_rendle",
    "make",
    "percentile_ranks",
]

"""Build recommenders by name, with the presets the chapters use."""

from __future__ import annotations

import inspect
from typing import Any

from recbias.recommenders.als import ALS, IALS
from recbias.recommenders.base import Recommender
from recbias.recommenders.baselines import Popularity, Random
from recbias.recommenders.knn import ItemKNN, UserKNN
from recbias.recommenders.plsa import PLSA
from recbias.recommenders.rating_knn import RatingUserKNN
from recbias.recommenders.rating_mf import RatingMF

#: name -> (class, display name, preset parameters); explicit parameters override the preset.
#: The papers' set (IRJ 2017, Section 3.3) is random, popularity, plsa, rating-mf and
#: rating-user-knn, whose MF and kNN predict ratings; mf (implicit ALS), ials-x, user-knn and
#: the item-kNNs are today's top-N set, which learn which items get rated.  rating-user-knn-min2 is
#: the papers' kNN predicting an item only from two neighbours or more (LensKit's minimum of neighbours).
PRESETS: dict[str, tuple[type[Recommender], str, dict[str, Any]]] = {
    "random": (Random, "Random", {}),
    "popularity": (Popularity, "Popularity", {}),
    "plsa": (PLSA, "pLSA", {}),
    "mf": (ALS, "implicit MF (top-N)", {}),
    "ials-x": (IALS, "X (iALS)", {"factors": 16, "regularization": 10.0, "alpha": 0.2}),
    "user-knn": (UserKNN, "user-kNN (top-N)", {}),
    "item-knn": (ItemKNN, "item-kNN", {}),
    "item-knn-y": (ItemKNN, "Y (item-kNN)", {"q": 3.0, "k": None, "k_prime": None}),
    "item-knn-z": (ItemKNN, "Z (item-kNN)", {"q": 1.0, "k": None, "k_prime": 10}),
    "rating-mf": (RatingMF, "rating-MF", {}),
    "rating-user-knn": (RatingUserKNN, "rating-kNN", {}),
    "rating-user-knn-min2": (RatingUserKNN, "rating-kNN (min. 2 neighbours)", {"min_support": 2}),
}


def parameter_names(cls: type[Recommender]) -> list[str]:
    """Constructor parameters of a recommender class, in signature order."""
    return [name for name in inspect.signature(cls.__init__).parameters if name != "self"]


def make(name: str, **params: Any) -> Recommender:
    """An unfitted recommender from the preset ``name``, with ``params`` overriding it.

    The recommender's ``name`` becomes the preset's display name (e.g. ``"X (iALS)"``).
    Unknown names and parameters raise ``ValueError`` listing the valid ones.
    """
    if name not in PRESETS:
        raise ValueError(f"unknown recommender {name!r}; choose one of {', '.join(PRESETS)}")
    cls, display_name, preset = PRESETS[name]
    valid = parameter_names(cls)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"recommender {name!r} has no parameter {', '.join(unknown)}; valid: {', '.join(valid)}")
    recommender = cls(**{**preset, **params})
    recommender.name = display_name
    return recommender

"""The two sets of systems the book measures side by side, label -> preset of :func:`recbias.recommenders.make`.

* **The papers' set** (IRJ 2017 Sec. 3.3): random and popularity recommendation, pLSA (Hofmann 2004),
  and a matrix factorisation (Koren, Bell and Volinsky 2009) and a user-based kNN (Cremonesi et al.
  2010) that *predict rating values* and rank items by the prediction.  Every statement of the papers
  is checked with this set.
* **Today's top-N learners**: implicit ALS (Hu, Koren and Volinsky 2008) and a user-kNN that adds up its
  neighbours' ratings without normalising.  Both learn *which* items get rated, so they take the place
  of the rating predictors in :data:`TOP_N_SET`, where the book asks whether a statement carries over.

Beside the papers' kNN, never in its place, :data:`SUPPORTED_KNN` names its variant that predicts an item
only from two neighbours or more.  Labels are the same on every page, and so are the colours (:data:`recbias.bookkit.plotting.RECOMMENDER_COLOURS`).
"""

from __future__ import annotations

__all__ = ["PAPERS_SET", "PAPERS_PERSONALISED", "RATING_PREDICTORS", "SUPPORTED_KNN", "TOP_N_LEARNERS", "TOP_N_SET"]

#: the papers' five systems (IRJ 2017 Sec. 3.3), in the order of the book's tables
PAPERS_SET: dict[str, str] = {
    "Popularity": "popularity",
    "pLSA": "plsa",
    "rating-MF": "rating-mf",
    "rating-kNN": "rating-user-knn",
    "Random": "random",
}
#: the papers' MF and kNN, which predict rating values
RATING_PREDICTORS: tuple[str, ...] = ("rating-MF", "rating-kNN")
#: the papers' kNN with a minimum of two neighbours per item (``min_support``), shown beside the papers' set
SUPPORTED_KNN: dict[str, str] = {"rating-kNN (min. 2 neighbours)": "rating-user-knn-min2"}
#: the personalised systems of the papers' set
PAPERS_PERSONALISED: tuple[str, ...] = ("pLSA", *RATING_PREDICTORS)
#: today's top-N learners, which learn which items get rated
TOP_N_LEARNERS: dict[str, str] = {"implicit MF (top-N)": "mf", "user-kNN (top-N)": "user-knn"}
#: the papers' set with today's top-N learners in place of its rating predictors
TOP_N_SET: dict[str, str] = {
    "Popularity": "popularity",
    "pLSA": "plsa",
    **TOP_N_LEARNERS,
    "Random": "random",
}

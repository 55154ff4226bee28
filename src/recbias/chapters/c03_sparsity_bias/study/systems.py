"""The systems of chapter 3: the papers' set, the one every statement of IRJ 2017 Sec. 4 is checked with.

IRJ 2017 Sec. 3.3 compares random and popularity recommendation, pLSA, and a matrix factorisation
and a user-based kNN that *predict ratings* and rank items by the predicted rating (Koren, Bell and
Volinsky 2009; Cremonesi et al. 2010).  The book's shared runner
(:data:`recbias.evaluate.experiment.PAPER_SYSTEMS`) holds today's top-N MF and kNN instead, so the
chapter names its own set: display label -> :func:`recbias.recommenders.make` preset.
"""

from __future__ import annotations

#: the papers' set (IRJ 2017 Sec. 3.3), display label -> preset
PAPERS_SET: dict[str, str] = {
    "Popularity": "popularity",
    "pLSA": "plsa",
    "rating-MF": "rating-mf",
    "rating-kNN": "rating-user-knn",
    "Random": "random",
}

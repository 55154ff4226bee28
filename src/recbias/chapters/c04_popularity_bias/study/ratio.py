"""The share of positive ratings along the popularity ranking of every real dataset (IRJ 2017 Fig. 7)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from recbias import datasets, judgments
from recbias.bookkit.claims import LEVEL
from recbias.ratings import Ratings

#: the direction of the share of positive ratings along popularity, from the rank correlation
GROWS, FALLS, NO_TREND = "grows", "falls", "no trend"


def real_datasets(here: Ratings) -> list[Ratings]:
    """``here`` and every other registered real dataset available on this machine (simulated presets left out)."""
    return [here, *(datasets.load(n) for n in datasets.available_real(besides=here.name))]


def positive_ratio_curves(collections: Sequence[Ratings], segments: int = 100) -> pd.DataFrame:
    """IRJ 2017 Fig. 7 per ``dataset``: ``|PR(i)| / |R(i)|`` over ``segments`` popularity segments, with ``spearman``
    and ``p`` of the rank correlation of segment (1: most popular) and ratio: negative when it grows with popularity."""
    tables = []
    for ratings in collections:
        curve = judgments.positive_ratio_by_popularity(ratings, segments)
        constant = curve["positive_ratio"].nunique() == 1  # e.g. every rating positive
        rho, p = (0.0, 1.0) if constant else stats.spearmanr(curve["segment"], curve["positive_ratio"])
        tables.append(curve.assign(dataset=ratings.name, spearman=float(rho), p=float(p)))
    return pd.concat(tables, ignore_index=True)


def ratio_trends(curves: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: the ratio on the most and least popular tenth of the segments, the rank correlation and its
    ``trend`` (:data:`GROWS`, :data:`FALLS`, or :data:`NO_TREND` when ``p`` is not below the book's level)."""
    rows = []
    for name, curve in curves.groupby("dataset", sort=False):
        tenth = max(1, len(curve) // 10)
        rows.append({"dataset": name, "head ratio": curve["positive_ratio"].iloc[:tenth].mean(),
                     "tail ratio": curve["positive_ratio"].iloc[-tenth:].mean(),
                     "Spearman (segment, ratio)": curve["spearman"].iloc[0], "p": curve["p"].iloc[0]})
    trends = pd.DataFrame(rows)
    trends["trend"] = np.select([trends["p"] >= LEVEL, trends["Spearman (segment, ratio)"] < 0],
                                [NO_TREND, GROWS], FALLS)
    return trends

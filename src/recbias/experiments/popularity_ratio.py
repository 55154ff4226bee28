"""Chapter 4 ("The popularity bias"): the share of positive ratings along the popularity ranking (IRJ 2017 Fig. 7).

``|PR(i)| / |R(i)|`` over 100 popularity segments of every real dataset available
(:func:`positive_ratio_curves`), its trend from the most to the least popular items
(:func:`ratio_trends`), and the page's sentences and figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
from scipy import stats

from recbias import datasets, judgments
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS
from recbias.text import fmt_pct

def real_datasets(here: Ratings) -> list[Ratings]:
    """``here`` and every other registered real dataset available on this machine (simulated presets left out)."""
    others = [n for n in datasets.names() if n not in PRESETS and n != here.name and datasets.available(n)]
    return [here, *(datasets.load(n) for n in others)]


def positive_ratio_curves(collections: Sequence[Ratings], segments: int = 100) -> pd.DataFrame:
    """IRJ 2017 Fig. 7 for each dataset: ``|PR(i)| / |R(i)|`` over ``segments`` popularity segments.

    Adds ``dataset``, and per dataset ``spearman`` and ``p`` of the rank correlation between
    popularity (segment 1 = most popular) and the ratio over the segments: negative when the
    ratio grows with popularity.
    """
    tables = []
    for ratings in collections:
        curve = judgments.positive_ratio_by_popularity(ratings, segments)
        constant = curve["positive_ratio"].nunique() == 1  # e.g. every rating positive
        rho, p = (0.0, 1.0) if constant else stats.spearmanr(curve["segment"], curve["positive_ratio"])
        tables.append(curve.assign(dataset=ratings.name, spearman=float(rho), p=float(p)))
    return pd.concat(tables, ignore_index=True)


def ratio_trends(curves: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: the ratio on the most and least popular tenth of the segments, and the rank correlation."""
    rows = []
    for name, curve in curves.groupby("dataset", sort=False):
        tenth = max(1, len(curve) // 10)
        rows.append({"dataset": name, "head ratio": curve["positive_ratio"].iloc[:tenth].mean(),
                     "tail ratio": curve["positive_ratio"].iloc[-tenth:].mean(),
                     "Spearman (segment, ratio)": curve["spearman"].iloc[0], "p": curve["p"].iloc[0]})
    return pd.DataFrame(rows)


def ratio_text(curves: pd.DataFrame, here: str) -> str:
    """Head and tail positive ratio of every dataset of the figure."""
    trends = ratio_trends(curves)
    parts = []
    for _, row in trends.iterrows():
        direction = ("grows with popularity" if row["Spearman (segment, ratio)"] < 0 and row["p"] < 0.05 else
                     "falls with popularity" if row["Spearman (segment, ratio)"] > 0 and row["p"] < 0.05 else
                     "shows no clear trend")
        mark = " (this page)" if row["dataset"] == here else ""
        parts.append(f"on `{row['dataset']}`{mark} the share of positive ratings {direction}, from "
                     f"{fmt_pct(row['tail ratio'])} on the least popular tenth of items to "
                     f"{fmt_pct(row['head ratio'])} "
                     f"on the most popular tenth")
    return "Read from right to left, " + "; ".join(parts) + "."


def ratio_figure(curves: pd.DataFrame, colours: Mapping[str, str], here: str):
    """IRJ 2017 Fig. 7 on every dataset: positive ratio against popularity rank, 100 segments."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for name, curve in curves.groupby("dataset", sort=False):
        ax.plot(curve["rank_share"], curve["positive_ratio"], color=colours[name], lw=2.6 if name == here else 1.4,
                label=f"{name} (this page)" if name == here else name)
    ax.set(xlabel="items by popularity rank, most rated first (share, 100 segments)",
           ylabel=r"$|PR(i)| \,/\, |R(i)|$", xlim=(0, 1), ylim=(0, 1.02))
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    return fig

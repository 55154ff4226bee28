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
from recbias.text import fmt_number, fmt_pct

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


def _trend(row: pd.Series) -> str:
    """Direction of the ratio along popularity, from the rank correlation of a :func:`ratio_trends` row."""
    if row["p"] >= 0.05:
        return "shows no clear trend"
    return "grows with popularity" if row["Spearman (segment, ratio)"] < 0 else "falls with popularity"


def ratio_table(curves: pd.DataFrame, here: str) -> pd.DataFrame:
    """Per dataset: the positive ratio on the least and the most popular tenth of items, Spearman's rank
    correlation between popularity rank and ratio, and the direction it gives."""
    trends = ratio_trends(curves)
    return pd.DataFrame({
        "dataset": [f"{d} (this page)" if d == here else d for d in trends["dataset"]],
        "least popular tenth": trends["tail ratio"].map(lambda v: fmt_pct(v)),
        "most popular tenth": trends["head ratio"].map(lambda v: fmt_pct(v)),
        "Spearman": trends["Spearman (segment, ratio)"].map(lambda v: fmt_number(v, 2)),
        "trend": [_trend(row) for _, row in trends.iterrows()],
    })


def ratio_text(curves: pd.DataFrame, here: str) -> str:
    """Where the share of positive ratings grows with popularity, where not, and on this page's dataset."""
    trends = ratio_trends(curves).set_index("dataset")
    groups: dict[str, list[str]] = {}
    for name, row in trends.iterrows():
        groups.setdefault(_trend(row), []).append(f"`{name}`")

    def listed(names: list[str]) -> str:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    parts = [f"{trend} on {listed(names)}" for trend, names in groups.items()]
    own = trends.loc[here]
    return (f"Read from right to left, the share of positive ratings {'; it '.join(parts)}. On `{here}` it goes "
            f"from {fmt_pct(own['tail ratio'])} on the least popular tenth of items to {fmt_pct(own['head ratio'])} "
            "on the most popular tenth.")


def ratio_figure(curves: pd.DataFrame, colours: Mapping[str, str], here: str):
    """IRJ 2017 Fig. 7 on every dataset: positive ratio against popularity rank, 100 segments."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    for name, curve in curves.groupby("dataset", sort=False):
        ax.plot(curve["rank_share"], curve["positive_ratio"], color=colours[name], lw=2.8 if name == here else 1.4,
                label=f"{name} (this page)" if name == here else name, zorder=3 if name == here else 2)
    ax.set(xlabel="items by popularity rank, most rated first", ylabel=r"$|PR(i)| \,/\, |R(i)|$", xlim=(0, 1),
           ylim=(0, 1.02))
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=3, handletextpad=0.4, columnspacing=1.2)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig

"""Chapter 6 ("Sampled metrics and their corrections"): the published numbers of Krichene and Rendle (KDD 2020).

Tables 1-4 of the paper are data (``published/sampled.csv``, one row per printed value);
:func:`published` reads them and :func:`paper_value` / :func:`paper_rows` look values up, for
the chapter's tables that set ours next to the paper's and for the scorecard.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd


PAPER_DATASET = "ml-1m"


def published() -> pd.DataFrame:
    """The published numbers of Tables 1-4 (``published/sampled.csv``), one row each."""
    with resources.files("recbias.experiments").joinpath("published/sampled.csv").open() as handle:
        return pd.read_csv(handle, comment="#", keep_default_na=False)


def paper_rows(table: int, **where: str) -> pd.DataFrame:
    rows = published()
    rows = rows[rows["table"] == table]
    for column, value in where.items():
        rows = rows[rows[column] == value]
    return rows


def paper_value(table: int, **where: str) -> float:
    rows = paper_rows(table, **where)
    if len(rows) != 1:
        raise KeyError(f"table {table}: {len(rows)} published values for {where}")
    return float(rows["value"].iloc[0])


def published_auc_gap(recommender: str = "Z") -> str:
    """Mean sampled AUC minus exact AUC of ``recommender`` in the paper's Table 3, in percentage points."""
    sampled = paper_value(3, recommender=recommender, metric="AUC", estimator="sampled", statistic="mean")
    return f"{sampled - paper_value(3, recommender=recommender, metric='AUC', estimator='exact'):.2f}"

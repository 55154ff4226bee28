"""How far the chapter's comparisons stand from resampling noise, with the user as the unit.

Users are drawn with replacement (:class:`recbias.evaluate.statistics.UserBootstrap`) and every design and
system of a study is averaged again on the same draws, so two designs (measured on different splits of
the same users) or two systems under one design are compared draw by draw: the popularity index of two
designs (:func:`index_draws`), or pLSA's P@10 against the best other system of the papers' set
(:func:`lead_draws`).  :func:`recbias.evaluate.resampled_pvalue` turns the draws of a difference into a
two-sided p-value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c05_neutralising_designs.study.designs import DatasetStudy
from recbias.evaluate.statistics import UserBootstrap


def mean_draws(study: DatasetStudy, metric: str = "P@10", *, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """Mean ``metric`` per (design label, system): column 0 the full sample, columns ``1..n_boot`` the user
    resamples.  P1R averages its percentiles and every other design its runs, as :func:`.designs.design_summary`
    does (a single group is its run average)."""
    boot = UserBootstrap(study.runs["user"].to_numpy(), n_boot, seed)
    cells = boot.means(study.runs, metric, ["label", "system", "group"], average="run")
    return cells.groupby(level=["label", "system"], sort=False, observed=True).mean()


def index_draws(means: pd.DataFrame, labels: Sequence[str], personalised: Sequence[str]) -> pd.DataFrame:
    """The popularity index ``(M_pop - M_rnd) / (max_s M_s - M_rnd)`` of each design label (rows) in every
    column of ``means`` (:func:`mean_draws`), ``s`` over ``personalised``."""
    rows = {}
    for label in labels:
        cell = means.loc[label]
        random = cell.loc["Random"].to_numpy()
        best = cell.loc[list(personalised)].to_numpy().max(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            rows[label] = (cell.loc["Popularity"].to_numpy() - random) / (best - random)
    return pd.DataFrame(rows, index=means.columns).T


def lead_draws(means: pd.DataFrame, labels: Sequence[str], leader: str, rivals: Sequence[str]) -> pd.DataFrame:
    """``leader``'s mean minus the best of ``rivals`` under each design label (rows), in every column of
    ``means``."""
    return pd.DataFrame({label: means.loc[(label, leader)].to_numpy()
                         - means.loc[label].loc[list(rivals)].to_numpy().max(axis=0) for label in labels},
                        index=means.columns).T

"""The study repeated on small simulated worlds over a grid of popularity skew and observation bias."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from recbias.chapters.c08_protocol_fidelity.study.measure import truth_study
from recbias.evaluate.fidelity import fidelity
from recbias.synthetic import generate


def simulation_grid(
    alphas: Sequence[float],
    selections: Sequence[float],
    *,
    seeds: Sequence[int] = (0,),
    preset: str = "synthetic-small",
    truth_metric: str = "P@10",
    cache: bool = True,
    **world: float,
) -> pd.DataFrame:
    """Fidelity of every protocol over a grid of popularity skew ``alpha`` and observation bias.

    Each cell generates a world of ``preset`` (``world`` overrides its sizes) with that
    ``alpha`` and ``selection`` strength for every seed, runs
    :func:`~recbias.chapters.c08_protocol_fidelity.study.measure.truth_study` and
    :func:`recbias.evaluate.fidelity.fidelity` (50 resamples).  Returns one row per
    (alpha, selection, seed, protocol).
    """
    rows = []
    for alpha in alphas:
        for selection in selections:
            for seed in seeds:
                ratings = generate(preset=preset, alpha=float(alpha), selection=float(selection), seed=seed, **world)
                study = truth_study(ratings, seed=seed, cache=cache)
                table = fidelity(study, truth_metric, n_boot=50, seed=seed)
                rows.append(table.assign(alpha=float(alpha), selection=float(selection), seed=seed))
    return pd.concat(rows, ignore_index=True)


def grid_means(grid: pd.DataFrame) -> pd.Series:
    """Mean Kendall tau-b of every protocol over the cells and worlds of the simulation grid."""
    return grid.groupby("protocol")["tau"].mean()


def means_by(grid: pd.DataFrame, axis: str) -> pd.Series:
    """Mean Kendall tau-b over protocols and worlds for each value of ``axis`` (``"alpha"`` or
    ``"selection"``), in increasing order."""
    return grid.groupby(axis)["tau"].mean()


def family_means(grid: pd.DataFrame, families: Mapping[str, str], selection: float) -> pd.Series:
    """Mean Kendall tau-b of each kind of protocol (``families``: protocol -> kind) over the cells of the grid
    with observation bias ``selection``."""
    cells = grid[grid["selection"] == selection]
    return cells.assign(family=cells["protocol"].map(families)).groupby("family")["tau"].mean()


def grid_cells(grid: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Mean Kendall tau-b over the worlds of each grid cell: one row per protocol (in ``order``), one column
    per (skew, observation bias)."""
    cells = grid.groupby(["protocol", "alpha", "selection"])["tau"].mean().unstack(["alpha", "selection"])
    return cells.reindex([p for p in order if p in cells.index])

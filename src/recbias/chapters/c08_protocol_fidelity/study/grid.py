"""The study repeated on small simulated worlds over a grid of popularity skew and observation bias, and the
comparisons of kinds of protocols, on the grid or on one fidelity table.

Every world keeps each protocol's tau on its user resamples (``tau_draws``), so that a comparison over
worlds is decided draw by draw (:func:`family_gain`, :func:`change_along`): the worlds are independent, and
the mean over worlds of their ``k``-th resamples is a resample of the mean over worlds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

import numpy as np
import pandas as pd

from recbias.chapters.c08_protocol_fidelity.study.systems import SYSTEM_SETS, system_sets
from recbias.evaluate.fidelity import fidelity
from recbias.protocol_study import merge_sets, truth_study
from recbias.synthetic import generate


def simulation_grid(alphas: Sequence[float], selections: Sequence[float], *, seeds: Sequence[int] = (0,),
                    preset: str = "synthetic-small", truth_metric: str = "P@10", cache: bool = True,
                    sets: Sequence[str] = SYSTEM_SETS, n_boot: int = 50, **world: float) -> dict[str, pd.DataFrame]:
    """Fidelity of every protocol over a grid of popularity skew ``alpha`` and observation bias, for each
    set of systems named in ``sets`` (:func:`.systems.system_sets`).

    Each cell generates a world of ``preset`` (``world`` overrides its sizes) with that ``alpha`` and
    ``selection`` strength for every seed, runs one :func:`recbias.protocol_study.truth_study` on the systems of
    every set together (a system two sets share is measured once) and
    :func:`recbias.evaluate.fidelity.fidelity` on each set (``n_boot`` resamples of users).  Returns, per
    set, one row per (alpha, selection, seed, protocol), with its ``tau_draws``.
    """
    rows: dict[str, list[pd.DataFrame]] = {name: [] for name in sets}
    for alpha, selection, seed in product(alphas, selections, seeds):
        ratings = generate(preset=preset, alpha=float(alpha), selection=float(selection), seed=seed, **world)
        chosen = system_sets(seed, sets)
        study = truth_study(ratings, seed=seed, cache=cache, systems=merge_sets(chosen))
        for name, systems in chosen.items():
            table = fidelity(study.among(list(systems)), truth_metric, n_boot=n_boot, seed=seed)
            rows[name].append(table.assign(alpha=float(alpha), selection=float(selection), seed=seed))
    return {name: pd.concat(tables, ignore_index=True) for name, tables in rows.items()}


def means_by(grid: pd.DataFrame, axis: str) -> pd.Series:
    """Mean Kendall tau-b over the rows of the grid with each value of ``axis`` (``"protocol"``, ``"alpha"``
    or ``"selection"``), in increasing order."""
    return grid.groupby(axis)["tau"].mean()


def grid_cells(grid: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Mean Kendall tau-b over the worlds of each grid cell: one row per protocol (in ``order``), one column
    per (skew, observation bias)."""
    cells = grid.groupby(["protocol", "alpha", "selection"])["tau"].mean().unstack(["alpha", "selection"])
    return cells.reindex([p for p in order if p in cells.index])


def _world_means(grid: pd.DataFrame, protocols: Sequence[str]) -> np.ndarray:
    """Mean tau of ``protocols`` in each world of ``grid`` (rows) on the full sample (column 0) and on every
    resample (columns ``1..n_boot``)."""
    rows = grid[grid["protocol"].isin(protocols)]
    stacked = np.column_stack([rows["tau"].to_numpy(), np.vstack(rows["tau_draws"].to_numpy())])
    worlds = rows.groupby(["alpha", "selection", "seed"], sort=True).ngroup().to_numpy()
    return np.vstack([stacked[worlds == w].mean(axis=0) for w in range(worlds.max() + 1)])


def family_gain(grid: pd.DataFrame, families: Mapping[str, str], selection: float, first: str,
                second: str) -> np.ndarray:
    """Mean tau of the protocols of kind ``first`` minus that of kind ``second`` (``families``: protocol ->
    kind) over the worlds of the grid with observation bias ``selection``: the full sample, then every
    resample (the ``k``-th resamples of the worlds averaged)."""
    cells = grid[grid["selection"] == selection]
    kinds = cells["protocol"].map(families)
    return (_world_means(cells, list(cells["protocol"][kinds == first].unique())).mean(axis=0)
            - _world_means(cells, list(cells["protocol"][kinds == second].unique())).mean(axis=0))


def change_along(grid: pd.DataFrame, axis: str) -> np.ndarray:
    """Mean tau over protocols and worlds at the largest value of ``axis`` (``"alpha"`` or ``"selection"``)
    minus at the smallest: the full sample, then every resample."""
    protocols = list(grid["protocol"].unique())
    low, high = grid[axis].min(), grid[axis].max()
    return (_world_means(grid[grid[axis] == high], protocols).mean(axis=0)
            - _world_means(grid[grid[axis] == low], protocols).mean(axis=0))


def family_gap(table: pd.DataFrame, families: Mapping[str, str], first: str, second: str) -> np.ndarray:
    """Mean tau of the protocols of kind ``first`` minus that of kind ``second`` (``families``: protocol ->
    kind) in one fidelity table: the full sample, then every user resample, paired (every protocol reads the
    same resamples)."""
    both = np.column_stack([table["tau"].to_numpy(dtype=float), np.vstack(table["tau_draws"].to_numpy())])
    kinds = table["protocol"].map(families).to_numpy()
    return both[kinds == first].mean(axis=0) - both[kinds == second].mean(axis=0)


def family_means(table: pd.DataFrame, families: Mapping[str, str]) -> pd.Series:
    """Mean tau of each kind of protocol (``families``: protocol -> kind) over the rows of ``table``, a fidelity
    table or rows of the simulation grid (there: over protocols and worlds)."""
    return table.assign(family=table["protocol"].map(families)).groupby("family")["tau"].mean()

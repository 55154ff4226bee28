"""P@n next to its lift over random, ``P@n / rho``, on the first split of every available dataset under the AR and
the 1R design (:func:`lift_study`, IRJ 2017 Sec. 4.3), and how far each system's values spread (:func:`spread_factors`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.chapters.c03_sparsity_bias.study.fits import draw_interval
from recbias.chapters.c03_sparsity_bias.study.sweeps import target_rows
from recbias.designs import build_runs
from recbias.evaluate import UserBootstrap
from recbias.evaluate.experiment import choose_designs, evaluate_fold, fit_systems
from recbias.ratings import Ratings
from recbias.splits import fold_seed, make_folds
from recbias.synthetic import PRESETS

def lift_datasets(here: Ratings, seed: int, compare_all: bool) -> list[Ratings]:
    """The page's dataset, then (``compare_all``) each other available real dataset and the ``synthetic`` world."""
    chosen = [here]
    if compare_all:
        for name in ("synthetic", *(n for n in datasets.names() if n not in PRESETS and n != "coat")):
            if name != here.name and datasets.available(name):
                chosen.append(datasets.load(name, **({"seed": seed} if name in PRESETS else {})))
    return chosen


def lift_study(collections: Sequence[Ratings], systems: Mapping[str, str], *, max_an_entries: int, an_nonrelevant: int,
               base_size: int = 100, test_ratio: float = 0.2, n: int = 10, n_boot: int = 200, seed: int = 0,
               cache: bool = True) -> pd.DataFrame:
    """P@n and its lift over random, ``P@n / rho`` (means over the same runs), of every system on fold 0 of every
    dataset, under the TI design of :func:`recbias.evaluate.experiment.choose_designs` and 1R TI-NN(``base_size -
    1``), with intervals from a bootstrap over users.  Columns: ``dataset``, ``design``, ``system``, ``P``, ``P_ci``,
    ``P_draws`` (the full sample's P@n, then the resamples', the same resamples of users for both designs), ``rho``,
    ``lift``, ``lift_ci``."""
    rows = []
    for ratings in collections:
        (fold,) = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)
        fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed, cache=cache)
        choice = choose_designs(ratings, target_size=base_size, max_an_entries=max_an_entries,
                                n_nonrelevant=an_nonrelevant)
        designs = [choice.main_ar, choice.one_r]
        runs = {d: build_runs(fold.train, fold.test, d, on_shortage="exclude", seed=fold_seed(seed, k))
                for k, d in enumerate(designs)}
        runs = {d: r for d, r in runs.items() if r.n_runs}
        table = evaluate_fold(fold, fitted, runs, [f"P@{n}"], seed=seed)
        targets = pd.concat([target_rows(fold, d, r) for d, r in runs.items()], ignore_index=True)
        boot = UserBootstrap(table["user"].to_numpy(), n_boot=n_boot, seed=seed)
        precision = boot.means(table, f"P@{n}", ("design", "system"))
        rho = boot.means(targets, "rho", ("point",))
        for (design, system), draws in precision.iterrows():
            lift = draws.to_numpy() / rho.loc[design].to_numpy()
            rows.append({"dataset": ratings.name, "design": design, "system": system, "P": draws[0],
                         "P_ci": draw_interval(draws.to_numpy()), "P_draws": draws.to_numpy(),
                         "rho": rho.loc[design, 0], "lift": lift[0],
                         "lift_ci": draw_interval(lift)})
    return pd.DataFrame(rows)


def spread_factors(lift: pd.DataFrame) -> pd.DataFrame:
    """Per system, the largest over the smallest value of P@n and of the lift: across the datasets
    within each kind of design (AR, 1R), and across every dataset and design together."""
    kind = np.where(is_one_r(lift["design"]), "1R", "AR")
    columns = {}
    for label, part in (("AR", lift[kind == "AR"]), ("1R", lift[kind == "1R"]), ("all", lift)):
        grouped = part.groupby("system", sort=False)
        for value in ("P", "lift"):
            columns[(label, value)] = grouped[value].max() / grouped[value].min()
    return pd.DataFrame(columns).reindex(list(dict.fromkeys(lift["system"])))


def spread_below_share(lift: pd.DataFrame, systems: Sequence[str]) -> float:
    """The share of resamples in which the 1R spread of P@n across the datasets (largest over smallest) is below the
    AR spread for every one of ``systems``: the resamples of :func:`lift_study` (``P_draws[1:]``), drawn within each
    dataset and shared by its two designs, taken together across the datasets, which are independent."""
    one_r = is_one_r(lift["design"]).to_numpy()
    below = True
    for system in systems:
        spreads = []
        for kind in (one_r, ~one_r):
            draws = np.stack(lift.loc[kind & (lift["system"] == system).to_numpy(), "P_draws"].to_list())[:, 1:]
            spreads.append(draws.max(axis=0) / draws.min(axis=0))
        below = below & (spreads[0] < spreads[1])
    return float(np.mean(below))


def is_one_r(designs: pd.Series) -> pd.Series:
    """Which rows of a design column are 1R designs."""
    return designs.str.startswith("1R")


def ordered(lift: pd.DataFrame) -> pd.DataFrame:
    """``lift`` with the AR configurations first and the 1R ones after, datasets in their order within each."""
    one_r = is_one_r(lift["design"])
    return pd.concat([lift[~one_r], lift[one_r]], ignore_index=True)

"""The chapter's second truth (Coat's ratings of random items by default, or another dataset with a truth) and
how the fidelity tables of two or three truths compare: where two truths part, how alike they rank the
protocols, on how many truths each protocol is in the upper half, and each protocol's margin over the median.
The truths themselves are read by :mod:`recbias.protocol_study`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.chapters.c08_protocol_fidelity.study.grid import means_by
from recbias.ratings import Ratings
from recbias.text import and_list, ordinal


def second_truth(requested: str, world: Ratings, seed: int = 0) -> Ratings | None:
    """The dataset of the page's second truth: ``requested`` (Coat by default), or the default simulated
    world when ``requested`` is the build's own dataset; None when ``requested`` is empty or its files
    are not available."""
    if not requested:
        return None
    if requested == world.name:
        return datasets.load("synthetic", seed=seed)
    return datasets.load(requested) if datasets.available(requested) else None


def joined(main: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """The protocols measured on both truths: ``tau``, ``tau_low``, ``tau_high`` on the first and the same
    with the suffix ``" second"`` on the second, indexed by protocol."""
    first = main.set_index("protocol")[["tau", "tau_low", "tau_high"]]
    other = second.set_index("protocol")[["tau", "tau_low", "tau_high"]].add_suffix(" second")
    return first.join(other, how="inner")


def apart(main: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """The protocols on which two truths part beyond resampling noise: the tau on each truth lies outside the
    other's 95% interval over users (rows of :func:`joined`)."""
    both = joined(main, second)
    outside = ((both["tau"] < both["tau_low second"]) | (both["tau"] > both["tau_high second"])) & (
        (both["tau second"] < both["tau_low"]) | (both["tau second"] > both["tau_high"]))
    return both[outside]


def agreement(main: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str]) -> dict[str, Any]:
    """How alike two truths (``names``) rank the protocols measured on both, as ``truths_*`` values: their number,
    Spearman's rank correlation of their tau (``rho``), the protocols in the top third on both (``top``), the
    one whose ranks differ most (``furthest``, with both ranks), how many the truths part on (:func:`apart`),
    of which how many have the higher tau on each, and the truth whose intervals are wider on average
    (``noisier``).  Empty when fewer than three protocols are measured on both."""
    both = joined(main, second)
    if len(both) < 3:
        return {}
    third = max(1, len(both) // 3)
    top = [p for p in both.nlargest(third, "tau").index if p in both.nlargest(third, "tau second").index]
    ranks = both[["tau", "tau second"]].rank(ascending=False, method="min")
    gap = (both["tau"].rank(ascending=False) - both["tau second"].rank(ascending=False)).abs()
    furthest = gap.sort_values().index[-1]
    parted = apart(main, second)
    higher = int((parted["tau"] > parted["tau second"]).sum())
    wider = (second["tau_high"] - second["tau_low"]).mean() > (main["tau_high"] - main["tau_low"]).mean()
    return {"truths_n": len(both), "truths_rho": float(both[["tau", "tau second"]].rank().corr().iloc[0, 1]),
            "truths_top": and_list(top) if top else "none", "truths_furthest": furthest,
            "truths_rank_first": ordinal(int(ranks.loc[furthest, "tau"])),
            "truths_rank_second": ordinal(int(ranks.loc[furthest, "tau second"])),
            "truths_apart": len(parted), "truths_higher_first": higher, "truths_higher_second": len(parted) - higher,
            "truths_noisier": names[int(wider)]}


def halves(main: pd.DataFrame, second: pd.DataFrame | None, grid: pd.DataFrame,
           names: tuple[str, str]) -> pd.DataFrame:
    """Each protocol of ``main`` on up to three truths, the build's, the second one (``names``) and the simulation
    grid (the mean of its tau over the cells): its tau and rank on each (``"<truth> tau"``, ``"<truth> rank"``,
    1 = most faithful), and on how many of them (``upper``, of ``truths``) it is in the upper half, with a tau at
    least the median over the protocols; the rows sorted by ``upper``, then in the order of ``main``."""
    taus = {names[0]: main.set_index("protocol")["tau"], "simulation grid": means_by(grid, "protocol")}
    if second is not None:
        taus = {names[0]: taus[names[0]], names[1]: second.set_index("protocol")["tau"], **taus}
    table = pd.DataFrame(index=pd.Index(main["protocol"], name="protocol"))
    for name, tau in taus.items():
        table[f"{name} tau"] = table.index.map(tau)
        table[f"{name} rank"] = tau.rank(ascending=False, method="min").reindex(table.index)
    table["upper"] = sum((table[f"{name} tau"] >= tau.median()).astype(int) for name, tau in taus.items())
    table["truths"] = len(taus)
    return table.sort_values("upper", ascending=False, kind="stable")


def median_margin(table: pd.DataFrame, protocol: str) -> np.ndarray:
    """``protocol``'s tau minus the median tau over the protocols of ``table`` (a fidelity table with
    ``tau_draws``): the full sample, then every user resample (the median taken within the resample)."""
    full, draws = table["tau"].to_numpy(dtype=float), np.vstack(table["tau_draws"].to_numpy()).astype(float)
    row = list(table["protocol"]).index(protocol)
    return np.concatenate([[full[row] - np.nanmedian(full)], draws[row] - np.nanmedian(draws, axis=0)])

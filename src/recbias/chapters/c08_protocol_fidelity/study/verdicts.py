"""What the fidelity tables say when set side by side: where two truths part, how alike they rank the
protocols, which protocols stay in the better half on every truth, and the paired resamples behind
comparisons of kinds of protocols (:func:`family_gap`) or of one protocol with the median one
(:func:`median_margin`).  The protocols resampling cannot tell from the most faithful one are
:func:`recbias.evaluate.fidelity.leaders`, at the level :data:`recbias.bookkit.claims.LEVEL`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c08_protocol_fidelity.study.grid import grid_means

#: the verdicts of :func:`verdicts`, in the order the page lists them
VERDICTS = ("better", "mixed", "worse")


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


@dataclass(frozen=True)
class Agreement:
    """How alike two truths rank the protocols measured on both.

    Attributes:
        n: the protocols measured on both.
        rho: Spearman's rank correlation of their tau on the one and on the other.
        top: the protocols in the top third (at least one protocol) on both, in the first truth's order.
        furthest: the protocol whose ranks on the two truths differ most.
        rank_first, rank_second: its rank on each (1 = most faithful, ties at their lowest rank).
    """

    n: int
    rho: float
    top: list[str]
    furthest: str
    rank_first: int
    rank_second: int


def agreement(main: pd.DataFrame, second: pd.DataFrame) -> Agreement | None:
    """:class:`Agreement` of two truths; None when fewer than three protocols are measured on both."""
    both = joined(main, second)
    if len(both) < 3:
        return None
    rho = both[["tau", "tau second"]].rank().corr(method="pearson").iloc[0, 1]
    third = max(1, len(both) // 3)
    top = [p for p in both.nlargest(third, "tau").index if p in both.nlargest(third, "tau second").index]
    gap = (both["tau"].rank(ascending=False) - both["tau second"].rank(ascending=False)).abs().sort_values()
    furthest = gap.index[-1]
    return Agreement(len(both), float(rho), top, furthest,
                     int(both["tau"].rank(ascending=False, method="min")[furthest]),
                     int(both["tau second"].rank(ascending=False, method="min")[furthest]))


def verdicts(main: pd.DataFrame, second: pd.DataFrame | None, grid: pd.DataFrame) -> pd.Series:
    """Each protocol of ``main`` judged on up to three truths: the build's, the second one and the simulation
    grid (the mean of its tau over the cells).  On each it is in the better half when its tau is at least the
    median over the protocols; ``"better"`` in the better half on every truth, ``"worse"`` in the worse half
    on every truth, ``"mixed"`` otherwise."""
    signals = pd.DataFrame(index=main["protocol"])
    signals["build"] = main.set_index("protocol")["tau"] >= main["tau"].median()
    if second is not None:
        tau = second.set_index("protocol")["tau"]
        signals["second"] = signals.index.map(tau) >= tau.median()
    tau = grid_means(grid)
    signals["grid"] = signals.index.map(tau) >= tau.median()
    share = signals.mean(axis=1)
    return pd.Series(np.where(share == 1, "better", np.where(share == 0, "worse", "mixed")), index=signals.index)


def _taus(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The full-sample tau of every protocol of a fidelity table and its resamples (protocols x resamples)."""
    return table["tau"].to_numpy(dtype=float), np.vstack(table["tau_draws"].to_numpy()).astype(float)


def median_margin(table: pd.DataFrame, protocol: str) -> np.ndarray:
    """``protocol``'s tau minus the median tau over the protocols of ``table`` (a fidelity table with
    ``tau_draws``): the full sample, then every user resample (the median taken within the resample)."""
    full, draws = _taus(table)
    row = list(table["protocol"]).index(protocol)
    return np.concatenate([[full[row] - np.nanmedian(full)], draws[row] - np.nanmedian(draws, axis=0)])


def family_gap(table: pd.DataFrame, families: Mapping[str, str], first: str, second: str) -> np.ndarray:
    """Mean tau of the protocols of kind ``first`` minus that of kind ``second`` (``families``: protocol ->
    kind): the full sample, then every user resample, paired (every protocol reads the same resamples)."""
    full, draws = _taus(table)
    kinds = table["protocol"].map(families).to_numpy()
    both = np.column_stack([full, draws])
    return both[kinds == first].mean(axis=0) - both[kinds == second].mean(axis=0)



def family_means(table: pd.DataFrame, families: Mapping[str, str]) -> pd.Series:
    """Mean tau of each kind of protocol (``families``: protocol -> kind) over the rows of ``table``, a fidelity
    table or rows of the simulation grid (there: over protocols and worlds)."""
    return table.assign(family=table["protocol"].map(families)).groupby("family")["tau"].mean()

"""Which protocol to report: the fidelity of the audit's protocols on a simulated world shaped like the audited
data, and the protocols within noise of the most faithful one.

The audited data has no truth, so the audit measures its protocols where the truth is known: on a world of
:func:`recbias.synthetic.stand_in_world` with the data's users, items, ratings, fitted popularity curve and
positive ratio, for chapter 8's field of fourteen systems (the references Random and Popularity among them).
Each protocol's fidelity is Kendall's tau-b between its order of the systems and their order by true
precision at 10 (:func:`recbias.protocol_study.protocol_fidelity`), with the users resampled.  The protocols
to report are those the paired resamples do not tell from the most faithful one
(:func:`recbias.evaluate.fidelity.leaders`); among them the audit names the most faithful protocol that
needs no correction, and reads its caveats on the audited data (:func:`caveats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from recbias.chapters.c09_audit.study.profile import bias_profile
from recbias.chapters.c09_audit.study.protocols import NEUTRALISING
from recbias.chapters.c09_audit.study.readings import reversals
from recbias.bookkit.claims import LEVEL
from recbias.evaluate.fidelity import leaders, system_field
from recbias.protocol_study import Protocol, protocol_fidelity
from recbias.ratings import Ratings
from recbias.synthetic import shape_of, stand_in_world


@dataclass
class StandInFidelity:
    """The fidelity of the audit's protocols on a world shaped like the audited data.

    Attributes:
        world: the stand-in world's name (``"<data>-shaped world"``), ``""`` when none could be drawn.
        shape: the generator parameters it was drawn with (:func:`recbias.synthetic.shape_of`).
        table: one row per protocol, most faithful first: ``tau``, ``tau_low``, ``tau_high`` (95% over users
            resampled), ``tau_draws`` (tau on every resample) and ``rank`` (1 = most faithful, ties share the
            best rank); empty when no world could be drawn.
        truth_metric: the truth the systems are ordered by (a world's: precision at 10).
        systems: the systems ordered.
        profiles: the bias profiles (:func:`.profile.bias_profile`) of the data and of the world, in that order.
        refused: why no world could be drawn (the generator's reason), or ``""``.
    """

    world: str
    shape: dict[str, Any]
    table: pd.DataFrame
    truth_metric: str = "P@10"
    systems: list[str] = field(default_factory=list)
    profiles: pd.DataFrame = field(default_factory=pd.DataFrame)
    refused: str = ""


def stand_in_fidelity(ratings: Ratings, plan: Sequence[Protocol], *, seed: int = 0,
                      n_boot: int = 200) -> StandInFidelity:
    """The fidelity of every protocol of ``plan`` on the world shaped like ``ratings`` (seed ``seed``): one
    coin-flip and one uniform split, chapter 8's field of systems, ``n_boot`` resamples of users.  A shape
    the generator refuses (all ratings positive, say) gives an empty table and the reason in ``refused``."""
    try:
        shape = shape_of(ratings)
        world = stand_in_world(ratings, seed)
    except ValueError as error:
        return StandInFidelity("", {}, pd.DataFrame(columns=["protocol", "tau", "tau_low", "tau_high", "rank"]),
                               refused=str(error))
    table, truth_metric = protocol_fidelity(world, seed=seed, n_boot=n_boot, plan=plan)
    table = table.assign(rank=table["tau"].rank(ascending=False, method="min").astype("Int64"))
    return StandInFidelity(world.name, shape, table, truth_metric, list(system_field(seed)),
                           pd.DataFrame([bias_profile(ratings), bias_profile(world)]))


@dataclass(frozen=True)
class Recommendation:
    """What to report.

    Attributes:
        protocol: the protocol to report: the most faithful of ``tied`` that needs no correction (the most
            faithful of ``tied`` when each needs one).
        best: the most faithful protocol on the stand-in world.
        tied: the protocols the paired resamples do not tell from ``best`` at ``level``, ``best`` first.
        behind: the protocols clearly behind ``best``.
        level: the two-sided significance level of the comparisons.
    """

    protocol: str
    best: str
    tied: list[str]
    behind: list[str]
    level: float


def recommend(table: pd.DataFrame, plan: Sequence[Protocol], level: float = LEVEL) -> Recommendation | None:
    """The :class:`Recommendation` read from a fidelity table with ``tau_draws``, most faithful first
    (:attr:`StandInFidelity.table`); ``plan`` says which protocols read a correction.  None when the table is
    empty or its best tau is undefined (a truth that does not order the systems)."""
    if table.empty or pd.isna(table["tau"].iloc[0]):
        return None
    tied = leaders(table, level)
    corrected = {p.label for p in plan if p.correction is not None}
    plain = [p for p in tied if p not in corrected]
    return Recommendation(protocol=(plain or tied)[0], best=tied[0], tied=tied,
                          behind=[p for p in table["protocol"] if p not in tied], level=level)


@dataclass(frozen=True)
class Caveats:
    """What to say beside the recommended protocol, read on the audited data with the audited systems.

    Attributes:
        protocol: the recommended protocol.
        reversed_pairs: the pairs of systems it orders that other protocols reverse
            (:func:`.readings.reversals`).
        furthest: the protocol whose order of the systems agrees least with its own, and that τ; None when
            every other protocol orders them as it does (τ = 1).
        popularity_index: Popularity's place between Random (0) and the best audited system (1) under it.
        lifts: each audited system's mean over Popularity's under it.
        companion: the most faithful neutralising protocol on the stand-in world measured on the data, to report
            beside a protocol that does not neutralise popularity (None when it does, or none was measured).
    """

    protocol: str
    reversed_pairs: pd.DataFrame
    furthest: tuple[str, float] | None
    popularity_index: float
    lifts: dict[str, float]
    companion: str | None


def caveats(recommendation: Recommendation | None, means: pd.DataFrame, tau: pd.DataFrame, share: pd.DataFrame,
            fidelity: StandInFidelity) -> Caveats | None:
    """The :class:`Caveats` of the recommended protocol from the audit's protocol x system ``means``, the τ matrix
    of their orders (:func:`.readings.tau_matrix`) and the popularity share (:func:`.readings.popularity_share`);
    None without a recommendation."""
    if recommendation is None:
        return None
    chosen = recommendation.protocol
    agreement = tau.loc[chosen].drop(chosen).dropna()
    lifts = {column.removesuffix(" / Popularity"): float(share.loc[chosen, column])
             for column in share.columns if column.endswith(" / Popularity")}
    neutral = [p for p in fidelity.table["protocol"] if p in NEUTRALISING and p in means.index]
    return Caveats(protocol=chosen, reversed_pairs=reversals(means, chosen),
                   furthest=(agreement.idxmin(), float(agreement.min())) if (agreement < 1).any() else None,
                   popularity_index=float(share.loc[chosen, "popularity index"]), lifts=lifts,
                   companion=neutral[0] if neutral and chosen not in NEUTRALISING else None)

"""Which protocol to report: the audit's protocols ordering chapter 8's field on the audited data's own truth, or
on a world shaped like the data when they have none (:func:`recbias.synthetic.stand_in_world`), the most faithful
of those the paired resamples do not tell from the best that needs no correction, and its caveats on the audited
data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from recbias.chapters.c09_audit.study.profile import bias_profile
from recbias.chapters.c09_audit.study.protocols import neutralising
from recbias.chapters.c09_audit.study.compare import reversals
from recbias.bookkit.claims import LEVEL
from recbias.evaluate.fidelity import leaders, system_field
from recbias.protocol_study import Protocol, protocol_fidelity, truth_kind
from recbias.ratings import Ratings
from recbias.synthetic import shape_of, stand_in_world


#: coin-flip splits (and as many uniform ones) the fidelity is averaged over: chapter 8's default
FIDELITY_SPLITS = 2


@dataclass
class TruthFidelity:
    """The fidelity of the audit's protocols on the truth of ``world``: the audited data themselves when they have a
    truth, of the ``kind`` :func:`recbias.protocol_study.truth_kind` names, else a world drawn with the parameters
    ``shape`` (``""`` when none could be, the generator's reason in ``refused``).  ``table`` has one row per
    protocol, most faithful first, with ``tau``, ``tau_low``, ``tau_high`` (95% over users), ``tau_draws`` and
    ``rank`` (ties share the best); the ``systems`` are ordered by ``truth_metric``; ``profiles`` are the bias
    profiles of the data and of the stand-in world (none without a world)."""

    world: str
    shape: dict[str, Any]
    table: pd.DataFrame
    truth_metric: str = "P@10"
    systems: list[str] = field(default_factory=list)
    profiles: pd.DataFrame = field(default_factory=pd.DataFrame)
    refused: str = ""
    kind: str = ""

    @property
    def own_truth(self) -> bool:
        """Whether the data's own truth was read (its :func:`recbias.protocol_study.truth_kind` is ``kind``)."""
        return bool(self.kind)


def truth_fidelity(ratings: Ratings, plan: Sequence[Protocol], *, seed: int = 0, n_boot: int = 200,
                   splits: int = FIDELITY_SPLITS, truth_metric: str | None = None) -> TruthFidelity:
    """The fidelity of every protocol of ``plan`` to the true order of chapter 8's field, measured as chapter 8
    measures it (:func:`recbias.protocol_study.protocol_fidelity`, ``splits`` coin-flip and uniform splits,
    ``n_boot`` resamples of users): on the data's own truth when they have one
    (:func:`recbias.protocol_study.truth_kind`), else on the world shaped like them
    (:func:`recbias.synthetic.stand_in_world`).  The truth orders the systems by ``truth_metric``, or by chapter
    8's headline metric when None (:func:`recbias.protocol_study.headline_truth`).  A shape the generator refuses
    (all ratings positive, say) gives an empty table and the reason in ``refused``."""
    if kind := truth_kind(ratings):
        table, truth_metric = protocol_fidelity(ratings, seed=seed, splits=splits, n_boot=n_boot, plan=plan,
                                                truth_metric=truth_metric)
        return TruthFidelity(ratings.name, {}, _ranked(table), truth_metric, list(system_field(seed)), kind=kind)
    try:
        shape = shape_of(ratings, seed)
        world = stand_in_world(ratings, seed, shape)
    except ValueError as error:
        return TruthFidelity("", {}, pd.DataFrame(columns=["protocol", "tau", "tau_low", "tau_high", "rank"]),
                             refused=str(error))
    table, truth_metric = protocol_fidelity(world, seed=seed, splits=splits, n_boot=n_boot, plan=plan,
                                            truth_metric=truth_metric)
    return TruthFidelity(world.name, shape, _ranked(table), truth_metric, list(system_field(seed)),
                         pd.DataFrame([bias_profile(ratings), bias_profile(world)]))


def _ranked(table: pd.DataFrame) -> pd.DataFrame:
    """A fidelity table with each protocol's ``rank`` by tau (ties share the best)."""
    return table.assign(rank=table["tau"].rank(ascending=False, method="min").astype("Int64"))


@dataclass(frozen=True)
class Recommendation:
    """What to report: ``tied``, the protocols the paired resamples do not tell from the most faithful one (first),
    and the one of them the rule picks (``protocol``): the most faithful that reads the runs as they are, neither
    through a correction nor as an uncorrected sampled metric, which chapter 6 shows to be biased; else the most
    faithful corrected one; an uncorrected sampled metric only when it is all there is.  ``ranked`` says whether the data rank the protocols at all: False when
    ``tied`` is every protocol of the table, so that the pick is the rule's, not the evidence's."""

    protocol: str
    tied: list[str]
    ranked: bool = True


def recommend(table: pd.DataFrame, plan: Sequence[Protocol], level: float = LEVEL) -> Recommendation | None:
    """The :class:`Recommendation` from a fidelity table with ``tau_draws``, most faithful first, at the two-sided
    ``level`` (:func:`recbias.evaluate.fidelity.leaders`, chapter 8's rule); None when the table is empty or its
    best tau is undefined (a truth that does not order systems).

    >>> import numpy as np
    >>> from recbias.chapters.c09_audit.study.protocols import audit_protocols
    >>> plan = audit_protocols(1000)
    >>> table = pd.DataFrame({"protocol": ["sampled HR@10", "AR TI-AN P@10", "UAR P@10"], "tau": [0.9, 0.88, 0.5],
    ...                       "tau_draws": [np.full(79, 0.9), np.full(79, 0.88) + np.r_[0.1, np.zeros(78)],
    ...                                     np.full(79, 0.5)]})
    >>> recommend(table, plan)
    Recommendation(protocol='AR TI-AN P@10', tied=['sampled HR@10', 'AR TI-AN P@10'], ranked=True)
    """
    if table.empty or pd.isna(table["tau"].iloc[0]):
        return None
    tied = leaders(table, level)
    corrected = {p.label for p in plan if p.correction is not None}
    biased = {p.label for p in plan if p.family == "sampled" and p.correction is None}
    plain = [p for p in tied if p not in corrected | biased]
    fixed = [p for p in tied if p in corrected]  # before an uncorrected sampled metric, never after
    return Recommendation(protocol=(plain or fixed or tied)[0], tied=tied, ranked=len(tied) < len(table))


def caveats(recommendation: Recommendation | None, means: pd.DataFrame, tau: pd.DataFrame,
            fidelity: TruthFidelity, plan: Sequence[Protocol]) -> dict[str, Any]:
    """What to say beside the recommended protocol on the audited data (:mod:`.compare`; empty without one): the
    pairs of systems other protocols reverse, the protocol that orders them least like it (and that τ; None
    without another), and the most faithful neutralising protocol of ``plan`` on the truth
    (``companion``)."""
    if recommendation is None:
        return {}
    chosen = recommendation.protocol
    agreement = tau.loc[chosen].drop(chosen).dropna()
    neutral = [p for p in fidelity.table["protocol"] if p in neutralising(plan) and p in means.index]
    return {"reversed_pairs": reversals(means, chosen),
            "furthest": (agreement.idxmin(), float(agreement.min())) if len(agreement) else None,
            "companion": neutral[0] if neutral else None}

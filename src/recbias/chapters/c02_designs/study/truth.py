"""Each design's order of systems against the true order, on a simulated world.

On a simulated world every user-item pair has a true relevance, so the true P@10 of each system (top 10
among all items outside training, :func:`recbias.evaluate.true_quality`) orders the systems;
:func:`truth_check` sets each design's measured order against it, and :func:`swaps` finds the pairs a
design puts in the wrong order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from recbias.chapters.c02_designs.study.comparison import N, DesignStudy
from recbias.evaluate import discordant_pairs, order_agreement, true_quality
from recbias.evaluate.experiment import fit_systems

#: largest relative difference of true precision under which two systems count as close
CLOSE = 0.05


@dataclass(frozen=True)
class TruthCheck:
    """Each design's order of systems against their true order, on a simulated world.

    Attributes:
        dataset: the world.
        true: true P@10 per system (top 10 among all items outside training, complete relevance),
            mean over users and splits.
        measured: measured P@10, systems x designs of the page's dataset.
    """

    dataset: str
    true: pd.Series
    measured: pd.DataFrame

    def among(self, systems: Sequence[str]) -> TruthCheck:
        """The same check on the systems ``systems`` only (one set of systems)."""
        systems = list(systems)
        return TruthCheck(self.dataset, self.true[systems], self.measured.loc[systems])

    def agreement(self, design: str) -> tuple[float, float, bool]:
        """Kendall's tau-b of a design's order with the true one, the share of pairs in the true order and
        whether the truly best system comes first (:func:`recbias.evaluate.order_agreement`)."""
        found = order_agreement(self.measured[design].to_numpy(), self.true.to_numpy())
        return float(found.tau[0]), float(found.pairs[0]), bool(found.best[0])


def truth_check(study: DesignStudy) -> TruthCheck | None:
    """The true P@10 of the study's systems (both sets) on every split (:func:`recbias.evaluate.true_quality`), against
    the designs' measurements; None on observed data, which lack the complete relevance."""
    ratings = study.ratings
    if ratings.true_relevance is None:
        return None
    per_fold = []
    for fold in study.folds:
        fitted = fit_systems(study.presets, fold.train, key_extra=fold.key, seed=study.seed)
        per_fold.append(true_quality(fitted, fold.train, ratings.true_relevance, n=N, seed=study.seed)[f"P@{N}"].mean())
    true = pd.concat(per_fold, axis=1).mean(axis=1)[study.systems]
    designs = [str(d) for d in study.main.runs["design"].cat.categories]
    measured = pd.DataFrame({d: study.measured(ratings.name, d) for d in designs})
    return TruthCheck(ratings.name, true, measured)


@dataclass(frozen=True)
class Swaps:
    """The pairs of systems the designs of a :class:`TruthCheck` order against the truth.

    Attributes:
        right: designs that order every pair as the truth does.
        designs: designs checked.
        widest: the swapped pair ``(a, b)`` (``a`` measured above ``b``, truly below it) whose true P@10 differ
            most relative to the larger of the two, None when no design swaps a pair.
        gap: that relative difference, ``|true(a) - true(b)| / max(true(a), true(b))``.
    """

    right: int
    designs: int
    widest: tuple[str, str] | None
    gap: float

    @property
    def close(self) -> bool:
        """Whether every swapped pair is close in truth (relative gap below :data:`CLOSE`)."""
        return self.gap < CLOSE


def swaps(check: TruthCheck) -> Swaps:
    """Which designs order the systems as the truth does, and the widest true gap of a swapped pair."""
    true = check.true.to_dict()
    found = {d: discordant_pairs(check.measured[d].to_dict(), true) for d in check.measured.columns}
    wrong = {pair for pairs in found.values() for pair in pairs}
    right = sum(not pairs for pairs in found.values())
    if not wrong:
        return Swaps(right, len(found), None, 0.0)

    def gap(pair: tuple[str, str]) -> float:
        return abs(true[pair[0]] - true[pair[1]]) / max(true[pair[0]], true[pair[1]])

    widest = max(sorted(wrong), key=gap)  # sorted: ties go to the same pair in every run
    return Swaps(right, len(found), widest, gap(widest))

"""Each design's order of systems against the true order, on a simulated world: there the true P@10 of each
system (top 10 among all items outside training, :func:`recbias.evaluate.true_quality`) orders the systems,
:func:`truth_check` sets each design's measured order against it, and :func:`readings` finds per set of systems
the designs that order it as the truth does and the widest pair a design puts in the wrong order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from recbias.chapters.c02_designs.study.comparison import N, SETS, DesignStudy
from recbias.evaluate import discordant_pairs, order_agreement, true_quality
from recbias.evaluate.experiment import fit_systems
from recbias.text import order_text


@dataclass(frozen=True)
class TruthCheck:
    """On the simulated world ``dataset``, the ``true`` P@10 per system (mean over users and splits) and the
    ``measured`` P@10 (systems x designs of the page's dataset)."""

    dataset: str
    true: pd.Series
    measured: pd.DataFrame

    def among(self, systems: Sequence[str]) -> TruthCheck:
        """The same check on the systems ``systems`` only (one set of systems)."""
        return TruthCheck(self.dataset, self.true[list(systems)], self.measured.loc[list(systems)])

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


def readings(check: TruthCheck, sets: Mapping[str, Sequence[str]] = SETS) -> dict[str, dict[str, Any]]:
    """Per set of ``sets`` (set -> its systems; those with fewer than two systems of the check are left out):
    its true ``order``, the designs that order it ``right`` (every pair as the truth does) of all ``designs``,
    and the swapped pair (``a`` measured above ``b`` by some design, truly below it) whose true P@10 differ
    most relative to the larger, that ``gap`` and their values ``true_a`` and ``true_b``; ``a`` is None when no
    design swaps a pair."""
    found = {}
    for which, members in sets.items():
        mine = check.among([s for s in check.true.index if s in members])
        if len(mine.true) < 2:
            continue
        true = mine.true.to_dict()
        swapped = {d: discordant_pairs(mine.measured[d].to_dict(), true) for d in mine.measured.columns}
        wrong = sorted({pair for pairs in swapped.values() for pair in pairs})  # sorted: ties go to the same pair
        gaps = {(a, b): abs(true[a] - true[b]) / max(true[a], true[b]) for a, b in wrong}
        a, b = max(gaps, key=gaps.__getitem__) if gaps else (None, None)
        found[which] = {"order": order_text(true), "right": sum(not pairs for pairs in swapped.values()),
                        "designs": len(swapped), "a": a, "b": b, "gap": gaps.get((a, b), 0.0),
                        "true_a": true.get(a, 0.0), "true_b": true.get(b, 0.0)}
    return found

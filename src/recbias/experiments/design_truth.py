"""Chapter 2 ("Experimental design alternatives"): each design's order of systems against the truth.

On a simulated world every user-item pair has a true relevance, so the true P@10 of
each system (top 10 among all items outside training, :func:`recbias.evaluate.true_quality`)
orders the systems; :func:`truth_check` sets each design's measured order against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from recbias.evaluate import discordant_pairs, order_agreement, true_quality
from recbias.experiments.design_space import N, DesignStudy
from recbias.evaluate.experiment import fit_systems
from recbias.text import fmt_number, fmt_pct, fmt_yes, order_text



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


def truth_check(study: DesignStudy) -> TruthCheck | None:
    """The true P@10 of the study's systems on every split (:func:`recbias.evaluate.true_quality`), against
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


#: columns of :func:`orders_table`
ORDER, TOP = "order, best first", f"P@{N} of the first"


def orders_table(study: DesignStudy, check: TruthCheck | None = None) -> pd.DataFrame:
    """The systems from best to worst by P@10 and the P@10 of the first, one row per (dataset, design); with
    a :class:`TruthCheck`, a first row with the true order and, for each design of the world, its agreement
    with it (:func:`recbias.evaluate.order_agreement`: Kendall's tau-b, pairs in the true order, truly best
    system first)."""
    orders = {}
    if check is not None:
        orders[(check.dataset, f"true P@{N}")] = check.true.to_dict()
    for dataset, design in study.panels:
        orders[(dataset, design)] = study.measured(dataset, design)
    rows = []
    pairs = len(study.systems) * (len(study.systems) - 1) // 2
    for (dataset, design), values in orders.items():
        row = {"dataset": dataset, "design": design, ORDER: order_text(values),
               TOP: fmt_number(max(values.values()), 4)}
        if check is not None:
            agreement = (order_agreement(check.measured[design].to_numpy(), check.true.to_numpy())
                         if dataset == check.dataset and design in check.measured else None)
            row |= {"τ": "–", "pairs in true order": "–", "truly best first": "–"} if agreement is None else {
                "τ": fmt_number(float(agreement.tau[0]), 2),
                "pairs in true order": f"{round(float(agreement.pairs[0]) * pairs)} of {pairs}",
                "truly best first": fmt_yes(bool(agreement.best[0]))}
        rows.append(row)
    return pd.DataFrame(rows)


#: largest relative difference of true precision under which two systems count as close
CLOSE = 0.05


def truth_text(check: TruthCheck | None, dataset: str) -> str:
    """What the comparison with the true order shows, or why it cannot be made on ``dataset``."""
    if check is None:
        return (f"*{dataset}* is observed data, without the relevance of the pairs nobody rated, so the orders "
                "cannot be checked against a truth here: the table gives the measured orders only. Build the "
                "chapter on `synthetic` to see the check.")
    true = check.true.to_dict()
    wrong = {pair for design in check.measured.columns
             for pair in discordant_pairs(check.measured[design].to_dict(), true)}
    designs = len(check.measured.columns)
    right = sum(not discordant_pairs(check.measured[d].to_dict(), true) for d in check.measured.columns)
    verdict = ("Every design orders" if right == designs else "No design orders" if right == 0 else
               "Only one of the designs orders" if right == 1 else f"{right} of the {designs} designs order")
    text = f"The true order is **{order_text(true)}**. {verdict} the systems as the truth does."
    if wrong:
        a, b = max(wrong, key=lambda pair: abs(true[pair[0]] - true[pair[1]]) / max(true[pair[0]], true[pair[1]]))
        gap = abs(true[a] - true[b]) / max(true[a], true[b])
        text += (
            " Every pair a design swaps is close in truth: the widest, "
            f"{a} and {b}, differ by {fmt_pct(gap)} of their true P@10 ({fmt_number(true[a], 4)} against "
            f"{fmt_number(true[b], 4)}), so a small measured difference says little about the true order."
            if gap < CLOSE else
            f" The swapped pairs are not only close ones: {a} is measured above {b}, although its true P@10 is "
            f"{fmt_pct(gap, 0)} lower ({fmt_number(true[a], 4)} against {fmt_number(true[b], 4)}). The design itself, "
            "not only noise, moves the order; the chapters on popularity bias return to this."
        )
    best_true, best_measured = float(check.true.max()), float(check.measured.to_numpy().max())
    if best_measured > 0:
        text += (f" The scale differs too: the best true precision, {fmt_number(best_true)}, is "
                 f"{best_true / best_measured:.1f} times the best value any design measures here, because most "
                 "relevant items were never rated and count as failures.")
    return text

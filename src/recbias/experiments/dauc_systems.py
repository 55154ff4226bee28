"""Chapter 7 ("The user-behaviour discounted AUC"): the chapter-2 systems under the metric.

* :func:`four_cases`: the four cases of the paper's Section 2 (hit, mishit, recommended but not rated,
  liked but not recommended) in every list, and :func:`mishit_effect`, what ignoring mishits is worth;
* :func:`q_sweep`: the metric of every system as the share ``Q`` of users who open page 2 goes from 0
  (precision at 1) to 1 (precision over the whole list);
* :func:`ranking_means`: the systems under P@10, nDCG@10 and the metric without and with the short-head step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.evaluate import kendall_tau
from recbias.experiments.discounted_auc import NON_PERSONALISED, Setting, Study, mishit_runs
from recbias.text import fmt_number, fmt_pct, fmt_span, order_text, ordinal

#: values of Q of the sweep (Q = 1 reads the whole list: P@z)
Q_GRID = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0)


def four_cases(study: Study, lengths: Sequence[int]) -> pd.DataFrame:
    """The four cases of the paper's Section 2 in the top ``n`` of every list, per system and ``n``: mean per
    user of hits, mishits (negative test ratings), recommended but not rated, and liked in the test set but
    not recommended, with the mishits per hit."""
    precision = [f"P@{n}" for n in lengths]
    good = study.scored.values(precision)
    bad = study.scored.values(precision, mishit_runs(study.scored.runs))
    liked = pd.Series(study.scored.runs.n_relevant, index=study.scored.runs.users)
    rows = []
    for label in study.scored.scores:
        for n, column in zip(lengths, precision, strict=True):
            hits, misses = good[label][column] * n, bad[label][column] * n
            rows.append({
                "system": label, "list": n, "hits": hits.mean(), "mishits": misses.mean(),
                "recommended, not rated": (n - hits - misses).mean(),
                "liked, not recommended": (liked.reindex(hits.index) - hits).mean(),
                "mishits per hit": misses.sum() / hits.sum() if hits.sum() else np.nan,
            })
    return pd.DataFrame(rows)


def cases_table(cases: pd.DataFrame) -> pd.DataFrame:
    """:func:`four_cases` as the page shows it, the list named by its length."""
    return cases.assign(list=[f"first {n}" for n in cases["list"]])


def mishit_effect(study: Study, setting: Setting) -> pd.DataFrame:
    """Per system: the binary metric (mishits ignored, as in the paper), the same with every mishit counted
    as ``-1``, and the relative change."""
    metric = setting.metric(gain="binary")
    ignored = study.scored.means([metric])[metric]
    counted = ignored - study.scored.means([metric], mishit_runs(study.scored.runs))[metric]
    return pd.DataFrame({"system": ignored.index, "mishits ignored": ignored.to_numpy(),
                         "mishits at -1": counted.to_numpy(), "change": (counted / ignored - 1).to_numpy()})


def mishits_matter(effect: pd.DataFrame) -> tuple[bool, bool, pd.Series]:
    """Whether counting mishits changes the order of the systems, whether it moves a personalised system's
    value by more than a tenth, and the personalised system it moves most."""
    personal = effect[~effect["system"].isin(NON_PERSONALISED)]
    reorders = order_text(effect.set_index("system")["mishits ignored"].to_dict()) != order_text(
        effect.set_index("system")["mishits at -1"].to_dict())
    worst = personal.loc[personal["change"].abs().idxmax()]
    return reorders, bool(abs(worst["change"]) > 0.1), worst


def cases_text(cases: pd.DataFrame, effect: pd.DataFrame, setting: Setting) -> str:
    """What the four-case table and the mishit effect say."""
    page = cases[cases["list"] == setting.m].set_index("system")["mishits per hit"]
    personal = page.drop(index=[s for s in NON_PERSONALISED if s in page.index])
    reorders, _, worst = mishits_matter(effect)
    random = f", random lists {fmt_number(page['Random'], 2)}" if "Random" in page.index else ""
    return (
        f"On the first page of {setting.m} items, the personalised systems show "
        f"{fmt_span(personal.min(), personal.max())} mishits per hit{random}. Counting every mishit as minus "
        f"one hit lowers the metric of {worst['system']} by {fmt_pct(-worst['change'], 0)} and "
        + ("changes the order of the systems." if reorders else "leaves the order of the systems as it was.")
    )


def q_sweep(study: Study, setting: Setting, Qs: Sequence[float] = Q_GRID) -> pd.DataFrame:
    """The unpenalised metric of every system for every ``Q`` (``m`` and ``z`` fixed): systems x Q."""
    names = {Q: setting.metric(Q=Q) for Q in Qs}
    means = study.scored.means(list(names.values()))
    return means.rename(columns={name: Q for Q, name in names.items()})


def q_orders(sweep: pd.DataFrame) -> pd.DataFrame:
    """The orders of the systems along the sweep, one row per run of consecutive ``Q`` with the same order:
    the values of ``Q``, the order, and Kendall's tau-b with the orders at the smallest and largest ``Q``."""
    first, last = sweep.columns[0], sweep.columns[-1]
    rows: list[dict] = []
    for Q in sweep.columns:
        order = order_text(sweep[Q].to_dict())
        if rows and rows[-1]["order"] == order:
            rows[-1]["to"] = Q
            continue
        rows.append({"from": Q, "to": Q, "order": order,
                     f"τ with the order at Q = {first:g}": kendall_tau(sweep[Q].to_dict(), sweep[first].to_dict()),
                     f"τ with the order at Q = {last:g}": kendall_tau(sweep[Q].to_dict(), sweep[last].to_dict())})
    table = pd.DataFrame(rows)
    table.insert(0, "Q", [f"{a:g}" if a == b else f"{a:g} to {b:g}" for a, b in zip(table["from"], table["to"])])
    return table.drop(columns=["from", "to"])


def q_text(sweep: pd.DataFrame) -> str:
    """How the order of the systems moves between the smallest and largest ``Q`` of the sweep."""
    orders = [order_text(sweep[Q].to_dict()) for Q in sweep.columns]
    first, last = sweep.columns[0], sweep.columns[-1]
    if len(set(orders)) == 1:
        return (f"The order of the systems is {orders[0]} for every Q from {first:g} to {last:g}: on these data, "
                "attention does not change which system comes first.")
    change = next(Q for Q, order in zip(sweep.columns, orders, strict=True) if order != orders[0])
    count = len(set(orders))
    return (f"At Q = {first:g}, where only the first item counts, the order is {orders[0]}; at Q = {last:g}, where "
            f"every item of the list counts alike, it is {orders[-1]}. The first change comes at Q = {change:g}, "
            + ("and these are the only two orders of the sweep." if count == 2 else
               f"and {count} different orders appear along the sweep."))


def ranking_means(study: Study, setting: Setting, s: int) -> pd.DataFrame:
    """The chapter-2 systems (rows) under P@10, nDCG@10 and the metric without and (``s > 0``) with the step."""
    names = {"P@10": "P@10", "nDCG@10": "nDCG@10", "bAUC, no step": setting.metric()}
    if s:
        names[f"bAUC, step at s = {s}"] = setting.metric(s=s)
    means = study.scored.means(list(names.values()))
    return means.rename(columns={v: k for k, v in names.items()}).rename_axis("system")


def ranking_table(means: pd.DataFrame) -> pd.DataFrame:
    """:func:`ranking_means` as the page shows it: each mean with the system's rank under that metric."""
    ranks = means.rank(ascending=False, method="min").astype(int)
    return pd.DataFrame({column: [f"{v:.4f} ({r})" for v, r in zip(means[column], ranks[column], strict=True)]
                         for column in means.columns}, index=means.index).reset_index()


def ranking_text(means: pd.DataFrame) -> str:
    """Where the step moves the systems, Popularity above all."""
    ranks = means.rank(ascending=False, method="min").astype(int)
    plain, last = "bAUC, no step", means.columns[-1]
    if last == plain:
        return f"Without a step, the metric orders the systems {order_text(means[plain].to_dict())}."
    moved = [f"{system} from {ordinal(r[plain])} to {ordinal(r[last])} place" for system, r in ranks.iterrows()
             if r[plain] != r[last]]
    popularity = (f" Popularity ends {ordinal(ranks.loc['Popularity', last])} of {len(ranks)}"
                  + (", below Random." if ranks.loc["Popularity", last] > ranks.loc["Random", last] else ".")
                  if {"Popularity", "Random"} <= set(ranks.index) else "")
    return (f"The step moves {', '.join(moved)}." if moved else "The step moves no system.") + popularity


def mishits_comment(effect: pd.DataFrame) -> str:
    """Whether the paper's choice to ignore mishits is harmless on these data, and why it may not be."""
    reorders, large, _ = mishits_matter(effect)
    if reorders or large:
        return (
            "Mishits are not rare enough to ignore here. People mostly rate what they chose to watch or buy, so a "
            "recommended item that a user rated at all is one she was drawn to, and a middling rating below the "
            "positive threshold is a common outcome. Ignoring mishits is a choice the paper made for its own service, "
            "where they may well be rarer; it is not a property of the metric, and counting them as above is the way "
            "to check it."
        )
    return (
        "Here the paper's choice is harmless: counting mishits moves no personalised system by more than a tenth "
        "and keeps the order of the systems. That is a property of these data, not of the metric; where people "
        "mostly rate what they chose, a recommended item they rated is one they were drawn to, and a rating below "
        "the threshold is a common outcome, so the same count may say otherwise."
    )

"""The 1R bridge's tables and the sentences that read them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.bridge import (
    BRIDGE_METHODS, BRIDGE_SIZE, KEPT, PERSONALISED, REVERSED, WITHIN_NOISE, Bridge, pair_outcomes,
)
from recbias.text import and_list, fmt_count, fmt_number, fmt_pct, fmt_pm, fmt_span, order_text

UNCORRECTED = f"1R TI-NN({BRIDGE_SIZE}), uncorrected"
EXACT = "exact 1R TI-AN"

NOT_FORMED = ("**On this build** no user has {size} non-relevant candidates, so the 1R TI-NN({size}) design cannot be "
              "formed and this section is skipped.")
RUNS = "**On this build**: {runs} (relevant test ratings); pools of {low:,} to {high:,} items including the relevant one; "
FULL_POOLS = "every pool held at least {size} non-relevant items."
SHORT_POOLS = "{runs} left out because the pool held fewer than {size} items."
RATIO = ("the uncorrected 1R precision of the papers' personalised {recommenders} ({names}) is {span} times {their} "
         "exact TI-AN precision")
POPULARITY_AFTER = "that of Popularity, {ratio} times"
POPULARITY_ALONE = "the uncorrected 1R precision of Popularity is {ratio} times its exact TI-AN precision"
NO_RATIO = "the exact TI-AN precision of {names} is zero, so no ratio"

REAL_WORLD = ("A real dataset cannot tell how many of the sampled items the user would in fact like; on the simulated "
              "datasets of the book this share is measured directly.")
SIMULATED_WORLD = ("This dataset is simulated, so we can check the assumption: {share} of the items sampled as "
                   "non-relevant are in fact relevant to their user in the simulated world (the share of relevant pairs "
                   "over the whole matrix is {pool}). The exact TI-AN precision shares this blind spot, so no correction "
                   "of the sampling can remove it.")


def _not_formed() -> pd.DataFrame:
    return pd.DataFrame({"": [f"no user has {BRIDGE_SIZE} non-relevant candidates on this dataset"]}, index=[""])


def _label(method: str) -> str:
    return UNCORRECTED if method == "sampled" else method


def bridge_table(bridge: Bridge) -> pd.DataFrame:
    """One row per estimate, one column per system of the papers' set: one draw of 1R TI-NN(100) P@10,
    uncorrected and corrected (± sd over draws), then the exact 1R TI-AN and 1R AI-AN precision."""
    if not bridge.formed:
        return _not_formed()
    names = list(bridge.names)
    rows = {_label(method): [fmt_pm(bridge.values[method][name], bridge.sds[method][name], 4) for name in names]
            for method in BRIDGE_METHODS}
    rows[EXACT] = [fmt_number(bridge.values["TI-AN"][name], 4) for name in names]
    rows["1R AI-AN"] = [fmt_number(bridge.values["AI-AN"][name], 4) for name in names]
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)


#: the columns of the orders table that count pairs of systems, by outcome
PAIR_COLUMNS = {KEPT: "pairs ordered as exact", REVERSED: "pairs reversed", WITHIN_NOISE: "pairs within noise"}


def bridge_orders(bridge: Bridge) -> pd.DataFrame:
    """The order of the systems by each estimate's means, and how many pairs it orders as the exact TI-AN
    precision or against it beyond noise (:func:`~recbias.chapters.c06_sampled_metrics.study.bridge.pair_outcomes`)."""
    if not bridge.formed:
        return _not_formed()
    outcomes = pair_outcomes(bridge).set_index("estimator").rename(columns=PAIR_COLUMNS)
    rows = [{"estimate": EXACT, "order of the means": order_text(bridge.values["TI-AN"]),
             **dict.fromkeys(PAIR_COLUMNS.values(), "")}]
    rows += [{"estimate": _label(method), "order of the means": order_text(bridge.values[method]),
              **outcomes.loc[method].to_dict()} for method in BRIDGE_METHODS]
    return pd.DataFrame(rows)


def ratio_text(bridge: Bridge) -> str:
    """How many times its exact TI-AN precision the uncorrected 1R precision is, over the papers' personalised
    systems (a span), and for Popularity apart; systems whose exact precision is zero are named instead."""
    exact, uncorrected = bridge.values["TI-AN"], bridge.values["sampled"]
    personalised = [name for name in PERSONALISED if name in exact]
    ratios = {name: uncorrected[name] / exact[name] for name in personalised if exact[name] > 0}
    zero = [name for name in personalised if exact[name] <= 0]
    clauses = []
    if ratios:
        many = len(ratios) > 1
        clauses.append(RATIO.format(recommenders="recommenders" if many else "recommender", names=and_list(list(ratios)),
                                    span=fmt_span(min(ratios.values()), max(ratios.values()), "{:.1f}"),
                                    their="their" if many else "its"))
    if exact.get("Popularity", 0) > 0:
        ratio = f"{uncorrected['Popularity'] / exact['Popularity']:.1f}"
        clauses.append((POPULARITY_AFTER if clauses else POPULARITY_ALONE).format(ratio=ratio))
    if zero:
        clauses.append(NO_RATIO.format(names=and_list(zero)))
    text = "; ".join(clauses)
    return f" {text[0].upper()}{text[1:]}." if text else ""


def bridge_text(bridge: Bridge) -> str:
    """The sizes of the bridge's runs and pools, and how far the uncorrected precision is from the exact one."""
    if not bridge.formed:
        return NOT_FORMED.format(size=BRIDGE_SIZE)
    shortage = bridge.runs.report.shortage_runs
    text = RUNS.format(runs=fmt_count(bridge.runs.n_runs, "run", "runs"), low=bridge.sizes.min(),
                       high=bridge.sizes.max())
    text += (SHORT_POOLS.format(runs=fmt_count(shortage, "run", "runs"), size=BRIDGE_SIZE) if shortage
             else FULL_POOLS.format(size=BRIDGE_SIZE))
    return text + ratio_text(bridge)


def truth_text(bridge: Bridge) -> str:
    """What a simulated world says about the items sampled as non-relevant."""
    if np.isnan(bridge.truth_share):
        return REAL_WORLD
    return SIMULATED_WORLD.format(share=fmt_pct(bridge.truth_share), pool=fmt_pct(bridge.pool_share))

"""The 1R bridge's tables and the sentences that read them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.bridge import BRIDGE_METHODS, BRIDGE_SIZE, Bridge
from recbias.text import fmt_count, fmt_number, fmt_pct, fmt_pm, fmt_span, fmt_yes, order_text

UNCORRECTED = f"1R TI-NN({BRIDGE_SIZE}), uncorrected"
EXACT = "exact 1R TI-AN"

NOT_FORMED = ("**On this build** no user has {size} non-relevant candidates, so the 1R TI-NN({size}) design cannot be "
              "formed and this section is skipped.")
RUNS = "**On this build**: {runs} (relevant test ratings); pools of {low:,} to {high:,} items including the relevant one; "
FULL_POOLS = "every pool held at least {size} non-relevant items."
SHORT_POOLS = "{runs} left out because the pool held fewer than {size} items."
RATIO = " The uncorrected 1R precision of the personalised recommenders is {span} times their exact TI-AN precision."

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
    """One row per estimate, one column per system: one draw of 1R TI-NN(100) P@10, uncorrected and corrected
    (± sd over draws), then the exact 1R TI-AN and 1R AI-AN precision."""
    if not bridge.formed:
        return _not_formed()
    names = list(bridge.values["TI-AN"])
    rows = {_label(method): [fmt_pm(bridge.values[method][name], bridge.sds[method][name], 4) for name in names]
            for method in BRIDGE_METHODS}
    rows[EXACT] = [fmt_number(bridge.values["TI-AN"][name], 4) for name in names]
    rows["1R AI-AN"] = [fmt_number(bridge.values["AI-AN"][name], 4) for name in names]
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)


def bridge_orders(bridge: Bridge) -> pd.DataFrame:
    """The order of the systems by each estimate, and whether it is the exact TI-AN order."""
    if not bridge.formed:
        return _not_formed()
    exact = order_text(bridge.values["TI-AN"])
    rows = [{"estimate": EXACT, "order": exact, "same as exact": ""}]
    for method in BRIDGE_METHODS:
        order = order_text(bridge.values[method])
        rows.append({"estimate": _label(method), "order": order, "same as exact": fmt_yes(order == exact)})
    return pd.DataFrame(rows)


def bridge_text(bridge: Bridge) -> str:
    """The sizes of the bridge's runs and pools, and how far the uncorrected precision is from the exact one."""
    if not bridge.formed:
        return NOT_FORMED.format(size=BRIDGE_SIZE)
    shortage = bridge.runs.report.shortage_runs
    text = RUNS.format(runs=fmt_count(bridge.runs.n_runs, "run", "runs"), low=bridge.sizes.min(),
                       high=bridge.sizes.max())
    text += (SHORT_POOLS.format(runs=fmt_count(shortage, "run", "runs"), size=BRIDGE_SIZE) if shortage
             else FULL_POOLS.format(size=BRIDGE_SIZE))
    exact = bridge.values["TI-AN"]
    ratios = [bridge.values["sampled"][name] / exact[name] for name in exact if name != "Random" and exact[name] > 0]
    return text + (RATIO.format(span=fmt_span(min(ratios), max(ratios), "{:.1f}")) if ratios else "")


def truth_text(bridge: Bridge) -> str:
    """What a simulated world says about the items sampled as non-relevant."""
    if np.isnan(bridge.truth_share):
        return REAL_WORLD
    return SIMULATED_WORLD.format(share=fmt_pct(bridge.truth_share), pool=fmt_pct(bridge.pool_share))

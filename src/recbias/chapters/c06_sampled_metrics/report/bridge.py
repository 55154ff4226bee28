"""The 1R bridge's tables and the numbers its prose quotes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.bridge import BRIDGE_METHODS, BRIDGE_SIZE, PERSONALISED, Bridge, pair_counts
from recbias.text import fmt_number, fmt_pct, fmt_pm, fmt_span, order_text

UNCORRECTED = f"1R TI-NN({BRIDGE_SIZE}), uncorrected"
EXACT = "exact 1R TI-AN"
RATIO = "uncorrected / exact TI-AN"


def _not_formed() -> pd.DataFrame:
    return pd.DataFrame({"": [f"no user has {BRIDGE_SIZE} non-relevant candidates on this dataset"]}, index=[""])


def _label(method: str) -> str:
    return UNCORRECTED if method == "sampled" else method


def ratios(bridge: Bridge) -> dict[str, float]:
    """How many times its exact TI-AN precision each system's uncorrected 1R precision is (NaN where the exact
    precision is zero)."""
    exact, uncorrected = bridge.values["TI-AN"], bridge.values["sampled"]
    return {name: uncorrected[name] / exact[name] if exact[name] > 0 else np.nan for name in bridge.names}


def bridge_table(bridge: Bridge) -> pd.DataFrame:
    """One row per estimate, one column per system of the papers' set: one draw of 1R TI-NN(100) P@10,
    uncorrected and corrected (± sd over draws), then the exact 1R TI-AN and 1R AI-AN precision, and how many
    times the exact TI-AN precision the uncorrected one is."""
    if not bridge.formed:
        return _not_formed()
    names = list(bridge.names)
    rows = {_label(method): [fmt_pm(bridge.values[method][name], bridge.sds[method][name], 4) for name in names]
            for method in BRIDGE_METHODS}
    rows[EXACT] = [fmt_number(bridge.values["TI-AN"][name], 4) for name in names]
    rows["1R AI-AN"] = [fmt_number(bridge.values["AI-AN"][name], 4) for name in names]
    rows[RATIO] = [fmt_number(ratio, 1) for ratio in ratios(bridge).values()]
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)


def bridge_orders(bridge: Bridge) -> pd.DataFrame:
    """The order of the systems by each estimate's means, and how many pairs it orders as the exact TI-AN
    precision or against it beyond noise (:func:`~recbias.chapters.c06_sampled_metrics.study.bridge.pair_counts`)."""
    if not bridge.formed:
        return _not_formed()
    columns = {"kept": "pairs ordered as exact", "reversed": "pairs reversed", "within noise": "pairs within noise"}
    counts = pair_counts(bridge).set_index("estimator").rename(columns=columns)
    rows = [{"estimate": EXACT, "order of the means": order_text(bridge.values["TI-AN"]),
             **dict.fromkeys(columns.values(), "")}]
    rows += [{"estimate": _label(method), "order of the means": order_text(bridge.values[method]),
              **counts.loc[method].to_dict()} for method in BRIDGE_METHODS]
    return pd.DataFrame(rows)


def bridge_numbers(bridge: Bridge) -> dict[str, str]:
    """The runs and their pools, the span of the ratio over the personalised systems and Popularity's ratio
    (a dash where there is none), and with a simulated world the share of sampled non-relevant items truly
    relevant, against that of the whole matrix ("unknown" on real data)."""
    by_system = ratios(bridge) if bridge.formed else {}
    personalised = [ratio for name, ratio in by_system.items() if name in PERSONALISED and np.isfinite(ratio)]
    popularity = by_system.get("Popularity", np.nan)
    sizes = bridge.sizes if bridge.formed else np.zeros(1, np.int64)
    short = bridge.runs.report.shortage_runs if bridge.runs.report else 0
    return {
        "bridge_runs": f"{bridge.runs.n_runs:,}", "bridge_short": f"{short:,}",
        "bridge_pool_min": f"{sizes.min():,}", "bridge_pool_max": f"{sizes.max():,}",
        "bridge_ratio_span": fmt_span(min(personalised), max(personalised), "{:.1f}") if personalised else "—",
        "bridge_ratio_popularity": f"{popularity:.1f}" if np.isfinite(popularity) else "—",
        **{name: "unknown" if np.isnan(share) else fmt_pct(share)
           for name, share in (("truth_share", bridge.truth_share), ("pool_share", bridge.pool_share))},
    }

"""Chapter 3 ("The test-sparsity bias"): the papers' statements with their verdicts, for the scorecard.

The statements of IRJ 2017 Section 4 on other metrics than precision, checked through the
elasticities of every metric (:func:`metric_claims`), and every statement of the section checked
on the page's dataset (:func:`findings`); the page lists them with
:func:`recbias.bookkit.scorecard.findings_table`.
"""

from __future__ import annotations

import pandas as pd

from recbias.experiments.sparsity_check import check_summary
from recbias.experiments.sparsity_lift import spread_factors
from recbias.experiments.sparsity_sweep import (
    AR_REMOVAL,
    FIT_MAX_REMOVED,
    ONE_R_AI_REMOVAL,
    ONE_R_REMOVAL,
    personalised,
)
from recbias.text import fmt_pct, fmt_span


#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 4"


def metric_claims(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """The papers' statements on other metrics (IRJ 2017 Sec. 4.2), each checked on every system but Random.

    Elasticities are compared with that of P@n over the same users (those with a relevant test
    item): ``ratio = e_M / e_P``.  Criteria: recall nearly insensitive, ``|ratio| <= 0.2``; MAP and
    nDCG slightly sensitive, ``0 < ratio <= 0.5``; nDCG@n clearly sensitive, a slope slightly
    flatter than precision's, ``0.5 <= ratio < 1``; MRR like precision, ``0.5 <= ratio <= 1.5``.
    """
    among = table[table["users"] == "with relevant"].set_index(["metric", "system"])["elasticity"]
    systems = [s for s in personalised(list(dict.fromkeys(table["system"]))) if (f"P@{n}", s) in among.index]
    checks = [
        ("recall-insensitive", f"Recall@{n} is nearly insensitive to the density", [f"Recall@{n}"], "|ratio| ≤ 0.2",
         lambda r: abs(r) <= 0.2),
        ("map-ndcg-slightly-sensitive", "MAP and nDCG (no cut-off) are slightly sensitive", ["MAP", "nDCG"],
         "0 < ratio ≤ 0.5", lambda r: 0 < r <= 0.5),
        ("ndcg-at-n-sensitive", f"nDCG@{n} is clearly sensitive, with a slope slightly flatter than P@{n}'s",
         [f"nDCG@{n}"], "0.5 ≤ ratio < 1", lambda r: 0.5 <= r < 1),
        ("mrr-like-precision", f"MRR follows the density as P@{n} does", ["MRR"], "0.5 ≤ ratio ≤ 1.5",
         lambda r: 0.5 <= r <= 1.5),
    ]
    rows = []
    for key, label, metrics, criterion, test in checks:
        ratios = {(m, s): among[(m, s)] / among[(f"P@{n}", s)]
                  for m in metrics for s in systems if (m, s) in among.index}
        if not ratios:
            continue
        low, high = min(ratios.values()), max(ratios.values())
        rows.append({"key": key, "statement": label, "criterion": criterion, "lowest": low, "highest": high,
                     "ratios": fmt_span(low, high), "holds": bool(all(test(r) for r in ratios.values()))})
    return pd.DataFrame(rows)


def findings(check: pd.DataFrame, density: pd.DataFrame, sizes: pd.DataFrame, orders: pd.DataFrame,
             claims: pd.DataFrame, lift: pd.DataFrame | None, n: int) -> list[dict]:
    """The scorecard findings of Section 4 on this build: ``key``, ``label``, ``holds``, ``evidence``, ``anchor``."""
    out = []
    summary = check_summary(check)
    out.append({"key": "random-precision-is-eq4-eq5", "anchor": "fig-sparsity-check",
                "label": "measured random precision equals the paper's Eq. 4 (AR) and Eq. 5 (1R) within simulation "
                         "error",
                "holds": summary["within_theory"] >= 0.9,
                "evidence": f"{fmt_pct(summary['within_theory'], 0)} of {summary['configurations']} configurations "
                            f"within the 95% simulation band (criterion: at least 90%); largest |z| = "
                            f"{summary['max_z']:.1f}"})
    ar = density[(density["sweep"] == AR_REMOVAL) & density["system"].isin(personalised(density["system"]))]
    if len(ar):
        out.append({"key": "ar-precision-linear-in-density", "anchor": "fig-sparsity-ar",
                    "label": f"AR P@{n} of every system decreases linearly with the relevance density",
                    "holds": bool((ar["r2"] >= 0.95).all()),
                    "evidence": f"R² of the line in δ: {fmt_span(ar['r2'].min(), ar['r2'].max(), '{:.3f}')} "
                                f"(criterion: at least 0.95 for every system but Random)"})
    personal = density["system"].isin(personalised(density["system"]))
    one_r = density[(density["sweep"] == ONE_R_REMOVAL) & personal]
    one_r_ai = density[(density["sweep"] == ONE_R_AI_REMOVAL) & personal]
    if len(one_r):
        evidence = (f"fitted change from the full test set to {fmt_pct(FIT_MAX_REMOVED, 0)} removed: "
                    f"{fmt_span(one_r['change'].min(), one_r['change'].max(), '{:+.0%}')} with TI-NN candidates")
        if len(one_r_ai):
            evidence += f", {fmt_span(one_r_ai['change'].min(), one_r_ai['change'].max(), '{:+.0%}')} with AI-NN"
        out.append({"key": "1r-precision-independent-of-density", "anchor": "fig-sparsity-one-r",
                    "label": f"1R P@{n} (TI-NN) does not depend on the amount of test ratings",
                    "holds": bool((one_r["change"].abs() <= 0.1).all()),
                    "evidence": evidence + " (criterion: within ±10% for every system but Random)"})
    others = sizes[sizes["system"].isin(personalised(sizes["system"]))]
    if len(others):
        out.append({"key": "1r-precision-inverse-to-t", "anchor": "fig-sparsity-size",
                    "label": f"every system's 1R P@{n} is inversely proportional to t",
                    "holds": bool(all(lo <= -1 <= hi for lo, hi in others["exponent_ci"])),
                    "evidence": f"fitted exponents {fmt_span(others['exponent'].min(), others['exponent'].max())} "
                                "for the systems but Random (criterion: -1 inside every 95% interval)"})
    fitted = orders[orders["x"] <= FIT_MAX_REMOVED]
    if len(fitted):
        extreme = orders[orders["x"] > FIT_MAX_REMOVED]
        evidence = (f"Kendall's τ against the full test set: {fmt_span(fitted['tau'].min(), fitted['tau'].max())} "
                    f"up to {fmt_pct(FIT_MAX_REMOVED, 0)} removed")
        if len(extreme):
            evidence += (f"; {fmt_span(extreme['tau'].min(), extreme['tau'].max())} beyond "
                         f"{fmt_pct(FIT_MAX_REMOVED, 0)}")
        out.append({"key": "order-survives-sparsity", "anchor": "fig-sparsity-orders",
                    "label": f"test sparsity does not change the order of systems by P@{n}, except at extreme sparsity",
                    "holds": bool(all(ci[1] >= 1.0 for ci in fitted["tau_ci"])),
                    "evidence": evidence + " (criterion: the 95% interval of τ reaches 1, the full test set's "
                                f"order, at every level up to {fmt_pct(FIT_MAX_REMOVED, 0)})"})
    for _, claim in claims.iterrows():
        out.append({"key": claim["key"], "anchor": "tbl-sparsity-metric-claims", "label": claim["statement"],
                    "holds": bool(claim["holds"]),
                    "evidence": f"elasticity over P@{n}'s: {claim['ratios']} (criterion: {claim['criterion']})"})
    if lift is not None and lift["dataset"].nunique() > 1:
        spread = spread_factors(lift).loc[personalised(lift["system"].unique())]
        out.append({"key": "1r-values-comparable-across-datasets", "anchor": "tbl-sparsity-spread",
                    "label": f"with a fixed t, 1R P@{n} varies less across datasets than AR P@{n}",
                    "holds": bool((spread[("1R", "P")] < spread[("AR", "P")]).all()),
                    "evidence": f"largest over smallest value across {lift['dataset'].nunique()} datasets, systems but "
                                f"Random: 1R {spread[('1R', 'P')].min():.1f} to {spread[('1R', 'P')].max():.1f}, AR "
                                f"{spread[('AR', 'P')].min():.1f} to {spread[('AR', 'P')].max():.1f}"})
    return out

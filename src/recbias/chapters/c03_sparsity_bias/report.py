"""The display tables of chapter 3 (each cell a formatted value, intervals on a second, smaller line) and the
measured values its prose quotes, formatted (:func:`numbers`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from recbias.chapters.c03_sparsity_bias.study.lift import ordered, spread_factors
from recbias.chapters.c03_sparsity_bias.study.sweeps import (AR_REMOVAL, FIT_MAX_REMOVED, ONE_R_AI_REMOVAL,
                                                             ONE_R_REMOVAL, personalised)
from recbias.chapters.c03_sparsity_bias.study.theory_check import BAND
from recbias.text import fmt_ci, fmt_number, fmt_pct

#: the heading of a fitted change from the full test set to the sparsest fitted level
CHANGE = f"0 to {fmt_pct(FIT_MAX_REMOVED, 0)} removed"

#: the measured values (:func:`.claims.measured`) the prose quotes, by format
QUOTED = {
    "{}": ("dataset", "n", "folds", "ar_design", "one_r_design", "ar_intercept_below", "ar_systems"),
    "{:,}": ("check_configurations", "check_users", "check_users_total", "check_skipped", "check_unshown", "followed",
             "rated", "size_users", "one_r_users_full", "one_r_users_last"),
    "{:,.0f}": ("size_low", "size_high", "pool_full", "pool_thin"),
    "{:.0%}": ("fit_max_removed", "check_within", "check_within_ar", "check_within_1r", "check_within_rho",
               "check_all_users_low", "check_all_users_high", "ar_loss", "pool_thin_level", "many_relevant",
               "one_r_last_level"),
    "{:+.0%}": ("one_r_change", "one_r_ai_change", "one_r_ai_change_low", "one_r_ai_change_high"),
    "{:.1f}": ("check_max_z", "ar_slope"),
    "{:.2f}": ("ar_random_slope", "ar_random_slope_low", "ar_random_slope_high", "size_random_exponent",
               "size_random_exponent_low", "size_random_exponent_high", "size_exponent", "size_exponent_low",
               "size_exponent_high", "elasticity_p_all", "elasticity_p_relevant", "elasticity_recall",
               "elasticity_map", "elasticity_ndcg", "elasticity_ndcg_at_n", "recall_ratio", "map_ndcg_ratio",
               "ndcg_at_n_ratio", "order_tau", "order_tau_beyond", "order_one_swap"),
    "{:.3f}": ("ar_r2",),
}


def numbers(values: Mapping[str, Any]) -> dict[str, str]:
    """Every value of :data:`QUOTED` formatted for the prose, "n/a" for one not measured on this build."""
    return {name: "n/a" if isinstance(value := values.get(name, np.nan), float) and np.isnan(value) else
            spec.format(value) for spec, names in QUOTED.items() for name in names}


def check_table(check: pd.DataFrame) -> pd.DataFrame:
    """The theory check per design: configurations, the share within the 95% simulation band of the closed
    form (Eq. 4 or Eq. 5) and of ``rho``, and the median ``measured / closed form``."""
    rows = []
    for design, part in check.groupby("design", sort=False):
        rows.append({
            "design": design, "configurations": len(part),
            "closed form": "1/t" if part["kind"].iloc[0] == "1R" else "σ(1−f)·|PR|/(t·|U|)",
            "in band of closed form": fmt_pct((part["z_theory"].abs() <= BAND).mean(), 0),
            "in band of ρ": fmt_pct((part["z"].abs() <= BAND).mean(), 0),
            "measured / closed form (median)": fmt_number(float((part["measured"] / part["theory"]).median()), 2),
        })
    return pd.DataFrame(rows)


def _cells(table: pd.DataFrame, value: str, digits: int = 2, fmt: str | None = None) -> dict[str, str]:
    """System -> ``value`` over its interval (the column ``<value>_ci``), as :func:`recbias.text.fmt_ci` shows it."""
    return {system: fmt_ci(v, ci, digits, fmt) for system, v, ci in zip(table["system"], table[value],
                                                                        table[f"{value}_ci"], strict=True)}


def ar_fits_table(density: pd.DataFrame) -> pd.DataFrame:
    """One row per system: the line fitted to AR P@n in the density, ``a + b delta``, with 95% intervals, its
    R² and the fitted relative change from the full test set to the sparsest fitted level."""
    ar = density[density["sweep"] == AR_REMOVAL]
    return pd.DataFrame({"slope b": _cells(ar, "slope", 1), "intercept a": _cells(ar, "intercept", 4),
                         "R²": dict(zip(ar["system"], (fmt_number(r, 3) for r in ar["r2"]), strict=True)),
                         f"change, {CHANGE}": _cells(ar, "change", fmt="{:+.0%}")}).rename_axis("system").reset_index()


def one_r_fits_table(density: pd.DataFrame, sizes: pd.DataFrame) -> pd.DataFrame:
    """One row per system: the fitted relative change of 1R P@n over the removal sweep with TI-NN and AI-NN
    candidates (a rescaled slope in the density, 0 when flat), and the exponent ``e`` of ``P@n ~ t^e`` in the
    size sweep, each with its 95% interval."""
    columns = {f"{label}: change, {CHANGE}": _cells(density[density["sweep"] == sweep], "change", fmt="{:+.0%}")
               for sweep, label in ((ONE_R_REMOVAL, "TI-NN"), (ONE_R_AI_REMOVAL, "AI-NN"))}
    columns["exponent e of t"] = _cells(sizes, "exponent") if len(sizes) else {}
    return pd.DataFrame({name: cells for name, cells in columns.items() if cells},
                        index=list(dict.fromkeys(density["system"]))).rename_axis("system").reset_index()


def elasticity_table(table: pd.DataFrame) -> pd.DataFrame:
    """Elasticities of the systems but Random (whose other metrics are noise) by metric and system, over intervals."""
    table = table[table["system"].isin(personalised(table["system"].unique()))]
    doubled = set(table.loc[table["users"] == "all", "metric"])
    labelled = table.assign(
        row=[m if m not in doubled else f"{m}<br><small>{'all users' if u == 'all' else 'with a relevant item'}</small>"
             for m, u in zip(table["metric"], table["users"], strict=True)],
        cell=[fmt_ci(e, ci, 2) for e, ci in zip(table["elasticity"], table["ci"], strict=True)])
    wide = labelled.pivot(index="row", columns="system", values="cell")
    return wide.reindex(index=list(dict.fromkeys(labelled["row"])), columns=list(dict.fromkeys(table["system"]))) \
        .rename_axis(index="metric", columns=None).reset_index()


def order_table(orders: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau of each removal level against the full test set (and the truth) over its interval, with the
    pairs swapped, AR and 1R side by side: columns ``(design, quantity)``, the level in ``("removed", "")``."""
    rows = []
    for x, part in orders.groupby("x", sort=True):
        row = {("removed", ""): fmt_pct(x, 0)}
        for sweep, label in ((AR_REMOVAL, "AR"), (ONE_R_REMOVAL, "1R")):
            level = part[part["sweep"] == sweep]
            if not len(level):
                continue
            r = level.iloc[0]
            row[(label, "users")] = f"{int(r['users']):,}"
            row[(label, "τ, full test set")] = fmt_ci(r["tau"], r["tau_ci"], 2)
            row[(label, "swapped")] = "<br>".join(f"{above} > {below}" for above, below in r["swapped"]) or "–"
            if np.isfinite(r["tau_truth"]):
                row[(label, "τ, truth")] = fmt_ci(r["tau_truth"], r["tau_truth_ci"], 2)
        rows.append(row)
    table = pd.DataFrame(rows)
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def world_table(world: pd.DataFrame | None) -> pd.DataFrame:
    """The 1R check on the ML-1M-shaped world: per system P@n at both ends, the change over its interval, the TI
    pool; a one-line note when the check was not run."""
    if world is None or not len(world):
        return pd.DataFrame({"note": ["not measured (world_check = False)"]})
    return pd.DataFrame({
        "system": world["system"],
        "P@n, full test set": [fmt_number(v, 4) for v in world["full"]],
        f"P@n, {fmt_pct(FIT_MAX_REMOVED, 0)} removed": [fmt_number(v, 4) for v in world["thinned"]],
        "change": list(_cells(world, "change", fmt="{:+.0%}").values()),
        "TI pool (items)": [f"{int(a):,} → {int(b):,}" for a, b in zip(world["pool_full"], world["pool_thinned"],
                                                                       strict=True)],
    })


def lift_table(lift: pd.DataFrame) -> pd.DataFrame:
    """P@n of every system per dataset and design over its lift (``12.0×``), with ``rho``; AR rows first."""
    rows = ordered(lift)
    cells = rows.assign(cell=[f"{p:.4f}<br><small>{lift:.1f}×</small>"
                              for p, lift in zip(rows["P"], rows["lift"], strict=True)],
                        where=[f"{d}<br><small>{g}</small>" for d, g in zip(rows["dataset"], rows["design"],
                                                                          strict=True)],
                        rho=rows["rho"].map(lambda r: f"{r:.4f}"))
    wide = cells.pivot_table(index=["where", "rho"], columns="system", values="cell", aggfunc="first", sort=False)
    return wide[list(dict.fromkeys(lift["system"]))].rename_axis(columns=None).reset_index() \
        .rename(columns={"where": "dataset, design", "rho": "ρ"})


def spread_table(lift: pd.DataFrame, n: int) -> pd.DataFrame:
    """:func:`~.study.lift.spread_factors` as a page table, one row per system."""
    spread = spread_factors(lift)
    labels = {("AR", "P"): f"AR P@{n}", ("AR", "lift"): "AR lift", ("1R", "P"): f"1R P@{n}", ("1R", "lift"): "1R lift",
              ("all", "P"): f"P@{n}, all designs", ("all", "lift"): "lift, all designs"}
    table = spread[list(labels)].set_axis(list(labels.values()), axis=1)
    return table.map(lambda v: f"{v:.1f}×").rename_axis("system").reset_index()


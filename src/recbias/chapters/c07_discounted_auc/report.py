"""Chapter 7's display tables, ready to show (numbers formatted as the page prints them; a part the
dataset lacks comes back as an empty table, which the page glues as its note), and the names the page
gives the study's metrics and lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from recbias.bookkit.claims import Number
from recbias.bookkit.scorecard import FINDING, Claim
from recbias.bookkit.scorecard import findings_table as scorecard_findings
from recbias.chapters.c07_discounted_auc.study import NewUserStudy, SensitivitySearch, Setting
from recbias.chapters.c07_discounted_auc.study import new_users, short_head, systems
from recbias.ratings import Ratings
from recbias.text import fmt_ci, fmt_number, fmt_pct

#: the observed metrics of the truth study as the page names them (with ``{s}``, the step)
OBSERVED = {systems.NO_STEP: "behavioural AUC without a step", systems.STEP: "behavioural AUC, step at s = {s}"}


def cells(values: pd.Series, spec: str) -> pd.Series:
    """Numbers formatted with ``spec``, missing ones as "–"."""
    return values.map(lambda v: "–" if pd.isna(v) else spec.format(v))


def list_name(study: NewUserStudy, name: str) -> str:
    """A reference list of the new-user study as the page names it: "the global list", "the list for gender and age"."""
    return "the global list" if name == new_users.GLOBAL else f"the list for {' and '.join(study.attributes)}"


def settings_table(setting: Setting, ratings: Ratings) -> pd.DataFrame:
    """The metric's settings on this page, with the paper's counterpart of each (the metric's name is
    given in the text, where it can break)."""
    return pd.DataFrame({
        "setting": ["positive rating", "gain of a hit", "page size m", "Q, share of users opening page 2",
                    "continuation probability p = Q<sup>1/m</sup>", "list length z"],
        "this page": [f"r ≥ {ratings.positive_threshold:g}", f"r − {setting.base:g}", f"{setting.m}",
                      f"{setting.Q:g}", fmt_number(setting.p, 3), f"{setting.z}"],
        "paper": ["r ≥ 6 of 10 stars", "r − 5", "not stated", "from pagination logs, not stated", "not stated",
                  "large, not stated"],
    })


def attention_table(summary: pd.DataFrame, z: int) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.attention_summary` as the page shows it."""
    return pd.DataFrame({
        "Q": cells(summary["Q"], "{:g}"), "p": cells(summary["p"], "{:.3f}"),
        "items read on average": cells(summary["read"], "{:.1f}"),
        "weight of rank 1, d₁": cells(summary["d1"], "{:.3f}"),
        "weight on page 1": cells(summary["page"], "{:.1%}"),
        f"weight in the first {z}": cells(summary["list"], "{:.1%}"),
    })


def cases_table(cases: pd.DataFrame) -> pd.DataFrame:
    """The four cases as the page shows them: the list named by its length, counts with two decimals."""
    shown = cases.assign(list=[f"first {n}" for n in cases["list"]])
    return shown.assign(**{column: cells(shown[column], "{:.2f}") for column in cases.columns[2:]})


def mishit_table(effect: pd.DataFrame) -> pd.DataFrame:
    """The metric with mishits ignored and counted as minus one hit, each with the system's rank in brackets,
    and the relative change."""
    def ranked(column: str, rank: str) -> list[str]:
        return [f"{value:.4f} ({place})" for value, place in zip(effect[column], effect[rank], strict=True)]

    return pd.DataFrame({"system": effect["system"], "mishits ignored": ranked("mishits ignored", "rank ignored"),
                         "each mishit −1": ranked("mishits at -1", "rank at -1"),
                         "change": cells(effect["change"], "{:+.1%}")})


def q_orders_table(runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.order_runs` as the page shows it."""
    first, last = runs["from"].iloc[0], runs["to"].iloc[-1]
    return pd.DataFrame({
        "Q": [f"{a:g}" if a == b else f"{a:g} to {b:g}" for a, b in zip(runs["from"], runs["to"], strict=True)],
        "order": runs["order"], f"τ with the order at Q = {first:g}": cells(runs["tau first"], "{:.2f}"),
        f"τ with the order at Q = {last:g}": cells(runs["tau last"], "{:.2f}")})


def search_table(search: SensitivitySearch | None, n_items: int) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.short_head.summary` as the page shows it: one row per
    step, ``s`` with its share of the catalogue."""
    if search is None:
        return pd.DataFrame()
    rows = short_head.summary(search)
    kept = rows["global kept"].map(lambda share: "< 0.1%" if 0 < share < 0.001 else fmt_pct(share))
    return pd.DataFrame({
        "step": rows["rule"], "s": [f"{s} ({fmt_pct(s / n_items)})" for s in rows["s"]],
        "increase": rows["relative increase"].map(lambda x: fmt_pct(x, 1 if abs(x) < 0.1 else 0)),
        "mean z": cells(rows["sensitivity"], "{:.1f}"), "fewest wins": cells(rows["wins"], "{:.0%}"),
        "with 0": cells(rows["contain zero"], "{:g} of " + f"{rows['segmentations'].iloc[0]}"),
        "below 0": cells(rows["below zero"], "{:g}"), "global keeps": kept})


def head_table(shares: pd.DataFrame | None) -> pd.DataFrame:
    """Each system's metric without and with the step, and the short head's share of the first."""
    if shares is None:
        return pd.DataFrame()
    return shares.assign(**{"unpenalised": cells(shares["unpenalised"], "{:.4f}"),
                            "penalised": cells(shares["penalised"], "{:.4f}"),
                            "short-head share": cells(shares["short-head share"], "{:.1%}")})


def _spread(found: pd.Series) -> str:
    """The spread of a crossing ``k`` over resampled users, as a table cell."""
    if np.isfinite(found["low"]):
        return f"{found['low']:g}" if found["low"] == found["high"] else f"{found['low']:g} to {found['high']:g}"
    return "none crosses" if found["crossed in"] == 0 else f"{fmt_pct(found['crossed in'], 0)} cross"


def crossing_table(study: NewUserStudy | None) -> pd.DataFrame:
    """Per metric and system: its value with the most known ratings, the two reference lists, and from which
    ``k`` it stays above the demographic list, with the spread of that ``k`` over resampled users."""
    if study is None:
        return pd.DataFrame()
    most = study.known[-1]
    rows = study.curves[study.curves["k"] == most].merge(study.crossings, on=["system", "metric"], how="left")
    metric = rows["metric"].where(rows["metric"] == new_users.NO_STEP, f"step at s = {study.step}")
    table = pd.DataFrame({"metric": metric, "system": rows["system"],
                          f"from {most} ratings": cells(rows["value"], "{:.3f}")})
    for name, lines in study.lines.groupby("list", sort=False):
        table[list_name(study, name).removeprefix("the ")] = cells(rows["metric"].map(
            lines.set_index("metric")["value"]), "{:.3f}")
    if len(study.crossings):
        table["above it from k"] = rows["crossing"].map(lambda k: f"{k:g}" if np.isfinite(k) else "never")
        table["95% of resamples"] = [_spread(row) for _, row in rows.iterrows()]
    return table


def heads_table(study: NewUserStudy | None) -> pd.DataFrame:
    """How many of the step's head items each list of the new-user study shows on its first page, on average:
    the two reference lists, and each system at the fewest and most known ratings."""
    if study is None or not study.step:
        return pd.DataFrame()
    names = [list_name(study, name).removeprefix("the ") if np.isnan(k) else name
             for name, k in zip(study.heads["list"], study.heads["k"], strict=True)]
    return pd.DataFrame({"list": names, "known ratings": cells(study.heads["k"], "{:g}"),
                         "head items on page 1": cells(study.heads["count"], "{:.1f}")})


def ranking_table(means: pd.DataFrame, s: int) -> pd.DataFrame:
    """The systems under each metric: the mean with, in brackets, the system's rank under that metric."""
    ranks = means.rank(ascending=False, method="min").astype(int)
    shown = {column: [f"{v:.4f} ({r})" for v, r in zip(means[column], ranks[column], strict=True)]
             for column in means.columns}
    names = {systems.NO_STEP: "bAUC, no step", systems.STEP: f"bAUC, step at s = {s}"}
    return pd.DataFrame(shown, index=means.index).rename(columns=names).reset_index()


def truth_table(agreement: pd.DataFrame | None, s: int) -> pd.DataFrame:
    """One row per observed metric, one column per truth: Kendall's tau-b over its resampling interval, its
    mean over the truths, and whether the truly best system comes first under that metric for any of them."""
    if agreement is None:
        return pd.DataFrame()
    taus = zip(agreement["tau"], agreement["tau_low"], agreement["tau_high"], strict=True)
    names = agreement["observed metric"].map(lambda name: OBSERVED.get(name, name).format(s=s))
    shown = agreement.assign(**{"observed metric": names, "truth": "true " + agreement["truth"],
                                "text": [fmt_ci(tau, (low, high)) for tau, low, high in taus]})
    table = shown.pivot(index="observed metric", columns="truth", values="text")
    table = table.loc[list(dict.fromkeys(shown["observed metric"])), list(dict.fromkeys(shown["truth"]))]
    by_metric = shown.groupby("observed metric", sort=False)
    best = by_metric["best"].max().map({1.0: "yes", 0.0: "no"})
    return table.assign(**{"mean τ": by_metric["tau"].mean().map("{:.2f}".format), "best system first": best}
                        ).rename_axis(None, axis=1).reset_index()


def published_table(numbers: Sequence[Number], values: Mapping[str, Any]) -> pd.DataFrame:
    """Each published number next to ours on this build ("–" where this build has no estimate); shares
    as percentages."""
    def shown(key: str, value: float) -> str:
        return fmt_pct(value, 0) if key.endswith("share") else f"{value:g}"

    return pd.DataFrame({
        "statistic": [number.statement for number in numbers],
        "paper (Imhonet)": [shown(number.key, number.value) for number in numbers],
        "this build": [shown(number.key, values[number.key]) if number.key in values else "–" for number in numbers],
    })


def findings_table(checked: Sequence[Claim]) -> pd.DataFrame:
    """The findings among the registered claims: statement, verdict and evidence."""
    return scorecard_findings([claim for claim in checked if claim.kind == FINDING])

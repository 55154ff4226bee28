"""Chapter 5 ("Designs that neutralise popularity"): where each design and metric puts popularity.

The popularity index ``(M_pop - M_rnd) / (max_s M_s - M_rnd)`` (``s`` over the personalised
systems) places popularity at 0 (random's level) or 1 (the best personalised system's) under
one design and metric.  :func:`popularity_index` computes it for the designs of the papers'
Fig. 8 and the metrics of their Fig. 9 (bpref, infAP, stratified recall) with the later IPS and
SNIPS estimators, :func:`sweep_index` over the exponent of stratified recall and of the
propensities, and :func:`fig9_table` / :func:`incomplete_text` / :func:`sweep_text` show them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.experiments.neutralising import PERSONALISED, DatasetStudy, design_summary
from recbias.text import fmt_number

#: the metric and design behind every row of the popularity-index figure: (row, design label, metric)
INDEX_ROWS: tuple[tuple[str, str, str], ...] = (
    ("AR, P@10", "AR TI-AN", "P@10"),
    ("1R, P@10", "1R", "P@10"),
    ("1R -10% head, P@10", "1R -head", "P@10"),
    ("P1R, P@10", "P1R", "P@10"),
    ("U1R, P@10", "U1R", "P@10"),
    ("UAR, P@10", "UAR", "P@10"),
    ("AI-UAR, P@10", "AI-UAR", "P@10"),
    ("AR, bpref", "AR TI-AN", "bpref"),
    ("AR, infAP", "AR TI-AN", "infAP"),
    ("1R, infAP", "1R", "infAP"),
    ("AR, stratified recall (γ = 1)", "AR TI-AN", "PSR@10(gamma=1)"),
    ("1R, stratified recall (γ = 1)", "1R", "PSR@10(gamma=1)"),
    ("AR, IPS-P@10 (β = 0.5)", "AR TI-AN", "IPS-P@10(power=0.5)"),
    ("AR, SNIPS-P@10 (β = 0.5)", "AR TI-AN", "SNIPS-P@10(power=0.5)"),
    ("AR, SNIPS-Recall@10 (β = 0.5)", "AR TI-AN", "SNIPS-Recall@10(power=0.5)"),
)
#: the metrics of the papers' Fig. 9
FIG9 = ("bpref", "infAP", "PSR@10(gamma=1)")
#: the estimator families of the sweep, in the order they are drawn, with their display names
FAMILIES = {"PSR": "stratified recall", "IPS-P": "IPS-P@10", "SNIPS-P": "SNIPS-P@10", "IPS-Recall": "IPS-Recall@10",
            "SNIPS-Recall": "SNIPS-Recall@10"}


def popularity_index(study: DatasetStudy, rows: Sequence[tuple[str, str, str]] = INDEX_ROWS) -> pd.DataFrame:
    """Where each design and metric puts Popularity between Random (0) and the best personalised system (1).

    ``index = (M_pop - M_rnd) / (max_s M_s - M_rnd)`` over the personalised systems ``s``; negative
    below random, above 1 when popularity beats every personalised system.  ``best system`` names the
    best personalised system, or reads "tie" when several share the best value.
    """
    metrics = list(dict.fromkeys(m for _, _, m in rows))
    means = design_summary(study.runs, metrics).set_index(["design", "metric", "system"])["mean"].sort_index()
    out = []
    for row, label, metric in rows:
        cell = means.loc[(study.designs[label], metric)]
        personalised = cell[list(PERSONALISED)]
        best = personalised.max()
        out.append({"dataset": study.name, "method": row, "design": study.designs[label], "metric": metric,
                    "Popularity": cell["Popularity"], "Random": cell["Random"], "best personalised": best,
                    "best system": personalised.idxmax() if (personalised == best).sum() == 1 else "tie",
                    "index": (cell["Popularity"] - cell["Random"]) / (best - cell["Random"])})
    return pd.DataFrame(out)


def sweep_index(study: DatasetStudy, gammas: Sequence[float], powers: Sequence[float]) -> pd.DataFrame:
    """The popularity index of stratified recall over ``gamma`` and of IPS/SNIPS over the power (AR TI-AN)."""
    rows = [(f"PSR γ={g:g}", "AR TI-AN", f"PSR@10(gamma={g:g})") for g in gammas]
    rows += [(f"{e}-{m} β={b:g}", "AR TI-AN", f"{e}-{m}@10(power={b:g})")
             for e in ("IPS", "SNIPS") for m in ("P", "Recall") for b in powers]
    table = popularity_index(study, rows)
    table["family"] = [m.split("@")[0] for m in table["metric"]]
    table["parameter"] = [float(m.split("=")[1].rstrip(")")) for m in table["metric"]]
    # stratified recall's weight |PR(i)|^(-gamma/(gamma+1)) is a propensity weight with beta = gamma/(gamma+1)
    table["beta"] = np.where(table["family"] == "PSR", table["parameter"] / (table["parameter"] + 1), table["parameter"])
    table.loc[(table["family"] == "PSR") & np.isinf(table["parameter"]), "beta"] = 1.0
    return table


def index_table(studies: Sequence[DatasetStudy]) -> pd.DataFrame:
    """:func:`popularity_index` of every study, one after the other."""
    return pd.concat([popularity_index(s) for s in studies], ignore_index=True)


def sweep_table(studies: Sequence[DatasetStudy], gammas: Sequence[float], powers: Sequence[float]) -> pd.DataFrame:
    """:func:`sweep_index` of every study, one after the other."""
    return pd.concat([sweep_index(s, gammas, powers) for s in studies], ignore_index=True)


def fig9_table(indices: pd.DataFrame) -> pd.DataFrame:
    """The papers' Fig. 9 metrics per dataset, metric and design: popularity, random, the best personalised
    system (named on a second line) and the popularity index."""
    rows = indices[indices["metric"].isin(FIG9)]
    best = [f"{value:.4f}<br><small>{name}</small>" for value, name in zip(rows["best personalised"], rows["best system"],
                                                                           strict=True)]
    table = rows.assign(**{"best personalised": best, "metric": rows["metric"].map(
        {"bpref": "bpref", "infAP": "infAP", "PSR@10(gamma=1)": "stratified recall"}),
        "design": [method.split(",")[0] for method in rows["method"]]})
    table = table[["dataset", "metric", "design", "Popularity", "Random", "best personalised", "index"]]
    return table.set_index(["dataset", "metric", "design"]).rename_axis([None, None, None])


def index_of(indices: pd.DataFrame, dataset: str, method: str) -> float:
    rows = indices[(indices["dataset"] == dataset) & (indices["method"] == method)]
    return float(rows["index"].iloc[0]) if len(rows) else np.nan


def incomplete_text(indices: pd.DataFrame) -> str:
    """How bpref and infAP place popularity in AR against P@10, and against P1R and U1R, per dataset."""
    sentences = []
    for name in dict.fromkeys(indices["dataset"]):
        p10 = index_of(indices, name, "AR, P@10")
        lowest = min(index_of(indices, name, "P1R, P@10"), index_of(indices, name, "U1R, P@10"))
        measured = {m: v for m in ("bpref", "infAP") if np.isfinite(v := index_of(indices, name, f"AR, {m}"))}
        if not measured:
            continue
        verbs = {m: "lowers" if v < p10 else "raises" for m, v in measured.items()}
        values = " and ".join(fmt_number(v, 2) for v in measured.values())
        if len(measured) == 2 and len(set(verbs.values())) == 1:
            change = f"bpref and infAP both {verbs['bpref'][:-1]} it, to {values}"
        else:
            change = ", while ".join(f"{m} {verbs[m]} it to {fmt_number(v, 2)}" for m, v in measured.items())
        missing = "" if "bpref" in measured else " (bpref scores every system alike here, so it gives no index)"
        close = [m for m, v in measured.items() if v <= lowest]
        who = (" and ".join(close) + (" come" if len(close) > 1 else " comes") if close
               else "neither comes" if len(measured) == 2 else "it does not come")
        reach = f"{who} as close to random as the better of P1R and U1R ({fmt_number(lowest, 2)})"
        sentences.append(f"On {name}, AR P@10 puts popularity at {fmt_number(p10, 2)}; {change}{missing}, and {reach}.")
    return " ".join(sentences)


def sweep_text(sweeps: pd.DataFrame) -> str:
    """How far each estimator family moves popularity's index from the smallest to the largest exponent."""
    sentences = []
    for name, part in sweeps.groupby("dataset", sort=False):
        ends = {FAMILIES[family]: rows.sort_values("beta")["index"].to_numpy()[[0, -1]]
                for family, rows in part.groupby("family", sort=False)}
        drop = {family: first - last for family, (first, last) in ends.items()}
        falling = sum(d > 0 for d in drop.values())
        trend = ("every estimator lowers popularity's index as its exponent grows" if falling == len(drop) else
                 f"{falling} of the {len(drop)} estimators lower popularity's index as their exponent grows")
        most, least = max(drop, key=drop.get), min(drop, key=drop.get)
        sentences.append(f"On {name}, {trend}; {most} moves it furthest, from {fmt_number(ends[most][0], 2)} to "
                         f"{fmt_number(ends[most][1], 2)}, and {least} least, from {fmt_number(ends[least][0], 2)} "
                         f"to {fmt_number(ends[least][1], 2)}.")
    return " ".join(sentences)

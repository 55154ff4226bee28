"""Hand-made results of chapter 7's study, small enough to check its claims, tables, sentences and figures
against values worked out by hand."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c07_discounted_auc.study import NewUserStudy, SensitivitySearch, new_users, systems, truth

SYSTEMS = ("Popularity", "pLSA", "MF", "user-kNN", "Random")


def effect(ignored: Sequence[float] = (0.30, 0.40, 0.50, 0.45, 0.05),
           counted: Sequence[float] = (0.27, 0.36, 0.40, 0.42, 0.01), half: float = 0.02) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.mishit_effect` for the five systems of :data:`SYSTEMS`, each
    change's interval ``half`` wide on either side."""
    frame = pd.DataFrame({"system": SYSTEMS, "mishits ignored": ignored, "mishits at -1": counted})
    ranks = {f"rank {name}": frame[column].rank(ascending=False, method="min").astype(int)
             for name, column in (("ignored", "mishits ignored"), ("at -1", "mishits at -1"))}
    change = frame["mishits at -1"] / frame["mishits ignored"] - 1
    return frame.assign(change=change, **{"change low": change - half, "change high": change + half}, **ranks)


def cases(m: int = 10, z: int = 100) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.four_cases`: mishits per hit 0.2 (pLSA), 0.25 (MF),
    0.3 (user-kNN), 0.5 (Popularity) and 0.75 (Random) on the first page."""
    per_hit = dict(zip(SYSTEMS, (0.5, 0.2, 0.25, 0.3, 0.75), strict=True))
    rows = []
    for system in SYSTEMS:
        for n in (m, z):
            hits = 0.4 * n / 10
            rows.append({"system": system, "list": n, "hits": hits, "mishits": hits * per_hit[system],
                         "recommended, not rated": n - hits * (1 + per_hit[system]),
                         "liked, not recommended": 3.0 - hits, "mishits per hit": per_hit[system]})
    return pd.DataFrame(rows)


def search(sensitivity: Sequence[float] = (1.5, 4.0, 9.0, 7.0), chosen: int = 20,
           intervals: dict[int, Sequence[tuple[float, float]]] | None = None) -> SensitivitySearch:
    """A short-head search over ``s`` = 0, 5, 20, 80 with two segmentations (gender, age) and the given
    mean sensitivity per ``s``; ``intervals`` sets the (low, high) of each segmentation at some ``s``."""
    sizes = (0, 5, 20, 80)
    intervals = intervals or {0: [(-0.02, 0.10), (0.01, 0.12)], 20: [(2.0, 4.0), (2.5, 3.9)]}
    increase = dict(zip(sizes, (0.071, 0.5, 3.17, 40.0), strict=True))
    rows = []
    for k, label in enumerate(("gender", "age")):
        for s in sizes:
            low, high = intervals.get(s, [(0.8 * increase[s], 1.2 * increase[s])] * 2)[k]
            rows.append({"segmentation": label, "s": s, "global": 0.5 / (1 + s), "segment": 0.5 / (1 + s) * 1.1,
                         "relative increase": increase[s], "sd": 0.1, "low": low, "high": high,
                         "z": dict(zip(sizes, sensitivity, strict=True))[s], "wins": 1.0 if s == chosen else 0.9})
    curve = pd.DataFrame({"s": sizes, "relative increase": [increase[s] for s in sizes], "sensitivity": sensitivity,
                          "global": [0.5 / (1 + s) for s in sizes]})
    return SensitivitySearch(pd.DataFrame(rows), curve, chosen)


def shares(values: Sequence[float] = (0.99, 0.67, 0.58, 0.79, 0.10)) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.head_shares` with the given short-head shares."""
    unpenalised = np.array([0.3, 0.4, 0.5, 0.45, 0.05])
    return pd.DataFrame({"system": SYSTEMS, "unpenalised": unpenalised,
                         "penalised": unpenalised * (1 - np.asarray(values)), "short-head share": values})


def new_user_study(crossings: Sequence[float] = (20.0, 1.0), step: int = 40,
                   attributes: tuple[str, ...] = ("gender", "age"), known: Sequence[int] = (1, 2, 5, 30),
                   systems: Sequence[str] = ("MF",)) -> NewUserStudy:
    """A new-user study whose first system stays above the demographic list from ``crossings`` (without the
    step, then with it; NaN: never); no crossings without ``attributes``, no step metric when ``step`` is 0."""
    metrics = {new_users.NO_STEP: "bAUC@100(Q=0.3,m=10,gain=rating,base=3,s=0)"} | (
        {new_users.STEP: f"bAUC@100(Q=0.3,m=10,gain=rating,base=3,s={step})"} if step else {})
    lists = [new_users.GLOBAL] + ([new_users.DEMOGRAPHIC] if attributes else [])
    curves = pd.DataFrame([{"system": system, "k": k, "metric": metric, "value": 0.1 + 0.01 * k}
                           for metric in metrics for system in systems for k in known])
    lines = pd.DataFrame([{"list": name, "metric": metric, "value": 0.2 + 0.05 * j}
                          for metric in metrics for j, name in enumerate(lists)])
    rows = [{"system": system, "metric": metric, "crossing": crossing, "low": crossing, "high": crossing + 2,
             "crossed in": 1.0} for system in systems
            for metric, crossing in zip(metrics, crossings)] if attributes else []
    heads = pd.DataFrame([{"list": name, "k": np.nan, "count": 10.0 - 1.5 * j} for j, name in enumerate(lists)]
                         + [{"list": systems[0], "k": float(k), "count": c} for k, c in ((known[0], 2.3),
                                                                                          (known[-1], 6.1))])
    return NewUserStudy(list(known), curves, lines,
                        pd.DataFrame(rows, columns=["system", "metric", "crossing", "low", "high", "crossed in"]),
                        attributes, metrics, step, 988, heads)


def agreement(taus: dict[str, Sequence[float]] | None = None) -> pd.DataFrame:
    """:func:`recbias.chapters.c07_discounted_auc.study.truth_agreement`: Kendall's tau of each observed metric
    against the three truths (true P@10, nDCG@10, behavioural AUC)."""
    taus = taus or {"P@10": (0.54, 0.56, 0.58), "nDCG@10": (0.60, 0.63, 0.65), systems.NO_STEP: (0.67, 0.71, 0.70),
                    systems.STEP: (0.34, 0.38, 0.37)}
    rows = [{"observed metric": name, "tau": tau, "tau_low": tau - 0.05, "tau_high": tau + 0.05, "pairs": 0.8,
             "best": float(name == systems.NO_STEP), "truth": true}
            for j, true in enumerate(("P@10", "nDCG@10", truth.BEHAVIOURAL)) for name, values in taus.items()
            for tau in [values[j]]]
    return pd.DataFrame(rows)

"""The chapter-2 systems under the metric: the four cases of the paper's Section 2 and what ignoring
mishits is worth, the sweep over the attention ``Q``, and the systems under the metric with the step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c07_discounted_auc.study.scored import SystemStudy, mishit_runs
from recbias.chapters.c07_discounted_auc.study.setting import NON_PERSONALISED, Setting
from recbias.evaluate import kendall_tau
from recbias.evaluate.statistics import bootstrap_counts, percentile_interval
from recbias.text import order_text

#: values of Q of the sweep (Q = 1 reads the whole list: P@z)
Q_GRID = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0)
#: resamples of the users behind the interval of a system's change when mishits are counted
N_BOOT = 1000
#: the metrics the behavioural AUC is set against, and the columns of :func:`ranking_means` beyond them
CLASSICAL, NO_STEP, STEP = ("P@10", "nDCG@10"), "bAUC no step", "bAUC step"


def four_cases(study: SystemStudy, lengths: Sequence[int]) -> pd.DataFrame:
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


def mishit_effect(study: SystemStudy, setting: Setting, systems: Sequence[str] | None = None, *,
                  confidence: float, n_boot: int = N_BOOT) -> pd.DataFrame:
    """Per system (those of ``systems``, every one by default): the binary metric (mishits ignored, as in the
    paper), the same with every mishit counted as ``-1``, the relative change with its percentile interval at
    ``confidence`` over ``n_boot`` resamples of the users (``change low``, ``change high``; a drawn user brings both
    readings of her run), and the system's rank under each (1 the best; equal values share the better rank)."""
    metric = setting.metric(gain="binary")
    labels = list(study.scored.scores) if systems is None else list(systems)
    good = study.scored.values([metric])
    bad = study.scored.values([metric], mishit_runs(study.scored.runs))
    ignored = pd.Series({label: good[label][metric].mean() for label in labels})
    counted = ignored - pd.Series({label: bad[label][metric].mean() for label in labels})
    counts = bootstrap_counts(len(study.scored.runs.users), n_boot, study.scored.seed)
    low, high = zip(*(percentile_interval(-_resampled(counts, bad[label][metric])
                                          / _resampled(counts, good[label][metric]), confidence)
                      for label in labels), strict=True)
    return pd.DataFrame({"system": labels, "mishits ignored": ignored.to_numpy(), "mishits at -1": counted.to_numpy(),
                         "change": (counted / ignored - 1).to_numpy(), "change low": low, "change high": high,
                         "rank ignored": _ranks(ignored), "rank at -1": _ranks(counted)})


def _resampled(counts: np.ndarray, values: pd.Series) -> np.ndarray:
    """The mean of the finite ``values`` (one per user) in every resample of ``counts`` (resamples x users)."""
    finite = np.isfinite(values.to_numpy())
    return (counts @ np.where(finite, values.to_numpy(), 0.0)) / (counts @ finite)


def _ranks(values: pd.Series) -> np.ndarray:
    """Ranks from the largest value down, values equal to 12 digits (as :func:`recbias.text.order_text` sees
    them) sharing the better rank."""
    level = values.map(lambda value: float(f"{value:.12g}"))
    return level.rank(ascending=False, method="min").astype(int).to_numpy()


def mishits_per_hit(cases: pd.DataFrame, m: int) -> tuple[float, float, float]:
    """The fewest and most mishits per hit of a personalised system in the first ``m`` items of the lists of
    :func:`four_cases`, and those of random lists."""
    page = cases[cases["list"] == m].set_index("system")["mishits per hit"]
    personal = page.drop(index=[system for system in NON_PERSONALISED if system in page.index])
    return float(personal.min()), float(personal.max()), float(page["Random"])


def q_sweep(study: SystemStudy, setting: Setting, Qs: Sequence[float] = Q_GRID) -> pd.DataFrame:
    """The unpenalised metric of every system for every ``Q`` (``m`` and ``z`` fixed): systems x Q."""
    names = {Q: setting.metric(Q=Q) for Q in Qs}
    means = study.scored.means(list(names.values()))
    return means.rename(columns={name: Q for Q, name in names.items()})


def order_runs(sweep: pd.DataFrame) -> pd.DataFrame:
    """The orders of the systems along the sweep, one row per run of consecutive ``Q`` with the same order:
    the first and last ``Q`` of the run (``from``, ``to``) and how many values of the sweep it spans
    (``values``), the order, and Kendall's tau-b with the orders at the smallest and the largest ``Q`` (``tau
    first``, ``tau last``)."""
    first, last = sweep.columns[0], sweep.columns[-1]
    rows: list[dict] = []
    for Q in sweep.columns:
        order = order_text(sweep[Q].to_dict())
        if rows and rows[-1]["order"] == order:
            rows[-1].update(to=Q, values=rows[-1]["values"] + 1)
            continue
        rows.append({"from": Q, "to": Q, "values": 1, "order": order,
                     "tau first": kendall_tau(sweep[Q].to_dict(), sweep[first].to_dict()),
                     "tau last": kendall_tau(sweep[Q].to_dict(), sweep[last].to_dict())})
    return pd.DataFrame(rows)


def observed_metrics(setting: Setting, s: int) -> dict[str, str]:
    """Label -> metric name: P@10, nDCG@10 and the metric without (:data:`NO_STEP`) and, when ``s > 0``, with
    the step at ``s`` (:data:`STEP`)."""
    return {name: name for name in CLASSICAL} | {NO_STEP: setting.metric()} | ({STEP: setting.metric(s=s)} if s else {})


def ranking_means(study: SystemStudy, setting: Setting, s: int) -> pd.DataFrame:
    """The chapter-2 systems (rows) under the metrics of :func:`observed_metrics`."""
    names = observed_metrics(setting, s)
    means = study.scored.means(list(names.values()))
    return means.rename(columns={v: k for k, v in names.items()}).rename_axis("system")


def head_shares(ranking: pd.DataFrame) -> pd.DataFrame | None:
    """Per system of :func:`ranking_means`: the metric without (``unpenalised``) and with the step
    (``penalised``), and the share of the first that the step's head items supply, ``1 - AUC_r(s) / AUC_r(0)``
    (``short-head share``); None without a step."""
    if STEP not in ranking.columns:
        return None
    shares = ranking[[NO_STEP, STEP]].set_axis(["unpenalised", "penalised"], axis=1)
    return shares.assign(**{"short-head share": 1 - shares["penalised"] / shares["unpenalised"]}).reset_index()

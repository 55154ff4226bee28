"""Chapter 7 ("The user-behaviour discounted AUC"): the metric against the truth of a simulated world.

A simulated world knows whether every user likes every item.  :func:`truth_agreement` orders the
field of chapter 8 (:func:`recbias.evaluate.fidelity.system_field`) on the chapter's split by
P@10, nDCG@10 and the discounted AUC without and with the step, and compares each order with the
orders by true P@10, true nDCG@10 and the binary behavioural AUC on complete relevance, the
"probability of success" the metric was built to estimate.
"""

from __future__ import annotations

import pandas as pd

from recbias.evaluate import Candidates
from recbias.evaluate.complete import TrueQuality
from recbias.experiments.discounted_auc import Scored, Setting, Study
from recbias.evaluate.fidelity import TruthStudy, fidelity, fit_field, system_field
from recbias.metrics import position_discount
from recbias.ratings import Ratings
from recbias.text import and_list, fmt_ci, fmt_span


def truth_agreement(
    study: Study, ratings: Ratings, setting: Setting, s: int, *, seed: int = 0, n_boot: int = 200
) -> pd.DataFrame:
    """How close the order of the fourteen systems of chapter 8 under each observed metric comes to their
    order under complete relevance, on a simulated world (``ratings.true_relevance``).

    Observed: P@10, nDCG@10 and the page's metric without and with the step at ``s`` on the AI-AN runs
    of ``study`` (its split and runs; the field is fitted on its training set, the systems it shares
    with ``study`` loaded from the fit cache).  Truth: P@10, nDCG@10 and the binary behavioural AUC over
    every item a user did not rate in training, read from the same score blocks.  One row per (truth,
    observed metric): Kendall's tau-b with its percentile interval over resampled users, the share of
    pairs in the true order and whether the truly best system comes first
    (:func:`recbias.evaluate.fidelity.fidelity`).
    """
    if ratings.true_relevance is None:
        raise ValueError(f"dataset '{ratings.name}' has no true relevance: the comparison needs a simulated world")
    train, runs = study.fold.train, study.scored.runs
    field = fit_field(system_field(seed), train, key_extra=study.fold.key, seed=seed)
    discount = position_discount(setting.p, setting.z, setting.z)[: ratings.n_items]  # no rank beyond the catalogue
    quality = TrueQuality(train, ratings.true_relevance, n=10, seed=None, discounts={"behavioural AUC": discount})
    candidates = Candidates([runs], users=quality.users)
    observed = {"P@10": "P@10", "nDCG@10": "nDCG@10", "behavioural AUC without a step": setting.metric()}
    if s:
        observed[f"behavioural AUC with the step at s = {s}"] = setting.metric(s=s)
    values = {}
    for label, system in field.items():  # one system's scores in memory at a time
        scored = Scored(runs, {label: candidates.score(system, [quality.reader(label)])[0]},
                        study.scored.popularity, study.scored.seed)
        values |= scored.values(list(observed.values()))
    protocols = {label: pd.DataFrame({system: frame[name] for system, frame in values.items()})
                 for label, name in observed.items()}
    truth = quality.tables()
    tables = []
    for truth_metric in truth:
        agreement = fidelity(TruthStudy(protocols, truth, list(field), ratings.name, seed), truth_metric,
                             n_boot=n_boot, seed=seed)
        tables.append(agreement.assign(truth=f"true {truth_metric}"))
    return pd.concat(tables, ignore_index=True).rename(columns={"protocol": "observed metric"})


def truth_table(agreement: pd.DataFrame) -> pd.DataFrame:
    """One row per observed metric, one column per truth: Kendall's tau-b over its resampling interval,
    and whether the truly best system comes first under that metric for any of the truths."""
    cell = agreement.assign(text=lambda f: [fmt_ci(t, (lo, hi)) for t, lo, hi in
                                           zip(f["tau"], f["tau_low"], f["tau_high"], strict=True)])
    table = cell.pivot(index="observed metric", columns="truth", values="text")
    table = table.loc[list(dict.fromkeys(agreement["observed metric"])), list(dict.fromkeys(agreement["truth"]))]
    best = agreement.groupby("observed metric", sort=False)["best"].max().map({1.0: "yes", 0.0: "no"})
    return table.assign(**{"best system first": best}).rename_axis(None, axis=1).reset_index()


def truth_text(agreement: pd.DataFrame) -> str:
    """Which observed metric comes closest to the true orders, ranked by its mean tau over the truths."""
    spans = agreement.groupby("observed metric", sort=False)["tau"].agg(["mean", "min", "max"]).sort_values(
        "mean", ascending=False)
    text = {name: fmt_span(row["min"], row["max"]) for name, row in spans.iterrows()}
    best, *others = text
    return (
        f"On this world, {best} orders the systems closest to the truth (Kendall's τ {text[best]} over the three "
        "true orders), followed by " + and_list([f"{name} ({text[name]})" for name in others]) + "."
    )

"""The metric against the truth of a simulated world, which knows whether every user likes every item:
:func:`truth_agreement`."""

from __future__ import annotations

import pandas as pd

from recbias.chapters.c07_discounted_auc.study.scored import Scored, SystemStudy
from recbias.chapters.c07_discounted_auc.study.setting import Setting
from recbias.chapters.c07_discounted_auc.study.systems import observed_metrics
from recbias.evaluate import Candidates
from recbias.evaluate.complete import TrueQuality
from recbias.evaluate.fidelity import TruthStudy, fidelity, fit_field, system_field
from recbias.metrics import position_discount
from recbias.ratings import Ratings

#: the truth read with the behavioural discount, beside true P@10 and nDCG@10
BEHAVIOURAL = "behavioural AUC"


def truth_agreement(
    study: SystemStudy, ratings: Ratings, setting: Setting, s: int, *, seed: int = 0, n_boot: int = 200
) -> pd.DataFrame | None:
    """How close the order of the fourteen systems of chapter 8 under each observed metric comes to their
    order under complete relevance, on a simulated world (``ratings.true_relevance``); None on data
    without complete relevance.

    Observed: the metrics of :func:`recbias.chapters.c07_discounted_auc.study.systems.observed_metrics` on
    the AI-AN runs of ``study`` (its split and runs; the field is fitted on its training set, the systems it
    shares with ``study`` loaded from the fit cache).  Truth: P@10, nDCG@10 and the binary behavioural AUC
    over every item a user did not rate in training (the "probability of success" the metric was built to
    estimate), read from the same score blocks.  One row per (truth, observed metric): Kendall's tau-b with
    its percentile interval over resampled users, the share of pairs in the true order and whether the truly
    best system comes first (:func:`recbias.evaluate.fidelity.fidelity`).
    """
    if ratings.true_relevance is None:
        return None
    train, runs = study.fold.train, study.scored.runs
    field = fit_field(system_field(seed), train, key_extra=study.fold.key, seed=seed)
    discount = position_discount(setting.p, setting.z, setting.z)[: ratings.n_items]  # no rank beyond the catalogue
    quality = TrueQuality(train, ratings.true_relevance, n=10, seed=None, discounts={BEHAVIOURAL: discount})
    candidates = Candidates([runs], users=quality.users)
    observed = observed_metrics(setting, s)
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
        tables.append(agreement.assign(truth=truth_metric))
    return pd.concat(tables, ignore_index=True).rename(columns={"protocol": "observed metric"})

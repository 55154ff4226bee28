"""Every system under every audit protocol, on the splits a score directory is prepared for, the runs drawn as a
fidelity study draws them (:func:`recbias.protocol_study.fold_runs`): one tidy per-run table, summarised with the
user as the unit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.evaluate import Candidates
from recbias.evaluate.experiment import Experiment, evaluate_fold, fit_systems
from recbias.metrics import ItemPopularity
from recbias.protocol_study import Protocol, fold_runs
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.recommenders.scorefiles import scoring_folds
from recbias.splits import Fold

VALUE = "value"


@dataclass
class Measured:
    """``experiment.runs``: one row per (protocol, system, run), the protocol in ``design``, its metric in
    ``value``; ``relevant_share``: per protocol, the share of relevant items among the candidates."""

    experiment: Experiment
    relevant_share: pd.Series
    splits: dict[str, Fold]

    def summary(self) -> pd.DataFrame:
        """Per ``protocol`` and ``system``: the ``mean`` over runs, ``ci_low``, ``ci_high`` (95%) and ``users``."""
        table = self.experiment.summary([VALUE])
        return table.rename(columns={"design": "protocol"}).drop(columns=["dataset", "metric"])

    def kept(self, plan: Sequence[Protocol]) -> list[Protocol]:
        """The protocols of ``plan`` measured here (a uniform protocol is left out without a uniform split)."""
        return [p for p in plan if p.label in self.relevant_share.index]

    def means(self) -> pd.DataFrame:
        """Protocol x system means."""
        table = self.summary()
        return table.pivot(index="protocol", columns="system", values="mean").reindex(
            index=self.relevant_share.index, columns=pd.unique(table["system"]))


def _tidy(table: pd.DataFrame, protocol: Protocol) -> pd.DataFrame:
    part = table[table["design"] == protocol.design]
    out = part[["dataset", "fold", "system", "run", "user", "group"]].copy()
    out.insert(2, "design", protocol.label)
    out[VALUE] = part[protocol.metric].to_numpy()
    return out


def measure_split(plan: list[Protocol], fold: Fold, systems: Mapping[str, str | Recommender], ratings: Ratings,
                  seed: int) -> tuple[list[pd.DataFrame], dict[str, float]]:
    """Per-run tables of the protocols of ``plan`` on one split, and each protocol's share of relevant candidates;
    presets are fitted through the fit cache, every other system afresh (its code or files may change)."""
    presets = {k: v for k, v in systems.items() if isinstance(v, str)}
    fitted = fit_systems(presets, fold.train, key_extra=fold.key, seed=seed) | fit_systems(
        {k: v for k, v in systems.items() if k not in presets}, fold.train, cache=False, seed=seed)
    fitted = {label: fitted[label] for label in systems}
    drawn = fold_runs(plan, fold, ratings, seed)
    runs = dict(zip(drawn.designs, drawn.runs, strict=True))
    popularity = ItemPopularity.from_ratings(ratings, fold.test, train=fold.train)
    metrics = list(dict.fromkeys(p.metric for p in drawn.plain))
    table = evaluate_fold(fold, fitted, runs, metrics, dataset=ratings.name, seed=seed, item_popularity=popularity)
    tables = [_tidy(table, p) for p in drawn.plain]
    shares = {p.label: float(runs[p.design].labels.mean()) for p in drawn.plain}
    for label, sample in drawn.samples.items():
        candidates = Candidates([sample.runs])
        for system, recommender in fitted.items():
            values = sample.values(system, candidates.score(recommender)[0])
            tables.append(pd.DataFrame({"dataset": ratings.name, "fold": fold.index, "design": label,
                                        "system": system, "run": np.arange(len(values)), "user": values["user"],
                                        "group": 0, VALUE: values["value"]}))
        shares[label] = float(sample.runs.labels.mean())
    return tables, shares


def measure(ratings: Ratings, plan: list[Protocol], systems: Mapping[str, str | Recommender], *, seed: int = 0,
            test_ratio: float = 0.2) -> Measured:
    """Every protocol of ``plan`` for every system; protocols of a split that does not exist are left out
    (no uniform test profile at ``test_ratio``)."""
    splits = scoring_folds(ratings, seed=seed, test_ratio=test_ratio)
    tables, shares = [], {}
    for name, fold in splits.items():
        split_tables, split_shares = measure_split([p for p in plan if p.split == name], fold, systems, ratings, seed)
        tables += split_tables
        shares |= split_shares
    runs = pd.concat(tables, ignore_index=True)
    for column in ("dataset", "design", "system"):
        runs[column] = pd.Categorical(runs[column], categories=list(pd.unique(runs[column])))
    order = [p.label for p in plan if p.label in shares]
    return Measured(Experiment(runs=runs, reports=pd.DataFrame()), pd.Series(shares).reindex(order), splits)

"""How closely an offline measurement orders a field of systems as a truth does (chapters 7 and 8).

* :func:`system_field`: fourteen systems with very different reliance on popularity, from
  random to popularity through personalised ones and popularity blends
  (:class:`recbias.recommenders.PopularityBlend`);
* :func:`fit_field`: the field fitted, the blends sharing the fit of their base;
* :class:`TruthStudy`: per-user values of every measurement and of the truth for one split;
* :func:`fidelity`: Kendall's tau-b between each measurement's order of the systems and the
  true order, the share of pairs in the true order and whether the truly best system comes
  first (:func:`recbias.evaluate.order_agreement`), with percentile intervals over users
  resampled with replacement, the sampling unit (a user's runs are averaged first); each
  protocol against the truth of the fits it scored;
* :func:`higher_share` and :func:`paired_pvalue`: two protocols compared on the same resamples, and
  :func:`leaders`, the protocols not clearly behind the most faithful one;
* :func:`fidelity_over_seeds`: the same over several splits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from recbias.cache import recommender_params
from recbias.evaluate import bootstrap_counts, order_agreement, resampled_pvalue
from recbias.evaluate.experiment import fit_systems
from recbias.splits import fold_seed
from recbias.ratings import Ratings
from recbias.recommenders import BaseRanks, PopularityBlend, Recommender, make

__all__ = ["BLEND_WEIGHTS", "FIELD", "TruthStudy", "fidelity", "fidelity_over_seeds", "fit_field",
           "higher_share", "leaders", "paired_pvalue", "system_field"]

#: label -> (preset of :func:`recbias.recommenders.make`, parameters); blends are added by :func:`system_field`
FIELD: dict[str, tuple[str, dict]] = {
    "Random": ("random", {}),
    "Popularity": ("popularity", {}),
    "pLSA": ("plsa", {}),
    "pLSA (5 aspects)": ("plsa", {"n_aspects": 5}),
    "MF": ("mf", {}),
    "MF (4 factors)": ("mf", {"factors": 4}),
    "MF (strong reg.)": ("mf", {"regularization": 200.0}),
    "X (iALS)": ("ials-x", {}),
    "user-kNN": ("user-knn", {}),
    "item-kNN": ("item-knn", {}),
    "Y (item-kNN)": ("item-knn-y", {}),
}
#: weights of popularity in the MF blends of the field
BLEND_WEIGHTS = (0.25, 0.5, 0.75)


def system_field(seed: int = 0) -> dict[str, Recommender]:
    """Fourteen unfitted systems, from random to popularity through personalised ones and blends."""
    systems = {label: make(preset, seed=seed, **params) for label, (preset, params) in FIELD.items()}
    for weight in BLEND_WEIGHTS:
        systems[f"MF + {weight:.0%} popularity"] = PopularityBlend("mf", weight, seed=seed)
    return systems


def fit_field(
    systems: Mapping[str, Recommender], train: Ratings, *, key_extra: Any = None, cache: bool = True, seed: int = 0
) -> dict[str, Recommender]:
    """:func:`recbias.evaluate.experiment.fit_systems` for a field with blends: a blend whose base is
    also in the field (the same preset, parameters and seed, as the field's MF is for its blends) is
    built on that system's fit (:meth:`recbias.recommenders.PopularityBlend.fit_on`) instead of fitting
    it again; the result is the same."""
    blends = {label: r for label, r in systems.items() if isinstance(r, PopularityBlend)}
    fitted = fit_systems({label: r for label, r in systems.items() if label not in blends}, train,
                         key_extra=key_extra, cache=cache, seed=seed)
    ranks: dict[int, BaseRanks] = {}  # one per shared base: its blends rank its scores once
    for label, blend in blends.items():
        base = make(blend.base, seed=blend.seed)
        shared = next((r for r in fitted.values() if type(r) is type(base) and r.seed == base.seed
                       and recommender_params(r) == recommender_params(base)), None)
        if shared is None:
            fitted |= fit_systems({label: blend}, train, key_extra=key_extra, cache=cache, seed=seed)
        else:
            blend.name = label
            fitted[label] = blend.fit_on(train, shared, ranks.setdefault(id(shared), BaseRanks(shared)))
    return {label: fitted[label] for label in systems}


@dataclass
class TruthStudy:
    """Per-user values of every protocol and of the truth, for one dataset and split seed.

    Attributes:
        protocols: protocol label -> users x systems frame of per-user means.
        truth: truth metric -> users x systems frame.
        systems: the system labels, in field order.
        dataset, seed, split: where it was measured: the dataset, the experiment's seed and the
            fold of :func:`recbias.evaluate.experiment.make_folds`.
        truth_of: protocol label -> its own truth tables (truth metric -> users x systems), for a
            protocol that scored other fits of the systems than ``truth`` describes (fitted on
            another split); every other protocol is set against ``truth``.
    """

    protocols: dict[str, pd.DataFrame]
    truth: dict[str, pd.DataFrame]
    systems: list[str]
    dataset: str
    seed: int
    split: int = 0
    truth_of: dict[str, dict[str, pd.DataFrame]] = field(default_factory=dict)

    def among(self, systems: Sequence[str]) -> TruthStudy:
        """The same study read on the systems ``systems`` only (every frame keeps its columns; each reader
        selects :attr:`systems`)."""
        unknown = [s for s in systems if s not in self.systems]
        if unknown:
            raise ValueError(f"{', '.join(map(repr, unknown))} not among the study's systems "
                             f"({', '.join(self.systems)})")
        return replace(self, systems=list(systems))

    def means(self) -> pd.DataFrame:
        """Mean over users of every protocol and truth metric: rows systems, columns measures."""
        columns = {f"truth: {k}": v.mean() for k, v in self.truth.items()}
        columns |= {k: v.mean() for k, v in self.protocols.items()}
        return pd.DataFrame(columns).loc[self.systems]


def _bootstrap_means(frame: pd.DataFrame, users: pd.Index, counts: np.ndarray) -> np.ndarray:
    """Means over users of ``frame`` (users x systems, NaN = absent) under bootstrap ``counts``."""
    values = frame.reindex(users).to_numpy(dtype=np.float64)
    present = ~np.isnan(values)
    totals = counts @ np.where(present, values, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals / (counts @ present)


def fidelity(
    study: TruthStudy, truth_metric: str | None = None, *, n_boot: int = 200, confidence: float = 0.95, seed: int = 0
) -> pd.DataFrame:
    """How well each protocol's order of systems matches the true order, with bootstrap intervals.

    Each protocol is set against the truth of the very fits it scored (``TruthStudy.truth_of``).
    Users are resampled with replacement (the same sample for the protocol and the truth,
    and for every protocol), system means recomputed, and the agreement measures of the
    resample collected.  Returns one row per protocol: ``tau`` (Kendall's tau-b on the full
    sample), ``tau_low``/``tau_high`` (percentile interval), ``pairs`` (share of system pairs
    in the true order), ``best`` (1 when the truly best system is first), ``best_share``
    (the share of resamples in which it is) and ``behind_best``, the share of resamples in
    which its tau is below that of the protocol with the highest full-sample tau (a paired
    comparison: both read the same resampled users).  ``tau_draws`` holds each protocol's tau
    on the resamples, for paired comparisons of any two (:func:`higher_share`).
    """
    truth_metric = truth_metric or next(iter(study.truth))
    truths = [study.truth[truth_metric]] + [tables[truth_metric] for tables in study.truth_of.values()]
    users = pd.Index(np.unique(np.concatenate([f.index for f in [*truths, *study.protocols.values()]])))
    counts = np.vstack([np.ones(len(users)), bootstrap_counts(len(users), n_boot, seed)])  # row 0: the full sample
    shared_truth = _bootstrap_means(study.truth[truth_metric][study.systems], users, counts)
    tail = (1.0 - confidence) / 2.0
    rows, taus = [], {}
    for label, frame in study.protocols.items():
        own = study.truth_of.get(label)
        true_means = shared_truth if own is None else _bootstrap_means(own[truth_metric][study.systems], users, counts)
        measured = _bootstrap_means(frame[study.systems], users, counts)
        agreement = order_agreement(measured, true_means)
        tau, share, best = agreement.tau, agreement.pairs, agreement.best
        taus[label] = tau
        rows.append(
            {
                "protocol": label,
                "tau": tau[0],
                "tau_low": float(np.nanquantile(tau[1:], tail)),
                "tau_high": float(np.nanquantile(tau[1:], 1.0 - tail)),
                "pairs": share[0],
                "best": float(best[0]),
                "best_share": float(best[1:].mean()),
            }
        )
    leader = max(taus, key=lambda label: taus[label][0])
    return pd.DataFrame(rows).assign(behind_best=[float((taus[label][1:] < taus[leader][1:]).mean()) for label in taus],
                                     tau_draws=[taus[label][1:] for label in taus])


def higher_share(table: pd.DataFrame, first: str, second: str) -> float:
    """The share of user resamples in which protocol ``first`` has a higher tau than ``second`` (paired: the
    same resamples), from the draws of :func:`fidelity` or :func:`fidelity_over_seeds`."""
    draws = table.set_index("protocol")["tau_draws"]
    return float((draws[first] > draws[second]).mean())


def fidelity_over_seeds(
    studies: Sequence[TruthStudy], truth_metric: str | None = None, n_boot: int = 200
) -> pd.DataFrame:
    """:func:`fidelity` of every study, with the mean and range of tau over the splits (every other column is
    a mean over the splits; ``behind_best`` is measured against each split's leader)."""
    tables = [fidelity(s, truth_metric, n_boot=n_boot, seed=fold_seed(s.seed, s.split)).assign(split=s.split)
              for s in studies]
    every = pd.concat(tables, ignore_index=True)
    summary = every.groupby("protocol", sort=False).agg(
        tau=("tau", "mean"),
        tau_seed_min=("tau", "min"),
        tau_seed_max=("tau", "max"),
        tau_low=("tau_low", "mean"),
        tau_high=("tau_high", "mean"),
        pairs=("pairs", "mean"),
        best=("best", "mean"),
        best_share=("best_share", "mean"),
        behind_best=("behind_best", "mean"),
        tau_draws=("tau_draws", lambda draws: np.concatenate(list(draws))),
    )
    return summary.reset_index().sort_values("tau", ascending=False, ignore_index=True)



def paired_pvalue(table: pd.DataFrame, first: str, second: str) -> float:
    """Two-sided p-value of "protocols ``first`` and ``second`` are equally faithful" from their tau on the
    same user resamples (:func:`recbias.evaluate.resampled_pvalue` of the paired differences), from the draws
    of :func:`fidelity` or :func:`fidelity_over_seeds`."""
    draws = table.set_index("protocol")["tau_draws"]
    return resampled_pvalue(np.asarray(draws[first]) - np.asarray(draws[second]))


def leaders(table: pd.DataFrame, level: float) -> list[str]:
    """The protocols not clearly behind the most faithful one (the first row of ``table``, a fidelity table
    with ``tau_draws``, most faithful first): those whose tau the paired user resamples do not tell from its
    own at ``level`` (:func:`paired_pvalue`), the most faithful one first."""
    best = table["protocol"].iloc[0]
    return [best] + [p for p in table["protocol"].iloc[1:] if paired_pvalue(table, best, p) >= level]

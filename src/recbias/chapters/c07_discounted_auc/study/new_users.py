"""Recommendations for new users (Bobrikov et al. 2016, Sec. 8.1 and Fig. 4): how good are they for a newcomer
who has given ``k`` ratings, and how many ratings is knowing only her gender and age worth
(:func:`new_user_study`)?"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c07_discounted_auc.study.scored import Scored, liked_only
from recbias.chapters.c07_discounted_auc.study.setting import DEMOGRAPHICS, MIN_TEST, Setting, feasible_known
from recbias.designs import build_runs
from recbias.evaluate import bootstrap_counts
from recbias.evaluate.experiment import fit_systems
from recbias.ratings import Ratings
from recbias.recommenders import PRESETS, SegmentPopularity, make
from recbias.splits import NewUserSplit, new_user_splits

#: numbers of known ratings of a new user: every one up to 10, then coarser
KNOWN_GRID = (*range(1, 11), 12, 15, 20, 25, 30, 40, 50)
#: the metrics of the study: without the step, and with it
NO_STEP, STEP = "no step", "step"
#: the lists that need no rating of the newcomer: the global list and the list for her demographics
GLOBAL, DEMOGRAPHIC = "global", "demographic"


@dataclass
class NewUserStudy:
    """Recommendations for new users from ``k`` known ratings against demographics (the paper's Fig. 4).

    Attributes:
        known: the values of ``k``.
        curves: one row per (system, k, metric): ``value`` (mean over all new users).
        lines: one row per (reference list, metric): :data:`GLOBAL` and, with demographics,
            :data:`DEMOGRAPHIC`; ``value``.
        crossings: one row per (system, metric), with demographics only: the smallest ``k`` from which
            the system stays above the demographic list (``crossing``, NaN if it never does), its 2.5
            and 97.5 percentiles over resampled users (``low``, ``high``: NaN unless every resample
            crosses) and the share of resamples that cross (``crossed in``).
        attributes: the demographic attributes used (empty when the data have none).
        metrics: metric (:data:`NO_STEP`, :data:`STEP`) -> its name in the metric grammar.
        step: the step ``s`` of :data:`STEP` (0: no step, and no such metric).
        n_users: new users evaluated.
        heads: one row per list (``list``: a reference list, or a system at the smallest and largest
            ``k``, ``k`` NaN for the references): ``count``, the mean number of the step's head items on
            its first page.
    """

    known: list[int]
    curves: pd.DataFrame
    lines: pd.DataFrame
    crossings: pd.DataFrame
    attributes: tuple[str, ...]
    metrics: dict[str, str]
    step: int
    n_users: int
    heads: pd.DataFrame

    @property
    def headline(self) -> pd.Series | None:
        """The crossing of the first system under the metric with the step (None without demographics
        or without a step)."""
        stepped = self.crossings[self.crossings["metric"] == STEP]
        return stepped.iloc[0] if len(stepped) else None


def crossing(curve: np.ndarray, line: np.ndarray, known: Sequence[int]) -> np.ndarray:
    """Per row: the smallest ``k`` from which ``curve > line`` at every larger ``k`` of the grid (NaN if none)."""
    above = curve > line[:, None]
    stays = np.flip(np.cumprod(np.flip(above, axis=1), axis=1), axis=1).astype(bool)
    first = np.argmax(stays, axis=1)
    return np.where(stays.any(axis=1), np.asarray(known, dtype=float)[first], np.nan)


def system_presets(text: str) -> dict[str, str]:
    """``"mf, rating-mf"`` -> ``{"implicit MF (top-N)": "mf", "rating-MF": "rating-mf"}``: label -> preset of
    :func:`recbias.recommenders.make`, each labelled with its preset's display name; an unknown preset raises
    ``ValueError``."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ValueError(f"no recommender preset in {text!r}; choose from {', '.join(PRESETS)}")
    return {make(name).name: name for name in names}  # make raises for an unknown preset, naming the valid ones


@dataclass
class _Plan:
    """What every group of new users is measured with."""

    systems: dict[str, str]
    references: dict[str, tuple[str, ...]]
    known: list[int]
    metrics: dict[str, str]
    setting: Setting
    step: int
    groups: int
    smoothing: float
    seed: int


def _measure_group(split: NewUserSplit, group: int, plan: _Plan, values: dict, heads: dict) -> None:
    """Add one group's per-user values to ``values`` and its head counts (at the fewest and most known ratings) to
    ``heads``, both lists keyed by (list, ``k``), ``k`` None for a reference list: the reference lists, then each
    system at every ``k``."""
    names, max_known, m, s, seed = list(plan.metrics.values()), plan.known[-1], plan.setting.m, plan.step, plan.seed
    runs = liked_only(build_runs(split.train(max_known), split.test, "AI-AN"))
    base_train = split.train(0)
    fitted = {label: SegmentPopularity(a, plan.smoothing).fit(base_train) for label, a in plan.references.items()}
    scored = Scored.of(fitted, base_train, runs, seed)
    for label, frame in scored.values(names).items():
        values[label, None].append(frame)
        heads[label, None].append(scored.head_in_top(label, s, m))
    key = ("new users", plan.groups, group, max_known, seed)
    base = fit_systems(plan.systems, base_train, key_extra=(*key, 0), seed=seed)
    for k in plan.known:
        train = split.train(k)
        fitted = {label: recommender.fold_in(train, split.new_users) if hasattr(recommender, "fold_in") else
                  fit_systems({label: plan.systems[label]}, train, key_extra=(*key, k), seed=seed)[label]
                  for label, recommender in base.items()}
        scored = Scored.of(fitted, train, runs, seed)
        for label, frame in scored.values(names).items():
            values[label, k].append(frame)
            if k in (plan.known[0], plan.known[-1]):
                heads[label, k].append(scored.head_in_top(label, s, m))


def _summarise(plan: _Plan, values: dict, n_boot: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The curves, reference lines and crossings of :class:`NewUserStudy` from the gathered values."""
    references = {label: pd.concat(values[label, None]) for label in plan.references}
    n_users = len(references[GLOBAL])
    counts = bootstrap_counts(n_users, n_boot, plan.seed) / n_users
    curves, lines, crossings = [], [], []
    for metric, name in plan.metrics.items():
        lines += [{"list": label, "metric": metric, "value": frame[name].mean()} for label, frame in references.items()]
        for label in plan.systems:
            matrix = np.column_stack([pd.concat(values[label, k])[name].to_numpy() for k in plan.known])
            curves += [{"system": label, "k": k, "metric": metric, "value": v}
                       for k, v in zip(plan.known, matrix.mean(0), strict=True)]
            if DEMOGRAPHIC in references:
                demographic = references[DEMOGRAPHIC][name].to_numpy()
                full = crossing(matrix.mean(0)[None, :], np.array([demographic.mean()]), plan.known)[0]
                resampled = crossing(counts @ matrix, counts @ demographic, plan.known)
                every = np.isfinite(resampled).all()
                crossings.append({"system": label, "metric": metric, "crossing": full,
                                  "low": np.quantile(resampled, 0.025, method="inverted_cdf") if every else np.nan,
                                  "high": np.quantile(resampled, 0.975, method="inverted_cdf") if every else np.nan,
                                  "crossed in": float(np.isfinite(resampled).mean())})
    crossings_frame = pd.DataFrame(crossings, columns=["system", "metric", "crossing", "low", "high", "crossed in"])
    return pd.DataFrame(curves), pd.DataFrame(lines), crossings_frame


def new_user_study(
    ratings: Ratings,
    setting: Setting,
    s: int,
    *,
    systems: Mapping[str, str] | None = None,
    max_known: int = 30,
    groups: int = 2,
    smoothing: float = 10.0,
    n_boot: int = 200,
    seed: int = 0,
) -> NewUserStudy | None:
    """Fit each system with ``k`` known ratings of the new users (:data:`KNOWN_GRID` up to ``max_known``) and
    compare with the lists that know nothing (global) or only the user's demographics, under the metric
    without and with the step at ``s``; None when too few users have more than :data:`MIN_TEST` ratings
    (:func:`recbias.chapters.c07_discounted_auc.study.setting.feasible_known`).

    The users with enough ratings are dealt into ``groups`` groups that are new in turn
    (:func:`recbias.splits.new_user_splits`); every list ranks the items outside a new user's first
    ``max_known`` ratings and is judged on her later ratings, so only what the recommender knows
    changes with ``k``.  A system with a fold-in (MF, :meth:`recbias.recommenders.ALS.fold_in`) is
    fitted once on everybody else and folds each newcomer in from her first ``k`` ratings; any other
    is fitted again for every ``k``.  ``max_known`` shrinks when too few users have that many ratings.
    """
    max_known = feasible_known(ratings, max_known)
    if max_known < 1:
        return None
    metrics = {NO_STEP: setting.metric()} | ({STEP: setting.metric(s=s)} if s else {})
    attributes = tuple(a for a in DEMOGRAPHICS if ratings.user_attributes is not None and a in ratings.user_attributes)
    plan = _Plan(dict(system_presets("mf") if systems is None else systems),
                 {GLOBAL: ()} | ({DEMOGRAPHIC: attributes} if attributes else {}),
                 [k for k in KNOWN_GRID if k < max_known] + [max_known], metrics, setting, s, groups, smoothing, seed)
    values, heads = defaultdict(list), defaultdict(list)
    for group, split in enumerate(new_user_splits(ratings, groups, max_known, MIN_TEST, seed=seed)):
        _measure_group(split, group, plan, values, heads)
    curves, lines, crossings = _summarise(plan, values, n_boot)
    counts = pd.DataFrame([{"list": label, "k": np.nan if k is None else float(k),
                            "count": np.concatenate(parts).mean()} for (label, k), parts in heads.items()])
    return NewUserStudy(plan.known, curves, lines, crossings, plan.references.get(DEMOGRAPHIC, ()), plan.metrics, s,
                        sum(len(frame) for frame in values[GLOBAL, None]), counts)

"""Chapter 7 ("The user-behaviour discounted AUC"): recommendations for new users (the paper's Fig. 4).

How good are the recommendations for a newcomer who has given ``k`` ratings, and how many ratings is
knowing only her gender and age worth?  :func:`new_user_study` deals users with enough ratings into
groups that are new in turn, lets a system learn from each newcomer's first ``k`` ratings (a fold-in
where the system has one), and compares it under the metric with the lists that know nothing about
her (the global list) or only her demographics (:class:`recbias.recommenders.SegmentPopularity`);
:func:`crossing_table` says from which ``k`` the system stays above the demographic list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.designs import build_runs
from recbias.evaluate import bootstrap_counts
from recbias.experiments.discounted_auc import Scored, Setting, liked_only
from recbias.evaluate.experiment import fit_systems
from recbias.ratings import Ratings
from recbias.recommenders import PRESETS as RECOMMENDER_PRESETS
from recbias.recommenders import SegmentPopularity
from recbias.splits import NewUserSplit, new_user_splits
from recbias.text import and_list, fmt_number, fmt_pct

#: what a new user tells about herself in the paper's Fig. 4
DEMOGRAPHICS = ("gender", "age")
#: test ratings a new user must keep beyond her known ones
MIN_TEST = 10
#: numbers of known ratings of a new user: every one up to 10, then coarser
KNOWN_GRID = (*range(1, 11), 12, 15, 20, 25, 30, 40, 50)


def feasible_known(ratings: Ratings, max_known: int, min_users: int = 20) -> int:
    """The largest number of known ratings, at most ``max_known``, that at least ``min(min_users, |U|/4)``
    users can reveal while keeping :data:`MIN_TEST` ratings for the test; 0 if none can."""
    counts = np.sort(ratings.user_counts())[::-1]
    needed = max(1, min(min_users, ratings.n_users // 4))
    return int(np.clip(counts[needed - 1] - MIN_TEST, 0, max_known))


@dataclass
class NewUserStudy:
    """Recommendations for new users from ``k`` known ratings against demographics (the paper's Fig. 4).

    Attributes:
        splits: the groups of new users, each new in turn.
        known: the values of ``k``.
        curves: one row per (system, k, metric): ``value`` (mean over all new users).
        lines: one row per (reference list, metric): the global list and, with demographics, the
            segment list of ``attributes``; ``value``.
        crossings: one row per (system, metric): the smallest ``k`` from which the system stays above
            the demographic list (NaN if it never does), its 2.5 and 97.5 percentiles over resampled
            users (NaN unless every resample crosses) and the share of resamples that cross.
        attributes: the demographic attributes used (empty when the data have none).
        metrics: metric label -> its name in the metric grammar.
        n_users: new users evaluated.
        heads: per list (the reference lists, and each system at the smallest and largest ``k``), the
            mean number of the step's head items on its first page.
    """

    splits: list[NewUserSplit]
    known: list[int]
    curves: pd.DataFrame
    lines: pd.DataFrame
    crossings: pd.DataFrame
    attributes: tuple[str, ...]
    metrics: dict[str, str]
    n_users: int
    heads: pd.Series

    @property
    def headline(self) -> pd.Series | None:
        """The crossing of the first system under the metric with the step (None without demographics)."""
        stepped = self.crossings[self.crossings["metric"] != "unpenalised"]
        return stepped.iloc[0] if len(stepped) else None


def _crossing(curve: np.ndarray, line: np.ndarray, known: Sequence[int]) -> np.ndarray:
    """Per row: the smallest ``k`` from which ``curve > line`` at every larger ``k`` of the grid (NaN if none)."""
    above = curve > line[:, None]
    stays = np.flip(np.cumprod(np.flip(above, axis=1), axis=1), axis=1).astype(bool)
    first = np.argmax(stays, axis=1)
    return np.where(stays.any(axis=1), np.asarray(known, dtype=float)[first], np.nan)


def system_presets(text: str) -> dict[str, str]:
    """``"mf, user-knn"`` -> ``{"MF": "mf", "user-kNN": "user-knn"}``: display name -> preset of
    :func:`recbias.recommenders.make`; unknown presets raise ``ValueError``."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in RECOMMENDER_PRESETS]
    if not names or unknown:
        raise ValueError(f"unknown recommender preset(s) {unknown or text!r}; "
                         f"choose from {', '.join(RECOMMENDER_PRESETS)}")
    return {RECOMMENDER_PRESETS[name][1]: name for name in names}


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
) -> NewUserStudy:
    """Fit each system with ``k`` known ratings of the new users (:data:`KNOWN_GRID` up to ``max_known``) and
    compare with the lists that know nothing (global) or only the user's demographics, under the metric
    without and with the step at ``s``.

    The users with enough ratings are dealt into ``groups`` groups that are new in turn
    (:func:`recbias.splits.new_user_splits`); every list ranks the items outside a new user's first
    ``max_known`` ratings and is judged on her later ratings, so only what the recommender knows
    changes with ``k``.  A system with a fold-in (MF, :meth:`recbias.recommenders.ALS.fold_in`) is
    fitted once on everybody else and folds each newcomer in from her first ``k`` ratings; any other
    is fitted again for every ``k``.  ``max_known`` shrinks when too few users have that many ratings.
    """
    systems = {"MF": "mf"} if systems is None else dict(systems)
    max_known = feasible_known(ratings, max_known)
    if max_known < 1:
        raise ValueError(f"no user of '{ratings.name}' has more than {MIN_TEST} ratings: no new users to study")
    metrics = {"unpenalised": setting.metric()} | ({f"step at s = {s}": setting.metric(s=s)} if s else {})
    names = list(metrics.values())
    attributes = tuple(a for a in DEMOGRAPHICS if ratings.user_attributes is not None and a in ratings.user_attributes)
    references = {"the global list": ()} | (
        {f"the list for {' and '.join(attributes)}": attributes} if attributes else {})
    known = [k for k in KNOWN_GRID if k < max_known] + [max_known]
    splits = new_user_splits(ratings, groups, max_known, MIN_TEST, seed=seed)
    reference_parts: dict[str, list[pd.DataFrame]] = {label: [] for label in references}
    heads: dict[str, list[np.ndarray]] = {}
    system_parts: dict[tuple[str, int], list[pd.DataFrame]] = {(label, k): [] for label in systems for k in known}
    for g, split in enumerate(splits):
        runs = liked_only(build_runs(split.train(max_known), split.test, "AI-AN"))
        base_train = split.train(0)
        fitted = {label: SegmentPopularity(a, smoothing).fit(base_train) for label, a in references.items()}
        scored = Scored.of(fitted, base_train, runs, seed)
        for label, frame in scored.values(names).items():
            reference_parts[label].append(frame)
            heads.setdefault(label, []).append(scored.head_in_top(label, s, setting.m))
        base = fit_systems(systems, base_train, key_extra=("new users", groups, g, max_known, seed, 0), seed=seed)
        for k in known:
            train = split.train(k)
            fitted = {label: recommender.fold_in(train, split.new_users) if hasattr(recommender, "fold_in") else
                      fit_systems({label: systems[label]}, train, key_extra=("new users", groups, g, max_known, seed, k),
                                  seed=seed)[label]
                      for label, recommender in base.items()}
            scored = Scored.of(fitted, train, runs, seed)
            for label, frame in scored.values(names).items():
                system_parts[label, k].append(frame)
                if k in (known[0], known[-1]):
                    heads.setdefault(f"{label} with {k} known rating{'s' if k > 1 else ''}", []).append(
                        scored.head_in_top(label, s, setting.m))
    reference_values = {label: pd.concat(parts) for label, parts in reference_parts.items()}
    n_users = len(next(iter(reference_values.values())))
    counts = bootstrap_counts(n_users, n_boot, seed) / n_users
    curves, lines, crossings = [], [], []
    for metric_label, name in metrics.items():
        for label, frame in reference_values.items():
            lines.append({"list": label, "metric": metric_label, "value": frame[name].mean()})
        for label in systems:
            matrix = np.column_stack([pd.concat(system_parts[label, k])[name].to_numpy() for k in known])
            curves += [{"system": label, "k": k, "metric": metric_label, "value": v}
                       for k, v in zip(known, matrix.mean(0))]
            if attributes:
                demographic = list(reference_values.values())[1][name].to_numpy()
                full = _crossing(matrix.mean(0)[None, :], np.array([demographic.mean()]), known)[0]
                resampled = _crossing(counts @ matrix, counts @ demographic, known)
                every = np.isfinite(resampled).all()
                crossings.append({"system": label, "metric": metric_label, "crossing": full,
                                  "low": np.quantile(resampled, 0.025, method="inverted_cdf") if every else np.nan,
                                  "high": np.quantile(resampled, 0.975, method="inverted_cdf") if every else np.nan,
                                  "crossed in": float(np.isfinite(resampled).mean())})
    crossings_frame = pd.DataFrame(crossings, columns=["system", "metric", "crossing", "low", "high", "crossed in"])
    return NewUserStudy(splits, known, pd.DataFrame(curves), pd.DataFrame(lines), crossings_frame,
                        attributes, metrics, n_users,
                        pd.Series({k: np.concatenate(v).mean() for k, v in heads.items()}))


def new_user_setup_text(study: NewUserStudy | None, ratings: Ratings) -> str:
    """How many new users the cold-start study has and how many ratings they reveal."""
    if study is None:
        return f"No user of {ratings.name} has more than {MIN_TEST} ratings, so nobody can play a new user here."
    reason = "" if study.known[-1] == study.splits[0].max_known and study.known[-1] >= 30 else (
        f" (at most {study.known[-1]}, so that enough users keep {MIN_TEST} ratings for the test)")
    groups, systems = len(study.splits), list(study.curves["system"].unique())
    order = "" if ratings.timestamps is not None else (
        f" The ratings of {ratings.name} have no timestamps, so each newcomer reveals hers in a random order.")
    return (
        f"Here {study.n_users:,} users play the newcomers, in {groups} group{'s' if groups > 1 else ''}; they reveal "
        f"up to {study.known[-1]} ratings{reason}. The "
        + ("system that learns from them is " if len(systems) == 1 else "systems that learn from them are ")
        + " and ".join(systems) + ", with the settings of chapter 2." + order
    )


def heads_text(study: NewUserStudy, s: int, m: int) -> str:
    """How many of the step's head items each list of the new-user study spends its first page on."""
    if not s:
        return ""
    return (f"The step's {s} items are not spread evenly over the lists. On the first page of {m} items, "
            + ", ".join(f"{label} shows {fmt_number(count, 1)}" for label, count in study.heads.items())
            + " of them on average, and every such slot is worth nothing under the step.")


def crossing_table(study: NewUserStudy) -> pd.DataFrame:
    """Per metric and system: its value with the most known ratings, the two reference lists, and from which
    ``k`` it stays above the demographic list, with the spread of that ``k`` over resampled users."""
    lines = study.lines.set_index(["metric", "list"])["value"]
    rows = []
    for metric in study.metrics:
        here = lines.loc[metric]
        for system, curve in study.curves[study.curves["metric"] == metric].groupby("system", sort=False):
            row = {"metric": "no step" if metric == "unpenalised" else metric, "system": system,
                   f"from {study.known[-1]} ratings": curve["value"].iloc[-1]}
            row |= {label.removeprefix("the "): value for label, value in here.items()}
            crossing = study.crossings[(study.crossings["system"] == system) & (study.crossings["metric"] == metric)]
            if len(crossing):
                found = crossing.iloc[0]
                row["above it from k"] = f"{found['crossing']:g}" if np.isfinite(found["crossing"]) else "never"
                row["95% of resamples"] = (
                    f"{found['low']:g}" if found["low"] == found["high"]
                    else f"{found['low']:g} to {found['high']:g}" if np.isfinite(found["low"])
                    else "none crosses" if found["crossed in"] == 0 else f"{fmt_pct(found['crossed in'], 0)} cross")
            rows.append(row)
    return pd.DataFrame(rows)


def crossing_text(study: NewUserStudy) -> str:
    """From how many known ratings each system stays above the demographic list, one sentence per metric."""
    if not study.attributes:
        return ("The data carry no gender or age, so there is no demographic list to compare with; the figure "
                "shows how fast the recommendations improve with the ratings a newcomer gives.")
    demographic = f"the list for {' and '.join(study.attributes)}"
    sentences = []
    for metric, rows in study.crossings.groupby("metric", sort=False):
        parts = [f"{row.system} stays above {demographic} from k = {row.crossing:g} known "
                 f"rating{'s' if row.crossing > 1 else ''} on" if np.isfinite(row.crossing) else
                 f"{row.system} does not stay above {demographic} at any k up to {study.known[-1]}"
                 for row in rows.itertuples()]
        label = "Without the step" if metric == "unpenalised" else f"With the {metric}"
        sentences.append(f"{label}, " + and_list(parts) + ".")
    return " ".join(sentences)


def step_effect_text(study: NewUserStudy) -> str:
    """Why the step moves the crossing, or that it does not, for the headline system (empty without a step
    or without demographics)."""
    headline = study.headline
    if headline is None:
        return ""
    plain = study.crossings[(study.crossings["system"] == headline["system"])
                            & (study.crossings["metric"] == "unpenalised")]["crossing"].iloc[0]
    stepped = headline["crossing"]
    if np.isnan(stepped):
        return (f"Even with the step, {headline['system']} does not stay above the demographic list within the "
                f"{study.known[-1]} ratings of the study: on these data, knowing gender and age is worth more than "
                "the ratings a newcomer gives at first.")
    if np.isnan(plain) or plain > stepped:  # the step brings the crossing forward
        return (
            "Without the step the experiment measures the short head more than the newcomer: the global and the "
            "demographic lists consist of the most liked items, which a newcomer is likely to rate too, and a system "
            "that knows a few of her ratings pays for every head item it gives up for a more personal one. With the "
            "step, the curves measure what the ratings add beyond the obvious, and the crossing point is where a "
            "demographic questionnaire stops paying."
        )
    return (
        f"Here the step does not bring the crossing forward for {headline['system']}: the short head is not what "
        "holds the demographic list up on these data, and the crossing point with the step is where a demographic "
        "questionnaire stops paying beyond the most rated items."
    )

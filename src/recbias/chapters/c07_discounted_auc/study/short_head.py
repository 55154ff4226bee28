"""The short head and the search for the step (Bobrikov et al. 2016, Eq. 10-15).

A sum of ratings is dominated by the few most-rated items, so the paper gives the ``s`` most-rated
items no weight (the step ``sigma`` of its Eq. 15) and chooses ``s`` by how well the metric then
detects information about users: lists for audience segments (Bayes' rule over user attributes,
:class:`recbias.recommenders.SegmentPopularity`) against the one global list (Eq. 10-13), averaged
over segmentations (Eq. 14).  The literal Eq. 14 runs away as the step eats the global list, so
``s`` maximises the mean increase over its resampling standard deviation instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c07_discounted_auc.study.scored import Scored, SystemStudy, liked_only
from recbias.chapters.c07_discounted_auc.study.setting import Setting
from recbias.evaluate import Candidates, bootstrap_counts
from recbias.recommenders import SegmentPopularity

#: step positions of the short-head search, as shares of the catalogue
HEAD_SHARES = (0.0, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3)
#: the label of the global list among the segment lists
GLOBAL = "global"
#: the steps of :func:`summary`: none, the one chosen by sensitivity, and the one of Eq. 14 taken literally
NO_STEP, CHOSEN, LITERAL = "no step", "our rule", "Eq. 14 literally"


def head_sizes(n_items: int, shares: Sequence[float] = HEAD_SHARES) -> list[int]:
    """Step positions ``s``: the given shares of the catalogue, rounded, distinct, below ``n_items``."""
    return sorted({int(round(share * n_items)) for share in shares if round(share * n_items) < n_items})


@dataclass
class SensitivitySearch:
    """The short-head search of Eq. 13-14 and its resampling.

    Attributes:
        cells: one row per (segmentation, s): the relative increase of the segment list over the global
            list (Eq. 13), its bootstrap standard deviation and 2.5 and
            97.5 percentiles (``sd``, ``low``, ``high``), ``z`` (increase over standard deviation) and
            the share of resamples in which the segment list wins (``wins``).
        curve: one row per ``s``: the mean relative increase over segmentations (Eq. 14), the mean
            ``z`` (``sensitivity``, maximised here) and the global list's metric (``global``).
        chosen: the ``s`` of the largest mean ``z``.
    """

    cells: pd.DataFrame
    curve: pd.DataFrame
    chosen: int

    @property
    def literal_choice(self) -> int:
        """The ``s`` that Eq. 14 alone (the mean relative increase) would pick."""
        finite = self.curve[np.isfinite(self.curve["relative increase"])]
        return int(finite.loc[finite["relative increase"].idxmax(), "s"])


def segment_systems(segments: Sequence[tuple[str, ...]], smoothing: float = 10.0) -> dict[str, SegmentPopularity]:
    """The global list and one segment list per segmentation, labelled :data:`GLOBAL` and ``a + b``."""
    return {GLOBAL: SegmentPopularity((), smoothing)} | {" + ".join(g): SegmentPopularity(g, smoothing)
                                                          for g in segments}


def _segment_values(study: SystemStudy, metrics: Sequence[str], segments: Sequence[tuple[str, ...]],
                    smoothing: float) -> dict[str, np.ndarray]:
    """Per list of :func:`segment_systems`: users x ``metrics`` on the study's runs, judged by liked items."""
    runs = liked_only(study.scored.runs)
    candidates, values = Candidates([runs]), {}
    for label, recommender in segment_systems(segments, smoothing).items():  # one system's scores at a time
        scored = Scored(runs, {label: candidates.score(recommender.fit(study.fold.train))[0]},
                        study.scored.popularity, study.scored.seed)
        values[label] = scored.values(metrics)[label].to_numpy()
    return values


def _search_cells(values: dict[str, np.ndarray], sizes: Sequence[int], counts: np.ndarray) -> pd.DataFrame:
    """The rows of :attr:`SensitivitySearch.cells` from per-user values and bootstrap weights ``counts``; a step
    at which some resample leaves the global list worth nothing has no spread, interval or ``z``."""
    reference, resampled_reference = values[GLOBAL].mean(axis=0), counts @ values[GLOBAL]
    frames = []
    for label in (label for label in values if label != GLOBAL):
        mean, resampled = values[label].mean(axis=0), counts @ values[label]
        spread = np.where(resampled_reference > 0, resampled / resampled_reference - 1, np.nan)  # resamples x s
        defined, sd = np.isfinite(spread).all(axis=0), spread.std(axis=0, ddof=1)
        increase = np.where(reference > 0, mean / reference - 1, np.nan)
        low, high = np.quantile(spread, [0.025, 0.975], axis=0)
        frames.append(pd.DataFrame({
            "segmentation": label, "s": sizes, "relative increase": increase, "sd": np.where(defined, sd, np.nan),
            "low": np.where(defined, low, np.nan), "high": np.where(defined, high, np.nan),
            "z": np.where(defined & (sd != 0), increase / sd, np.nan),
            "wins": np.where(defined, (spread > 0).mean(axis=0), np.nan)}))
    return pd.concat(frames, ignore_index=True)


def sensitivity_search(
    study: SystemStudy,
    setting: Setting,
    segments: Sequence[tuple[str, ...]],
    *,
    sizes: Sequence[int] | None = None,
    n_boot: int = 200,
    smoothing: float = 10.0,
    seed: int = 0,
) -> SensitivitySearch | None:
    """Segment lists against the global list for every step position ``s`` (Eq. 13-14); None without
    segmentations (users without attributes).

    The relative increase ``(AUC_g - AUC_0) / AUC_0`` is measured on the study's runs with the
    page's metric (rating gain) and step ``s``, and again on ``n_boot`` resamples of the users.
    ``s`` is chosen where the increase stands out most from resampling noise, not by Eq. 14's mean (which
    runs away): the largest mean over segmentations of ``z = increase / bootstrap standard deviation``.
    """
    if not segments:
        return None
    sizes = head_sizes(study.scored.popularity.rating_counts.size) if sizes is None else list(sizes)
    values = _segment_values(study, [setting.metric(s=s) for s in sizes], segments, smoothing)
    n_users = values[GLOBAL].shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        cells = _search_cells(values, sizes, bootstrap_counts(n_users, n_boot, seed) / n_users)
    curve = cells.groupby("s", sort=True).agg(**{"relative increase": ("relative increase", "mean"),
                                                 "sensitivity": ("z", "mean")}).reset_index()
    curve["global"] = values[GLOBAL].mean(axis=0)
    finite = curve[np.isfinite(curve["sensitivity"])]
    return SensitivitySearch(cells, curve, int(finite.loc[finite["sensitivity"].idxmax(), "s"]))


def summary(search: SensitivitySearch) -> pd.DataFrame:
    """The search at three steps (``rule``: no step, the chosen ``s``, the ``s`` Eq. 14 alone would pick): the
    mean relative increase and ``sensitivity``, the smallest share of resamples in which a segment list wins
    (``wins``), how many segmentations' 95% intervals contain zero or lie below it, out of ``segmentations``
    (NaN where the intervals are undefined), and the share of its unpenalised value the global list keeps
    (``global kept``)."""
    curve = search.curve.set_index("s")
    rows = []
    for rule, s in ((NO_STEP, 0), (CHOSEN, search.chosen), (LITERAL, search.literal_choice)):
        cells = search.cells[search.cells["s"] == s]
        undefined = cells["low"].isna().any()  # a resample where the global list is worth nothing
        rows.append({"rule": rule, "s": s, "relative increase": curve.loc[s, "relative increase"],
                     "sensitivity": curve.loc[s, "sensitivity"], "wins": cells["wins"].min(),
                     "contain zero": np.nan if undefined else ((cells["low"] <= 0) & (cells["high"] >= 0)).sum(),
                     "below zero": np.nan if undefined else (cells["high"] < 0).sum(), "segmentations": len(cells),
                     "global kept": curve.loc[s, "global"] / curve.loc[0, "global"]})
    return pd.DataFrame(rows)


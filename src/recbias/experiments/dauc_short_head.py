"""Chapter 7 ("The user-behaviour discounted AUC"): the short head and the search for the step (Eq. 10-15).

A sum of ratings is dominated by the few most-rated items, so the paper gives the ``s`` most-rated
items no weight (the step ``sigma`` of its Eq. 15) and chooses ``s`` by how well the metric then
detects information about users: lists for audience segments (Bayes' rule over user attributes,
:class:`recbias.recommenders.SegmentPopularity`) against the one global list (Eq. 10-13), averaged
over segmentations (Eq. 14).

* :func:`sensitivity_search`: the relative increase of every segmentation's lists over the global
  list for every ``s``, with users resampled; ``s`` maximises the mean increase over its resampling
  standard deviation (the literal Eq. 14 runs away as the step eats the global list);
* :func:`instability_table`: each increase's resampling interval without and with the step;
* :func:`head_shares`: how much of each system's unpenalised metric the short head supplies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from recbias.evaluate import Candidates, bootstrap_counts
from recbias.experiments.discounted_auc import Scored, Setting, Study, liked_only, published
from recbias.ratings import Ratings
from recbias.recommenders import SegmentPopularity
from recbias.text import and_list, fmt_number, fmt_pct

#: step positions of the short-head search, as shares of the catalogue
HEAD_SHARES = (0.0, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3)


def segmentations(ratings: Ratings) -> list[tuple[str, ...]]:
    """Every user attribute alone and every pair of them (empty without user attributes)."""
    table = ratings.user_attributes
    if table is None or table.empty:
        return []
    attributes = [column for column in table.columns if table[column].nunique() > 1]
    return [(a,) for a in attributes] + list(combinations(attributes, 2))


def segments_note(ratings: Ratings, segments: Sequence[tuple[str, ...]]) -> str:
    """Which segmentations the search uses, or why it cannot run."""
    if not segments:
        return (f"The users of {ratings.name} carry no attributes, so there are no segment lists: the search, the "
                "instability analysis and the demographic list of the new-user study do not apply to this dataset, "
                "and the metric below is used without a step (s = 0). Rebuild the chapter on synthetic, "
                "ml-100k or coat to see them.")
    singles = [g[0] for g in segments if len(g) == 1]
    if len(singles) == 1:
        return f"The users of {ratings.name} carry one attribute, {singles[0]}, the only segmentation of the search."
    return (f"The users of {ratings.name} carry {and_list(singles)}; the search uses each attribute alone and every "
            f"pair of them, {len(segments)} segmentations in all.")


def head_sizes(n_items: int, shares: Sequence[float] = HEAD_SHARES) -> list[int]:
    """Step positions ``s``: the given shares of the catalogue, rounded, distinct, below ``n_items``."""
    return sorted({int(round(share * n_items)) for share in shares if round(share * n_items) < n_items})


@dataclass
class SensitivitySearch:
    """The short-head search of Eq. 13-14 and its resampling.

    Attributes:
        cells: one row per (segmentation, s): the global and segment metric (``global``,
            ``segment``), the relative increase (Eq. 13), its bootstrap standard deviation and 2.5 and
            97.5 percentiles, ``z`` (increase over standard deviation) and the share of resamples
            in which the segment list wins.
        curve: one row per ``s``: the mean relative increase over segmentations (Eq. 14), the mean
            ``z`` (the sensitivity maximised here), the global list's metric and its bootstrap
            coefficient of variation.
        chosen: the ``s`` of the largest mean ``z``.
        n_users, n_boot: users evaluated and resamples drawn.
    """

    cells: pd.DataFrame
    curve: pd.DataFrame
    chosen: int
    n_users: int
    n_boot: int

    @property
    def literal_choice(self) -> int:
        """The ``s`` that Eq. 14 alone (the mean relative increase) would pick."""
        finite = self.curve[np.isfinite(self.curve["relative increase"])]
        return int(finite.loc[finite["relative increase"].idxmax(), "s"])


def segment_systems(
    segments: Sequence[tuple[str, ...]], smoothing: float = 10.0
) -> dict[str, SegmentPopularity]:
    """The global list and one segment list per segmentation, labelled ``global`` and ``a + b``."""
    return {"global": SegmentPopularity((), smoothing)} | {
        " + ".join(g): SegmentPopularity(g, smoothing) for g in segments
    }


def sensitivity_search(
    study: Study,
    setting: Setting,
    segments: Sequence[tuple[str, ...]],
    *,
    sizes: Sequence[int] | None = None,
    n_boot: int = 200,
    smoothing: float = 10.0,
    seed: int = 0,
) -> SensitivitySearch:
    """Segment lists against the global list for every step position ``s`` (Eq. 13-14).

    The relative increase ``(AUC_g - AUC_0) / AUC_0`` is measured on the study's runs with the
    page's metric (rating gain) and step ``s``, and again on ``n_boot`` resamples of the users.
    Eq. 14 maximises its mean over segmentations; because the global list consists of the most
    liked items, its value vanishes as ``s`` grows and that mean can grow without bound, so ``s`` is
    chosen where the increase stands out most from resampling noise: the largest mean over
    segmentations of ``z = increase / bootstrap standard deviation``.
    """
    if not segments:
        raise ValueError("the sensitivity search needs user attributes to segment the audience")
    sizes = head_sizes(study.scored.popularity.rating_counts.size) if sizes is None else list(sizes)
    metrics = [setting.metric(s=s) for s in sizes]
    runs = liked_only(study.scored.runs)
    candidates, values = Candidates([runs]), {}
    for label, recommender in segment_systems(segments, smoothing).items():  # one system's scores at a time
        scored = Scored(runs, {label: candidates.score(recommender.fit(study.fold.train))[0]},
                        study.scored.popularity, study.scored.seed)
        values[label] = scored.values(metrics)[label].to_numpy()
    n_users = values["global"].shape[0]
    counts = bootstrap_counts(n_users, n_boot, seed) / n_users
    reference, resampled_reference = values["global"].mean(axis=0), counts @ values["global"]
    rows = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for label in values:
            if label == "global":
                continue
            mean, resampled = values[label].mean(axis=0), counts @ values[label]
            increase = np.where(reference > 0, mean / reference - 1, np.nan)
            spread = np.where(resampled_reference > 0, resampled / resampled_reference - 1, np.nan)
            sd = spread.std(axis=0, ddof=1)
            for k, s in enumerate(sizes):
                undefined = not np.isfinite(spread[:, k]).all()
                rows.append({
                    "segmentation": label, "s": s, "global": reference[k], "segment": mean[k],
                    "relative increase": increase[k], "sd": np.nan if undefined else sd[k],
                    "low": np.nan if undefined else np.quantile(spread[:, k], 0.025),
                    "high": np.nan if undefined else np.quantile(spread[:, k], 0.975),
                    "z": np.nan if undefined or sd[k] == 0 else increase[k] / sd[k],
                    "wins": np.nan if undefined else float((spread[:, k] > 0).mean()),
                })
        cells = pd.DataFrame(rows)
        curve = cells.groupby("s", sort=True).agg(**{"relative increase": ("relative increase", "mean"),
                                                     "sensitivity": ("z", "mean")}).reset_index()
        curve["global"] = reference
        curve["global cv"] = resampled_reference.std(axis=0, ddof=1) / reference
    finite = curve[np.isfinite(curve["sensitivity"])]
    chosen = int(finite.loc[finite["sensitivity"].idxmax(), "s"])
    return SensitivitySearch(cells, curve, chosen, n_users, n_boot)


def instability_table(search: SensitivitySearch) -> pd.DataFrame:
    """Each segmentation's relative increase with its 95% resampling interval and share of wins,
    without the penalty and at the chosen step."""
    cells = search.cells[search.cells["s"].isin([0, search.chosen])].copy()
    cells["penalty"] = np.where(cells["s"] == 0, "none", f"s = {search.chosen}")
    return cells[["segmentation", "penalty", "relative increase", "low", "high", "wins", "z"]]


def _intervals_text(rows: pd.DataFrame) -> str:
    contain = int(((rows["low"] <= 0) & (rows["high"] >= 0)).sum())
    below = int((rows["high"] < 0).sum())
    n = len(rows)
    text = ("no interval contains zero" if contain == 0 else
            f"{'the' if n == 1 else 'all ' + str(n)} interval{'s' if n > 1 else ''} contain{'' if n > 1 else 's'} zero"
            if contain == n else f"{contain} of the {n} intervals contain zero")
    return text + (f" and {below} lie{'s' if below == 1 else ''} entirely below it (the segment lists lose)"
                   if below else "")


def instability_text(search: SensitivitySearch) -> str:
    """How the resampling intervals of the segment lists' increases change with the step."""
    table = instability_table(search)
    plain, stepped = table[table["penalty"] == "none"], table[table["penalty"] != "none"]
    return f"Without the step, {_intervals_text(plain)}; at s = {search.chosen}, {_intervals_text(stepped)}."


def head_shares(study: Study, setting: Setting, s: int) -> pd.DataFrame:
    """Per system: the unpenalised and penalised metric (step at ``s``) and the share of the unpenalised
    value that the ``s`` most-rated items supply, ``1 - AUC_r(s) / AUC_r(0)``."""
    plain, penalised = setting.metric(), setting.metric(s=s)
    means = study.scored.means([plain, penalised]).rename(columns={plain: "unpenalised", penalised: "penalised"})
    means["short-head share"] = 1 - means["penalised"] / means["unpenalised"]
    return means.rename_axis("system").reset_index()


def _increase_text(share: float) -> str:
    """A relative increase as prose: one decimal below 10%, none above ("7.1%", "317%")."""
    return fmt_pct(share, 1 if abs(share) < 0.1 else 0)


def _share_text(share: float) -> str:
    """A small share as prose: "0.3%", or "less than 0.1%"."""
    return "less than 0.1%" if 0 < share < 0.001 else fmt_pct(share)


def search_text(search: SensitivitySearch, n_items: int) -> str:
    """The outcome of the short-head search in words."""
    curve = search.curve.set_index("s")
    chosen, plain = curve.loc[search.chosen], curve.loc[0]
    wins = search.cells[search.cells["s"] == search.chosen]["wins"]
    increase = plain["relative increase"]
    return (
        f"Without the step, the segment lists {'beat' if increase > 0 else 'trail'} the global list by "
        f"{_increase_text(abs(increase))} on average ({fmt_number(abs(plain['sensitivity']), 1)} resampling standard "
        f"deviations). The search settles on s = {search.chosen} ({fmt_pct(search.chosen / n_items)} of the "
        f"catalogue), where the increase is {_increase_text(chosen['relative increase'])} "
        f"({fmt_number(chosen['sensitivity'], 1)} standard deviations) and every segment list beats the global list "
        + ("in every resample" if wins.min() == 1 else f"in at least {fmt_pct(wins.min(), 0)} of the resamples")
        + f". Taken literally, the paper's criterion would pick s = {search.literal_choice}, where the global list "
        f"keeps {_share_text(curve.loc[search.literal_choice, 'global'] / plain['global'])} of its unpenalised value."
    )


def head_text(shares: pd.DataFrame | None, s: int, n_items: int) -> str:
    """How much of the unpenalised metric the short head supplies, against the paper's 80%."""
    if shares is None:
        return "Without a step there is no short head to measure."
    personal = shares[shares["system"] != "Random"].set_index("system")["short-head share"]
    paper = published().set_index("key").loc["short-head-share", "value"]
    spread = (f"{fmt_pct(personal.iloc[0], 0)}" if len(personal) == 1 else
              f"between {fmt_pct(personal.min(), 0)} ({personal.idxmin()}) and {fmt_pct(personal.max(), 0)} "
              f"({personal.idxmax()})")
    return (
        f"The {s} most-rated items, {fmt_pct(s / n_items)} of the catalogue, supply {spread} "
        f"of the unpenalised metric of the non-random systems, {fmt_pct(personal.median(), 0)} in the median. The "
        f"paper puts the short head's contribution on Imhonet at about {fmt_pct(paper, 0)}, without saying where its "
        "head ends."
    )

"""Chapter 7 ("The user-behaviour discounted AUC"): the metric of Bobrikov, Nenova and Ignatov (CLA 2016) at work.

The metric is :func:`recbias.metrics.discounted_auc` (``bAUC`` in the metric grammar); this
driver measures what the chapter shows about it:

* :func:`attention_curves` and :func:`discount_curves`: the attention weights ``w_N`` and the
  position discount ``d_k`` for several ``Q``, beside the discounts of nDCG and RBP;
* :func:`system_study`: the chapter-2 systems on one coin-flip split, each user's run holding
  every item she did not rate in training (AI-AN); :func:`four_cases` counts the four cases of
  the paper's Section 2, :func:`q_sweep` moves ``Q`` and :func:`head_shares` measures how much
  of the unpenalised metric the short head supplies;
* :func:`sensitivity_search`: lists per audience segment (Bayes' rule over user attributes,
  :class:`recbias.recommenders.SegmentPopularity`) against the global list, over the position
  ``s`` of the short-head step (Eq. 13-14), with users resampled;
* :func:`new_user_study`: the paper's Fig. 4, recommendations from ``k`` known ratings against
  recommendations from demographics alone;
* :func:`truth_agreement`: on a simulated world, how close each metric's order of systems comes
  to the order under complete relevance.

The other functions turn these into the page's tables, sentences, findings and the published
numbers it compares with (``published/discounted_auc.csv``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from recbias import datasets, synthetic
from recbias.designs import build_runs
from recbias.evaluate import Candidates, bootstrap_counts, kendall_tau, rank_positions, true_quality
from recbias.experiments.runner import PAPER_SYSTEMS, Fold, fit_systems, make_folds
from recbias.experiments.fidelity import TruthStudy, fidelity, system_field
from recbias.metrics import (
    ItemPopularity,
    attention_weights,
    compute_metrics,
    continuation_probability,
    position_discount,
    short_head,
)
from recbias.ratings import Ratings
from recbias.recommenders import PRESETS as RECOMMENDER_PRESETS
from recbias.recommenders import Recommender, SegmentPopularity
from recbias.runs import Ranking, Runs
from recbias.splits import NewUserSplit, new_user_splits
from recbias.text import fmt_number, fmt_pct, order_text, ordinal

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: where the paper states what the chapter checks
SOURCE = "Bobrikov et al. 2016"
#: step positions of the short-head search, as shares of the catalogue
HEAD_SHARES = (0.0, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3)
#: values of Q of the sweep (Q = 1 reads the whole list: P@z)
Q_GRID = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0)
#: systems that show every user the same list (up to noise)
NON_PERSONALISED = ("Random", "Popularity")
#: what a new user tells about herself in the paper's Fig. 4
DEMOGRAPHICS = ("gender", "age")
#: test ratings a new user must keep beyond her known ones
MIN_TEST = 10
#: numbers of known ratings of a new user: every one up to 10, then coarser
KNOWN_GRID = (*range(1, 11), 12, 15, 20, 25, 30, 40, 50)


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Setting:
    """The metric's settings on the page: attention ``Q`` on pages of ``m``, lists of ``z``, gain ``r - base``."""

    Q: float
    m: int
    z: int
    base: float

    @property
    def p(self) -> float:
        return continuation_probability(self.Q, self.m)

    def metric(self, s: int = 0, gain: str = "rating", Q: float | None = None) -> str:
        """The metric-grammar name of the discounted AUC with these settings."""
        rating = f",base={self.base:g}" if gain == "rating" else ""
        return f"bAUC@{self.z}(Q={self.Q if Q is None else Q:g},m={self.m},gain={gain}{rating},s={s})"


def judged_at(ratings: Ratings, threshold: float | None, seed: int = 0) -> Ratings:
    """``ratings`` with a rating ``>= threshold`` positive (``None`` keeps theirs).

    A threshold above the rating scale (implicit feedback, whose only value is 1) keeps the data's
    own threshold, which :func:`threshold_note` says on the page.  A simulated world from a preset is
    generated again with the threshold, so that its true relevance follows it too.
    """
    low, high = ratings.scale
    if threshold is None or threshold == ratings.positive_threshold or threshold > high:
        return ratings
    if threshold <= low:
        raise ValueError(f"threshold {threshold:g} makes every rating of '{ratings.name}' positive (scale {low:g} to {high:g})")
    if ratings.true_relevance is not None:
        if ratings.name not in synthetic.PRESETS or float(threshold) != int(threshold):
            raise ValueError(f"the true relevance of '{ratings.name}' cannot follow threshold {threshold:g}")
        return datasets.load(ratings.name, seed=seed, positive_threshold=int(threshold))
    return ratings.with_threshold(threshold)


def threshold_note(original: Ratings, judged: Ratings, threshold: float | None) -> str:
    """A sentence when the page judges ratings with another threshold than the dataset card shows, or
    cannot apply the requested one."""
    if threshold is not None and threshold > original.scale[1]:
        return (f"The ratings of {original.name} go up to {original.scale[1]:g} only, so the page keeps the "
                f"dataset's own threshold, {original.positive_threshold:g}, instead of {threshold:g}.")
    if judged.positive_threshold == original.positive_threshold:
        return ""
    return (f"The card above shows the dataset's own threshold, {original.positive_threshold:g}; this page counts "
            f"ratings of {judged.positive_threshold:g} and above as positive, {fmt_pct(judged.positive.mean())} of them.")


# ------------------------------------------------------------------------ attention model


def attention_curves(Qs: Sequence[float], m: int, depth: int) -> pd.DataFrame:
    """``w_N`` and ``d_N`` for ``N = 1..depth`` and every ``Q`` (untruncated): columns ``Q``, ``N``, ``w``, ``d``."""
    frames = []
    for Q in Qs:
        p = continuation_probability(Q, m)
        frames.append(pd.DataFrame({"Q": Q, "N": np.arange(1, depth + 1), "w": attention_weights(p, depth),
                                    "d": position_discount(p, depth)}))
    return pd.concat(frames, ignore_index=True)


def attention_table(Qs: Sequence[float], m: int, z: int) -> pd.DataFrame:
    """Per ``Q``: ``p``, the mean reading depth ``1/(1 - p)``, the first discount ``d_1`` and the share of
    ``sum_k d_k`` on the first page and in the list of ``z`` (untruncated model)."""
    rows = []
    for Q in Qs:
        p = continuation_probability(Q, m)
        d = position_discount(p, z)
        rows.append({"Q": Q, "p": p, "mean depth 1/(1-p)": 1 / (1 - p) if p < 1 else np.inf, "d_1": d[0],
                     "first page": d[:m].sum(), f"first {z}": d.sum()})
    return pd.DataFrame(rows)


def attention_text(table: pd.DataFrame, m: int) -> str:
    """What :func:`attention_table` says about the smallest and largest ``Q``, in words."""
    low, high = table.iloc[0], table.iloc[-1]
    return (
        f"On pages of m = {m} items, Q = {low['Q']:g} means that a user reads {fmt_number(low['mean depth 1/(1-p)'], 1)} "
        f"items on average and the first page carries {fmt_pct(low['first page'], 0)} of the weight; with "
        f"Q = {high['Q']:g} she reads {fmt_number(high['mean depth 1/(1-p)'], 1)} and the first page carries "
        f"{fmt_pct(high['first page'], 0)}."
    )


def discount_curves(setting: Setting, depth: int) -> pd.DataFrame:
    """The weight of rank ``k`` relative to rank 1 under the behavioural AUC (``d_k / d_1``), rank-biased
    precision with the same ``p`` (``p^(k-1)``, Moffat and Zobel 2008) and nDCG (``1 / log2(k + 1)``)."""
    k = np.arange(1, depth + 1)
    d = position_discount(setting.p, depth, setting.z)
    return pd.concat([
        pd.DataFrame({"k": k, "discount": "behavioural AUC, d_k / d_1", "weight": d / d[0]}),
        pd.DataFrame({"k": k, "discount": "RBP, p^(k-1)", "weight": attention_weights(setting.p, depth) / (1 - setting.p)}),
        pd.DataFrame({"k": k, "discount": "nDCG, 1/log2(k+1)", "weight": 1 / np.log2(k + 1)}),
    ], ignore_index=True)


def discount_text(discounts: pd.DataFrame, setting: Setting) -> str:
    """How fast each discount of :func:`discount_curves` falls, in words."""
    at = discounts.pivot(index="k", columns="discount", values="weight")
    own = at["behavioural AUC, d_k / d_1"]
    k = min(setting.m, len(at))
    return (
        f"With Q = {setting.Q:g} and m = {setting.m}, rank {k} keeps {fmt_pct(own.loc[k], 0)} of the weight of rank 1 "
        f"under the behavioural AUC, {fmt_pct(at['RBP, p^(k-1)'].loc[k], 0)} under rank-biased precision and "
        f"{fmt_pct(at['nDCG, 1/log2(k+1)'].loc[k], 0)} under nDCG. The behavioural discount is steepest at the very "
        f"top: rank 2 already keeps only {fmt_pct(own.loc[2], 0)}, because the readers who stop after the first "
        "item give it their whole weight."
    )


# ---------------------------------------------------------------------- scored systems


@dataclass
class Scored:
    """Scores of several systems on the same runs (one run per user), from which any metric follows.

    Attributes:
        runs: the runs (AI-AN: every item the user did not rate in training).
        scores: system label -> score of every candidate, aligned with ``runs.items``.
        popularity: item rating counts of the training set (the short-head step reads them).
        seed: seed of the random tie-break.
    """

    runs: Runs
    scores: dict[str, np.ndarray]
    popularity: ItemPopularity
    seed: int

    def __post_init__(self) -> None:
        self._rankings: dict[str, Ranking] = {}

    @classmethod
    def of(cls, systems: Mapping[str, Recommender], train: Ratings, runs: Runs, seed: int) -> Scored:
        candidates = Candidates([runs])
        scores = {label: candidates.score(recommender)[0] for label, recommender in systems.items()}
        return cls(runs, scores, ItemPopularity.from_ratings(train), seed)

    def ranking(self, label: str) -> Ranking:
        """The ranking of system ``label`` (computed once)."""
        if label not in self._rankings:
            self._rankings[label] = rank_positions(self.runs, self.scores[label], seed=self.seed)
        return self._rankings[label]

    def values(self, metrics: Sequence[str], relabelled: Runs | None = None) -> dict[str, pd.DataFrame]:
        """Per-user values, system label -> users x metrics.

        ``relabelled`` replaces the runs' relevance (same candidates, same marked entries), e.g.
        :func:`mishit_runs`; the systems' rankings are reused.
        """
        runs = self.runs if relabelled is None else relabelled
        if relabelled is not None and not np.array_equal(Ranking.marked_entries(relabelled), self.ranking(next(iter(self.scores))).marked):
            raise ValueError("relabelled runs must mark the same entries as the scored runs")
        out = {}
        for label in self.scores:
            ranking = self.ranking(label)
            ranking = ranking if relabelled is None else replace(ranking, runs=relabelled)
            out[label] = pd.DataFrame(compute_metrics(ranking, metrics, self.popularity), index=pd.Index(runs.users, name="user"))
        return out

    def means(self, metrics: Sequence[str], relabelled: Runs | None = None) -> pd.DataFrame:
        """Mean over users, systems x metrics."""
        return pd.DataFrame({label: frame.mean() for label, frame in self.values(metrics, relabelled).items()}).T

    def head_in_top(self, label: str, s: int, n: int) -> np.ndarray:
        """Per run, how many of the ``s`` most-rated training items system ``label`` puts in its first ``n``."""
        entries = self.ranking(label).top_entries(n)
        head = short_head(self.popularity.rating_counts, s)[self.runs.items[entries]]
        return np.bincount(self.runs.run_of_entry[entries], weights=head, minlength=self.runs.n_runs)


def liked_only(runs: Runs) -> Runs:
    """The same runs judged by their relevant candidates alone (what the behavioural AUC reads), which
    halves the positions a ranking must find when most test ratings are not positive."""
    return Runs.from_arrays(runs.offsets, runs.users, runs.items, runs.labels, runs.grades,
                            n_relevant=runs.n_relevant, design=runs.design)


def mishit_runs(runs: Runs) -> Runs:
    """The same runs with the judged non-relevant candidates (negative test ratings) as the relevant ones."""
    negative = runs.judged & ~runs.labels
    return Runs.from_arrays(runs.offsets, runs.users, runs.items, negative, judged=runs.judged, design=runs.design)


@dataclass
class Study:
    """The chapter-2 systems on one split: the fold, the fitted systems and their scores."""

    fold: Fold
    systems: dict[str, Recommender]
    scored: Scored


def system_study(
    ratings: Ratings, seed: int = 0, systems: Mapping[str, str | Recommender] = PAPER_SYSTEMS, test_ratio: float = 0.2
) -> Study:
    """Fit ``systems`` on the first coin-flip split of ``ratings`` and score every user's AI-AN run."""
    fold = make_folds(ratings, folds=1, test_ratio=test_ratio, seed=seed)[0]
    fitted = fit_systems(systems, fold.train, key_extra=fold.key, seed=seed)
    runs = build_runs(fold.train, fold.test, "AI-AN")
    return Study(fold, fitted, Scored.of(fitted, fold.train, runs, seed))


# ---------------------------------------------------------------------- the four cases


def four_cases(study: Study, lengths: Sequence[int]) -> pd.DataFrame:
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


def mishit_effect(study: Study, setting: Setting) -> pd.DataFrame:
    """Per system: the binary metric (mishits ignored, as in the paper), the same with every mishit counted
    as ``-1``, and the relative change."""
    metric = setting.metric(gain="binary")
    ignored = study.scored.means([metric])[metric]
    counted = ignored - study.scored.means([metric], mishit_runs(study.scored.runs))[metric]
    return pd.DataFrame({"system": ignored.index, "mishits ignored": ignored.to_numpy(),
                         "mishits at -1": counted.to_numpy(), "change": (counted / ignored - 1).to_numpy()})


# ------------------------------------------------------------------------------- Q sweep


def q_sweep(study: Study, setting: Setting, Qs: Sequence[float] = Q_GRID) -> pd.DataFrame:
    """The unpenalised metric of every system for every ``Q`` (``m`` and ``z`` fixed): systems x Q."""
    names = {Q: setting.metric(Q=Q) for Q in Qs}
    means = study.scored.means(list(names.values()))
    return means.rename(columns={name: Q for Q, name in names.items()})


def q_orders(sweep: pd.DataFrame) -> pd.DataFrame:
    """Per ``Q``: the order of the systems, and Kendall's tau-b with the orders at the smallest and largest ``Q``."""
    first, last = sweep.columns[0], sweep.columns[-1]
    return pd.DataFrame([
        {"Q": Q, "order": order_text(sweep[Q].to_dict()),
         f"tau with Q = {first:g}": kendall_tau(sweep[Q].to_dict(), sweep[first].to_dict()),
         f"tau with Q = {last:g}": kendall_tau(sweep[Q].to_dict(), sweep[last].to_dict())}
        for Q in sweep.columns
    ])


def q_text(sweep: pd.DataFrame) -> str:
    """How the order of the systems moves between the smallest and largest ``Q`` of the sweep."""
    orders = [order_text(sweep[Q].to_dict()) for Q in sweep.columns]
    first, last = sweep.columns[0], sweep.columns[-1]
    if len(set(orders)) == 1:
        return f"The order of the systems is {orders[0]} for every Q from {first:g} to {last:g}."
    change = next(Q for Q, order in zip(sweep.columns, orders, strict=True) if order != orders[0])
    return (f"At Q = {first:g}, where only the first item counts, the order is {orders[0]}; at Q = {last:g}, where "
            f"every item of the list counts alike, it is {orders[-1]}. The first change comes at Q = {change:g}, and "
            f"{len(set(orders))} different orders appear along the sweep.")


# ------------------------------------------------------------------- sensitivity search


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
    return (f"The users of {ratings.name} carry {_and_list(singles)}; the search uses each attribute alone and every "
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
    systems = segment_systems(segments, smoothing)
    for recommender in systems.values():
        recommender.fit(study.fold.train)
    scored = Scored.of(systems, study.fold.train, liked_only(study.scored.runs), study.scored.seed)
    metrics = [setting.metric(s=s) for s in sizes]
    values = {label: frame.to_numpy() for label, frame in scored.values(metrics).items()}
    n_users = values["global"].shape[0]
    counts = bootstrap_counts(n_users, n_boot, seed) / n_users
    reference, resampled_reference = values["global"].mean(axis=0), counts @ values["global"]
    rows = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for label in systems:
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
    return f"{contain} of {len(rows)} intervals contain zero" + (
        f" and {below} lie entirely below it (the segment lists lose)" if below else "")


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


# ------------------------------------------------------------------------------ new users


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
        raise ValueError(f"unknown recommender preset(s) {unknown or text!r}; choose from {', '.join(RECOMMENDER_PRESETS)}")
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
    references = {"the global list": ()} | ({f"the list for {' and '.join(attributes)}": attributes} if attributes else {})
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
            curves += [{"system": label, "k": k, "metric": metric_label, "value": v} for k, v in zip(known, matrix.mean(0))]
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
                        attributes, metrics, n_users, pd.Series({k: np.concatenate(v).mean() for k, v in heads.items()}))


# ------------------------------------------------------------------------------- truth


def truth_agreement(
    ratings: Ratings, setting: Setting, s: int, *, seed: int = 0, n_boot: int = 200
) -> pd.DataFrame:
    """How close the order of the fourteen systems of chapter 8 under each observed metric comes to their
    order under complete relevance, on a simulated world (``ratings.true_relevance``).

    Observed: P@10, nDCG@10 and the page's metric without and with the step at ``s`` on the AI-AN runs
    of the first coin-flip split.  Truth: P@10, nDCG@10 and the binary behavioural AUC over every item
    a user did not rate in training.  One row per (truth, observed metric): Kendall's tau-b with its
    percentile interval over resampled users, the share of pairs in the true order and whether the
    truly best system comes first (:func:`recbias.experiments.fidelity.fidelity`).
    """
    if ratings.true_relevance is None:
        raise ValueError(f"dataset '{ratings.name}' has no true relevance: the comparison needs a simulated world")
    study = system_study(ratings, seed, system_field(seed))
    observed = {"P@10": "P@10", "nDCG@10": "nDCG@10", "behavioural AUC without a step": setting.metric()}
    if s:
        observed[f"behavioural AUC with the step at s = {s}"] = setting.metric(s=s)
    values = study.scored.values(list(observed.values()))
    protocols = {label: pd.DataFrame({system: frame[name] for system, frame in values.items()})
                 for label, name in observed.items()}
    discount = position_discount(setting.p, setting.z, setting.z)[: ratings.n_items]  # no rank beyond the catalogue
    truth = true_quality(study.systems, study.fold.train, ratings.true_relevance, n=10, seed=None,
                         discounts={"behavioural AUC": discount})
    tables = []
    for truth_metric in truth:
        agreement = fidelity(TruthStudy(protocols, truth, list(study.systems), ratings.name, seed), truth_metric,
                             n_boot=n_boot, seed=seed)
        tables.append(agreement.assign(truth=f"true {truth_metric}"))
    return pd.concat(tables, ignore_index=True).rename(columns={"protocol": "observed metric"})


# ---------------------------------------------------------------- tables for the page


def not_applicable(reason: str) -> pd.DataFrame:
    """The one-cell table shown where a part of the chapter does not apply to the dataset."""
    return pd.DataFrame({"not applicable": [reason]})


def settings_table(setting: Setting, ratings: Ratings) -> pd.DataFrame:
    """The metric's settings on this page, with the paper's counterpart of each."""
    return pd.DataFrame([
        {"setting": "positive rating", "here": f">= {ratings.positive_threshold:g}", "paper": "6 of 10 stars"},
        {"setting": "gain of a hit", "here": f"r - {setting.base:g}", "paper": "r - 5"},
        {"setting": "page size m", "here": f"{setting.m}", "paper": "not stated"},
        {"setting": "share Q opening page 2", "here": f"{setting.Q:g}", "paper": "from pagination logs, not stated"},
        {"setting": "continuation p = Q^(1/m)", "here": fmt_number(setting.p, 3), "paper": "not stated"},
        {"setting": "list length z", "here": f"{setting.z}", "paper": "large, not stated"},
        {"setting": "metric name", "here": setting.metric(), "paper": "AUC_r, Eq. 15"},
    ])


def ranking_table(study: Study, setting: Setting, s: int) -> pd.DataFrame:
    """The chapter-2 systems under P@10, nDCG@10 and the metric without and (``s > 0``) with the step: mean and rank."""
    names = {"P@10": "P@10", "nDCG@10": "nDCG@10", "bAUC, no step": setting.metric()}
    if s:
        names[f"bAUC, step at s = {s}"] = setting.metric(s=s)
    means = study.scored.means(list(names.values())).rename(columns={v: k for k, v in names.items()})
    ranks = means.rank(ascending=False, method="min").astype(int).add_suffix(" rank")
    return pd.concat([means, ranks], axis=1)[[c for k in names for c in (k, f"{k} rank")]].rename_axis("system").reset_index()


def ranking_text(table: pd.DataFrame) -> str:
    """Where the step moves the systems, Popularity above all."""
    ranked = table.set_index("system")
    columns = [c for c in ranked.columns if c.endswith(" rank")]
    plain, last = columns[2], columns[-1]
    if plain == last:
        return f"Without a step, the metric orders the systems {order_text(ranked['bAUC, no step'].to_dict())}."
    moved = [f"{system} from {ordinal(int(r[plain]))} to {ordinal(int(r[last]))} place" for system, r in ranked.iterrows()
             if r[plain] != r[last]]
    popularity = (f" Popularity ends {ordinal(int(ranked.loc['Popularity', last]))} of {len(ranked)}"
                  + (", below Random." if ranked.loc["Popularity", last] > ranked.loc["Random", last] else ".")
                  if {"Popularity", "Random"} <= set(ranked.index) else "")
    return (f"The step moves {', '.join(moved)}." if moved else "The step moves no system.") + popularity


# ------------------------------------------------------------------ sentences for the page


def mishits_matter(effect: pd.DataFrame) -> tuple[bool, bool, pd.Series]:
    """Whether counting mishits changes the order of the systems, whether it moves a personalised system's
    value by more than a tenth, and the personalised system it moves most."""
    personal = effect[~effect["system"].isin(NON_PERSONALISED)]
    reorders = order_text(effect.set_index("system")["mishits ignored"].to_dict()) != order_text(
        effect.set_index("system")["mishits at -1"].to_dict())
    worst = personal.loc[personal["change"].abs().idxmax()]
    return reorders, bool(abs(worst["change"]) > 0.1), worst


def cases_text(cases: pd.DataFrame, effect: pd.DataFrame, setting: Setting) -> str:
    """What the four-case table and the mishit effect say."""
    page = cases[cases["list"] == setting.m].set_index("system")["mishits per hit"]
    personal = page.drop(index=[s for s in NON_PERSONALISED if s in page.index])
    reorders, large, worst = mishits_matter(effect)
    return (
        f"On the first page of {setting.m} items, the personalised systems show between "
        f"{fmt_number(personal.min(), 2)} and {fmt_number(personal.max(), 2)} mishits per hit, random lists "
        f"{fmt_number(page.get('Random', np.nan), 2)}. Counting every mishit as minus one hit lowers the metric of "
        f"{worst['system']} by {fmt_pct(-worst['change'], 0)} and "
        + ("changes the order of the systems." if reorders else "leaves the order of the systems as it was.")
    )


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
        f"{fmt_pct(abs(increase))} on average, {fmt_number(plain['sensitivity'], 1)} resampling standard deviations. "
        f"The search settles on s = {search.chosen} ({fmt_pct(search.chosen / n_items)} of the catalogue), where the "
        f"increase is {fmt_pct(chosen['relative increase'])}, or {fmt_number(chosen['sensitivity'], 1)} standard "
        "deviations, and every segment list beats the global list in "
        + ("every resample" if wins.min() == 1 else f"at least {fmt_pct(wins.min(), 0)} of the resamples")
        + f". Read literally, Eq. 14 would pick s = {search.literal_choice}, where the global list keeps "
        f"{_share_text(curve.loc[search.literal_choice, 'global'] / plain['global'])} of its unpenalised value."
    )


def head_text(shares: pd.DataFrame | None, s: int, n_items: int) -> str:
    """How much of the unpenalised metric the short head supplies, against the paper's 80%."""
    if shares is None:
        return "Without a step there is no short head to measure."
    personal = shares[shares["system"] != "Random"].set_index("system")["short-head share"]
    paper = published().set_index("key").loc["short-head-share", "value"]
    return (
        f"The {s} most-rated items, {fmt_pct(s / n_items)} of the catalogue, supply between "
        f"{fmt_pct(personal.min(), 0)} ({personal.idxmin()}) and {fmt_pct(personal.max(), 0)} ({personal.idxmax()}) "
        f"of the unpenalised metric of the non-random systems, {fmt_pct(personal.median(), 0)} in the median. The "
        f"paper puts the short head's contribution on Imhonet at about {fmt_pct(paper, 0)}, without saying where its "
        "head ends."
    )


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


def crossing_text(study: NewUserStudy) -> str:
    """Where the curves of the new-user figure end and cross the reference lines, one sentence per metric."""
    lines = study.lines.set_index(["metric", "list"])["value"]
    sentences = []
    for metric in study.metrics:
        here = lines.loc[metric]
        global_value, demographic = here.iloc[0], here.iloc[1] if len(here) > 1 else None
        parts = []
        for system, curve in study.curves[study.curves["metric"] == metric].groupby("system", sort=False):
            last = curve["value"].iloc[-1]
            text = (f"{system} with {study.known[-1]} ratings reaches {fmt_number(last, 3)}, "
                    + ("above" if last > global_value else "below") + f" the global list ({fmt_number(global_value, 3)})")
            row = study.crossings[(study.crossings["system"] == system) & (study.crossings["metric"] == metric)]
            if demographic is not None and len(row):
                row = row.iloc[0]
                if np.isfinite(row["crossing"]):
                    if not np.isfinite(row["low"]):
                        spread = f"{fmt_pct(row['crossed in'], 0)} of user resamples cross at all"
                    elif row["low"] == row["high"]:
                        spread = "the same in at least 95% of user resamples"
                    else:
                        spread = f"95% of user resamples between {row['low']:g} and {row['high']:g}"
                    text += (f"; it overtakes the demographic list ({fmt_number(demographic, 3)}) from "
                             f"k = {row['crossing']:g} known rating{'s' if row['crossing'] > 1 else ''} on ({spread})")
                else:
                    text += f" and never overtakes the demographic list ({fmt_number(demographic, 3)})"
            parts.append(text)
        label = "Without the step" if metric == "unpenalised" else f"With the {metric}"
        sentences.append(f"{label}, " + "; ".join(parts) + ".")
    if not study.attributes:
        sentences.append("The data carry no gender or age, so there is no demographic list to compare with.")
    return " ".join(sentences)


def truth_table(agreement: pd.DataFrame) -> pd.DataFrame:
    """One row per observed metric, one column per truth: Kendall's tau-b with its resampling interval,
    and whether the truly best system comes first under that metric."""
    cell = agreement.assign(text=lambda f: [f"{t:.2f} ({lo:.2f} to {hi:.2f})" for t, lo, hi in
                                           zip(f["tau"], f["tau_low"], f["tau_high"], strict=True)])
    table = cell.pivot(index="observed metric", columns="truth", values="text")
    table = table.loc[list(dict.fromkeys(agreement["observed metric"])), list(dict.fromkeys(agreement["truth"]))]
    best = agreement.groupby("observed metric", sort=False)["best"].max().map({1.0: "yes", 0.0: "no"})
    return table.assign(**{"best system first": best}).rename_axis(None, axis=1).reset_index()


def truth_text(agreement: pd.DataFrame) -> str:
    """Which observed metric comes closest to the true orders, ranked by its mean tau over the truths."""
    spans = agreement.groupby("observed metric", sort=False)["tau"].agg(["mean", "min", "max"]).sort_values(
        "mean", ascending=False)
    text = {name: _range_text(row["min"], row["max"]) for name, row in spans.iterrows()}
    best, *others = text
    return (
        f"On this world, {best} orders the systems closest to the truth (Kendall tau {text[best]} over the three "
        "true orders), followed by " + _and_list([f"{name} ({text[name]})" for name in others]) + "."
    )


def _and_list(parts: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _range_text(low: float, high: float) -> str:
    """"0.54 to 0.58", or one number when both round alike."""
    a, b = fmt_number(low, 2), fmt_number(high, 2)
    return a if a == b else f"{a} to {b}"


# ---------------------------------------------------------------------- scorecard claims


def published() -> pd.DataFrame:
    """The published numbers this chapter sets its own against (``published/discounted_auc.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/discounted_auc.csv").open() as handle:
        return pd.read_csv(handle, comment="#")


def published_table(shares: pd.DataFrame | None, new_users: NewUserStudy | None) -> pd.DataFrame:
    """Each published number next to ours on this build (``–`` where this build has no estimate)."""
    ours = {row["key"]: row["ours"] for row in published_numbers(shares, new_users, "")}
    table = published()
    return pd.DataFrame({
        "statistic": table["statistic"], "paper (Imhonet)": table["value"].map(lambda v: f"{v:g}"),
        "ours": [f"{ours[k]:.2g}" if k in ours else "–" for k in table["key"]],
    })


def published_numbers(shares: pd.DataFrame | None, new_users: NewUserStudy | None, dataset: str) -> list[dict]:
    """Scorecard arguments for the published numbers we have an estimate of on this build."""
    headline = None if new_users is None else new_users.headline
    ours = {
        "short-head-share": None if shares is None else float(shares[shares["system"] != "Random"]["short-head share"].median()),
        "demographics-worth-ratings": None if headline is None else float(headline["crossing"]),
    }
    return [
        {"key": row.key, "label": row.statistic, "ours": ours[row.key], "paper": row.value, "tolerance": row.tolerance,
         "source": row.source, "dataset": dataset, "paper_dataset": row.paper_dataset, "note": row.note}
        for row in published().itertuples()
        if ours.get(row.key) is not None and np.isfinite(ours[row.key])
    ]


def findings(
    effect: pd.DataFrame,
    search: SensitivitySearch | None,
    shares: pd.DataFrame | None,
    new_users: NewUserStudy | None,
    agreement: pd.DataFrame | None = None,
) -> list[dict]:
    """The claims checked on this build: ``key``, ``label``, ``holds``, ``evidence``, ``anchor`` and ``source``
    (the paper's claims, and on a simulated world the chapter's question of agreement with the truth)."""
    checked = []
    reorders, large, worst = mishits_matter(effect)
    checked.append({
        "key": "mishits-are-negligible", "anchor": "tbl-dauc-mishits",
        "label": "mishits (recommended items rated negatively) are too rare to change the metric much",
        "holds": not (reorders or large),
        "evidence": f"counting each mishit as -1 lowers {worst['system']}'s value by {-worst['change']:.0%} and "
                    + ("reorders" if reorders else "keeps the order of") + " the systems; the claim holds if no "
                    "personalised system moves by more than 10% and the order stays",
    })
    if search is not None:
        curve = search.curve.set_index("s")
        checked.append({
            "key": "step-increases-sensitivity", "anchor": "fig-dauc-search",
            "label": "the short-head step increases the metric's sensitivity to user information",
            "holds": bool(search.chosen > 0 and curve.loc[search.chosen, "sensitivity"] > curve.loc[0, "sensitivity"]),
            "evidence": f"mean increase over its resampling standard deviation: {curve.loc[0, 'sensitivity']:.1f} "
                        f"without the step, {curve.loc[search.chosen, 'sensitivity']:.1f} at s = {search.chosen}",
        })
    if shares is not None:
        personal_shares = shares[shares["system"] != "Random"]
        checked.append({
            "key": "short-head-dominates", "anchor": "tbl-dauc-head",
            "label": "the short head supplies most of the unpenalised rating-sum metric",
            "holds": bool((personal_shares["short-head share"] > 0.5).all()),
            "evidence": "share from the step's items: " + ", ".join(
                f"{system} {share:.0%}" for system, share in zip(personal_shares["system"],
                                                                 personal_shares["short-head share"], strict=True)),
        })
    if new_users is not None and len(new_users.crossings):
        row = new_users.headline
        checked.append({
            "key": "demographics-worth-a-handful", "anchor": "fig-dauc-new-users",
            "label": "for new users, gender and age are worth a handful of ratings (the paper: about 5)",
            "holds": bool(2 <= row["crossing"] <= 10),
            "evidence": (f"{row['system']} overtakes the demographic list from k = {row['crossing']:g} known "
                         f"rating{'s' if row['crossing'] > 1 else ''}"
                         if np.isfinite(row["crossing"]) else f"{row['system']} never overtakes the demographic list")
                        + f" ({row['metric']}); a handful counts as 2 to 10",
        })
    checked = [claim | {"source": SOURCE} for claim in checked]
    if agreement is not None:
        tau = agreement.groupby("observed metric", sort=False)["tau"].mean()
        baseline = tau[["P@10", "nDCG@10"]].max()
        for name in [n for n in tau.index if n.startswith("behavioural AUC")]:
            checked.append({
                "key": "closer-to-truth-" + ("with-step" if "step at" in name else "no-step"),
                "anchor": "tbl-dauc-truth", "source": "recbias chapter 7",
                "label": f"the {name} orders systems closer to their true order than P@10 and nDCG@10",
                "holds": bool(tau[name] > baseline),
                "evidence": f"mean Kendall tau over three truths: {tau[name]:.2f}, against {baseline:.2f} for the "
                            "better of P@10 and nDCG@10",
            })
    return checked


# ------------------------------------------------------------------------------ figures
# Each returns a matplotlib figure; ``stamp(ax)`` marks every panel with the dataset (the page
# passes recbias.bookkit.plotting.dataset_caption).

Stamp = Callable[["Axes"], None]


def _finish(figure: Figure, stamp: Stamp) -> Figure:
    figure.tight_layout()
    for ax in figure.axes:
        stamp(ax)
    return figure


def placeholder_figure(text: str, stamp: Stamp) -> Figure:
    """A small figure that says why a part of the chapter has nothing to draw on this dataset."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(7.5, 1.2))
    ax.axis("off")
    ax.text(0.0, 0.5, text, va="center", fontsize=10, wrap=True)
    return _finish(figure, stamp)

#: colour and line style of the global and the demographic list in the new-user figure
_REFERENCE_STYLES = (("#555555", ":"), ("#e6550d", "--"))


def attention_figure(curves: pd.DataFrame, m: int, stamp: Stamp) -> Figure:
    """``w_N`` (left) and ``d_k`` (right, log scale) for every ``Q`` of :func:`attention_curves`."""
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(9.5, 3.8))
    shades = plt.cm.viridis(np.linspace(0.0, 0.85, curves["Q"].nunique()))
    for colour, (Q, curve) in zip(shades, curves.groupby("Q"), strict=True):
        label = f"Q = {Q:g} (p = {continuation_probability(Q, m):.3f})"
        left.plot(curve["N"], curve["w"], color=colour, label=label)
        right.plot(curve["N"], curve["d"], color=colour, label=label)
    left.set(xlabel="list length read, $N$", ylabel="$w_N$")
    right.set(xlabel="rank $k$", ylabel="$d_k$ (log scale)", yscale="log")
    left.set_title("Who stops where", loc="left")
    right.set_title("Weight of rank $k$", loc="left")
    for ax in (left, right):
        ax.axvline(m + 0.5, color="#999999", lw=0.8, ls=":")
    left.legend(fontsize=8.5)
    return _finish(figure, stamp)


def discount_figure(discounts: pd.DataFrame, stamp: Stamp) -> Figure:
    """The three relative discounts of :func:`discount_curves`."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(7.5, 3.8))
    for (name, curve), style in zip(discounts.groupby("discount", sort=False), ("-", "--", ":"), strict=True):
        ax.plot(curve["k"], curve["weight"], ls=style, lw=2, label=name)
    ax.set(xlabel="rank $k$", ylabel="weight relative to rank 1", ylim=(0, 1.02))
    ax.legend(fontsize=9)
    return _finish(figure, stamp)


def q_figure(sweep: pd.DataFrame, colours: Mapping[str, str], stamp: Stamp) -> Figure:
    """Each system's metric against ``Q``: absolute (left, log scale) and relative to the best system (right,
    without Random, which lies far below)."""
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(9.5, 4.2))
    relative = sweep.drop(index=["Random"], errors="ignore") / sweep.max(axis=0)
    for system in sweep.index:
        left.plot(sweep.columns, sweep.loc[system], marker="o", ms=3.5, color=colours[system], label=system)
        if system in relative.index:
            right.plot(sweep.columns, relative.loc[system], marker="o", ms=3.5, color=colours[system])
    left.set(xlabel="$Q$, share of users who open page 2", ylabel="behavioural AUC (log scale)", yscale="log")
    right.set(xlabel="$Q$, share of users who open page 2", ylabel="relative to the best system")
    return _legend_below(figure, left, stamp)


def _legend_below(figure: Figure, ax: Axes, stamp: Stamp) -> Figure:
    """One legend for all panels under the figure, then the stamps."""
    handles, labels = ax.get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8.5, bbox_to_anchor=(0.5, 0.0))
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    for panel in figure.axes:
        stamp(panel)
    return figure


def search_figure(search: SensitivitySearch, n_items: int, stamp: Stamp) -> Figure:
    """Eq. 14 (top: mean relative increase) and the resampling-scaled increase (bottom) against the step ``s``."""
    import matplotlib.pyplot as plt

    figure, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 6.4), sharex=True)
    curve = search.curve[search.curve["s"] > 0]
    top.plot(curve["s"], curve["relative increase"], marker="o", color="#1f77b4")
    top.set(yscale="log", ylabel="mean relative increase\n(Eq. 14, log scale)")
    for label, cells in search.cells[search.cells["s"] > 0].groupby("segmentation", sort=False):
        bottom.plot(cells["s"], cells["z"], color="#bbbbbb", lw=1)
    bottom.plot(curve["s"], curve["sensitivity"], marker="o", color="#1f77b4", lw=2.2, label="mean over segmentations")
    bottom.axhline(search.curve.loc[search.curve["s"] == 0, "sensitivity"].iloc[0], color="#d62728", ls="--", lw=1.2,
                   label="no step (s = 0)")
    for ax in (top, bottom):
        ax.axvline(search.chosen, color="#2ca02c", lw=1.2, ls=":")
    bottom.annotate(f"chosen s = {search.chosen}", xy=(search.chosen, 0.5), xycoords=("data", "axes fraction"),
                    xytext=(5, 0), textcoords="offset points", color="#2ca02c", fontsize=9, rotation=90, va="center")
    bottom.set(xscale="log", xlabel=f"step position $s$: items with the most ratings given zero weight (of {n_items:,})",
               ylabel="increase / its resampling sd")
    bottom.legend(fontsize=8.5, loc="upper right")
    return _finish(figure, stamp)


def instability_figure(search: SensitivitySearch, stamp: Stamp) -> Figure:
    """Each segmentation's relative increase with its 95% resampling interval, without and with the step."""
    import matplotlib.pyplot as plt

    table = instability_table(search)
    labels = list(dict.fromkeys(table["segmentation"]))
    panels = table.groupby("penalty", sort=False)
    figure, axes = plt.subplots(1, len(panels), figsize=(9.5, 0.45 * len(labels) + 1.6), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, (penalty, rows) in zip(axes, panels, strict=True):
        y = [labels.index(label) for label in rows["segmentation"]]
        ax.errorbar(rows["relative increase"], y, xerr=[rows["relative increase"] - rows["low"],
                                                        rows["high"] - rows["relative increase"]],
                    fmt="o", color="#1f77b4", capsize=3)
        ax.axvline(0, color="#999999", lw=0.8)
        ax.set_title(f"step: {penalty}", loc="left")
        ax.set_xlabel("relative increase over the global list")
        ax.xaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
    axes[0].set_yticks(range(len(labels)), labels)
    axes[0].invert_yaxis()
    return _finish(figure, stamp)


def new_user_figure(study: NewUserStudy, colours: Mapping[str, str], stamp: Stamp) -> Figure:
    """The paper's Fig. 4: metric against known ratings, with the global and demographic lists as lines; one
    panel per metric (without and, when there is one, with the step)."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(study.metrics), figsize=(9.5, 4.3))
    for ax, metric in zip(np.atleast_1d(axes), study.metrics, strict=True):
        for system, curve in study.curves[study.curves["metric"] == metric].groupby("system", sort=False):
            ax.plot(curve["k"], curve["value"], marker="o", ms=3.5, color=colours[system], label=f"{system}, k ratings")
        for row, (colour, style) in zip(study.lines[study.lines["metric"] == metric].itertuples(), _REFERENCE_STYLES):
            ax.axhline(row.value, color=colour, ls=style, lw=1.6, label=row.list)
        ax.set(xlabel="known ratings of the new user, $k$", ylabel="behavioural AUC", ylim=(0, None))
        ax.set_title(f"metric: {metric}", loc="left")
    return _legend_below(figure, np.atleast_1d(axes)[0], stamp)

"""Chapter 8 ("Which protocol recovers the true order of systems?"): fidelity of offline protocols.

Every earlier chapter shows how a protocol distorts a measurement.  This driver asks
the practitioner's question instead: if I rank systems with protocol X on observed
(missing-not-at-random) data, how often do I get the order that the systems' true
quality would give?  Two kinds of truth are used:

* **simulated worlds** (:mod:`recbias.synthetic`), which know the relevance of every
  user-item pair: a system's true quality is its P@10 / nDCG@10 over *all* items the
  user did not rate in training (:func:`recbias.evaluate.true_quality`);
* **Coat** (Schnabel et al. 2016), whose users also rated 16 coats drawn uniformly at
  random: ranking those random items and scoring them against the ratings is an
  unbiased estimate of quality on random items (:func:`random_item_quality`).

The protocols under test (:func:`protocols`) are computed on a coin-flip split of
the observed ratings (and on a uniform split for U1R/UAR, IRJ 2017 Sec. 6.2).  The
systems (:func:`recbias.evaluate.fidelity.system_field`) span a wide range of reliance
on popularity, including popularity blends.

Fidelity (:mod:`recbias.evaluate.fidelity`) compares each protocol's order of systems
with the true order by Kendall's tau-b, the share of system pairs ordered as the truth
orders them, and whether the truly best system comes out first, with bootstrap intervals
over users (the sampling unit: per-user values are averaged over a user's runs first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.designs import build_runs, parse_design
from recbias.evaluate import Candidates, evaluate_runs
from recbias.evaluate.complete import TrueQuality
from recbias.evaluate.fidelity import TruthStudy, fidelity, fit_field, system_field
from recbias.splits import Fold, fold_seed, make_folds
from recbias.metrics.popularity import ItemPopularity
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Runs
from recbias.sampled import corrected_sample
from recbias.synthetic import MAX_PAIRS, generate

__all__ = [
    "Protocol",
    "families",
    "protocols",
    "random_item_quality",
    "random_item_runs",
    "headline_truth",
    "second_truth",
    "simulation_grid",
    "truth_study",
    "world_with_truth",
]

@dataclass(frozen=True)
class Protocol:
    """One offline protocol: a design on a split, read with one metric.

    Attributes:
        label: name shown in tables.
        design: design name of :func:`recbias.designs.build_runs`.
        metric: metric spec of :func:`recbias.metrics.parse_metric`.
        split: ``"coin"`` (random 80/20) or ``"uniform"`` (:func:`recbias.splits.uniform_split`).
        family: what kind of remedy it is, for grouping in figures.
        correction: for a sampled metric read through a correction of Krichene and Rendle
            (:func:`recbias.sampled.corrected_sampled_metric`, ``design`` a ``1R AI-NN(m)``),
            the method (``"BV 0.1"``, ...); ``None`` for a metric read from the runs as they are.
    """

    label: str
    design: str
    metric: str
    split: str
    family: str
    correction: str | None = None


def protocols(n_items: int, sampled_m: int = 100) -> list[Protocol]:
    """The protocols under test, with 1R target sets sized to the catalogue.

    1R designs draw ``k = min(99, n_items // 20)`` non-relevant items, so that P1R's ten
    popularity percentiles still hold enough of them on small catalogues (Coat: 300 items);
    ``sampled_m`` negatives from the whole catalogue make the sampled metric of Krichene
    and Rendle (2020) (at most ``n_items // 3``).  The discounted AUC of Bobrikov et al.
    (2016) reads the top 100 of the whole catalogue with chapter 7's attention model
    (``Q = 0.3``, pages of 10), once as it is and once with the short-head step on the 2%
    most-rated items.
    """
    k = max(9, min(99, n_items // 20))
    m = max(9, min(sampled_m, n_items // 3))
    head = max(1, n_items // 50)
    one = f"1R TI-NN({k})"
    return [
        Protocol("AR TI-AN P@10", "TI-AN", "P@10", "coin", "standard"),
        Protocol("AR AI-AN P@10", "AI-AN", "P@10", "coin", "standard"),
        Protocol("full-catalogue nDCG@10", "AI-AN", "nDCG@10", "coin", "standard"),
        Protocol("1R P@10", one, "P@10", "coin", "standard"),
        Protocol("sampled HR@10", f"1R AI-NN({m})", "HR@10", "coin", "sampled"),
        Protocol("sampled HR@10, corrected (BV 0.1)", f"1R AI-NN({m})", "HR@10", "coin", "sampled", "BV 0.1"),
        Protocol("P1R(10) P@10", f"P1R(10) TI-NN({k})", "P@10", "coin", "neutralising"),
        Protocol("1R -10% head P@10", f"{one} -10% head", "P@10", "coin", "neutralising"),
        Protocol("U1R P@10", f"U1R TI-NN({k})", "P@10", "uniform", "neutralising"),
        Protocol("UAR P@10", "UAR TI-AN", "P@10", "uniform", "neutralising"),
        Protocol("AI-UAR P@10", "UAR AI-AN", "P@10", "uniform", "neutralising"),
        Protocol("bpref", "TI-AN", "bpref", "coin", "incomplete judgments"),
        Protocol("infAP", "TI-AN", "infAP", "coin", "incomplete judgments"),
        Protocol("stratified recall@10 (gamma 1)", "TI-AN", "PSR@10(gamma=1)", "coin", "incomplete judgments"),
        Protocol("IPS-P@10 (power 0.5)", "TI-AN", "IPS-P@10(power=0.5)", "coin", "propensity weighting"),
        Protocol("SNIPS-P@10 (power 0.5)", "TI-AN", "SNIPS-P@10(power=0.5)", "coin", "propensity weighting"),
        Protocol("discounted AUC", "AI-AN", "bAUC@100(Q=0.3,m=10)", "coin", "user behaviour"),
        Protocol("discounted AUC, 2% short head off", "AI-AN", f"bAUC@100(Q=0.3,m=10,s={head})", "coin",
                 "user behaviour"),
    ]


# ----------------------------------------------------------------------------- truth


def random_item_runs(train: Ratings, unbiased: Ratings) -> Runs:
    """One run per user over the randomly drawn items they rated and did not rate in training.

    Labels are ``rating >= positive threshold`` and grades the ratings of ``unbiased``
    (Coat's ``test.ascii``); items also in the user's training profile are left out.
    """
    in_train = pd.MultiIndex.from_arrays([train.users, train.items])
    keep = ~pd.MultiIndex.from_arrays([unbiased.users, unbiased.items]).isin(in_train)
    order = np.lexsort((unbiased.items[keep], unbiased.users[keep]))
    users, items = unbiased.users[keep][order], unbiased.items[keep][order]
    values = unbiased.values[keep][order]
    run_users, sizes = np.unique(users, return_counts=True)
    labels = values >= unbiased.positive_threshold
    return Runs.from_arrays(
        offsets=np.concatenate([[0], np.cumsum(sizes)]),
        users=run_users,
        items=items,
        labels=labels,
        grades=np.where(labels, values, 0.0),
        judged=np.ones(len(items), dtype=bool),
        design="random items",
    )


def random_item_values(
    runs: Runs, scores: Mapping[str, np.ndarray], *, n: int = 5, seed: int = 0
) -> dict[str, pd.DataFrame]:
    """Per-user P@n and nDCG@n on the random-item ``runs`` of :func:`random_item_runs`, from each system's
    scores of their candidates; users with no relevant random item have NaN nDCG (and count in P@n)."""
    metrics = [f"P@{n}", f"nDCG@{n}"]
    tables = {label: evaluate_runs(runs, s, metrics, ties="random", seed=seed) for label, s in scores.items()}
    out = {}
    for metric in metrics:
        frame = pd.DataFrame({label: t.set_index("user")[metric] for label, t in tables.items()})
        if metric.startswith("nDCG"):
            frame[np.repeat(runs.n_relevant[:, None] == 0, frame.shape[1], axis=1)] = np.nan
        out[metric] = frame
    return out


def random_item_quality(
    systems: Mapping[str, Recommender], train: Ratings, unbiased: Ratings, *, n: int = 5, seed: int = 0
) -> dict[str, pd.DataFrame]:
    """Per-user P@n and nDCG@n of each system on the user's randomly drawn rated items.

    Because those items were drawn uniformly at random, the mean over users is an
    unbiased estimate of the metric on random items (Schnabel et al. 2016).  Users with
    no relevant random item have NaN nDCG (and contribute to P@n).
    """
    runs = random_item_runs(train, unbiased)
    candidates = Candidates([runs])
    return random_item_values(runs, {label: candidates.score(r)[0] for label, r in systems.items()}, n=n, seed=seed)


# ------------------------------------------------------------------------- protocols


def _measure_fold(
    protocol_list: Sequence[Protocol], fitted: Mapping[str, Recommender], fold: Fold, ratings: Ratings, seed: int,
    *, truth: bool = False,
) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    """Per-user means (users x systems) of every protocol of one split, and with ``truth`` the truth's tables.

    Every system scores the fold once: one :class:`recbias.evaluate.Candidates` holds the runs of
    every design, the draws of the corrected sampled metrics (:func:`recbias.sampled.corrected_sample`)
    and Coat's random-item runs, and the complete relevance of a simulated world reads the same score
    blocks (:class:`recbias.evaluate.complete.TrueQuality`, ties by item code).  Popularity-aware
    metrics read the dataset's positive counts (stratified recall) and the fold's training counts
    (IPS, SNIPS).
    """
    train, test = fold.train, fold.test
    popularity = replace(ItemPopularity.from_ratings(train, test, train=train),
                         positive_counts=ratings.item_counts(positive_only=True))
    plain = [p for p in protocol_list if p.correction is None]
    designs = list(dict.fromkeys(p.design for p in plain))
    runs = [build_runs(train, test, d, seed=fold_seed(seed, k), on_shortage="exclude") for k, d in enumerate(designs)]
    metrics = {d: [p.metric for p in plain if p.design == d] for d in designs}
    samples = {p.label: corrected_sample(train, test, metric=p.metric, method=p.correction,
                                         m=parse_design(p.design).n_nonrelevant, seed=fold_seed(seed, len(designs)))
               for p in protocol_list if p.correction is not None}
    complete = (TrueQuality(train, ratings.true_relevance, seed=None)
                if truth and ratings.true_relevance is not None else None)
    random_items = random_item_runs(train, ratings.unbiased_test) if truth and complete is None else None
    extra = [random_items] if random_items is not None else []
    candidates = Candidates(runs + [s.runs for s in samples.values()] + extra,
                            users=None if complete is None else complete.users)
    out: dict[str, dict[str, pd.Series]] = {p.label: {} for p in protocol_list}
    random_scores, scores = {}, None
    for label, recommender in fitted.items():  # each system's scores are read before the next one's overwrite them
        scores = candidates.score(recommender, [complete.reader(label)] if complete is not None else [], out=scores)
        for design, design_runs, design_scores in zip(designs, runs, scores, strict=False):
            table = evaluate_runs(design_runs, design_scores, metrics[design], seed=seed, item_popularity=popularity)
            means = table.groupby("user")[metrics[design]].mean()
            for protocol in plain:
                if protocol.design == design:
                    out[protocol.label][label] = means[protocol.metric]
        for (protocol_label, sample), sample_scores in zip(samples.items(), scores[len(designs):], strict=False):
            out[protocol_label][label] = sample.values(label, sample_scores).groupby("user")["value"].mean()
        if random_items is not None:
            random_scores[label] = scores[-1].copy()
    if complete is not None:
        true_tables = complete.tables()
    elif random_items is not None:
        true_tables = random_item_values(random_items, random_scores, seed=seed)
    else:
        true_tables = {}
    return {label: pd.DataFrame(columns) for label, columns in out.items()}, true_tables


def truth_study(
    ratings: Ratings,
    *,
    seed: int = 0,
    split: int = 0,
    test_ratio: float = 0.2,
    systems: Mapping[str, Recommender] | None = None,
    sampled_m: int = 100,
    cache: bool = True,
) -> TruthStudy:
    """Fit the field on a coin-flip split and a uniform split of ``ratings`` and measure everything.

    The splits are fold ``split`` of :func:`recbias.evaluate.experiment.make_folds` with ``seed``
    (``method="coin"`` and ``"uniform"``), so the systems that other chapters fit on the
    same folds are loaded from the fit cache; the blends of the field share the fit of its MF
    (:func:`recbias.evaluate.fidelity.fit_field`).  The truth comes from
    ``ratings.true_relevance`` (simulated worlds; systems fitted on the coin-flip training set,
    judged over all unrated items) or ``ratings.unbiased_test`` (Coat: the same systems rank each
    user's random items); a dataset with neither raises ``ValueError``.
    """
    if ratings.true_relevance is None and ratings.unbiased_test is None:
        raise ValueError(
            f"dataset '{ratings.name}' has no ground truth: chapter 8 needs a simulated world "
            "(true relevance) or Coat (ratings of random items)"
        )
    field = dict(systems) if systems is not None else system_field(seed)
    plan = protocols(ratings.n_items, sampled_m)
    coin = make_folds(ratings, folds=split + 1, test_ratio=test_ratio, seed=seed)[split]
    coin_fit = fit_field(field, coin.train, key_extra=coin.key, cache=cache, seed=seed)
    values, truth = _measure_fold([p for p in plan if p.split == "coin"], coin_fit, coin, ratings, seed, truth=True)
    uniform = [p for p in plan if p.split == "uniform"]
    try:
        uniform_fold = make_folds(ratings, method="uniform", folds=split + 1, test_ratio=test_ratio, seed=seed)[split]
    except ValueError:
        uniform_fold = None  # no uniform profile exists at this test ratio: U protocols are left out
    if uniform and uniform_fold is not None:
        fresh = system_field(seed) if systems is None else dict(systems)
        uniform_fit = fit_field(fresh, uniform_fold.train, key_extra=uniform_fold.key, cache=cache, seed=seed)
        values |= _measure_fold(uniform, uniform_fit, uniform_fold, ratings, seed)[0]
    ordered = {p.label: values[p.label] for p in plan if p.label in values}
    return TruthStudy(protocols=ordered, truth=truth, systems=list(field), dataset=ratings.name, seed=seed,
                      split=split)


# ------------------------------------------------------------------------ simulation


def simulation_grid(
    alphas: Sequence[float],
    selections: Sequence[float],
    *,
    seeds: Sequence[int] = (0,),
    preset: str = "synthetic-small",
    truth_metric: str = "P@10",
    cache: bool = True,
    **world: float,
) -> pd.DataFrame:
    """Fidelity of every protocol over a grid of popularity skew ``alpha`` and observation bias.

    Each cell generates a world of ``preset`` (``world`` overrides its sizes) with that
    ``alpha`` and ``selection`` strength for every seed, runs :func:`truth_study` and
    :func:`fidelity`.  Returns one row per (alpha, selection, seed, protocol).
    """
    rows = []
    for alpha in alphas:
        for selection in selections:
            for seed in seeds:
                ratings = generate(preset=preset, alpha=float(alpha), selection=float(selection), seed=seed, **world)
                study = truth_study(ratings, seed=seed, cache=cache)
                table = fidelity(study, truth_metric, n_boot=50, seed=seed)
                rows.append(table.assign(alpha=float(alpha), selection=float(selection), seed=seed))
    return pd.concat(rows, ignore_index=True)


# ------------------------------------------------------------------------- the truths


def families() -> dict[str, str]:
    """Protocol label -> the kind of remedy it is (``family`` of :func:`protocols`)."""
    return {p.label: p.family for p in protocols(10_000)}


def world_with_truth(ratings: Ratings, seed: int = 0) -> Ratings:
    """``ratings`` when they carry a truth, otherwise a simulated world of the same size.

    Real datasets other than Coat have no ground truth; the chapter then studies a world
    from :func:`recbias.synthetic.generate` with the dataset's numbers of users, items and
    ratings, named after it (``"ml-100k-sized world"``).  A catalogue too large for the
    generator's complete matrices keeps the dataset's users and ratings and the largest
    number of items that fits (``MAX_PAIRS // n_users``).
    """
    if ratings.true_relevance is not None or ratings.unbiased_test is not None:
        return ratings
    n_items = min(ratings.n_items, MAX_PAIRS // ratings.n_users)
    world = generate(seed=seed, n_users=ratings.n_users, n_items=n_items, n_ratings=ratings.n_ratings)
    return dataclasses.replace(world, name=f"{ratings.name}-sized world")


def second_truth(requested: str, world: Ratings, seed: int = 0) -> Ratings | None:
    """The dataset of the page's second truth: ``requested`` (Coat by default), or the default simulated
    world when ``requested`` is the build's own dataset; None when ``requested`` is empty or its files
    are not available."""
    if not requested:
        return None
    if requested == world.name:
        return datasets.load("synthetic", seed=seed)
    return datasets.load(requested) if datasets.available(requested) else None


def headline_truth(study: TruthStudy) -> str:
    """The truth the chapter orders the systems by: precision at 10 on a world's complete relevance, and on
    random items (Coat) nDCG at 5 with the ratings as gains, which reads more of the 16 ratings a user gives
    there than binary precision does."""
    return "nDCG@5" if "nDCG@5" in study.truth else next(iter(study.truth))

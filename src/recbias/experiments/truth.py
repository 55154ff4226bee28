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
systems (:func:`system_field`) span a wide range of reliance on popularity,
including popularity blends (:class:`recbias.recommenders.PopularityBlend`).

Fidelity (:func:`fidelity`) compares each protocol's order of systems with the true
order by Kendall's tau-b, the share of system pairs ordered as the truth orders
them, and whether the truly best system comes out first, with bootstrap intervals
over users (the sampling unit: per-user values are averaged over a user's runs first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from recbias.designs import build_runs, parse_design
from recbias.evaluate import Candidates, bootstrap_counts, evaluate_runs, order_agreement, true_quality
from recbias.experiments.runner import Fold, fit_systems, fold_seed, make_folds
from recbias.metrics.popularity import ItemPopularity
from recbias.ratings import Ratings
from recbias.recommenders import PopularityBlend, Recommender, make
from recbias.runs import Runs
from recbias.sampled import corrected_sampled_metric
from recbias.synthetic import generate

__all__ = [
    "Protocol",
    "TruthStudy",
    "fidelity",
    "protocols",
    "random_item_quality",
    "random_item_runs",
    "simulation_grid",
    "system_field",
    "truth_study",
]

#: label -> (preset of :func:`recbias.recommenders.make`, parameters); blends are added by :func:`system_field`
_FIELD: dict[str, tuple[str, dict]] = {
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
    systems = {label: make(preset, seed=seed, **params) for label, (preset, params) in _FIELD.items()}
    for weight in BLEND_WEIGHTS:
        systems[f"MF + {weight:.0%} popularity"] = PopularityBlend("mf", weight, seed=seed)
    return systems


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
    and Rendle (2020) (at most ``n_items // 3``).
    """
    k = max(9, min(99, n_items // 20))
    m = max(9, min(sampled_m, n_items // 3))
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


def random_item_quality(
    systems: Mapping[str, Recommender], train: Ratings, unbiased: Ratings, *, n: int = 5, seed: int = 0
) -> dict[str, pd.DataFrame]:
    """Per-user P@n and nDCG@n of each system on the user's randomly drawn rated items.

    Because those items were drawn uniformly at random, the mean over users is an
    unbiased estimate of the metric on random items (Schnabel et al. 2016).  Users with
    no relevant random item have NaN nDCG (and contribute to P@n).
    """
    runs = random_item_runs(train, unbiased)
    metrics = [f"P@{n}", f"nDCG@{n}"]
    candidates = Candidates([runs])
    scores = {label: candidates.score(recommender)[0] for label, recommender in systems.items()}
    tables = {label: evaluate_runs(runs, s, metrics, ties="random", seed=seed) for label, s in scores.items()}
    out = {}
    for metric in metrics:
        frame = pd.DataFrame({label: t.set_index("user")[metric] for label, t in tables.items()})
        if metric.startswith("nDCG"):
            frame[np.repeat(runs.n_relevant[:, None] == 0, frame.shape[1], axis=1)] = np.nan
        out[metric] = frame
    return out


# ------------------------------------------------------------------------- protocols


def _protocol_values(
    protocol_list: Sequence[Protocol], fitted: Mapping[str, Recommender], fold: Fold, positive_counts: np.ndarray,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Per-user means (users x systems) of every protocol of one split.

    Plain protocols share one set of runs per design, scored once per system; corrected
    sampled metrics draw their own sample of the same design
    (:func:`recbias.sampled.corrected_sampled_metric`).  Popularity-aware metrics read the
    dataset's positive counts (stratified recall) and the fold's training counts (IPS, SNIPS).
    """
    train, test = fold.train, fold.test
    popularity = replace(ItemPopularity.from_ratings(train, test, train=train), positive_counts=positive_counts)
    plain = [p for p in protocol_list if p.correction is None]
    designs = list(dict.fromkeys(p.design for p in plain))
    runs = [build_runs(train, test, d, seed=fold_seed(seed, k), on_shortage="exclude") for k, d in enumerate(designs)]
    metrics = {d: [p.metric for p in plain if p.design == d] for d in designs}
    candidates = Candidates(runs)
    per_system = {label: candidates.score(recommender) for label, recommender in fitted.items()}
    out: dict[str, dict[str, pd.Series]] = {p.label: {} for p in protocol_list}
    for d, (design, design_runs) in enumerate(zip(designs, runs, strict=True)):
        for label, scores in per_system.items():
            table = evaluate_runs(design_runs, scores[d], metrics[design], seed=seed, item_popularity=popularity)
            means = table.groupby("user")[metrics[design]].mean()
            for protocol in plain:
                if protocol.design == design:
                    out[protocol.label][label] = means[protocol.metric]
    for protocol in protocol_list:
        if protocol.correction is not None:
            m = parse_design(protocol.design).n_nonrelevant
            values = corrected_sampled_metric(fitted, train, test, metric=protocol.metric, method=protocol.correction,
                                              m=m, seed=fold_seed(seed, len(designs)))
            means = values.groupby(["user", "system"], sort=False)["value"].mean().unstack("system")
            out[protocol.label] = {label: means[label] for label in fitted}
    return {label: pd.DataFrame(columns) for label, columns in out.items()}


@dataclass
class TruthStudy:
    """Per-user values of every protocol and of the truth, for one dataset and split seed.

    Attributes:
        protocols: protocol label -> users x systems frame of per-user means.
        truth: truth metric -> users x systems frame.
        systems: the system labels, in field order.
        dataset, seed, split: where it was measured: the dataset, the experiment's seed and the
            fold of :func:`recbias.experiments.runner.make_folds`.
    """

    protocols: dict[str, pd.DataFrame]
    truth: dict[str, pd.DataFrame]
    systems: list[str]
    dataset: str
    seed: int
    split: int = 0

    def means(self) -> pd.DataFrame:
        """Mean over users of every protocol and truth metric: rows systems, columns measures."""
        columns = {f"truth: {k}": v.mean() for k, v in self.truth.items()}
        columns |= {k: v.mean() for k, v in self.protocols.items()}
        return pd.DataFrame(columns).loc[self.systems]


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

    The splits are fold ``split`` of :func:`recbias.experiments.runner.make_folds` with ``seed``
    (``method="coin"`` and ``"uniform"``), so the systems that other chapters fit on the
    same folds are loaded from the fit cache.  The truth comes from ``ratings.true_relevance``
    (simulated worlds; systems fitted on the coin-flip training set, judged over all unrated
    items) or ``ratings.unbiased_test`` (Coat: the same systems rank each user's random
    items); a dataset with neither raises ``ValueError``.
    """
    if ratings.true_relevance is None and ratings.unbiased_test is None:
        raise ValueError(
            f"dataset '{ratings.name}' has no ground truth: chapter 8 needs a simulated world "
            "(true relevance) or Coat (ratings of random items)"
        )
    field = dict(systems) if systems is not None else system_field(seed)
    plan = protocols(ratings.n_items, sampled_m)
    positive_counts = ratings.item_counts(positive_only=True)
    coin = make_folds(ratings, folds=split + 1, test_ratio=test_ratio, seed=seed)[split]
    coin_fit = fit_systems(field, coin.train, key_extra=coin.key, cache=cache, seed=seed)
    values = _protocol_values([p for p in plan if p.split == "coin"], coin_fit, coin, positive_counts, seed)
    uniform = [p for p in plan if p.split == "uniform"]
    try:
        uniform_fold = make_folds(ratings, method="uniform", folds=split + 1, test_ratio=test_ratio, seed=seed)[split]
    except ValueError:
        uniform_fold = None  # no uniform profile exists at this test ratio: U protocols are left out
    if uniform and uniform_fold is not None:
        fresh = system_field(seed) if systems is None else dict(systems)
        uniform_fit = fit_systems(fresh, uniform_fold.train, key_extra=uniform_fold.key, cache=cache, seed=seed)
        values |= _protocol_values(uniform, uniform_fit, uniform_fold, positive_counts, seed)
    if ratings.true_relevance is not None:
        truth = true_quality(coin_fit, coin.train, ratings.true_relevance, seed=None)
    else:
        truth = random_item_quality(coin_fit, coin.train, ratings.unbiased_test, seed=seed)
    ordered = {p.label: values[p.label] for p in plan if p.label in values}
    return TruthStudy(protocols=ordered, truth=truth, systems=list(field), dataset=ratings.name, seed=seed,
                      split=split)


# -------------------------------------------------------------------------- fidelity


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

    Users are resampled with replacement (the same sample for the protocol and the truth),
    system means recomputed, and the agreement measures of the resample collected.
    Returns one row per protocol: ``tau`` (Kendall's tau-b on the full sample),
    ``tau_low``/``tau_high`` (percentile interval), ``pairs`` (share of system pairs in the
    true order), ``best`` (1 when the truly best system is first) and ``best_share``
    (the share of resamples in which it is).
    """
    truth_metric = truth_metric or next(iter(study.truth))
    truth = study.truth[truth_metric]
    users = truth.index.union(pd.Index(np.unique(np.concatenate([f.index for f in study.protocols.values()]))))
    counts = np.vstack([np.ones(len(users)), bootstrap_counts(len(users), n_boot, seed)])  # row 0: the full sample
    true_means = _bootstrap_means(truth[study.systems], users, counts)
    tail = (1.0 - confidence) / 2.0
    rows = []
    for label, frame in study.protocols.items():
        measured = _bootstrap_means(frame[study.systems], users, counts)
        agreement = order_agreement(measured, true_means)
        tau, share, best = agreement.tau, agreement.pairs, agreement.best
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
    return pd.DataFrame(rows)


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


# ----------------------------------------------------------------------- for the page


def world_with_truth(ratings: Ratings, seed: int = 0) -> Ratings:
    """``ratings`` when they carry a truth, otherwise a simulated world of the same size.

    Real datasets other than Coat have no ground truth; the chapter then studies a world
    from :func:`recbias.synthetic.generate` with the dataset's numbers of users, items and
    ratings.
    """
    if ratings.true_relevance is not None or ratings.unbiased_test is not None:
        return ratings
    return generate(seed=seed, n_users=ratings.n_users, n_items=ratings.n_items, n_ratings=ratings.n_ratings)


def field_table(systems: Mapping[str, Recommender]) -> pd.DataFrame:
    """The field of systems with their class and the parameters that set them apart."""
    rows = []
    for label, recommender in systems.items():
        if isinstance(recommender, PopularityBlend):
            what = f"{recommender.weight:.0%} popularity rank + {1 - recommender.weight:.0%} MF rank"
        else:
            preset, params = _FIELD[label]
            what = ", ".join(f"{k} = {v:g}" for k, v in params.items()) or "preset parameters"
        rows.append({"system": label, "kind": type(recommender).__name__, "setting": what})
    return pd.DataFrame(rows)


def protocol_table(protocol_list: Sequence[Protocol]) -> pd.DataFrame:
    """The protocols as a table: label, design, metric, split and family."""
    return pd.DataFrame([vars(p) for p in protocol_list]).rename(columns={"label": "protocol"})


def fidelity_over_seeds(studies: Sequence[TruthStudy], truth_metric: str | None = None, n_boot: int = 200) -> pd.DataFrame:
    """:func:`fidelity` of every study, with the mean and range of tau over the splits."""
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
    )
    return summary.reset_index().sort_values("tau", ascending=False, ignore_index=True)


def findings(main: pd.DataFrame, grid: pd.DataFrame, dataset: str) -> list[dict]:
    """The chapter's findings, each checked on the build's dataset or on the simulation grid.

    ``main`` is :func:`fidelity_over_seeds` on the build's dataset, ``grid`` the output of
    :func:`simulation_grid`.  Returns dicts with ``key``, ``label``, ``holds``, ``evidence``,
    ``dataset`` for :func:`recbias.bookkit.scorecard.finding`.
    """
    family = {p.label: p.family for p in protocols(10_000)}
    tau = main.set_index("protocol")["tau"]
    strongest = grid["selection"].max()
    biased = grid[grid["selection"] == strongest].assign(family=lambda f: f["protocol"].map(family))
    by_family = biased.groupby("family")["tau"].mean()
    skew = grid.groupby("alpha")["tau"].mean()
    full, sampled = tau.filter(like="full-catalogue").iloc[0], tau.filter(like="sampled").iloc[0]
    standard = tau[[p for p in tau.index if family.get(p) == "standard"]]
    grid_name = "simulation grid"
    return [
        {
            "key": "neutralising-beats-standard-under-strong-bias",
            "label": "on worlds with strong observation bias, popularity-neutralising designs recover the true "
            "order better than the standard AR/1R protocols",
            "holds": bool(by_family.get("neutralising", np.nan) > by_family.get("standard", np.nan)),
            "evidence": f"mean Kendall tau at selection {strongest:g}: neutralising "
            f"{by_family.get('neutralising', np.nan):.2f}, standard {by_family.get('standard', np.nan):.2f}",
            "dataset": grid_name,
        },
        {
            "key": "skew-hurts-fidelity",
            "label": "protocols recover the true order less well on worlds with more skewed popularity",
            "holds": bool(skew.iloc[-1] < skew.iloc[0]),
            "evidence": "mean tau over protocols: "
            + ", ".join(f"alpha {a:g}: {t:.2f}" for a, t in skew.items()),
            "dataset": grid_name,
        },
        {
            "key": "full-catalogue-beats-sampled",
            "label": "full-catalogue nDCG@10 orders systems closer to the truth than the sampled metric",
            "holds": bool(full > sampled),
            "evidence": f"tau {full:.2f} (full catalogue) vs {sampled:.2f} (sampled)",
            "dataset": dataset,
        },
        {
            "key": "standard-protocols-pick-the-best",
            "label": "a standard protocol (AR or 1R) puts the truly best system first",
            "holds": bool(main.set_index("protocol").loc[standard.index, "best"].max() == 1.0),
            "evidence": "truly best system first under "
            + (", ".join(p for p in standard.index if main.set_index("protocol").loc[p, "best"] == 1.0) or "none"),
            "dataset": dataset,
        },
        {
            "key": "no-protocol-is-exact",
            "label": "no protocol reproduces the true order of the field exactly",
            "holds": bool(tau.max() < 1.0),
            "evidence": f"highest mean tau {tau.max():.2f} ({tau.idxmax()})",
            "dataset": dataset,
        },
    ]


def findings_table(checked: Sequence[Mapping]) -> pd.DataFrame:
    """The findings of :func:`findings` as a table: statement, verdict, evidence, where checked."""
    return pd.DataFrame(
        {
            "statement": [f["label"] for f in checked],
            "verdict": ["holds" if f["holds"] else "does not hold" for f in checked],
            "evidence": [f["evidence"] for f in checked],
            "checked on": [f["dataset"] for f in checked],
        }
    )


def grid_trend(grid: pd.DataFrame) -> str:
    """One sentence on how mean fidelity over protocols moves with observation bias in ``grid``."""
    by_selection = grid.groupby("selection")["tau"].mean()
    low, high = by_selection.iloc[0], by_selection.iloc[-1]
    values = (
        f"mean Kendall tau over protocols {low:.2f} at strength {by_selection.index[0]:g} and "
        f"{high:.2f} at {by_selection.index[-1]:g}"
    )
    if high > low:
        return (
            f"In this grid fidelity rises with observation bias ({values}). Under strong selection users "
            "rate what they like, so their observed ratings say more about their taste and separate good "
            "systems from weak ones more clearly; without it, which items get rated says nothing about "
            "taste, and every protocol is left mostly with popularity and noise."
        )
    return (
        f"In this grid fidelity does not rise with observation bias ({values}): the missing-not-at-random "
        "observation distorts the protocols more than it informs them."
    )

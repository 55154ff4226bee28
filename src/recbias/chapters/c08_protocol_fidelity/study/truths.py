"""Where the truth comes from: a simulated world's complete relevance, or Coat's ratings of random items.

A simulated world (:mod:`recbias.synthetic`) knows the relevance of every user-item pair, so a system's
true quality is its P@10 / nDCG@10 over every item the user did not rate in training
(:class:`recbias.evaluate.complete.TrueQuality`).  Coat (Schnabel et al. 2016) asked its users to rate
16 coats drawn uniformly at random as well: ranking those items and scoring them against the ratings is
an unbiased estimate of quality on random items (:func:`random_item_quality`).  A dataset with neither
is replaced by a simulated world of its size (:func:`world_with_truth`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.evaluate import Candidates, evaluate_runs
from recbias.evaluate.fidelity import TruthStudy
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Runs
from recbias.synthetic import MAX_PAIRS, generate


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

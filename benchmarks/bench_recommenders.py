"""Fit and full-scoring times of every recommender preset.

Worlds: MovieLens 100K (when ``recbias.datasets`` finds a verified copy) and
a synthetic low-rank world of MovieLens 1M size (6,040 users x 3,706 items,
about one million ratings).  Prints one table per world.

    .venv/bin/python benchmarks/bench_recommenders.py [--presets plsa,mf ...] [--skip-large]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.ratings import Ratings
from recbias.recommenders import PRESETS, make

SCORING_BLOCK = 1024


def ml1m_sized_world(n_users: int = 6040, n_items: int = 3706, n_ratings: int = 1_000_000, seed: int = 0) -> Ratings:
    """Low-rank tastes plus log-normal item popularity; about ``n_ratings`` observed pairs.

    A pair is observed with probability ``min(1, c exp(<p_u, q_i> + b_i))``, with
    ``c`` set so that the probabilities sum to ``n_ratings``; stars are quintiles
    of the affinity.
    """
    rng = np.random.default_rng(seed)
    rank = 8
    tastes = rng.standard_normal((n_users, rank)) / rank**0.25
    traits = rng.standard_normal((n_items, rank)) / rank**0.25
    bias = rng.normal(0.0, 1.5, n_items)
    weight = np.exp(tastes @ traits.T + bias)
    scale = n_ratings / weight.sum()
    for _ in range(20):  # raise the scale until the capped probabilities sum to n_ratings
        scale *= n_ratings / np.minimum(1.0, scale * weight).sum()
    probability = np.minimum(1.0, scale * weight)
    users, items = np.nonzero(rng.random(weight.shape) < probability)
    affinity = np.einsum("nf,nf->n", tastes[users], traits[items])
    stars = 1 + np.searchsorted(np.quantile(affinity, [0.2, 0.4, 0.6, 0.8]), affinity)
    return Ratings.from_codes(users, items, stars, (n_users, n_items), positive_threshold=4.0,
                              name="synthetic-ml-1m-size")


def time_preset(name: str, train: Ratings) -> dict[str, float | str]:
    """Seconds to fit, and to score every user against every item in blocks."""
    start = time.perf_counter()
    recommender = make(name).fit(train)
    fitted = time.perf_counter()
    for first in range(0, train.n_users, SCORING_BLOCK):
        recommender.score_users(np.arange(first, min(train.n_users, first + SCORING_BLOCK)))
    scored = time.perf_counter()
    return {"recommender": recommender.name, "fit [s]": fitted - start, "score all [s]": scored - fitted}


def report(train: Ratings, presets: list[str]) -> None:
    print(f"\n{train!r}")
    rows = []
    for name in presets:
        rows.append(time_preset(name, train))
        print(f"  {name:<12} fit {rows[-1]['fit [s]']:7.2f} s   score all {rows[-1]['score all [s]']:7.2f} s", flush=True)
    print(pd.DataFrame(rows).set_index("recommender").round(2).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join(PRESETS), help="comma-separated preset names")
    parser.add_argument("--skip-large", action="store_true", help="only MovieLens 100K")
    args = parser.parse_args()
    presets = args.presets.split(",")
    if datasets.available("ml-100k"):
        report(datasets.load("ml-100k"), presets)
    else:
        print("MovieLens 100K not found locally (set RECBIAS_DATA_DIR); skipped")
    if not args.skip_large:
        report(ml1m_sized_world(), presets)


if __name__ == "__main__":
    main()

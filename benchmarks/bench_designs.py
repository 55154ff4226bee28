"""Time the construction of target sets on a MovieLens-1M-sized random data set.

Prints, for a few designs, the build time, the number of runs and candidate entries.
Run with ``.venv/bin/python benchmarks/bench_designs.py``.
"""

from __future__ import annotations

import time

import numpy as np

from recbias.designs import build_runs
from recbias.ratings import Ratings
from recbias.splits import random_split, uniform_split


def movielens_like(n_users: int = 6040, n_items: int = 3706, n_ratings: int = 500_000, seed: int = 0) -> Ratings:
    """Distinct random (user, item) pairs with long-tailed item popularity and 1-5 star values."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.9
    users = rng.integers(0, n_users, int(1.3 * n_ratings))
    items = rng.choice(n_items, len(users), p=weights / weights.sum())
    keys = np.unique(users.astype(np.int64) * n_items + items)[:n_ratings]
    values = rng.integers(1, 6, len(keys))
    # every test rating is relevant: one 1R run per test rating
    return Ratings.from_codes(keys // n_items, keys % n_items, values, (n_users, n_items), positive_threshold=1,
                              name="bench")


def timed(label: str, build, repeat: int = 3) -> None:
    """Print the first and the best of ``repeat`` builds, wall and CPU time.

    The first build also pays for fresh memory pages; CPU time is the steadier figure
    on a shared machine.
    """
    times = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        runs = build()
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
    (first_wall, first_cpu), (best_wall, best_cpu) = times[0], min(times)
    print(
        f"{label:<28} first {first_wall:6.3f} s (cpu {first_cpu:6.3f})  best {best_wall:6.3f} s (cpu {best_cpu:6.3f})"
        f"   runs {runs.n_runs:>9,}   entries {len(runs.items):>12,}"
    )


def main() -> None:
    ratings = movielens_like()
    start = time.perf_counter()
    train, test = random_split(ratings, 0.2, seed=0)
    print(f"random split of {ratings.n_ratings:,} ratings: {time.perf_counter() - start:.3f} s; {test.n_ratings:,} test ratings")
    timed("1R TI-NN(100)", lambda: build_runs(train, test, "1R TI-NN(100)", seed=0))
    timed("1R TI-NN(100), shared N_u", lambda: build_runs(train, test, "1R TI-NN(100)", seed=0, shared_negatives=True))
    timed("P1R(10) TI-NN(100)", lambda: build_runs(train, test, "P1R(10) TI-NN(100)", seed=0, on_shortage="exclude"))
    timed("TI-AN", lambda: build_runs(train, test, "TI-AN", seed=0))
    timed("TI-NN(1700)", lambda: build_runs(train, test, "TI-NN(1700)", seed=0, on_shortage="exclude"))
    start = time.perf_counter()
    split = uniform_split(ratings, 0.1, 0.2, seed=0)  # sigma = 0.2 is infeasible on this popularity curve
    print(
        f"uniform split: {time.perf_counter() - start:.3f} s; |T| = {len(split.target_items):,}, "
        f"eta = {split.eta}, test ratio {split.achieved_test_ratio:.4f}"
    )
    timed("U1R TI-NN(100)", lambda: build_runs(split.train, split.test, "U1R", seed=0, on_shortage="exclude"))


if __name__ == "__main__":
    main()

"""Observed ratings only, at MovieLens 10M and 20M scale, without the complete truth.

The full world of :mod:`recbias.synthetic.world` holds several dense users x items arrays
(affinity, propensity, true ratings), which at 138,000 x 27,000 pairs would take tens of
GB.  This generator draws what a dataset shows and nothing more, in memory linear in the
number of ratings:

1. the same margins: item popularity on the shifted power law, user activity a floor plus
   gamma excess (:mod:`recbias.synthetic.popularity`), randomly assigned to items and users;
2. which items a user rates: her ``n_u`` items are the first ``n_u`` distinct items of an
   i.i.d. sequence of draws with probabilities proportional to the items' expected
   popularity (successive sampling, the law of the exponential clocks of
   :mod:`recbias.synthetic.observation` with no preference tilt), drawn in rounds until every
   user has enough; observation is missing at random given the two margins.  Active users
   take the head items with probability close to one, so the most popular items end up
   with fewer ratings than the curve gives them (about two thirds at the ML-10M preset);
   user counts are exact;
3. the rating of an observed pair from the same latent affinity as the full world (taste
   match, item quality, user generosity, noise; :mod:`recbias.synthetic.preferences`),
   evaluated on the observed pairs only, cut so that the ratings follow the rating prior;
4. timestamps and user attributes as in the full world.

No true relevance exists for the unobserved pairs, so the returned ratings have
``true_relevance = None``, as a real dataset has.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from recbias.ratings import Ratings
from recbias.synthetic.demographics import sample_demographics
from recbias.synthetic.popularity import item_targets, popularity_curve, user_targets
from recbias.synthetic.preferences import item_quality, rating_cut_points, user_tastes
from recbias.synthetic.timeline import rating_times

# independent random streams, as in the full world
_STREAMS = ("items", "users", "attributes", "tastes", "noise", "observation", "time")
#: observed pairs whose affinity is computed at once (bounds the gathered taste vectors)
_PAIR_CHUNK = 1 << 20


def successive_sample(rng: np.random.Generator, weights: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every row ``u``, the first ``counts[u]`` distinct columns of an i.i.d. sequence of draws
    with ``P(column i) = weights[i] / sum(weights)``.  Returns ``(rows, columns)`` sorted by row,
    then column.

    Draws come in rounds: a row short of ``d`` columns draws ``d`` times its ratio of draws to new
    columns so far (times 1.1, 1.2 at first), and a column drawn again is dropped.  The rounds only
    decide how much of each row's sequence is read, so the result is its first ``counts[u]``
    distinct columns.  Requires ``counts[u]`` at most the number of positive weights.
    """
    weights = np.asarray(weights, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    n_columns = len(weights)
    if np.any(counts > np.count_nonzero(weights > 0)):
        raise ValueError("a row asks for more distinct columns than have a positive weight")
    cumulative = np.cumsum(weights)
    cumulative /= cumulative[-1]
    done_rows, done_columns = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    rows = np.flatnonzero(counts > 0)
    taken = np.zeros(0, dtype=np.int64)  # keys row * n_columns + column of the short rows, by row then draw
    ratio = np.full(len(rows), 1.2)
    while len(rows):
        have = np.bincount(np.searchsorted(rows, taken // n_columns), minlength=len(rows))
        sizes = np.ceil((counts[rows] - have) * ratio).astype(np.int64)
        draws = np.searchsorted(cumulative, rng.random(int(sizes.sum())), side="right")
        keys = np.concatenate([taken, np.repeat(rows, sizes) * n_columns + np.minimum(draws, n_columns - 1)])
        # earlier draws first: taken keys, then this round's in draw order (both by row)
        by_key = np.argsort(keys, kind="stable")
        first = np.ones(len(keys), dtype=bool)
        first[1:] = keys[by_key][1:] != keys[by_key][:-1]
        kept = np.sort(by_key[first])  # positions in draw order within each row (rows are in blocks)
        kept = kept[np.argsort(keys[kept] // n_columns, kind="stable")]
        kept_rows = keys[kept] // n_columns
        within = np.arange(len(kept)) - np.searchsorted(kept_rows, kept_rows, side="left")
        kept = kept[within < counts[kept_rows]]
        kept_rows = keys[kept] // n_columns
        now = np.bincount(np.searchsorted(rows, kept_rows), minlength=len(rows))
        full = now == counts[rows]
        done = full[np.searchsorted(rows, kept_rows)]
        done_rows.append(kept_rows[done])
        done_columns.append(keys[kept][done] % n_columns)
        ratio = (1.1 * np.maximum(1.0, sizes / np.maximum(now - have, 1)))[~full]
        taken = keys[kept][~done]
        rows = rows[~full]
    out_rows, out_columns = np.concatenate(done_rows), np.concatenate(done_columns)
    order = np.argsort(out_rows * n_columns + out_columns)
    return out_rows[order], out_columns[order]


def _affinity(rng: np.random.Generator, users: np.ndarray, items: np.ndarray, tastes: np.ndarray,
              item_factors: np.ndarray, quality: np.ndarray, generosity: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """``a_ui`` of :mod:`recbias.synthetic.preferences` for the observed pairs only (float32)."""
    affinity = np.empty(len(users), dtype=np.float32)
    scale = p["taste_effect"] / math.sqrt(tastes.shape[1])
    for start in range(0, len(users), _PAIR_CHUNK):
        u, i = users[start : start + _PAIR_CHUNK], items[start : start + _PAIR_CHUNK]
        match = np.einsum("ij,ij->i", tastes[u], item_factors[i])
        affinity[start : start + len(u)] = (scale * match + p["item_effect"] * quality[i]
                                            + p["user_effect"] * generosity[u])
    affinity += p["noise"] * rng.standard_normal(len(users), dtype=np.float32)
    return affinity


def generate_observed(p: dict[str, Any], seed: int, preset: str) -> Ratings:
    """The observed ratings of the world with validated parameters ``p`` (module docstring)."""
    for name, required in (("selection", 0.0), ("exact_counts", "users")):
        if p[name] != required:
            raise ValueError(f"synthetic parameter {name!r} must be {required!r} in preset {preset!r}, which draws "
                             f"observed ratings only: selection on affinity would need the affinity of every pair")
    n_users, n_items, n_ratings = p["n_users"], p["n_items"], p["n_ratings"]
    rng = dict(zip(_STREAMS, (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(len(_STREAMS)))))

    curve = popularity_curve(n_items, n_ratings, p["alpha"], p["popularity_floor"], p["popularity_shift"])
    by_rank = item_targets(curve, n_items, n_users)
    item_rank = rng["items"].permutation(n_items) + 1
    user_counts = rng["users"].permutation(
        user_targets(n_users, n_items, n_ratings, p["min_user_ratings"], p["activity_shape"]))
    users, items = successive_sample(rng["observation"], by_rank[item_rank - 1], user_counts)

    attributes, attribute_codes = sample_demographics(rng["attributes"], n_users)
    tastes = user_tastes(rng["tastes"], attribute_codes, p["taste_rank"], p["attribute_effect"])
    item_factors = rng["tastes"].standard_normal((n_items, p["taste_rank"]))
    quality = item_quality(rng["tastes"], item_rank, p["quality_popularity"])
    generosity = rng["tastes"].standard_normal(n_users)
    affinity = _affinity(rng["noise"], users, items, tastes, item_factors, quality, generosity, p)
    values = np.searchsorted(rating_cut_points(affinity, p["rating_prior"]), affinity, side="right") + 1

    times = rating_times(rng["time"], users, n_users, p["start"], p["days"])
    order = np.lexsort((times, users))
    return Ratings(
        name=preset,
        users=users[order],
        items=items[order],
        values=values[order],
        timestamps=times[order],
        user_ids=np.arange(1, n_users + 1),
        item_ids=np.arange(1, n_items + 1),
        scale=(1.0, 5.0),
        positive_threshold=float(p["positive_threshold"]),
        user_attributes=attributes,
    )

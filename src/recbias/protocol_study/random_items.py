"""The truth of Coat: each system ranks the items drawn uniformly at random that a user rated.

Coat (Schnabel et al. 2016) asked its users to rate 16 coats drawn uniformly at random as well as
coats of their own choosing.  Ranking those random items and scoring them against the ratings is an
unbiased estimate of a system's quality on random items, the truth :func:`.measure.truth_study` reads
on a dataset with an unbiased test sample.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from recbias.evaluate import evaluate_runs
from recbias.ratings import Ratings
from recbias.runs import Runs


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
    runs: Runs, scores: Mapping[str, np.ndarray], *, n: int = 5, seed: int = 0, extra: Sequence[str] = ()
) -> dict[str, pd.DataFrame]:
    """Per-user P@n and nDCG@n on the random-item ``runs`` of :func:`random_item_runs`, from each system's
    scores of their candidates, and the metrics of ``extra`` (specs of :func:`recbias.metrics.parse_metric`);
    users with no relevant random item have NaN nDCG@n (and count in P@n and in ``extra``, as everywhere in
    :mod:`recbias.metrics`).  Because the items were drawn uniformly at random, the mean over users is an
    unbiased estimate of the metric on random items (Schnabel et al. 2016)."""
    metrics = list(dict.fromkeys([f"P@{n}", f"nDCG@{n}", *extra]))
    tables = {label: evaluate_runs(runs, s, metrics, ties="random", seed=seed) for label, s in scores.items()}
    out = {}
    for metric in metrics:
        frame = pd.DataFrame({label: t.set_index("user")[metric] for label, t in tables.items()})
        if metric == f"nDCG@{n}":
            frame[np.repeat(runs.n_relevant[:, None] == 0, frame.shape[1], axis=1)] = np.nan
        out[metric] = frame
    return out

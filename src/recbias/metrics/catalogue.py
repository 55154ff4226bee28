"""Beyond-accuracy metrics of a whole system: how much of the catalogue its top-n lists use.

Unlike the per-run metrics these aggregate over all runs at once and return one
number: every run contributes its top ``min(n, |T_u|)`` candidates.
"""

from __future__ import annotations

import numpy as np

from recbias.metrics._view import Ranked, as_view, check_cutoff


def recommendation_counts(runs: Ranked, n: int, n_items: int) -> np.ndarray:
    """How many top-n lists contain each item code (length ``n_items``).

    Two runs whose top 2 are items (0, 1) and (0, 3), in a catalogue of 5:

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 3, 6], users=[0, 1], items=[0, 1, 2, 0, 3, 1], labels=[0] * 6)
    >>> recommendation_counts(runs, 2, n_items=5).tolist()
    [2, 1, 0, 1, 0]
    """
    view, n = as_view(runs), check_cutoff(n)
    items, _ = view.top_items(n)
    if items.size and items.max() >= n_items:
        raise ValueError(f"item code {int(items.max())} outside the catalogue of {n_items} items")
    return np.bincount(items, minlength=n_items)


def catalogue_coverage(runs: Ranked, n: int, n_items: int) -> float:
    """Catalogue coverage@n = ``|union of the top-n lists| / n_items`` (Ge et al. 2010).

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 3, 6], users=[0, 1], items=[0, 1, 2, 0, 3, 1], labels=[0] * 6)
    >>> catalogue_coverage(runs, 2, n_items=5)  # items 0, 1 and 3
    0.6
    """
    return float(np.count_nonzero(recommendation_counts(runs, n, n_items)) / n_items)


def gini_index(runs: Ranked, n: int, n_items: int) -> float:
    """Gini index of the recommendation counts c_i over the whole catalogue.

    G = sum_j (2j - n_items - 1) c_(j) / (n_items sum_j c_(j)) with the counts sorted
    increasingly (j = 1..n_items): 0 when every item is recommended equally often,
    (n_items - 1) / n_items when a single item takes every slot.  ``0`` with no
    recommendation at all.

    Counts sorted (0, 0, 1, 1, 2): ``(-4 * 0 - 2 * 0 + 0 * 1 + 2 * 1 + 4 * 2) / (5 * 4)``.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 3, 6], users=[0, 1], items=[0, 1, 2, 0, 3, 1], labels=[0] * 6)
    >>> gini_index(runs, 2, n_items=5)
    0.5
    """
    counts = np.sort(recommendation_counts(runs, n, n_items)).astype(np.float64)
    total = counts.sum()
    if total == 0:
        return 0.0
    j = np.arange(1, n_items + 1)
    return float(np.dot(2 * j - n_items - 1, counts) / (n_items * total))

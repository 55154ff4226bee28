"""Accuracy metrics of ranked runs, one value per run, vectorised over all runs.

Conventions shared by every function here:

* ``runs`` is a :class:`~recbias.runs.Ranking` (what
  :func:`recbias.evaluate.rank_positions` computes from scores) or runs whose
  candidates are in rank order (position 0 is the top, :func:`recbias.evaluate.rank_runs`).
* ``R`` is ``Runs.n_relevant``, the relevant test items of the run's user; it
  is the denominator of recall, R-precision and AP and may exceed the relevant
  candidates of the run (1R designs).
* A run with nothing to normalise by (``R = 0``, an ideal DCG of 0, no
  relevant/non-relevant pair for AUC) scores ``0`` and still counts in means,
  as in trec_eval.
* ``n`` is a positive cutoff; ``None`` means the whole run.  Precision divides
  by ``n`` even when the run has fewer than ``n`` candidates (trec_eval, and
  IRJ Eq. 1 where the maximum 1R precision is ``1/n``).

Notation: ``hits@n`` is the number of relevant entries in the top ``n``, and
``rank = position + 1``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from recbias.metrics._view import Ranked, as_view, check_cutoff, safe_divide

Gain = Literal["linear", "exponential"]
APNormalisation = Literal["relevant", "cutoff", "candidates"]


def precision(runs: Ranked, n: int) -> np.ndarray:
    """P@n = hits@n / n (Krichene & Rendle 2020, Eq. 3; IRJ Eq. 1 inside the sum).

    One run ranking items 10 to 13, with 11 and 13 relevant and a third relevant test item outside it:

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> precision(runs, 2).tolist()
    [0.5]
    """
    view, n = as_view(runs), check_cutoff(n)
    return view.hits(n) / n


def recall(runs: Ranked, n: int) -> np.ndarray:
    """Recall@n = hits@n / R (Krichene & Rendle 2020, Eq. 4), ``0`` when ``R = 0``.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> recall(runs, 2).tolist()  # one hit of R = 3
    [0.3333333333333333]
    """
    view, n = as_view(runs), check_cutoff(n)
    return safe_divide(view.hits(n), view.n_relevant)


def f1(runs: Ranked, n: int) -> np.ndarray:
    """F1@n, the harmonic mean of P@n and Recall@n, which simplifies to 2 hits@n / (n + R).

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> f1(runs, 2).tolist()  # 2 * 1 / (2 + 3)
    [0.4]
    """
    view, n = as_view(runs), check_cutoff(n)
    return 2.0 * view.hits(n) / (n + view.n_relevant)


def hit_rate(runs: Ranked, n: int) -> np.ndarray:
    """HR@n = 1 if some relevant entry is in the top n, else 0 (Recall@n when R = 1).

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> hit_rate(runs, 1).tolist(), hit_rate(runs, 2).tolist()
    ([0.0], [1.0])
    """
    view, n = as_view(runs), check_cutoff(n)
    return (view.hits(n) > 0).astype(np.float64)


def r_precision(runs: Ranked) -> np.ndarray:
    """R-precision = hits@R / R, precision at the depth ``R = n_relevant`` of each run.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> r_precision(runs).tolist()  # one hit in the top R = 3
    [0.3333333333333333]
    """
    view = as_view(runs)
    depth = view.n_relevant[view.relevant_run]
    hits = view.per_run(view.relevant_run[view.relevant_position < depth])
    return safe_divide(hits, view.n_relevant)


def reciprocal_rank(runs: Ranked, n: int | None = None) -> np.ndarray:
    """RR = 1 / rank of the first relevant entry, ``0`` if there is none in the top n.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> reciprocal_rank(runs).tolist(), reciprocal_rank(runs, n=1).tolist()
    ([0.5], [0.0])
    """
    view, n = as_view(runs), check_cutoff(n, optional=True)
    first = (view.relevant_through == 1) & (view.relevant_position < n)
    return view.per_run(view.relevant_run[first], 1.0 / (view.relevant_position[first] + 1))


def average_precision(
    runs: Ranked, n: int | None = None, normalise: APNormalisation = "relevant"
) -> np.ndarray:
    """AP@n = sum over relevant entries with rank k <= n of P@k, divided by a normaliser.

    ``normalise="relevant"`` divides by ``R`` (trec_eval's ``map`` and ``map_cut``);
    ``normalise="cutoff"`` divides by ``min(R, n)`` (Krichene & Rendle 2020, Eq. 5),
    so that AP@n can reach 1 when ``R > n`` (untruncated, both agree);
    ``normalise="candidates"`` divides by the relevant candidates of the run, the
    reading of IRJ Section 6 under which AP equals RR in 1R runs.

    Hits at ranks 2 and 4: ``(1/2 + 2/4) / R``.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> average_precision(runs).tolist(), average_precision(runs, normalise="candidates").tolist()
    ([0.3333333333333333], [0.5])
    """
    view, n = as_view(runs), check_cutoff(n, optional=True)
    denominators = {
        "relevant": lambda: view.n_relevant,
        "cutoff": lambda: np.minimum(view.n_relevant, n),
        "candidates": lambda: view.relevant_in_run,
    }
    if normalise not in denominators:
        raise ValueError(f"normalise must be one of {', '.join(denominators)}, got {normalise!r}")
    top = view.relevant_position < n
    precision_at_hits = view.relevant_through[top] / (view.relevant_position[top] + 1.0)
    total = view.per_run(view.relevant_run[top], precision_at_hits)
    return safe_divide(total, denominators[normalise]())


def _gains(grades: np.ndarray, gain: Gain) -> np.ndarray:
    if gain == "linear":
        return grades
    if gain == "exponential":
        return np.exp2(grades) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")


def ndcg(runs: Ranked, n: int | None = None, gain: Gain = "linear") -> np.ndarray:
    """nDCG@n = DCG@n / IDCG@n with DCG@n = sum over ranks k <= n of g_k / log2(k + 1).

    The gain of an entry comes from its grade: ``g = grade`` (``gain="linear"``,
    trec_eval's convention) or ``g = 2**grade - 1`` (``gain="exponential"``,
    Burges et al. 2005).  IDCG@n is the DCG@n of the run's own candidates sorted
    by decreasing gain, so in a 1R run the single grade cancels out (IRJ
    Section 6) and nDCG = 1 / log2(rank + 1) (Krichene & Rendle 2020, Eq. 11 and 13).
    Relevant test items that are not candidates of the run do not enter the
    ideal, unlike trec_eval whose ideal ranks every judged relevant document.
    Grades must be non-negative.

    Hits at ranks 2 and 4 against the ideal of the run's two relevant candidates on top:
    ``(1/log2(3) + 1/log2(5)) / (1 + 1/log2(3))``.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> ndcg(runs).round(4).tolist()
    [0.6509]
    """
    view, n = as_view(runs), check_cutoff(n, optional=True)
    if view.runs.grades.size and view.runs.grades.min() < 0:
        raise ValueError("nDCG needs non-negative grades")
    entries = view.graded
    entry_runs = view.run_of(entries)
    gains = _gains(view.grades, gain)
    positions = entries - view.offsets[entry_runs]
    top = positions < n
    dcg = view.per_run(entry_runs[top], gains[top] / np.log2(positions[top] + 2.0))
    ideal_order = np.lexsort((-gains, entry_runs))
    per_run = np.bincount(entry_runs, minlength=view.n_runs)
    ideal_positions = np.arange(len(entries)) - (np.cumsum(per_run) - per_run)[entry_runs[ideal_order]]
    ideal_gains = gains[ideal_order]
    ideal_top = ideal_positions < n
    idcg = view.per_run(
        entry_runs[ideal_order][ideal_top], ideal_gains[ideal_top] / np.log2(ideal_positions[ideal_top] + 2.0)
    )
    return safe_divide(dcg, idcg)


def auc(runs: Ranked) -> np.ndarray:
    """AUC = share of (relevant, non-relevant) candidate pairs ranked in the right order.

    Krichene & Rendle 2020, Eq. 2, over the run's own candidates: with ``m``
    relevant candidates among ``|T_u|``, AUC = sum over relevant entries of the
    non-relevant entries below it, divided by ``m (|T_u| - m)``.  With one relevant
    item at rank r this is ``(|T_u| - r) / (|T_u| - 1)`` (Eq. 7).  ``0`` without pairs.

    Of the four (relevant, non-relevant) pairs only (rank 2, rank 3) is in order:

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1], n_relevant=[3])
    >>> auc(runs).tolist()
    [0.25]
    """
    view = as_view(runs)
    m = view.relevant_in_run
    run = view.relevant_run
    below = view.sizes[run] - view.relevant_position - 1
    nonrelevant_below = below - (m[run] - view.relevant_through)
    return safe_divide(view.per_run(run, nonrelevant_below), m * (view.sizes - m))

"""Metrics built for incomplete judgments: bpref and infAP (IRJ Section 7).

Both distinguish three kinds of candidates through ``Runs.labels`` and
``Runs.judged``: relevant (a positive test rating), judged non-relevant (a test
rating below the positive threshold) and unjudged (no test rating).  Every
candidate of a run belongs to the judgment pool, so unjudged candidates are
trec_eval's "pooled but unjudged" documents (qrels value ``-1``).  Relevant
test items outside the run count in ``R = Runs.n_relevant`` and contribute 0.
"""

from __future__ import annotations

import numpy as np

from recbias.metrics._view import Ranked, as_view, safe_divide

#: trec_eval's smoothing constant for infAP (``INFAP_EPSILON`` in trec_eval.h)
TREC_EVAL_INFAP_EPSILON = 1e-5


#: how bpref counts the judged non-relevant items above a relevant one: at most R of them (trec_eval), or all of
#: them (the formula as IRJ Section 7 prints it)
BPREF_CAPS = ("R", "none")

def bpref(runs: Ranked, cap: str = "R") -> np.ndarray:
    """bpref = (1/R) sum over relevant candidates r of (1 - min(N_above(r), R) / min(N, R)).

    Buckley & Voorhees 2004, IRJ Section 7, with trec_eval's conventions: ``N_above(r)``
    is the number of judged non-relevant candidates ranked above ``r``, capped at
    ``R`` (only the first ``R`` judged non-relevant items matter), and ``N`` is the
    number of judged non-relevant candidates of the run.  ``cap="none"`` is the formula
    as IRJ prints it, without the cap on ``N_above(r)``: a relevant candidate below more
    than ``min(N, R)`` judged non-relevant items then contributes less than 0.  A relevant
    candidate with no judged non-relevant item above it contributes 1, so bpref = 1 in 1R
    runs whose non-relevant candidates are all unjudged (IRJ Section 7).

    Relevant, judged non-relevant, relevant, judged non-relevant (``R = N = 2``): the first relevant
    item has no judged non-relevant item above it, the second one of two.  With one relevant item below
    three judged non-relevant ones (``R = 1``), trec_eval counts one of them, IRJ's formula all three:

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[0, 1, 2, 3], labels=[1, 0, 1, 0], judged=[1, 1, 1, 1])
    >>> bpref(runs).tolist()  # (1 + (1 - 1/2)) / 2
    [0.75]
    >>> below = Runs.from_arrays([0, 4], users=[0], items=[0, 1, 2, 3], labels=[0, 0, 0, 1], judged=[1, 1, 1, 1])
    >>> bpref(below).tolist(), bpref(below, cap="none").tolist()  # 1 - 1/1 and 1 - 3/1
    ([0.0], [-2.0])
    """
    if cap not in BPREF_CAPS:
        raise ValueError(f"bpref: cap must be one of {', '.join(BPREF_CAPS)}, got {cap!r}")
    view = as_view(runs)
    run = view.relevant_run
    judged_nonrelevant = view.judged_nonrelevant
    n_judged_nonrelevant = view.per_run(view.run_of(judged_nonrelevant))
    above = view.count_above(judged_nonrelevant, view.relevant, run)
    r = view.n_relevant[run].astype(np.float64)
    counted = np.minimum(above, r) if cap == "R" else above
    term = 1.0 - safe_divide(counted, np.minimum(n_judged_nonrelevant[run], r))
    return safe_divide(view.per_run(run, term), view.n_relevant)


def infap(runs: Ranked, epsilon: float = 0.0) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam 2006; IRJ Section 7), estimated from the judged candidates.

    infAP = (1/R) sum over relevant candidates at rank k of E[P@k], with
    E[P@k] = 1 at k = 1 and otherwise
    ``1/k + (k-1)/k * (rel + epsilon) / (rel + nonrel + 2 epsilon)``, where ``rel`` and
    ``nonrel`` count the relevant and judged non-relevant candidates *strictly above*
    rank k: the precision above k is estimated on the judged sample of the pool.  This
    is Yilmaz and Aslam's estimate as trec_eval computes it; every candidate is in the
    pool, so the pool factor ``|d100| / (k-1)`` of IRJ's formula is 1.  IRJ's printed
    formula counts ``rel(u, k)`` up to and *including* rank k (the relevant item
    itself), which would not give AP under complete judgments; that reading is not
    followed.  ``epsilon=0`` (the default) drops trec_eval's smoothing: infAP then
    equals AP when every candidate is judged, and with nothing judged above rank k the
    ratio takes its limit 1/2.  ``epsilon=TREC_EVAL_INFAP_EPSILON`` reproduces trec_eval.

    Relevant, judged non-relevant, unjudged, relevant: ``E[P@4] = 1/4 + 3/4 * 1/2`` from the two judged
    items above rank 4, one relevant; AP would count the unjudged item as non-relevant (0.75).

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[0, 1, 2, 3], labels=[1, 0, 0, 1], judged=[1, 1, 0, 1])
    >>> infap(runs).tolist()  # (1 + 0.625) / 2
    [0.8125]
    """
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be non-negative, got {epsilon!r}")
    view = as_view(runs)
    run = view.relevant_run
    k = view.relevant_position + 1.0
    relevant_above = view.relevant_through - 1.0
    judged_above = relevant_above + view.count_above(view.judged_nonrelevant, view.relevant, run)
    numerator = relevant_above + epsilon
    denominator = judged_above + 2.0 * epsilon
    ratio = np.full_like(k, 0.5)
    np.divide(numerator, denominator, out=ratio, where=denominator > 0)
    expected_precision = 1.0 / k + (k - 1.0) / k * ratio
    return safe_divide(view.per_run(run, expected_precision), view.n_relevant)

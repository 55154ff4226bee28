"""Inverse-propensity-weighted precision and recall, plain (IPS) and self-normalised (SNIPS).

If a relevant item ``i`` of user ``u`` outside her training set shows up as a positive
test rating with probability ``p_i`` (:mod:`recbias.metrics.propensity`), weighting each
observed hit by ``w_i = 1 / p_i`` undoes the selection in expectation (Horvitz and
Thompson 1952; Schnabel et al., ICML 2016, Eq. 10; Yang et al., RecSys 2018, Eq. 6):

* ``IPS-P@n = (1/n) sum_{i in top_n, relevant} w_i`` is unbiased for **P@n on complete
  relevance**, ``(1/n) |top_n(u) ∩ Rel(u)|`` with ``Rel(u)`` every truly relevant
  candidate, when the ``p_i`` are the true probabilities and the candidates do not depend
  on which relevant pairs were observed (AN designs; in NN designs the observed relevant
  items are always candidates, the unobserved ones only by chance);
* ``IPS-Recall@n = (1/R) sum_{i in top_n, relevant} w_i = (n/R) IPS-P@n`` with
  ``R = |PR_test(u)|``, a per-user rescaling of IPS-P: it divides the estimated
  complete hits by the *observed* number of relevant items, so it estimates complete
  recall times ``|Rel(u)| / R``, not a recall.

SNIPS rescales the weights of a user to average 1 over her relevant test items,
``w~_i = w_i R / sum_{j in PR_test(u)} w_j``, which makes it blind to the scale of
the propensities and bounded like the plain metric:

* ``SNIPS-Recall@n = sum_{top_n, relevant} w_i / sum_{j in PR_test(u)} w_j`` is the
  ratio (Hájek) estimate of **recall on complete relevance**: numerator and denominator
  are unbiased for the complete hits and ``|Rel(u)|``; biased, consistent as ``R`` grows.
  It is Steck's stratified recall with weights ``1 / p_i``;
* ``SNIPS-P@n = (R/n) SNIPS-Recall@n``, the same per-user rescaling as above: it estimates
  complete recall times ``R/n``, not precision on complete relevance.

With ``p_i = 1`` for every item all four equal plain precision and recall.
The sum over ``PR_test(u)`` comes from ``test_positive`` (a users x items matrix of
positive test ratings) when given, otherwise from the run's own relevant
candidates, which is only allowed when each user has one run holding all her relevant items (AR).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from recbias.metrics._view import Ranked, RankedView, as_view, check_cutoff, safe_divide

__all__ = ["ips_precision", "ips_recall"]


def _weights(view: RankedView, propensity: np.ndarray) -> np.ndarray:
    propensity = np.asarray(propensity, dtype=np.float64)
    items = view.relevant_items
    if items.size and items.max() >= len(propensity):
        raise ValueError(f"item code {int(items.max())} has no propensity ({len(propensity)} given)")
    chosen = propensity[items]
    if np.any(~(chosen > 0) | (chosen > 1)):
        raise ValueError("propensities of relevant items must lie in (0, 1]")
    return 1.0 / chosen


def _normaliser(view: RankedView, propensity: np.ndarray, weights: np.ndarray, test_positive: sp.spmatrix | None) -> np.ndarray:
    """Per run: ``R / sum_{j in PR_test(u)} w_j``, the SNIPS rescaling of the weights."""
    if test_positive is not None:
        positive = sp.csr_matrix(test_positive, dtype=bool).astype(np.float64)
        positive.data = 1.0 / np.asarray(propensity, dtype=np.float64)[positive.indices]
        totals = np.asarray(positive.sum(axis=1)).ravel()[view.runs.users]
        counts = np.diff(positive.indptr)[view.runs.users]
    else:
        users = view.runs.users
        if np.any(view.relevant_in_run != view.n_relevant) or len(np.unique(users)) != len(users):
            raise ValueError(
                "runs do not hold every relevant test item of their users, or a user has several runs (1R "
                "designs); pass test_positive, the positive test ratings, for the self-normalisation"
            )
        totals, counts = view.per_run(view.relevant_run, weights), view.n_relevant
    return safe_divide(counts, totals)


def _weighted_hits(
    runs: Ranked, n: int, propensity: np.ndarray, self_normalised: bool, test_positive: sp.spmatrix | None
) -> tuple[RankedView, np.ndarray]:
    view, n = as_view(runs), check_cutoff(n)
    weights = _weights(view, propensity)
    top = view.relevant_position < n
    hits = view.per_run(view.relevant_run[top], weights[top])
    if self_normalised:
        hits = hits * _normaliser(view, propensity, weights, test_positive)
    return view, hits


def ips_precision(
    runs: Ranked, n: int, propensity: np.ndarray, self_normalised: bool = False,
    test_positive: sp.spmatrix | None = None,
) -> np.ndarray:
    """IPS-P@n (or SNIPS-P@n with ``self_normalised``): ``(1/n) sum_{top n, relevant} w_i``.

    IPS-P@n is unbiased for P@n on complete relevance under the module's conditions;
    SNIPS-P@n is ``|PR_test(u)| / n`` times SNIPS-Recall@n, a per-user rescaling of a recall.

    Relevant items 0 and 2 with propensities 1/2 and 1/4; only item 0 is in the top 2, weighing 2:

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 3], users=[0], items=[0, 1, 2], labels=[1, 0, 1])
    >>> propensity = np.array([0.5, 1.0, 0.25])
    >>> ips_precision(runs, 2, propensity).tolist()  # 2 / 2
    [1.0]
    >>> ips_precision(runs, 2, propensity, self_normalised=True).tolist()  # R / n * 2 / (2 + 4)
    [0.3333333333333333]
    """
    _, hits = _weighted_hits(runs, n, propensity, self_normalised, test_positive)
    return hits / n


def ips_recall(
    runs: Ranked, n: int, propensity: np.ndarray, self_normalised: bool = False,
    test_positive: sp.spmatrix | None = None,
) -> np.ndarray:
    """IPS-Recall@n (or SNIPS-Recall@n): ``(1/R) sum_{top n, relevant} w_i``, ``0`` when ``R = 0``.

    SNIPS-Recall@n estimates recall on complete relevance (a ratio estimate); IPS-Recall@n is
    ``n / R`` times IPS-P@n and estimates no recall (module docstring).

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 3], users=[0], items=[0, 1, 2], labels=[1, 0, 1])
    >>> propensity = np.array([0.5, 1.0, 0.25])
    >>> ips_recall(runs, 2, propensity).tolist(), ips_recall(runs, 2, propensity, self_normalised=True).tolist()
    ([1.0], [0.3333333333333333])
    """
    view, hits = _weighted_hits(runs, n, propensity, self_normalised, test_positive)
    return safe_divide(hits, view.n_relevant)

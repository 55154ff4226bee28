"""Closed forms of Bellogín, Castells and Cantador (IRJ 2017, Sections 3.4 and 4).

Notation (IRJ 2017 Table 2): ``sigma`` is the test ratio, ``|PR|`` the number of
positive ratings, ``|U|`` the number of users, ``t = 1 / avg_u(1 / |T_u|)`` the
harmonic mean target set size, ``delta = |PR| / (t |U|)`` the relevance density
and ``rho_u = |T_u ∩ PR_test(u)| / |T_u|`` the share of relevant items in a target set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recbias.runs import Runs

__all__ = [
    "LemmaBounds",
    "expected_precision_nonpersonalised",
    "expected_random_precision_1r",
    "expected_random_precision_ar",
    "lemma_bounds",
    "random_precision_sd",
    "relevance_density",
    "relevance_ratio",
    "relevance_ratios",
    "target_size",
]


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return value


def _test_ratio(value: float) -> float:
    sigma = float(value)
    if not 0 < sigma <= 1:
        raise ValueError(f"test_ratio must lie in (0, 1], got {value!r}")
    return sigma


def _target_sizes(runs: Runs, caller: str) -> np.ndarray:
    """``|T|`` of every run, refusing no runs or an empty target set."""
    sizes = runs.sizes
    if runs.n_runs == 0 or np.any(sizes == 0):
        raise ValueError(f"{caller} needs at least one run and no empty target set")
    return sizes


def target_size(runs: Runs) -> float:
    """``t = 1 / avg(1 / |T|)`` over the runs, the "average" target set size of Table 2."""
    return float(1.0 / np.mean(1.0 / _target_sizes(runs, "target_size")))


def relevance_ratios(runs: Runs) -> np.ndarray:
    """``rho_u = |T ∩ PR_test(u)| / |T|`` of every run, the share of relevant items in its target set."""
    sizes = _target_sizes(runs, "relevance_ratios")
    return np.add.reduceat(runs.labels.astype(np.int64), runs.offsets[:-1]) / sizes


def relevance_ratio(runs: Runs) -> float:
    """``rho = avg(|T ∩ PR_test(u)| / |T|)`` over the runs (Section 4.2).

    For a ranking drawn uniformly at random, the number of relevant items in the top ``n``
    of a run is hypergeometric with mean ``n rho_u``, so ``E[P_RND@n] = rho`` exactly for any
    ``n <= min |T|``.  In 1R every run has one relevant item and ``rho = 1 / t`` (Eq. 5).
    """
    return float(np.mean(relevance_ratios(runs)))


def random_precision_sd(runs: Runs, n: int) -> float:
    """Standard deviation of the mean P@n of a uniformly random ranking over ``runs``, given the target sets.

    The hits of run ``r`` are hypergeometric: ``n`` draws from ``|T_r|`` items of which
    ``a_r = rho_r |T_r|`` are relevant, so ``Var(P_r@n) = rho_r (1 - rho_r) (|T_r| - n) / (n (|T_r| - 1))``
    for ``n <= |T_r|``; runs are ranked independently, so the mean over ``R`` runs has variance
    ``sum_r Var(P_r@n) / R^2``.  This is the simulation error of a measured random precision
    around ``rho`` (:func:`relevance_ratio`).
    """
    if int(n) != n or n < 1:
        raise ValueError(f"cut-off n must be a positive integer, got {n!r}")
    rho = relevance_ratios(runs)
    sizes = runs.sizes.astype(np.float64)
    if np.any(sizes < n):
        raise ValueError(f"random_precision_sd needs target sets of at least n = {n} items")
    with np.errstate(invalid="ignore", divide="ignore"):
        finite = np.where(sizes > 1, (sizes - n) / (sizes - 1), 0.0)
    variance = rho * (1.0 - rho) * finite / n
    return float(np.sqrt(variance.sum()) / runs.n_runs)


def relevance_density(n_positive: int, t: float, n_users: int) -> float:
    """``delta = |PR| / (t |U|)``, the density of known relevance in target sets (Table 2)."""
    return float(n_positive) / (_positive("t", t) * _positive("n_users", n_users))


def expected_random_precision_ar(test_ratio: float, n_positive: int, t: float, n_users: int) -> float:
    """Expected P@n of random recommendation in AR: ``sigma |PR| / (t |U|) = sigma delta`` (Eq. 4).

    Assumes a random split with ratio ``sigma`` (so ``E[|PR_test|] = sigma |PR|``) and target
    sets of similar size; it does not depend on the cut-off ``n``.
    """
    return _test_ratio(test_ratio) * relevance_density(n_positive, t, n_users)


def expected_random_precision_1r(t: float) -> float:
    """Expected P@n of random recommendation in 1R: ``1 / t`` (Eq. 5), independent of ``n``."""
    return 1.0 / _positive("t", t)


def expected_precision_nonpersonalised(
    test_ratio: float, n_candidates: int, t: float, n_users: int, positive_counts: np.ndarray
) -> float:
    """Expected AR P@n of a non-personalised recommender (Eq. 3).

    ``E[P_s@n] = sigma |C| / (n t |U|) * sum_{k=1..n} avg_u |PR(i_k^{u,s})|``, where
    ``positive_counts[k]`` (or ``positive_counts[u, k]``, one row per user) is ``|PR(i)|``,
    the number of positive ratings in the whole data of the item ranked ``k``-th; ``n`` is the
    number of columns.  Derived for a random split with ratio ``sigma`` and candidates ``C``.
    """
    counts = np.atleast_2d(np.asarray(positive_counts, dtype=np.float64))
    if counts.ndim != 2 or counts.shape[1] == 0:
        raise ValueError("positive_counts must be a non-empty vector (n,) or matrix (users, n)")
    n = counts.shape[1]
    scale = _test_ratio(test_ratio) * _positive("n_candidates", n_candidates)
    scale /= n * _positive("t", t) * _positive("n_users", n_users)
    return float(scale * counts.mean(axis=0).sum())


@dataclass(frozen=True)
class LemmaBounds:
    """The two sides of Eq. 2 and the 1R precision they bound (``lower <= value <= upper``)."""

    lower: float
    value: float
    upper: float


def lemma_bounds(runs: Runs, scores: np.ndarray, n: int) -> LemmaBounds:
    """1R precision ``1RP@n`` and its AR bounds (IRJ 2017 Lemma, Eq. 2), from 1R runs and scores.

    ``|U| P@n / |PR_test|  <=  1RP@n  <=  sum_u m_u P^u@m_u(T_u) / (n |PR_test|)``, with
    ``m_u = n + |PR_test(u)| - 1``, ``T_u = U_r T_u^r`` and ``P@n`` the AR precision on the
    sets ``T_u``.  Here ``|PR_test(u)|`` is the user's number of runs, and
    ``1RP@n = (1 / |PR_test|) sum_{u, r} P^u@n(T_u^r)`` (Eq. 1).

    Conditions under which the bounds hold exactly, for every realisation:

    * the runs are 1R (one relevant item each) and share their non-relevant items within
      each user, ``N_u^r = N_u`` (``build_runs(..., shared_negatives=True)``); this is checked;
    * the recommender orders a user's items the same way in every set, i.e. ``scores``
      depends on the (user, item) pair only.  Items are ranked by decreasing score, ties
      broken by increasing item code.

    With a fresh sample per run the paper expects the bounds to hold approximately.
    """
    if int(n) != n or n < 1:
        raise ValueError(f"cut-off n must be a positive integer, got {n!r}")
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) != len(runs.items):
        raise ValueError(f"scores has {len(scores)} entries for {len(runs.items)} run entries")
    run_of_entry = runs.run_of_entry
    if runs.n_runs == 0 or np.any(np.bincount(run_of_entry, weights=runs.labels, minlength=runs.n_runs) != 1):
        raise ValueError("lemma_bounds needs 1R runs: exactly one relevant item per run")
    users = runs.users.astype(np.int64)
    n_items = int(runs.items.max()) + 1

    # Shared negatives: every (user, non-relevant item) pair appears in all the user's runs.
    runs_of_user = np.bincount(users)
    negative = ~runs.labels
    keys, copies = np.unique(users[run_of_entry[negative]] * n_items + runs.items[negative], return_counts=True)
    if np.any(copies != runs_of_user[keys // n_items]):
        raise ValueError("lemma_bounds needs the same non-relevant items in all runs of a user (shared_negatives=True)")

    relevant_entry = np.nonzero(runs.labels)[0]
    relevant_score = scores[relevant_entry]
    relevant_item = runs.items[relevant_entry]
    beats = (scores > relevant_score[run_of_entry]) | (
        (scores == relevant_score[run_of_entry]) & (runs.items < relevant_item[run_of_entry])
    )
    rank_in_run = 1 + np.bincount(run_of_entry, weights=beats, minlength=runs.n_runs).astype(np.int64)

    # Position of each relevant item among its user's relevant items (same total order).
    order = np.lexsort((relevant_item, -relevant_score, users))
    first_of_user = np.searchsorted(users[order], users[order], side="left")
    above = np.empty(runs.n_runs, dtype=np.int64)
    above[order] = np.arange(runs.n_runs) - first_of_user
    rank_in_union = rank_in_run + above

    n_relevant = runs.n_runs
    m_u = n + runs_of_user[users] - 1
    value = np.count_nonzero(rank_in_run <= n) / (n * n_relevant)
    lower = np.count_nonzero(rank_in_union <= n) / (n * n_relevant)
    upper = np.count_nonzero(rank_in_union <= m_u) / (n * n_relevant)
    return LemmaBounds(lower=float(lower), value=float(value), upper=float(upper))

"""Closed forms of Bellogín, Castells and Cantador (IRJ 2017, Sections 3.4, 4 and 5).

Notation (IRJ 2017 Table 2): ``sigma`` is the test ratio, ``|PR|`` the number of
positive ratings, ``|U|`` the number of users, ``t = 1 / avg_u(1 / |T_u|)`` the
harmonic mean target set size, ``delta = |PR| / (t |U|)`` the relevance density
and ``rho_u = |T_u ∩ PR_test(u)| / |T_u|`` the share of relevant items in a target set.

Section 5 (the popularity bias) adds the bounds of 1R precision for a
non-personalised ordering (:func:`nonpersonalised_bounds_1r`) and, beyond the paper,
the expected 1R precision of ranking by training popularity given the complete
ratings (:func:`expected_popularity_precision_1r`), whose uniform-popularity case
(:func:`relevant_training_shift`) explains why popularity falls below random there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from recbias.designs.sampling import distinct
from recbias.ratings import Ratings
from recbias.runs import Runs

__all__ = [
    "LemmaBounds",
    "expected_popularity_precision_1r",
    "expected_precision_nonpersonalised",
    "expected_random_precision_1r",
    "expected_random_precision_ar",
    "lemma_bounds",
    "nonpersonalised_bounds_1r",
    "random_precision_sd",
    "relevance_density",
    "relevance_ratio",
    "relevance_ratios",
    "relevant_training_shift",
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
    """``t = 1 / avg(1 / |T|)`` over the runs, the "average" target set size of Table 2.

    Two runs of 2 and 4 items: the harmonic mean is 8/3.

    >>> runs = Runs.from_arrays([0, 2, 6], users=[0, 1], items=[0, 1, 0, 1, 2, 3], labels=[1, 0, 1, 0, 0, 0])
    >>> round(target_size(runs), 3)
    2.667
    """
    return float(1.0 / np.mean(1.0 / _target_sizes(runs, "target_size")))


def relevance_ratios(runs: Runs) -> np.ndarray:
    """``rho_u = |T ∩ PR_test(u)| / |T|`` of every run, the share of relevant items in its target set.

    One relevant item among 2, then among 4:

    >>> runs = Runs.from_arrays([0, 2, 6], users=[0, 1], items=[0, 1, 0, 1, 2, 3], labels=[1, 0, 1, 0, 0, 0])
    >>> relevance_ratios(runs).tolist()
    [0.5, 0.25]
    """
    sizes = _target_sizes(runs, "relevance_ratios")
    return np.add.reduceat(runs.labels.astype(np.int64), runs.offsets[:-1]) / sizes


def relevance_ratio(runs: Runs) -> float:
    """``rho = avg(|T ∩ PR_test(u)| / |T|)`` over the runs (Section 4.2).

    For a ranking drawn uniformly at random, the number of relevant items in the top ``n``
    of a run is hypergeometric with mean ``n rho_u``, so ``E[P_RND@n] = rho`` exactly for any
    ``n <= min |T|``.  In 1R every run has one relevant item and ``rho = 1 / t`` (Eq. 5).

    >>> runs = Runs.from_arrays([0, 2, 6], users=[0, 1], items=[0, 1, 0, 1, 2, 3], labels=[1, 0, 1, 0, 0, 0])
    >>> relevance_ratio(runs)  # (1/2 + 1/4) / 2
    0.375
    """
    return float(np.mean(relevance_ratios(runs)))


def random_precision_sd(runs: Runs, n: int) -> float:
    """Standard deviation of the mean P@n of a uniformly random ranking over ``runs``, given the target sets.

    The hits of run ``r`` are hypergeometric: ``n`` draws from ``|T_r|`` items of which
    ``a_r = rho_r |T_r|`` are relevant, so ``Var(P_r@n) = rho_r (1 - rho_r) (|T_r| - n) / (n (|T_r| - 1))``
    for ``n <= |T_r|``; runs are ranked independently, so the mean over ``R`` runs has variance
    ``sum_r Var(P_r@n) / R^2``.  This is the simulation error of a measured random precision
    around ``rho`` (:func:`relevance_ratio`).

    At ``n = 1`` the variances are ``rho (1 - rho)``: 0.25 and 0.1875; ``sqrt(0.4375) / 2``:

    >>> runs = Runs.from_arrays([0, 2, 6], users=[0, 1], items=[0, 1, 0, 1, 2, 3], labels=[1, 0, 1, 0, 0, 0])
    >>> round(random_precision_sd(runs, 1), 4)
    0.3307
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
    """``delta = |PR| / (t |U|)``, the density of known relevance in target sets (Table 2).

    >>> relevance_density(n_positive=100, t=10, n_users=5)  # 100 / (10 * 5)
    2.0
    """
    return float(n_positive) / (_positive("t", t) * _positive("n_users", n_users))


def expected_random_precision_ar(test_ratio: float, n_positive: int, t: float, n_users: int) -> float:
    """Expected P@n of random recommendation in AR: ``sigma |PR| / (t |U|) = sigma delta`` (Eq. 4).

    Assumes a random split with ratio ``sigma`` (so ``E[|PR_test|] = sigma |PR|``) and target
    sets of similar size; it does not depend on the cut-off ``n``.

    >>> expected_random_precision_ar(test_ratio=0.2, n_positive=100, t=10, n_users=5)  # 0.2 * 2.0
    0.4
    """
    return _test_ratio(test_ratio) * relevance_density(n_positive, t, n_users)


def expected_random_precision_1r(t: float) -> float:
    """Expected P@n of random recommendation in 1R: ``1 / t`` (Eq. 5), independent of ``n``.

    >>> expected_random_precision_1r(t=100)
    0.01
    """
    return 1.0 / _positive("t", t)


def expected_precision_nonpersonalised(
    test_ratio: float, n_candidates: int, t: float, n_users: int, positive_counts: np.ndarray
) -> float:
    """Expected AR P@n of a non-personalised recommender (Eq. 3).

    ``E[P_s@n] = sigma |C| / (n t |U|) * sum_{k=1..n} avg_u |PR(i_k^{u,s})|``, where
    ``positive_counts[k]`` (or ``positive_counts[u, k]``, one row per user) is ``|PR(i)|``,
    the number of positive ratings in the whole data of the item ranked ``k``-th; ``n`` is the
    number of columns.  Derived for a random split with ratio ``sigma`` and candidates ``C``.

    Items with 10 and 5 positive ratings on top: ``0.2 * 100 / (2 * 50 * 10) * (10 + 5)``.

    >>> expected_precision_nonpersonalised(0.2, n_candidates=100, t=50, n_users=10, positive_counts=[10, 5])
    0.3
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
    """The two sides of Eq. 2 and the 1R precision they bound (``lower <= value <= upper``).

    >>> bounds = LemmaBounds(lower=0.25, value=0.5, upper=0.5)
    >>> bounds.lower <= bounds.value <= bounds.upper
    True
    """

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

    One user with relevant items 0 and 1 and shared negatives 2 and 3; scores 0.9, 0.4, 0.5, 0.3.
    At ``n = 2`` both runs hit (value 2 / 4); in the union 0, 2, 1, 3 only item 0 is in the top 2
    (lower 1 / 4) and both are in the top ``m_u = 3`` (upper 2 / 4):

    >>> runs = Runs.from_arrays([0, 3, 6], users=[0, 0], items=[0, 2, 3, 1, 2, 3], labels=[1, 0, 0, 1, 0, 0])
    >>> lemma_bounds(runs, np.array([0.9, 0.5, 0.3, 0.4, 0.5, 0.3]), n=2)
    LemmaBounds(lower=0.25, value=0.5, upper=0.5)
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
    keys, copy_of = distinct(users[run_of_entry[negative]] * n_items + runs.items[negative])
    copies = np.bincount(copy_of, minlength=len(keys))
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


# ------------------------------------------------------------------ popularity (Sec. 5)


def nonpersonalised_bounds_1r(
    positive_counts: np.ndarray, n: int, target_sizes: np.ndarray, relevant_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Expected lower and upper bound of 1R precision for a non-personalised ordering (IRJ 2017 Sec. 5.1).

    The lemma (Eq. 2) with Eq. 3 for each side, for an order that does not depend on the split:

    ``sum_u w_u |C| / (n |PR| |T_u|) E[sum_{k<=n} |PR(i_k^u)|]  <=  E[1RP@n]``
    ``<=  sum_u w_u |C| / (n |PR| |T_u|) E[sum_{k<=m_u} |PR(i_k^u)|]``,

    with ``m_u = n + |PR_test(u)| - 1``, ``i_k^u`` the ``k``-th item of ``T_u`` in the
    system's order and ``w_u = |PR_test(u)| / |PR_test|``.  ``positive_counts`` lists
    ``|PR(i)|`` of the candidate items ``C`` in that order (best first), one row per
    system when it is a matrix (the bounds are then arrays, one entry per row); ``target_sizes``
    and ``relevant_counts`` give ``|T_u| = |N_u| + |PR_test(u)|`` and ``|PR_test(u)|`` of
    every user with a run.  With equal target sizes ``t`` the weights drop out and this is
    the paper's ``|C| / (n t |PR|) avg_u sum_k |PR(i_k^u)|``; with sizes that grow with
    ``|PR_test(u)|``, weighting each user by her own share of the relevant items (rather
    than the average share, as Eq. 3 does) keeps the bounds exact for a random order.
    As in the paper, ``T_u`` is taken as a uniform random subset of ``C``: the item at
    position ``r`` is in ``T_u`` with probability ``|T_u| / |C|`` and then among its top
    ``m`` when at most ``m - 1`` of the other ``|T_u| - 1`` members come from the ``r - 1``
    items above it (hypergeometric).

    Two candidates with 3 and 1 positive ratings, one user whose target set holds both, 2 of them
    relevant: the top 1 catches 3 of the 4 positives, the top ``m_u = 2`` all of them.

    >>> nonpersonalised_bounds_1r([3, 1], n=1, target_sizes=[2], relevant_counts=[2])
    (0.75, 1.0)
    """
    counts = np.asarray(positive_counts, dtype=np.float64)
    sizes = np.asarray(target_sizes, dtype=np.int64)
    relevant = np.asarray(relevant_counts, dtype=np.int64)
    n_candidates = counts.shape[-1]
    if int(n) != n or n < 1:
        raise ValueError(f"cut-off n must be a positive integer, got {n!r}")
    if sizes.shape != relevant.shape or sizes.size == 0:
        raise ValueError("target_sizes and relevant_counts must be non-empty arrays of the same length")
    if np.any(relevant < 1) or np.any(sizes < relevant) or np.any(sizes > n_candidates):
        raise ValueError("every user needs 1 <= |PR_test(u)| <= |T_u| <= |C|")
    if counts.ndim not in (1, 2) or np.any(counts.sum(axis=-1) <= 0):
        raise ValueError("positive_counts must be a vector or matrix of rows with a positive sum")
    above = np.arange(n_candidates)  # items ranked above position r = above + 1
    weights = np.zeros((2, n_candidates))  # sum_u w_u P(position r is in the top n / m_u of T_u)
    pairs, users = np.unique(np.stack([sizes, relevant]), axis=1, return_counts=True)
    for (size, p), count in zip(pairs.T, users, strict=True):
        for side, m in enumerate((n, n + p - 1)):
            weights[side] += count * p * stats.hypergeom.cdf(m - 1, n_candidates - 1, above, size - 1)
    lower, upper = (counts @ weights.T / (n * relevant.sum() * counts.sum(axis=-1, keepdims=True))).T
    if counts.ndim == 1:
        return float(lower), float(upper)
    return lower, upper


def relevant_training_shift(mean_count: float, count_variance: float, test_ratio: float) -> float:
    """How many training ratings fewer the relevant item of a 1R run has than a random item.

    An item with ``|R(i)|`` ratings keeps ``Bin(|R(i)|, 1 - sigma)`` of them in training, but
    the item of a held-out rating keeps ``Bin(|R(i)| - 1, 1 - sigma)``: one of its ratings is
    known to be in test.  Items are drawn for runs in proportion to their ratings, so with
    ``mu = E|R(i)|`` and ``V = Var|R(i)|`` over items the difference of the means is

    ``(1 - sigma)(E[R^2] / E[R] - 1) - (1 - sigma) E[R] = (1 - sigma)(V / mu - 1)``,

    negative when the counts vary less than a Poisson law (uniform popularity, ``V = 0``):
    ranking by training popularity then pushes the held-out item down (IRJ 2017 Sec. 5.2).

    Equal counts push the held-out item down by ``1 - sigma``; Poisson-like counts do not:

    >>> relevant_training_shift(mean_count=10, count_variance=0, test_ratio=0.2)
    -0.8
    >>> relevant_training_shift(mean_count=10, count_variance=10, test_ratio=0.2)
    0.0
    """
    mu = _positive("mean_count", mean_count)
    if not count_variance >= 0:
        raise ValueError(f"count_variance must be non-negative, got {count_variance!r}")
    return (1.0 - _test_ratio(test_ratio)) * (count_variance / mu - 1.0)


def _binomial_pmf_rows(trials: np.ndarray, p: float, width: int) -> np.ndarray:
    """``P(Bin(trials[j], p) = a)`` for ``a = 0..width - 1``, one row per entry of ``trials``."""
    a = np.arange(width)
    return stats.binom.pmf(a[None, :], np.asarray(trials)[:, None], p)


def _top_n_probability(greater: np.ndarray, equal: np.ndarray, draws: int, n: int) -> np.ndarray:
    """P(rank <= n) of an item that ``draws`` independent rivals beat with probability
    ``greater`` and tie with probability ``equal`` (one value per entry), ties in random order.

    ``sum_{g<n} sum_e Mult(draws; g, e) greater^g equal^e (1 - greater - equal)^(draws-g-e)
    min(1, (n - g) / (e + 1))``.
    """
    lower = np.clip(1.0 - greater - equal, 0.0, 1.0)[:, None]
    greater, equal = greater[:, None], equal[:, None]
    e = np.arange(draws + 1)[None, :]
    total = np.zeros(len(greater))
    for g in range(min(n, draws + 1)):
        rest = draws - g - e
        valid = rest >= 0
        rest = np.where(valid, rest, 0)
        log_terms = (special.gammaln(draws + 1) - special.gammaln(g + 1) - special.gammaln(e + 1)
                     - special.gammaln(rest + 1) + special.xlogy(g, greater) + special.xlogy(e, equal)
                     + special.xlogy(rest, lower))
        share = np.minimum(1.0, (n - g) / (e + 1.0))
        total += np.sum(np.where(valid, np.exp(log_terms) * share, 0.0), axis=1)
    return total


def expected_popularity_precision_1r(
    ratings: Ratings, test_ratio: float, target_size: int, n: int = 10, candidates: str = "TI"
) -> float:
    """Expected 1R P@n of ranking by training popularity on a coin-flip split of ``ratings``.

    Each rating goes to test with probability ``sigma``.  A run holds one positive test
    rating ``(u, i)`` and ``target_size - 1`` non-relevant items; conditioned on the full
    ratings (a closed form beyond IRJ 2017 Sec. 5, exact up to the approximations below):

    * the run's item is ``i`` with probability ``|PR(i)| / |PR|``, and its training count is
      ``Bin(|R(i)| - 1, 1 - sigma)``, since one of its ratings is the held-out one;
    * a non-relevant item is ``j`` with probability proportional to ``a_j`` times, under TI,
      the chance ``1 - (1 - sigma)^|R(j)|`` that ``j`` has a test rating; its training count
      is ``Bin(|R(j)|, 1 - sigma)``, conditioned on not all ratings being in training under TI.
      ``a_j`` is the expected share of runs for which ``j`` is available, i.e. not in the
      user's training ratings nor among her positive test ratings:
      ``a_j = 1 - [(1 - sigma) sum_{u in R(j)} |PR(u)| + sigma sum_{u in PR(j)} |PR(u)|] / |PR|``;
    * the non-relevant items are drawn independently (the design draws them without
      replacement) and ties are broken at random.

    The positive ratio cancels when it is the same for every item, which is why uniform
    popularity puts popularity below random (:func:`relevant_training_shift`).

    Eight users rate two items each, every item twice (uniform popularity); half the ratings go to
    test, target sets of 2.  The held-out item keeps 0 or 1 training ratings (1/2 each), a TI rival
    0 or 1 (1/3, 2/3): P@1 = 1/2 * 1/3 * 1/2 + 1/2 * (1/3 + 2/3 * 1/2) = 5/12, below random's 1/2.

    >>> users = np.repeat(np.arange(8), 2)
    >>> ratings = Ratings.from_codes(users, (users + np.tile([0, 1], 8)) % 8, np.full(16, 5.0), (8, 8),
    ...                              positive_threshold=5)
    >>> round(expected_popularity_precision_1r(ratings, test_ratio=0.5, target_size=2, n=1), 4)
    0.4167
    """
    sigma = _test_ratio(test_ratio)
    if candidates not in ("TI", "AI"):
        raise ValueError(f"candidates must be 'TI' or 'AI', got {candidates!r}")
    if int(n) != n or n < 1 or int(target_size) != target_size or not n <= target_size:
        raise ValueError(f"need integers 1 <= n <= target_size, got n={n!r}, target_size={target_size!r}")
    keep = 1.0 - sigma
    counts = ratings.item_counts().astype(np.int64)
    positive = ratings.positive
    positives = ratings.item_counts(positive_only=True).astype(np.float64)
    if positives.sum() <= 0:
        raise ValueError("ratings have no positive rating")
    user_positives = ratings.user_counts(positive_only=True).astype(np.float64)
    taken = keep * np.bincount(ratings.items, weights=user_positives[ratings.users], minlength=ratings.n_items)
    taken += sigma * np.bincount(ratings.items[positive], weights=user_positives[ratings.users[positive]],
                                 minlength=ratings.n_items)
    available = np.clip(1.0 - taken / positives.sum(), 0.0, 1.0)

    width = int(counts.max()) + 1
    values, inverse = np.unique(counts, return_inverse=True)
    pmf = _binomial_pmf_rows(values, keep, width)
    if candidates == "TI":
        pmf[np.arange(len(values)), values] = 0.0  # an item of C has at least one test rating
    rivals = np.bincount(inverse, weights=available, minlength=len(values)) @ pmf
    rivals /= rivals.sum()
    greater = 1.0 - np.cumsum(rivals)
    hit = _top_n_probability(np.clip(greater, 0.0, 1.0), rivals, int(target_size) - 1, int(n))

    rated = values >= 1
    weights = np.bincount(inverse, weights=positives, minlength=len(values))[rated]
    own = _binomial_pmf_rows(values[rated] - 1, keep, width)
    return float(weights @ own @ hit / (weights.sum() * n))

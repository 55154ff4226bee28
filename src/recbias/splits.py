"""Training/test splits of a :class:`~recbias.ratings.Ratings` set.

Every split returns training and test sets over the same user and item code
space as the input, and is a pure function of its parameters and ``seed``.
Notation follows Bellogín, Castells and Cantador (IRJ 2017, Table 2): ``sigma``
is the test ratio ``|R_test| / |R|``, ``r(i)`` the number of ratings of item ``i``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from recbias.ratings import Ratings

__all__ = [
    "Fold",
    "fold_seed",
    "make_folds",
    "NewUserSplit",
    "SPLITS",
    "UNIFORM_RULES",
    "UniformSplit",
    "kfold_split",
    "leave_last_out",
    "leave_one_random_out",
    "new_user_splits",
    "random_split",
    "remove_head",
    "remove_test_ratings",
    "temporal_split",
    "largest_uniform_ratio",
    "uniform_split",
    "uniform_target",
]


def _check_ratio(name: str, value: float, *, low_open: bool = True, high_open: bool = True) -> float:
    """Validate that ``value`` lies in the interval (0, 1) with the requested open/closed ends."""
    value = float(value)
    too_low = value <= 0 if low_open else value < 0
    too_high = value >= 1 if high_open else value > 1
    if not np.isfinite(value) or too_low or too_high:
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return value


def _by_popularity(counts: np.ndarray) -> np.ndarray:
    """Item codes by decreasing ``counts``, ties by increasing code."""
    return np.argsort(-counts, kind="stable")


def _split_by_mask(ratings: Ratings, test_mask: np.ndarray) -> tuple[Ratings, Ratings]:
    """Training and test sets from a boolean test mask."""
    return ratings.subset(~test_mask), ratings.subset(test_mask)


def _require_timestamps(ratings: Ratings) -> np.ndarray:
    if ratings.timestamps is None:
        raise ValueError(f"Ratings '{ratings.name}' have no timestamps; temporal splits need them")
    return ratings.timestamps


def _time_order_within_users(ratings: Ratings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings ordered by (user, time, row) with per-row position from the end of each user's history.

    Returns ``order`` (row indices sorted by user, then timestamp, then row index, so that
    ties in time are broken by the order of the rows), ``from_end`` (for each sorted row, how
    many ratings of the same user come after it: 0 for the latest) and the per-user counts.
    """
    timestamps = _require_timestamps(ratings)
    rows = np.arange(ratings.n_ratings)
    order = np.lexsort((rows, timestamps, ratings.users))
    counts = ratings.user_counts()
    sorted_users = ratings.users[order]
    end_of_user = np.cumsum(counts)[sorted_users]
    from_end = end_of_user - 1 - np.arange(ratings.n_ratings)
    return order, from_end, counts


# --------------------------------------------------------------------------- random


def random_split(ratings: Ratings, test_ratio: float = 0.2, *, seed: int = 0) -> tuple[Ratings, Ratings]:
    """Coin-flip split: each rating goes to test independently with probability ``test_ratio``.

    This is the split of IRJ 2017 Section 3.3: ``|R_test|`` is ``Binomial(|R|, sigma)``, so
    ``E[|R_test|] = sigma |R|`` and, for every item, ``E[|PR_test(i)|] = sigma |PR(i)|``
    (the property Eq. 3 and 4 rely on).
    """
    sigma = _check_ratio("test_ratio", test_ratio)
    rng = np.random.default_rng(seed)
    return _split_by_mask(ratings, rng.random(ratings.n_ratings) < sigma)


def kfold_split(ratings: Ratings, n_folds: int = 5, *, seed: int = 0) -> list[tuple[Ratings, Ratings]]:
    """K-fold cross-validation: a random partition of the ratings into ``n_folds`` folds.

    Ratings are shuffled and dealt to folds in turn, so fold sizes differ by at most one
    and every rating is in exactly one test set.  Fold ``k`` is the test set of the
    ``k``-th pair, the other folds its training set.
    """
    if int(n_folds) != n_folds or n_folds < 2:
        raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    if ratings.n_ratings < n_folds:
        raise ValueError(f"n_folds={n_folds} exceeds the {ratings.n_ratings} ratings")
    rng = np.random.default_rng(seed)
    fold = np.empty(ratings.n_ratings, dtype=np.int64)
    fold[rng.permutation(ratings.n_ratings)] = np.arange(ratings.n_ratings) % n_folds
    return [_split_by_mask(ratings, fold == k) for k in range(int(n_folds))]


# ------------------------------------------------------------------------- temporal


def temporal_split(
    ratings: Ratings, test_ratio: float = 0.2, *, per_user: bool = False
) -> tuple[Ratings, Ratings]:
    """Split by time: the most recent ratings form the test set.

    Global (``per_user=False``): with ``k = round(sigma |R|)``, the cut time ``t*`` is the
    timestamp of the ``k``-th most recent rating and every rating with timestamp ``>= t*``
    is a test rating.  No training rating is later than any test rating; ratings that share
    the cut time all go to test, so ``|R_test|`` can exceed ``k`` when times are tied.

    Per user (``per_user=True``): each user's ``round(sigma |R(u)|)`` most recent ratings
    (halves rounded up) go to test, ties in time broken by row order (the later row is the
    more recent).  A user with too few ratings for the rounding to reach one keeps all of
    them in training.
    """
    sigma = _check_ratio("test_ratio", test_ratio)
    if not per_user:
        timestamps = _require_timestamps(ratings)
        k = int(np.floor(sigma * ratings.n_ratings + 0.5))
        if k == 0:
            return _split_by_mask(ratings, np.zeros(ratings.n_ratings, dtype=bool))
        cut = np.partition(timestamps, ratings.n_ratings - k)[ratings.n_ratings - k]
        return _split_by_mask(ratings, timestamps >= cut)
    order, from_end, counts = _time_order_within_users(ratings)
    n_test = np.floor(sigma * counts + 0.5).astype(np.int64)
    test_mask = np.zeros(ratings.n_ratings, dtype=bool)
    test_mask[order] = from_end < n_test[ratings.users[order]]
    return _split_by_mask(ratings, test_mask)


def leave_last_out(ratings: Ratings) -> tuple[Ratings, Ratings]:
    """Hold out each user's most recent rating (Krichene & Rendle, KDD 2020, Section 6).

    The test set has one rating per user: the one with the latest timestamp, ties broken by
    row order (the later row wins), so the choice is deterministic.  Users with a single
    rating keep it in training: they have no test rating and are therefore not evaluated,
    but their rating still informs the model.
    """
    order, from_end, counts = _time_order_within_users(ratings)
    test_mask = np.zeros(ratings.n_ratings, dtype=bool)
    test_mask[order] = (from_end == 0) & (counts[ratings.users[order]] >= 2)
    return _split_by_mask(ratings, test_mask)


def leave_one_random_out(ratings: Ratings, *, seed: int = 0) -> tuple[Ratings, Ratings]:
    """Hold out one uniformly chosen rating of every user with at least two ratings.

    The fallback of :func:`leave_last_out` for data without timestamps: the test set
    has one rating per evaluated user, chosen with ``numpy.random.default_rng(seed)``;
    users with a single rating keep it in training and are not evaluated.
    """
    rng = np.random.default_rng(seed)
    order = np.lexsort((rng.random(ratings.n_ratings), ratings.users))
    users = ratings.users[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = users[1:] != users[:-1]
    counts = ratings.user_counts()
    test_mask = np.zeros(ratings.n_ratings, dtype=bool)
    test_mask[order[first & (counts[users] >= 2)]] = True
    return _split_by_mask(ratings, test_mask)


# -------------------------------------------------------------------------- uniform


@dataclass(frozen=True, eq=False)
class UniformSplit:
    """A split with uniform test item profiles (IRJ 2017 Section 6.2).

    Attributes:
        train, test: the two rating sets (same code space as the input).
        target_items: ``T``, the item codes that received test ratings, most popular first.
        eta: the number of test ratings of every item of ``T``.
        rule: ``"paper"`` or ``"floor"``, the rule that chose ``T`` and ``eta``.
    """

    train: Ratings
    test: Ratings
    target_items: np.ndarray
    eta: int
    rule: str = "paper"

    @property
    def achieved_test_ratio(self) -> float:
        """``|T| eta / |R|``, the realised test ratio."""
        return len(self.target_items) * self.eta / (self.train.n_ratings + self.test.n_ratings)

    def __iter__(self) -> Iterator[Ratings]:
        """Unpack as ``train, test = uniform_split(...)``, like the other splits."""
        return iter((self.train, self.test))


#: the rules of :func:`uniform_split`
UNIFORM_RULES = ("paper", "floor")


def _uniform_capacities(
    counts: np.ndarray, epsilon: float, rule: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Items by popularity, their test capacity ``(1 - eps) r(i_k)`` (floored under ``"floor"``),
    the ``eta`` each cut-off would give and whether the cut-off is allowed (``eta >= 1``, and
    with ``eps > 0`` at least one training rating left)."""
    if rule not in UNIFORM_RULES:
        raise ValueError(f"unknown uniform split rule {rule!r}; use one of {', '.join(UNIFORM_RULES)}")
    counts = np.asarray(counts, dtype=np.int64)
    by_popularity = _by_popularity(counts)
    # Round so that e.g. 0.8 * 5 = 4.000000000000001 is not mistaken for more than 4.
    capacity = np.round((1.0 - epsilon) * counts[by_popularity], 9)
    if rule == "floor":
        capacity = np.floor(capacity)
    eta_at = np.floor(capacity + 0.5)  # the eta each cut-off would give under the paper's rounding
    allowed = eta_at >= 1
    if epsilon > 0:  # a training minimum keeps at least one training rating of every item of T
        allowed &= eta_at < counts[by_popularity]
    return by_popularity, capacity, eta_at, allowed


def largest_uniform_ratio(counts: np.ndarray, min_train_ratio: float = 0.2, rule: str = "paper") -> float:
    """The largest test ratio a uniform split can hold, ``max_k (1 - eps) r(i_k) k / |R|`` over the
    allowed cut-offs of :func:`uniform_target` (0 when none is allowed)."""
    epsilon = _check_ratio("min_train_ratio", min_train_ratio, low_open=False)
    _, capacity, _, allowed = _uniform_capacities(counts, epsilon, rule)
    values = np.where(allowed, capacity * np.arange(1, len(capacity) + 1), 0.0)
    total = float(np.sum(counts))
    return float(values.max() / total) if total and len(values) else 0.0


def uniform_target(
    counts: np.ndarray, test_ratio: float = 0.2, min_train_ratio: float = 0.2, rule: str = "paper"
) -> tuple[np.ndarray, int]:
    """``T`` (item codes, most popular first) and ``eta`` of a uniform split, from the item counts ``r(i)``.

    Items sorted by decreasing ``r(i)`` (ties by item code) are ``i_1, i_2, ...``; with
    ``sigma`` the test ratio, ``eps`` the minimum training ratio and ``|R| = sum r(i)``:

    * ``rule="paper"`` (IRJ 2017 Sec. 6.2): ``zeta = max{k : (1 - eps) r(i_k) k / |R| >= sigma}``,
      ``T = {i_k : k <= zeta}`` and ``eta = (1 - eps) r(i_zeta)`` rounded to the nearest integer
      (halves up; the paper's 117.6 -> 118 on ML-1M).  Every item of ``T`` keeps at least
      ``eps r(i)`` training ratings except, when ``eta`` was rounded up, the items tied with
      ``i_zeta``, which keep ``r(i_zeta) - eta``, less than one rating short of ``eps r(i_zeta)``.
      With ``eps > 0`` a cut-off whose rounded ``eta`` would leave ``i_k`` no training rating at
      all (``r(i_k) = 1`` or ``2`` at ``eps = 0.2``) is not allowed, so a long tail of items
      rated once or twice never enters ``T``.
      ``|T| eta / |R|`` is ``sigma`` up to that rounding and the integer slack of ``zeta``.
    * ``rule="floor"`` (stricter): the per-item capacity is rounded down first,
      ``zeta = max{k : floor((1 - eps) r(i_k)) k >= sigma |R|}``, and ``eta = ceil(sigma |R| / zeta)``
      is the smallest count that reaches ``sigma``; every item then keeps at least ``eps r(i)``
      training ratings and ``sigma <= |T| eta / |R| < sigma + |T| / |R|``, at the price of a
      smaller ``T``.

    Either way ``zeta`` never cuts through a tie: items with the count of ``i_zeta`` all
    satisfy the condition at their larger ranks, so they are all in ``T``.
    Raises ``ValueError`` when no prefix of the popularity ranking can hold ``sigma |R|``
    test ratings under the training minimum.
    """
    sigma = _check_ratio("test_ratio", test_ratio)
    epsilon = _check_ratio("min_train_ratio", min_train_ratio, low_open=False)
    by_popularity, capacity, eta_at, allowed = _uniform_capacities(counts, epsilon, rule)
    n_ratings = int(np.sum(counts))
    rank = np.arange(1, len(capacity) + 1)
    feasible = allowed & (np.round(capacity * rank, 9) >= np.round(sigma * n_ratings, 9))
    if not feasible.any():
        raise ValueError(
            f"no uniform test item profile exists for test_ratio={sigma} with min_train_ratio={epsilon}: "
            f"the largest achievable test ratio is {largest_uniform_ratio(counts, epsilon, rule):.4f}"
        )
    zeta = int(np.nonzero(feasible)[0].max()) + 1
    if rule == "paper":
        eta = int(np.floor(capacity[zeta - 1] + 0.5))
    else:
        eta = int(np.ceil(np.round(sigma * n_ratings / zeta, 9)))
    return by_popularity[:zeta].copy(), eta


def uniform_split(
    ratings: Ratings, test_ratio: float = 0.2, min_train_ratio: float = 0.2, *, rule: str = "paper", seed: int = 0
) -> UniformSplit:
    """Split with the same number ``eta`` of test ratings for every target item (IRJ 2017 Sec. 6.2).

    ``T`` and ``eta`` come from :func:`uniform_target` on the item counts ``r(i)`` (``rule``:
    the paper's, or the stricter ``"floor"``).  Exactly ``eta`` ratings of each item of ``T``,
    drawn uniformly without replacement, form the test set; all other ratings train.
    """
    target_items, eta = uniform_target(ratings.item_counts(), test_ratio, min_train_ratio, rule)
    in_target = np.zeros(ratings.n_items, dtype=bool)
    in_target[target_items] = True
    candidates = np.nonzero(in_target[ratings.items])[0]
    keys = np.random.default_rng(seed).random(len(candidates))
    order = candidates[np.lexsort((keys, ratings.items[candidates]))]
    item_start = np.searchsorted(ratings.items[order], ratings.items[order], side="left")
    rank_in_item = np.arange(len(order)) - item_start
    test_mask = np.zeros(ratings.n_ratings, dtype=bool)
    test_mask[order[rank_in_item < eta]] = True
    train, test = _split_by_mask(ratings, test_mask)
    return UniformSplit(train=train, test=test, target_items=target_items, eta=eta, rule=rule)


# ------------------------------------------------------------------ test reductions


def remove_test_ratings(test: Ratings, fraction: float, *, seed: int = 0) -> Ratings:
    """Drop ``round(fraction |R_test|)`` test ratings chosen uniformly at random (sparsity sweeps).

    The ratings are removed in the order of one random permutation fixed by ``seed``, so for
    a given seed the ratings removed at a smaller fraction are also removed at every larger
    one: a sweep over fractions thins one test set progressively (IRJ 2017 Fig. 3 and 4).
    """
    fraction = _check_ratio("fraction", fraction, low_open=False, high_open=False)
    n_removed = int(np.floor(fraction * test.n_ratings + 0.5))
    keep = np.ones(test.n_ratings, dtype=bool)
    keep[np.random.default_rng(seed).permutation(test.n_ratings)[:n_removed]] = False
    return test.subset(keep)


def remove_head(train: Ratings, test: Ratings, fraction: float) -> tuple[Ratings, np.ndarray]:
    """Remove the ``fraction`` most popular items from the test set (IRJ 2017 Sec. 6.3, "-x% head").

    Popularity is ``r(i)``, the number of ratings in training and test together; the head is
    the ``floor(fraction n)`` most popular of the ``n`` items with at least one rating (ties by
    item code).  Returns the test set without the head items' ratings and the head item codes,
    which a design must also drop from its candidate set.
    """
    fraction = _check_ratio("head fraction", fraction, high_open=False)
    if train.shape != test.shape:
        raise ValueError(f"train and test code spaces differ: {train.shape} vs {test.shape}")
    popularity = train.item_counts() + test.item_counts()
    n_rated = int(np.count_nonzero(popularity))
    n_head = int(np.floor(fraction * n_rated + 1e-9))
    head = _by_popularity(popularity)[:n_head]
    is_head = np.zeros(len(popularity), dtype=bool)
    is_head[head] = True
    return test.subset(~is_head[test.items]), np.sort(head)


# ------------------------------------------------------------------------ new users


@dataclass(frozen=True, eq=False)
class NewUserSplit:
    """Users who arrive with nothing but the ratings they give first (Bobrikov et al. 2016, Sec. 8.1).

    Attributes:
        ratings: the whole dataset.
        new_users: codes of the new users.
        position: per rating, its place in its user's history (0 = first), in time order
            where the data have timestamps, in a random order otherwise.
        max_known: the most first ratings a new user ever reveals; the rest are the test set.
    """

    ratings: Ratings
    new_users: np.ndarray
    position: np.ndarray
    max_known: int

    @property
    def is_new(self) -> np.ndarray:
        """Per rating, whether its user is new."""
        return np.isin(self.ratings.users, self.new_users)

    @property
    def test(self) -> Ratings:
        """Every rating of a new user after the first ``max_known``."""
        return self.ratings.subset(self.is_new & (self.position >= self.max_known))

    def train(self, known: int) -> Ratings:
        """Every rating of the other users and the first ``known`` ratings of each new user."""
        if isinstance(known, bool) or not isinstance(known, (int, np.integer)) or not 0 <= known <= self.max_known:
            raise ValueError(f"known must be an integer in [0, {self.max_known}], got {known!r}")
        return self.ratings.subset(~self.is_new | (self.position < known))


def new_user_splits(
    ratings: Ratings, groups: int = 3, max_known: int = 30, min_test: int = 10, *, seed: int = 0
) -> list[NewUserSplit]:
    """Deal the users with at least ``max_known + min_test`` ratings into ``groups`` groups of new users.

    Each group is new in one split, while everybody else, including the other groups, keeps a full
    profile; every eligible user is thus new exactly once.  A new user reveals her ratings in the
    order she gave them (by timestamp, ties by row; in a random order drawn from ``seed`` when the
    data have no timestamps), so that the training set with ``k`` known ratings grows with ``k`` and
    the test set stays the same.  Raises ``ValueError`` when fewer users than ``groups`` qualify.
    """
    for name, value, low in (("groups", groups, 1), ("max_known", max_known, 1), ("min_test", min_test, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    rng = np.random.default_rng(seed)
    eligible = np.flatnonzero(ratings.user_counts() >= max_known + min_test)
    if eligible.size < groups:
        raise ValueError(
            f"only {eligible.size} users of '{ratings.name}' have {max_known + min_test} ratings "
            f"(max_known {max_known} + min_test {min_test}); {groups} groups of new users need at least {groups}"
        )
    dealt = rng.permutation(eligible)
    when = ratings.timestamps if ratings.timestamps is not None else rng.permutation(ratings.n_ratings)
    rows = np.arange(ratings.n_ratings)
    order = np.lexsort((rows, when, ratings.users))
    first_of_user = np.cumsum(ratings.user_counts()) - ratings.user_counts()
    position = np.empty(ratings.n_ratings, dtype=np.int64)
    position[order] = rows - first_of_user[ratings.users[order]]
    return [
        NewUserSplit(ratings=ratings, new_users=np.sort(dealt[g::groups]), position=position, max_known=int(max_known))
        for g in range(int(groups))
    ]


# ------------------------------------------------------------------------------- folds

#: every split this module offers: its name (the ``method`` of :func:`make_folds` where that draws it) -> its
#: name in words and the function that draws it (test thinning and head removal reduce a split, they are none)
SPLITS: dict[str, tuple[str, Callable[..., Any]]] = {
    "coin": ("coin-flip", random_split),
    "kfold": ("k-fold", kfold_split),
    "temporal": ("temporal", temporal_split),
    "leave-last-out": ("leave-last-out", leave_last_out),
    "leave-one-random-out": ("leave-one-random-out", leave_one_random_out),
    "uniform": ("uniform test item profiles", uniform_split),
    "new-user": ("new users", new_user_splits),
}
_SPLIT_METHODS = ("coin", "kfold", "temporal", "uniform")

@dataclass(frozen=True, eq=False)
class Fold:
    """One training/test split of an experiment.

    Attributes:
        index: 0, 1, ... within the experiment.
        train, test: the two rating sets (same code space).
        method: ``"coin"``, ``"kfold"``, ``"temporal"`` or ``"uniform"``.
        seed: the seed that drew the split (``-1`` for the deterministic temporal cut).
    """

    index: int
    train: Ratings
    test: Ratings
    method: str
    seed: int

    @property
    def key(self) -> tuple[Any, ...]:
        """What identifies the split in cache keys."""
        return (self.train.name, self.method, self.index, self.seed)


def fold_seed(seed: int, index: int) -> int:
    """Seed of fold ``index`` of an experiment seeded with ``seed`` (independent streams)."""
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


def make_folds(
    ratings: Ratings, *, method: str = "coin", folds: int = 5, test_ratio: float = 0.2, seed: int = 0,
    min_train_ratio: float = 0.2,
) -> list[Fold]:
    """Training/test splits of ``ratings``.

    * ``"coin"``: ``folds`` independent coin-flip splits (each rating goes to test with
      probability ``test_ratio``), the procedure of IRJ 2017 Section 3.3; fold ``k`` is
      drawn with :func:`fold_seed` ``(seed, k)``.
    * ``"kfold"``: a random partition into ``folds`` folds, each the test set once
      (``test_ratio`` is then ``1 / folds`` and the argument is ignored).
    * ``"temporal"``: one split, the most recent ``test_ratio`` of the ratings in test
      (needs timestamps; ``folds`` must be 1).
    * ``"uniform"``: ``folds`` independent splits with uniform test item profiles
      (:func:`recbias.splits.uniform_split`, IRJ 2017 Section 6.2, keeping at least
      ``min_train_ratio`` of each target item's ratings for training), fold ``k`` drawn
      with :func:`fold_seed` ``(seed, k)``.
    """
    if method not in _SPLIT_METHODS:
        raise ValueError(f"unknown split method {method!r}; use one of {', '.join(_SPLIT_METHODS)}")
    if int(folds) != folds or folds < 1:
        raise ValueError(f"folds must be a positive integer, got {folds!r}")
    if method in ("coin", "uniform"):
        out = []
        for k in range(int(folds)):
            s = fold_seed(seed, k)
            if method == "coin":
                train, test = random_split(ratings, test_ratio, seed=s)
            else:
                train, test = uniform_split(ratings, test_ratio, min_train_ratio, seed=s)
            out.append(Fold(k, train, test, method, s))
        return out
    if method == "kfold":
        if folds < 2:
            raise ValueError("k-fold cross-validation needs folds >= 2")
        pairs = kfold_split(ratings, int(folds), seed=seed)
        return [Fold(k, train, test, method, int(seed)) for k, (train, test) in enumerate(pairs)]
    if folds != 1:
        raise ValueError("a temporal split is a single fold; pass folds=1")
    train, test = temporal_split(ratings, test_ratio)
    return [Fold(0, train, test, method, -1)]

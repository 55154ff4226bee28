"""Target sets of every design, built for all users at once (IRJ 2017 Sections 3 and 6).

Given a split, a design forms the target sets the recommender must rank: one
``T_u`` per user in AR, one ``T_u^r`` per relevant test rating in 1R.  An item is
relevant for ``u`` when ``u`` rated it in the test set at or above the relevance
threshold (``PR_test(u)``); the non-relevant part ``N_u`` is drawn from the
candidates ``C`` minus ``PR_test(u)`` and minus the user's training items
``R_train(u)``.  Within each run the candidates are listed by item code.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numba import njit, prange

from recbias.designs.sampling import AvailableItems, distinct, sample_sorted_subsets
from recbias.designs.spec import DesignSpec, parse_design
from recbias.ratings import Ratings
from recbias.runs import Runs
from recbias.splits import remove_head

__all__ = ["DesignReport", "DesignedRuns", "RunsPlan", "build_runs", "nonrelevant_pool_sizes", "plan_runs"]


@dataclass(frozen=True)
class DesignReport:
    """What a design kept and what it had to leave out.

    Attributes:
        design: canonical design name.
        n_candidates: ``|C|`` after head removal.
        n_runs, n_users: runs built and distinct users among them.
        users_without_relevant: users with test ratings but no relevant one; they have no
            1R run, and no AR run unless ``keep_users_without_relevant`` was set.
        shortage_users, shortage_runs: users and runs left out because fewer than
            ``|N_u|`` non-relevant candidates were available (``on_shortage="exclude"``).
        head_items, head_test_ratings: items and test ratings removed by "-x% head".

    >>> train = Ratings.from_codes([0, 1], [0, 1], [5.0, 3.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0, 0, 1], [1, 2, 3], [5.0, 2.0, 5.0], (2, 4), positive_threshold=4)
    >>> report = build_runs(train, test, "TI-AN").report
    >>> report.design, report.n_candidates, report.n_runs, report.users_without_relevant
    ('TI-AN', 3, 2, 0)
    """

    design: str
    n_candidates: int
    n_runs: int
    n_users: int
    users_without_relevant: int
    shortage_users: int = 0
    shortage_runs: int = 0
    head_items: int = 0
    head_test_ratings: int = 0


@dataclass(frozen=True, eq=False, repr=False)
class DesignedRuns(Runs):
    """:class:`~recbias.runs.Runs` together with the :class:`DesignReport` of their construction.

    >>> train = Ratings.from_codes([0, 1], [0, 1], [5.0, 3.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0, 0, 1], [1, 2, 3], [5.0, 2.0, 5.0], (2, 4), positive_threshold=4)
    >>> runs = build_runs(train, test, "TI-AN")
    >>> runs.design, runs.report.n_users
    ('TI-AN', 2)
    """

    report: DesignReport | None = field(default=None, repr=False)


def _sorted_pairs(ratings: Ratings, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Keys ``user * n_items + item`` in ascending order and the row order that sorts them."""
    keys = ratings.users.astype(np.int64) * ratings.n_items + ratings.items
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    repeated = np.nonzero(keys[1:] == keys[:-1])[0]
    if len(repeated):
        row = order[repeated[0] + 1]
        raise ValueError(
            f"{label} set has {len(repeated)} repeated (user, item) pairs, e.g. user code "
            f"{ratings.users[row]} and item code {ratings.items[row]}; keep one rating per pair"
        )
    return keys, order


@njit(cache=True, nogil=True, parallel=True)
def _merge_runs(
    negative_offsets: np.ndarray, negative_items: np.ndarray, positive_offsets: np.ndarray, positive_items: np.ndarray,
    positive_values: np.ndarray, judged_start: np.ndarray, judged_end: np.ndarray, judged_items: np.ndarray,
    offsets: np.ndarray, items: np.ndarray, labels: np.ndarray, grades: np.ndarray, judged: np.ndarray,
) -> None:
    """Run ``r``: its non-relevant and relevant items (each ascending) merged in ascending order into
    ``offsets[r]:offsets[r + 1]``; a non-relevant item is judged when it is among the user's
    non-relevant test items ``judged_items[judged_start[r]:judged_end[r]]`` (ascending)."""
    for r in prange(offsets.shape[0] - 1):
        i, j, k, o = negative_offsets[r], positive_offsets[r], judged_start[r], offsets[r]
        while i < negative_offsets[r + 1] or j < positive_offsets[r + 1]:
            if j < positive_offsets[r + 1] and (i == negative_offsets[r + 1] or positive_items[j] < negative_items[i]):
                items[o], labels[o], grades[o], judged[o] = positive_items[j], True, positive_values[j], True
                j += 1
            else:
                item = negative_items[i]
                while k < judged_end[r] and judged_items[k] < item:
                    k += 1
                items[o], labels[o], grades[o] = item, False, 0.0
                judged[o] = k < judged_end[r] and judged_items[k] == item
                i += 1
            o += 1


def _merge_entries(
    run_users: np.ndarray,
    negative_offsets: np.ndarray,
    negative_items: np.ndarray,
    positive_run: np.ndarray,
    positive_items: np.ndarray,
    positive_values: np.ndarray,
    judged_users: np.ndarray,
    judged_items: np.ndarray,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Offsets and flat ``items``, ``labels``, ``grades`` and ``judged`` of all runs, items ascending in each run.

    The non-relevant items of run ``r`` are ``negative_items[negative_offsets[r]:negative_offsets[r + 1]]``
    and its relevant ones those with ``positive_run == r`` (both ascending, ``positive_run``
    non-decreasing); ``judged`` marks the non-relevant test ratings ``(judged_users, judged_items)``,
    sorted by user then item, among each run's candidates.
    """
    n_runs = len(run_users)
    positive_offsets = np.concatenate([[0], np.cumsum(np.bincount(positive_run, minlength=n_runs))])
    offsets = negative_offsets + positive_offsets
    judged_start = np.searchsorted(judged_users, run_users, side="left")
    judged_end = np.searchsorted(judged_users, run_users, side="right")
    total = int(offsets[-1])
    entries = {"items": np.empty(total, dtype=np.int32), "labels": np.empty(total, dtype=bool),
               "grades": np.empty(total), "judged": np.empty(total, dtype=bool)}
    _merge_runs(negative_offsets, np.asarray(negative_items, dtype=np.int64), positive_offsets,
                np.asarray(positive_items, dtype=np.int64), np.asarray(positive_values, dtype=np.float64),
                judged_start, judged_end, np.asarray(judged_items, dtype=np.int64), offsets, entries["items"],
                entries["labels"], entries["grades"], entries["judged"])
    return offsets, entries


def _check_uniform(test: Ratings, design: str) -> None:
    counts = test.item_counts()
    counts = counts[counts > 0]
    if len(counts) and counts.min() != counts.max():
        raise ValueError(
            f"design {design} needs a test set with uniform item profiles, but test items have between "
            f"{counts.min()} and {counts.max()} test ratings; build the split with recbias.splits.uniform_split"
        )


def _candidate_pools(
    candidates: np.ndarray, popularity: np.ndarray, percentiles: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Pools of candidates (all of ``C``, or ``m`` popularity percentiles of it), each sorted by code.

    Percentiles: ``C`` sorted by decreasing popularity (ties by code) and cut into ``m``
    consecutive groups of near-equal size, the first ones one item larger when ``m`` does
    not divide ``|C|``; pool 0 holds the most popular items.
    """
    if percentiles is None:
        return np.sort(candidates), np.array([0, len(candidates)])
    if percentiles > len(candidates):
        raise ValueError(f"percentiles={percentiles} exceeds the {len(candidates)} candidate items")
    by_popularity = candidates[np.lexsort((candidates, -popularity[candidates]))]
    sizes = np.full(percentiles, len(candidates) // percentiles)
    sizes[: len(candidates) % percentiles] += 1
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    pool = np.repeat(np.arange(percentiles), sizes)
    order = np.lexsort((by_popularity, pool))
    return by_popularity[order], offsets


@dataclass(frozen=True, eq=False)
class RunsPlan:
    """Everything about the runs of a design except which non-relevant items they hold.

    A plan costs a sort of the split's ratings, not the runs' entries, so it tells the size
    of every run (and the :class:`DesignReport`) of designs far too large to hold at once;
    :meth:`materialise` then draws (NN) or lists (AN) the non-relevant items.

    Attributes:
        spec: the design.
        run_users: user code of each run, non-decreasing.
        run_blocks: each run's block of :class:`~recbias.designs.sampling.AvailableItems`
            (its user, times the pools, plus its P1R pool).
        n_available: non-relevant candidates available to each run.
        positive_run, rel_items, rel_values: the run, item and test rating of each relevant
            item, runs non-decreasing and items ascending within a run.
        n_relevant: ``n_relevant`` of each run (``|PR_test(u)|`` in AR, 1 in 1R).
        groups: the P1R percentile of each run, else -1.
        judged_users, judged_items: the non-relevant test ratings, by user then item.
        available: the candidates minus each block's excluded items.
        shared_negatives: in 1R, one sample per block reused by its runs.
        report: what the design kept and left out.

    User 1 has a single non-relevant candidate (item 2), so her 1R TI-NN(1) run is known before any draw:

    >>> train = Ratings.from_codes([0, 1], [0, 1], [5.0, 3.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0, 0, 1], [1, 2, 3], [5.0, 2.0, 5.0], (2, 4), positive_threshold=4)
    >>> plan = plan_runs(train, test, "1R TI-NN(1)")
    >>> plan.sizes.tolist(), plan.n_entries
    ([2, 2], 4)
    >>> plan.materialise(seed=0).items[2:].tolist()
    [2, 3]
    """

    spec: DesignSpec
    run_users: np.ndarray
    run_blocks: np.ndarray
    n_available: np.ndarray
    positive_run: np.ndarray
    rel_items: np.ndarray
    rel_values: np.ndarray
    n_relevant: np.ndarray
    groups: np.ndarray
    judged_users: np.ndarray
    judged_items: np.ndarray
    available: AvailableItems
    shared_negatives: bool
    report: DesignReport

    @property
    def sizes(self) -> np.ndarray:
        """Candidates ``|T_u|`` of each run: its non-relevant items (all available ones in AN,
        ``k`` in NN(k)) plus its relevant ones."""
        k = self.spec.n_nonrelevant
        negatives = self.n_available if k is None else np.full(len(self.run_users), k, dtype=np.int64)
        return negatives + np.bincount(self.positive_run, minlength=len(self.run_users))

    @property
    def n_entries(self) -> int:
        """Candidate entries of all runs together."""
        return int(self.sizes.sum())

    def materialise(self, seed: int = 0) -> DesignedRuns:
        """The runs themselves; NN samples with ``numpy.random.default_rng(seed)``."""
        k = self.spec.n_nonrelevant
        n_runs = len(self.run_users)
        if k is None:
            negative_offsets, negative_items = self.available.enumerate(self.run_blocks)
        else:
            rng = np.random.default_rng(seed)
            if self.spec.relevant == "1R" and self.shared_negatives:
                blocks, run_to_block = distinct(self.run_blocks)
                ranks = sample_sorted_subsets(self.available.counts(blocks), k, rng)[run_to_block]
            else:
                ranks = sample_sorted_subsets(self.n_available, k, rng)
            negative_items = self.available.items(self.run_blocks[:, None], ranks).ravel()
            negative_offsets = np.arange(n_runs + 1, dtype=np.int64) * k
        offsets, entries = _merge_entries(self.run_users, negative_offsets, negative_items, self.positive_run,
                                          self.rel_items, self.rel_values, self.judged_users, self.judged_items)
        runs = DesignedRuns.from_arrays(offsets=offsets, users=self.run_users, **entries, n_relevant=self.n_relevant,
                                        groups=self.groups, design=self.spec.name)
        return replace(runs, report=self.report)


def plan_runs(
    train: Ratings,
    test: Ratings,
    design: str | DesignSpec,
    *,
    threshold: float | None = None,
    n_nonrelevant: int = 100,
    shared_negatives: bool = False,
    on_shortage: str = "raise",
    keep_users_without_relevant: bool = False,
    users: np.ndarray | None = None,
) -> RunsPlan:
    """The :class:`RunsPlan` of ``design`` on a split; arguments as in :func:`build_runs`.

    >>> train = Ratings.from_codes([0, 1], [0, 1], [5.0, 3.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0, 0, 1], [1, 2, 3], [5.0, 2.0, 5.0], (2, 4), positive_threshold=4)
    >>> plan_runs(train, test, "TI-AN").sizes.tolist()  # the runs of build_runs' example, not built
    [3, 2]
    """
    spec = design if isinstance(design, DesignSpec) else parse_design(design, n_nonrelevant=n_nonrelevant)
    name = spec.name
    if on_shortage not in ("raise", "exclude"):
        raise ValueError(f"on_shortage must be 'raise' or 'exclude', got {on_shortage!r}")
    if train.shape != test.shape:
        raise ValueError(f"train and test code spaces differ: {train.shape} vs {test.shape}")
    threshold = test.positive_threshold if threshold is None else float(threshold)
    n_items = test.n_items
    if spec.uniform:
        _check_uniform(test, name)

    popularity = train.item_counts() + test.item_counts()
    head = np.empty(0, dtype=np.int64)
    n_test_before = test.n_ratings
    if spec.head:
        test, head = remove_head(train, test, spec.head)
    head_test_ratings = n_test_before - test.n_ratings

    # ---------------------------------------------------------------- candidates
    if spec.candidates == "AI":
        candidates = np.arange(n_items, dtype=np.int64)
    else:
        candidates = np.flatnonzero(test.item_counts())
    candidates = np.setdiff1d(candidates, head, assume_unique=True)
    if users is not None:  # runs of these users only; C stays that of the whole test set
        test = test.subset(np.isin(test.users, users))
        train = train.subset(np.isin(train.users, users))

    train_keys, _ = _sorted_pairs(train, "training")
    test_keys, test_order = _sorted_pairs(test, "test")
    found = np.minimum(np.searchsorted(train_keys, test_keys), max(len(train_keys) - 1, 0))
    overlap = test_keys[train_keys[found] == test_keys] if len(train_keys) else test_keys[:0]  # both sorted
    if len(overlap):
        raise ValueError(
            f"{len(overlap)} (user, item) pairs are in both training and test, e.g. user code "
            f"{overlap[0] // n_items} and item code {overlap[0] % n_items}"
        )
    pool_items, pool_offsets = _candidate_pools(candidates, popularity, spec.percentiles)
    n_pools = len(pool_offsets) - 1

    # -------------------------------------------------------------- relevant items
    test_users = test.users[test_order].astype(np.int64)
    test_items = test.items[test_order].astype(np.int64)
    test_values = test.values[test_order]
    relevant = test_values >= threshold
    rel_users, rel_items, rel_values = test_users[relevant], test_items[relevant], test_values[relevant]
    n_relevant_of = np.bincount(rel_users, minlength=test.n_users)
    users_in_test = np.flatnonzero(test.user_counts())
    users_without_relevant = int(np.count_nonzero(n_relevant_of[users_in_test] == 0))

    available = AvailableItems.build(
        pool_items,
        pool_offsets,
        n_items,
        users=np.concatenate([train.users, rel_users]),
        items=np.concatenate([train.items, rel_items]),
    )
    pool_of_item = np.full(n_items, -1, dtype=np.int64)
    pool_of_item[pool_items] = np.repeat(np.arange(n_pools), np.diff(pool_offsets))

    # ----------------------------------------------------------------------- runs
    if spec.relevant == "AR":
        run_users = users_in_test if keep_users_without_relevant else np.nonzero(n_relevant_of)[0]
        run_blocks = run_users.astype(np.int64)
        positive_run = np.searchsorted(run_users, rel_users)
        groups = np.full(len(run_users), -1, dtype=np.int64)
    else:
        run_users = rel_users
        run_blocks = rel_users * n_pools + pool_of_item[rel_items]
        positive_run = np.arange(len(rel_users))
        groups = pool_of_item[rel_items] if spec.percentiles is not None else np.full(len(rel_users), -1)
    n_available = available.counts(run_blocks)

    shortage_users = shortage_runs = 0
    k = spec.n_nonrelevant
    if k is not None and np.any(n_available < k):
        short = n_available < k
        if on_shortage == "raise":
            worst = int(np.argmin(n_available))
            raise ValueError(
                f"design {name}: n_nonrelevant={k} but {int(short.sum())} runs have fewer non-relevant "
                f"candidates (user code {run_users[worst]} has only {int(n_available[worst])}); lower "
                f"n_nonrelevant, use AN, or pass on_shortage='exclude'"
            )
        shortage_runs = int(short.sum())
        shortage_users = int(np.count_nonzero(np.bincount(run_users[short])))
        keep = ~short
        renumber = np.cumsum(keep) - 1
        positive_keep = keep[positive_run]
        positive_run = renumber[positive_run[positive_keep]]
        rel_items, rel_values = rel_items[positive_keep], rel_values[positive_keep]
        run_users, run_blocks, groups, n_available = run_users[keep], run_blocks[keep], groups[keep], n_available[keep]

    n_runs = len(run_users)
    report = DesignReport(
        design=name,
        n_candidates=len(candidates),
        n_runs=n_runs,
        n_users=int(np.count_nonzero(np.bincount(run_users))) if n_runs else 0,
        users_without_relevant=users_without_relevant,
        shortage_users=shortage_users,
        shortage_runs=shortage_runs,
        head_items=len(head),
        head_test_ratings=head_test_ratings,
    )
    return RunsPlan(
        spec=spec,
        run_users=run_users,
        run_blocks=run_blocks,
        n_available=n_available,
        positive_run=positive_run,
        rel_items=rel_items,
        rel_values=rel_values,
        n_relevant=n_relevant_of[run_users] if spec.relevant == "AR" else np.ones(n_runs, dtype=np.int64),
        groups=groups,
        judged_users=test_users[~relevant & spec.nonrelevance_judged],
        judged_items=test_items[~relevant & spec.nonrelevance_judged],
        available=available,
        shared_negatives=shared_negatives,
        report=report,
    )


def build_runs(
    train: Ratings,
    test: Ratings,
    design: str | DesignSpec,
    *,
    seed: int = 0,
    threshold: float | None = None,
    n_nonrelevant: int = 100,
    shared_negatives: bool = False,
    on_shortage: str = "raise",
    keep_users_without_relevant: bool = False,
    users: np.ndarray | None = None,
    max_entries: int = 300_000_000,
) -> DesignedRuns:
    """Target sets of ``design`` for every user of the split, as compact runs.

    Definitions (IRJ 2017 Table 3): ``C = I`` (AI) or ``C = U_u R_test(u)`` (TI);
    AN: ``N_u = C \\ PR_test(u) \\ R_train(u)``; NN(k): ``N_u`` a uniform random ``k``-subset of
    that set; AR: ``T_u = PR_test(u) U N_u``, one run per user with at least one relevant test
    item; 1R: ``T_u^r = {i_r} U N_u^r``, one run per relevant test rating ``(u, i_r)``.
    P1R(m): 1R with ``N_u^r`` drawn from the popularity percentile of ``i_r`` (Sec. 6.1),
    recorded in ``groups``; popularity is ``r(i)``, training plus test ratings, and the
    percentiles cut ``C`` into ``m`` groups of near-equal size, 0 the most popular.
    U1R/UAR: 1R/AR on a uniform split, where TI means ``C = T`` (Sec. 6.2).
    "-x% head": the head items leave the test set and ``C`` (Sec. 6.3).
    "-NR": the same target sets with no non-relevance judgment (the papers' 1R, Sec. 7).

    Args:
        design: a name (see :data:`recbias.designs.GRAMMAR`) or a :class:`DesignSpec`.
        seed: seeds the NN sampling.
        threshold: relevance threshold on test ratings; defaults to ``test.positive_threshold``.
        n_nonrelevant: NN size for names that do not give one ("1R", "P1R(10)", "U1R").
        shared_negatives: in 1R, draw ``N_u`` once per user (per user and percentile in P1R)
            and reuse it in all the user's runs, the assumption of the AR/1R lemma (Eq. 2);
            by default each run gets a fresh sample.
        on_shortage: when a run has fewer than ``|N_u|`` non-relevant candidates, ``"raise"``
            or ``"exclude"`` the run (its user in AR), counted in the report.
        keep_users_without_relevant: in AR, also build runs for users whose test ratings are
            all below the threshold (runs without relevant items).
        users: build the runs of these user codes only; the candidates ``C`` (and the popularity
            of P1R) still come from the whole split, so the runs are those of the full design
            (in AN, exactly the whole design's runs of these users; NN samples depend on the
            runs drawn together).
        max_entries: refuse designs whose runs would hold more candidate entries than this.

    Returns:
        :class:`DesignedRuns`: ``labels`` mark relevant items, ``grades`` hold their test
        rating (0 elsewhere), ``judged`` marks candidates with a test rating by the user
        (under "-NR" the relevant ones only),
        ``n_relevant`` is ``|PR_test(u)|`` in AR and 1 in 1R (a 1R run holds exactly one
        relevant item, so its recall is a hit and its AP the reciprocal rank, IRJ Sec. 6.4),
        ``groups`` the P1R percentile (else -1).

    User 0 rated item 0 in training and items 1 (5 stars) and 2 (2 stars) in test; user 1 rated item
    1 in training and item 3 (5 stars) in test.  TI: ``C = {1, 2, 3}``; AN: user 0 ranks her relevant
    item 1 with items 2 and 3, user 1 her item 3 with item 2 (item 1 she rated in training):

    >>> train = Ratings.from_codes([0, 1], [0, 1], [5.0, 3.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0, 0, 1], [1, 2, 3], [5.0, 2.0, 5.0], (2, 4), positive_threshold=4)
    >>> runs = build_runs(train, test, "TI-AN")
    >>> runs.offsets.tolist(), runs.items.tolist(), runs.labels.tolist()
    ([0, 3, 5], [1, 2, 3, 2, 3], [True, False, False, False, True])
    >>> runs.judged.tolist()  # user 0's 2-star rating of item 2 judges it non-relevant
    [True, True, False, False, True]
    """
    plan = plan_runs(train, test, design, threshold=threshold, n_nonrelevant=n_nonrelevant,
                     shared_negatives=shared_negatives, on_shortage=on_shortage,
                     keep_users_without_relevant=keep_users_without_relevant, users=users)
    total = plan.n_entries
    if total > max_entries:
        raise ValueError(
            f"design {plan.spec.name} would hold {total:,} candidate entries, above max_entries={max_entries:,}; "
            f"use NN with a smaller n_nonrelevant or raise max_entries"
        )
    return plan.materialise(seed)


def nonrelevant_pool_sizes(
    train: Ratings, test: Ratings, candidates: str = "TI", *, threshold: float | None = None
) -> np.ndarray:
    """``|C \\ PR_test(u) \\ R_train(u)|`` per user code: the non-relevant items an NN design can draw.

    ``C`` is every item (``"AI"``) or every item with a test rating (``"TI"``).  A user's
    1R TI-NN(k) runs exist when this count is at least ``k`` (Table 3 of IRJ 2017).

    >>> train = Ratings.from_codes([0, 1], [0, 1], [5.0, 3.0], (2, 4), positive_threshold=4)
    >>> test = Ratings.from_codes([0, 0, 1], [1, 2, 3], [5.0, 2.0, 5.0], (2, 4), positive_threshold=4)
    >>> nonrelevant_pool_sizes(train, test, "TI").tolist(), nonrelevant_pool_sizes(train, test, "AI").tolist()
    ([2, 1], [2, 2])
    """
    if candidates not in ("AI", "TI"):
        raise ValueError(f"candidates must be 'AI' or 'TI', got {candidates!r}")
    if train.shape != test.shape:
        raise ValueError(f"train and test code spaces differ: {train.shape} vs {test.shape}")
    threshold = test.positive_threshold if threshold is None else float(threshold)
    in_pool = np.ones(test.n_items, dtype=bool) if candidates == "AI" else test.item_counts() > 0
    relevant = test.values >= threshold
    taken = np.bincount(train.users, weights=in_pool[train.items], minlength=train.n_users)
    taken += np.bincount(test.users[relevant], minlength=test.n_users)
    return (int(in_pool.sum()) - taken).astype(np.int64)

"""recbias.theory against hand-worked values, simulation of random rankings and a loop oracle."""

from __future__ import annotations

import numpy as np
import pytest

from recbias.designs import build_runs
from recbias.ratings import Ratings
from recbias.runs import Runs
from worlds import skewed_split
from recbias.theory import (
    expected_popularity_precision_1r,
    expected_precision_nonpersonalised,
    expected_random_precision_1r,
    expected_random_precision_ar,
    lemma_bounds,
    nonpersonalised_bounds_1r,
    random_precision_sd,
    relevance_density,
    relevance_ratio,
    relevance_ratios,
    relevant_training_shift,
    target_size,
)


def world(seed: int = 0, n_users: int = 80, n_items: int = 120, density: float = 0.12) -> tuple[Ratings, Ratings]:
    """A random split of random ratings with skewed popularity; positive means >= 4 stars."""
    return skewed_split(seed, n_users, n_items, density, exponent=0.8, test_ratio=0.25)


def precision_at(runs: Runs, scores: np.ndarray, n: int) -> np.ndarray:
    """P@n of every run: relevant items among the n highest scores, divided by n."""
    run = runs.run_of_entry
    order = np.lexsort((-scores, run))
    position = np.arange(len(order)) - runs.offsets[run[order]]
    hits = np.bincount(run[order], weights=runs.labels[order] & (position < n), minlength=runs.n_runs)
    return hits / n


# ------------------------------------------------------------------- hand-worked


def hand_runs() -> Runs:
    # run 0: 2 candidates, 1 relevant; run 1: 4 candidates, 1 relevant
    return Runs.from_arrays(
        offsets=[0, 2, 6], users=[0, 1], items=[0, 1, 0, 1, 2, 3], labels=[1, 0, 0, 0, 1, 0]
    )


def test_hand_worked_quantities() -> None:
    runs = hand_runs()
    np.testing.assert_allclose(relevance_ratios(runs), [1 / 2, 1 / 4])
    assert target_size(runs) == pytest.approx(8 / 3)  # 1 / mean(1/2, 1/4)
    assert relevance_ratio(runs) == pytest.approx(3 / 8)  # mean(1/2, 1/4)
    assert relevance_density(100, 8 / 3, 10) == pytest.approx(3.75)
    assert expected_random_precision_ar(0.2, 100, 8 / 3, 10) == pytest.approx(0.75)
    assert expected_random_precision_1r(8 / 3) == pytest.approx(3 / 8)


def test_eq4_equals_rho_for_equal_target_sizes() -> None:
    # With |T_u| = t for all users, avg_u |PR_test(u)| / t = |PR_test| / (t |U|): Eq. 4 with sigma |PR| = |PR_test|.
    runs = Runs.from_arrays(offsets=[0, 5, 10, 15], users=[0, 1, 2], items=np.tile(np.arange(5), 3), labels=[1, 1, 0, 0, 0] + [1, 0, 0, 0, 0] + [1, 1, 1, 0, 0])
    assert relevance_ratio(runs) == pytest.approx(expected_random_precision_ar(1.0, 6, target_size(runs), 3))


def test_eq3_hand_worked_and_reduction_to_eq4() -> None:
    # sigma |C| / (n t |U|) * sum_k avg_u |PR(i_k)| = 0.5 * 10 / (2 * 5 * 4) * (3 + 1)
    counts = np.array([[4, 2], [2, 0]])
    assert expected_precision_nonpersonalised(0.5, 10, 5, 4, counts) == pytest.approx(0.5)
    assert expected_precision_nonpersonalised(0.5, 10, 5, 4, counts.mean(axis=0)) == pytest.approx(0.5)
    # A random ranking over C = I sees |PR| / |I| positives per position on average: Eq. 3 gives Eq. 4.
    n_items, n_positive, t, n_users = 200, 3000, 150.0, 90
    flat = np.full(10, n_positive / n_items)
    assert expected_precision_nonpersonalised(0.2, n_items, t, n_users, flat) == pytest.approx(
        expected_random_precision_ar(0.2, n_positive, t, n_users)
    )


def test_bad_parameters_raise() -> None:
    with pytest.raises(ValueError, match="test_ratio"):
        expected_random_precision_ar(0, 10, 5, 3)
    with pytest.raises(ValueError, match="t must be positive"):
        expected_random_precision_1r(0)
    with pytest.raises(ValueError, match="n_users"):
        relevance_density(10, 5, 0)
    with pytest.raises(ValueError, match="positive_counts"):
        expected_precision_nonpersonalised(0.2, 10, 5, 3, np.empty(0))
    empty = Runs.from_arrays(offsets=[0], users=[], items=[], labels=[])
    with pytest.raises(ValueError, match="at least one run"):
        target_size(empty)


# -------------------------------------------------------------------- simulation


@pytest.mark.parametrize(("design", "n"), [("TI-AN", 5), ("AI-NN(30)", 10), ("1R TI-NN(40)", 10), ("P1R(2) TI-NN(20)", 5)])
def test_random_recommender_matches_expected_precision(design: str, n: int) -> None:
    train, test = world(seed=1)
    runs = build_runs(train, test, design, seed=0)
    assert runs.sizes.min() >= n
    expected = relevance_ratio(runs)
    if design.startswith(("1R", "P1R")):
        assert expected == pytest.approx(expected_random_precision_1r(target_size(runs)))
    rng = np.random.default_rng(123)
    replicates = np.array([precision_at(runs, rng.random(len(runs.items)), n).mean() for _ in range(300)])
    z = (replicates.mean() - expected) / (replicates.std(ddof=1) / np.sqrt(len(replicates)))
    assert abs(z) < 4, (design, replicates.mean(), expected)


def test_simulation_detects_a_wrong_expectation() -> None:
    # The same z-test rejects 1 / (t - 1) in place of 1 / t: the simulation has the power to tell.
    train, test = world(seed=1)
    runs = build_runs(train, test, "1R TI-NN(40)", seed=0)
    rng = np.random.default_rng(7)
    replicates = np.array([precision_at(runs, rng.random(len(runs.items)), 10).mean() for _ in range(300)])
    wrong = 1 / (target_size(runs) - 1)
    assert abs(replicates.mean() - wrong) / (replicates.std(ddof=1) / np.sqrt(len(replicates))) > 4


# ------------------------------------------------------------------------- lemma


def lemma_oracle(runs: Runs, scores: np.ndarray, n: int) -> tuple[float, float, float]:
    """Loop transcription of Eq. 1 and Eq. 2 with T_u the union of the user's 1R target sets."""
    score_of = {}
    sets: dict[int, set] = {}
    relevant: dict[int, list] = {}
    hits_1r = 0
    for r in range(runs.n_runs):
        part = range(runs.offsets[r], runs.offsets[r + 1])
        u = int(runs.users[r])
        for e in part:
            score_of[u, int(runs.items[e])] = scores[e]
        ranked = sorted(part, key=lambda e: (-scores[e], runs.items[e]))
        hits_1r += sum(runs.labels[e] for e in ranked[:n])
        sets.setdefault(u, set()).update(int(runs.items[e]) for e in part)
        relevant.setdefault(u, []).extend(int(runs.items[e]) for e in part if runs.labels[e])
    pr_test = sum(len(v) for v in relevant.values())
    lower_hits = upper_hits = 0
    for u, items in sets.items():
        ranked = sorted(items, key=lambda i: (-score_of[u, i], i))
        m_u = n + len(relevant[u]) - 1
        lower_hits += sum(i in relevant[u] for i in ranked[:n])
        upper_hits += sum(i in relevant[u] for i in ranked[:m_u])
    return lower_hits / (n * pr_test), hits_1r / (n * pr_test), upper_hits / (n * pr_test)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n", [1, 5, 10])
def test_lemma_bounds_hold_and_match_oracle(seed: int, n: int) -> None:
    train, test = world(seed=seed, n_users=40, n_items=80, density=0.2)
    runs = build_runs(train, test, "1R TI-NN(15)", seed=seed, shared_negatives=True)
    rng = np.random.default_rng(1000 + seed)  # independent of the draws that built the world
    popularity = train.item_counts()
    # A user-consistent scorer mixing popularity and taste; integer scores make ties common.
    matrix = np.round(popularity[None, :] / 4 + 3 * rng.random((train.n_users, train.n_items)))
    scores = matrix[runs.users[runs.run_of_entry], runs.items]
    bounds = lemma_bounds(runs, scores, n)
    assert bounds.lower <= bounds.value <= bounds.upper
    assert (bounds.lower, bounds.value, bounds.upper) == pytest.approx(lemma_oracle(runs, scores, n), abs=1e-12)
    assert bounds.value == pytest.approx(precision_at_ties_by_item(runs, scores, n))


def precision_at_ties_by_item(runs: Runs, scores: np.ndarray, n: int) -> float:
    """1RP@n (Eq. 1): mean over runs of P@n, ties broken by item code."""
    run = runs.run_of_entry
    order = np.lexsort((runs.items, -scores, run))
    position = np.arange(len(order)) - runs.offsets[run[order]]
    return float(np.sum(runs.labels[order] & (position < n)) / (n * runs.n_runs))


def test_lemma_requires_shared_negatives_and_1r_runs() -> None:
    train, test = world(seed=3, n_users=40, n_items=80, density=0.2)
    fresh = build_runs(train, test, "1R TI-NN(15)", seed=0)
    with pytest.raises(ValueError, match="shared_negatives"):
        lemma_bounds(fresh, np.zeros(len(fresh.items)), 5)
    ar = build_runs(train, test, "TI-NN(15)", seed=0)
    with pytest.raises(ValueError, match="1R runs"):
        lemma_bounds(ar, np.zeros(len(ar.items)), 5)
    shared = build_runs(train, test, "1R TI-NN(15)", seed=0, shared_negatives=True)
    with pytest.raises(ValueError, match="cut-off"):
        lemma_bounds(shared, np.zeros(len(shared.items)), 0)
    with pytest.raises(ValueError, match="scores has"):
        lemma_bounds(shared, np.zeros(3), 5)


# -------------------------------------------------------------- simulation error


def test_random_precision_sd_hand_worked() -> None:
    # run 0: |T| = 2, one relevant, n = 1: Var(P) = 1/2 * 1/2 * (2 - 1) / (1 * 1) = 1/4
    # run 1: |T| = 4, one relevant, n = 1: Var(P) = 1/4 * 3/4 * 3 / 3 = 3/16; mean of two runs: sqrt(7/16) / 2
    assert random_precision_sd(hand_runs(), 1) == pytest.approx(np.sqrt(1 / 4 + 3 / 16) / 2)
    # n = |T| leaves nothing random: every order has precision rho
    full = Runs.from_arrays(offsets=[0, 3], users=[0], items=[0, 1, 2], labels=[1, 1, 0])
    assert random_precision_sd(full, 3) == 0
    with pytest.raises(ValueError, match="at least n"):
        random_precision_sd(hand_runs(), 3)
    with pytest.raises(ValueError, match="cut-off"):
        random_precision_sd(hand_runs(), 0)


@pytest.mark.parametrize(("design", "n"), [("TI-AN", 10), ("1R TI-NN(30)", 5), ("AI-NN(20)", 3)])
def test_random_precision_sd_matches_simulation(design: str, n: int) -> None:
    train, test = world(seed=2)
    runs = build_runs(train, test, design, seed=0)
    rng = np.random.default_rng(99)
    means = np.array([precision_at(runs, rng.random(len(runs.items)), n).mean() for _ in range(4000)])
    predicted = random_precision_sd(runs, n)
    # the standard deviation of 4,000 draws has a relative error of about 1.1%: 5% is more than four of those
    assert means.std(ddof=1) == pytest.approx(predicted, rel=0.05)
    assert means.mean() == pytest.approx(relevance_ratio(runs), abs=4 * predicted / np.sqrt(len(means)))


# --------------------------------------------------------------- popularity (Sec. 5)


def test_relevant_training_shift_by_hand_and_by_simulation() -> None:
    # uniform counts (V = 0): one rating fewer, times the share kept in training
    assert relevant_training_shift(270.0, 0.0, 0.2) == pytest.approx(-0.8)
    assert relevant_training_shift(50.0, 50.0, 0.3) == pytest.approx(0.0)  # Poisson-like counts: no shift
    # simulation: items with counts R, ratings split with sigma, runs drawn per test rating
    rng = np.random.default_rng(0)
    counts = rng.integers(20, 80, size=4000)
    test = rng.binomial(counts, 0.25)
    train = counts - test
    per_run = np.repeat(train, test)  # the training count of the item of every held-out rating
    shift = per_run.mean() - train.mean()
    expected = relevant_training_shift(counts.mean(), counts.var(), 0.25)
    assert shift == pytest.approx(expected, abs=4 * per_run.std() / np.sqrt(len(per_run)))
    with pytest.raises(ValueError, match="count_variance"):
        relevant_training_shift(10.0, -1.0, 0.2)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_expected_popularity_precision_matches_simulated_splits(alpha: float) -> None:
    """The closed form against 30 coin-flip splits of a preference-free world (random ties)."""
    from recbias.evaluate.experiment import run_experiment
    from recbias.recommenders import Popularity
    from recbias.synthetic import PREFERENCE_FREE, generate

    ratings = generate(preset="synthetic-small", alpha=alpha, exact_counts="items", seed=1, **PREFERENCE_FREE)
    expected = expected_popularity_precision_1r(ratings, 0.2, 50, 10)
    experiment = run_experiment(ratings, ["1R TI-NN(49)"], {"Popularity": Popularity()}, folds=30,
                                metrics=["P@10"], cache=False)
    per_split = experiment.runs.groupby("fold")["P@10"].mean()
    assert expected == pytest.approx(per_split.mean(), abs=3 * per_split.std() / np.sqrt(len(per_split)))
    if alpha == 0.0:
        assert per_split.mean() < 1 / 50 and expected < 1 / 50  # below random under uniform popularity


def test_expected_popularity_precision_edge_cases() -> None:
    train, test = world(3)
    ratings = Ratings.from_codes(np.concatenate([train.users, test.users]), np.concatenate([train.items, test.items]),
                                 np.concatenate([train.values, test.values]), train.shape, positive_threshold=4)
    # a list as long as the target set holds every candidate: P@n = 1 / n
    assert expected_popularity_precision_1r(ratings, 0.25, 20, 20) == pytest.approx(1 / 20)
    with pytest.raises(ValueError, match="target_size"):
        expected_popularity_precision_1r(ratings, 0.25, 5, 10)
    with pytest.raises(ValueError, match="candidates"):
        expected_popularity_precision_1r(ratings, 0.25, 50, 10, candidates="XI")


def test_nonpersonalised_bounds_for_equal_counts_are_those_of_random() -> None:
    # |PR(i)| the same for every item: the lemma's sides for a random order, whose expected
    # hits in the top m of T_u are m |PR_test(u)| / |T_u|: weighted means of 1/|T_u| and m_u/(n |T_u|)
    sizes, relevant, n = np.array([100, 104, 120]), np.array([1, 5, 21]), 10
    lower, upper = nonpersonalised_bounds_1r(np.full(500, 3.0), n, sizes, relevant)
    assert lower == pytest.approx(np.average(1 / sizes, weights=relevant))
    assert upper == pytest.approx(np.average((n + relevant - 1) / (n * sizes), weights=relevant))
    # equal target sizes: the paper's formula, |C| / (n t |PR|) sum_k avg_u |PR(i_k)|
    counts = np.sort(np.random.default_rng(1).integers(1, 50, 300))[::-1].astype(float)
    lower, _ = nonpersonalised_bounds_1r(counts, n, np.array([100, 100]), np.array([3, 7]))
    equal, _ = nonpersonalised_bounds_1r(counts, n, np.array([100]), np.array([1]))
    assert lower == pytest.approx(equal)


def test_nonpersonalised_bounds_order_statistics_match_random_subsets() -> None:
    """The hypergeometric sums against the top-m sums of random subsets, for one user."""
    rng = np.random.default_rng(2)
    counts = np.sort(rng.pareto(1.5, 60))[::-1] + 0.1
    size, relevant, n = 12, 4, 3
    lower, upper = nonpersonalised_bounds_1r(counts, n, np.array([size]), np.array([relevant]))
    subsets = np.sort(np.argsort(rng.random((40_000, len(counts))), axis=1)[:, :size], axis=1)
    top = np.cumsum(counts[subsets], axis=1)
    scale = len(counts) / (n * counts.sum() * size)  # one user: weight 1
    assert lower == pytest.approx(scale * top[:, n - 1].mean(), rel=0.01)
    assert upper == pytest.approx(scale * top[:, n + relevant - 2].mean(), rel=0.01)
    with pytest.raises(ValueError, match="PR_test"):
        nonpersonalised_bounds_1r(counts, n, np.array([size]), np.array([0]))


def test_nonpersonalised_bounds_hold_on_simulated_data() -> None:
    """A fixed order that does not depend on the split (the world's expected item counts):
    its 1R precision, averaged over splits, lies within the closed-form bounds."""
    from recbias.splits import make_folds
    from recbias.recommenders.base import Recommender
    from recbias.synthetic import simulate

    class FixedOrder(Recommender):
        def __init__(self, scores: np.ndarray, seed: int = 0) -> None:
            super().__init__(seed)
            self.scores = scores

        def _fit(self, train: Ratings) -> None:
            pass

        def score_users(self, users: np.ndarray) -> np.ndarray:
            return np.tile(self.scores, (len(users), 1))

    world = simulate(seed=4, preset="synthetic-small", alpha=1.0)
    ratings, system = world.ratings, FixedOrder(world.expected_item_ratings.astype(float))
    positives = ratings.item_counts(positive_only=True).astype(float)
    measured, lowers, uppers = [], [], []
    for fold in make_folds(ratings, folds=8, seed=1):
        runs = build_runs(fold.train, fold.test, "1R TI-NN(49)", seed=fold.seed, shared_negatives=True,
                          on_shortage="exclude")
        scores = system.fit(fold.train).score(runs.users[runs.run_of_entry], runs.items)
        measured.append(precision_at(runs, scores, 10).mean())
        candidates = np.flatnonzero(fold.test.item_counts())
        ordered = candidates[np.lexsort((candidates, -system.scores[candidates]))]
        _, relevant = np.unique(runs.users, return_counts=True)
        lower, upper = nonpersonalised_bounds_1r(positives[ordered], 10, relevant + 49, relevant)
        lowers.append(lower)
        uppers.append(upper)
    assert np.mean(lowers) <= np.mean(measured) <= np.mean(uppers)


def test_nonpersonalised_bounds_take_one_order_per_row() -> None:
    rng = np.random.default_rng(3)
    orders = rng.integers(1, 30, size=(3, 200)).astype(float)
    sizes, relevant = np.array([60, 62, 70]), np.array([1, 3, 11])
    lower, upper = nonpersonalised_bounds_1r(orders, 10, sizes, relevant)
    for k, row in enumerate(orders):
        assert (lower[k], upper[k]) == pytest.approx(nonpersonalised_bounds_1r(row, 10, sizes, relevant))

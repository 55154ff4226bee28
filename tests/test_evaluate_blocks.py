"""Evaluation in user blocks: the same numbers as one block holding every user, in bounded memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.designs import build_runs, plan_runs
from recbias.evaluate import experiment as runner
from recbias.evaluate import memory, rank_positions
from recbias.evaluate.blocks import RunsLayout, user_blocks
from recbias.evaluate.ranking import tie_draws
from recbias.ratings import Ratings
from recbias.recommenders import Recommender
from recbias.runs import Runs
from recbias.splits import make_folds


@pytest.fixture(scope="module")
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=4)


@pytest.fixture(scope="module")
def fold(small: Ratings):
    return make_folds(small, folds=1, seed=1)[0]


# ------------------------------------------------------------------------- pieces


def test_blocks_cut_at_score_chunks_by_entries_hand_example() -> None:
    # two designs; users 2, 3, 5, 7, 8 have runs; 10 items and score blocks of 20 entries: chunks of 2 users
    first = RunsLayout(np.array([2, 3, 3, 5, 8]), np.array([4, 1, 1, 6, 2]))
    second = RunsLayout(np.array([3, 7, 8]), np.array([5, 5, 5]))
    # entries per user: 2 -> 4, 3 -> 2 + 5, 5 -> 6, 7 -> 5, 8 -> 2 + 5; chunks {2, 3} 11, {5, 7} 11, {8} 7
    blocks = user_blocks([first, second], n_items=10, block_entries=12, score_block=20)
    # chunk starts at 0, 11, 22 entries -> blocks 0, 0, 1
    assert [b.users.tolist() for b in blocks] == [[2, 3, 5, 7], [8]]
    assert [b.runs for b in blocks] == [((0, 4), (0, 2)), ((4, 5), (2, 3))]
    assert [b.first_entries for b in blocks] == [(0, 0), (12, 10)]
    assert len(user_blocks([first, second], n_items=10, block_entries=10**9, score_block=20)) == 1
    # a runs object not listed user after user keeps every user in one block
    unsorted = RunsLayout(np.array([8, 2]), np.array([1, 1]))
    (only,) = user_blocks([first, unsorted], n_items=10, block_entries=1, score_block=20)
    assert only.runs == ((0, 5), (0, 2)) and only.users.tolist() == [2, 3, 5, 8]
    with pytest.raises(ValueError, match="block_entries"):
        user_blocks([first], n_items=10, block_entries=0)


def test_a_block_of_runs_is_the_contiguous_subset(fold) -> None:
    runs = build_runs(fold.train, fold.test, "1R TI-NN(30)", seed=2, on_shortage="exclude")
    keep = np.zeros(runs.n_runs, dtype=bool)
    keep[17:60] = True
    piece, subset = runs.block(17, 60), runs.subset(keep)
    for name in ("offsets", "users", "items", "labels", "grades", "judged", "n_relevant", "groups"):
        np.testing.assert_array_equal(getattr(piece, name), getattr(subset, name))
    with pytest.raises(ValueError, match="outside"):
        runs.block(5, runs.n_runs + 1)


def test_tie_draws_continue_the_stream_of_the_whole_object() -> None:
    whole = np.random.default_rng(11).random(500)
    for first, count in ((0, 500), (1, 10), (233, 267), (499, 1)):
        np.testing.assert_array_equal(tie_draws(11, first, count), whole[first : first + count])


def test_positions_of_a_block_are_those_of_the_whole_runs() -> None:
    # ten runs of eight candidates, scores with many ties so the random tie-break decides
    rng = np.random.default_rng(0)
    sizes = np.full(10, 8)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = rng.random(80) < 0.4
    runs = Runs.from_arrays(offsets, np.arange(10), np.tile(np.arange(8), 10), labels)
    scores = rng.integers(0, 3, 80).astype(float)
    whole = rank_positions(runs, scores, seed=9)
    start, stop = 3, 7
    piece = runs.block(start, stop)
    low, high = offsets[start], offsets[stop]
    part = rank_positions(piece, scores[low:high], seed=9, first_entry=int(low))
    inside = (whole.marked >= low) & (whole.marked < high)
    np.testing.assert_array_equal(part.marked + low, whole.marked[inside])
    np.testing.assert_array_equal(part.positions, whole.positions[inside])
    # without the offset the block would draw the whole object's first keys: other positions
    assert not np.array_equal(rank_positions(piece, scores[low:high], seed=9).positions, whole.positions[inside])


def test_plan_sizes_and_the_an_runs_of_some_users_are_those_of_the_whole_design(fold) -> None:
    for design in ("AI-AN", "TI-AN", "1R TI-NN(40)"):
        plan = plan_runs(fold.train, fold.test, design, on_shortage="exclude")
        whole = plan.materialise(seed=3)
        np.testing.assert_array_equal(plan.sizes, whole.sizes)
        assert plan.report == whole.report and plan.n_entries == len(whole.items)
    whole = build_runs(fold.train, fold.test, "TI-AN")
    users = np.unique(whole.users)
    block_users = users[20:55]
    first, stop = np.searchsorted(whole.users, [block_users[0], block_users[-1] + 1])
    piece = build_runs(fold.train, fold.test, "TI-AN", users=block_users)
    expected = whole.block(int(first), int(stop))
    for name in ("offsets", "users", "items", "labels", "grades", "judged", "n_relevant", "groups"):
        np.testing.assert_array_equal(getattr(piece, name), getattr(expected, name))


# ------------------------------------------------------------------- experiments

SYSTEMS = {"Popularity": "popularity", "MF": "mf", "user-kNN": "user-knn", "Random": "random"}
DESIGNS = ["AI-AN", "TI-AN", "1R TI-NN(49)", "TI-NN(30)"]
METRICS = ["P@10", "nDCG@10", "MAP", "bpref"]


def run_small(small: Ratings, **options) -> runner.Experiment:
    return runner.run_experiment(small, DESIGNS, SYSTEMS, folds=2, metrics=METRICS, seed=6, cache=False,
                                 score_block=3000, **options)


def test_blocked_experiment_equals_one_block_of_every_user(small: Ratings) -> None:
    one = run_small(small, block_entries=10**12)
    blocked = run_small(small, block_entries=5000)
    assert one.blocks == 2 and blocked.blocks > 10  # one block per fold, against many
    pd.testing.assert_frame_equal(blocked.runs, one.runs, check_exact=True)
    pd.testing.assert_frame_equal(blocked.reports, one.reports, check_exact=True)
    # the sampled and the all-items designs, every system and metric are in the comparison
    assert set(one.runs["design"]) == set(DESIGNS) and set(one.runs["system"]) == set(SYSTEMS)
    assert one.runs[METRICS].notna().all().all()


def test_evaluate_fold_in_blocks_equals_one_block(small: Ratings, fold) -> None:
    fitted = runner.fit_systems({"Popularity": "popularity", "Random": "random"}, fold.train, cache=False)
    runs = {"TI-AN": build_runs(fold.train, fold.test, "TI-AN"),
            "1R": build_runs(fold.train, fold.test, "1R TI-NN(20)", seed=1, on_shortage="exclude")}
    one = runner.evaluate_fold(fold, fitted, runs, ["P@5", "MRR"], seed=2, score_block=3000)
    blocked = runner.evaluate_fold(fold, fitted, runs, ["P@5", "MRR"], seed=2, score_block=3000, block_entries=2000)
    pd.testing.assert_frame_equal(blocked, one, check_exact=True)


class FailsIfFitted(Recommender):
    """A system whose fit must never start."""

    def _fit(self, train: Ratings) -> None:
        raise AssertionError("the experiment started fitting before checking its memory")

    def score_users(self, users: np.ndarray) -> np.ndarray:  # pragma: no cover - never fitted
        raise AssertionError


def test_an_experiment_that_cannot_fit_stops_before_fitting(small: Ratings, monkeypatch) -> None:
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 20)  # 1 MiB free
    with pytest.raises(memory.InsufficientMemoryError, match=r"GiB at its peak .* 0\.0 GiB available"):
        runner.run_experiment(small, ["TI-AN"], {"x": FailsIfFitted()}, folds=1, cache=False)
    # with the check off, the fit starts (and fails, as this system does)
    with pytest.raises(AssertionError, match="before checking its memory"):
        runner.run_experiment(small, ["TI-AN"], {"x": FailsIfFitted()}, folds=1, cache=False, check_memory=False)


def test_memory_estimate_follows_the_block_and_the_sampled_designs() -> None:
    from recbias.designs import parse_design
    from recbias.recommenders import make

    systems = {"MF": make("mf"), "user-kNN": make("user-knn")}
    base = dict(shape=(138_000, 27_000), n_ratings=20_000_000, n_test=4_000_000, relevant_test=900_000,
                users_with_relevant=120_000, systems=systems)
    an = memory.estimate_experiment(specs=[parse_design("AI-AN")], block_entries=1 << 25, **base)
    bigger_block = memory.estimate_experiment(specs=[parse_design("AI-AN")], block_entries=1 << 27, **base)
    sampled = memory.estimate_experiment(specs=[parse_design("AI-AN"), parse_design("1R TI-NN(99)")],
                                         block_entries=1 << 25, **base)
    # the block's part grows with the block, not with users x items (3.7e9 entries)
    assert bigger_block.parts["one user block"] - an.parts["one user block"] == 3 * (1 << 25) * memory.BLOCK_ENTRY_BYTES
    assert an.parts["sampled target sets"] == 0
    assert sampled.parts["sampled target sets"] == 900_000 * 100 * memory.RUNS_ENTRY_BYTES
    # user-kNN keeps 50 neighbours per user, not users x users
    assert memory.model_bytes(systems["user-kNN"], 138_000, 27_000, 16_000_000) < 2 * 2**30


def test_the_rating_knn_estimate_covers_what_a_fit_keeps(small: Ratings) -> None:
    from recbias.recommenders import make

    fitted = make("rating-user-knn").fit(small)
    kept = sum(value.nbytes if isinstance(value, np.ndarray) else
               value.data.nbytes + value.indices.nbytes + value.indptr.nbytes
               for value in vars(fitted).values() if isinstance(value, np.ndarray) or hasattr(value, "indptr"))
    assert fitted.predictions_ is not None
    assert kept <= memory.model_bytes(fitted, *small.shape, small.n_ratings) < 2 * kept + 4 * memory.BLOCK_BUDGET * 8


def test_a_system_given_unfitted_is_fitted_afresh_on_every_fold(small: Ratings) -> None:
    from recbias.recommenders import make

    options = dict(folds=3, metrics=["P@10"], seed=2, cache=False)
    given = runner.run_experiment(small, ["TI-AN"], {"Popularity": make("popularity")}, **options)
    named = runner.run_experiment(small, ["TI-AN"], {"Popularity": "popularity"}, **options)
    pd.testing.assert_frame_equal(given.runs, named.runs, check_exact=True)

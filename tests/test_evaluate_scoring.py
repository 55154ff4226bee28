"""Scores of candidates: the grouped block scorer against pairwise scores."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import datasets
from recbias.designs import build_runs
from recbias.evaluate import SCORE_BLOCK, Candidates, score_runs
from recbias.splits import make_folds
from recbias.ratings import Ratings
from recbias.recommenders import make
from recbias.runs import Runs


@pytest.mark.parametrize("block", [SCORE_BLOCK, 7 * 300, 1])  # one chunk, several, one user at a time
def test_grouped_block_scores_equal_pairwise_scores(block: int) -> None:
    ratings = datasets.load("synthetic-small", seed=0)
    (fold,) = make_folds(ratings, folds=1, seed=0)
    model = make("plsa", n_aspects=5, iterations=5).fit(fold.train)
    runs = [build_runs(fold.train, fold.test, d, seed=0, on_shortage="exclude") for d in ("AI-AN", "1R TI-NN(20)")]
    scores = Candidates(runs, block=block).score(model)
    assert [len(s) for s in scores] == [len(r.items) for r in runs]
    for r, s in zip(runs, scores, strict=True):
        np.testing.assert_allclose(s, score_runs(model, r), rtol=1e-12, atol=1e-15)


def test_runs_in_any_user_order_are_scored_in_place() -> None:
    ratings = datasets.load("synthetic-small", seed=0)
    (fold,) = make_folds(ratings, folds=1, seed=0)
    model = make("mf", factors=4).fit(fold.train)
    runs = build_runs(fold.train, fold.test, "1R TI-NN(20)", seed=0, on_shortage="exclude")
    order = np.random.default_rng(0).permutation(runs.n_runs)
    entries = np.concatenate([np.arange(runs.offsets[k], runs.offsets[k + 1]) for k in order])
    shuffled = Runs.from_arrays(np.concatenate([[0], np.cumsum(runs.sizes[order])]), runs.users[order],
                                runs.items[entries], runs.labels[entries])
    (scores,) = Candidates([shuffled], block=7 * ratings.n_items).score(model)
    np.testing.assert_allclose(scores, score_runs(model, shuffled), rtol=1e-12, atol=1e-15)


def test_runs_outside_the_fitted_code_space_are_refused() -> None:
    model = make("popularity").fit(Ratings.from_codes(np.array([0, 1]), np.array([0, 1]), np.array([1.0, 1.0]), (2, 2), positive_threshold=1))
    runs = Runs.from_arrays(np.array([0, 2]), np.array([0]), np.array([0, 5]), np.array([True, False]))
    with pytest.raises(ValueError, match="code space"):
        Candidates([runs]).score(model)


def test_bad_block_and_unfitted_recommender_raise() -> None:
    with pytest.raises(ValueError, match="block"):
        Candidates([], block=0)
    with pytest.raises(RuntimeError, match="fit"):
        Candidates([]).score(make("popularity"))


def test_scores_can_be_written_into_arrays_already_there() -> None:
    ratings = datasets.load("synthetic-small", seed=0)
    (fold,) = make_folds(ratings, folds=1, seed=0)
    runs = [build_runs(fold.train, fold.test, d, seed=0, on_shortage="exclude") for d in ("AI-AN", "1R TI-NN(20)")]
    candidates = Candidates(runs)
    first = candidates.score(make("popularity").fit(fold.train))
    kept = [a.copy() for a in first]
    again = candidates.score(make("mf").fit(fold.train), out=first)
    assert all(a is b for a, b in zip(again, first, strict=True))
    for a, expected in zip(again, Candidates(runs).score(make("mf").fit(fold.train)), strict=True):
        np.testing.assert_array_equal(a, expected)
    assert not np.array_equal(kept[0], again[0])
    with pytest.raises(ValueError, match="out must hold"):
        candidates.score(make("mf").fit(fold.train), out=[first[0]])

"""True quality on a simulated world's complete relevance, against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import datasets, splits
from recbias.designs import build_runs
from recbias.evaluate import Candidates, true_quality
from recbias.evaluate.complete import TrueQuality, top_columns
from recbias.ratings import Ratings
from recbias.recommenders import make
from recbias.recommenders.base import Recommender


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


@pytest.fixture(scope="module")
def train(world: Ratings) -> Ratings:
    return splits.random_split(world, 0.2, seed=0)[0]


class Oracle(Recommender):
    """Scores the truth: relevant items 1, others 0."""

    name = "oracle"

    def __init__(self, truth: np.ndarray, seed: int = 0) -> None:
        super().__init__(seed)
        self.truth = truth

    def _fit(self, train: Ratings) -> None:
        pass

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return self.truth[users].astype(float)


def test_ties_by_item_code_match_a_brute_force_top_ten(world: Ratings, train: Ratings) -> None:
    systems = {"MF": make("mf").fit(train), "Popularity": make("popularity").fit(train)}
    got = true_quality(systems, train, world.true_relevance, seed=None, block=7 * world.n_items)
    rated = train.matrix("binary").toarray() > 0
    for label, recommender in systems.items():
        scores = recommender.score_users(np.arange(world.n_users))
        for u in range(0, world.n_users, 17):
            candidates = [i for i in np.argsort(-scores[u], kind="stable") if not rated[u, i]][:10]
            hits = world.true_relevance[u, candidates]
            assert got["P@10"].loc[u, label] == pytest.approx(hits.mean())
            relevant = int((world.true_relevance[u] & ~rated[u]).sum())
            ideal = sum(1 / np.log2(k + 2) for k in range(min(10, relevant)))
            dcg = sum(h / np.log2(k + 2) for k, h in enumerate(hits))
            expected = dcg / ideal if ideal else np.nan
            assert got["nDCG@10"].loc[u, label] == pytest.approx(expected, nan_ok=True)


def test_random_ties_stay_within_the_tied_range(world: Ratings, train: Ratings) -> None:
    model = make("popularity").fit(train)
    got = true_quality({"Popularity": model}, train, world.true_relevance, n=5, block=3 * world.n_items)["P@5"]
    rated = train.matrix("binary").toarray() > 0
    scores = model.score_users(np.arange(world.n_users))
    for user in range(0, world.n_users, 17):
        candidates = np.flatnonzero(~rated[user])
        cut = np.sort(scores[user, candidates])[::-1][4]
        above = candidates[scores[user, candidates] > cut]
        tied = candidates[scores[user, candidates] == cut]
        truth = world.true_relevance[user]
        low = truth[above].sum() + max(0, 5 - len(above) - (~truth[tied]).sum())
        high = truth[above].sum() + min(5 - len(above), truth[tied].sum())
        assert low / 5 <= got.loc[user, "Popularity"] <= high / 5


def test_an_oracle_finds_every_relevant_item_it_can(world: Ratings, train: Ratings) -> None:
    oracle = Oracle(world.true_relevance).fit(train)
    got = true_quality({"oracle": oracle}, train, world.true_relevance, n=10)
    available = (world.true_relevance & ~train.matrix("binary").toarray().astype(bool)).sum(axis=1)
    np.testing.assert_allclose(got["P@10"]["oracle"], np.minimum(available, 10) / 10)
    np.testing.assert_allclose(got["nDCG@10"]["oracle"].dropna(), 1.0)


def test_the_truth_must_match_the_ratings(world: Ratings) -> None:
    model = make("random").fit(world)
    with pytest.raises(ValueError, match="shape"):
        true_quality({"Random": model}, world, np.zeros((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="positive integer"):
        true_quality({"Random": model}, world, world.true_relevance, n=0)


def test_a_subset_of_users_gets_the_rows_of_the_full_tables(world: Ratings, train: Ratings) -> None:
    systems = {"MF": make("mf").fit(train), "Popularity": make("popularity").fit(train)}
    full = true_quality(systems, train, world.true_relevance, seed=3, block=5 * world.n_items)
    chosen = np.array([150, 3, 77, 3, 40])
    some = true_quality(systems, train, world.true_relevance, seed=3, block=2 * world.n_items, users=chosen)
    for metric in ("P@10", "nDCG@10"):
        assert list(some[metric].index) == [3, 40, 77, 150]
        np.testing.assert_allclose(some[metric].to_numpy(), full[metric].loc[[3, 40, 77, 150]].to_numpy())


def test_true_quality_read_from_the_blocks_of_other_runs_equals_its_own_pass(world: Ratings, train: Ratings) -> None:
    systems = {"MF": make("mf").fit(train), "Popularity": make("popularity").fit(train)}
    alone = true_quality(systems, train, world.true_relevance, seed=None)
    quality = TrueQuality(train, world.true_relevance, seed=None)
    runs = build_runs(train, splits.random_split(world, 0.2, seed=0)[1], "1R TI-NN(20)", seed=0, on_shortage="exclude")
    candidates = Candidates([runs], block=7 * world.n_items, users=quality.users)  # users without runs too
    for label, system in systems.items():
        (scores,) = candidates.score(system, [quality.reader(label)])
        # the runs are scored as before (to the last bits, which a dense product may round otherwise in other blocks)
        np.testing.assert_allclose(scores, Candidates([runs]).score(system)[0], rtol=1e-12, atol=1e-15)
    for metric, table in quality.tables().items():
        assert table.equals(alone[metric])
    with pytest.raises(RuntimeError, match="never read"):
        unread = TrueQuality(train, world.true_relevance, seed=None)
        Candidates([runs]).score(systems["MF"], [unread.reader("MF")])  # only the users with runs
        unread.tables()


@pytest.mark.parametrize("k", [1, 3, 10, 40])
@pytest.mark.parametrize("shuffled", [False, True], ids=["ties-to-lower-column", "ties-in-given-order"])
def test_top_columns_are_the_stable_sort_with_ties(k: int, shuffled: bool) -> None:
    rng = np.random.default_rng(k)
    scores = rng.integers(0, 6, size=(50, 40)).astype(float)  # many ties
    scores[::7, :5] = -np.inf
    excluded = rng.random(scores.shape) < 0.3
    excluded[3] = True  # a row with nothing left: every column scores -inf
    order = rng.permutation(40) if shuffled else np.arange(40)
    masked = np.where(excluded, -np.inf, scores)[:, order]
    expected = order[np.argsort(-masked, axis=1, kind="stable")[:, :k]]
    np.testing.assert_array_equal(top_columns(scores, k, excluded=excluded, order=order if shuffled else None),
                                  expected)
    with pytest.raises(ValueError, match="k must lie"):
        top_columns(scores, 41)
    with pytest.raises(ValueError, match="excluded has shape"):
        top_columns(scores, k, excluded=excluded[:, :3])

"""Chapter 1's study: the collections it holds, their statistics, and the effect of the threshold."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import datasets, judgments
from recbias.chapters.c01_cranfield import study as spread
from recbias.ratings import Ratings


@pytest.fixture(scope="module")
def study() -> spread.SpreadStudy:
    return spread.spread_study(datasets.load("synthetic-small", seed=0), seed=0, cutoff=5, compare_all=False)


def test_the_study_holds_the_ir_collections_the_page_and_its_truth(study: spread.SpreadStudy) -> None:
    assert {"cranfield", "trec8-adhoc", "synthetic-small", f"synthetic-small{spread.TRUTH}"} == set(study.stats.index)
    assert study.stats.loc["synthetic-small", "label"] == "synthetic-small (this page)"
    assert study.fixed == "fixed-list P@5" and study.fixed in study.stats.columns
    assert list(study.rated.index) == ["synthetic-small"] and set(study.ir.index) == {"cranfield", "trec8-adhoc"}
    assert study.skipped == []  # compare_all=False: no other rating dataset is looked for
    assert set(study.shipped) <= {"cranfield", "trec8-adhoc"}
    assert study.world is study.ratings[0] and study.mine.equals(study.stats.loc["synthetic-small"])


def test_the_truth_sets_the_worlds_observed_likes_against_its_true_relevance(study: spread.SpreadStudy) -> None:
    world, truth = study.ratings[0], study.truth
    assert truth["world"] == "synthetic-small"
    assert truth["coverage"] == judgments.truth_coverage(world) and 0 < truth["coverage"] < 1
    true_stats, observed = study.stats.loc[f"synthetic-small{spread.TRUTH}"], study.stats.loc["synthetic-small"]
    assert (truth["true_reach"], truth["true_gini"]) == (true_stats["top reach"], true_stats["gini"])
    assert (truth["observed_reach"], truth["observed_gini"]) == (observed["top reach"], observed["gini"])
    plain = Ratings.from_codes(np.array([0, 1]), np.array([0, 0]), np.array([5.0, 5.0]), (2, 1), positive_threshold=5,
                               name="plain")
    assert spread.collect([], [plain]).truth is None  # no simulated world: nothing to say of its truth


def test_head_share_is_read_off_the_cumulative_curve(study: spread.SpreadStudy) -> None:
    counts = np.sort(np.bincount(study.ratings[0].items[study.ratings[0].positive]))[::-1]
    counts = counts[counts > 0]
    head = counts[: int(np.floor(0.1 * len(counts)))].sum() / counts.sum()
    assert study.head_share["synthetic-small"] == pytest.approx(head, abs=1.5 * counts[0] / counts.sum())


def test_the_spread_of_each_collection_matches_a_count_by_hand(study: spread.SpreadStudy) -> None:
    ratings = study.ratings[0]
    counts = np.bincount(ratings.items[ratings.values >= ratings.positive_threshold])
    counts = np.sort(counts[counts > 0])[::-1]
    mine = study.mine
    assert mine["top reach"] == counts[0] / ratings.n_users
    assert mine["share relevant to one query"] == pytest.approx(np.mean(counts == 1))
    assert mine[study.fixed] == pytest.approx(counts[:5].sum() / (5 * ratings.n_users))
    trec = judgments.ir_spread("trec8-adhoc")
    assert study.stats.loc["trec8-adhoc", "max positives per document"] == trec.counts.max()


def test_the_sweep_covers_every_rating_dataset_once_at_its_own_threshold(study: spread.SpreadStudy) -> None:
    sweeps = study.sweeps
    assert set(sweeps["collection"]) == {"synthetic-small"} and sweeps["default"].sum() == 1
    assert sweeps.loc[sweeps["default"], "threshold"].item() == 5


def test_the_threshold_effect_compares_the_own_threshold_with_the_loosest(study: spread.SpreadStudy) -> None:
    ratings = study.ratings[0]
    effect = study.threshold_effect.loc["synthetic-small"]
    loose = np.bincount(ratings.items).max() / ratings.n_users  # every rating positive
    own = np.bincount(ratings.items[ratings.values >= 5]).max() / ratings.n_users
    assert effect["loose reach"] == pytest.approx(loose) and effect["own reach"] == pytest.approx(own)
    assert effect["reach drop"] == pytest.approx(1 - own / loose)
    assert effect["positive share"] == pytest.approx(np.mean(ratings.values >= 5))
    assert effect["gini change"] == pytest.approx(abs(effect["own gini"] - effect["loose gini"]))


def test_collections_keep_the_registry_order_whatever_the_page() -> None:
    assert spread.registry_order("cranfield") < spread.registry_order("synthetic")
    assert spread.registry_order("synthetic") < spread.registry_order(f"synthetic{spread.TRUTH}")
    assert spread.registry_order(f"synthetic{spread.TRUTH}") < spread.registry_order("ml-100k")
    assert spread.registry_order("my-own-file")[0] == len(datasets.qrels_names()) + len(datasets.names())


def test_kinds_group_the_collections(study: spread.SpreadStudy) -> None:
    # a simulated world's observed ratings count as a simulation, as its true relevance does
    assert spread.kinds(study) == {"IR": ["cranfield", "trec8-adhoc"],
                                   "simulation": ["synthetic-small", f"synthetic-small{spread.TRUTH}"]}

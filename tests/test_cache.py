"""The fit cache: hits load, damaged entries are refitted, writes are atomic."""

import os
from pathlib import Path

import numpy as np
import pytest

from recbias import cache
from recbias.cache import CacheWarning, fit_cached, fit_key, fits_dir
from recbias.recommenders import ItemKNN, Popularity, make
from test_recommenders_support import low_rank_world


class CountingPopularity(Popularity):
    """Popularity that counts how often it is really fitted."""

    fits = 0

    def _fit(self, train):
        type(self).fits += 1
        super()._fit(train)


@pytest.fixture()
def world():
    return low_rank_world(n_users=40, n_items=30, seed=5)


@pytest.fixture()
def counting():
    CountingPopularity.fits = 0
    return CountingPopularity


def entries(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_second_fit_loads_instead_of_refitting(tmp_path, world, counting):
    first = fit_cached(counting(), world, directory=tmp_path)
    second = fit_cached(counting(), world, directory=tmp_path)
    assert counting.fits == 1
    assert np.array_equal(second.score_users(np.arange(5)), first.score_users(np.arange(5)))
    assert entries(tmp_path) == [f"{fit_key(counting(), world)}.pkl"]


def test_loaded_state_goes_into_the_given_object_and_keeps_its_name(tmp_path, world):
    fit_cached(make("item-knn-z"), world, directory=tmp_path)
    again = make("item-knn-z")
    assert fit_cached(again, world, directory=tmp_path) is again
    assert again.name == "Z (item-kNN)" and again.n_items == world.n_items
    fresh = ItemKNN(k_prime=10).fit(world)
    assert np.array_equal(again.score_users(np.arange(world.n_users)), fresh.score_users(np.arange(world.n_users)))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip"])
def test_a_damaged_entry_is_refitted_and_rewritten(tmp_path, world, counting, damage):
    fit_cached(counting(), world, directory=tmp_path)
    (path,) = tmp_path.iterdir()
    blob = path.read_bytes()
    damaged = {
        "truncate": blob[: len(blob) // 2],
        "garbage": b"not a cache entry",
        "empty": b"",
        "flip": blob[:-1] + bytes([blob[-1] ^ 1]),
    }[damage]
    path.write_bytes(damaged)
    with pytest.warns(CacheWarning, match="refitting"):
        refitted = fit_cached(counting(), world, directory=tmp_path)
    assert counting.fits == 2
    assert np.array_equal(refitted.item_scores_, world.item_counts().astype(float))
    assert path.read_bytes() == blob  # a valid entry again
    fit_cached(counting(), world, directory=tmp_path)
    assert counting.fits == 2


def test_an_interrupted_write_leaves_nothing_behind(tmp_path, world, counting, monkeypatch):
    def interrupted(source, destination):
        raise KeyboardInterrupt

    monkeypatch.setattr(cache.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fit_cached(counting(), world, directory=tmp_path)
    assert entries(tmp_path) == []
    monkeypatch.undo()
    fit_cached(counting(), world, directory=tmp_path)
    assert [name.endswith(".pkl") and not name.startswith(".") for name in entries(tmp_path)] == [True]


def test_key_follows_data_parameters_class_and_extra(world):
    same_content = world.subset(np.arange(world.n_ratings))
    assert fit_key(Popularity(), same_content) == fit_key(Popularity(), world)
    keys = {
        fit_key(Popularity(), world),
        fit_key(Popularity(positive_only=True), world),
        fit_key(Popularity(), world.subset(np.arange(1, world.n_ratings))),
        fit_key(Popularity(), world.with_threshold(3)),
        fit_key(CountingPopularity(), world),
        fit_key(Popularity(), world, key_extra={"split": "fold-1"}),
        fit_key(Popularity(seed=1), world),
    }
    assert len(keys) == 7


def test_a_new_layout_of_fitted_state_retires_old_entries(world, monkeypatch):
    before = fit_key(Popularity(), world)
    monkeypatch.setattr(cache, "FIT_LAYOUT", cache.FIT_LAYOUT + 1)
    assert fit_key(Popularity(), world) != before


def test_cache_directory_comes_from_the_environment(tmp_path, world, monkeypatch, counting):
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    assert fits_dir() == tmp_path / "fits"
    fit_cached(counting(), world)
    assert len(entries(tmp_path / "fits")) == 1


def test_default_cache_directory_is_in_the_repository(monkeypatch):
    monkeypatch.delenv("RECBIAS_CACHE_DIR", raising=False)
    repo = Path(cache.__file__).resolve().parents[2]
    assert fits_dir() == repo / "data" / "cache" / "fits"
    assert (repo / "pyproject.toml").exists()


def test_parameters_must_be_stored_under_their_names(world, tmp_path):
    class Forgetful(Popularity):
        def __init__(self, window: int = 3) -> None:
            super().__init__()

    with pytest.raises(TypeError, match="window"):
        fit_cached(Forgetful(), world, directory=tmp_path)
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("preset", ["rating-mf", "rating-user-knn"])
def test_the_papers_rating_predictors_load_from_the_cache(tmp_path, world, preset, monkeypatch):
    fitted = fit_cached(make(preset), world, directory=tmp_path)
    assert fit_key(make(preset), world) != fit_key(make(preset, seed=1), world)
    monkeypatch.setattr(type(fitted), "_fit", lambda self, train: pytest.fail("refitted instead of loaded"))
    loaded = fit_cached(make(preset), world, directory=tmp_path)
    users = np.arange(world.n_users)
    assert np.array_equal(loaded.score_users(users), fitted.score_users(users))

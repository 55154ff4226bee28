"""The fit cache: hits load; damaged, misplaced and outdated entries are refitted and reported once;
writes are atomic; an unwritable cache fits in memory."""

import errno
import fcntl
import multiprocessing
import os
import stat
import time
from pathlib import Path

import numpy as np
import pytest

from recbias import cache
from recbias.cache import fit_cached, fit_key, fits_dir
from recbias.recommenders import ItemKNN, Popularity, make
from recbias.recommenders.factory import PRESETS
from test_recommenders_support import low_rank_world


class CountingPopularity(Popularity):
    """Popularity that counts how often it is really fitted."""

    fits = 0

    def _fit(self, train):
        type(self).fits += 1
        super()._fit(train)


class SlowPopularity(Popularity):
    """Popularity whose fit takes a second and leaves a line in the file named by ``$RECBIAS_TEST_MARKS``."""

    def _fit(self, train):
        with open(os.environ["RECBIAS_TEST_MARKS"], "a") as marks:
            marks.write("fit\n")
        time.sleep(1.0)
        super()._fit(train)


@pytest.fixture()
def world():
    return low_rank_world(n_users=40, n_items=30, seed=5)


@pytest.fixture()
def counting():
    CountingPopularity.fits = 0
    return CountingPopularity


@pytest.fixture()
def reports(tmp_path, monkeypatch):
    """The lines the cache reports during a test (as the build tool collects them)."""
    target = tmp_path.parent / f"{tmp_path.name}-report.txt"
    monkeypatch.setenv(cache.REPORT_VARIABLE, str(target))
    monkeypatch.setattr(cache, "_reported", set())
    return lambda: target.read_text().splitlines() if target.exists() else []


def entries(directory: Path) -> list[str]:
    """The files of a fits directory, its directory of locks left out."""
    return sorted(path.name for path in directory.iterdir() if path.name != cache.LOCKS)


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


def owner(array: np.ndarray) -> object:
    """The object at the end of an array's chain of bases (buffers it views)."""
    while getattr(array, "base", None) is not None or getattr(array, "obj", None) is not None:
        array = array.base if getattr(array, "base", None) is not None else array.obj
    return array


def test_a_loaded_fit_views_the_bytes_of_its_entry_aligned_and_writable(tmp_path, world):
    """The arrays of a fit come back as views of the one buffer its file was read into, not as copies."""
    fitted = fit_cached(make("rating-mf"), world, directory=tmp_path)
    loaded = fit_cached(make("rating-mf"), world, directory=tmp_path)
    arrays = {name: value for name, value in vars(loaded).items() if isinstance(value, np.ndarray)}
    assert {"user_factors_", "item_factors_", "item_bias_"} <= set(arrays)
    assert len({id(owner(array)) for array in arrays.values()}) == 1
    assert all(array.flags.aligned and array.flags.writeable for array in arrays.values())
    assert all(np.array_equal(array, getattr(fitted, name)) for name, array in arrays.items())


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip"])
def test_a_damaged_entry_is_refitted_and_rewritten(tmp_path, world, counting, damage, reports):
    fits = tmp_path / "fits"
    fit_cached(counting(), world, directory=fits)
    (path,) = fits.glob("*.pkl")
    blob = path.read_bytes()
    damaged = {
        "truncate": blob[: len(blob) // 2],
        "garbage": b"not a cache entry",
        "empty": b"",
        "flip": blob[:-1] + bytes([blob[-1] ^ 1]),
    }[damage]
    path.write_bytes(damaged)
    refitted = fit_cached(counting(), world, directory=fits)
    assert counting.fits == 2
    assert len(reports()) == 1 and reports()[0].startswith("refitting")
    assert np.array_equal(refitted.item_scores_, world.item_counts().astype(float))
    assert path.read_bytes() == blob  # a valid entry again
    fit_cached(counting(), world, directory=fits)
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
        fit_key(Popularity(positive_only=True), world.with_threshold(3)),
        fit_key(CountingPopularity(), world),
        fit_key(Popularity(), world, key_extra={"split": "fold-1"}),
        fit_key(Popularity(seed=1), world),
    }
    assert len(keys) == 7


def test_a_ratings_digest_is_computed_once_per_object_and_follows_the_content(world, monkeypatch):
    first = cache.ratings_digest(world)
    hashed = []
    sha256 = cache.hashlib.sha256
    monkeypatch.setattr(cache.hashlib, "sha256", lambda *data: hashed.append(1) or sha256(*data))
    assert cache.ratings_digest(world) == first and not hashed
    assert cache.ratings_digest(world.subset(np.arange(world.n_ratings))) == first and hashed
    assert cache.ratings_digest(world, threshold=False) != first
    assert cache.ratings_digest(world.subset(np.arange(1, world.n_ratings))) != first
    with pytest.raises(ValueError, match="read-only"):
        world.values[0] += 1  # the columns cannot change under a remembered digest


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_fit_blind_to_the_positive_threshold_is_shared_between_thresholds(world, preset):
    """A recommender that says its fit does not read the threshold fits the same on both thresholds (so the
    cache may share the fit, under one key); one that reads it gets a key per threshold."""
    other = world.with_threshold(2)
    assert other.positive_threshold != world.positive_threshold
    shared = fit_key(make(preset), world) == fit_key(make(preset), other)
    assert shared is not make(preset).uses_positive_threshold()
    if shared:
        users = np.arange(world.n_users)
        assert np.array_equal(make(preset).fit(world).score_users(users), make(preset).fit(other).score_users(users))


POSITIVE_FITS = [("popularity", {"positive_only": True}), ("plsa", {"feedback": "positive"}),
                 ("mf", {"feedback": "positive"}), ("user-knn", {"feedback": "positive"})]


@pytest.mark.parametrize(("preset", "params"), POSITIVE_FITS)
def test_a_fit_on_positive_ratings_reads_the_threshold(world, preset, params):
    assert make(preset, **params).uses_positive_threshold()
    users = np.arange(world.n_users)
    low, high = (make(preset, **params).fit(r).score_users(users) for r in (world.with_threshold(2), world))
    assert not np.array_equal(low, high)


def test_a_rating_predictor_fitted_at_one_threshold_loads_at_another(tmp_path, world, monkeypatch):
    fitted = fit_cached(make("rating-mf"), world, directory=tmp_path)
    monkeypatch.setattr(type(fitted), "_fit", lambda self, train: pytest.fail("refitted instead of loaded"))
    loaded = fit_cached(make("rating-mf"), world.with_threshold(2), directory=tmp_path)
    assert np.array_equal(loaded.score_users(np.arange(5)), fitted.score_users(np.arange(5)))
    assert len(entries(tmp_path)) == 1


def test_a_new_layout_of_fitted_state_retires_old_entries(world, monkeypatch):
    before = fit_key(Popularity(), world)
    monkeypatch.setattr(cache, "FIT_LAYOUT", cache.FIT_LAYOUT + 1)
    assert fit_key(Popularity(), world) != before


def test_cache_directory_comes_from_the_environment(tmp_path, world, monkeypatch, counting):
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    assert fits_dir() == tmp_path / "fits"
    fit_cached(counting(), world)
    assert len(entries(tmp_path / "fits")) == 1


def test_default_cache_directory_is_in_the_working_directorys_project(monkeypatch, tmp_path):
    monkeypatch.delenv("RECBIAS_CACHE_DIR", raising=False)
    (tmp_path / "_toc.yml").write_text("root: intro\n")
    (tmp_path / "book").mkdir()
    monkeypatch.chdir(tmp_path / "book")
    assert fits_dir() == tmp_path / "data" / "cache" / "fits"


def test_parameters_must_be_stored_under_their_names(world, tmp_path):
    class Forgetful(Popularity):
        def __init__(self, window: int = 3) -> None:
            super().__init__()

    with pytest.raises(TypeError, match="window"):
        fit_cached(Forgetful(), world, directory=tmp_path)
    assert not os.listdir(tmp_path)


def test_recommenders_differing_only_in_a_scoring_parameter_share_one_fit(tmp_path, world, monkeypatch):
    papers = fit_cached(make("rating-user-knn"), world, directory=tmp_path)
    assert fit_key(make("rating-user-knn"), world) == fit_key(make("rating-user-knn-min2"), world)
    assert fit_key(make("rating-user-knn"), world) != fit_key(make("rating-user-knn", k=10), world)
    fresh = make("rating-user-knn-min2").fit(world)
    monkeypatch.setattr(type(papers), "_fit", lambda self, train: pytest.fail("refitted instead of loaded"))
    loaded = fit_cached(make("rating-user-knn-min2"), world, directory=tmp_path)
    assert (loaded.name, loaded.min_support) == ("rating-kNN (min. 2 neighbours)", 2)  # its own, not the entry's
    users = np.arange(world.n_users)
    assert np.array_equal(loaded.score_users(users), fresh.score_users(users))
    assert not np.array_equal(loaded.score_users(users), papers.score_users(users))  # control: the minimum counts
    assert len(entries(tmp_path)) == 1


@pytest.mark.parametrize("preset", ["rating-mf", "rating-user-knn"])
def test_the_papers_rating_predictors_load_from_the_cache(tmp_path, world, preset, monkeypatch):
    fitted = fit_cached(make(preset), world, directory=tmp_path)
    assert fit_key(make(preset), world) != fit_key(make(preset, seed=1), world)
    monkeypatch.setattr(type(fitted), "_fit", lambda self, train: pytest.fail("refitted instead of loaded"))
    loaded = fit_cached(make(preset), world, directory=tmp_path)
    users = np.arange(world.n_users)
    assert np.array_equal(loaded.score_users(users), fitted.score_users(users))


def test_an_entry_copied_under_another_key_is_refitted_and_reported_once(tmp_path, world, counting, reports):
    fit_cached(counting(), world, directory=tmp_path)
    fit_cached(counting(positive_only=True), world, directory=tmp_path)
    plain, positive = (tmp_path / f"{fit_key(p, world)}.pkl" for p in (counting(), counting(positive_only=True)))
    plain.write_bytes(positive.read_bytes())  # another fit of the same class under this key's name
    refitted = fit_cached(counting(), world, directory=tmp_path)
    assert counting.fits == 3 and refitted.positive_only is False
    assert np.array_equal(refitted.item_scores_, world.item_counts().astype(float))
    (line,) = reports()
    assert "another name" in line and plain.name in line
    fit_cached(counting(), world, directory=tmp_path)
    assert counting.fits == 3  # the entry was rewritten under its own key


def test_a_change_of_the_recommenders_code_refits_and_is_reported_once(tmp_path, world, counting, reports,
                                                                       monkeypatch):
    fit_cached(counting(), world, directory=tmp_path)
    fit_cached(counting(seed=1), world, directory=tmp_path)
    source = Path(cache.__file__).parent / "recommenders" / "baselines.py"
    changed = source.read_bytes() + b"\n# a changed line\n"
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: changed if self == source else real_read(self))
    cache.code_fingerprint.cache_clear()
    try:
        fit_cached(counting(), world, directory=tmp_path)
        fit_cached(counting(seed=1), world, directory=tmp_path)
    finally:
        monkeypatch.undo()
        cache.code_fingerprint.cache_clear()
    assert counting.fits == 4
    assert reports() == ["refitting CountingPopularity: its code changed since its fits were cached"]


def test_the_code_fingerprint_follows_the_modules_a_recommender_imports():
    from recbias.recommenders import ALS, ItemKNN

    assert cache.code_fingerprint(ALS) != cache.code_fingerprint(ItemKNN)
    assert cache.code_fingerprint(CountingPopularity) != cache.code_fingerprint(Popularity)  # its own module too


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_an_unwritable_cache_fits_in_memory_with_one_report(tmp_path, world, counting, reports, monkeypatch, code):
    real_open = open

    def failing_open(file, mode="r", *args, **kwargs):
        if "x" in mode:
            raise OSError(code, os.strerror(code), str(file))
        return real_open(file, mode, *args, **kwargs)

    fits = tmp_path / "fits"
    monkeypatch.setattr("builtins.open", failing_open)
    first = fit_cached(counting(), world, directory=fits)
    fit_cached(counting(seed=1), world, directory=fits)
    monkeypatch.undo()
    assert counting.fits == 2 and np.array_equal(first.item_scores_, world.item_counts().astype(float))
    assert reports() == [f"cannot store fits in {fits} ({os.strerror(code)}); keeping them in memory only"]
    assert entries(fits) == []


def test_outside_a_build_reports_go_to_the_log_not_to_warnings(tmp_path, world, counting, monkeypatch, caplog,
                                                                recwarn):
    monkeypatch.delenv(cache.REPORT_VARIABLE, raising=False)
    monkeypatch.setattr(cache, "_reported", set())
    fit_cached(counting(), world, directory=tmp_path)
    next(tmp_path.glob("*.pkl")).write_bytes(b"garbage")
    fit_cached(counting(), world, directory=tmp_path)
    assert [r.levelname for r in caplog.records] == ["WARNING"] and "refitting" in caplog.records[0].message
    assert not recwarn.list


def test_temporaries_of_killed_writers_are_removed(tmp_path):
    dead = tmp_path / f".{'a' * 64}.999999999.0f0f0f0f.tmp"
    mine = tmp_path / f".{'b' * 64}.{os.getpid()}.0f0f0f0f.tmp"
    old_unknown = tmp_path / f".{'c' * 64}.x7y2k.tmp"  # the name an older version gave
    fresh_unknown = tmp_path / f".{'d' * 64}.q1w2e.tmp"
    for path in (dead, mine, old_unknown, fresh_unknown):
        path.write_bytes(b"partial")
    os.utime(old_unknown, (0, 0))
    assert sorted(cache.remove_stale_temporaries(tmp_path)) == sorted([dead, old_unknown])
    assert sorted(entries(tmp_path)) == sorted([mine.name, fresh_unknown.name])


def test_by_default_temporaries_are_removed_from_the_fits_and_the_worlds(tmp_path, monkeypatch):
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    dead = [folder / f".{'a' * 64}.999999999.0f0f0f0f.tmp" for folder in (cache.fits_dir(), cache.worlds_dir())]
    for path in dead:
        path.parent.mkdir()
        path.write_bytes(b"partial")
    assert sorted(cache.remove_stale_temporaries()) == sorted(dead)


def test_entries_are_created_with_the_users_umask(tmp_path, world, counting):
    previous = os.umask(0o022)
    try:
        fit_cached(counting(), world, directory=tmp_path)
    finally:
        os.umask(previous)
    (path,) = tmp_path.glob("*.pkl")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize("processes", [2, 3])
def test_pages_built_at_once_fit_a_shared_key_once_and_leave_no_lock(tmp_path, world, monkeypatch, processes):
    marks = tmp_path / "marks"
    monkeypatch.setenv("RECBIAS_TEST_MARKS", str(marks))
    fork = multiprocessing.get_context("fork")
    builds = [fork.Process(target=fit_cached, args=(SlowPopularity(), world), kwargs={"directory": tmp_path / "fits"})
              for _ in range(processes)]
    for build in builds:
        build.start()
    for build in builds:
        build.join(60)
    assert [build.exitcode for build in builds] == [0] * processes
    # the others waited for the first's fit and loaded it; with three, a waiter left holding a lock file that its
    # maker removed locks the path again
    assert marks.read_text() == "fit\n"
    assert entries(tmp_path / "fits") == [f"{fit_key(SlowPopularity(), world)}.pkl"]
    assert list((tmp_path / "fits" / cache.LOCKS).iterdir()) == []  # no lock file outlives its fit


def test_lock_files_left_behind_are_removed_unless_held(tmp_path):
    locks = tmp_path / cache.LOCKS
    locks.mkdir()
    (locks / "left").write_text("")
    held = open(locks / "held", "a")
    fcntl.flock(held, fcntl.LOCK_EX)
    removed = cache.remove_stale_temporaries(tmp_path)
    assert removed == [locks / "left"] and sorted(p.name for p in locks.iterdir()) == ["held"]
    held.close()


class CountingGenerator:
    """A simulation that counts how often it really draws a world."""

    def __init__(self):
        self.calls = 0
        self.__module__ = "recbias.synthetic.world"  # fingerprinted as the real simulation

    def __call__(self, *, preset, seed):
        self.calls += 1
        return low_rank_world(n_users=20 + seed, n_items=15, seed=seed)


class RefusingGenerator:
    """The real simulation's module and signature, but it fails the test if asked to draw."""

    __module__ = "recbias.synthetic.world"

    def __call__(self, *, seed=0, preset="synthetic", **parameters):
        pytest.fail("drew the world again")


def test_a_world_is_drawn_once_then_loaded_read_only(tmp_path):
    generate = CountingGenerator()
    drawn = cache.world_cached(generate, "toy", {"seed": 1}, tmp_path)
    loaded = cache.world_cached(generate, "toy", {"seed": 1}, tmp_path)
    assert generate.calls == 1 and loaded is not drawn
    for column in ("users", "items", "values", "timestamps", "true_relevance"):
        np.testing.assert_array_equal(getattr(loaded, column), getattr(drawn, column))
    assert not loaded.values.flags.writeable and loaded.shape == drawn.shape
    assert cache.world_cached(generate, "toy", {"seed": 2}, tmp_path).n_users == 22 and generate.calls == 2
    assert cache.world_cached(generate, "other", {"seed": 1}, tmp_path) is not None and generate.calls == 3


def test_a_damaged_or_outdated_world_is_drawn_again(tmp_path, reports, monkeypatch):
    generate = CountingGenerator()
    cache.world_cached(generate, "toy", {"seed": 1}, tmp_path)
    [name] = entries(tmp_path)
    (tmp_path / name).write_bytes((tmp_path / name).read_bytes()[:-10])
    cache.world_cached(generate, "toy", {"seed": 1}, tmp_path)
    assert generate.calls == 2 and any("drawing the world again" in line for line in reports())
    cache.world_cached(generate, "toy", {"seed": 1}, tmp_path)
    assert generate.calls == 2  # rewritten whole
    monkeypatch.setattr(cache, "modules_fingerprint", lambda *names: "other code")
    cache.world_cached(generate, "toy", {"seed": 1}, tmp_path)
    assert generate.calls == 3


def test_an_unwritable_cache_draws_worlds_in_memory_with_one_report(tmp_path, reports, monkeypatch):
    def unwritable(path, header, stored):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(cache, "_write_entry", unwritable)
    generate = CountingGenerator()
    worlds = tmp_path / "worlds"
    first = cache.world_cached(generate, "toy", {"seed": 1}, worlds)
    cache.world_cached(generate, "toy", {"seed": 2}, worlds)
    assert generate.calls == 2 and first.n_users == 21
    assert reports() == [f"cannot store worlds in {worlds} ({os.strerror(errno.EROFS)}); keeping them in memory only"]


def test_the_synthetic_presets_load_through_the_world_cache(tmp_path, monkeypatch):
    from recbias import datasets, synthetic

    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path))
    drawn = datasets.load("synthetic-small", seed=3)
    monkeypatch.setattr(synthetic, "generate", RefusingGenerator())
    loaded = datasets.load("synthetic-small", seed=3)
    np.testing.assert_array_equal(loaded.values, drawn.values)
    assert loaded.citation == drawn.citation and len(entries(tmp_path / "worlds")) == 1

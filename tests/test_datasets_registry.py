"""The registry: names, static facts, option checking, offline availability."""

from __future__ import annotations

import numpy as np
import pytest
from test_datasets_support import isolate

from recbias import datasets
from recbias.datasets import registry

REAL = ["ml-100k", "ml-1m", "ml-latest-small", "ml-10m", "ml-20m", "lastfm-2k", "coat"]


def test_names_list_the_registry():
    assert datasets.names() == ["synthetic", "synthetic-small", "synthetic-ml1m", "synthetic-ml10m", "synthetic-ml20m", *REAL]
    assert datasets.qrels_names() == ["cranfield", "trec8-adhoc"]
    assert datasets.DEFAULT == "synthetic"


@pytest.mark.parametrize("name", [*datasets.names(), *datasets.qrels_names()])
def test_info_is_complete_without_loading(name):
    facts = datasets.info(name)
    assert facts.name == name
    for text in (facts.title, facts.description, facts.licence, facts.citation, facts.url, facts.paper_usage):
        assert text.strip()


def test_thresholds_follow_the_papers():
    # Bellogín et al. (2017): 5 stars in MovieLens, more than 2 plays in Last.fm
    assert datasets.info("ml-1m").positive_threshold == 5
    assert datasets.info("ml-100k").positive_threshold == 5
    assert datasets.info("lastfm-2k").positive_threshold == 3


@pytest.mark.parametrize("name", REAL)
def test_real_datasets_have_official_archive_pins(name):
    files = registry.DATASETS[name].files
    assert files.archive and files.url_path and len(files.archive_sha256) == 64
    hosted_elsewhere = "://" in files.url_path
    expected = files.url_path if hosted_elsewhere else f"{registry.GROUPLENS_URL}/{files.url_path}"
    assert datasets.info(name).url == expected
    # every file read has its own pin, except where the publisher gives the archive's checksum only
    unpinned = name in ("ml-10m", "ml-20m")
    assert files.archive_only == unpinned
    assert all(pin is None if unpinned else len(pin) == 64 for pin in files.pins.values())


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="unknown dataset 'ml-25m'; valid names: synthetic, .*lastfm-2k, coat, csv:PATH"):
        datasets.load("ml-25m")
    with pytest.raises(ValueError, match="valid names: .*cranfield, trec8-adhoc"):
        datasets.info("netflix")
    with pytest.raises(ValueError, match="valid names: cranfield, trec8-adhoc"):
        datasets.load_qrels("robust04")


def test_unknown_options_list_the_valid_ones():
    expected = "unknown option.*seed for dataset 'ml-100k'; valid options: positive_threshold"
    with pytest.raises(ValueError, match=expected):
        datasets.load("ml-100k", seed=1)
    with pytest.raises(ValueError, match="valid options: none"):
        datasets.load_qrels("trec8-adhoc", reading="cleverdon")
    with pytest.raises(ValueError, match="positive_threshold must be a finite number, got 'five'"):
        datasets.load("ml-100k", positive_threshold="five")
    with pytest.raises(ValueError, match="positive_threshold must be a finite number, got nan"):
        datasets.load("csv:ratings.csv", positive_threshold=float("nan"))
    with pytest.raises(ValueError, match="unknown Cranfield grade reading"):
        datasets.load_qrels("cranfield", reading="upside-down")


def test_availability_offline(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path)
    assert datasets.available("synthetic") and datasets.available("synthetic-small")
    for name in [*REAL, *datasets.qrels_names()]:  # no judgment file ships with the package
        assert not datasets.available(name)


def test_synthetic_delegates_to_the_generator():
    synthetic = pytest.importorskip("recbias.synthetic")
    ratings = datasets.load("synthetic-small", seed=3, positive_threshold=4)
    direct = synthetic.generate(seed=3, preset="synthetic-small", positive_threshold=4)
    assert ratings.name == "synthetic-small" and ratings.positive_threshold == 4
    np.testing.assert_array_equal(ratings.users, direct.users)
    np.testing.assert_array_equal(ratings.values, direct.values)
    np.testing.assert_array_equal(ratings.true_relevance, direct.true_relevance)
    with pytest.raises(ValueError, match="unknown option.*no_such_option.*valid options: .*n_users.*seed"):
        datasets.load("synthetic-small", no_such_option=1)
    with pytest.raises(ValueError, match="unknown option.*preset"):
        datasets.load("synthetic-small", preset="synthetic")


def test_every_simulator_preset_is_a_registered_dataset() -> None:
    from recbias.datasets.api import _SYNTHETIC
    from recbias.synthetic import PRESETS

    assert set(_SYNTHETIC) == set(PRESETS) and set(PRESETS) <= set(datasets.names())

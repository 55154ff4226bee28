"""The ML-10M and ML-20M readers on tiny archives laid out like the official ones.

GroupLens publishes the checksums of these archives, not of their members, so the files are
read from the verified archive only; the tests pin their own archives in the registry.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_datasets_support import isolate, make_zip, serve, sha256

from recbias import datasets
from recbias.datasets import registry
from recbias.datasets.errors import ChecksumError, MalformedLineError, OfflineError

# user 5 rates twice, ids 9 < 10 test numeric ordering, half stars on both sides of the threshold
ML10M_RATINGS = b"5::10::4.5::1111111111\n5::9::5::1111111112\n12::10::0.5::1111111113\n12::3::5::1111111114\n"
ML10M_MOVIES = "3::Am\u00e9lie (2001)::Comedy|Romance\n9::Heat (1995)::Action\n10::GoldenEye (1995)::Action\n".encode()
ML10M_TAGS = b"5::10::bond::1111111115\n"
ML20M_RATINGS = b"userId,movieId,rating,timestamp\n1,2,3.5,1112486027\n1,29,5.0,1112484676\n7,2,4.0,1094785740\n"
ML20M_MOVIES = b'movieId,title,genres\n2,Jumanji (1995),Adventure|Children|Fantasy\n29,"City of Lost Children, The (1995)",Drama\n'


def archive_of(folder: str, files: dict[str, bytes]) -> bytes:
    return make_zip({f"{folder}/{name}": data for name, data in files.items()})


def install(monkeypatch, tmp_path, name: str, archive: bytes):
    """Put ``archive`` in an isolated data directory and pin it in place of the official one."""
    data, cache = isolate(monkeypatch, tmp_path)
    info = registry.DATASETS[name]
    monkeypatch.setitem(registry.DATASETS, name, dataclasses.replace(
        info, files=dataclasses.replace(info.files, archive_sha256=sha256(archive))))
    (data / info.files.archive).write_bytes(archive)
    return data, cache


def ml10m(ratings: bytes = ML10M_RATINGS) -> bytes:
    return archive_of("ml-10M100K", {"ratings.dat": ratings, "movies.dat": ML10M_MOVIES, "tags.dat": ML10M_TAGS})


def ml20m(ratings: bytes = ML20M_RATINGS) -> bytes:
    return archive_of("ml-20m", {"ratings.csv": ratings, "movies.csv": ML20M_MOVIES})


def test_registry_pins_the_official_archives_only() -> None:
    for name, folder, archive, digest in (
        ("ml-10m", "ml-10M100K", "ml-10m.zip", "813c411ccb6122564edfe752e7f80c4dcc5aa25fa94c93622f6877a7ba252862"),
        ("ml-20m", "ml-20m", "ml-20m.zip", "96f243c338a8665f6bcc89c53edf6ee39162a846940de6b7c8c48aeada765ff3"),
    ):
        files = registry.DATASETS[name].files
        assert (files.folder, files.archive, files.archive_sha256) == (folder, archive, digest)
        assert files.archive_only and datasets.info(name).url == f"{registry.GROUPLENS_URL}/movielens/{archive}"
        assert datasets.info(name).positive_threshold == 5.0  # as ml-latest-small, the other half-star release


def test_tiny_ml10m_is_read_from_its_archive(monkeypatch, tmp_path) -> None:
    install(monkeypatch, tmp_path, "ml-10m", ml10m())
    ratings = datasets.load("ml-10m")
    assert ratings.user_ids.tolist() == [5, 12] and ratings.item_ids.tolist() == [3, 9, 10]
    assert ratings.users.tolist() == [0, 0, 1, 1] and ratings.items.tolist() == [2, 1, 2, 0]
    assert ratings.values.tolist() == [4.5, 5.0, 0.5, 5.0] and ratings.scale == (0.5, 5.0)
    assert ratings.positive.tolist() == [False, True, False, True]
    assert ratings.timestamps.tolist() == [1111111111, 1111111112, 1111111113, 1111111114]
    assert ratings.item_metadata["title"].tolist() == ["Am\u00e9lie (2001)", "Heat (1995)", "GoldenEye (1995)"]
    assert ratings.user_attributes is None and "half-star" in ratings.description
    assert datasets.load("ml-10m", positive_threshold=4.5).positive.tolist() == [True, True, False, True]


def test_tiny_ml20m_is_read_from_its_archive(monkeypatch, tmp_path) -> None:
    install(monkeypatch, tmp_path, "ml-20m", ml20m())
    ratings = datasets.load("ml-20m")
    assert ratings.user_ids.tolist() == [1, 7] and ratings.item_ids.tolist() == [2, 29]
    assert ratings.values.tolist() == [3.5, 5.0, 4.0] and ratings.positive.tolist() == [False, True, False]
    assert ratings.item_metadata.loc[1, "title"] == "City of Lost Children, The (1995)"


def test_an_off_scale_rating_names_its_line(monkeypatch, tmp_path) -> None:
    install(monkeypatch, tmp_path, "ml-10m", ml10m(ML10M_RATINGS.replace(b"12::10::0.5::", b"12::10::0.25::")))
    with pytest.raises(MalformedLineError, match=r"ratings\.dat, line 3: rating is not a multiple of half a star"):
        datasets.load("ml-10m")
    (tmp_path / "20").mkdir()
    install(monkeypatch, tmp_path / "20", "ml-20m", ml20m(ML20M_RATINGS.replace(b"7,2,4.0,", b"7,2,5.5,")))
    with pytest.raises(MalformedLineError, match=r"ratings\.csv, line 4: rating is not a multiple of half a star"):
        datasets.load("ml-20m")


def test_another_archive_is_refused_and_extracted_files_are_not_read(monkeypatch, tmp_path) -> None:
    data, _ = install(monkeypatch, tmp_path, "ml-20m", ml20m())
    (data / "ml-20m.zip").write_bytes(ml20m(ML20M_RATINGS + b"7,29,1.0,1094785741\n"))
    with pytest.raises(ChecksumError, match="ml-20m.zip"):
        datasets.load("ml-20m")
    (data / "ml-20m.zip").unlink()
    (data / "ml-20m").mkdir()
    (data / "ml-20m" / "ratings.csv").write_bytes(ML20M_RATINGS)
    (data / "ml-20m" / "movies.csv").write_bytes(ML20M_MOVIES)
    assert not datasets.available("ml-20m")
    with pytest.raises(OfflineError, match="extracted copies are not read"):
        datasets.load("ml-20m")


def test_the_official_archive_is_downloaded_and_checked(monkeypatch, tmp_path) -> None:
    archive = ml10m()
    _, cache = install(monkeypatch, tmp_path, "ml-10m", archive)
    (tmp_path / "raw" / "ml-10m.zip").unlink()
    www = tmp_path / "www"
    (www / "movielens").mkdir(parents=True)
    (www / "movielens" / "ml-10m.zip").write_bytes(archive)
    with serve(www) as url:
        monkeypatch.setenv("RECBIAS_DATA_URL", url)
        ratings = datasets.load("ml-10m")
    assert ratings.n_ratings == 4 and (cache / "ml-10m.zip").read_bytes() == archive
    np.testing.assert_array_equal(datasets.load("ml-10m").values, ratings.values)  # from the cache, offline

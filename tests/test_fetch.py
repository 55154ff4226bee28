"""Locating, verifying and downloading archives (a local HTTP server stands in for GroupLens)."""

from __future__ import annotations

import http.server
import zipfile

import pooch
import pytest
from test_datasets_support import ML1M_FILES, isolate, make_zip, ml1m_archive, pin, serve, serve_with, sha256

from recbias import datasets, paths
from recbias.datasets import fetch, registry
from recbias.datasets.errors import (
    ChecksumError,
    CorruptArchiveError,
    MalformedLineError,
    MissingFileError,
    OfflineError,
)


@pytest.fixture
def dirs(monkeypatch, tmp_path):
    return isolate(monkeypatch, tmp_path)


@pytest.fixture
def ml1m_zip(monkeypatch) -> bytes:
    archive = ml1m_archive()
    pin(monkeypatch, "ml-1m", archive, ML1M_FILES)
    return archive


def test_default_directories_hang_off_the_working_directorys_project(monkeypatch, tmp_path):
    for variable in ("RECBIAS_DATA_DIR", "RECBIAS_CACHE_DIR", "RECBIAS_DATA_URL"):
        monkeypatch.delenv(variable, raising=False)
    clone = tmp_path / "second-clone"
    (clone / "book").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\nname = 'recbias'\n")
    monkeypatch.chdir(clone / "book")  # anywhere inside the project, not where the package is installed
    assert paths.project_root() == clone
    assert paths.data_dir() == clone / "data" / "raw"
    assert paths.cache_dir() == clone / "data" / "cache"
    assert fetch.base_url() == "https://files.grouplens.org/datasets"


def test_download_verify_and_reuse_from_cache(dirs, ml1m_zip, tmp_path, monkeypatch):
    _, cache = dirs
    www = tmp_path / "www"
    (www / "movielens").mkdir(parents=True)
    (www / "movielens" / "ml-1m.zip").write_bytes(ml1m_zip)
    with serve(www) as url:
        monkeypatch.setenv("RECBIAS_DATA_URL", url + "/")
        assert not datasets.available("ml-1m")
        ratings = datasets.load("ml-1m")
    assert ratings.n_ratings == 5
    assert sorted(p.name for p in cache.iterdir()) == ["ml-1m.zip"]
    assert (cache / "ml-1m.zip").read_bytes() == ml1m_zip
    # the server is gone: the verified archive in the cache is used
    assert datasets.available("ml-1m")
    assert datasets.load("ml-1m").n_ratings == 5


def test_download_with_wrong_bytes_leaves_nothing(dirs, ml1m_zip, tmp_path, monkeypatch):
    _, cache = dirs
    www = tmp_path / "www"
    (www / "movielens").mkdir(parents=True)
    bad = ml1m_zip[:-10] + b"0123456789"
    (www / "movielens" / "ml-1m.zip").write_bytes(bad)
    with serve(www) as url:
        monkeypatch.setenv("RECBIAS_DATA_URL", url)
        with pytest.raises(ChecksumError) as caught:
            datasets.load("ml-1m")
    message = str(caught.value)
    assert "ml-1m" in message and "movielens/ml-1m.zip" in message
    assert sha256(ml1m_zip) in message and sha256(bad) in message
    assert list(cache.iterdir()) == []


def test_http_error_is_reported_as_unavailable(dirs, ml1m_zip, tmp_path, monkeypatch):
    _, cache = dirs
    (tmp_path / "www").mkdir()
    with serve(tmp_path / "www") as url:
        monkeypatch.setenv("RECBIAS_DATA_URL", url)
        with pytest.raises(OfflineError, match="404"):
            datasets.load("ml-1m")
    assert list(cache.iterdir()) == []


def test_offline_fails_fast_and_says_where_to_put_the_files(dirs, monkeypatch):
    data, cache = dirs
    (data / "ml-1m").mkdir()
    (data / "ml-1m" / "users.dat").write_bytes(ML1M_FILES["users.dat"])
    with pytest.raises(OfflineError) as caught:
        datasets.load("ml-1m")
    message = str(caught.value)
    for expected in (
        "dataset 'ml-1m'",
        "ml-1m.zip",
        str(data),
        f"{data / 'ml-1m'}/",
        "ratings.dat, users.dat, movies.dat",
        "lacks ratings.dat, movies.dat",
        "https://files.grouplens.org/datasets/movielens/ml-1m.zip",
        "RECBIAS_DATA_DIR",
    ):
        assert expected in message
    assert not cache.exists() or list(cache.iterdir()) == []


def test_extracted_folder_wins_over_archive(dirs, ml1m_zip):
    data, _ = dirs
    (data / "ml-1m.zip").write_bytes(ml1m_zip)
    assert fetch.locate(registry.DATASETS["ml-1m"]).origin == data / "ml-1m.zip"
    (data / "ml-1m").mkdir()
    for name, content in ML1M_FILES.items():
        (data / "ml-1m" / name).write_bytes(content)
    assert fetch.locate(registry.DATASETS["ml-1m"]).origin == data / "ml-1m"
    assert datasets.load("ml-1m").n_ratings == 5


def test_archive_inside_its_folder_is_found(dirs, ml1m_zip):
    data, _ = dirs
    (data / "ml-1m").mkdir()
    (data / "ml-1m" / "ml-1m.zip").write_bytes(ml1m_zip)
    assert fetch.locate(registry.DATASETS["ml-1m"]).origin == data / "ml-1m" / "ml-1m.zip"


def test_local_archive_with_wrong_checksum(dirs, ml1m_zip, monkeypatch):
    data, _ = dirs
    other = ml1m_archive(compression=zipfile.ZIP_STORED)
    (data / "ml-1m.zip").write_bytes(other)
    with pytest.raises(ChecksumError) as caught:
        datasets.load("ml-1m")
    error = caught.value
    assert (error.dataset, error.file) == ("ml-1m", str(data / "ml-1m.zip"))
    assert (error.expected, error.actual) == (sha256(ml1m_zip), sha256(other))
    assert not datasets.available("ml-1m")


def test_extracted_file_with_wrong_checksum(dirs, ml1m_zip):
    data, _ = dirs
    (data / "ml-1m").mkdir()
    for name, content in ML1M_FILES.items():
        (data / "ml-1m" / name).write_bytes(content)
    (data / "ml-1m" / "users.dat").write_bytes(ML1M_FILES["users.dat"].replace(b"48067", b"48068"))
    with pytest.raises(ChecksumError, match=r"users\.dat: expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}"):
        datasets.load("ml-1m")


def test_archive_member_with_wrong_checksum(dirs, monkeypatch):
    data, _ = dirs
    archive = ml1m_archive()
    pin(monkeypatch, "ml-1m", archive, {**ML1M_FILES, "movies.dat": b"something else"})
    (data / "ml-1m.zip").write_bytes(archive)
    with pytest.raises(ChecksumError, match=r"ml-1m\.zip:ml-1m/movies\.dat"):
        datasets.load("ml-1m")


def test_truncated_archive(dirs, monkeypatch):
    data, _ = dirs
    truncated = ml1m_archive()[:200]
    pin(monkeypatch, "ml-1m", truncated, ML1M_FILES)
    (data / "ml-1m.zip").write_bytes(truncated)
    with pytest.raises(CorruptArchiveError, match="not a readable zip archive"):
        datasets.load("ml-1m")


def test_damaged_member_fails_its_crc(dirs, monkeypatch):
    data, _ = dirs
    archive = ml1m_archive(compression=zipfile.ZIP_STORED)
    position = archive.index(b"978300760")  # inside the stored ratings.dat
    damaged = archive[:position] + b"8" + archive[position + 1 :]
    pin(monkeypatch, "ml-1m", damaged, ML1M_FILES)
    (data / "ml-1m.zip").write_bytes(damaged)
    with pytest.raises(CorruptArchiveError, match=r"ml-1m/ratings\.dat .* damaged or truncated"):
        datasets.load("ml-1m")


def test_missing_member(dirs, monkeypatch):
    data, _ = dirs
    archive = make_zip({"ml-1m/ratings.dat": ML1M_FILES["ratings.dat"], "ml-1m/users.dat": ML1M_FILES["users.dat"]})
    pin(monkeypatch, "ml-1m", archive, ML1M_FILES)
    (data / "ml-1m.zip").write_bytes(archive)
    with pytest.raises(MissingFileError, match="no member ml-1m/movies.dat"):
        datasets.load("ml-1m")


def test_malformed_line_inside_an_archive(dirs, monkeypatch):
    data, _ = dirs
    files = {**ML1M_FILES, "ratings.dat": ML1M_FILES["ratings.dat"].replace(b"2::10::4::978301968", b"2::10::4")}
    archive = ml1m_archive(files)
    pin(monkeypatch, "ml-1m", archive, files)
    (data / "ml-1m.zip").write_bytes(archive)
    with pytest.raises(MalformedLineError) as caught:
        datasets.load("ml-1m")
    error = caught.value
    assert error.line == 3 and error.text == "2::10::4"
    assert error.file.endswith("ml-1m.zip:ml-1m/ratings.dat")
    assert "expected 4 fields" in str(error)


def test_collections_without_a_download_explain_where_files_go(dirs, monkeypatch):
    data, _ = dirs
    with pytest.raises(OfflineError) as caught:
        datasets.load_qrels("trec8-adhoc")
    message = str(caught.value)
    assert f"{data / 'trec8-adhoc-qrels'}/" in message and "qrels.adhoc.401-450.txt" in message
    assert "https://trec.nist.gov/data/qrels_eng/qrels.trec8.adhoc.parts1-5.tar.gz" in message



def test_interrupted_download_leaves_nothing(dirs, ml1m_zip, monkeypatch):
    _, cache = dirs

    def interrupted(self, url, output_file, pooch_instance):
        with open(output_file, "wb") as handle:
            handle.write(ml1m_zip[: len(ml1m_zip) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(pooch.HTTPDownloader, "__call__", interrupted)
    with pytest.raises(KeyboardInterrupt):
        datasets.load("ml-1m")
    assert list(cache.iterdir()) == []


def test_connection_cut_mid_transfer_leaves_nothing(dirs, ml1m_zip, monkeypatch):
    _, cache = dirs

    class Truncating(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # promises the whole archive, sends half, hangs up
            self.send_response(200)
            self.send_header("Content-Length", str(len(ml1m_zip)))
            self.end_headers()
            self.wfile.write(ml1m_zip[: len(ml1m_zip) // 2])
            self.close_connection = True

        def log_message(self, format, *args):  # noqa: A002 - signature of the base class
            pass

    with serve_with(Truncating) as url:
        monkeypatch.setenv("RECBIAS_DATA_URL", url)
        with pytest.raises(OfflineError, match="downloading .*ml-1m.zip failed"):
            datasets.load("ml-1m")
    assert list(cache.iterdir()) == []

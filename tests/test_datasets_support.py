"""Shared helpers for the dataset tests: isolated directories, tiny archives, a local HTTP server."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import http.server
import io
import socket
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from recbias.datasets import registry
from recbias.ratings import Ratings

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"  # beside the repository, as in CI

# A tiny ML-1M with the official layout: user 4 never rates, movie 11 is never
# rated, ids 7 < 10 test numeric (not text) ordering, and one Latin-1 title.
ML1M_RATINGS = b"1::10::5::978300760\n1::2::3::978302109\n2::10::4::978301968\n3::2::1::978300275\n3::7::5::978824291\n"
ML1M_USERS = b"1::F::1::10::48067\n2::M::56::16::70072\n3::M::25::15::55117\n4::F::45::7::02460\n"
ML1M_MOVIES = (
    "2::Jumanji (1995)::Adventure|Children's|Fantasy\n7::Café Society (1995)::Comedy|Romance\n"
    "10::GoldenEye (1995)::Action|Adventure|Thriller\n11::Unrated (1995)::Drama\n"
).encode("latin-1")
ML1M_FILES = {"ratings.dat": ML1M_RATINGS, "users.dat": ML1M_USERS, "movies.dat": ML1M_MOVIES}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def real_data_dir(folder: str) -> Path:
    """The directory holding ``folder`` (``data/raw`` first, then the shared copy), or skip."""
    for candidate in (ROOT / "data" / "raw", SHARED_DATA):
        if (candidate / folder).is_dir():
            return candidate
    pytest.skip(f"no local copy of {folder}/ in data/raw or {SHARED_DATA}")


def load_real(name: str, **options) -> Ratings:
    """A real dataset through the package's own loader, from ``data/raw`` or the shared copy, or skip."""
    from recbias import datasets

    folder = datasets.info(name).files.folder
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_DATA_DIR", str(real_data_dir(folder)))
        return datasets.load(name, **options)


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    """Empty data and cache directories, and a download URL on a closed local port."""
    data, cache = tmp_path / "raw", tmp_path / "cache"
    data.mkdir()
    monkeypatch.setenv("RECBIAS_DATA_DIR", str(data))
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(cache))
    monkeypatch.setenv("RECBIAS_DATA_URL", f"http://127.0.0.1:{closed_port()}")
    return data, cache


def closed_port() -> int:
    """A local TCP port that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def pin(monkeypatch: pytest.MonkeyPatch, name: str, archive: bytes | None, members: dict[str, bytes]) -> None:
    """Replace the registry pins of dataset ``name`` with those of the given bytes."""
    table = registry.DATASETS if name in registry.DATASETS else registry.QRELS
    info = table[name]
    files = dataclasses.replace(
        info.files,
        pins={member: sha256(data) for member, data in members.items()},
        archive_sha256=None if archive is None else sha256(archive),
    )
    monkeypatch.setitem(table, name, dataclasses.replace(info, files=files))


def ml1m_archive(files: dict[str, bytes] = ML1M_FILES, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip laid out like the official ``ml-1m.zip`` (members under ``ml-1m/``)."""
    return make_zip({f"ml-1m/{name}": data for name, data in files.items()}, compression)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - signature of the base class
        pass


@contextlib.contextmanager
def serve_with(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """Run an HTTP server with ``handler`` on an ephemeral 127.0.0.1 port; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def serve(directory: Path) -> contextlib.AbstractContextManager[str]:
    """Serve the files under ``directory``; yields the base URL."""
    return serve_with(functools.partial(_QuietHandler, directory=str(directory)))

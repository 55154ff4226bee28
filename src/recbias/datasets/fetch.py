"""Locate a dataset's files, verify them against pinned sha256, download if needed.

Search order for a dataset with files ``pins`` in folder ``F`` and archive ``A``:

1. the data directory (``$RECBIAS_DATA_DIR``, else ``<repo>/data/raw``):
   the extracted files ``F/<file>``, else the archive ``A`` or ``F/A``;
2. the cache directory (``$RECBIAS_CACHE_DIR``, else ``<repo>/data/cache``):
   an archive downloaded earlier;
3. a download of the official archive (base URL ``$RECBIAS_DATA_URL``, else
   GroupLens) into the cache directory, verified before it is given its name.

Every archive and every file read is checked against its pin, so a stale or
damaged copy is never parsed.  Files without a pin of their own (the releases whose
publisher gives the archive's checksum only) are read from the verified archive, never
from an extracted folder.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
import zlib
from pathlib import Path

from recbias.datasets.errors import ChecksumError, CorruptArchiveError, MissingFileError, OfflineError
from recbias.datasets.registry import GROUPLENS_URL, DatasetInfo, FileSet
from recbias.paths import cache_dir, data_dir

#: (connect, read) timeouts in seconds; a missing network fails within the first
DOWNLOAD_TIMEOUT = (5.0, 60.0)


def base_url() -> str:
    """Base URL that archive paths are appended to."""
    return (os.environ.get("RECBIAS_DATA_URL") or GROUPLENS_URL).rstrip("/")


def sha256_file(path: Path | str) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class DataFiles:
    """Verified read access to the files of one dataset, from a folder or a zip archive."""

    def __init__(self, dataset: str, files: FileSet, origin: Path) -> None:
        self.dataset, self.files, self.origin = dataset, files, origin

    #: whether the files come from an archive whose own checksum was verified
    archive_verified = False

    def read(self, name: str) -> bytes:
        """The bytes of file ``name``, after checking them against its pin (or, for a file without
        one, after the archive holding it was checked against its own)."""
        data = self._read_raw(name)
        expected = self.files.pins[name]
        if expected is None and self.archive_verified:
            return data
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise ChecksumError(self.dataset, self.label(name), str(expected), actual)
        return data

    def verify(self) -> None:
        """Read and check every pinned file."""
        for name in self.files.pins:
            self.read(name)

    def label(self, name: str) -> str:
        """How file ``name`` is called in messages."""
        return str(self.origin / name)

    def _read_raw(self, name: str) -> bytes:
        path = self.origin / name
        if not path.is_file():
            raise MissingFileError(f"dataset '{self.dataset}': {path} does not exist")
        return path.read_bytes()


class ArchiveFiles(DataFiles):
    """Files read from an official zip archive whose own checksum was verified on opening."""

    archive_verified = True

    def __init__(self, dataset: str, files: FileSet, origin: Path) -> None:
        super().__init__(dataset, files, origin)
        actual = sha256_file(origin)
        if actual != files.archive_sha256:
            raise ChecksumError(
                dataset, str(origin), str(files.archive_sha256), actual,
                "Replace it with the official archive (or delete it to download it again)",
            )
        try:
            with zipfile.ZipFile(origin) as archive:
                self._members = set(archive.namelist())
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            message = f"dataset '{dataset}': {origin} is not a readable zip archive: {error}"
            raise CorruptArchiveError(message) from error

    def label(self, name: str) -> str:
        return f"{self.origin}:{self._member(name)}"

    def _member(self, name: str) -> str:
        for candidate in (f"{self.files.folder}/{name}", name):
            if candidate in self._members:
                return candidate
        raise MissingFileError(
            f"dataset '{self.dataset}': archive {self.origin} has no member {self.files.folder}/{name} or {name}"
        )

    def _read_raw(self, name: str) -> bytes:
        member = self._member(name)
        try:
            with zipfile.ZipFile(self.origin) as archive:
                return archive.read(member)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as error:
            raise CorruptArchiveError(
                f"dataset '{self.dataset}': member {member} of {self.origin} is damaged or truncated: {error}"
            ) from error


def locate(info: DatasetInfo) -> DataFiles | None:
    """The local copy of a dataset (data directory, then cache), or ``None``; never downloads."""
    files = _file_set(info)
    folder = data_dir() / files.folder
    if not files.archive_only and all((folder / name).is_file() for name in files.pins):
        return DataFiles(info.name, files, folder)
    archives = () if files.archive is None else (data_dir(), folder, cache_dir())
    for candidate in (directory / str(files.archive) for directory in archives):
        if candidate.is_file():
            return ArchiveFiles(info.name, files, candidate)
    return None


def open_files(info: DatasetInfo) -> DataFiles:
    """The local copy of a dataset, downloading the official archive when there is none."""
    local = locate(info)
    if local is not None:
        return local
    files = _file_set(info)
    if files.url_path is None:
        raise OfflineError(_where_to_put(info, "no download with a pinned checksum exists for it"))
    return ArchiveFiles(info.name, files, download(info))


def download(info: DatasetInfo) -> Path:
    """Fetch the official archive into the cache directory and return its path.

    The bytes go to a temporary file next to the target, are checked against the
    pin, and only then renamed (``os.replace``); any failure or interruption
    removes the temporary file, so the cache never holds a partial archive.
    """
    import pooch  # deferred: pooch imports requests, which is slow to import
    import requests

    files = _file_set(info)
    url = files.url_path if "://" in str(files.url_path) else f"{base_url()}/{files.url_path}"
    target = cache_dir() / str(files.archive)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{files.archive}.", suffix=".part", dir=target.parent)
    os.close(handle)
    try:
        downloader = pooch.HTTPDownloader(progressbar=False, timeout=DOWNLOAD_TIMEOUT)
        try:
            downloader(url, temporary, None)
        except requests.RequestException as error:
            raise OfflineError(_where_to_put(info, f"downloading {url} failed ({error})")) from error
        actual = sha256_file(temporary)
        if actual != files.archive_sha256:
            raise ChecksumError(info.name, url, str(files.archive_sha256), actual, "The download was discarded")
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return target


def _file_set(info: DatasetInfo) -> FileSet:
    if info.files is None:
        raise ValueError(f"dataset '{info.name}' is generated, it has no files")
    return info.files


def _where_to_put(info: DatasetInfo, reason: str) -> str:
    """The message of an :class:`OfflineError`: why, and exactly where a local copy would be found."""
    files = _file_set(info)
    folder = data_dir() / files.folder
    names = ", ".join(files.pins)
    parts = [f"dataset '{info.name}' is not available: {reason}."]
    if folder.is_dir():
        missing = [name for name in files.pins if not (folder / name).is_file()]
        parts.append(f"The folder {folder} lacks {', '.join(missing)}.")
    if files.archive_only:
        parts.append(f"Put the official archive {files.archive} in {data_dir()} (or in {folder}); its files have "
                     f"no checksums of their own, so extracted copies are not read (official source: {info.url}).")
    else:
        if files.archive is not None:
            parts.append(f"Put the official archive {files.archive} in {data_dir()} (or in {folder}), or")
        else:
            parts.append("Put")
        parts.append(f"the extracted files {names} in {folder}/ (official source: {info.url}).")
    parts.append("Set RECBIAS_DATA_DIR to use another data directory.")
    return " ".join(parts)

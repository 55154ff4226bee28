"""On-disk cache of fitted recommenders, of generated worlds and of measurements.

A fit is stored under a key that hashes everything it depends on: the
training data content (code space, ratings, and the positive threshold when
the recommender reads it: :meth:`Recommender.uses_positive_threshold`), the
recommender's class and constructor parameters (but those it reads only when
scoring, so that recommenders differing in them share one fit), the package version and an
optional caller-chosen ``key_extra`` (e.g. dataset name and split).  A book
rebuild therefore loads every fit it has made before.

Each entry holds its own key and a fingerprint of the code that produced it (the
source of the recommender's modules and of every recbias module they import, and
the versions of the third-party packages those import).  An entry found under
another key's name (copied or renamed) or written by other code is refitted, and
so is a damaged one (each entry carries the sha256 of its payload).  The arrays of an entry are
stored as aligned buffers beside its pickle stream (PEP 574), so a load reads them in place.  Entries are
written to a temporary file and moved into place with ``os.replace``; a cache that
cannot be written (read-only, full disk) leaves the fits in memory.

Generated worlds (the synthetic presets) are kept the same way under ``worlds/``
(:func:`world_cached`), keyed by preset and options and checked against the
fingerprint of the simulation's code: a page loads the world another page drew.  Any other object is kept
the same way with :func:`load_entry` and :func:`store_entry` (the measures of :mod:`recbias.protocol_study.stored`
under ``measures/``).

Such events are reported once each: to the file named by ``$RECBIAS_CACHE_REPORT``
when set (the book's build tool prints it at the terminal, never on a page), else
through the ``recbias.cache`` logger.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import json
import logging
import os
import pickle
import secrets
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, TypeVar

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: fits are then made without locks
    fcntl = None

import numpy as np

import recbias
from recbias.paths import cache_dir
from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.recommenders.factory import parameter_names

_MAGIC = b"RECBIAS-FIT-3\n"
#: layout of the fitted state; raised whenever a recommender's fitted attributes change, so
#: that entries written by an older layout are refitted instead of loaded
FIT_LAYOUT = 4
_DIGEST_SIZE = 32
#: bytes an entry's array buffers are aligned to, within its payload and so within the buffer it is read into
_ALIGN = 64
#: file that receives the cache's reports (set by the book's build tool)
REPORT_VARIABLE = "RECBIAS_CACHE_REPORT"
#: a temporary file whose writer is unknown and that is older than this is left from a killed writer
STALE_SECONDS = 600
#: the directory, inside the fits directory, of the locks that let pages built at once fit each key once
LOCKS = ".locks"

R = TypeVar("R", bound=Recommender)
_logger = logging.getLogger(__name__)
_reported: set[str] = set()
#: ratings object -> {threshold flag: digest}; entries go with their ratings
_digests: weakref.WeakKeyDictionary[Ratings, dict[bool, str]] = weakref.WeakKeyDictionary()


def fits_dir() -> Path:
    """Where fitted recommenders live: ``fits/`` under the shared cache directory.

    The cache directory is ``$RECBIAS_CACHE_DIR``, else ``data/cache`` of the project being
    worked on (:func:`recbias.paths.cache_dir`).
    """
    return cache_dir() / "fits"


def worlds_dir() -> Path:
    """Where generated worlds live: ``worlds/`` under the shared cache directory."""
    return cache_dir() / "worlds"


def measures_dir() -> Path:
    """Where measurements live (:mod:`recbias.protocol_study.stored`): ``measures/`` under the shared cache
    directory."""
    return cache_dir() / "measures"


def report(message: str) -> None:
    """Tell the person running the build, once per process, that the cache did something unexpected."""
    if message in _reported:
        return
    _reported.add(message)
    target = os.environ.get(REPORT_VARIABLE)
    if target:
        try:
            with open(target, "a") as handle:
                handle.write(message.replace("\n", " ") + "\n")
            return
        except OSError:
            pass
    _logger.warning(message)


def ratings_digest(ratings: Ratings, threshold: bool = True) -> str:
    """sha256 over the shape, the positive threshold (unless ``threshold`` is false), user and item codes
    and values; computed once per ratings object (their columns are read-only), however many fits it keys."""
    known = _digests.setdefault(ratings, {})
    if threshold not in known:
        digest = hashlib.sha256()
        digest.update(repr((ratings.shape, float(ratings.positive_threshold) if threshold else None)).encode())
        for column, dtype in ((ratings.users, np.int64), (ratings.items, np.int64), (ratings.values, np.float64)):
            digest.update(np.ascontiguousarray(column, dtype=dtype).tobytes())
        known[threshold] = digest.hexdigest()
    return known[threshold]


def recommender_params(recommender: Recommender) -> dict[str, Any]:
    """Constructor parameters, read from the attributes of the same names."""
    names = parameter_names(type(recommender))
    missing = [name for name in names if not hasattr(recommender, name)]
    if missing:
        raise TypeError(f"{type(recommender).__name__} does not store constructor parameters {missing} as attributes")
    return {name: getattr(recommender, name) for name in names}


def fit_key(recommender: Recommender, train: Ratings, key_extra: Any = None) -> str:
    """Hex sha256 naming the fit of ``recommender`` on ``train``: its class, its parameters but those read only
    when scoring (:attr:`~recbias.recommenders.base.Recommender.scoring_parameters`), the data and ``key_extra``."""
    cls = type(recommender)
    fit_params = {name: value for name, value in recommender_params(recommender).items()
                  if name not in cls.scoring_parameters}
    description = {
        "version": recbias.__version__,
        "layout": FIT_LAYOUT,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "params": fit_params,
        "data": ratings_digest(train, recommender.uses_positive_threshold()),
        "extra": key_extra,
    }
    text = json.dumps(description, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    return Path(file) if file and file.endswith(".py") else None


def _imports(name: str, file: Path) -> tuple[set[str], set[str]]:
    """The recbias modules and the third-party top-level packages that module ``name`` imports."""
    own, third = set(), set()
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(file.read_bytes())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            top = target.split(".")[0]
            if top == "recbias":
                if target in sys.modules:
                    own.add(target)
            elif top and top not in sys.stdlib_module_names and top != "__future__":
                third.add(top)
    return own, third


@functools.cache
def _distributions() -> dict[str, list[str]]:
    """Top-level import names -> the installed distributions providing them."""
    return importlib.metadata.packages_distributions()


@functools.cache
def code_fingerprint(cls: type) -> str:
    """sha256 of the code behind ``cls``: the source of the modules of its classes and of every recbias
    module they import (transitively), and the versions of the third-party packages those import."""
    return modules_fingerprint(*(c.__module__ for c in cls.__mro__ if c.__module__ not in ("builtins", "abc")))


def modules_fingerprint(*names: str) -> str:
    """sha256 of the source of the modules ``names`` and of every recbias module they import
    (transitively), and of the versions of the third-party packages those import."""
    pending = list(names)
    seen: dict[str, bytes] = {}
    packages: set[str] = set()
    while pending:
        name = pending.pop()
        file = _module_file(name)
        if name in seen or file is None:
            continue
        seen[name] = file.read_bytes()
        own, third = _imports(name, file)
        pending.extend(own - set(seen))
        packages |= third
    distributions = _distributions()
    versions = sorted({(d, importlib.metadata.version(d)) for p in packages for d in distributions.get(p, [])})
    digest = hashlib.sha256(repr(versions).encode())
    for name in sorted(seen):
        digest.update(name.encode() + b"\0" + hashlib.sha256(seen[name]).digest())
    return digest.hexdigest()


def _part_offsets(sizes: list[int]) -> list[int]:
    """Offsets in an entry's payload of its parts of ``sizes`` bytes: the pickle stream at 0, then each array
    buffer at the next multiple of :data:`_ALIGN`, so that arrays read in place are aligned."""
    offsets, position = [], 0
    for size in sizes:
        position += -position % _ALIGN
        offsets.append(position)
        position += size
    return offsets


def _read_entry(path: Path) -> tuple[dict[str, Any], Any]:
    """The header (key, code fingerprint) and the unpickled object of a verified entry; ``ValueError`` if damaged.

    The payload is read once into one buffer, and the arrays of the object are views of it (out-of-band pickle
    buffers, PEP 574): a large fit is neither copied out of the file's bytes nor held twice while it loads."""
    with open(path, "rb") as stream:
        if stream.readline() != _MAGIC:
            raise ValueError(f"{path}: not a fit cache entry of this version (bad header)")
        try:
            header = json.loads(stream.readline())
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(f"{path}: not a fit cache entry (unreadable header)") from None
        parts = header.get("parts") if isinstance(header, dict) else None
        if (not isinstance(parts, list) or not parts or not all(type(n) is int and n >= 0 for n in parts)
                or not {"key", "code"} <= set(header)):
            raise ValueError(f"{path}: not a fit cache entry (header without key, code and parts)")
        digest = stream.read(_DIGEST_SIZE)
        size = os.fstat(stream.fileno()).st_size - stream.tell()
        offsets = _part_offsets(parts)
        if len(digest) < _DIGEST_SIZE or offsets[-1] + parts[-1] != size:
            raise ValueError(f"{path}: its payload is not as long as its header says (truncated or damaged)")
        payload = np.empty(size, dtype=np.uint8)
        if stream.readinto(memoryview(payload)) != size:
            raise ValueError(f"{path}: changed while it was read")
    view = memoryview(payload)
    if hashlib.sha256(view).digest() != digest:
        raise ValueError(f"{path}: payload does not match its checksum (truncated or damaged)")
    pieces = [view[offset : offset + length] for offset, length in zip(offsets, parts)]
    return {name: header[name] for name in ("key", "code")}, pickle.loads(pieces[0], buffers=pieces[1:])


def _temporary(path: Path) -> Path:
    """A new temporary name beside ``path`` that names its writer: ``.<key>.<pid>.<random>.tmp``."""
    return path.with_name(f".{path.stem}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _write_entry(path: Path, header: dict[str, Any], stored: Any) -> None:
    """Write atomically: temporary file in the same directory (the user's umask applies), then ``os.replace``.

    The layout (:func:`_read_entry`): the magic line; the header as one JSON line, with the sizes of the parts;
    the sha256 of the payload; the payload: the pickle stream of ``stored``, then the buffers of its arrays, each
    aligned (:func:`_part_offsets`), written from the arrays themselves rather than copied into the stream."""
    path.parent.mkdir(parents=True, exist_ok=True)
    buffers: list[pickle.PickleBuffer] = []
    parts = [memoryview(pickle.dumps(stored, protocol=5, buffer_callback=buffers.append))]
    parts += [buffer.raw() for buffer in buffers]
    sizes = [part.nbytes for part in parts]
    offsets = _part_offsets(sizes)
    pieces: list[bytes | memoryview] = []
    for part, offset, end in zip(parts, offsets, [0] + [o + n for o, n in zip(offsets, sizes)]):
        pieces += [bytes(offset - end), part]  # the padding that aligns the part, then the part
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    temporary = _temporary(path)
    try:
        with open(temporary, "xb") as file:
            file.write(_MAGIC + json.dumps({**header, "parts": sizes}, sort_keys=True).encode() + b"\n")
            file.write(digest.digest())
            for piece in pieces:
                file.write(piece)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _writer_alive(temporary: Path) -> bool:
    """Whether the process named in a temporary file's name still runs (unknown writer: whether it is recent)."""
    parts = temporary.name.split(".")
    if len(parts) == 5 and parts[2].isdigit():
        try:
            os.kill(int(parts[2]), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return time.time() - temporary.stat().st_mtime < STALE_SECONDS


def remove_stale_temporaries(directory: Path | str | None = None) -> list[Path]:
    """Delete temporary files that writers killed before their rename left in ``directory`` (default: the
    fits, the worlds and the measures directories), and lock files no process holds; returns them."""
    folders = [Path(directory)] if directory is not None else [fits_dir(), worlds_dir(), measures_dir()]
    removed = []
    for temporary in (path for folder in folders if folder.is_dir() for path in folder.glob(".*.tmp")):
        try:
            if not _writer_alive(temporary):
                temporary.unlink()
                removed.append(temporary)
        except OSError:
            continue
    for lock in (path for folder in folders if (folder / LOCKS).is_dir() for path in (folder / LOCKS).iterdir()):
        handle = _lock(lock, wait=False) if fcntl is not None else None
        if handle is not None:  # nobody is making that entry: the file is a leftover
            with handle:
                lock.unlink(missing_ok=True)
            removed.append(lock)
    return removed


def _read_sound(path: Path, redo: str) -> tuple[dict[str, Any], Any] | None:
    """The entry at ``path`` (:func:`_read_entry`); None if there is none, or if it is damaged, which is
    reported as ``"<redo>: <why>"``."""
    try:
        return _read_entry(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError) as error:
        report(f"{redo}: {error}")
        return None


def _load(path: Path, recommender: Recommender, key: str, code: str) -> bool:
    """Load the entry at ``path`` into ``recommender`` if it is sound and current; reports why not.
    The recommender keeps its name and its scoring parameters."""
    cls = type(recommender).__name__
    entry = _read_sound(path, f"refitting {recommender.name}")
    if entry is None:
        return False
    header, cached = entry
    if header["key"] != key:
        report(f"refitting {recommender.name}: {path} holds the fit stored under key {str(header['key'])[:12]} "
               "(an entry copied under another name)")
        return False
    if header["code"] != code or type(cached) is not type(recommender):
        report(f"refitting {cls}: its code changed since its fits were cached")
        return False
    own = {name: getattr(recommender, name) for name in ("name", *type(recommender).scoring_parameters)}
    vars(recommender).update(vars(cached))
    vars(recommender).update(own)
    return True


@contextmanager
def making(folder: Path, key: str) -> Iterator[None]:
    """Hold the lock of entry ``key`` (``fcntl.flock`` on ``LOCKS/<key>``) while it is made: a process that
    needs an entry another one is making waits for it and then loads it, so pages built at once (the book's
    parallel jobs) make each key once.  The holder removes the lock file before it lets go, so locks do not
    pile up; a waiter that then holds a removed file opens the path again.  Without locks (a cache that
    cannot be written, a platform or file system without them) the entry is made unlocked."""
    handle = _lock(folder / LOCKS / key) if fcntl is not None else None
    if handle is None:
        yield
        return
    with handle:
        try:
            yield
        finally:
            (folder / LOCKS / key).unlink(missing_ok=True)  # while still held: see _lock


def _lock(path: Path, *, wait: bool = True) -> IO[str] | None:
    """An open handle holding ``fcntl.flock`` on the file now at ``path`` (made if need be); None when it cannot
    be locked, or (``wait=False``) when another process holds it."""
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a")
        except OSError:
            return None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return None
        try:
            if os.fstat(handle.fileno()).st_ino == os.stat(path).st_ino:
                return handle
        except FileNotFoundError:
            pass
        handle.close()  # its holder removed it while this process waited: lock the path's new file


def fit_cached(recommender: R, train: Ratings, key_extra: Any = None, directory: Path | str | None = None) -> R:
    """``recommender.fit(train)``, or the same fit loaded from the cache.

    The fitted state is loaded into ``recommender`` itself, which is returned.  A damaged
    entry, an entry under another key's name or one written by other code is refitted
    and rewritten; a cache that cannot be written keeps the fit in memory only.  Each is
    reported once (:func:`report`).  A fit that another process is making is waited for
    and loaded (:func:`making`).  ``directory`` overrides :func:`fits_dir`.
    """
    key = fit_key(recommender, train, key_extra)
    code = code_fingerprint(type(recommender))
    folder = Path(directory) if directory is not None else fits_dir()
    path = folder / f"{key}.pkl"
    if _load(path, recommender, key, code):
        return recommender
    with making(folder, key):
        if _load(path, recommender, key, code):  # made meanwhile by a page built at once
            return recommender
        recommender.fit(train)
        store_entry(path, key, code, recommender, "fits")
    return recommender


def load_entry(path: Path, key: str, code: str, redo: str) -> Any | None:
    """The object stored at ``path`` under ``key`` by code of fingerprint ``code``; None when there is none or it
    was stored under another key or by other code, or when it is damaged (reported as ``"<redo>: <why>"``)."""
    entry = _read_sound(path, redo)
    if entry is None:
        return None
    header, stored = entry
    return stored if header["key"] == key and header["code"] == code else None


def store_entry(path: Path, key: str, code: str, stored: Any, what: str) -> None:
    """Keep ``stored`` at ``path`` under ``key`` and ``code`` (atomically); a cache that cannot be written is
    reported, naming ``what`` it keeps, and the object stays in memory only."""
    try:
        _write_entry(path, {"key": key, "code": code}, stored)
    except OSError as error:
        report(f"cannot store {what} in {path.parent} ({error.strerror or error}); keeping them in memory only")


def _load_world(path: Path, key: str, code: str) -> Ratings | None:
    """The world stored at ``path`` if it is sound and current (a damaged entry is reported)."""
    world = load_entry(path, key, code, "drawing the world again")
    # validated again, and its columns read-only again (unpickled arrays are writable)
    return replace(world) if isinstance(world, Ratings) else None


def world_cached(generate: Callable[..., Ratings], preset: str, options: dict[str, Any],
                 directory: Path | str | None = None) -> Ratings:
    """``generate(preset=preset, **options)``, a world drawn by a simulation, or the same world loaded
    from the cache.

    The key hashes the preset, the options and the package version; the entry also holds the
    fingerprint of the module that defines ``generate`` and of all it imports, so a world drawn by
    other code is drawn again.  A world that another process is drawing is waited for and loaded.
    ``directory`` overrides :func:`worlds_dir`.
    """
    text = json.dumps({"version": recbias.__version__, "preset": preset, "options": options},
                      sort_keys=True, default=repr)
    key = hashlib.sha256(text.encode()).hexdigest()
    code = modules_fingerprint(generate.__module__)
    folder = Path(directory) if directory is not None else worlds_dir()
    path = folder / f"{key}.pkl"
    world = _load_world(path, key, code)
    if world is not None:
        return world
    with making(folder, key):
        world = _load_world(path, key, code)  # drawn meanwhile by a page built at once
        if world is not None:
            return world
        world = generate(preset=preset, **options)
        store_entry(path, key, code, world, "worlds")
    return world

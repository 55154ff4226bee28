"""What a build leaves on disk for each page, committed all at once, and read back with validation.

Each executed page has one *set* of outputs, a directory ``_build/pages/.<page>.<build>/``::

    <page>.ipynb      the executed notebook
    claims.json       {"build": ..., "page": ..., "claims": [claim, ...]}
    provenance.json   how the page was built, with the same "build"
    <page>.log        the worker's and the kernel's stderr

The set is committed by one ``rename``: the symbolic link ``_build/pages/<page>`` is replaced by
one pointing at the new set.  The paths readers know are fixed links through it (the notebook in
``book/``, ``_build/results/<page>.json``, ``_build/results/provenance/<page>.json`` and
``_build/logs/<page>.log``), so whatever moment a build is killed at, every reader sees the old set
whole or the new set whole.

Claims and provenance files are validated when read: any damage is a :class:`ResultsError` naming
the file and what is wrong, and so is a page whose claims and provenance come from different builds.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
import typing
from collections.abc import Iterator
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

PAGES = Path("_build") / "pages"
RESULTS = Path("_build") / "results"
PROVENANCE = RESULTS / "provenance"
LOGS = Path("_build") / "logs"
FAILED = Path("_build") / "failed"
CLAIMS_FILE = "claims.json"
PROVENANCE_FILE = "provenance.json"

#: provenance fields and their JSON types; ``build`` is absent only in files of older builds
PROVENANCE_FIELDS: dict[str, tuple[type, ...]] = {
    "dataset": (str,), "seed": (int,), "version": (str,), "commit": (str,), "dirty": (bool,),
    "data": (dict,), "date": (str,), "parameters": (dict,), "build": (str,), "csv": (dict,),
}
REQUIRED_PROVENANCE = ("dataset", "seed", "commit", "date")
#: a temporary link older than this belongs to a build that was killed between creating and renaming it
STALE_LINK_SECONDS = 60


class ResultsError(ValueError):
    """A claims or provenance file that is damaged, or claims and provenance from different builds."""


def new_build_id() -> str:
    """A fresh identifier for one run of the build tool (random, so concurrent builds never share one)."""
    return secrets.token_hex(6)


def set_name(page: str, build: str) -> str:
    """The directory name of ``page``'s output set from ``build``."""
    return f".{page}.{build}"


def set_build(directory: Path) -> str:
    """The build id in a set directory's name (``.<page>.<build>``)."""
    return directory.name.rsplit(".", 1)[-1]


# ---------------------------------------------------------------------------------------------------
# writing and committing


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to a new file ``path`` (created with the user's umask)."""
    with open(path, "w") as handle:
        json.dump(value, handle, indent=1)


def page_links(root: Path, page: str, notebook: Path) -> dict[Path, Path]:
    """The fixed paths readers use for ``page``'s outputs, each with the file of the set it shows."""
    current = root / PAGES / page
    return {
        notebook: current / f"{page}.ipynb",
        root / RESULTS / f"{page}.json": current / CLAIMS_FILE,
        root / PROVENANCE / f"{page}.json": current / PROVENANCE_FILE,
        root / LOGS / f"{page}.log": current / f"{page}.log",
    }


def point(link: Path, target: Path) -> None:
    """Make ``link`` a relative symbolic link to ``target``, atomically (a new link, then ``rename``)."""
    relative = os.path.relpath(target, link.parent)
    if link.is_symlink() and os.readlink(link) == relative:
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    temporary = link.with_name(f".{link.name}.{secrets.token_hex(4)}.link")
    os.symlink(relative, temporary)
    try:
        os.replace(temporary, link)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def commit(root: Path, page: str, staged: Path, build: str, notebook: Path) -> Path:
    """Make the complete set ``staged`` the current outputs of ``page``; returns the set's directory.

    Steps: move the set beside the others (a name no reader uses), swap the link
    ``_build/pages/<page>`` to it (the one rename that commits), make sure the fixed links
    exist, then remove the previous set and the page's last failure.  A kill before the swap
    leaves the old set current and an orphan set that :func:`remove_stale` deletes.
    """
    pages = root / PAGES
    pages.mkdir(parents=True, exist_ok=True)
    final = pages / set_name(page, build)
    os.replace(staged, final)
    current = pages / page
    previous = pages / os.readlink(current) if current.is_symlink() else None
    point(current, final)
    for link, target in page_links(root, page, notebook).items():
        point(link, target)
    if previous is not None and previous != final:
        shutil.rmtree(previous, ignore_errors=True)
    for leftover in (root / FAILED / f"{page}.ipynb", root / FAILED / f"{page}.log"):
        leftover.unlink(missing_ok=True)
    return final


def deliver(staged: Path, destination: Path, page: str) -> list[Path]:
    """Move every file of the complete set ``staged`` of ``page``, built apart from the book, into
    ``destination``, each replacing the file of its name in one rename, and remove the page's last failure kept
    there (:func:`keep_failure` with ``into``); the book's sets and links are left alone.  Returns the files."""
    destination.mkdir(parents=True, exist_ok=True)
    moved = []
    for path in sorted(staged.iterdir()):
        if path.is_file():
            os.replace(path, destination / path.name)
            moved.append(destination / path.name)
    shutil.rmtree(staged, ignore_errors=True)
    for leftover in (destination / FAILED.name / f"{page}.ipynb", destination / FAILED.name / f"{page}.log"):
        leftover.unlink(missing_ok=True)
    return moved


def relink(root: Path, page: str, notebook: Path) -> bool:
    """Restore the fixed links of ``page``'s current set where they were removed or replaced; False when the
    page has no set (it was never built)."""
    if not (root / PAGES / page).is_dir():
        return False
    for link, target in page_links(root, page, notebook).items():
        point(link, target)
    return True


def keep_failure(root: Path, page: str, notebook: Path | None, log: Path,
                 into: Path | None = None) -> tuple[Path | None, Path]:
    """Move a failed page's executed notebook and log to ``_build/failed/`` and point its log link there.

    The page's current set (its last good build) stays as it is.  Returns the kept notebook
    (``None`` when the page never got that far, or its worker was killed before writing it) and log.
    A page built apart from the book keeps them in ``into`` instead, and no link of the book changes.
    """
    failed = into or root / FAILED
    failed.mkdir(parents=True, exist_ok=True)
    kept_notebook = None
    (failed / f"{page}.ipynb").unlink(missing_ok=True)  # an older failure's notebook is not this one's
    if notebook is not None and notebook.exists() and notebook.stat().st_size > 0:  # empty: killed while writing
        kept_notebook = failed / f"{page}.ipynb"
        os.replace(notebook, kept_notebook)
    kept_log = failed / f"{page}.log"
    if log.exists():
        os.replace(log, kept_log)
    else:
        kept_log.write_text("")
    if into is None:
        point(root / LOGS / f"{page}.log", kept_log)
    return kept_notebook, kept_log


def remove_stale(root: Path, live_builds: set[str]) -> None:
    """Delete output sets that no page link points at and that no live build is about to commit, and
    temporary links that a killed build never renamed into place."""
    pages = root / PAGES
    if not pages.is_dir():
        return
    current = {os.readlink(link) for link in pages.iterdir() if link.is_symlink()}
    for directory in pages.iterdir():
        if directory.name.startswith(".") and directory.is_dir() and not directory.is_symlink():
            if directory.name not in current and set_build(directory) not in live_builds:
                shutil.rmtree(directory, ignore_errors=True)
    for folder in (pages, root / RESULTS, root / PROVENANCE, root / LOGS, root / "book"):
        for link in folder.glob(".*.link") if folder.is_dir() else ():
            if link.is_symlink() and time.time() - link.lstat().st_mtime > STALE_LINK_SECONDS:
                link.unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------------
# reading and validating


def _json(path: Path, what: str) -> Any:
    """The JSON value in ``path``, or :class:`ResultsError` saying why it cannot be read."""
    try:
        text = path.read_bytes().decode("utf-8")
        return json.loads(text)
    except FileNotFoundError:
        raise ResultsError(f"{path}: the {what} file is missing (its page set was removed; rebuild the page)") from None
    except UnicodeDecodeError:
        raise ResultsError(f"{path}: not a {what} file (binary content, not UTF-8 text)") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}: not a {what} file (invalid JSON: {error})") from None


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def _admits(types: tuple[type, ...], value: Any) -> bool:
    if isinstance(value, bool):
        return bool in types
    if float in types and isinstance(value, (int, float)):
        return True
    return isinstance(value, types)


def claim_schema(record_type: type) -> tuple[dict[str, tuple[type, ...]], set[str]]:
    """Field types and required fields of a claim record, read from its dataclass."""
    hints = typing.get_type_hints(record_type)
    types = {f.name: (hints[f.name],) for f in fields(record_type)}
    required = {f.name for f in fields(record_type) if f.default is MISSING and f.default_factory is MISSING}
    return types, required


#: the outcomes a finding can have (recbias.bookkit.claims)
OUTCOMES = ("holds", "fails", "inconclusive", "measured", "not checked")


def check_claims(value: Any, path: Path, record_type: type) -> list[dict[str, Any]]:
    """The claim records of a claims list, or :class:`ResultsError` naming the first wrong one."""
    if not isinstance(value, list):
        raise ResultsError(f"{path}: the claims should be a list, found {_kind(value)}")
    types, required = claim_schema(record_type)
    for position, record in enumerate(value, 1):
        where = f"{path}: claim {position}"
        if not isinstance(record, dict):
            raise ResultsError(f"{where} should be an object, found {_kind(record)}")
        where += f" ({record['key']!r})" if isinstance(record.get("key"), str) else ""
        unknown = sorted(set(record) - set(types))
        missing = sorted(required - set(record))
        if unknown or missing:
            parts = ([f"unknown field(s) {', '.join(unknown)}"] if unknown else []) + (
                [f"missing field(s) {', '.join(missing)}"] if missing else [])
            raise ResultsError(f"{where}: {'; '.join(parts)}")
        for name, item in record.items():
            if not _admits(types[name], item):
                expected = " or ".join(_kind(t()) for t in types[name])
                raise ResultsError(f"{where}: field {name!r} should be {expected}, found {item!r}")
        if record.get("kind") == "finding" and record.get("outcome") not in OUTCOMES:
            raise ResultsError(f"{where}: outcome {record.get('outcome')!r} is none of {', '.join(OUTCOMES)}")
    return value


def read_claims(path: Path, record_type: type) -> tuple[str | None, list[dict[str, Any]]]:
    """The build id (``None`` for a bare list written outside a build) and the records of a claims file."""
    value = _json(path, "claims")
    if isinstance(value, list):
        return None, check_claims(value, path, record_type)
    if not isinstance(value, dict) or set(value) != {"build", "page", "claims"}:
        raise ResultsError(f"{path}: the claims should be a list, or an object with build, page and claims; "
                           f"found {_kind(value)}" + (f" with keys {', '.join(map(str, value))}"
                                                      if isinstance(value, dict) and value else ""))
    if not isinstance(value["build"], str):
        raise ResultsError(f"{path}: 'build' should be a string, found {value['build']!r}")
    return value["build"], check_claims(value["claims"], path, record_type)


def read_provenance(path: Path) -> dict[str, Any]:
    """A page's provenance record, or :class:`ResultsError` naming what is wrong."""
    value = _json(path, "provenance")
    if not isinstance(value, dict):
        raise ResultsError(f"{path}: the provenance should be an object, found {_kind(value)}")
    missing = [name for name in REQUIRED_PROVENANCE if name not in value]
    if missing:
        raise ResultsError(f"{path}: the provenance lacks {', '.join(missing)}")
    for name, item in value.items():
        types = PROVENANCE_FIELDS.get(name)
        if types is None:
            raise ResultsError(f"{path}: unknown provenance field {name!r}")
        if not _admits(types, item):
            raise ResultsError(f"{path}: provenance field {name!r} should be {_kind(types[0]())}, found {item!r}")
    return value


def provenance_records(results_dir: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(page, record)`` for every provenance file under ``results_dir``, validated."""
    for path in sorted((Path(results_dir) / "provenance").glob("*.json")):
        yield path.stem, read_provenance(path)


def claim_records(results_dir: str | Path, record_type: type) -> list[dict[str, Any]]:
    """Every claim record under ``results_dir``, page by page, validated against ``record_type``.

    A page's claims and provenance must carry the same build id; the pages where they do not
    are named together in one :class:`ResultsError`.  A bare claims list (a page run outside
    the build) needs no provenance.
    """
    results_dir = Path(results_dir)
    builds = {page: record.get("build") for page, record in provenance_records(results_dir)}
    records: list[dict[str, Any]] = []
    mixed = []
    claim_pages = set()
    for path in sorted(results_dir.glob("*.json")):
        build, page_records = read_claims(path, record_type)
        claim_pages.add(path.stem)
        if path.stem not in builds:
            if build is not None:
                mixed.append(f"{path.stem} (claims of build {build}, no provenance)")
        elif build != builds[path.stem]:
            mixed.append(f"{path.stem} (claims of build {build or 'unknown'}, provenance of build "
                         f"{builds[path.stem] or 'unknown'})")
        records.extend(page_records)
    mixed.extend(f"{page} (provenance of build {build}, no claims)"
                 for page, build in builds.items() if build is not None and page not in claim_pages)
    if mixed:
        raise ResultsError(f"{results_dir}: the claims and provenance of these pages come from different builds: "
                           f"{'; '.join(sorted(mixed))}. Rebuild those pages.")
    return records

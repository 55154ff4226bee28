"""The order in which a build starts its pages: the longest first, as the last builds timed them.

With two jobs, a build ends when its slower job does; starting the longest pages first keeps
the two jobs even (the longest-processing-time rule of Graham, SIAM J. Appl. Math. 1969,
within 4/3 of the best schedule).  A page's length is unknown until it has run, so every
build records the wall seconds of the pages it executed in ``_build/page-seconds.json``, per
dataset, and the next build orders its pages by them: by the record of its own dataset, else
by the record of the dataset built last (pages weigh alike across datasets).  Pages without a
time start first, in book order; so does everything on a first build.  The record only orders
the work: no page reads it, and a missing or unreadable one is the same as none.

>>> order_by_seconds(["01_a", "02_b", "03_c", "04_d"], {"01_a": 5.0, "02_b": 90.0, "04_d": 40.0})
['03_c', '02_b', '04_d', '01_a']
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

#: the record of page times, in the book's ``_build`` directory
RECORD_FILE = "page-seconds.json"


def order_by_seconds(names: Sequence[str], seconds: Mapping[str, float]) -> list[str]:
    """``names`` with those without a time first (in their order), then the rest by decreasing time
    (equal times in their order)."""
    unknown = [name for name in names if name not in seconds]
    known = sorted((name for name in names if name in seconds), key=lambda name: -seconds[name])
    return unknown + known


def recorded_seconds(build_dir: Path, dataset: str) -> dict[str, float]:
    """The page times recorded for ``dataset``, else for the dataset built last; ``{}`` when none."""
    record = _read(build_dir / RECORD_FILE)
    datasets = record.get("datasets", {})
    return dict(datasets.get(dataset) or datasets.get(record.get("latest"), {}))


def record_seconds(build_dir: Path, dataset: str, seconds: Mapping[str, float]) -> None:
    """Add the wall ``seconds`` of the pages a build of ``dataset`` executed to the record (written
    whole to a temporary file, then moved into place; a record that cannot be written is skipped)."""
    path = build_dir / RECORD_FILE
    record = _read(path)
    datasets = record.setdefault("datasets", {})
    datasets[dataset] = {**datasets.get(dataset, {}), **{name: round(value, 1) for name, value in seconds.items()}}
    record["latest"] = dataset
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(record, indent=1, sort_keys=True))
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)


def _read(path: Path) -> dict:
    """The record at ``path`` if it is one (a dict of datasets, each a dict of page seconds, and the name of
    the dataset built last), else ``{}``."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict) or not isinstance(record.get("latest", ""), str):
        return {}
    datasets = record.get("datasets")
    if not isinstance(datasets, dict) or not all(
        isinstance(times, dict) and all(_is_seconds(s) for s in times.values()) for times in datasets.values()
    ):
        return {}
    return record


def _is_seconds(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0

"""The public entry points: ``load``, ``load_qrels``, ``names``, ``info``, ``available``."""

from __future__ import annotations

import inspect
import math
import os
from dataclasses import replace
from collections.abc import Callable
from numbers import Real
from pathlib import Path
from typing import Any

import pandas as pd

from recbias.datasets import coat, lastfm, movielens, qrels
from recbias.datasets.csvfile import csv_info, read_csv_ratings
from recbias.datasets.errors import DatasetError
from recbias.datasets.fetch import DataFiles, locate, open_files, sha256_file
from recbias.datasets.registry import DATASETS, QRELS, DatasetInfo
from recbias.ratings import Ratings

#: the dataset of a build that names none: a simulated world, generated offline
DEFAULT = "synthetic"
_CSV_PREFIX = "csv:"
#: the environment variable naming a file to which every load appends the name of the dataset it read (the
#: book's worker sets it, so a page's provenance covers every dataset the page read)
READS_VARIABLE = "RECBIAS_DATA_READS"
#: registry names served by the simulator (its presets); checked against it in the tests
_SYNTHETIC = ("synthetic", "synthetic-small", "synthetic-ml1m", "synthetic-ml10m", "synthetic-ml20m")
_READERS: dict[str, Callable[[DataFiles, DatasetInfo, float], Ratings]] = {
    "ml-100k": movielens.read_ml100k,
    "ml-1m": movielens.read_ml1m,
    "ml-10m": movielens.read_ml10m,
    "ml-20m": movielens.read_ml_csv,
    "ml-latest-small": movielens.read_ml_csv,
    "lastfm-2k": lastfm.read_lastfm_2k,
    "coat": coat.read_coat,
}
_QRELS_READERS: dict[str, Callable[..., pd.DataFrame]] = {
    "cranfield": qrels.read_cranfield,
    "trec8-adhoc": qrels.read_trec8_adhoc,
}


def names() -> list[str]:
    """Registered ratings datasets (besides ``csv:PATH``, which loads any CSV file)."""
    return list(DATASETS)


def qrels_names() -> list[str]:
    """Registered IR test collections for :func:`load_qrels`."""
    return list(QRELS)


def info(name: str = DEFAULT) -> DatasetInfo:
    """Licence, citation, official URL, paper usage and default threshold, without loading."""
    if name.startswith(_CSV_PREFIX):
        return csv_info(name)
    if name in DATASETS:
        return DATASETS[name]
    if name in QRELS:
        return QRELS[name]
    raise ValueError(_unknown_name(name, [*DATASETS, *QRELS]))


def available_real(besides: str = "") -> list[str]:
    """The registered datasets of real ratings whose files are on this machine, in registry order, but
    ``besides`` (the simulated worlds are left out: they imitate the shapes of the real ones)."""
    return [name for name in DATASETS if name not in _SYNTHETIC and name != besides and available(name)]


def available(name: str = DEFAULT) -> bool:
    """Whether ``name`` loads without the network right now (a verified local copy exists)."""
    facts = info(name)
    if name in _SYNTHETIC:
        return True
    if name.startswith(_CSV_PREFIX):
        return Path(facts.url).is_file()
    try:
        files = locate(facts)
        if files is None:
            return False
        files.verify()
    except DatasetError:
        return False
    return True


def load(name: str = DEFAULT, **options: Any) -> Ratings:
    """Load a registered dataset as :class:`~recbias.ratings.Ratings`.

    Real datasets and ``csv:PATH`` accept ``positive_threshold`` (a rating
    ``>= positive_threshold`` is relevant); ``csv:PATH`` also accepts ``duplicates``
    (``"error"``, ``"last"`` or ``"mean"``) and ``columns`` (our column -> the header's name, see
    :mod:`recbias.datasets.csvfile`); the synthetic presets also accept
    the parameters of :func:`recbias.synthetic.generate` (``seed``, sizes, ...).
    """
    _note_read(name)
    if name.startswith(_CSV_PREFIX):
        _check_options(name, options, {"positive_threshold", "duplicates", "columns"})
        threshold = _threshold(name, options.get("positive_threshold"))
        return read_csv_ratings(name, threshold, options.get("duplicates", "error"), options.get("columns"))
    if name in _SYNTHETIC:
        return _load_synthetic(name, options)
    if name not in _READERS:
        raise ValueError(_unknown_name(name, [*DATASETS, "csv:PATH"]))
    _check_options(name, options, {"positive_threshold"})
    facts = DATASETS[name]
    threshold = _threshold(name, options.get("positive_threshold", facts.positive_threshold))
    return _READERS[name](open_files(facts), facts, threshold)


def load_qrels(name: str, **options: Any) -> pd.DataFrame:
    """Relevance judgments ``query, doc, grade, relevant, gain`` of an IR test collection.

    ``cranfield`` accepts ``reading`` (``"cleverdon"``, the default, or
    ``"ir_datasets"``): which way its grade codes run, see :mod:`recbias.datasets.qrels`.
    """
    if name not in _QRELS_READERS:
        raise ValueError(_unknown_name(name, list(QRELS)))
    _note_read(name)
    reader = _QRELS_READERS[name]
    _check_options(name, options, set(inspect.signature(reader).parameters))
    return reader(**options)


def _note_read(name: str) -> None:
    """Append ``name`` to the file of :data:`READS_VARIABLE`, if it is set."""
    reads = os.environ.get(READS_VARIABLE)
    if reads:
        with open(reads, "a") as handle:
            handle.write(name + "\n")


def digests(name: str, seed: int) -> dict[str, str]:
    """What identifies the data of ``name`` without reading it again: the first 12 hex digits of the pinned
    SHA-256 of each file of a registered dataset or collection (of the file itself for ``csv:PATH``, named by
    its file), or the seed a simulated world is drawn with.

    >>> digests("synthetic", 3)
    {'synthetic': 'generated, seed 3'}
    """
    facts = info(name)
    if facts.files is not None:
        return {file: pin[:12] for file, pin in facts.files.pins.items()}
    if name.startswith(_CSV_PREFIX):
        return {Path(facts.url).name: sha256_file(facts.url)[:12]}
    return {name: f"generated, seed {seed}"}


def _load_synthetic(name: str, options: dict[str, Any]) -> Ratings:
    """Delegate to :func:`recbias.synthetic.generate` with preset ``name`` (through the cache of generated
    worlds, :func:`recbias.cache.world_cached`), and stamp its card.

    Valid options are the generator's named arguments and the keys of the
    preset; ``positive_threshold`` goes to the generator, so that the true
    relevance it returns uses the same threshold as the observed ratings.
    """
    from recbias import cache, synthetic  # imported here: the simulation is only needed for these names

    parameters = inspect.signature(synthetic.generate).parameters
    named = {key for key, p in parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD}
    _check_options(name, options, (named | set(synthetic.PRESETS[name])) - {"preset"})
    world = cache.world_cached(synthetic.generate, name, options)
    facts = DATASETS[name]
    citation = f"{facts.citation} Generated with preset {name!r}, seed {options.get('seed', 0)}."
    return replace(world, licence=facts.licence, citation=citation, description=facts.description)


def _threshold(name: str, value: Any) -> float | None:
    """A finite ``positive_threshold`` as a float (``None`` passes through: the loader's default)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"dataset '{name}': positive_threshold must be a finite number, got {value!r}")
    return float(value)


def _check_options(name: str, options: dict[str, Any], valid: set[str]) -> None:
    unknown = sorted(set(options) - valid)
    if unknown:
        listed = ", ".join(sorted(valid)) or "none"
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for dataset '{name}'; valid options: {listed}")


def _unknown_name(name: str, valid: list[str]) -> str:
    return f"unknown dataset {name!r}; valid names: {', '.join(valid)}"

"""How the build and its pages load a dataset: the same options everywhere.

A simulated world takes the build's seed; a ``csv:PATH`` file takes the options given on the
build tool's command line (``--csv-threshold``, ``--csv-duplicates``, ``--csv-columns``), which reach every page
through ``$RECBIAS_CSV_OPTIONS`` (JSON); other datasets take none.
"""

from __future__ import annotations

import json
import os
from typing import Any

from recbias.ratings import Ratings

CSV_OPTIONS_VARIABLE = "RECBIAS_CSV_OPTIONS"


def csv_options() -> dict[str, Any]:
    """The ``csv:PATH`` options of this build (``positive_threshold``, ``duplicates``, ``columns``), if any."""
    return json.loads(os.environ.get(CSV_OPTIONS_VARIABLE) or "{}")


def load_options(dataset: str, seed: int) -> dict[str, Any]:
    """The options :func:`recbias.datasets.load` gets for ``dataset`` in this build."""
    from recbias.synthetic import PRESETS  # imported here: the simulation is only needed for its presets

    if dataset in PRESETS:
        return {"seed": seed}
    return csv_options() if dataset.startswith("csv:") else {}


def load_dataset(dataset: str, seed: int = 0) -> Ratings:
    """The chapter's ratings; ``seed`` also fixes the simulated worlds (real data ignores it)."""
    from recbias import datasets

    return datasets.load(dataset, **load_options(dataset, seed))

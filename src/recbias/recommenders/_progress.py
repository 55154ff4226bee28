"""Progress bars for long fits: shown only when someone is watching."""

from __future__ import annotations

import os
import sys

from tqdm import tqdm

#: seconds a fit must run before its bar appears
PROGRESS_DELAY = 3.0


def progress_enabled() -> bool:
    """True unless ``RECBIAS_PROGRESS=0`` or standard error is not a terminal."""
    return os.environ.get("RECBIAS_PROGRESS", "1") != "0" and sys.stderr.isatty()


def progress_bar(total: int, desc: str) -> tqdm:
    """A bar over ``total`` steps that appears only after :data:`PROGRESS_DELAY` seconds."""
    return tqdm(total=total, desc=desc, disable=not progress_enabled(), delay=PROGRESS_DELAY, leave=False)

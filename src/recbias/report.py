"""The reproduction scorecard: published numbers set against our recomputation.

Chapters call :func:`claim` for every number of a paper they reproduce.  When
the book pipeline executes a chapter it sets ``RECBIAS_RESULTS_DIR`` and
``RECBIAS_CHAPTER``; each claim is then appended to
``<results dir>/<chapter>.json``.  The scorecard appendix reads those files back
with :func:`load_claims` and renders them with :func:`scorecard`.

A claim is *comparable* only when it was computed on the dataset the paper
used; otherwise its verdict is ``"not comparable"`` rather than a failure.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

RESULTS_DIR_VARIABLE = "RECBIAS_RESULTS_DIR"
CHAPTER_VARIABLE = "RECBIAS_CHAPTER"

AGREES = "agrees"
DIFFERS = "differs"
NOT_COMPARABLE = "not comparable"


@dataclass(frozen=True)
class Claim:
    """One published number and our value for it.

    The verdict is ``agrees`` when ``|ours - paper| <= tolerance`` on the
    paper's own dataset, ``differs`` when it exceeds the tolerance there, and
    ``not comparable`` on any other dataset.
    """

    key: str
    ours: float
    paper: float
    tolerance: float
    source: str
    dataset: str
    paper_dataset: str
    chapter: str = ""
    note: str = ""

    @property
    def comparable(self) -> bool:
        return self.dataset == self.paper_dataset

    @property
    def verdict(self) -> str:
        if not self.comparable:
            return NOT_COMPARABLE
        return AGREES if abs(self.ours - self.paper) <= self.tolerance else DIFFERS


def claim(
    key: str,
    ours: float,
    *,
    paper: float,
    tolerance: float,
    source: str,
    dataset: str,
    paper_dataset: str,
    note: str = "",
) -> Claim:
    """Register a reproduced number and return it with its verdict.

    Args:
        key: unique name of the number within its chapter, e.g. ``"fig2/AR/pLSA/P@10"``.
        ours: the value our code computed.
        paper: the published value.
        tolerance: largest absolute difference still counted as agreement.
        source: where the number is published, e.g. ``"IRJ Fig. 2"``.
        dataset: dataset our value was computed on.
        paper_dataset: dataset the paper used (``"ml-1m"``, ``"lastfm-1k"``, ``"toy"``, ...).
        note: optional remark shown on the scorecard.
    """
    for label, value in (("ours", ours), ("paper", paper), ("tolerance", tolerance)):
        if not math.isfinite(float(value)):
            raise ValueError(f"claim {key!r}: {label} must be a finite number, got {value!r}")
    if tolerance < 0:
        raise ValueError(f"claim {key!r}: tolerance must be non-negative, got {tolerance}")
    record = Claim(
        key=key,
        ours=float(ours),
        paper=float(paper),
        tolerance=float(tolerance),
        source=source,
        dataset=dataset,
        paper_dataset=paper_dataset,
        chapter=os.environ.get(CHAPTER_VARIABLE, ""),
        note=note,
    )
    results_dir = os.environ.get(RESULTS_DIR_VARIABLE)
    if results_dir and record.chapter:
        _append(Path(results_dir) / f"{record.chapter}.json", record)
    return record


def _append(path: Path, record: Claim) -> None:
    """Add ``record`` to the JSON list at ``path``, replacing a claim with the same key."""
    records = json.loads(path.read_text()) if path.exists() else []
    records = [r for r in records if r["key"] != record.key] + [asdict(record)]
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as handle:
        json.dump(records, handle, indent=1)
    os.replace(handle.name, path)


def load_claims(results_dir: str | Path) -> list[Claim]:
    """Every claim recorded under ``results_dir``, chapter by chapter."""
    claims: list[Claim] = []
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            records = json.loads(path.read_text())
            claims.extend(Claim(**record) for record in records)
        except (json.JSONDecodeError, TypeError) as error:
            raise ValueError(f"scorecard: {path} is not a valid claims file ({error})") from error
    return claims


def scorecard(claims: list[Claim]) -> pd.DataFrame:
    """One row per claim: where it comes from, both values, tolerance and verdict."""
    columns = ["chapter", "source", "key", "paper", "ours", "tolerance", "paper dataset", "dataset", "verdict", "note"]
    rows = [
        {
            "chapter": c.chapter,
            "source": c.source,
            "key": c.key,
            "paper": c.paper,
            "ours": c.ours,
            "tolerance": c.tolerance,
            "paper dataset": c.paper_dataset,
            "dataset": c.dataset,
            "verdict": c.verdict,
            "note": c.note,
        }
        for c in claims
    ]
    return pd.DataFrame(rows, columns=columns)


def verdict_counts(claims: list[Claim]) -> pd.Series:
    """How many claims agree, differ, or are not comparable."""
    counts = pd.Series([c.verdict for c in claims], dtype=object).value_counts()
    return counts.reindex([AGREES, DIFFERS, NOT_COMPARABLE], fill_value=0)

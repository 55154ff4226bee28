"""Relevance judgments of two IR test collections, for the Cranfield-paradigm chapter.

Both readers return one row per judgment with columns ``query``, ``doc``,
``grade`` (as in the file), ``relevant`` (binary) and ``gain`` (graded relevance,
higher is better, ``0`` for non-relevant), ready for trec_eval-style metrics.

Cranfield grades and their direction
------------------------------------
``cranqrel`` holds the codes -1, 1, 2, 3, 4 (exactly one -1 per query).  The
collection's own readme quotes Cleverdon's scale, on which *lower* is better:
1 = complete answer, 2 = high relevance, 3 = useful background, 4 = minimum
interest, 5 = no interest (never listed).  ``ir_datasets`` reads the same codes
the other way round: 4 = complete answer ... 1 = minimum interest, -1 = no
interest.  Binary relevance does not depend on the choice (codes 1-4 are at
least of minimum interest under both readings, -1 is not relevant), but graded
metrics such as nDCG do.  We adopt Cleverdon's reading by default,
``gain = 5 - grade`` for grades 1-4, and offer ``reading="ir_datasets"``
(``gain = grade``) to show how much the choice matters.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from recbias.datasets.fetch import open_files
from recbias.datasets.registry import QRELS
from recbias.datasets.tables import INTEGER, Column, TableFormat, read_table

#: the readings of the Cranfield grade codes, see the module docstring
CRANFIELD_READINGS = ("cleverdon", "ir_datasets")
_CRANFIELD_GRADES = np.array([-1, 1, 2, 3, 4])

_CRANQREL = TableFormat(
    (Column("query", "int64", INTEGER), Column("doc", "int64", INTEGER), Column("grade", "int64", INTEGER)),
    sep=" ", encoding="ascii",
)
_TREC = TableFormat(
    (Column("query", "int64", INTEGER), Column("iteration", "int64", INTEGER), Column("doc", "str", r"\S+"),
     Column("grade", "int64", INTEGER)),
    sep=" ", encoding="ascii",
)
_EDGE_BLANKS = re.compile(rb"^[ \t]+|[ \t]+(?=\r?$)", re.MULTILINE)
_INNER_BLANKS = re.compile(rb"[ \t]+")


def _single_spaced(raw: bytes) -> bytes:
    """Whitespace-separated judgments with one space between fields (line breaks kept).

    ``cranqrel`` mixes trailing spaces, none, and one double space; trec_eval
    reads both files as whitespace-separated, and so do we.
    """
    return _INNER_BLANKS.sub(b" ", _EDGE_BLANKS.sub(b"", raw))


def read_cranfield(reading: str = "cleverdon") -> pd.DataFrame:
    """Cranfield 1400 judgments (``cranqrel``: whitespace-separated ``query doc grade``).

    ``relevant`` is ``grade >= 1``; ``gain`` is ``5 - grade`` under Cleverdon's reading
    and ``grade`` under the ``ir_datasets`` reading (``0`` for grade -1 in both).
    """
    if reading not in CRANFIELD_READINGS:
        raise ValueError(f"unknown Cranfield grade reading {reading!r}; use one of {', '.join(CRANFIELD_READINGS)}")
    files = open_files(QRELS["cranfield"])
    table = read_table(_single_spaced(files.read("cranqrel")), _CRANQREL, "cranfield", files.label("cranqrel"))
    grade = table.frame["grade"].to_numpy()
    table.require(np.isin(grade, _CRANFIELD_GRADES), "grade must be one of -1, 1, 2, 3, 4")
    relevant = grade >= 1
    gain = np.where(relevant, 5 - grade if reading == "cleverdon" else grade, 0)
    return _judgments(table.frame, relevant, gain)


def read_trec8_adhoc() -> pd.DataFrame:
    """TREC-8 ad hoc judgments, topics 401-450 (``topic 0 docno rel``); ``relevant`` is ``rel >= 1``."""
    name = "qrels.adhoc.401-450.txt"
    files = open_files(QRELS["trec8-adhoc"])
    table = read_table(_single_spaced(files.read(name)), _TREC, "trec8-adhoc", files.label(name))
    grade = table.frame["grade"].to_numpy()
    table.require(grade >= 0, "relevance must be a non-negative integer")
    return _judgments(table.frame, grade >= 1, grade)


def _judgments(frame: pd.DataFrame, relevant: np.ndarray, gain: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": frame["query"].to_numpy(),
            "doc": frame["doc"].to_numpy(),
            "grade": frame["grade"].to_numpy(),
            "relevant": relevant,
            "gain": gain.astype(np.int64),
        }
    )

"""A streaming check that a user's file is plain UTF-8 text in lines of sensible length, before it is parsed.

Parsing reads the whole file into memory; a file that is not text at all (a binary dump, a disk image padded
with NUL bytes, a UTF-16 export) or whose "lines" are megabytes long would cost gigabytes before the parser
refused it with a message about its internals.  :func:`check_text_file` reads the file in blocks of
:data:`BLOCK_BYTES`, so its memory stays bounded whatever the file's size, and refuses it with one line naming
the file, the line and the problem.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import numpy as np

from recbias.datasets.errors import DatasetError

#: bytes read at a time
BLOCK_BYTES = 1 << 23
#: the longest line a ratings file may have (Python's csv module refuses fields over 131,072 characters)
MAX_LINE_BYTES = 1 << 16
#: byte-order marks of encodings other than UTF-8, longest first
BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32 (little-endian)"), (codecs.BOM_UTF32_BE, "UTF-32 (big-endian)"),
                    (codecs.BOM_UTF16_LE, "UTF-16 (little-endian)"), (codecs.BOM_UTF16_BE, "UTF-16 (big-endian)"))


def encoding_by_mark(head: bytes) -> str | None:
    """The encoding a byte-order mark at the start of ``head`` announces, other than UTF-8; None without one.

    >>> encoding_by_mark("user,item".encode("utf-16")), encoding_by_mark(b"user,item")
    ('UTF-16 (little-endian)', None)
    """
    return next((name for mark, name in BYTE_ORDER_MARKS if head.startswith(mark)), None)


def check_text_file(path: Path, dataset: str) -> None:
    """Refuse ``path`` unless it is UTF-8 text without NUL bytes whose lines are at most :data:`MAX_LINE_BYTES`
    long; a :class:`~recbias.datasets.errors.DatasetError` names the file, the line and the problem."""
    where = f"dataset '{dataset}': {path}"
    line, pending = 1, 0  # the current line's number and the bytes of it read so far
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as handle:
        block = handle.read(BLOCK_BYTES)
        encoding = encoding_by_mark(block[:4])
        if encoding:
            raise DatasetError(f"{where} is {encoding} text (by its byte-order mark), not UTF-8: save it as UTF-8")
        while block:
            nul = block.find(b"\0")
            if nul >= 0:
                at = line + block.count(b"\n", 0, nul)
                odd = block[1:64:2]
                hint = " (every other byte is NUL: UTF-16 text?)" if odd.count(0) >= max(2, len(odd) // 2) else ""
                raise DatasetError(f"{where}, line {at}: a NUL byte, so this is not a text file{hint}; "
                                   "a ratings file is UTF-8 text")
            ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
            lengths = np.diff(np.concatenate(([-1 - pending], ends, [len(block)])))
            longest = int(np.argmax(lengths))
            if lengths[longest] - 1 > MAX_LINE_BYTES:
                raise DatasetError(f"{where}, line {line + longest}: longer than {MAX_LINE_BYTES:,} bytes; a ratings "
                                   "file has one short line per rating")
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:
                at = line + block.count(b"\n", 0, error.start)
                raise DatasetError(f"{where}, line {at}: not UTF-8 text ({error.reason} at byte "
                                   f"{error.object[error.start]:#04x}); save the file as UTF-8") from None
            pending = len(block) - 1 - int(ends[-1]) if len(ends) else pending + len(block)
            line += len(ends)
            block = handle.read(BLOCK_BYTES)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise DatasetError(f"{where}, line {line}: not UTF-8 text (the file ends inside a character); "
                           "save the file as UTF-8") from None

"""Errors raised while locating, verifying, downloading or parsing a dataset.

Every error is a :class:`DatasetError`, so callers can catch one class; the
subclasses say what went wrong and their messages name the dataset and file.
"""

from __future__ import annotations


class DatasetError(Exception):
    """A dataset could not be located, verified, downloaded or parsed."""


class ChecksumError(DatasetError):
    """A file's sha256 differs from the pinned value."""

    def __init__(self, dataset: str, file: str, expected: str, actual: str, advice: str = "") -> None:
        self.dataset, self.file, self.expected, self.actual = dataset, file, expected, actual
        message = (
            f"dataset '{dataset}': checksum mismatch for {file}: "
            f"expected sha256 {expected}, got {actual}"
        )
        super().__init__(f"{message}. {advice}" if advice else message)


class CorruptArchiveError(DatasetError):
    """An archive cannot be read (truncated, damaged, or not a zip file)."""


class MissingFileError(DatasetError):
    """A file or archive member the loader needs is absent."""


class MalformedLineError(DatasetError):
    """A line of a data file does not have the documented format."""

    def __init__(self, dataset: str, file: str, line: int, text: str, reason: str) -> None:
        self.dataset, self.file, self.line, self.text, self.reason = dataset, file, line, text, reason
        shown = text if len(text) <= 200 else text[:200] + "..."
        super().__init__(f"dataset '{dataset}': {file}, line {line}: {reason}: {shown!r}")


class OfflineError(DatasetError):
    """No local copy exists and the official archive could not be downloaded."""

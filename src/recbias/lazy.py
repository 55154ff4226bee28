"""Names a package gives on first use (PEP 562): importing the package, or one light module of it, loads none
of the modules behind those names until one is read."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def first_use(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose names ``homes`` maps to the module defining each:
    a name is imported from its module when first read, then kept in the package.

    >>> getattr_, _ = first_use("recbias", {"Ratings": "recbias.ratings"})
    >>> getattr_("Ratings").__name__
    'Ratings'
    """
    namespace = sys.modules[package].__dict__

    def getattr_(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(homes[name]), name)
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return getattr_, dir_

"""A chapter's parameters, read from its parameters cell, and checked before anything runs.

Each line of a parameters cell declares one parameter, its default and, in the
trailing comment, what it means and which values it admits::

    folds = 5  # coin-flip splits of the main comparison, int in [1, 20]
    test_ratio = 0.2  # share of ratings held out, float in (0, 1)
    second_dataset = "lastfm-2k"  # second dataset, "" to skip
    gain = "linear"  # gain of nDCG, one of linear, exponential
    sweep_users = 400  # users of the sweep, int in [10, 100000] or None

The type is the annotation's (``int`` or ``float``) or else the default's; a range
``[lo, hi]`` (``(`` and ``)`` for open ends), ``one of a, b, c`` and ``or None``
narrow the admissible values.  :func:`check_value` rejects a value with a message
naming the chapter, the parameter, the value and what is admissible.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Any

_RANGE = re.compile(
    r"\b(?P<kind>int|float)\s+in\s+(?P<open>[\[(])\s*(?P<low>[-+]?[\w.]+)\s*,\s*(?P<high>[-+]?[\w.]+)\s*(?P<close>[\])])"
)
_CHOICES = re.compile(r"\bone of\s+(?P<choices>[^;()]+)")
#: a comma-separated list of numbers, e.g. "comma-separated integers, each in [2, 100000]"
_LIST = re.compile(r"\bcomma-separated(?:\s+(?P<items>integers|numbers))?,\s+each\s+in\s+(?P<open>[\[(])\s*"
                   r"(?P<low>[-+]?[\w.]+)\s*,\s*(?P<high>[-+]?[\w.]+)\s*(?P<close>[\])])")
_OPTIONAL = re.compile(r"\bor None\b|\bNone (?:keeps|means|for)\b")
_TYPES = {"int": int, "float": float}


class ParameterError(ValueError):
    """A parameter value that a chapter does not admit."""


@dataclass(frozen=True)
class ParameterSpec:
    """One declared parameter: name, default, meaning and admissible values."""

    name: str
    default: Any
    meaning: str
    kind: type
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    optional: bool = False
    #: for a comma-separated list of numbers: "integers" or "numbers" (the range then bounds each item)
    items: str | None = None

    @property
    def admissible(self) -> str:
        """The admissible values in words, e.g. ``"an int in [1, 20]"``."""
        if self.choices is not None:
            text = "one of " + ", ".join(self.choices)
        elif self.items is not None:
            text = (f"comma-separated {self.items}, each in {'(' if self.low_open else '['}{self.low:g}, "
                    f"{self.high:g}{')' if self.high_open else ']'}")
        else:
            text = {int: "an int", float: "a number", bool: "true or false", str: "a string"}.get(
                self.kind, self.kind.__name__
            )
            if self.low is not None or self.high is not None:
                text += f" in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}"
        return text + (" or None" if self.optional else "")


def _number(text: str) -> float:
    return float(text.replace("_", ""))


def parse_parameters(source: str) -> dict[str, ParameterSpec]:
    """The specs of every ``name = value  # comment`` line of a parameters cell."""
    specs: dict[str, ParameterSpec] = {}
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        default = ast.literal_eval(node.value)
        line = lines[node.lineno - 1]
        meaning = line.split("#", 1)[1].strip() if "#" in line[node.end_col_offset :] else ""
        kind: type = type(default) if default is not None else str
        low = high = None
        low_open = high_open = False
        found, items = _RANGE.search(meaning), None
        listed_numbers = _LIST.search(meaning)
        if listed_numbers and isinstance(default, str):
            found, items = listed_numbers, listed_numbers["items"] or "numbers"
            low, high = _number(found["low"]), _number(found["high"])
            low_open, high_open = found["open"] == "(", found["close"] == ")"
        elif found:
            kind = _TYPES[found["kind"]]
            low, high = _number(found["low"]), _number(found["high"])
            low_open, high_open = found["open"] == "(", found["close"] == ")"
        choices = None
        listed = _CHOICES.search(meaning)
        if listed:
            choices = tuple(c.strip().strip("\"'") for c in listed["choices"].split(",") if c.strip())
        optional = default is None or bool(_OPTIONAL.search(meaning))
        specs[name] = ParameterSpec(name, default, meaning, kind, low, high, low_open, high_open, choices, optional,
                                    items)
    return specs


def check_value(spec: ParameterSpec, value: Any, chapter: str) -> Any:
    """``value`` converted to the parameter's type, or :class:`ParameterError` saying why not."""

    given = value

    def refuse() -> ParameterError:
        return ParameterError(
            f"chapter {chapter}: parameter {spec.name} = {given!r} is not admissible; expected {spec.admissible}"
        )

    if value is None or (isinstance(value, str) and value == "None" and spec.kind is not str):
        if spec.optional:
            return None
        raise refuse()
    if spec.kind is bool:
        if not isinstance(value, bool):
            raise refuse()
        return value
    if spec.kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise refuse()
        if spec.kind is int and float(value) != int(value):
            raise refuse()
        value = spec.kind(value)
        if not math.isfinite(value):
            raise refuse()
        below = spec.low is not None and (value < spec.low or (spec.low_open and value == spec.low))
        above = spec.high is not None and (value > spec.high or (spec.high_open and value == spec.high))
        if below or above:
            raise refuse()
        return value
    value = value if isinstance(value, str) else str(value)
    if spec.choices is not None and value not in spec.choices:
        raise refuse()
    if spec.items is not None and not _admissible_list(spec, value):
        raise refuse()
    return value


def _admissible_list(spec: ParameterSpec, text: str) -> bool:
    """Whether ``text`` is a comma-separated list of numbers (integers, for ``items == "integers"``), each
    within the spec's range."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        return False
    low_ok = all(v > spec.low if spec.low_open else v >= spec.low for v in values)
    high_ok = all(v < spec.high if spec.high_open else v <= spec.high for v in values)
    whole = spec.items != "integers" or all(v == int(v) for v in values)
    return bool(values) and all(math.isfinite(v) for v in values) and low_ok and high_ok and whole


def number_list(text: str, name: str, low: float, high: float) -> list[float]:
    """The numbers of a comma-separated parameter such as ``"0, 1, 2"``, each in ``[low, high]``,
    or :class:`ParameterError` naming the parameter."""
    try:
        values = [float(part) for part in str(text).split(",") if part.strip()]
    except ValueError:
        values = []
    if not values or not all(low <= v <= high for v in values):
        raise ParameterError(f"parameter {name} = {text!r} is not admissible; expected comma-separated numbers, "
                             f"each in [{low:g}, {high:g}]")
    return values

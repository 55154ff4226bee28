"""Claims as data: a chapter's published numbers and findings, each criterion stated once.

A chapter's ``claims.py`` lists its :class:`Finding` objects (statements of a paper, or of
this book, checked on whatever dataset the page is built with) and reads its
:class:`Number` objects (values printed in a paper) from the chapter's ``published.csv``.
Its study turns what it measured into one flat mapping of named values; :func:`register`
then evaluates every claim against those values and records it for the scorecard
(:mod:`recbias.bookkit.scorecard`) in one call.

A :class:`Criterion` holds the test and its words together, so the evidence a page shows
("criterion: at least 0.95") is derived from the very code that decides the verdict.  A
finding has three outcomes: it *holds*, it *fails*, or it is *inconclusive* when the
difference it rests on is within noise (:func:`beyond_noise`).  A finding whose protocol or
systems depart from the paper's says how in ``departs``; it is then never counted as a
failure of the paper (:data:`recbias.bookkit.scorecard.DEPARTS`).

A finding also carries the sentence the page prints for each outcome (``says``), so every
data-dependent verdict in the prose comes from the finding that decides it: the page glues
it by the finding's key (:func:`recbias.bookkit.page.say_findings`).  Every comparison of the
book is tested at one significance level, :data:`LEVEL`, under one policy for multiple
comparisons, :data:`POLICY`, both defined here and nowhere else.

Every fixed number a criterion compares with is a :class:`Bound` that says where it comes from: the
statement's own words (:data:`BY_WORDS`), the book's level (:data:`LEVEL_ORIGIN`), the book's one margin for
"close to" (:data:`CLOSE_SHARE_ORIGIN`), or a place in a paper; a statement of a paper may use no other.

>>> criterion = at_least("share", 0.9, what="the share within the band", origin="a worked example")
>>> criterion({"share": 0.97}), criterion({"share": 0.80}), criterion.words
('holds', 'fails', 'the share within the band at least 0.9')
>>> criterion.origins
'0.9: a worked example'
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from recbias.bookkit.scorecard import BOOK, CODE, FINDING, NUMBER, ORIGINS, PAPER, Claim, record

HOLDS = "holds"
FAILS = "fails"
INCONCLUSIVE = "inconclusive"
#: the outcome of a statement shown with what was measured but no verdict: the paper's words give nothing a
#: margin can be traced to
MEASURED = "measured"
#: the outcomes a criterion can reach, in the order a page lists them
OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE, MEASURED)
#: the record of a finding whose values this build did not measure (a dataset without what it needs, a part
#: a parameter skipped), and what the page says of it
NOT_CHECKED = "not checked"
NOT_CHECKED_SAYS = "This build could not check it: the values it reads were not measured here."


#: the significance level of every comparison in the book, two-sided, with the user as the unit
LEVEL = 0.05
#: the confidence of the interval an equivalence reads: two one-sided tests at :data:`LEVEL` (Schuirmann 1987)
EQUIVALENCE_CONFIDENCE = 1 - 2 * LEVEL
#: the margin of "close to" where a paper gives none, as a share of the value compared, and where it comes from
CLOSE_SHARE = 0.1
CLOSE_SHARE_ORIGIN = ("a tenth of the value compared, the book's one margin for \"close to\": about the finest "
                      "difference the papers' bar charts let a reader see between two bars of that height")
#: the origin of a bound that the statement's words set by themselves: no exception, a sign, the range of a
#: probability or a correlation
BY_WORDS = "set by the statement's words"
#: the origin of a bound at :data:`LEVEL`
LEVEL_ORIGIN = "the book's significance level"
#: how the book treats several comparisons at once, printed once on every page that tests any
POLICY = (f"Every comparison is tested at the level {LEVEL:g}, two-sided, with the user as the unit. A finding "
          "that needs several comparisons to hold at once holds only when each does (an intersection-union "
          "test, which needs no correction); findings are not corrected for their number, so among many "
          "findings a few may hold or fail by chance.")

#: a claim's anchor: the label of the figure (``fig-...``) or table (``tbl-...``) of its page that shows it, the
#: fragment of the scorecard's link to that place; "" links to the page itself
ANCHOR = re.compile(r"(fig|tbl)-[a-z0-9]+(-[a-z0-9]+)*")


def check_anchor(what: str, anchor: str) -> None:
    """Refuse an anchor that is no figure or table label (:data:`ANCHOR`): a section number or a citation key
    would give the scorecard a link to nowhere.

    >>> check_anchor("finding 'k'", "Sec. 6")
    Traceback (most recent call last):
    ValueError: finding 'k': anchor 'Sec. 6' is not the label of a figure or table (fig-... or tbl-...), which the scorecard links to
    """
    if anchor and not ANCHOR.fullmatch(anchor):
        raise ValueError(f"{what}: anchor {anchor!r} is not the label of a figure or table (fig-... or tbl-...), "
                         "which the scorecard links to")


#: The one schema of every chapter's ``published.csv`` (lines starting with ``#`` are comments).
PUBLISHED_COLUMNS = ("key", "statement", "value", "tolerance", "paper_dataset", "source", "anchor", "departs", "note")


@dataclass(frozen=True)
class Bound:
    """A fixed number a criterion compares with (a bound, or the half-width of a margin), and where it comes
    from: :data:`BY_WORDS`, :data:`LEVEL_ORIGIN`, :data:`CLOSE_SHARE_ORIGIN`, a place in a paper, or (for the
    book's statements and the checks of our code only) the book's reason."""

    value: float
    origin: str

    def __post_init__(self) -> None:
        if not self.origin.strip():
            raise ValueError(f"the bound {self.value:g} has no origin: say where it comes from")


@dataclass(frozen=True)
class Criterion:
    """A test on named measured values, with the words that state it.

    Attributes:
        words: the criterion as the page prints it, e.g. ``"the lowest R² at least 0.95"``.
        names: the measured values it reads; a claim whose values are missing is not checked.
        test: ``values -> "holds" | "fails" | "inconclusive"``.
        bounds: the fixed numbers it compares with, each with its origin.
    """

    words: str
    names: tuple[str, ...]
    test: Callable[[Mapping[str, Any]], str] = field(repr=False)
    bounds: tuple[Bound, ...] = ()

    def __call__(self, values: Mapping[str, Any]) -> str:
        return self.test(values)

    @property
    def origins(self) -> str:
        """Each bound with its origin, as the page prints them (``""`` without a bound)."""
        grouped: dict[str, list[str]] = {}
        for bound in self.bounds:
            values = grouped.setdefault(bound.origin, [])
            if _fmt(bound.value) not in values:
                values.append(_fmt(bound.value))
        return "; ".join(f"{' and '.join(values)}: {origin}" for origin, values in grouped.items())


def _bounds(origin: str, *values: float) -> tuple[Bound, ...]:
    return tuple(Bound(float(value), origin) for value in values)


def _fmt(bound: float) -> str:
    return f"{bound:g}"


def _every(value: Any, condition: Callable[[np.ndarray], np.ndarray]) -> str:
    """``holds`` when ``condition`` is true of ``value`` (of all its elements, for an array)."""
    array = np.asarray(value, dtype=float)
    if array.size == 0:
        raise ValueError("a criterion was given no measured value to test")
    return HOLDS if bool(np.all(condition(array))) else FAILS


def at_least(name: str, bound: float, *, origin: str, what: str | None = None) -> Criterion:
    """``values[name] >= bound`` (every element of it, for an array); ``origin`` says where ``bound`` comes from."""
    return Criterion(f"{what or name} at least {_fmt(bound)}", (name,),
                     lambda v: _every(v[name], lambda a: a >= bound), _bounds(origin, bound))


def at_most(name: str, bound: float, *, origin: str, what: str | None = None) -> Criterion:
    """``values[name] <= bound`` (every element of it, for an array); ``origin`` says where ``bound`` comes from."""
    return Criterion(f"{what or name} at most {_fmt(bound)}", (name,),
                     lambda v: _every(v[name], lambda a: a <= bound), _bounds(origin, bound))


def above(name: str, bound: float | str, *, what: str | None = None, than: str | None = None,
          origin: str = "") -> Criterion:
    """``values[name] > bound`` (every element of it, for an array), where ``bound`` is a number (whose
    ``origin`` must be given) or the name of another measured value; ``what`` and ``than`` name the two sides in
    the criterion's words."""
    fixed = not isinstance(bound, str)
    names = (name,) if fixed else (name, bound)
    reference = than or (_fmt(bound) if fixed else bound)
    return Criterion(f"{what or name} above {reference}", names,
                     lambda v: _every(v[name], lambda a: a > float(bound if fixed else v[bound])),
                     _bounds(origin, bound) if fixed else ())


def below(name: str, bound: float, *, origin: str, what: str | None = None) -> Criterion:
    """``values[name] < bound`` (every element of it, for an array); ``origin`` says where ``bound`` comes from."""
    return Criterion(f"{what or name} below {_fmt(bound)}", (name,), lambda v: _every(v[name], lambda a: a < bound),
                     _bounds(origin, bound))


def between(name: str, low: float, high: float, *, origin: str | tuple[str, str], what: str | None = None,
            open_low: bool = False, open_high: bool = False) -> Criterion:
    """``low <= values[name] <= high`` (``<`` at an open end; every element, for an array); ``origin`` says where
    the ends come from (one origin for both, or one each)."""
    left, right = ("<" if open_low else "≤"), ("<" if open_high else "≤")
    low_origin, high_origin = (origin, origin) if isinstance(origin, str) else origin
    return Criterion(f"{_fmt(low)} {left} {what or name} {right} {_fmt(high)}", (name,),
                     lambda v: _every(v[name], lambda a: ((a > low) if open_low else (a >= low))
                                      & ((a < high) if open_high else (a <= high))),
                     _bounds(low_origin, low) + _bounds(high_origin, high))


def interval_between(low_name: str, high_name: str, low: float, high: float, *, what: str, origin: str) -> Criterion:
    """A range decided only beyond noise, on 95% intervals ``[values[low_name], values[high_name]]`` (one per
    system, for arrays): holds when every interval lies within ``[low, high]``, fails when any lies wholly
    outside it, and is inconclusive otherwise (an interval that straddles a bound cannot tell)."""

    def test(values: Mapping[str, Any]) -> str:
        lows, highs = np.asarray(values[low_name], dtype=float), np.asarray(values[high_name], dtype=float)
        if lows.size == 0 or lows.shape != highs.shape:
            raise ValueError("a criterion was given no measured interval to test")
        if np.any((highs < low) | (lows > high)):
            return FAILS
        return HOLDS if np.all((lows >= low) & (highs <= high)) else INCONCLUSIVE

    words = "every 95% interval of {} within [{}, {}] (inconclusive when one straddles an end)"
    return Criterion(words.format(what, _fmt(low), _fmt(high)), (low_name, high_name), test, _bounds(origin, low, high))


def intervals_apart(name: str, other: str, *, what: str, than: str) -> Criterion:
    """Two 95% intervals, ``[values[name + "_low"], values[name + "_high"]]`` and ``other``'s: holds when the
    first lies wholly above the second, fails when it lies wholly below, inconclusive when they overlap."""

    def test(values: Mapping[str, Any]) -> str:
        low, high = float(values[f"{name}_low"]), float(values[f"{name}_high"])
        other_low, other_high = float(values[f"{other}_low"]), float(values[f"{other}_high"])
        if low > other_high:
            return HOLDS
        return FAILS if high < other_low else INCONCLUSIVE

    return Criterion(f"{what}'s 95% interval above {than}'s (inconclusive when they overlap)",
                     (f"{name}_low", f"{name}_high", f"{other}_low", f"{other}_high"), test)


def is_true(name: str, words: str) -> Criterion:
    """``values[name]`` is true (every element of it, for an array); ``words`` says what that means."""
    return Criterion(words, (name,), lambda v: _every(v[name], lambda a: a != 0))


def beyond_noise(difference: str, p_value: str, *, level: float = LEVEL, what: str | None = None) -> Criterion:
    """A comparison decided only beyond noise: holds when ``values[difference] > 0`` with
    ``values[p_value] < level``, fails when it is ``< 0`` with ``p < level``, and is
    inconclusive otherwise.  The p-value must come from a test with the user as the unit
    (a paired test or paired resamples)."""

    def test(values: Mapping[str, Any]) -> str:
        diff, p = float(values[difference]), float(values[p_value])
        if not (math.isfinite(diff) and math.isfinite(p)) or p >= level or diff == 0:
            return INCONCLUSIVE
        return HOLDS if diff > 0 else FAILS

    return Criterion(f"{what or difference} above zero, p < {_fmt(level)} with the user as the unit",
                     (difference, p_value), test)


def all_of(*criteria: Criterion, words: str | None = None) -> Criterion:
    """Holds when every criterion holds, fails when any fails, inconclusive otherwise; ``words`` replaces the
    criteria's own words joined by semicolons.

    >>> both = all_of(at_least("a", 1, origin=BY_WORDS), at_most("b", 2, origin=BY_WORDS),
    ...               words="a at least 1 and b at most 2")
    >>> both({"a": 1, "b": 2}), both({"a": 1, "b": 3}), both.words
    ('holds', 'fails', 'a at least 1 and b at most 2')
    """

    def test(values: Mapping[str, Any]) -> str:
        outcomes = [criterion(values) for criterion in criteria]
        return FAILS if FAILS in outcomes else INCONCLUSIVE if INCONCLUSIVE in outcomes else HOLDS

    names = tuple(dict.fromkeys(name for criterion in criteria for name in criterion.names))
    bounds = tuple(dict.fromkeys(bound for criterion in criteria for bound in criterion.bounds))
    return Criterion(words or "; ".join(criterion.words for criterion in criteria), names, test, bounds)


def equivalent(low: str, high: str, margin: float, *, what: str, origin: str) -> Criterion:
    """Equivalence within ``±margin`` by two one-sided tests at :data:`LEVEL` each, read on the
    ``1 - 2 LEVEL`` (90%) interval ``[values[low], values[high]]`` of a difference, the user as the unit: holds
    when the interval lies inside ``(-margin, margin)``, fails when it lies wholly outside (at or beyond a
    margin), and is inconclusive when it straddles a margin.  ``origin`` says where the margin comes from
    (the resolution of the paper's figure, or a share the book justifies once); it is printed with it.

    >>> close = equivalent("low", "high", 0.01, what="the difference", origin="the figure's resolution")
    >>> [close({"low": lo, "high": hi}) for lo, hi in ((-0.005, 0.009), (0.01, 0.03), (-0.03, -0.01), (0.0, 0.02))]
    ['holds', 'fails', 'fails', 'inconclusive']
    """

    def test(values: Mapping[str, Any]) -> str:
        lows, highs = np.asarray(values[low], dtype=float), np.asarray(values[high], dtype=float)
        if lows.size == 0 or lows.shape != highs.shape:
            raise ValueError("a criterion was given no measured interval to test")
        if np.any((lows >= margin) | (highs <= -margin)):
            return FAILS
        return HOLDS if np.all((lows > -margin) & (highs < margin)) else INCONCLUSIVE

    level = f"{EQUIVALENCE_CONFIDENCE:.0%}"
    return Criterion(f"{what}'s {level} interval within ±{_fmt(margin)} (two one-sided tests at {_fmt(LEVEL)}); "
                     "fails wholly beyond a margin, inconclusive across one", (low, high), test, _bounds(origin, margin))


def measured_only(*names: str, words: str) -> Criterion:
    """No verdict: the statement is shown with what was measured (``names``), because the paper's words give
    nothing a margin can be traced to; ``words`` say so.

    >>> measured_only("ratio", words="slightly sensitive: no margin can be traced")({"ratio": 0.3})
    'measured'
    """
    return Criterion(words, names, lambda values: MEASURED)


def every_beyond_noise(differences: Sequence[str], *, what: str, level: float = LEVEL) -> Criterion:
    """Every ``values[d]`` above zero beyond noise, its p-value read from ``values[d + "_p"]``
    (:func:`beyond_noise` each): holds when all are, fails when any is below zero beyond noise.  A single
    difference is :func:`beyond_noise` itself, in its words.

    >>> lead = every_beyond_noise(["lead_a", "lead_b"], what="the lead")
    >>> lead({"lead_a": 0.1, "lead_a_p": 0.01, "lead_b": 0.2, "lead_b_p": 0.2})
    'inconclusive'
    >>> every_beyond_noise(["lead_a"], what="the lead").words
    'the lead above zero, p < 0.05 with the user as the unit'
    """
    if len(differences) == 1:
        return beyond_noise(differences[0], f"{differences[0]}_p", level=level, what=what)
    return all_of(*(beyond_noise(name, f"{name}_p", level=level) for name in differences),
                  words=f"{what} above zero under each, p < {_fmt(level)} with the user as the unit")


def some_of(hits: str, misses: str, total: str, *, words: str) -> Criterion:
    """Some of ``values[total]`` comparisons go the stated way beyond noise: holds when ``values[hits]`` is at
    least one, fails when every one goes the other way beyond noise (``values[misses] == values[total] > 0``),
    and is inconclusive otherwise.

    >>> reversed_pair = some_of("reversed", "kept", "pairs", words="a pair reversed beyond noise")
    >>> [reversed_pair({"reversed": r, "kept": k, "pairs": 3}) for r, k in ((1, 2), (0, 3), (0, 2))]
    ['holds', 'fails', 'inconclusive']
    """

    def test(values: Mapping[str, Any]) -> str:
        if int(values[hits]) >= 1:
            return HOLDS
        return FAILS if int(values[total]) > 0 and int(values[misses]) == int(values[total]) else INCONCLUSIVE

    return Criterion(words, (hits, misses, total), test)


def none_of(hits: str, misses: str, total: str, *, words: str) -> Criterion:
    """No comparison goes the stated way beyond noise: the opposite of :func:`some_of` (holds when every one of
    ``values[total]`` goes the other way beyond noise, fails when ``values[hits]`` is at least one).

    >>> order_kept = none_of("changed", "kept", "levels", words="no level changes the order beyond noise")
    >>> [order_kept({"changed": c, "kept": k, "levels": 3}) for c, k in ((1, 2), (0, 3), (0, 2))]
    ['fails', 'holds', 'inconclusive']
    """
    opposite = some_of(hits, misses, total, words=words)
    flip = {HOLDS: FAILS, FAILS: HOLDS, INCONCLUSIVE: INCONCLUSIVE}
    return Criterion(words, opposite.names, lambda values: flip[opposite(values)])


def within_margin(farthest: str, nearest: str, margin: float, *, words: str, origin: str) -> Criterion:
    """An equivalence within ``±margin`` on 95% intervals: holds when ``values[farthest]`` (the end of any
    interval farthest from zero) is below ``margin``, fails when ``values[nearest]`` (the largest distance from
    zero of an interval, 0 for one that covers zero) is at least ``margin``, inconclusive otherwise.

    >>> alike = within_margin("outer", "inner", 0.01, words="every interval within ±0.01", origin="an example")
    >>> [alike({"outer": o, "inner": i}) for o, i in ((0.005, 0.0), (0.03, 0.02), (0.02, 0.0))]
    ['holds', 'fails', 'inconclusive']
    """

    def test(values: Mapping[str, Any]) -> str:
        if float(values[farthest]) < margin:
            return HOLDS
        return FAILS if float(values[nearest]) >= margin else INCONCLUSIVE

    return Criterion(words, (farthest, nearest), test, _bounds(origin, margin))


def resampled_share(name: str, *, what: str, level: float = LEVEL) -> Criterion:
    """A share of paired resamples in which the statement is true: holds at ``1 - level`` or more, fails at
    ``level`` or less, inconclusive between.

    >>> better = resampled_share("share", what="the share of resamples in which A is closer")
    >>> [better({"share": s}) for s in (0.97, 0.03, 0.5)]
    ['holds', 'fails', 'inconclusive']
    """

    def test(values: Mapping[str, Any]) -> str:
        share = float(values[name])
        return HOLDS if share >= 1 - level else FAILS if share <= level else INCONCLUSIVE

    return Criterion(f"{what} at least {_fmt(1 - level)} to hold, at most {_fmt(level)} to fail", (name,), test)


@dataclass(frozen=True)
class Finding:
    """A statement of a paper (or of the book), checked on the build's dataset.

    ``statement`` and ``evidence`` are ``str.format`` templates over the measured values;
    the evidence shown is the formatted template followed by the criterion's words.
    ``says`` maps an outcome (:data:`OUTCOMES`) to the sentence the page prints when the
    finding reaches it, also a template over the measured values (Markdown allowed); under
    :data:`NOT_CHECKED`, what the page says when this build could not check it (default
    :data:`NOT_CHECKED_SAYS`).  ``origin``
    says whose statement it is: a paper's (:data:`PAPER`, a reproduction), this book's (:data:`BOOK`: chapters 8
    and 9 and the book's own constructs, never sourced to a paper), or a check of our code (:data:`CODE`: a
    theorem, an identity, a definition or a ceiling, which verifies the implementation and never counts as a
    reproduction).
    """

    key: str
    statement: str
    source: str
    anchor: str
    criterion: Criterion
    evidence: str
    departs: str = ""
    note: str = ""
    says: Mapping[str, str] = field(default_factory=dict)
    origin: str = PAPER

    def __post_init__(self) -> None:
        if not self.statement or not self.evidence:
            raise ValueError(f"finding {self.key!r}: statement and evidence must be non-empty")
        check_anchor(f"finding {self.key!r}", self.anchor)
        if self.origin not in ORIGINS:
            raise ValueError(f"finding {self.key!r}: origin {self.origin!r} is none of {', '.join(ORIGINS)}")
        unknown = sorted(set(self.says) - {*OUTCOMES, NOT_CHECKED})
        if unknown:
            raise ValueError(f"finding {self.key!r}: says has sentences for unknown outcomes {unknown}; "
                             f"expected some of {', '.join(OUTCOMES)}")

    def sentence(self, outcome: str, values: Mapping[str, Any]) -> str:
        """The sentence for ``outcome`` on ``values``: "" for a finding that says nothing, an error for one that
        says something of other outcomes only."""
        if set(self.says) & set(OUTCOMES) and outcome not in self.says:
            raise ValueError(f"finding {self.key!r} reached {outcome!r} but has no sentence for it")
        template = self.says.get(outcome, "")
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(f"finding {self.key!r}: its sentence for {outcome!r} cannot be filled ({error!r})") from None


@dataclass(frozen=True)
class Number:
    """A value printed in a paper, set against ours (``values[key]``) within ``tolerance``."""

    key: str
    statement: str
    value: float
    tolerance: float
    paper_dataset: str
    source: str
    anchor: str = ""
    departs: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        for name in ("value", "tolerance"):
            if not math.isfinite(float(getattr(self, name))):
                raise ValueError(f"number {self.key!r}: {name} must be a finite number, got {getattr(self, name)!r}")
        if self.tolerance < 0:
            raise ValueError(f"number {self.key!r}: tolerance must be non-negative, got {self.tolerance}")
        check_anchor(f"number {self.key!r}", self.anchor)


def published(path: str | Path) -> list[Number]:
    """The :class:`Number` rows of a chapter's ``published.csv`` (schema :data:`PUBLISHED_COLUMNS`)."""
    path = Path(path)
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    header = tuple(rows[0]) if rows else tuple(next(csv.reader(lines), ()))
    if header != PUBLISHED_COLUMNS:
        raise ValueError(f"{path}: columns {', '.join(header)}; expected {', '.join(PUBLISHED_COLUMNS)}")
    numbers = []
    for line, row in enumerate(rows, start=2):
        try:
            numbers.append(Number(row["key"], row["statement"], float(row["value"]), float(row["tolerance"]),
                                  row["paper_dataset"], row["source"], row["anchor"], row["departs"], row["note"]))
        except ValueError as error:
            raise ValueError(f"{path}, row {line} ({row['key']}): {error}") from None
    keys = [number.key for number in numbers]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{path}: duplicated keys {sorted({k for k in keys if keys.count(k) > 1})}")
    return numbers


class _Unmeasured(dict):
    """Measured values for a template whose values were not all measured: a missing one reads "…"."""

    def __missing__(self, key: str) -> _Blank:
        return _Blank()


class _Blank:
    def __format__(self, spec: str) -> str:
        return "…"


def stated(criterion: Criterion) -> str:
    """A criterion's words followed by the origin of each of its bounds, as the evidence of a finding shows it.

    >>> stated(at_most("gap", 0.1, what="the gap", origin="a worked example"))
    'the gap at most 0.1 [0.1: a worked example]'
    """
    origins = criterion.origins
    return f"{criterion.words} [{origins}]" if origins else criterion.words


def evaluate(claim: Finding | Number, values: Mapping[str, Any], *, dataset: str) -> Claim:
    """The record of ``claim`` on ``values``.  A number whose value was not measured, and a finding whose values
    were not all measured, are recorded as :data:`NOT_CHECKED` (a number's note says why, a finding's departure
    from the paper, else the values it lacks), so that pages and the scorecard show what this build could not
    check."""
    if isinstance(claim, Number):
        if claim.key not in values:
            return Claim(kind=NUMBER, key=claim.key, label=claim.statement, source=claim.source, dataset=dataset,
                         paper=claim.value, tolerance=claim.tolerance, paper_dataset=claim.paper_dataset,
                         outcome=NOT_CHECKED, evidence=claim.note or "not measured on this build",
                         anchor=claim.anchor, departs=claim.departs, note=claim.note)
        if not math.isfinite(float(values[claim.key])):
            raise ValueError(f"number {claim.key!r}: ours must be a finite number, got {values[claim.key]!r}")
        return Claim(kind=NUMBER, key=claim.key, label=claim.statement, source=claim.source, dataset=dataset,
                     ours=float(values[claim.key]), paper=claim.value, tolerance=claim.tolerance,
                     paper_dataset=claim.paper_dataset, anchor=claim.anchor, departs=claim.departs, note=claim.note)
    missing = [name for name in claim.criterion.names if name not in values]
    if missing:
        label = claim.statement.format_map(_Unmeasured(values))
        # why: the build's departure from the paper (its words are shown beside), else the values it lacks
        why = ", which departs from the paper" if claim.departs else f": {', '.join(missing)}"
        return Claim(kind=FINDING, key=claim.key, label=label, source=claim.source, dataset=dataset,
                     outcome=NOT_CHECKED, criterion=stated(claim.criterion),
                     evidence=f"not measured on this build{why}", anchor=claim.anchor,
                     departs=claim.departs, note=claim.note, origin=claim.origin,
                     sentence=claim.says.get(NOT_CHECKED, NOT_CHECKED_SAYS).format_map(_Unmeasured(values)))
    evidence = claim.evidence.format(**values)
    outcome = claim.criterion(values)
    return Claim(kind=FINDING, key=claim.key, label=claim.statement.format(**values), source=claim.source,
                 dataset=dataset, outcome=outcome, criterion=stated(claim.criterion),
                 evidence=f"{evidence} (criterion: {stated(claim.criterion)})", anchor=claim.anchor,
                 departs=claim.departs, note=claim.note, sentence=claim.sentence(outcome, values), origin=claim.origin)


def register(claims: Sequence[Finding | Number], values: Mapping[str, Any], *, dataset: str) -> list[Claim]:
    """Evaluate every claim on ``values`` and record it for the scorecard; returns the records (a claim whose
    values were not measured on this build is recorded as not checked)."""
    keys = [claim.key for claim in claims]
    if len(set(keys)) != len(keys):
        raise ValueError(f"claims registered twice: {sorted({k for k in keys if keys.count(k) > 1})}")
    return record([evaluate(claim, values, dataset=dataset) for claim in claims])

"""Names and parameters of experimental designs (IRJ 2017 Table 3 and Section 6).

A design fixes three choices (candidate items AI/TI, relevant items AR/1R,
non-relevant items AN/NN) plus the popularity-neutralising variants: P1R
(percentiles), U1R/UAR (uniform test item profiles) and "-x% head"; "-NR" removes
the non-relevance judgments, as the papers' 1R does (IRJ Section 7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GRAMMAR", "DesignSpec", "parse_design"]

#: the grammar of design names, as the errors of :func:`parse_design` print it
GRAMMAR = (
    "design := [RELEVANT] [CANDIDATES '-' NONRELEVANT] [' -' X '% head'] [' -NR'], at least one of the first two, "
    "where "
    "RELEVANT is AR | 1R | P1R(m) | UAR | U1R, CANDIDATES is AI | TI and NONRELEVANT is AN | NN(k); "
    "examples: 'AI-AN', 'TI-AN', 'TI-NN(1700)', '1R TI-NN(100)', 'P1R(10)', 'U1R', 'UAR', 'UAR AI-AN' (the paper's "
    "AI-UAR), '1R TI-NN(100) -10% head', '1R TI-NN(100) -NR' (no test rating below the threshold is a judgment). "
    "Omitted parts default to TI-AN for AR/UAR and TI-NN(n_nonrelevant) for 1R/P1R/U1R"
)

_PATTERN = re.compile(
    r"""^\s*
    (?:(?P<relevant>AR|1R|P1R\(\s*(?P<m>\d+)\s*\)|UAR|U1R)\s*)?
    (?:(?P<candidates>AI|TI)\s*-\s*(?P<nonrelevant>AN|NN\(\s*(?P<k>\d+)\s*\)))?
    \s*(?:-\s*(?P<head>\d+(?:\.\d*)?)\s*%\s*head)?
    \s*(?P<unjudged>-\s*NR)?
    \s*$""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class DesignSpec:
    """The explicit form of a design.

    Attributes:
        relevant: ``"AR"`` (one run per user with all relevant test items) or ``"1R"``
            (one run per relevant test rating).
        candidates: ``"AI"`` (``C = I``, all items) or ``"TI"`` (``C`` = items with a test rating).
        n_nonrelevant: ``|N_u|`` for NN (random sample of that size); ``None`` for AN
            (``N_u = C \\ PR_test(u) \\ R_train(u)``).
        percentiles: ``m`` for P1R: ``C`` is split into ``m`` popularity percentiles and each
            run draws its non-relevant items from the percentile of its relevant item.
        uniform: U1R / UAR: the test set must have uniform item profiles (a
            :func:`recbias.splits.uniform_split`), so that TI means ``C = T``.
        head: fraction of the most popular items removed from test and candidates.
        nonrelevance_judged: whether the user's test ratings below the threshold count as
            judged non-relevant candidates (what bpref and infAP read); ``False`` ("-NR")
            leaves every non-relevant candidate unjudged, the papers' 1R (IRJ Section 7:
            bpref is then 1 for every system).  The target sets are the same either way.

    >>> DesignSpec(relevant="1R", n_nonrelevant=50).name
    '1R TI-NN(50)'
    """

    relevant: str = "AR"
    candidates: str = "TI"
    n_nonrelevant: int | None = None
    percentiles: int | None = None
    uniform: bool = False
    head: float = 0.0
    nonrelevance_judged: bool = True

    def __post_init__(self) -> None:
        if self.relevant not in ("AR", "1R"):
            raise ValueError(f"relevant must be 'AR' or '1R', got {self.relevant!r}")
        if self.candidates not in ("AI", "TI"):
            raise ValueError(f"candidates must be 'AI' or 'TI', got {self.candidates!r}")
        if self.n_nonrelevant is not None and (int(self.n_nonrelevant) != self.n_nonrelevant or self.n_nonrelevant < 1):
            raise ValueError(f"n_nonrelevant (NN size |N_u|) must be a positive integer, got {self.n_nonrelevant!r}")
        if self.percentiles is not None:
            if int(self.percentiles) != self.percentiles or self.percentiles < 1:
                raise ValueError(f"percentiles (m of P1R) must be a positive integer, got {self.percentiles!r}")
            if self.relevant != "1R":
                raise ValueError("percentiles (P1R) apply to the 1R design only, as in IRJ 2017 Section 6.1")
        if self.percentiles is not None and self.uniform:
            raise ValueError("a design cannot be both P1R (percentiles) and U (uniform test profiles)")
        if not 0.0 <= self.head < 1.0:
            raise ValueError(f"head must be a fraction in [0, 1), got {self.head!r}")

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``"TI-AN"``, ``"1R TI-NN(100)"``, ``"P1R(10) TI-NN(100)"``, ``"1R TI-NN(100) -NR"``."""
        if self.percentiles is not None:
            prefix = f"P1R({self.percentiles}) "
        elif self.uniform:
            prefix = "U1R " if self.relevant == "1R" else "UAR "
        else:
            prefix = "1R " if self.relevant == "1R" else ""
        nonrelevant = "AN" if self.n_nonrelevant is None else f"NN({self.n_nonrelevant})"
        suffix = f" -{self.head * 100:g}% head" if self.head else ""
        suffix += "" if self.nonrelevance_judged else " -NR"
        return f"{prefix}{self.candidates}-{nonrelevant}{suffix}"


def parse_design(name: str, *, n_nonrelevant: int = 100) -> DesignSpec:
    """Parse a design name into a :class:`DesignSpec` (grammar in :data:`GRAMMAR`).

    ``n_nonrelevant`` is the NN size used when a 1R, P1R or U1R name does not give one.
    Unknown names raise ``ValueError`` quoting the grammar.

    >>> spec = parse_design("1R")  # the omitted parts default to TI-NN(n_nonrelevant)
    >>> spec.relevant, spec.candidates, spec.n_nonrelevant
    ('1R', 'TI', 100)
    >>> parse_design("P1R(10)").name, parse_design("UAR AI-AN -10% head").name
    ('P1R(10) TI-NN(100)', 'UAR AI-AN -10% head')
    """
    match = _PATTERN.match(name) if isinstance(name, str) else None
    if match is None or (match["relevant"] is None and match["candidates"] is None):
        raise ValueError(f"unknown design {name!r}; {GRAMMAR}")
    relevant = match["relevant"] or "AR"
    one_relevant = relevant in ("1R", "U1R") or relevant.startswith("P1R")
    if match["candidates"] is None:
        candidates, size = "TI", (n_nonrelevant if one_relevant else None)
    else:
        candidates = match["candidates"]
        size = None if match["nonrelevant"] == "AN" else int(match["k"])
    return DesignSpec(
        relevant="1R" if one_relevant else "AR",
        candidates=candidates,
        n_nonrelevant=size,
        percentiles=int(match["m"]) if match["m"] is not None else None,
        uniform=relevant in ("UAR", "U1R"),
        head=float(match["head"]) / 100 if match["head"] is not None else 0.0,
        nonrelevance_judged=match["unjudged"] is None,
    )

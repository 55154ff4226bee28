"""The reproduction scorecard: published numbers set against our recomputation.

Chapters register the numbers of a paper they reproduce and the statements they
check through :func:`recbias.bookkit.claims.register`, which records each
:class:`Claim` with :func:`record`.  When
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
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from recbias.bookkit.results import claim_records, provenance_records

RESULTS_DIR_VARIABLE = "RECBIAS_RESULTS_DIR"
CHAPTER_VARIABLE = "RECBIAS_CHAPTER"

AGREES = "agrees"
DIFFERS = "differs"
NOT_COMPARABLE = "not comparable"
HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
#: the verdict of a finding that fails where the book's protocol or systems depart from the paper's:
#: never counted as a failure of the paper
DEPARTS = "fails where the book departs"
#: the verdict of a statement shown with what was measured, without a verdict (no margin can be traced)
MEASURED = "measured, no verdict"
#: the verdict of a finding this build could not check (the values it reads were not measured)
NOT_CHECKED = "not checkable on this build"

#: whose statement a finding is (:attr:`recbias.bookkit.claims.Finding.origin`); only a paper's counts as a
#: reproduction
PAPER, BOOK, CODE = "paper", "book", "code"
ORIGINS = {PAPER: "statement of a paper", BOOK: "statement of this book", CODE: "check of our code"}
#: the same, counted
ORIGINS_COUNTED = {PAPER: "statements of the papers", BOOK: "statements of this book", CODE: "checks of our code"}
#: the papers by the first words of a claim's source, with the name the scorecard gives them
PAPERS = {"IRJ": "Bellogín, Castells and Cantador (IRJ 2017)", "KDD 2020": "Krichene and Rendle (KDD 2020)",
          "Bobrikov": "Bobrikov, Nenova and Ignatov (2016)", "thesis": "Bellogín (thesis, 2012)"}

NUMBER = "number"
FINDING = "finding"
SCORECARD_PAGE = "scorecard"


@dataclass(frozen=True)
class Claim:
    """One statement of a paper and what our build found for it.

    A *number* is a published value set against ours: its verdict is ``agrees`` when
    ``|ours - paper| <= tolerance`` on the paper's own dataset, ``differs`` when it
    exceeds the tolerance there, and ``not comparable`` on any other dataset.  A
    *finding* is a qualitative statement checked on whatever dataset the page was
    built with: its ``outcome`` is ``"holds"``, ``"fails"`` or ``"inconclusive"`` (a
    difference within noise), with the measured ``evidence`` and the ``criterion`` that
    decided it; ``departs`` says how the book's protocol or systems depart from the paper's;
    ``sentence`` is what the page says of the outcome (:attr:`recbias.bookkit.claims.Finding.says`);
    ``origin`` whose statement it is (:data:`ORIGINS`).
    """

    kind: str
    key: str
    label: str
    source: str
    dataset: str
    ours: float = math.nan
    paper: float = math.nan
    tolerance: float = math.nan
    paper_dataset: str = ""
    outcome: str = ""
    criterion: str = ""
    evidence: str = ""
    anchor: str = ""
    departs: str = ""
    chapter: str = ""
    note: str = ""
    sentence: str = ""
    origin: str = PAPER

    @property
    def comparable(self) -> bool:
        return self.kind == FINDING or self.dataset == self.paper_dataset

    @property
    def verdict(self) -> str:
        if self.outcome == "not checked":
            return NOT_CHECKED
        if self.kind == FINDING:
            if self.outcome == "fails":
                return DEPARTS if self.departs else FAILS
            return {"holds": HOLDS, "inconclusive": INCONCLUSIVE, "measured": MEASURED}[self.outcome]
        if not self.comparable:
            return NOT_COMPARABLE
        return AGREES if abs(self.ours - self.paper) <= self.tolerance else DIFFERS


def departure(claim: Claim) -> str:
    """How the book's protocol or systems depart from the paper's in ``claim``, as shown after its evidence:
    ``Departs: ...``, or "" when they do not.

    >>> departure(Claim(kind="finding", key="k", label="", source="", dataset="x", departs="other systems"))
    'Departs: other systems'
    """
    return f"Departs: {claim.departs}" if claim.departs else ""


def findings_table(claims: Sequence[Claim], *, where: bool = False) -> pd.DataFrame:
    """The findings a page registered, as the page shows them: statement, whose statement it is, verdict and
    evidence followed by the book's departure from the paper, if any (the papers' statements first, then the
    book's, then the checks of our code), and with ``where`` the dataset each was checked on."""
    ordered = sorted(claims, key=lambda c: list(ORIGINS).index(c.origin))
    evidence = [" ".join(filter(None, (c.evidence, departure(c)))) for c in ordered]
    table = pd.DataFrame({"statement": [c.label for c in ordered], "kind": [ORIGINS[c.origin] for c in ordered],
                          "verdict": [c.verdict for c in ordered], "evidence": evidence})
    return table.assign(**{"checked on": [c.dataset for c in ordered]}) if where else table


def paper_of(claim: Claim) -> str:
    """The paper a claim's source names (:data:`PAPERS`), or its source when it names none."""
    return next((name for prefix, name in PAPERS.items() if claim.source.startswith(prefix)), claim.source)


def record(claims: Sequence[Claim]) -> list[Claim]:
    """Store ``claims`` in the results file of the chapter being executed, if any, in one write; a stored claim
    with the key of one of them is replaced."""
    chapter = os.environ.get(CHAPTER_VARIABLE, "")
    claims = [replace(claim, chapter=chapter) for claim in claims]
    results_dir = os.environ.get(RESULTS_DIR_VARIABLE)
    if results_dir and chapter:
        _append(Path(results_dir) / f"{chapter}.json", claims)
    return claims


def _append(path: Path, claims: Sequence[Claim]) -> None:
    """Add ``claims`` to the JSON list at ``path``, replacing those with the same keys."""
    keys = {claim.key for claim in claims}
    records = json.loads(path.read_text()) if path.exists() else []
    records = [r for r in records if r["key"] not in keys] + [asdict(claim) for claim in claims]
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as handle:
        json.dump(records, handle, indent=1)
    os.replace(handle.name, path)


def load_claims(results_dir: str | Path) -> list[Claim]:
    """Every claim recorded under ``results_dir``, chapter by chapter; a damaged file, or a page whose claims
    and provenance come from different builds, is a :class:`~recbias.bookkit.results.ResultsError`."""
    return [Claim(**record) for record in claim_records(results_dir, Claim)]


def load_provenance(results_dir: str | Path) -> pd.DataFrame:
    """One row per executed page: chapter, dataset, seed, commit and build date of its last build."""
    rows = [{"chapter": page} | {k: record.get(k) for k in ("dataset", "seed", "commit", "date")}
            for page, record in provenance_records(results_dir)]
    return pd.DataFrame(rows, columns=["chapter", "dataset", "seed", "commit", "date"])


def mixed_builds(provenance: pd.DataFrame) -> str:
    """A warning when the pages of one book were built with different datasets or seeds, else ``""``."""
    chapters = provenance[provenance["chapter"] != "scorecard"]
    if chapters.empty or chapters[["dataset", "seed"]].drop_duplicates().shape[0] == 1:
        return ""
    groups = chapters.groupby(["dataset", "seed"])["chapter"].apply(lambda c: ", ".join(c))
    listed = "; ".join(f"{dataset} (seed {seed}): {pages}" for (dataset, seed), pages in groups.items())
    return f"The pages of this book were built with different datasets or seeds: {listed}."


def chapter_title(chapter: str, book: Path = Path("book")) -> str:
    """"1. The Cranfield paradigm for recommendation" for ``"01_cranfield"``: the page's number and
    its first heading, read from its Jupytext source (the page name when there is none)."""
    source = book / f"{chapter}.py"
    lines = source.read_text().splitlines() if source.exists() else []
    heading = next((line[4:].strip() for line in lines if line.startswith("# # ")), None)
    number = chapter.split("_")[0]
    if heading is None:
        return chapter
    return f"{int(number)}. {heading}" if number.isdigit() else heading


#: a number's verdicts in the order the scorecard counts them
NUMBER_VERDICTS = (AGREES, DIFFERS, NOT_COMPARABLE, NOT_CHECKED)
#: a finding's verdicts in the order the scorecard counts them
FINDING_VERDICTS = (HOLDS, FAILS, INCONCLUSIVE, MEASURED, DEPARTS, NOT_CHECKED)
#: the words of each verdict in the scorecard's counts
VERDICT_WORDS = {HOLDS: "hold", FAILS: "fail", INCONCLUSIVE: "inconclusive", MEASURED: "measured, no verdict",
                 DEPARTS: "fail where the book departs", NOT_CHECKED: "not checkable on this build", AGREES: "agree", DIFFERS: "differ",
                 NOT_COMPARABLE: "not comparable"}


def summary(claims: list[Claim]) -> pd.DataFrame:
    """Per chapter: how many numbers agree, differ or are not comparable, how many statements of the papers
    hold, fail, are inconclusive, are measured without verdict or fail only where the book departs from the
    paper, and how many statements of the book and checks of our code there are."""
    frame = pd.DataFrame({"chapter": [c.chapter for c in claims],
                          "column": [(f"papers' statements {VERDICT_WORDS[c.verdict]}" if c.origin == PAPER
                                      else ORIGINS_COUNTED[c.origin]) if c.kind == FINDING
                                     else f"numbers {VERDICT_WORDS[c.verdict]}" for c in claims]})
    columns = ([f"numbers {VERDICT_WORDS[v]}" for v in NUMBER_VERDICTS]
               + [f"papers' statements {VERDICT_WORDS[v]}" for v in FINDING_VERDICTS]
               + [ORIGINS_COUNTED[BOOK], ORIGINS_COUNTED[CODE]])
    return pd.crosstab(frame["chapter"], frame["column"]).reindex(columns=columns, fill_value=0).reset_index()


def _link(claim: Claim) -> str:
    target = f"{claim.chapter}.html" + (f"#{claim.anchor}" if claim.anchor else "")
    return f'<a href="{target}">{claim.source or "source"}</a>'


def details_html(claims: list[Claim]) -> str:
    """The claims of one chapter as HTML tables: the papers' statements, the book's statements and the checks
    of our code apart, then the published numbers."""
    parts = []
    for origin, words in ORIGINS.items():
        findings = [c for c in claims if c.kind == FINDING and c.origin == origin]
        if findings:
            rows = "".join(
                f"<tr><td>{c.label}</td><td class='{c.outcome}'>{c.verdict}</td>"
                f"<td>{c.evidence}{f' <em>{departure(c)}</em>' if c.departs else ''}</td><td>{c.dataset}</td>"
                f"<td>{_link(c)}</td></tr>"
                for c in findings
            )
            parts.append(
                f"<table class='scorecard'><tr><th>{words}</th><th>verdict</th><th>evidence</th><th>checked on</th>"
                f"<th>where</th></tr>{rows}</table>"
            )
    numbers = [c for c in claims if c.kind == NUMBER]
    if numbers:
        rows = "".join(
            f"<tr><td>{c.label}</td><td>{c.paper:.4g} <small>({c.paper_dataset})</small></td>"
            + (f"<td>— <small>({c.evidence})</small></td>" if c.verdict == NOT_CHECKED
               else f"<td>{c.ours:.4g} <small>({c.dataset})</small></td>") + f"<td>±{c.tolerance:.2g}</td>"
            f"<td class='{c.verdict.replace(' ', '-')}'>{c.verdict}</td><td>{_link(c)}</td></tr>"
            for c in numbers
        )
        parts.append(
            "<table class='scorecard'><tr><th>published number</th><th>paper</th><th>ours</th><th>tolerance</th>"
            f"<th>verdict</th><th>where</th></tr>{rows}</table>"
        )
    return "".join(parts)


def chapter_details(chapter: str, claims: list[Claim]) -> str:
    """A chapter's claims as a folded HTML section whose summary line counts its verdicts."""
    counts = summary(claims).iloc[0]
    stated = {v: int(counts["papers' statements " + VERDICT_WORDS[v]]) for v in FINDING_VERDICTS}
    parts = [f"{stated[HOLDS]} of {sum(stated.values())} statements of the papers hold"] if any(stated.values()) else []
    parts += [f"{stated[v]} {VERDICT_WORDS[v]}" for v in FINDING_VERDICTS[1:] if stated[v]]
    for origin in (BOOK, CODE):
        count = int(counts[ORIGINS_COUNTED[origin]])
        parts += [f"{count} {ORIGINS_COUNTED[origin] if count > 1 else ORIGINS[origin]}"] if count else []
    unchecked = int(counts[f"numbers {VERDICT_WORDS[NOT_CHECKED]}"])
    parts.append(f"{counts['numbers agree']} numbers agree, {counts['numbers differ']} differ, "
                 f"{counts['numbers not comparable']} not comparable"
                 + (f", {unchecked} not checkable on this build" if unchecked else ""))
    return (f"<details><summary><b>{chapter_title(chapter)}</b>: {', '.join(parts)}</summary>"
            + details_html(claims) + "</details>")


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


REAL_DATA = "real data"
SIMULATION = "simulations"
TOY = "toy examples"


def evidence_kind(claim: Claim) -> str:
    """Where a published number was measured in the paper: ``toy examples`` (worked by hand),
    ``simulations`` (artificial worlds) or ``real data``."""
    where = claim.paper_dataset.lower()
    if where == "toy":
        return TOY
    return SIMULATION if any(word in where for word in ("world", "simulat", "artificial")) else REAL_DATA


NUMBER_COLUMNS = ["published numbers", "checked", "agree", "differ", "not comparable", "not checkable here"]
FINDING_COLUMNS = ["statements", "checked", "hold", "fail", "inconclusive", "no verdict", "fail where the book departs",
                   "not checkable here"]


def _finding_row(label: str, findings: list[Claim]) -> dict[str, object]:
    counts = pd.Series([c.verdict for c in findings], dtype=object).value_counts()
    return dict(zip(FINDING_COLUMNS, [label, len(findings) - int(counts.get(NOT_CHECKED, 0)),
                                      *(int(counts.get(v, 0)) for v in FINDING_VERDICTS)], strict=True))


def headline_numbers(claims: list[Claim]) -> pd.DataFrame:
    """The published numbers at a glance, by where the paper measured them (real data, simulations, toy
    examples): how many were checked on the paper's own dataset, agree or differ, and how many were computed on
    another dataset (not comparable)."""
    rows = []
    numbers = [c for c in claims if c.kind == NUMBER]
    for kind in (REAL_DATA, SIMULATION, TOY):
        counts = pd.Series([c.verdict for c in numbers if evidence_kind(c) == kind], dtype=object).value_counts()
        if len(counts):
            rows.append(dict(zip(NUMBER_COLUMNS, [f"from {kind}", int(counts.get(AGREES, 0) + counts.get(DIFFERS, 0)),
                                                  *(int(counts.get(v, 0)) for v in NUMBER_VERDICTS)],
                                 strict=True)))
    return pd.DataFrame(rows, columns=NUMBER_COLUMNS)


def headline_findings(claims: list[Claim]) -> pd.DataFrame:
    """The statements at a glance: those of each paper by verdict, then apart the statements of this book and
    the checks of our code, which are not reproductions."""
    rows = []
    stated = [c for c in claims if c.kind == FINDING and c.origin == PAPER]
    for paper in dict.fromkeys(paper_of(c) for c in stated):
        rows.append(_finding_row(f"of {paper}", [c for c in stated if paper_of(c) == paper]))
    for origin in (BOOK, CODE):
        findings = [c for c in claims if c.kind == FINDING and c.origin == origin]
        if findings:
            rows.append(_finding_row(f"{ORIGINS_COUNTED[origin]} (not reproductions)", findings))
    return pd.DataFrame(rows, columns=FINDING_COLUMNS)


def verdict_counts(claims: list[Claim]) -> pd.Series:
    """How many claims agree, differ, are not comparable, hold, do not hold, are inconclusive, are measured
    without verdict or fail where the book departs."""
    counts = pd.Series([c.verdict for c in claims], dtype=object).value_counts()
    return counts.reindex([AGREES, DIFFERS, NOT_COMPARABLE, *FINDING_VERDICTS], fill_value=0)

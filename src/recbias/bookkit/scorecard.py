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
    ``sentence`` is what the page says of the outcome (:attr:`recbias.bookkit.claims.Finding.says`).
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

    @property
    def comparable(self) -> bool:
        return self.kind == FINDING or self.dataset == self.paper_dataset

    @property
    def verdict(self) -> str:
        if self.kind == FINDING:
            if self.outcome == "fails":
                return DEPARTS if self.departs else FAILS
            return {"holds": HOLDS, "inconclusive": INCONCLUSIVE}[self.outcome]
        if not self.comparable:
            return NOT_COMPARABLE
        return AGREES if abs(self.ours - self.paper) <= self.tolerance else DIFFERS


def findings_table(claims: Sequence[Claim], *, where: bool = False) -> pd.DataFrame:
    """The findings a page registered, as the page shows them: statement, verdict and evidence, and with
    ``where`` the dataset each was checked on."""
    table = pd.DataFrame({"statement": [c.label for c in claims], "verdict": [c.verdict for c in claims],
                          "evidence": [c.evidence for c in claims]})
    return table.assign(**{"checked on": [c.dataset for c in claims]}) if where else table


def record(claim: Claim) -> Claim:
    """Store ``claim`` in the results file of the chapter being executed, if any."""
    claim = replace(claim, chapter=os.environ.get(CHAPTER_VARIABLE, ""))
    results_dir = os.environ.get(RESULTS_DIR_VARIABLE)
    if results_dir and claim.chapter:
        _append(Path(results_dir) / f"{claim.chapter}.json", claim)
    return claim


def _append(path: Path, record: Claim) -> None:
    """Add ``record`` to the JSON list at ``path``, replacing a claim with the same key."""
    records = json.loads(path.read_text()) if path.exists() else []
    records = [r for r in records if r["key"] != record.key] + [asdict(record)]
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


def summary(claims: list[Claim]) -> pd.DataFrame:
    """Per chapter: how many numbers agree, differ or are not comparable, and how many findings hold, fail,
    are inconclusive or fail only where the book departs from the paper."""
    verdicts = [AGREES, DIFFERS, NOT_COMPARABLE, HOLDS, FAILS, INCONCLUSIVE, DEPARTS]
    frame = pd.DataFrame({"chapter": [c.chapter for c in claims], "verdict": [c.verdict for c in claims]})
    table = pd.crosstab(frame["chapter"], frame["verdict"]).reindex(columns=verdicts, fill_value=0)
    table.columns = ["numbers agree", "numbers differ", "numbers not comparable", "findings hold", "findings fail",
                     "findings inconclusive", "findings that depart"]
    return table.reset_index()


def _link(claim: Claim) -> str:
    target = f"{claim.chapter}.html" + (f"#{claim.anchor}" if claim.anchor else "")
    return f'<a href="{target}">{claim.source or "source"}</a>'


def details_html(claims: list[Claim]) -> str:
    """The claims of one chapter as two HTML tables: findings first, then numbers."""
    findings = [c for c in claims if c.kind == FINDING]
    numbers = [c for c in claims if c.kind == NUMBER]
    parts = []
    if findings:
        rows = "".join(
            f"<tr><td>{c.label}</td><td class='{c.outcome}'>{c.verdict}</td>"
            f"<td>{c.evidence}{f' <em>Departs: {c.departs}</em>' if c.departs else ''}</td><td>{c.dataset}</td>"
            f"<td>{_link(c)}</td></tr>"
            for c in findings
        )
        parts.append(
            "<table class='scorecard'><tr><th>finding</th><th>verdict</th><th>evidence</th><th>checked on</th>"
            f"<th>where</th></tr>{rows}</table>"
        )
    if numbers:
        rows = "".join(
            f"<tr><td>{c.label}</td><td>{c.paper:.4g} <small>({c.paper_dataset})</small></td>"
            f"<td>{c.ours:.4g} <small>({c.dataset})</small></td><td>±{c.tolerance:.2g}</td>"
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
    findings = sum(int(counts[f"findings {v}"]) for v in ("hold", "fail", "inconclusive", "that depart"))
    parts = [f"{counts['findings hold']} of {findings} findings hold"]
    parts += [f"{counts[column]} {words}" for column, words in (
        ("findings fail", "fail"), ("findings inconclusive", "inconclusive"),
        ("findings that depart", "fail where the book departs")) if counts[column]]
    parts.append(f"{counts['numbers agree']} numbers agree, {counts['numbers differ']} differ, "
                 f"{counts['numbers not comparable']} not comparable")
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


def headline(claims: list[Claim]) -> pd.DataFrame:
    """The scorecard at a glance: published numbers by where the paper measured them (real data,
    simulations, toy examples) and findings by verdict, each with its count."""
    rows = []
    numbers = [c for c in claims if c.kind == NUMBER]
    for kind in (REAL_DATA, SIMULATION, TOY):
        of_kind = [c for c in numbers if evidence_kind(c) == kind]
        if of_kind:
            counts = pd.Series([c.verdict for c in of_kind]).value_counts()
            rows.append({"claims": f"published numbers from {kind}", "checked": int(counts.get(AGREES, 0)
                                                                                    + counts.get(DIFFERS, 0)),
                         "agree or hold": int(counts.get(AGREES, 0)), "differ or fail": int(counts.get(DIFFERS, 0)),
                         "inconclusive": 0, "fail where the book departs": 0,
                         "not comparable": int(counts.get(NOT_COMPARABLE, 0))})
    findings = pd.Series([c.verdict for c in claims if c.kind == FINDING], dtype=object).value_counts()
    if len(findings):
        rows.append({"claims": "findings", "checked": int(findings.sum()), "agree or hold": int(findings.get(HOLDS, 0)),
                     "differ or fail": int(findings.get(FAILS, 0)),
                     "inconclusive": int(findings.get(INCONCLUSIVE, 0)),
                     "fail where the book departs": int(findings.get(DEPARTS, 0)), "not comparable": 0})
    return pd.DataFrame(rows, columns=["claims", "checked", "agree or hold", "differ or fail", "inconclusive",
                                       "fail where the book departs", "not comparable"])


def verdict_counts(claims: list[Claim]) -> pd.Series:
    """How many claims agree, differ, are not comparable, hold or do not hold."""
    counts = pd.Series([c.verdict for c in claims], dtype=object).value_counts()
    return counts.reindex([AGREES, DIFFERS, NOT_COMPARABLE, HOLDS, FAILS, INCONCLUSIVE, DEPARTS], fill_value=0)

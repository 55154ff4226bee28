"""The book's bibliography style: entries sorted by author and year and labelled as the text cites them.

Citations in the chapters are author-year ("Bellogín et al. (2017)"); a numbered
list [1]-[18] would make a reader translate between two systems.  This Sphinx
extension registers a pybtex style, ``recbias``, that keeps pybtex's plain entry
format but labels each entry "Bellogín et al. 2017" (two authors are both named,
three or more give "et al."; editors stand in for missing authors; a, b, ...
tell apart equal labels) and sorts by author, year and title.  Enabled in
``_config.yml`` with ``bibtex_default_style: recbias``.  It also registers the citation
style ``author_year_round`` (``bibtex_reference_style``): the author-year citations of
sphinxcontrib-bibtex in round brackets, "Bellogín et al. (2017)" and "(Cremonesi et al.,
2010)", as printed books write them, instead of square ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from string import ascii_lowercase

import sphinxcontrib.bibtex.plugin

from pybtex.database import Entry
from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle


def _surname(person) -> str:
    return Text.from_latex(" ".join(person.prelast_names + person.last_names)).render_as("text")


def author_year(entry: Entry) -> str:
    """"Surname Year", "Surname and Surname Year" or "Surname et al. Year" of one entry."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    if not persons:
        who = Text.from_latex(entry.fields.get("organization", entry.fields.get("title", "Anon."))).render_as("text")
    elif len(persons) == 1:
        who = _surname(persons[0])
    elif len(persons) == 2:
        who = f"{_surname(persons[0])} and {_surname(persons[1])}"
    else:
        who = f"{_surname(persons[0])} et al."
    return f"{who} {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    """Labels such as "Bellogín et al. 2017", with a letter appended where two entries would share one."""

    def format_labels(self, sorted_entries: Iterable[Entry]) -> Iterator[str]:
        entries = list(sorted_entries)
        labels = [author_year(entry) for entry in entries]
        repeated = Counter(labels)
        seen: Counter = Counter()
        for label in labels:
            if repeated[label] > 1:
                seen[label] += 1
                yield f"{label}{ascii_lowercase[seen[label] - 1]}"
            else:
                yield label


class AuthorYearStyle(PlainStyle):
    """pybtex's plain entries, author-year labels, sorted by author, year and title."""

    default_label_style = "recbias-author-year"
    default_sorting_style = "author_year_title"


def _round() -> BracketStyle:
    return BracketStyle(left="(", right=")")


@dataclass
class RoundAuthorYearReferences(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's author-year citations with round brackets."""

    bracket_textual: BracketStyle = field(default_factory=_round)
    bracket_parenthetical: BracketStyle = field(default_factory=_round)
    bracket_author: BracketStyle = field(default_factory=_round)
    bracket_label: BracketStyle = field(default_factory=_round)
    bracket_year: BracketStyle = field(default_factory=_round)


def setup(app) -> dict:
    """Sphinx entry point: register the label, formatting and citation styles."""
    register_plugin("pybtex.style.labels", "recbias-author-year", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "recbias", AuthorYearStyle)
    sphinxcontrib.bibtex.plugin.register_plugin(
        "sphinxcontrib.bibtex.style.referencing", "author_year_round", RoundAuthorYearReferences
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}

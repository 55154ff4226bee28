"""The bibliography's author-year labels."""

from __future__ import annotations

from pybtex.database import Entry, Person

from recbias.bookkit.bibstyle import AuthorYearLabels, author_year


def entry(year: str, *authors: str) -> Entry:
    return Entry("article", fields={"year": year, "title": "t"}, persons={"author": [Person(a) for a in authors]})


def test_labels_name_one_two_or_the_first_of_many_authors() -> None:
    assert author_year(entry("2017", "Bellog{\\'\\i}n, Alejandro", "Castells, Pablo", "Cantador, Iv{\\'a}n")) == (
        "Bellogín et al. 2017"
    )
    assert author_year(entry("2020", "Krichene, Walid", "Rendle, Steffen")) == "Krichene and Rendle 2020"
    assert author_year(entry("2011", "Steck, Harald")) == "Steck 2011"


def test_equal_labels_get_letters() -> None:
    entries = [entry("2005", "Voorhees, Ellen"), entry("2005", "Voorhees, Ellen"), entry("1999", "Voorhees, Ellen")]
    assert list(AuthorYearLabels().format_labels(entries)) == ["Voorhees 2005a", "Voorhees 2005b", "Voorhees 1999"]

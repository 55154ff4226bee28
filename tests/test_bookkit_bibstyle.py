"""The bibliography's author-year labels."""

from __future__ import annotations

import re

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


def test_citations_use_round_brackets(tmp_path) -> None:
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    source = tmp_path / "source"
    source.mkdir()
    (source / "refs.bib").write_text(
        "@article{k, author={Krichene, Walid and Rendle, Steffen}, title={On sampled metrics}, journal={J}, year={2020}}\n"
    )
    (source / "conf.py").write_text(
        "extensions = ['sphinxcontrib.bibtex', 'recbias.bookkit.bibstyle']\nbibtex_bibfiles = ['refs.bib']\n"
        "bibtex_reference_style = 'author_year_round'\nbibtex_default_style = 'recbias'\n"
    )
    (source / "index.rst").write_text("Page\n====\n\nAs :cite:t:`k` show, and so on :cite:p:`k`.\n\n.. bibliography::\n")
    with docutils_namespace():  # Sphinx's nodes and directives registered for this site only
        Sphinx(str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
               status=None, warning=None, freshenv=True).build()
    text = re.sub(r"<[^>]+>", "", (tmp_path / "html" / "index.html").read_text())
    assert "As Krichene and Rendle (2020) show, and so on (Krichene and Rendle, 2020)." in text

"""The link check of the built site: on a small hand-made site, every broken local link is named, no good
one is, and links to other sites are left alone; CI runs it after each build of the book."""

from __future__ import annotations

from pathlib import Path

import pytest

from recbias.bookkit import links

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    """index.html and book/a.html linking to each other, to assets, to anchors and to nowhere."""
    (tmp_path / "book").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "style.css").write_text("p {}")
    (tmp_path / "_static" / "theme-macros.html").write_text('<a href="{{ pathto(\'x\') }}">template</a>')
    (tmp_path / "index.html").write_text(
        '<link rel="stylesheet" href="_static/style.css?v=3"><p id="top"></p>'
        '<a href="book/a.html">good page</a> <a href="book/a.html#tbl-one">good anchor</a>'
        '<a href="#top">good here</a> <a href="book/">good directory</a> <a href="https://example.org/x">other site</a>'
        '<a href="mailto:x@example.org">mail</a> <a href="book/missing.html">broken page</a>'
        '<a href="book/a.html#Sec.%206">broken anchor</a> <img src="_images/gone.png">')
    (tmp_path / "book" / "a.html").write_text(
        '<table id="tbl-one"></table><a name="old-style"></a><a href="../index.html#top">back</a>'
        '<a href="#old-style">named anchor</a> <a href="bellogin2017statistical">a citation key</a>'
        '<a href="#nowhere">missing here</a> <a href="../../outside.html">outside</a>')
    (tmp_path / "book" / "index.html").write_text("<p>the directory's page</p>")
    return tmp_path


def test_every_broken_local_link_is_named_and_no_good_one(site: Path) -> None:
    found = {(item.page, item.link): item.reason for item in links.broken_links(site)}
    assert found == {
        ("index.html", "book/missing.html"): "no such file",
        ("index.html", "book/a.html#Sec.%206"): "no id 'Sec. 6' in book/a.html",
        ("index.html", "_images/gone.png"): "no such file",
        ("book/a.html", "bellogin2017statistical"): "no such file",
        ("book/a.html", "#nowhere"): "no id 'nowhere' in book/a.html",
        ("book/a.html", "../../outside.html"): "outside the site",
    }


def test_a_site_whose_links_all_resolve_passes(tmp_path: Path, capsys) -> None:
    (tmp_path / "book").mkdir()
    (tmp_path / "index.html").write_text('<p id="top"></p><a href="book/a.html#x">a</a><a href="https://x.org">x</a>')
    (tmp_path / "book" / "a.html").write_text('<p id="x"></p><a href="../index.html#top">back</a><a href="#">top</a>')
    assert links.main([str(tmp_path)]) == 0
    assert "resolves" in capsys.readouterr().out


def test_the_command_lists_each_broken_link_and_fails(site: Path, capsys) -> None:
    assert links.main([str(site)]) == 1
    err = capsys.readouterr().err
    assert "book/a.html: #nowhere (no id 'nowhere' in book/a.html)" in err and "6 broken link(s)" in err


def test_a_missing_site_is_refused_with_what_to_do(tmp_path: Path, capsys) -> None:
    assert links.main([str(tmp_path / "nothing")]) == 1
    assert "build the book first" in capsys.readouterr().err


def test_ci_checks_the_links_after_each_build_of_the_book() -> None:
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    builds = [index for index, line in enumerate(steps) if line.startswith("make book")]
    assert builds and all("recbias.bookkit.links" in steps[index + 1] for index in builds)

"""The rendered book: it loads nothing from other sites (MathJax included) and identical builds give
byte-identical pages and executed notebooks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from smoke_pages import FAST_PARAMETERS

ROOT = Path(__file__).resolve().parents[1]
#: a chapter that measures no running times, so that two builds of it can be compared byte for byte
CHAPTER = "07_discounted_auc"


class Resources(HTMLParser):
    """The scripts and stylesheets a page loads, and the text of its inline scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self._in_script = values.get("src") is None
            if values.get("src"):
                self.loaded.append(values["src"])
        elif tag == "link" and "stylesheet" in (values.get("rel") or "") and values.get("href"):
            self.loaded.append(values["href"])

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.inline.append(data)


def resources(page: Path) -> Resources:
    parser = Resources()
    parser.feed(page.read_text())
    return parser


def test_the_parser_sees_remote_scripts_and_stylesheets(tmp_path):
    page = tmp_path / "page.html"
    page.write_text('<script src="https://cdn.example/x.js"></script><link rel="stylesheet" href="//cdn.example/a.css">'
                    '<script>const URL = "https://unpkg.com/thebe"</script><link rel="icon" href="https://x/icon.png">')
    found = resources(page)
    assert found.loaded == ["https://cdn.example/x.js", "//cdn.example/a.css"]
    assert found.inline == ['const URL = "https://unpkg.com/thebe"']


def copy_book(target: Path) -> None:
    """The book's sources and configuration, without any build output."""
    for name in ("_config.yml", "_toc.yml", "references.bib"):
        shutil.copy(ROOT / name, target / name)
    shutil.copytree(ROOT / "book", target / "book", ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))


def build(root: Path) -> subprocess.CompletedProcess:
    parameters = [item for name, value in FAST_PARAMETERS[CHAPTER].items() for item in ("-p", name, str(value))]
    command = [sys.executable, "-m", "recbias.bookkit", "--root", str(root), "--dataset", "synthetic-small",
               "--seed", "1", "--chapters", CHAPTER, *parameters]
    return subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=root,
                          env=os.environ | {"SOURCE_DATE_EPOCH": "1700000000"})


@pytest.mark.slow
def test_identical_builds_give_identical_pages_that_load_nothing_from_elsewhere(tmp_path):
    copy_book(tmp_path)
    first = build(tmp_path)
    assert first.returncode == 0, first.stderr
    html = tmp_path / "_build" / "html"
    page = html / "book" / f"{CHAPTER}.html"
    notebook = tmp_path / "book" / f"{CHAPTER}.ipynb"  # the executed notebook, as the build leaves it
    before, executed = page.read_bytes(), notebook.read_bytes()
    site = {path: path.read_bytes() for path in sorted(html.rglob("*")) if path.is_file()}
    assert build(tmp_path).returncode == 0
    assert page.read_bytes() == before
    assert notebook.read_bytes() == executed and str(tmp_path).encode() not in executed
    differ = sorted(str(path.relative_to(html)) for path in site if not path.is_file() or path.read_bytes() != site[path])
    assert differ == [], f"files of the site that differ between two identical builds: {differ}"
    assert any("_sources" in path.parts for path in site)  # the notebooks readers download are compared too
    local = [str(path.relative_to(html)) for path, data in site.items() if str(tmp_path).encode() in data]
    assert local == [], f"files of the site that name the build's directory: {local}"

    pages = sorted(html.rglob("*.html"))
    for built in pages:
        found = resources(built)
        remote = [url for url in found.loaded if url.startswith(("http:", "https:", "//"))]
        assert not remote, f"{built.name} loads {remote}"
        assert not [text for text in found.inline if "http" in text or "THEBE" in text], built.name
    mathjax = [url for url in resources(page).loaded if "mathjax" in url]
    assert len(mathjax) == 1 and (page.parent / mathjax[0].split("?")[0]).is_file()
    assert b'class="math' in before  # the page has math for MathJax to render

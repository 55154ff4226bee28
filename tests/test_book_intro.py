"""The intro's tables of contents name every page of ``_toc.yml``, in its order."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## How the book is organised"


def toc_pages() -> list[str]:
    """The pages of ``_toc.yml`` after the root, in reading order, by name (``01_cranfield``)."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                found.append(Path(node["file"]).name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    return found


def intro_rows(text: str) -> list[str]:
    """The page each table row of the intro's section on how the book is organised links to, in order."""
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return [match for line in section.splitlines() if line.startswith("|")
            for match in re.findall(r"^\|\s*\{doc\}`([^`<]+)`", line)]


def test_the_pages_are_read_in_nested_parts() -> None:
    pages = toc_pages()
    assert pages[0] == "01_cranfield" and "scorecard" in pages and "intro" not in pages


def test_the_row_reader_sees_every_row_and_only_rows() -> None:
    text = f"{SECTION}\n\n| page | q |\n|---|---|\n| {{doc}}`a` | x |\n\nSee {{doc}}`c`.\n\n| {{doc}}`b` | y |\n\n## Next\n| {{doc}}`d` |"
    assert intro_rows(text) == ["a", "b"]


def test_the_intro_lists_every_page_of_the_book_in_its_order() -> None:
    assert intro_rows((ROOT / "book" / "intro.md").read_text()) == toc_pages()

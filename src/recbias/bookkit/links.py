"""The built site's internal links: every ``href`` or ``src`` to a local file names a file of the site, and
every ``#fragment`` of a link to a page names an ``id`` on that page.

Usage (CI runs it after each build of the book)::

    python -m recbias.bookkit.links              # checks _build/html
    python -m recbias.bookkit.links SITE_DIR

Links to other sites (``https:``, ``mailto:`` ...) are not followed.  Prints one line per broken link,
``page: href (what is wrong)``, and exits with 1 when there is any.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: the attributes that name another file or a place in one
LINK_ATTRIBUTES = ("href", "src")
#: the site ``python -m recbias.bookkit`` writes
SITE = Path("_build") / "html"
#: the theme's assets: their ``.html`` files are templates (``{{ pathto(...) }}``), not pages of the site
ASSETS = "_static"


class _Page(HTMLParser):
    """The links of a page (attribute values of :data:`LINK_ATTRIBUTES`) and the ids it defines."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in LINK_ATTRIBUTES:
                self.links.append(value)
            elif name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)


@dataclass(frozen=True)
class Broken:
    """A link of ``page`` (a path inside the site) that does not resolve, and why."""

    page: str
    link: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.link} ({self.reason})"


def is_local(link: str) -> bool:
    """Whether ``link`` points into the site: no scheme (``https:``, ``mailto:``, ``data:``) and no host.

    >>> is_local("02_designs.html#tbl-x"), is_local("#top"), is_local("https://x.org"), is_local("//cdn/x.js")
    (True, True, False, False)
    """
    parts = urlsplit(link)
    return not parts.scheme and not parts.netloc


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def broken_links(site: Path) -> list[Broken]:
    """Every local link of the site's pages (the HTML files outside :data:`ASSETS`) that names a missing file
    or a missing fragment."""
    site = site.resolve()
    pages = {path: _parse(path) for path in sorted(site.rglob("*.html"))
             if ASSETS not in path.relative_to(site).parts}
    broken = []
    for path, page in pages.items():
        shown = path.relative_to(site).as_posix()
        for link in dict.fromkeys(page.links):
            problem = _problem(site, path, link, pages) if is_local(link) else None
            if problem:
                broken.append(Broken(shown, link, problem))
    return broken


def _problem(site: Path, page: Path, link: str, pages: dict[Path, _Page]) -> str | None:
    """Why a local ``link`` of ``page`` does not resolve, or ``None``."""
    parts = urlsplit(link)
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if target.is_dir():
        target = target / "index.html"
    if not target.is_relative_to(site):
        return "outside the site"
    if not target.is_file():
        return "no such file"
    fragment = unquote(parts.fragment)
    if fragment and target in pages and fragment not in pages[target].ids:
        return f"no id {fragment!r} in {target.relative_to(site).as_posix()}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recbias.bookkit.links", description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", type=Path, default=SITE, help=f"the built site (default: {SITE})")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"link check: {args.site} holds no built site (no index.html); build the book first", file=sys.stderr)
        return 1
    broken = broken_links(args.site)
    for item in broken:
        print(item, file=sys.stderr)
    if broken:
        print(f"link check: {len(broken)} broken link(s) in {args.site}", file=sys.stderr)
        return 1
    print(f"link check: every local link of {args.site} resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())

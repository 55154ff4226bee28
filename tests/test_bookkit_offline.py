"""The offline extension keeps sphinx-thebe's remote script out of the built pages."""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from recbias.bookkit import offline


def built_page(tmp_path: Path, extensions: list[str]) -> str:
    source = tmp_path / "source"
    source.mkdir(parents=True)
    (source / "conf.py").write_text(f"extensions = {extensions!r}\n")
    (source / "index.rst").write_text("Page\n====\n\nText.\n")
    with docutils_namespace():  # Sphinx's nodes and directives registered for this site only
        app = Sphinx(str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=None, freshenv=True)
        app.build()
    return (tmp_path / "html" / "index.html").read_text()


def test_thebe_scripts_are_dropped(tmp_path: Path) -> None:
    assert "THEBE_JS_URL" in built_page(tmp_path / "plain", ["sphinx_thebe"])  # what the extension removes
    html = built_page(tmp_path / "offline", ["sphinx_thebe", offline.__name__])
    assert "THEBE_JS_URL" not in html and "sphinx-thebe.js" not in html and "Text." in html

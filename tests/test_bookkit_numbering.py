"""Figures labelled tbl-... are numbered, captioned and referenced as tables."""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from recbias.bookkit import numbering

PAGE = """\
Page
====

.. figure:: missing.png
   :name: fig-plot

   A plot.

.. figure:: missing.png
   :name: tbl-summary

   A glued table.

.. table:: A real table.
   :name: tbl-real

   = =
   a b
   = =

See :numref:`tbl-summary`, :numref:`fig-plot` and :numref:`tbl-real`.
"""


def test_glued_tables_are_numbered_as_tables(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(f"extensions = ['{numbering.__name__}']\nnumfig = True\n")
    (source / "index.rst").write_text(PAGE)
    with docutils_namespace():  # Sphinx's nodes and directives registered for this site only
        app = Sphinx(str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=None, freshenv=True)
        app.build()
    html = (tmp_path / "html" / "index.html").read_text()
    assert "Table 1" in html and "Table 2" in html and "Fig. 1" in html
    assert "Fig. 2" not in html  # the glued table is not counted among the figures
    assert 'See <a class="reference internal" href="#tbl-summary"><span class="std std-numref">Table 1' in html

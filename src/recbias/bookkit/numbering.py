"""Glued tables numbered as tables: "Table 2.3", not "Fig. 2.3".

A page glues a pandas table as HTML and places it with a MyST ``{glue:figure}``
directive, the only directive that gives a glued output a caption and a label; Sphinx
then numbers it as a figure.  This Sphinx extension turns every figure whose label
starts with ``tbl-`` into a :class:`table_figure`, registered as an enumerable node of
type ``table``: its caption and every ``{numref}`` to it read "Table N", in the same
sequence as the book's other tables.  The HTML keeps the figure's markup.  Enabled in
``_config.yml`` under ``sphinx.extra_extensions``.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

#: label prefix of the glued tables
TABLE_PREFIX = "tbl-"


class table_figure(nodes.figure):  # noqa: N801 (docutils names node classes in lower case)
    """A captioned table placed by a figure directive."""


class GluedTablesAreTables(SphinxTransform):
    """Replace figures labelled ``tbl-...`` by :class:`table_figure` nodes before numbering."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        for figure in list(self.document.findall(nodes.figure)):
            if type(figure) is nodes.figure and any(name.startswith(TABLE_PREFIX) for name in figure["names"]):
                table = table_figure(figure.rawsource, *figure.children, **figure.attributes)
                figure.replace_self(table)
                for node_id in table["ids"]:  # labels resolve through the document's id map
                    self.document.ids[node_id] = table


def _visit(translator: Any, node: table_figure) -> None:
    translator.visit_figure(node)


def _depart(translator: Any, node: table_figure) -> None:
    translator.depart_figure(node)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_enumerable_node(table_figure, "table", html=(_visit, _depart))
    app.add_transform(GluedTablesAreTables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Sphinx extension: a built book that reads offline, loading no script or stylesheet from elsewhere.

MathJax is served from the book itself by the ``sphinx-mathjax-offline`` extension (listed in
``_config.yml``), which copies it into ``_static/mathjax``.  This extension removes the scripts
that Jupyter Book's sphinx-thebe adds to every page: they name a remote bundle and, added each
time the sources are read, declare ``THEBE_JS_URL`` twice (a console error); the book has no
live code cells.
"""

from __future__ import annotations

from typing import Any


def _drop_thebe_scripts(app: Any) -> None:
    """Disconnect sphinx-thebe's handler that adds its scripts to every page."""
    for listener in list(app.events.listeners.get("env-before-read-docs", [])):
        handler = listener.handler
        if handler.__module__ == "sphinx_thebe" and handler.__name__ == "init_thebe_core":
            app.disconnect(listener.id)


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _drop_thebe_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Sphinx extension: the API reference appendix, generated from the package's docstrings.

``.. api-module:: recbias.splits``, inside an ``{eval-rst}`` block of ``book/appendix_api.md``, shows the
module's docstring, a table of its public names with the first line of each docstring
(``sphinx.ext.autosummary``), then every name's signature and docstring (``sphinx.ext.autodoc``).  The public
names are the module's ``__all__`` (else the functions, classes and constants it defines whose names do not
start with ``_``, or the ``:names:`` option), functions first, then classes, exceptions and constants.  A
constant shows the ``#:`` comment above its definition, in whichever module defines it, and its value when
the value is short.  ``:usage: parser`` adds the ``--help`` text of each command of the ``argparse`` parser
that the module's function ``parser()`` builds.

Autodoc must read the package of the book being built: when the book's root holds ``src/recbias``, the
imported ``recbias`` must be that one (the pipeline puts it first on ``PYTHONPATH``).  Enabled in
``_config.yml`` under ``sphinx.extra_extensions``; it sets up ``sphinx.ext.autodoc`` and
``sphinx.ext.autosummary`` itself, and reads Google-style sections with napoleon's parser.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import os
import re
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.ext import autosummary
from sphinx.ext.napoleon import Config as NapoleonConfig
from sphinx.ext.napoleon.docstring import GoogleDocstring
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.docutils import SphinxDirective
from sphinx.util.inspect import DefaultValue, signature, stringify_signature
from sphinx.util.nodes import nested_parse_with_titles

import recbias

#: the order in which a module's public names are shown, by kind
KINDS = ("function", "class", "exception", "data")
#: how Google-style sections (``Attributes:``, ``Args:``, ``Returns:``) are read: attributes as ``:ivar:`` fields,
#: so that they never define a second target beside the entry autodoc gives a documented field
GOOGLE = NapoleonConfig(napoleon_numpy_docstring=False, napoleon_use_ivar=True)
#: the docstrings whose Google-style sections are read; napoleon would read the first words of an attribute's or
#: a property's docstring, up to a colon, as its type
SECTIONED = ("module", "class", "exception", "function", "method")
#: the heading of a Google-style section whose entries name parameters or attributes
SECTION = re.compile(r"(Attributes|Args|Arguments|Parameters|Keyword Args):")
#: an entry of such a section that documents several names at once: ``users, items: their codes``
SHARED_ENTRY = re.compile(r"(\s+)(\w+(?:, \w+)+): (.*)")
#: abbreviations after which the first sentence of a docstring, the one autosummary's table shows, goes on
ABBREVIATIONS = ("Eq.", "Eqs.", "Sec.", "Fig.", "Figs.", "vs.", "cf.")
#: the width of the ``--help`` texts shown, in characters
USAGE_COLUMNS = 100
#: a constant's value is shown in its signature when its ``repr`` is at most this long (a longer text below it)
SHORT_VALUE = 80


def public_names(module: ModuleType) -> list[str]:
    """The names a module offers: its ``__all__``, else the functions, classes and constants it defines
    whose names do not start with ``_``.

    >>> public_names(importlib.import_module("recbias.designs"))[:3]
    ['GRAMMAR', 'DesignReport', 'DesignSpec']
    """
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and not inspect.ismodule(value) and getattr(value, "__module__", module.__name__) == module.__name__
            and (inspect.isfunction(value) or inspect.isclass(value) or name.isupper())]


def kind(value: Any) -> str:
    """``function``, ``class``, ``exception`` or ``data`` (:data:`KINDS`): what autodoc documents it as.

    >>> kind(len), kind(ValueError), kind(dict), kind(3)
    ('function', 'exception', 'class', 'data')
    """
    if inspect.isclass(value):
        return "exception" if issubclass(value, BaseException) else "class"
    return "function" if callable(value) else "data"


def defining_module(module: ModuleType, name: str) -> str:
    """The module that assigns ``name``: the one the package imports it from (``from X import name``),
    followed through every re-export, else the module itself.

    >>> defining_module(importlib.import_module("recbias.evaluate"), "DEFAULT_METRICS")
    'recbias.evaluate.per_run'
    """
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if any(alias.name == name and alias.asname in (None, name) for alias in node.names):
                return defining_module(importlib.import_module(node.module), name)
    return module.__name__


def constant_comment(module: ModuleType, name: str) -> list[str]:
    """The ``#:`` comment above the assignment of a constant, in the module that defines it ([] if none).

    >>> constant_comment(importlib.import_module("recbias.evaluate"), "DEFAULT_METRICS")
    ['metrics evaluated when none are named', '']
    """
    analyzer = ModuleAnalyzer.for_module(defining_module(module, name))
    return list(analyzer.find_attr_docs().get(("", name), []))


def entry(module: ModuleType, name: str) -> list[str]:
    """The reStructuredText of one public name: its autodoc directive."""
    value, qualified = getattr(module, name), f"{module.__name__}.{name}"
    what = kind(value)
    if what in ("class", "exception"):
        inheritance = ["   :show-inheritance:"] if public_bases(value) else []
        return [f".. autoclass:: {qualified}", "   :members:", *inheritance, ""]
    if what == "function":
        return [f".. autofunction:: {qualified}", ""]
    long = len(repr(value)) > SHORT_VALUE
    lines = [f".. autodata:: {qualified}"] + (["   :no-value:"] if long else []) + [""]
    if isinstance(value, str) and long:
        lines += ["   .. code-block:: text", ""] + [f"      {line}" for line in textwrap.wrap(value, 100)] + [""]
    return lines


def usage(module: ModuleType, function: str) -> list[str]:
    """The ``--help`` text of each command of the ``argparse`` parser that ``module.<function>()`` builds (of
    the parser itself when it has no commands), as literal blocks."""
    parser: argparse.ArgumentParser = getattr(module, function)()
    commands = [command for action in parser._actions if isinstance(action, argparse._SubParsersAction)
                for command in action.choices.values()]
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(USAGE_COLUMNS)  # argparse wraps to the terminal's width, which a build has not
    try:
        texts = {each.prog: each.format_help() for each in commands or [parser]}
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    lines = []
    for prog, text in texts.items():
        lines += [f"``{prog}``:", "", ".. code-block:: text", ""] + [f"   {line}" for line in text.splitlines()] + [""]
    return lines


def module_text(module: ModuleType, names: list[str], parser: str | None = None) -> list[str]:
    """The reStructuredText of a module's section: its docstring, the summary table and every entry."""
    ordered = sorted(names, key=lambda name: KINDS.index(kind(getattr(module, name))))
    lines = [f".. automodule:: {module.__name__}", ""] + (usage(module, parser) if parser else [])
    lines += [".. autosummary::", "   :nosignatures:", ""] + [f"   {name}" for name in ordered]
    lines.append("")
    for name in ordered:
        lines += entry(module, name)
    return lines


class ApiModule(SphinxDirective):
    """``.. api-module:: MODULE`` with the options ``:names: a, b`` (instead of the public names) and
    ``:usage: FUNCTION`` (the ``--help`` of the parser it builds)."""

    required_arguments = 1
    option_spec = {"names": directives.unchanged, "usage": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            raise self.error(f"api-module: cannot import {name}: {error}") from None
        names = ([item.strip() for item in self.options["names"].split(",") if item.strip()]
                 if "names" in self.options else public_names(module))
        missing = [item for item in names if not hasattr(module, item)]
        if missing:
            raise self.error(f"api-module {name}: no attribute {', '.join(missing)}")
        text = StringList(module_text(module, names, self.options.get("usage")), source=self.get_source_info()[0])
        container = nodes.container()
        nested_parse_with_titles(self.state, text, container)
        return container.children


def check_package(app: Sphinx) -> None:
    """Refuse to document a ``recbias`` other than the one of the book being built."""
    book = Path(app.srcdir) / "src" / "recbias"
    imported = Path(recbias.__file__).resolve().parent
    if book.is_dir() and imported != book.resolve():
        raise ExtensionError(f"the API reference would document {imported}, not the book's own {book}: "
                             f"put {book.parent} first on PYTHONPATH (python -m recbias.bookkit does)")


def one_name_per_entry(lines: list[str]) -> list[str]:
    """The entries of Google-style sections that name several parameters or attributes (``a, b: text``) as
    one entry per name, each with the text and its continuation lines: napoleon would read ``a,`` as the type
    of ``b``.

    >>> one_name_per_entry(["Args:", "    a, b: codes", "        of users.", "", "c, d: prose"])
    ['Args:', '    a: codes', '        of users.', '    b: codes', '        of users.', '', 'c, d: prose']
    """
    out, index, inside = [], 0, False
    while index < len(lines):
        line, end = lines[index], index + 1
        if line.strip() and not line[0].isspace():
            inside = bool(SECTION.fullmatch(line.rstrip()))
        match = SHARED_ENTRY.fullmatch(line) if inside else None
        if match:
            depth = len(match.group(1))
            while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) > depth:
                end += 1
            for name in match.group(2).split(", "):
                out += [f"{match.group(1)}{name}: {match.group(3)}", *lines[index + 1 : end]]
        else:
            out.append(line)
        index = end
    return out


def google_sections(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Turn the Google-style sections of a module's, class's or function's docstring into field lists."""
    if what in SECTIONED:
        lines[:] = GoogleDocstring(one_name_per_entry(lines), GOOGLE, app, what, name, obj, options).lines()


def constant_docs(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """A constant's documentation is the ``#:`` comment where it is defined, never its type's docstring."""
    if what == "data":
        module, _, attribute = name.rpartition(".")
        lines[:] = constant_comment(importlib.import_module(module), attribute)


def dataclass_signature(app: Sphinx, what: str, name: str, obj: Any, options: Any, shown: str | None,
                        returns: str | None) -> tuple[str, str | None] | None:
    """A dataclass's signature without its private fields (``_cache``) and with each default factory shown as
    the call that makes the default (``dict()``): ``<factory>`` is no Python, and would leave the whole
    signature unparsed."""
    if what not in ("class", "exception") or not shown or not dataclasses.is_dataclass(obj):
        return None
    factories = {field.name: field.default_factory for field in dataclasses.fields(obj)
                 if field.default_factory is not dataclasses.MISSING}
    found = signature(obj.__init__, bound_method=True, type_aliases=app.config.autodoc_type_aliases)
    parameters = [parameter.replace(default=DefaultValue(f"{factories[parameter.name].__name__}()"))
                  if parameter.name in factories else parameter
                  for parameter in found.parameters.values() if not parameter.name.startswith("_")]
    short = app.config.autodoc_typehints_format == "short"
    return stringify_signature(found.replace(parameters=parameters), show_return_annotation=False,
                               unqualified_typehints=short), returns


def public_bases(cls: type) -> list[type]:
    """The bases a class shows: each private base (``_FactorModel``) replaced by its nearest public ancestor
    (``Recommender``), ``object`` left out.

    >>> from recbias.recommenders import ALS
    >>> public_bases(ALS), public_bases(ValueError), public_bases(dict)
    ([<class 'recbias.recommenders.base.Recommender'>], [<class 'Exception'>], [])
    """
    shown = [next(c for c in base.__mro__ if not c.__name__.startswith("_")) for base in cls.__bases__]
    return [base for base in dict.fromkeys(shown) if base is not object]


def show_public_bases(app: Sphinx, name: str, obj: Any, options: Any, bases: list[type]) -> None:
    """Autodoc shows :func:`public_bases`."""
    bases[:] = public_bases(obj)


def keep_abstract(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """An abstract method is part of the interface a subclass implements: shown even when private."""
    return False if getattr(obj, "__isabstractmethod__", False) else None


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx.ext.autodoc")
    app.setup_extension("sphinx.ext.autosummary")
    autosummary.WELL_KNOWN_ABBREVIATIONS = tuple(dict.fromkeys(autosummary.WELL_KNOWN_ABBREVIATIONS + ABBREVIATIONS))
    app.add_directive("api-module", ApiModule)
    app.connect("builder-inited", check_package)
    app.connect("autodoc-skip-member", keep_abstract)
    app.connect("autodoc-process-docstring", google_sections)
    app.connect("autodoc-process-docstring", constant_docs)
    app.connect("autodoc-process-signature", dataclass_signature)
    app.connect("autodoc-process-bases", show_public_bases)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

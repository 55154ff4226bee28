"""The API reference appendix: it documents the modules a practitioner uses, from their docstrings, offline,
without a warning under the book's strict settings."""

from __future__ import annotations

import importlib
import io
import re
from html import unescape
from pathlib import Path

import pytest
import yaml
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import docutils_namespace

from recbias.bookkit import apiref

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "appendix_api.md"
#: what a practitioner calls: data, splits, designs, evaluation, metrics, sampled corrections, recommenders, audit
PRACTITIONER = ("recbias.datasets", "recbias.ratings", "recbias.splits", "recbias.designs", "recbias.evaluate",
                "recbias.metrics", "recbias.sampled", "recbias.recommenders", "recbias.bookkit.audit_cli")


def documented() -> list[str]:
    """The modules the appendix documents, in its order."""
    return re.findall(r"^\.\. api-module:: (\S+)$", PAGE.read_text(), re.M)


def book_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]


def test_the_appendix_documents_every_module_a_practitioner_uses_and_is_in_the_book() -> None:
    assert set(PRACTITIONER) <= set(documented()), set(PRACTITIONER) - set(documented())
    assert len(documented()) == len(set(documented()))
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    appendices = next(part["chapters"] for part in toc["parts"] if part["caption"] == "Appendices")
    assert {"file": "book/appendix_api"} in appendices
    assert apiref.__name__ in book_config()["extra_extensions"]


def test_the_audit_entry_point_is_the_module_the_command_runs() -> None:
    main = (ROOT / "src" / "recbias" / "__main__.py").read_text()
    assert "from recbias.bookkit.audit_cli import main" in main and "recbias.bookkit.audit_cli" in documented()


def test_the_build_fetches_no_inventory_from_elsewhere() -> None:
    config = book_config()["config"]
    assert config["intersphinx_mapping"] == {}
    assert not any("intersphinx" in name for name in book_config()["extra_extensions"])


def build(tmp_path: Path, page: str, config: dict | None = None) -> tuple[str, str]:
    """A one-page Sphinx site with the book's autodoc settings in strict mode: its HTML and its warnings."""
    source = tmp_path / "source"
    source.mkdir(parents=True, exist_ok=True)
    settings = {key: value for key, value in book_config()["config"].items()
                if key.startswith(("autodoc_", "autosummary_", "nitpick", "python_", "add_module"))}
    settings |= {"extensions": [apiref.__name__], "nitpicky": True} | (config or {})
    (source / "conf.py").write_text("".join(f"{key} = {value!r}\n" for key, value in settings.items()))
    (source / "index.rst").write_text(page)
    warnings = io.StringIO()
    with docutils_namespace():  # each site registers Sphinx's nodes and directives afresh
        app = Sphinx(str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=warnings, freshenv=True)
        app.build()
    return (tmp_path / "html" / "index.html").read_text(), warnings.getvalue()


@pytest.fixture(scope="module")
def designs_page(tmp_path_factory) -> tuple[str, str]:
    page = ("API\n===\n\n.. api-module:: recbias.designs\n\n.. api-module:: recbias.recommenders\n\n"
            ".. api-module:: recbias.bookkit.audit_cli\n   :names: main\n   :usage: parser\n")
    return build(tmp_path_factory.mktemp("api"), page)


def test_every_public_name_gets_an_entry_and_a_row_of_the_summary_and_no_warning(designs_page) -> None:
    html, warnings = designs_page
    assert warnings == ""
    for module in ("recbias.designs", "recbias.recommenders"):
        for name in importlib.import_module(module).__all__:
            assert f'id="{module}.{name}"' in html, name  # the entry
            assert f'href="#{module}.{name}"' in html, name  # its row in the summary table
    assert 'id="recbias.bookkit.audit_cli.main"' in html and 'id="recbias.bookkit.audit_cli.parser"' not in html


def text(html: str) -> str:
    """What a reader sees of some HTML: no tags, entities resolved."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_an_entry_shows_the_docstring_and_its_example(designs_page) -> None:
    html, _ = designs_page
    entry = text(html[html.index('id="recbias.designs.parse_design"'):html.index('id="recbias.designs.plan_runs"')])
    assert "Parse a design name into a DesignSpec" in entry and ">>> spec.relevant, spec.candidates" in entry


def test_a_constant_shows_the_comment_where_it_is_defined_not_its_types_docstring(designs_page) -> None:
    html, _ = designs_page
    entry = text(html[html.index('id="recbias.recommenders.PAPERS_SET"'):][:2000])
    assert "the papers\u2019 five systems" in entry and "new empty dictionary" not in text(html)
    grammar = text(html[html.index('id="recbias.designs.GRAMMAR"'):][:3000])
    assert "the grammar of design names" in grammar and "design := [RELEVANT]" in grammar


def test_the_interface_shows_the_methods_a_recommender_implements(designs_page) -> None:
    html, _ = designs_page
    for method in ("fit", "score", "score_users", "_fit", "uses_positive_threshold"):
        assert f'id="recbias.recommenders.Recommender.{method}"' in html, method
    als = html[html.index('id="recbias.recommenders.ALS"'):][:4000]
    assert "Bases: " in als and 'href="#recbias.recommenders.Recommender"' in als and "_FactorModel" not in als


def test_the_audit_command_shows_the_help_of_each_of_its_commands(designs_page) -> None:
    html, _ = designs_page
    assert "usage: python -m recbias audit" in html and "usage: python -m recbias prepare" in html
    assert "--ratings RATINGS" in html


def test_shared_attribute_entries_are_read_one_name_at_a_time(tmp_path) -> None:
    html, warnings = build(tmp_path, "API\n===\n\n.. api-module:: recbias.ratings\n")
    assert warnings == ""
    fields = text(html[html.index("Variables"):html.index('id="recbias.ratings.Ratings.from_codes"')])
    assert "users (numpy.ndarray)" in fields and "items (numpy.ndarray)" in fields and "(users,)" not in fields
    signature = html[html.index('id="recbias.ratings.Ratings"'):html.index("Variables")]
    assert "_csr_cache" not in signature and "~numpy" not in signature


def test_the_extension_refuses_to_document_another_copy_of_the_package(tmp_path) -> None:
    (tmp_path / "source" / "src" / "recbias").mkdir(parents=True)
    with pytest.raises(ExtensionError, match="not the book's own"):
        build(tmp_path, "API\n===\n")


def test_an_unknown_module_or_name_is_an_error_naming_it(tmp_path) -> None:
    _, warnings = build(tmp_path / "a", "API\n===\n\n.. api-module:: recbias.nowhere\n")
    assert "cannot import recbias.nowhere" in warnings
    _, warnings = build(tmp_path / "b", "API\n===\n\n.. api-module:: recbias.splits\n   :names: random_split, nope\n")
    assert "no attribute nope" in warnings

"""CONTRIBUTING.md's tables name what the tree holds: the chapter packages' study modules, the core and
bookkit modules, and the code behind every formula of the papers."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "recbias"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"


def section(title: str) -> str:
    """The text of CONTRIBUTING.md under the heading ``title``, up to the next heading."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#)", CONTRIBUTING.read_text(), re.S | re.M)
    assert match, f"CONTRIBUTING.md has no section {title!r}"
    return match.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The cells of every row of the Markdown tables in ``text``, header and rule lines left out."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|")]
    return [row for row in rows[1:] if not set("".join(row)) <= set("-: ")] if rows else []


def code_spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def chapter_table() -> dict[str, set[str]]:
    """Package -> the study modules the chapter table lists (``study`` or ``study/<name>``)."""
    rows = [row for row in table_rows(section("The chapter packages")) if len(row) == 3 and row[0][0].isdigit()]
    return {code_spans(package)[0]: set(code_spans(modules)) for _, package, modules in rows}


def study_modules(package: Path) -> set[str]:
    if (package / "study.py").exists():
        return {"study"}
    return {f"study/{path.stem}" for path in (package / "study").glob("*.py") if path.stem != "__init__"}


def test_the_chapter_table_lists_every_package_and_its_study_modules() -> None:
    listed = chapter_table()
    tree = {package.name: study_modules(package) for package in sorted((PACKAGE / "chapters").glob("c[0-9][0-9]_*"))}
    unlisted = {name: sorted(tree[name] - listed.get(name, set())) for name in tree if tree[name] - listed.get(name, set())}
    gone = {name: sorted(modules - tree.get(name, set())) for name, modules in listed.items()
            if modules - tree.get(name, set()) or name not in tree}
    assert (unlisted, gone) == ({}, {}), f"CONTRIBUTING.md's chapter table lacks {unlisted} and lists {gone} in vain"


def test_the_core_table_names_every_part_of_the_core() -> None:
    listed = {code_spans(row[0])[0] for row in table_rows(section("The evaluation core"))}
    upper = {"bookkit", "chapters", "__init__", "__main__"}
    parts = {path.stem for path in PACKAGE.glob("*.py")} | {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert listed == parts - upper


def test_the_bookkit_table_names_every_module_of_bookkit() -> None:
    listed = {name for row in table_rows(section("The book's tooling (`bookkit`)")) for name in code_spans(row[0])}
    assert listed == {path.name for path in (PACKAGE / "bookkit").glob("*.py")} - {"__init__.py", "__main__.py"}


def resolve(name: str) -> object:
    """``designs.build_runs`` -> the object ``recbias.designs.build_runs`` (a module, function or class)."""
    parts = ("recbias." + name).split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(name)


def formula_names() -> list[str]:
    """Every name the right column of the formula table gives: dotted names without their call arguments,
    a bare name read in the module of the dotted name before it, and paths under ``src/recbias``."""
    names = []
    for row in table_rows(section("From the papers to the code")):
        module = ""
        for span in code_spans(row[1]):
            name = span.split("(")[0]
            if "/" in name:
                names.append(name)
            elif re.fullmatch(r"[A-Za-z_]\w*(\.\w+)*", name):
                if "." in name:
                    module = name.rpartition(".")[0]
                names.append(name if "." in name or not module else f"{module}.{name}")
    return names


def test_the_formula_table_is_parsed() -> None:
    names = formula_names()
    assert "sampled.corrections.minimal_bias_correction" in names and "designs.parse_design" in names
    assert "chapters/c03_sparsity_bias/study/sweeps.py" in names and "-NR" not in names


@pytest.mark.parametrize("name", formula_names())
def test_every_name_of_the_formula_table_exists(name: str) -> None:
    if "/" in name:
        assert list(PACKAGE.glob(name.replace("NN", "[0-9][0-9]"))), f"no file src/recbias/{name}"
    else:
        assert resolve(name) is not None

"""The package's layers: imports run downwards only, and no two parts of the core import each other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "recbias"
UPPER = {"experiments": 1, "bookkit": 2}  # everything else is the evaluation core (layer 0)


def part_of(module: str) -> str:
    """``recbias.datasets.api`` -> ``datasets``; ``recbias.ratings`` -> ``ratings``."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else ""


def import_graph() -> dict[str, set[str]]:
    """Part -> the other parts of recbias it imports (at any depth of the file)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        here = part_of(".".join(relative.parts))
        targets = graph.setdefault(here, set())
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names if node.module == "recbias"]
            for name in names:
                if name.startswith("recbias."):
                    target = part_of(name)
                    if target and target != here and (PACKAGE / target).exists() or (PACKAGE / f"{target}.py").exists():
                        if target != here:
                            targets.add(target)
    return graph


def test_imports_never_run_upwards():
    upward = [
        (source, target)
        for source, targets in import_graph().items()
        for target in targets
        if UPPER.get(target, 0) > UPPER.get(source, 0)
    ]
    assert upward == []


def test_the_parts_of_the_package_form_no_cycle():
    graph = import_graph()
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path + [node, target]
            if state.get(target) is None:
                found = visit(target, path + [node])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [])
            assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


BOOK = PACKAGE.parents[1] / "book"
#: chapters still holding experiment code of their own (each an open task); strict, so the mark must go once fixed
NOT_YET_THIN: set[str] = set()


def page_lines(path: Path) -> tuple[list[str], int]:
    """The non-blank code lines and the number of non-blank prose lines of a Jupytext page."""
    code, prose, cell = [], 0, None
    for line in path.read_text().splitlines():
        if line.startswith("# %%"):
            cell = "markdown" if "[markdown]" in line else "code"
        elif line.strip() and cell == "code":
            code.append(line)
        elif line.strip() and cell == "markdown":
            prose += 1
    return code, prose


def written_chapters() -> list:
    pages = sorted(p for p in BOOK.glob("[0-9][0-9]_*.py") if "are not written yet" not in p.read_text())
    return [pytest.param(p, id=p.stem, marks=[pytest.mark.xfail(strict=True)] if p.stem in NOT_YET_THIN else [])
            for p in pages]


@pytest.mark.parametrize("page", written_chapters())
def test_a_chapter_calls_its_driver_and_is_thin(page: Path) -> None:
    code, prose = page_lines(page)
    drivers = {m.split(" as ")[0].strip() for line in code
               for names in re.findall(r"from recbias\.experiments import ([\w, ]+)", line) for m in names.split(",")}
    assert drivers and all((PACKAGE / "experiments" / f"{d}.py").exists() for d in drivers), "no chapter driver"
    number = int(page.stem[:2])
    assert any(f"Chapter {number} " in ast.get_docstring(ast.parse((PACKAGE / "experiments" / f"{d}.py").read_text()))
               for d in drivers), "the driver's docstring names its chapter"
    assert not [line for line in code if re.match(r"\s*(def|class) ", line)], "functions belong in the driver"
    assert len(code) <= prose, f"{len(code)} code lines for {prose} prose lines"


@pytest.mark.parametrize("page", sorted(BOOK.glob("*.py")), ids=lambda p: p.stem)
def test_no_page_defines_a_function_or_class(page: Path) -> None:
    code, _ = page_lines(page)
    assert not [line for line in code if re.match(r"\s*(def|class) ", line)], "functions belong in the package"


def chapter_of(module: Path) -> int | None:
    """The chapter a module of ``recbias.experiments`` serves, from its docstring ("Chapter N ..."), or None."""
    found = re.match(r"Chapter (\d+) ", ast.get_docstring(ast.parse(module.read_text())) or "")
    return int(found.group(1)) if found else None


def test_a_chapter_driver_never_imports_another_chapters_driver() -> None:
    """What two chapters share lives in a module of no chapter (the runner, the fidelity measures)."""
    modules = {path.stem: chapter_of(path) for path in (PACKAGE / "experiments").glob("*.py")}
    crossing = []
    for name, chapter in modules.items():
        tree = ast.parse((PACKAGE / "experiments" / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("recbias.experiments."):
                other = node.module.rsplit(".", 1)[1]
                if chapter is not None and modules.get(other) not in (None, chapter):
                    crossing.append((name, other))
    assert crossing == []

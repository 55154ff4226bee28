"""The package's layers: imports run downwards only, and no two parts of the core import each other."""

from __future__ import annotations

import ast
from pathlib import Path

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

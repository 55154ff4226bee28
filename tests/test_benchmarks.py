"""The benchmarks attribute time to stages by the names of the package's functions: every name they read must
still be a function of the package, or a stage would silently print nothing (as it once did after a move)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def benchmark(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def package_functions() -> dict[str, set[str]]:
    """File name -> the functions and methods defined in the package's files of that name."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in (ROOT / "src" / "recbias").rglob("*.py"):
        found[path.name] |= {node.name for node in ast.walk(ast.parse(path.read_text()))
                             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return found


def test_the_book_benchmark_profiles_functions_that_exist_in_the_files_it_names() -> None:
    functions = package_functions()
    stages = benchmark("bench_book").STAGES
    missing = [(file, function) for file, function in stages if function not in functions[file]]
    assert missing == []
    assert set(stages.values()) == {"fit", "designs", "score", "rank", "metrics"}


def test_the_scale_benchmark_reads_stages_from_functions_that_exist() -> None:
    defined = set().union(*package_functions().values())
    scale = benchmark("bench_scale")
    assert sorted(set(scale.STAGE_OF_FUNCTION) - defined) == []
    assert set(scale.STAGE_OF_FUNCTION.values()) == set(scale.STAGES)


def test_the_book_benchmark_builds_on_this_projects_datasets(tmp_path: Path, monkeypatch) -> None:
    """The measured build runs in a scratch copy of the book, which holds no data: it is pointed at the project's,
    as a build in the project would read them, so that no section on real data is skipped unseen."""
    bench = benchmark("bench_book")
    monkeypatch.delenv("RECBIAS_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # a working directory outside the project changes nothing
    assert bench.build_environment("c", tmp_path / "f")["RECBIAS_DATA_DIR"] == str(ROOT / "data" / "raw")
    monkeypatch.setenv("RECBIAS_DATA_DIR", str(tmp_path))
    assert bench.build_environment("c", tmp_path / "f")["RECBIAS_DATA_DIR"] == str(tmp_path)

"""The package's layers: imports run downwards only, and no two parts of the core import each other."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "recbias"
UPPER = {"bookkit": 2, "chapters": 3, "__main__": 4}  # the rest is the evaluation core (layer 0);
# ``python -m recbias`` (recbias/__main__.py) is an entry point above every layer


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
CHAPTERS = PACKAGE / "chapters"
TESTS = PACKAGE.parents[1] / "tests"
#: the roles every chapter package has, each a module (or a subpackage of modules of that role)
ROLES = ("study", "figures", "report", "claims")
#: roles that compute: no matplotlib, no sentences
COMPUTING = ("study", "claims")
MAX_MODULE_LINES = 400


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


def chapter_pages() -> list[Path]:
    return sorted(BOOK.glob("[0-9][0-9]_*.py"))


def package_of(page: Path) -> Path:
    """``book/03_sparsity_bias.py`` -> ``src/recbias/chapters/c03_sparsity_bias``."""
    return CHAPTERS / f"c{page.stem}"


def role_modules(package: Path, role: str) -> list[Path]:
    """The modules of ``role`` in a chapter package: ``role.py`` or the modules of the subpackage ``role/``."""
    single = package / f"{role}.py"
    return [single] if single.exists() else sorted((package / role).glob("*.py"))


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_every_page_has_a_package_of_its_name_with_the_same_roles(page: Path) -> None:
    package = package_of(page)
    assert (package / "__init__.py").exists(), f"no package {package.name} for {page.name}"
    missing = [role for role in ROLES if not role_modules(package, role)]
    assert missing == [], f"{package.name} lacks {missing}"
    assert (package / "published.csv").exists(), "published.csv (possibly header only) is part of every chapter"
    others = {p.stem for p in package.glob("*.py")} - set(ROLES) - {"__init__"}
    others |= {p.name for p in package.iterdir() if p.is_dir() and p.name not in ROLES and p.name != "__pycache__"}
    assert others == set(), f"{package.name}: modules outside the roles {ROLES}: {sorted(others)}"


def _sentence_fstrings(tree: ast.AST) -> list[int]:
    """Lines of f-strings of four words or more outside ``raise``/``warn`` calls: sentences being built."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) or (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(
                node.func, "id", "")) in {"warn", "ValueError", "TypeError", "KeyError"}):
            exempt.update(id(child) for child in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and id(node) not in exempt:
            words = " ".join(part.value for part in node.values if isinstance(part, ast.Constant)).split()
            if len(words) >= 4:
                found.append(node.lineno)
    return found


def chapter_modules() -> list[Path]:
    """Every module inside a chapter package (not the ``recbias.chapters`` package itself)."""
    return sorted(path for path in CHAPTERS.glob("*/**/*.py")) if CHAPTERS.exists() else []


@pytest.mark.parametrize("module", chapter_modules(), ids=lambda p: str(p.relative_to(CHAPTERS)))
def test_chapter_modules_are_small_and_computation_stays_apart(module: Path) -> None:
    source = module.read_text()
    assert len(source.splitlines()) <= MAX_MODULE_LINES, f"{module.name} is over {MAX_MODULE_LINES} lines"
    role = module.relative_to(CHAPTERS).parts[1].removesuffix(".py")
    if role in COMPUTING:
        tree = ast.parse(source)
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & {"matplotlib", "seaborn", "IPython", "myst_nb"}, "presentation in a computing module"
        assert _sentence_fstrings(tree) == [], "sentences are built in report.py (or written on the page)"


def test_chapter_packages_never_import_one_another() -> None:
    crossing = []
    for module in chapter_modules():
        own = module.relative_to(CHAPTERS).parts[0]
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("recbias.chapters."):
                other = node.module.split(".")[2]
                if other != own:
                    crossing.append((module.name, other))
    assert crossing == []


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_a_page_calls_its_own_package_and_is_thin(page: Path) -> None:
    code, prose = page_lines(page)
    packages = set(re.findall(r"recbias\.chapters\.(\w+)", "\n".join(code)))
    assert packages == {package_of(page).name}, f"the page imports chapter packages {packages}"
    assert not [line for line in code if re.match(r"\s*(def|class) ", line)], "functions belong in the package"
    assert len(code) <= prose, f"{len(code)} code lines for {prose} prose lines"


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_every_presenting_module_of_a_chapter_is_imported_by_a_unit_test(page: Path) -> None:
    tests = "\n".join(path.read_text() for path in TESTS.glob("test_*.py"))
    package = package_of(page).name
    for role in ("figures", "report", "claims"):
        assert re.search(rf"recbias\.chapters\.{package}(\.{role}\b| import [^\n]*\b{role}\b)", tests), \
            f"no unit test imports {package}.{role}"


@pytest.mark.parametrize("page", sorted(BOOK.glob("*.py")), ids=lambda p: p.stem)
def test_no_page_defines_a_function_or_class(page: Path) -> None:
    code, _ = page_lines(page)
    assert not [line for line in code if re.match(r"\s*(def|class) ", line)], "functions belong in the package"


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_tests_mirror_the_roles_of_every_chapter(page: Path) -> None:
    number = page.stem[:2]
    missing = [role for role in ROLES if not (TESTS / f"test_c{number}_{role}.py").exists()]
    assert missing == [], f"no tests/test_c{number}_<role>.py for {missing}"


def _long_literals(tree: ast.AST, words: int) -> list[int]:
    """Lines of string literals (f-string parts included) of ``words`` words or more, docstrings and the
    messages of raised errors and warnings aside: sentences written in code."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(
                node, clean=False) is not None:
            exempt.add(id(node.body[0].value))
        if isinstance(node, ast.Raise) or (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(
                node.func, "id", "")) in {"warn", "ValueError", "TypeError", "KeyError"}):
            exempt.update(id(child) for child in ast.walk(node))
    return sorted({node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and id(node) not in exempt
                   and isinstance(node.value, str) and len(node.value.split()) >= words})


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_report_modules_write_no_sentences(page: Path) -> None:
    """Tables and figure data only: a data-dependent sentence is a finding's (its ``says``) or the page's."""
    found = {module.name: lines for module in role_modules(package_of(page), "report")
             if (lines := _long_literals(ast.parse(module.read_text()), 8))}
    assert found == {}, f"string literals of 8 or more words in report modules, by line: {found}"


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.stem)
def test_the_report_role_has_one_name(page: Path) -> None:
    package = package_of(page)
    names = {p.stem for p in (package / "report").glob("*.py")} if (package / "report").is_dir() else set()
    study = {p.stem for p in (package / "study").glob("*.py")} if (package / "study").is_dir() else set()
    assert names - {"__init__"} <= study | {"tables"}, (
        f"{package.name}/report: submodules {sorted(names - study - {'__init__', 'tables'})} are named like no study "
        "module (a report presents the study's parts under their names, or is one report.py)")
    retired = [p.name for p in package.rglob("*.py") if p.stem in {"prose", "readings", "phrases"}]
    assert retired == [], f"{package.name}: modules named for sentences {retired}"


def test_criteria_are_built_only_in_bookkit() -> None:
    built = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
             if "bookkit" not in path.parts and re.search(r"\bCriterion\(", path.read_text())]
    assert built == [], f"Criterion(...) built outside recbias.bookkit: {built}"


def test_the_significance_level_is_defined_once() -> None:
    pattern = re.compile(r"\b\w*(level|LEVEL|alpha|ALPHA)\w*\s*(:\s*float\s*)?=\s*0?\.0?5\b")
    defined = [f"{path.relative_to(PACKAGE)}:{number}" for path in PACKAGE.rglob("*.py")
               for number, line in enumerate(path.read_text().splitlines(), start=1) if pattern.search(line)]
    assert len(defined) == 1 and defined[0].startswith("bookkit/claims.py:"), \
        f"a significance level is defined outside bookkit.claims, or twice: {defined}"


def module_graph() -> dict[str, set[str]]:
    """Module -> the modules of recbias it names in an import (``from a.b import c`` names ``a.b.c`` when that is
    a module, else ``a.b``); a package is its ``__init__``."""
    modules = {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): path
               for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets = graph.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    named = f"{base}.{alias.name}"
                    targets.add(named if named in modules else base)
        targets.discard(module)
        targets.intersection_update(modules)
    return graph


def test_no_two_modules_import_each_other_at_any_distance() -> None:
    graph, index, low, stack, on_stack, cycles = module_graph(), {}, {}, [], set(), []

    def connect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    assert cycles == [], f"modules that import each other: {cycles}"


def _imported_by_tests(modules: set[str]) -> set[str]:
    """The modules of recbias that a file of ``tests/`` imports by name, with the packages above them."""
    named: set[str] = set()
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named.add(node.module)
                named.update(f"{node.module}.{alias.name}" for alias in node.names)
    found = {module for module in named if module in modules}
    return found | {module.rsplit(".", depth)[0] for module in found for depth in range(1, module.count(".") + 1)}


#: entry points run as ``python -m ...`` (importing them would run them); the pipeline tests run them
ENTRY_POINTS = {"recbias.__main__", "recbias.bookkit.__main__"}


def modules_no_test_imports() -> list[str]:
    """Modules of recbias that no test imports, directly or through the re-exports of package ``__init__`` files."""
    graph = module_graph()
    packages = {".".join(path.relative_to(PACKAGE.parent).parent.parts) for path in PACKAGE.rglob("__init__.py")}
    reached: set[str] = set()
    frontier = list(_imported_by_tests(set(graph)))
    while frontier:
        module = frontier.pop()
        if module not in reached:
            reached.add(module)
            if module in packages:
                frontier.extend(graph[module])
    return sorted(set(graph) - reached - ENTRY_POINTS)


def test_every_module_is_imported_by_a_test() -> None:
    """A module reached only through a path string, a subprocess or another module's import has no test of
    its own."""
    assert modules_no_test_imports() == []


#: the packages and modules whose every public function and class shows a worked example
WITH_EXAMPLES = ("recbias.metrics", "recbias.theory", "recbias.sampled", "recbias.designs")


def public_objects(name: str) -> dict[str, object]:
    """``module.name`` -> function or class, for every public one of ``name`` and its modules: those its
    ``__all__`` names, or, in a module without ``__all__``, those defined there without a leading underscore.
    Modules whose own name starts with an underscore are private."""
    package = importlib.import_module(name)
    modules = [package] + [importlib.import_module(info.name) for info in pkgutil.walk_packages(
        getattr(package, "__path__", []), f"{name}.") if not info.name.rpartition(".")[2].startswith("_")]
    found = {}
    for module in modules:
        names = getattr(module, "__all__", None)
        if names is None:
            names = [key for key, value in vars(module).items() if not key.startswith("_")
                     and getattr(value, "__module__", None) == module.__name__]
        for key in names:
            value = getattr(module, key)
            if inspect.isfunction(value) or inspect.isclass(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


@pytest.mark.parametrize("package", WITH_EXAMPLES)
def test_every_public_function_and_class_shows_an_example(package: str) -> None:
    objects = public_objects(package)
    assert len(objects) > 5
    missing = sorted(name for name, value in objects.items() if ">>>" not in (value.__doc__ or ""))
    assert missing == [], f"no >>> example in the docstrings of {missing}"


def chapter_findings() -> list:
    """Every finding a chapter's ``claims`` module holds at module level (alone, or in a list or a dict)."""
    import importlib

    from recbias.bookkit.claims import Finding

    found = []
    for package in sorted(CHAPTERS.glob("c[0-9][0-9]_*")):
        module = importlib.import_module(f"recbias.chapters.{package.name}.claims")
        for value in vars(module).values():
            items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
            found += [item for item in items if isinstance(item, Finding)]
    return found


def test_no_criterion_reads_a_p_value_as_evidence_of_equality() -> None:
    """A p-value decides only "beyond noise" (``p < level``); equality is an equivalence test with a margin."""
    pattern = re.compile(r"(^|_)p(value)?$|_p_|pvalue")
    wrong = [finding.key for finding in chapter_findings()
             if any(pattern.search(name) for name in finding.criterion.names)
             and re.search(r"\bat least\b|\babove\b|≥", finding.criterion.words) and "p <" not in finding.criterion.words]
    assert chapter_findings(), "no chapter finding was found"
    assert wrong == [], f"criteria that read a p-value other than as p < level: {wrong}"


def test_a_statement_sourced_to_the_book_is_the_books_and_only_those_are() -> None:
    mixed = [finding.key for finding in chapter_findings()
             if finding.source.startswith("recbias") != (finding.origin == "book")]
    assert mixed == [], f"statements whose source and origin disagree (the book's are never sourced to a paper): {mixed}"


def test_every_bound_of_a_papers_statement_is_traced_to_its_words_a_paper_or_the_books_one_margin() -> None:
    """A statement of a paper is judged only against bounds its words set, a paper states, the book's level, or the
    book's one margin for "close to"; a band the book chose alone leaves it measured, without a verdict."""
    from recbias.bookkit.claims import BY_WORDS, CLOSE_SHARE_ORIGIN, LEVEL_ORIGIN
    from recbias.bookkit.scorecard import PAPERS

    def traced(origin: str) -> bool:
        return (origin in (BY_WORDS, LEVEL_ORIGIN) or origin.startswith(CLOSE_SHARE_ORIGIN)
                or origin.startswith(tuple(PAPERS)))

    findings = [finding for finding in chapter_findings() if finding.origin == "paper"]
    untraced = {finding.key: bound.origin for finding in findings for bound in finding.criterion.bounds
                if not traced(bound.origin)}
    assert findings and any(finding.criterion.bounds for finding in findings)
    assert untraced == {}, f"bounds of the papers' statements with no traced origin: {untraced}"

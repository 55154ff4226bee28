"""Build the book: Jupytext sources -> papermill execution -> Jupyter Book HTML.

Usage (from the repository root)::

    python -m recbias.bookkit                          # every page, synthetic dataset
    python -m recbias.bookkit --dataset ml-100k        # every page on MovieLens 100K
    python -m recbias.bookkit --chapters 2 6 --seed 3  # only chapters 2 and 6
    python -m recbias.bookkit --chapters 3 -p test_ratio 0.3 --no-html

Every page of ``_toc.yml`` whose source is a Jupytext percent file
``book/<name>.py`` is converted to a notebook, executed by papermill with the
parameters ``dataset``, ``seed`` and any ``-p NAME VALUE``, and written to
``book/<name>.ipynb`` (a build output).  The scorecard page runs last, after
every chapter has recorded its claims.  Jupyter Book then renders the executed
notebooks, without executing them again, in strict mode (``-W -n``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from textwrap import indent
from typing import Any

import yaml

from recbias.bookkit.scorecard import CHAPTER_VARIABLE, RESULTS_DIR_VARIABLE

SCORECARD = "scorecard"
BOOK_DIR = "book"
PARAMETERS_TAG = "parameters"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class BuildError(RuntimeError):
    """The build stopped; the message says which page and why."""


@dataclass(frozen=True)
class Page:
    """A notebook page of the book: its name and its Jupytext source."""

    name: str
    source: Path

    @property
    def number(self) -> str:
        """The chapter number prefix of the name (``"02"`` for ``02_designs``), or ``""``."""
        prefix = self.name.split("_", 1)[0]
        return prefix if prefix.isdigit() else ""


def notebook_pages(root: Path) -> list[Page]:
    """Pages of ``_toc.yml`` that have a Jupytext source, in reading order."""
    toc_path = root / "_toc.yml"
    if not toc_path.exists():
        raise BuildError(f"no _toc.yml in {root}")
    files: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    files.append(str(node[key]))
            for value in node.values():
                if isinstance(value, (list, dict)):
                    collect(value)
        elif isinstance(node, list):
            for child in node:
                collect(child)

    collect(yaml.safe_load(toc_path.read_text()))
    pages = []
    for entry in files:
        source = (root / entry).with_suffix(".py")
        if source.exists():
            pages.append(Page(name=source.stem, source=source))
    return pages


def select(pages: list[Page], wanted: list[str] | None) -> list[Page]:
    """The chapters named by number (``2``) or name (``02_designs``); all when ``wanted`` is empty."""
    chapters = [p for p in pages if p.name != SCORECARD]
    if not wanted:
        return chapters
    chosen = []
    for token in wanted:
        numbered = token.isdigit()
        matches = [
            p for p in chapters if token in (p.name, p.number) or (numbered and p.number and int(token) == int(p.number))
        ]
        if not matches:
            valid = ", ".join(p.name for p in chapters)
            raise BuildError(f"unknown chapter {token!r}; valid chapters: {valid}")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


def parse_value(text: str) -> Any:
    """A ``-p`` value read as a YAML scalar: ``3`` -> int, ``0.2`` -> float, ``true`` -> bool."""
    value = yaml.safe_load(text)
    return text if isinstance(value, (dict, list)) or value is None else value


def parameters_cell(source: Path) -> str:
    """The code of the cell tagged ``parameters`` in a Jupytext source."""
    import jupytext

    for cell in jupytext.read(source).cells:
        if PARAMETERS_TAG in cell.get("metadata", {}).get("tags", []):
            return cell.source
    raise BuildError(f"{source}: no cell tagged 'parameters'")


def declared_parameters(source: Path) -> dict[str, Any]:
    """Names and defaults of the parameters a page declares."""
    namespace: dict[str, Any] = {}
    exec(compile(parameters_cell(source), str(source), "exec"), {}, namespace)  # noqa: S102 - our own cell
    return namespace


def describe(pages: list[Page]) -> str:
    """Every page with its parameters cell: what ``-p NAME VALUE`` can change."""
    return "\n\n".join(f"{page.name}:\n" + indent(parameters_cell(page.source), "    ") for page in pages)


def check_dataset(name: str) -> None:
    """Fail fast when the dataset is unknown, or cannot be loaded here and now."""
    from recbias import datasets

    if not name.startswith("csv:") and name not in datasets.names():
        raise BuildError(f"unknown dataset {name!r}; valid: {', '.join(datasets.names())} or csv:PATH")
    if not datasets.available(name):
        try:
            datasets.load(name)
        except datasets.DatasetError as error:
            raise BuildError(str(error)) from error


def _execute(page: Page, output: Path, work: Path, parameters: dict[str, Any], env: dict[str, str]) -> float:
    """Execute one page with papermill into ``output``; returns seconds.

    Runs in a worker process.  The executed notebook is written once, to ``work``,
    and moved to ``output`` only on success, so a failed page leaves no output behind.
    """
    import jupytext
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    os.environ.update(env)
    _redirect_stderr(work.parent / "logs" / f"{page.name}.log")
    start = time.perf_counter()
    source_notebook = work / f"{page.name}.source.ipynb"
    executed = work / f"{page.name}.ipynb"
    jupytext.write(jupytext.read(page.source), source_notebook)
    try:
        notebook = papermill.execute_notebook(
            str(source_notebook),
            None,  # written below, once the defaults cell is hidden
            parameters=parameters,
            kernel_name="python3",
            progress_bar=False,
            cwd=str(page.source.parent.parent),
        )
    except PapermillExecutionError as error:
        detail = f"{error.ename}: {error.evalue}".strip()
        raise BuildError(
            f"page {page.name} failed in cell {error.cell_index} (execution count {error.exec_count}): {detail}"
        ) from None
    except Exception as error:  # kernel death, missing kernel, unreadable source ...
        raise BuildError(f"page {page.name} could not be executed: {type(error).__name__}: {error}") from None
    finally:
        source_notebook.unlink(missing_ok=True)
    _hide_default_parameters(notebook)
    nbformat.write(notebook, executed)
    os.replace(executed, output)
    return time.perf_counter() - start


def _redirect_stderr(log: Path) -> None:
    """Send this worker's (and its kernels') stderr to ``log``; the build prints only a summary."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as handle:
        os.dup2(handle.fileno(), 2)  # descriptor 2 keeps the file open after the handle closes


def _hide_default_parameters(notebook: Any) -> None:
    """Remove the defaults cell from the page; papermill's injected cell shows the values used."""
    for cell in notebook.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if PARAMETERS_TAG in tags and "remove-cell" not in tags:
            tags.append("remove-cell")


def execute(
    root: Path, pages: list[Page], dataset: str, seed: int, extra: dict[str, Any], jobs: int
) -> dict[str, float]:
    """Execute ``pages`` (in parallel where ``jobs`` allows), then the scorecard."""
    results_dir = root / "_build" / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root / "_build", prefix=".work-") as scratch:
        return _execute_all(root, pages, Path(scratch), results_dir, dataset, seed, extra, jobs)


def _execute_all(
    root: Path,
    pages: list[Page],
    work: Path,
    results_dir: Path,
    dataset: str,
    seed: int,
    extra: dict[str, Any],
    jobs: int,
) -> dict[str, float]:
    """Execute in a private scratch directory, so that concurrent builds never collide."""
    threads = str(max(1, (os.cpu_count() or 1) // max(1, jobs)))
    base_env = {RESULTS_DIR_VARIABLE: str(results_dir), **{v: threads for v in THREAD_VARIABLES}}

    def task(page: Page) -> tuple[Page, Path, Path, dict[str, Any], dict[str, str]]:
        declared = declared_parameters(page.source)
        wanted = {"dataset": dataset, "seed": seed} | extra
        parameters = {k: v for k, v in wanted.items() if k in declared}
        (results_dir / f"{page.name}.json").unlink(missing_ok=True)
        output = page.source.with_suffix(".ipynb")
        return page, output, work, parameters, base_env | {CHAPTER_VARIABLE: page.name}

    timings: dict[str, float] = {}
    context = multiprocessing.get_context("spawn")
    scorecard = [p for p in notebook_pages(root) if p.name == SCORECARD]
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=context) as pool:
        for batch in (pages, scorecard):  # the scorecard reads what the chapters recorded
            futures = [(page, pool.submit(_execute, *task(page))) for page in batch]
            failures = []
            for page, future in futures:
                try:
                    timings[page.name] = future.result()
                    print(f"  executed {page.name:<28s} {timings[page.name]:7.1f} s", flush=True)
                except BuildError as error:
                    failures.append(str(error))
                    print(f"  FAILED   {page.name}", flush=True)
            if failures:
                raise BuildError("\n".join(failures))
    return timings


def fill_missing(root: Path) -> list[str]:
    """Write unexecuted notebooks for pages that were never executed, so the book still builds."""
    import jupytext

    missing = []
    for page in notebook_pages(root):
        output = page.source.with_suffix(".ipynb")
        if not output.exists():
            jupytext.write(jupytext.read(page.source), output)
            missing.append(page.name)
    return missing


def render(root: Path) -> Path:
    """Run ``jupyter-book build`` in strict mode; returns the HTML index."""
    executable = Path(sys.executable).with_name("jupyter-book")
    command = [str(executable), "build", str(root), "--builder", "html", "-W", "-n", "--keep-going"]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        log = (completed.stdout + completed.stderr)[-8000:]
        raise BuildError(f"jupyter-book build failed (exit {completed.returncode}):\n{log}")
    return root / "_build" / "html" / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recbias.bookkit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root holding _toc.yml")
    parser.add_argument("--dataset", default="synthetic", help="dataset name (default: synthetic)")
    parser.add_argument("--seed", type=int, default=0, help="random seed passed to every chapter")
    parser.add_argument("--chapters", nargs="*", help="chapter numbers or names to execute (default: all)")
    parser.add_argument(
        "-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
        help="extra chapter parameter (repeatable)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="chapters executed in parallel")
    parser.add_argument("--no-html", action="store_true", help="execute only, do not render HTML")
    parser.add_argument("--list", action="store_true", help="list the chapters and their parameters, then stop")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        pages = select(notebook_pages(root), args.chapters)
        if args.list:
            print(describe(pages))
            return 0
        extra = {name: parse_value(value) for name, value in args.parameter}
        for reserved in ("dataset", "seed"):
            if reserved in extra:
                raise BuildError(f"use --{reserved} instead of -p {reserved}")
        declared = set().union(*(declared_parameters(p.source) for p in pages)) if pages else set()
        unknown = sorted(set(extra) - declared)
        if unknown:
            valid = ", ".join(sorted(declared))
            raise BuildError(f"unknown parameter(s) {', '.join(unknown)}; the selected chapters declare: {valid}")
        check_dataset(args.dataset)
        print(f"Executing {len(pages)} page(s) on dataset {args.dataset!r}, seed {args.seed}, {args.jobs} job(s)")
        start = time.perf_counter()
        execute(root, pages, args.dataset, args.seed, extra, args.jobs)
        print(f"Executed in {time.perf_counter() - start:.1f} s")
        if args.no_html:
            return 0
        for name in fill_missing(root):
            print(f"  note: {name} was never executed; its page shows code without output")
        index = render(root)
        print(f"Book written to {index}")
    except BuildError as error:
        print(f"Build failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

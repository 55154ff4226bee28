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
import datetime
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from textwrap import indent
from typing import Any

import psutil
import yaml

import recbias
from recbias.bookkit.parameters import ParameterError, ParameterSpec, check_value, parse_parameters
from recbias.bookkit.scorecard import CHAPTER_VARIABLE, RESULTS_DIR_VARIABLE
from recbias.executor import SCHEDULER_VARIABLE

SCORECARD = "scorecard"
BOOK_DIR = "book"
PARAMETERS_TAG = "parameters"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: where a worker moves a successful page's claims (the staging directory is RESULTS_DIR_VARIABLE)
FINAL_RESULTS_VARIABLE = "RECBIAS_FINAL_RESULTS_DIR"


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


def declared_parameters(source: Path) -> dict[str, ParameterSpec]:
    """The parameters a page declares, with their defaults and admissible values."""
    try:
        return parse_parameters(parameters_cell(source))
    except (SyntaxError, ValueError) as error:
        raise BuildError(f"{source}: the parameters cell must hold 'name = literal  # meaning' lines ({error})") from None


def validate(pages: list[Page], dataset: str, seed: Any, extra: dict[str, Any]) -> None:
    """Reject unknown parameters and inadmissible values before any page runs."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BuildError(f"seed must be a non-negative integer, got {seed!r}")
    for reserved in ("dataset", "seed"):
        if reserved in extra:
            raise BuildError(f"use --{reserved} instead of -p {reserved}")
    declared = {page.name: declared_parameters(page.source) for page in pages}
    known = set().union(*declared.values()) if declared else set()
    unknown = sorted(set(extra) - known)
    if unknown:
        valid = ", ".join(sorted(known))
        raise BuildError(f"unknown parameter(s) {', '.join(unknown)}; the selected chapters declare: {valid}")
    for name, specs in declared.items():
        for key, value in extra.items():
            if key in specs:
                try:
                    check_value(specs[key], value, name)
                except ParameterError as error:
                    raise BuildError(str(error)) from None


def describe(pages: list[Page]) -> str:
    """Every page with its parameters cell: what ``-p NAME VALUE`` can change."""
    return "\n\n".join(f"{page.name}:\n" + indent(parameters_cell(page.source), "    ") for page in pages)


def check_dataset(name: str) -> None:
    """Fail fast, once, when the dataset is unknown or does not load (missing, corrupt, malformed)."""
    from recbias import datasets

    if not name.startswith("csv:") and name not in datasets.names():
        raise BuildError(f"unknown dataset {name!r}; valid: {', '.join(datasets.names())} or csv:PATH")
    try:
        datasets.load(name)
    except (datasets.DatasetError, ValueError) as error:
        raise BuildError(f"dataset {name!r} cannot be used: {error}") from None


def provenance(root: Path, dataset: str, seed: int) -> dict[str, Any]:
    """What every page of this build records about how it was made (parameters are added per page)."""
    from recbias import datasets

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    info = datasets.info(dataset)
    if info.files is not None:
        data = {name: pin[:12] for name, pin in info.files.pins.items()}
    elif dataset.startswith("csv:"):
        from recbias.datasets.fetch import sha256_file

        data = {Path(info.url).name: sha256_file(info.url)[:12]}
    else:
        data = {"generated": f"seed {seed}"}
    return {
        "dataset": dataset,
        "seed": seed,
        "version": recbias.__version__,
        "commit": git("rev-parse", "--short=10", "HEAD") or "unknown",
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "data": data,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def provenance_markdown(record: dict[str, Any]) -> str:
    """The small box at the top of a page that says how it was built."""
    commit = record["commit"] + (" (with uncommitted changes)" if record["dirty"] else "")
    parameters = ", ".join(f"`{k} = {v!r}`" for k, v in record["parameters"].items())
    data = ", ".join(f"{name} `{digest}`" for name, digest in record["data"].items())
    return (
        ":::{admonition} How this page was built\n:class: dropdown note\n"
        f"Dataset **{record['dataset']}**, seed **{record['seed']}**, recbias {record['version']}, "
        f"commit `{commit}`, built {record['date']}.\n\n"
        f"Parameters: {parameters}.\n\nData (sha256, first 12 digits): {data}.\n:::"
    )


def _execute(
    page: Page, output: Path, work: Path, parameters: dict[str, Any], env: dict[str, str], record: dict[str, Any]
) -> float:
    """Execute one page with papermill into ``output``; returns seconds.

    Runs in a worker process.  The executed notebook and the claims it registers are
    written to ``work`` and replace the previous page and claims only on success, so a
    failed or interrupted page leaves the last good ones in place.  ``record`` is the
    build's provenance; the page's parameters are added and shown in a box under its title.
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
    record = record | {"parameters": parameters}
    box = nbformat.v4.new_markdown_cell(provenance_markdown(record))
    notebook.cells.insert(1 if notebook.cells and notebook.cells[0].cell_type == "markdown" else 0, box)
    nbformat.write(notebook, executed)
    results = Path(env[RESULTS_DIR_VARIABLE])
    final = Path(env[FINAL_RESULTS_VARIABLE])
    staged_claims = results / f"{page.name}.json"
    (final / "provenance").mkdir(parents=True, exist_ok=True)
    staged_record = work / f"{page.name}.provenance.json"
    staged_record.write_text(json.dumps(record, indent=1))
    # success: replace page, claims and provenance together
    os.replace(executed, output)
    if staged_claims.exists():
        os.replace(staged_claims, final / f"{page.name}.json")
    else:
        (final / f"{page.name}.json").unlink(missing_ok=True)
    os.replace(staged_record, final / "provenance" / f"{page.name}.json")
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


def stop_children() -> None:
    """Terminate every process this build started (workers and their kernels), then kill stragglers."""
    children = psutil.Process().children(recursive=True)
    for child in children:
        child.terminate()
    _, alive = psutil.wait_procs(children, timeout=3)
    for child in alive:
        child.kill()


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
    staging = work / "results"
    staging.mkdir()
    base_env = {
        RESULTS_DIR_VARIABLE: str(staging),
        FINAL_RESULTS_VARIABLE: str(results_dir),
        **{v: threads for v in THREAD_VARIABLES},
    }
    record = provenance(root, dataset, seed)

    def task(page: Page) -> tuple[Page, Path, Path, dict[str, Any], dict[str, str], dict[str, Any]]:
        declared = declared_parameters(page.source)
        wanted = {"dataset": dataset, "seed": seed} | extra
        defaults = {name: spec.default for name, spec in declared.items()}
        parameters = defaults | {k: v for k, v in wanted.items() if k in declared}
        output = page.source.with_suffix(".ipynb")
        env = base_env | {CHAPTER_VARIABLE: page.name}
        if page.name == SCORECARD:  # the scorecard reads the claims already in place
            env[RESULTS_DIR_VARIABLE] = str(results_dir)
        return page, output, work, parameters, env, record

    timings: dict[str, float] = {}
    context = multiprocessing.get_context("spawn")
    scorecard = [p for p in notebook_pages(root) if p.name == SCORECARD]
    pool = ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=context)
    try:
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
    except BaseException:
        stop_children()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return timings


def fill_missing(root: Path) -> list[str]:
    """Write a "not built yet" page for every page that was never executed, so the book still builds.

    The placeholder keeps the page's title and says how to build it; it has none of the
    page's code or glued values, so strict rendering does not trip over missing results.
    """
    import jupytext
    import nbformat

    missing = []
    for page in notebook_pages(root):
        output = page.source.with_suffix(".ipynb")
        if not output.exists():
            cells = jupytext.read(page.source).cells
            title = next(
                (line for c in cells if c.cell_type == "markdown" for line in c.source.splitlines() if line.startswith("# ")),
                f"# {page.name}",
            )
            chapter = page.number.lstrip("0") or page.name
            note = (
                ":::{note}\nThis page has not been built yet. Build it with "
                f"`make book CHAPTERS={chapter}` (or `python -m recbias.bookkit --chapters {chapter}`).\n:::"
            )
            notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"{title}\n\n{note}")])
            notebook.metadata = jupytext.read(page.source).metadata
            nbformat.write(notebook, output)
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
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the chapters' experiments on this Dask scheduler (e.g. tcp://host:8786)")
    args = parser.parse_args(argv)
    if args.scheduler:  # read by recbias.evaluate.experiment.run_experiment in every page's kernel
        os.environ[SCHEDULER_VARIABLE] = args.scheduler
    root = args.root.resolve()
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        pages = select(notebook_pages(root), args.chapters)
        if args.list:
            print(describe(pages))
            return 0
        extra = {name: parse_value(value) for name, value in args.parameter}
        validate(pages, args.dataset, args.seed, extra)
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
    except KeyboardInterrupt:
        print("Build stopped: workers ended, scratch removed, earlier pages kept.", file=sys.stderr)
        return 130
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM ends the build like Ctrl-C does."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())

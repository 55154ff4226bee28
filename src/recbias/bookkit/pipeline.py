"""Build the book: Jupytext sources -> papermill execution -> Jupyter Book HTML.

Usage (from the repository root)::

    python -m recbias.bookkit                          # every page, synthetic dataset
    python -m recbias.bookkit --dataset ml-100k        # every page on MovieLens 100K
    python -m recbias.bookkit --chapters 2 6 --seed 3  # only chapters 2 and 6
    python -m recbias.bookkit --chapters 3 -p test_ratio 0.3 --no-html

Every page of ``_toc.yml`` whose source is a Jupytext percent file
``book/<name>.py`` is executed by papermill in a worker process of its own
(:mod:`recbias.bookkit.worker`) with the parameters ``dataset``, ``seed`` and any
``-p NAME VALUE``, after the dataset has been checked against what the selected
chapters need (:mod:`recbias.bookkit.requirements`).  A page that succeeds has its
notebook, claims, provenance and log committed as one set
(:mod:`recbias.bookkit.results`), read through ``book/<name>.ipynb`` and
``_build/``; a page that fails keeps its last good set.  The scorecard page runs
last, after every chapter has recorded its claims.  Jupyter Book then renders the
executed notebooks, without executing them again, in strict mode (``-W -n``).

A failure of the build tool itself (disk full, no permission, a killed worker) ends
with one ``Build failed: ...`` line and exit code 1; SIGINT and SIGTERM stop the
workers and their kernels (exit codes 130 and 143).  The next build removes what a
killed one left behind.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import yaml

import recbias
from recbias.bookkit import results, schedule, worker
from recbias.bookkit.loading import CSV_OPTIONS_VARIABLE, csv_options
from recbias.bookkit.parameters import ParameterError, ParameterSpec, check_value, parse_parameters
from recbias.bookkit.scorecard import CHAPTER_VARIABLE, RESULTS_DIR_VARIABLE
from recbias.datasets import READS_VARIABLE
from recbias.datasets.registry import dataset_label
from recbias.executor import SCHEDULER_VARIABLE
from recbias.paths import project_root
from recbias.ratings import Ratings

SCORECARD = "scorecard"
CRANFIELD = "01_cranfield"
PARAMETERS_TAG = "parameters"
#: the thread counts of the libraries the pages compute with (BLAS, OpenMP, numba's parallel loops)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
#: glibc's allocator in every page: large arrays come from the heap rather than from fresh memory maps, whose
#: pages the kernel would fault in and zero again at every allocation, and up to 1 GiB of freed memory is kept
#: for the next one (other C libraries ignore these variables)
ALLOCATOR = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
#: a build's private scratch directory is ``_build/.work-<build id>``; its owner file names the build's process
WORK_PREFIX = ".work-"
#: a render's scratch directory is ``_build/.render-<pid of the build tool>``
RENDER_PREFIX = ".render-"
#: Linux's renameat2 arguments for an atomic exchange of two paths
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
OWNER_FILE = "owner.json"
#: the file, in a build's scratch directory, where the fit cache reports (:data:`recbias.cache.REPORT_VARIABLE`)
CACHE_REPORT_FILE = "cache-report.txt"
#: where, in a page's staging directory, the kernel records the page's claims (``RECBIAS_RESULTS_DIR``)
RAW_CLAIMS = "raw-claims"
POLL_SECONDS = 0.1


def page_environment(jobs: int, cores: int | None = None) -> dict[str, str]:
    """The variables every page's process gets: each library's threads, so that ``jobs`` pages at once
    share the ``cores`` (default: the machine's) without oversubscribing them, and :data:`ALLOCATOR`."""
    threads = str(max(1, (cores or os.cpu_count() or 1) // max(1, jobs)))
    return {**dict.fromkeys(THREAD_VARIABLES, threads), **ALLOCATOR}


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


def build_settings(results_dir: str | Path, book: Path = Path("book")) -> tuple[str, list[str]]:
    """The dataset and seed of the build in words, and one line per parameter a page was built with that
    differs from the default of its parameters cell (``dataset`` and ``seed`` aside)."""
    settings, changed = set(), []
    for path in sorted((Path(results_dir) / "provenance").glob("*.json")):
        if path.stem == SCORECARD:
            continue
        record = json.loads(path.read_text())
        settings.add((record.get("dataset"), record.get("seed")))
        source = book / f"{path.stem}.py"
        declared = declared_parameters(source) if source.exists() else {}
        for name, value in (record.get("parameters") or {}).items():
            if name in declared and name not in ("dataset", "seed") and value != declared[name].default:
                changed.append(f"{path.stem}: {name} = {value!r} (default {declared[name].default!r})")
    words = "; ".join(f"dataset {dataset}, seed {seed}" for dataset, seed in sorted(settings, key=str))
    return words or "no page built yet", changed


def validate(pages: list[Page], dataset: str, seed: Any, extra: dict[str, str]) -> None:
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
    for page in pages:
        page_parameters(page, dataset, seed, extra)


def page_parameters(page: Page, dataset: str, seed: int, extra: dict[str, str]) -> dict[str, Any]:
    """The values ``page`` runs with: its defaults, the build's dataset and seed, and the ``-p`` values it
    declares, each read as its declared type (a text parameter keeps the text as typed) and checked."""
    declared = declared_parameters(page.source)
    values = {name: spec.default for name, spec in declared.items()}
    values |= {name: value for name, value in (("dataset", dataset), ("seed", seed)) if name in declared}
    for name, text in extra.items():
        if name in declared:
            spec = declared[name]
            try:
                values[name] = check_value(spec, text if spec.kind is str else parse_value(text), page.name)
            except ParameterError as error:
                raise BuildError(str(error)) from None
    for name, value in values.items():
        if name != "dataset" and name.endswith("dataset") and isinstance(value, str):
            check_dataset_name(value, f"chapter {page.name}: parameter {name}")
    return values


def check_dataset_name(name: str, what: str) -> None:
    """A dataset parameter names a registered dataset or ``csv:PATH`` ("" skips the part that reads it)."""
    from recbias import datasets

    if name and name not in datasets.names() and not name.startswith("csv:"):
        raise BuildError(f"{what} = {name!r} is not a dataset; expected \"\" or one of "
                         f"{', '.join(datasets.names())} or csv:PATH")


#: what the parameters every page shares mean, where a page does not say
SHARED_MEANINGS = {
    "dataset": "the build's dataset, set with --dataset",
    "seed": "random seed of splits, samples and simulated worlds, set with --seed",
}
CSV_OPTIONS_HELP = (
    "csv:PATH options (any page): --csv-threshold X counts a rating >= X as positive (default: the highest "
    "rating in the file; implicit files: 1); --csv-duplicates error|last|mean says what to do with a "
    "(user, item) pair on several lines (default: error); --csv-columns user=...,item=...[,rating=...]"
    "[,timestamp=...] names the header's columns (default: user,item,rating,timestamp or MovieLens's names)"
)


def describe(pages: list[Page]) -> str:
    """Every page with its parameters, their defaults and meanings: what ``-p NAME VALUE`` can change."""
    blocks = []
    for page in pages:
        lines = [f"{page.name}:"]
        for name, spec in declared_parameters(page.source).items():
            meaning = spec.meaning or SHARED_MEANINGS.get(name, "")
            lines.append(f"    {name} = {spec.default!r}" + (f"  # {meaning}" if meaning else ""))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n\n" + CSV_OPTIONS_HELP


def check_dataset(name: str, seed: int) -> Ratings:
    """The build's dataset, loaded once to fail fast when it is unknown or does not load (missing,
    corrupt, malformed), before any page runs."""
    from recbias import datasets
    from recbias.bookkit.loading import load_dataset

    if not name.startswith("csv:") and name not in datasets.names():
        raise BuildError(f"unknown dataset {name!r}; valid: {', '.join(datasets.names())} or csv:PATH")
    try:
        return load_dataset(name, seed)
    except (datasets.DatasetError, ValueError) as error:
        text = str(error)
        raise BuildError(text if repr(name) in text or name in text else f"dataset {name!r}: {text}") from None


def data_notes(pages: list[Page], explicit_data_dir: str | None) -> list[str]:
    """Warnings about the data directory: one named by ``$RECBIAS_DATA_DIR`` that does not exist, and
    chapter 1 falling back to the IR spreads shipped with recbias for want of local judgment files."""
    from recbias import datasets
    from recbias.paths import data_dir

    notes = []
    if explicit_data_dir and not Path(explicit_data_dir).is_dir():
        notes.append(f"RECBIAS_DATA_DIR={explicit_data_dir} is not a directory: no local dataset file will be found")
    if any(page.name == CRANFIELD for page in pages):
        missing = [name for name in datasets.qrels_names() if not datasets.available(name)]
        if missing:
            notes.append(f"chapter 1 uses the IR spreads shipped with recbias: {data_dir()} holds no judgment "
                         f"files of {', '.join(missing)}")
    return notes


def build_date() -> str:
    """The build's date, from ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else now."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
              else datetime.datetime.now(datetime.timezone.utc))
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def provenance(root: Path, dataset: str, seed: int, build: str) -> dict[str, Any]:
    """What every page of this build records about how it was made (parameters are added per page)."""
    from recbias import datasets

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    data = datasets.digests(dataset, seed)
    return {
        "dataset": dataset_label(dataset),
        "seed": seed,
        "version": recbias.__version__,
        "commit": git("rev-parse", "--short=10", "HEAD") or "unknown",
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "data": data,
        "date": build_date(),
        "build": build,
    } | ({"csv": csv_options()} if dataset.startswith("csv:") else {})


@dataclass(frozen=True)
class PageTime:
    """How long a page took: ``wall`` seconds from its worker's start to its end, and the ``processor`` seconds
    (user and system) of the worker and its kernel."""

    wall: float
    processor: float


@dataclass
class Run:
    """A page being executed by its worker process."""

    page: Page
    staging: Path
    parameters: dict[str, Any]
    process: subprocess.Popen
    started: float


@dataclass(frozen=True)
class Build:
    """One run of the build tool: its id, its private scratch directory, and what every page shares; ``out`` is
    the directory of pages built apart from the book (``None``: the book's own build)."""

    root: Path
    build: str
    work: Path
    record: dict[str, Any]
    env: dict[str, str]
    out: Path | None = None

    @property
    def cache_report(self) -> Path:
        return self.work / CACHE_REPORT_FILE


def _owner_alive(work: Path) -> bool:
    """Whether the build that owns scratch directory ``work`` is still running."""
    try:
        owner = json.loads((work / OWNER_FILE).read_text())
        return psutil.Process(owner["pid"]).create_time() == owner["started"]
    except (OSError, ValueError, KeyError, TypeError, psutil.Error):
        return False


def remove_stale_scratch(directory: Path) -> set[str]:
    """Remove the scratch directories of killed builds and renders in ``directory``; the ids of live builds."""
    live = set()
    for work in directory.glob(f"{WORK_PREFIX}*"):
        if _owner_alive(work):
            live.add(work.name.removeprefix(WORK_PREFIX))
        else:
            shutil.rmtree(work, ignore_errors=True)
    for scratch in directory.glob(f"{RENDER_PREFIX}*"):
        pid = scratch.name.removeprefix(RENDER_PREFIX)
        if not (pid.isdigit() and psutil.pid_exists(int(pid))):
            shutil.rmtree(scratch, ignore_errors=True)
    return live


def remove_stale(root: Path) -> None:
    """Remove what killed builds left behind: scratch directories, orphan output sets, temporary files."""
    from recbias.cache import remove_stale_temporaries

    results.remove_stale(root, remove_stale_scratch(root / "_build"))
    remove_stale_temporaries()


def _fault(page: Page | None, error: OSError) -> BuildError:
    """A failure of the build tool itself (disk full, no permission ...), naming the page and the path."""
    where = f"page {page.name}: " if page is not None else ""
    path = f" {error.filename}" if error.filename else ""
    return BuildError(f"{where}cannot write{path}: {error.strerror or error}")


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it."""
    return os.path.relpath(path, Path.cwd()) if path.is_relative_to(Path.cwd()) else str(path)


def _start(build: Build, page: Page, dataset: str, seed: int, extra: dict[str, str]) -> Run:
    """Start the worker of ``page`` on a fresh staging directory."""
    parameters = page_parameters(page, dataset, seed, extra)
    staging = build.work / page.name
    raw = staging / RAW_CLAIMS
    try:
        raw.mkdir(parents=True)
        env = build.env | {CHAPTER_VARIABLE: page.name, RESULTS_DIR_VARIABLE: str(raw),
                           READS_VARIABLE: str(staging / worker.READS_FILE)}
        spec = {"page": page.name, "source": str(page.source), "root": str(build.root), "parameters": parameters,
                "env": env, "record": build.record, "digested": dataset}
        results.write_json(staging / worker.SPEC_FILE, spec)
        with open(staging / f"{page.name}.log", "w") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "recbias.bookkit.worker", str(staging)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=os.environ | env,
                preexec_fn=worker.die_with_parent,
            )
    except OSError as error:
        raise _fault(page, error) from None
    return Run(page, staging, parameters, process, time.perf_counter())


def _commit(build: Build, run: Run) -> None:
    """Validate the claims of a page whose worker succeeded, and commit its output set."""
    from recbias.bookkit.scorecard import Claim

    page, staging = run.page, run.staging
    raw = staging / RAW_CLAIMS / f"{page.name}.json"
    claims = results.read_claims(raw, Claim)[1] if raw.exists() else []
    try:
        shutil.rmtree(staging / RAW_CLAIMS)
        (staging / worker.SPEC_FILE).unlink()
        results.write_json(staging / results.CLAIMS_FILE, {"build": build.build, "page": page.name, "claims": claims})
        record = json.loads((staging / worker.RECORD_FILE).read_text())  # with every dataset the page read
        (staging / worker.RECORD_FILE).unlink()
        (staging / worker.READS_FILE).unlink(missing_ok=True)
        results.write_json(staging / results.PROVENANCE_FILE, record)
        if build.out is None:
            results.commit(build.root, page.name, staging, build.build, page.source.with_suffix(".ipynb"))
        else:
            results.deliver(staging, build.out, page.name)
    except OSError as error:
        raise _fault(page, error) from None


def _failure_message(build: Build, run: Run, reason: str) -> str:
    """Keep the failed page's notebook and log; the message naming the page, the cause and both files."""
    page = run.page
    apart = None if build.out is None else build.out / results.FAILED.name
    try:
        notebook, log = results.keep_failure(build.root, page.name, run.staging / f"{page.name}.ipynb",
                                             run.staging / f"{page.name}.log", into=apart)
    except OSError as error:
        raise _fault(page, error) from None
    kept = ([f"executed notebook {_shown(notebook)}"] if notebook else []) + [
        f"traceback in {_shown(log if apart else build.root / results.LOGS / log.name)}"]
    return f"{reason} ({'; '.join(kept)})"


def _outcome(build: Build, run: Run) -> str | None:
    """``None`` when the page succeeded and is committed, else the message saying why it failed."""
    code = run.process.returncode
    page = run.page
    source = _shown(page.source)
    if code == 0:
        try:
            _commit(build, run)
            return None
        except results.ResultsError as error:
            return _failure_message(build, run, f"page {page.name} recorded damaged claims: {error}")
    if code == worker.PAGE_FAILED and (run.staging / worker.FAILURE_FILE).exists():
        failure = json.loads((run.staging / worker.FAILURE_FILE).read_text())
        where = (f" in cell {failure['cell']} of {source} (`{failure['first_line']}`)" if failure["cell"]
                 else "")
        return _failure_message(build, run, f"page {page.name} failed{where}: {failure['error']}")
    killed = -code if code < 0 else code - 128 if code > 128 else 0
    cause = (f"its worker process was killed by {signal.Signals(killed).name}" if killed in signal.valid_signals()
             else f"its worker process ended with exit code {code}")
    return _failure_message(build, run, f"page {page.name} could not be executed: {cause}")


def _processor(run: Run) -> float:
    """The processor seconds the worker of ``run`` reported for its page (0 when it could not say); the
    report is taken out of the staging directory, so that it is never delivered with the page."""
    report = run.staging / worker.CPU_FILE
    try:
        return float(report.read_text())
    except (OSError, ValueError):
        return 0.0
    finally:
        report.unlink(missing_ok=True)


def _run_batch(build: Build, batch: list[Page], dataset: str, seed: int, extra: dict[str, str], jobs: int,
               timings: dict[str, PageTime]) -> list[str]:
    """Execute ``batch`` with at most ``jobs`` workers at a time; the failure messages."""
    waiting = list(batch)
    running: list[Run] = []
    failures = []
    while waiting or running:
        while waiting and len(running) < max(1, jobs):
            running.append(_start(build, waiting.pop(0), dataset, seed, extra))
        for run in [r for r in running if r.process.poll() is not None]:
            running.remove(run)
            timing = PageTime(time.perf_counter() - run.started, _processor(run))
            failure = _outcome(build, run)
            if failure is None:
                timings[run.page.name] = timing
                print(f"  executed {run.page.name:<28s} {timing.wall:7.1f} s {timing.processor:7.1f} s CPU", flush=True)
            else:
                failures.append(failure)
                print(f"  FAILED   {run.page.name}", flush=True)
        time.sleep(POLL_SECONDS)
    return failures


def execute(
    root: Path, pages: list[Page], dataset: str, seed: int, extra: dict[str, str], jobs: int, out: Path | None = None
) -> dict[str, PageTime]:
    """Execute ``pages`` (in parallel where ``jobs`` allows), then the scorecard.

    Each page runs in a worker process on a staging directory inside this build's private
    scratch directory (so concurrent builds never collide) and its outputs are committed as one
    set (:mod:`recbias.bookkit.results`) only when every cell succeeded.  The book's own build starts
    the longest pages first, as its last builds timed them, and records the times of this one
    (:mod:`recbias.bookkit.schedule`).  With ``out``, the pages are built apart from the book: the scratch
    directory, each page's outputs (:func:`recbias.bookkit.results.deliver`) and its failure lie in ``out``,
    the scorecard does not run, and nothing under the book's ``_build`` changes.
    """
    from recbias.cache import REPORT_VARIABLE

    if out is None:
        remove_stale(root)
    else:
        remove_stale_scratch(out)
    build_id = results.new_build_id()
    work = (root / "_build" if out is None else out) / f"{WORK_PREFIX}{build_id}"
    build = Build(root, build_id, work, provenance(root, dataset, seed, build_id),
                  {REPORT_VARIABLE: str(work / CACHE_REPORT_FILE), **page_environment(jobs)}, out)
    timings: dict[str, PageTime] = {}
    try:
        try:
            work.mkdir(parents=True)
            results.write_json(work / OWNER_FILE, {"pid": os.getpid(), "started": psutil.Process().create_time()})
        except OSError as error:
            raise _fault(None, error) from None
        if out is None:
            by_name = {page.name: page for page in pages}
            order = schedule.order_by_seconds(list(by_name), schedule.recorded_seconds(root / "_build", dataset))
            pages = [by_name[name] for name in order]
        failures = _run_batch(build, pages, dataset, seed, extra, jobs, timings)
        if failures:
            raise BuildError("\n".join(failures))
        scorecard = [p for p in notebook_pages(root) if p.name == SCORECARD] if out is None else []
        if scorecard:
            check_results(root)
            failures = _run_batch(build, scorecard, dataset, seed, extra, jobs, timings)
            if failures:
                raise BuildError("\n".join(failures))
    finally:
        stop_children()
        report_cache(build.cache_report)
        shutil.rmtree(work, ignore_errors=True)
        if out is None and timings:
            schedule.record_seconds(root / "_build", dataset, {name: t.wall for name, t in timings.items()})
    return timings


def check_results(root: Path) -> None:
    """Before the scorecard runs: every page with a committed set shows it through its fixed links (restored
    where they were removed), and every claims and provenance file is sound and from one build per page."""
    from recbias.bookkit.scorecard import Claim

    try:
        for page in notebook_pages(root):
            if page.name != SCORECARD:
                results.relink(root, page.name, page.source.with_suffix(".ipynb"))
        results.claim_records(root / results.RESULTS, Claim)
    except results.ResultsError as error:
        raise BuildError(f"scorecard: {error}") from None


def report_cache(report: Path) -> None:
    """Print, once each, what the fit cache reported during the build (refits, an unwritable cache)."""
    try:
        lines = report.read_text().splitlines()
    except OSError:
        return
    for line in dict.fromkeys(lines):
        print(f"warning: fit cache: {line}", file=sys.stderr)


def stop_children() -> None:
    """Terminate every process this build started (workers and their kernels), then kill stragglers."""
    children = psutil.Process().children(recursive=True)
    for child in children:
        try:
            child.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(children, timeout=5)
    for child in alive:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


def unbuilt_pages(root: Path) -> list[str]:
    """The pages of the book (the scorecard aside) that have no committed set: shown as "not built yet"."""
    return [page.name for page in notebook_pages(root)
            if page.name != SCORECARD and not (root / results.PAGES / page.name).is_dir()]


def not_built_note(page: Page) -> str:
    """What the placeholder of an unbuilt page says, and the build tool too."""
    chapter = page.number.lstrip("0") or page.name
    return (f"This page has not been built yet. Build it with `make book CHAPTERS={chapter}` "
            f"(or `python -m recbias.bookkit --chapters {chapter}`).")


def page_title(page: Page) -> str:
    """The title of a page: the first level-1 heading of its source (its name when it has none)."""
    import jupytext

    cells = jupytext.read(page.source).cells
    return next((line[2:].strip() for cell in cells if cell.cell_type == "markdown"
                 for line in cell.source.splitlines() if line.startswith("# ")), page.name)


def fill_missing(root: Path) -> list[Page]:
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
            output.unlink(missing_ok=True)  # a link to a set that is gone
            note = f":::{{note}}\n{not_built_note(page)}\n:::"
            notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {page_title(page)}\n\n{note}")])
            notebook.metadata = jupytext.read(page.source).metadata
            nbformat.write(notebook, output)
            missing.append(page)
    return missing


#: the log of the last HTML render, kept under ``_build/logs``
RENDER_LOG = "render.log"


def render_command(root: Path, output: Path) -> list[str]:
    """``jupyter-book build`` of the book at ``root`` in strict mode, writing under ``output``."""
    executable = Path(sys.executable).with_name("jupyter-book")
    return [str(executable), "build", str(root), "--path-output", str(output), "--builder", "html",
            "-W", "-n", "--keep-going"]


def render_environment(root: Path) -> dict[str, str]:
    """The render's environment: the book's own package first on ``PYTHONPATH`` when ``root`` holds
    ``src/recbias``, so that Sphinx's extensions and the API reference read the code being built, whichever
    copy of ``recbias`` the environment has installed (:mod:`recbias.bookkit.apiref` checks it)."""
    source = root / "src"
    if not (source / "recbias").is_dir():
        return dict(os.environ)
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))}


def render(root: Path, site: Path | None = None, log: Path | None = None) -> Path:
    """Render the HTML book into a fresh directory and swap it for ``_build/html`` in one step; returns the index.

    The site readers see stays whole until the new one is: a render that fails or is stopped leaves it as
    it was (the render's log is kept in ``_build/logs/render.log``).  Starting afresh also makes identical
    builds byte-identical: into an existing output directory Sphinx would add checksums of the previous
    build's static files to the links of every page.  ``site`` and ``log`` put the site and the log elsewhere
    (a page rendered apart from the book); the render's scratch directory is then beside ``site``.
    """
    site = site or root / "_build" / "html"
    scratch = site.parent / f"{RENDER_PREFIX}{os.getpid()}"
    log = log or root / results.LOGS / RENDER_LOG
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as handle:
            process = subprocess.Popen(render_command(root, scratch), stdin=subprocess.DEVNULL, stdout=handle,
                                       stderr=subprocess.STDOUT, env=render_environment(root),
                                       preexec_fn=worker.die_with_parent)
            try:
                code = process.wait()
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        rendered = scratch / "_build" / "html"
        if code != 0 or not (rendered / "index.html").exists():
            raise BuildError(f"jupyter-book build failed (exit {code}); the previous site is kept; "
                             f"log in {_shown(log)}")
        swap(rendered, site)
    except OSError as error:
        raise BuildError(f"rendering the HTML failed: {error.strerror or error} "
                         f"({error.filename or site}); the previous site is kept; log in {_shown(log)}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return site / "index.html"


def swap(new: Path, current: Path) -> None:
    """Put directory ``new`` in place of ``current`` in one rename (Linux's ``renameat2`` exchange when
    ``current`` exists); ``new`` then holds the old directory, or is gone."""
    if not current.exists():
        os.rename(new, current)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "renameat2"):  # not Linux: two renames, with the old site kept until the second
        old = new.with_name(new.name + ".old")
        os.rename(current, old)
        os.rename(new, current)
        os.rename(old, new)
        return
    if libc.renameat2(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(current), _RENAME_EXCHANGE) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number), str(current))


def add_csv_arguments(parser: argparse.ArgumentParser, what: str = "csv:PATH only") -> None:
    """The options ``--csv-threshold``, ``--csv-duplicates`` and ``--csv-columns`` (:func:`set_csv_options`)."""
    from recbias.datasets.csvfile import DUPLICATE_POLICIES

    parser.add_argument("--csv-threshold", type=float, metavar="X",
                        help=f"{what}: a rating >= X is positive (default: the file's highest rating)")
    parser.add_argument("--csv-duplicates", choices=DUPLICATE_POLICIES,
                        help=f"{what}: what to do with a (user, item) pair on several lines (default: error)")
    parser.add_argument("--csv-columns", metavar="MAP",
                        help=f"{what}: which header names the columns, e.g. user=userId,item=movieId,"
                             "rating=rating,timestamp=timestamp (default: user,item[,rating][,timestamp] or a "
                             "common spelling such as MovieLens's)")


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
    add_csv_arguments(parser)
    parser.add_argument("--jobs", type=int, default=2, help="chapters executed in parallel")
    parser.add_argument("--no-html", action="store_true", help="execute only, do not render HTML")
    parser.add_argument("--list", action="store_true", help="list the chapters and their parameters, then stop")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the chapters' experiments on this Dask scheduler (e.g. tcp://host:8786)")
    args = parser.parse_args(argv)
    if args.scheduler:  # read by recbias.evaluate.experiment.run_experiment in every page's kernel
        os.environ[SCHEDULER_VARIABLE] = args.scheduler
    root = args.root.resolve()
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, _interrupt)
    explicit_data_dir = os.environ.get("RECBIAS_DATA_DIR")
    for variable, folder in (("RECBIAS_DATA_DIR", "raw"), ("RECBIAS_CACHE_DIR", "cache")):
        os.environ.setdefault(variable, str(project_root(root) / "data" / folder))  # the book being built
    try:
        pages = select(notebook_pages(root), args.chapters)
        if args.list:
            print(describe(pages))
            return 0
        extra = dict(args.parameter)
        validate(pages, args.dataset, args.seed, extra)
        set_csv_options(args.dataset, args.csv_threshold, args.csv_duplicates, args.csv_columns)
        ratings = check_dataset(args.dataset, args.seed)
        check_requirements(pages, ratings, args.dataset, args.seed, extra)
        for note in data_notes(pages, explicit_data_dir):
            print(f"warning: {note}", file=sys.stderr)
        print(f"Executing {len(pages)} page(s) on dataset {args.dataset!r}, seed {args.seed}, {args.jobs} job(s)")
        start = time.perf_counter()
        timings = execute(root, pages, args.dataset, args.seed, extra, args.jobs)
        processor = sum(timing.processor for timing in timings.values())
        print(f"Executed in {time.perf_counter() - start:.1f} s, {processor:.1f} CPU s in the pages")
        if args.no_html:
            return 0
        for page in fill_missing(root):
            print(f"  note: {page.name}: {not_built_note(page)}")
        index = render(root)
        print(f"Book written to {index}")
    except BuildError as error:
        print(f"Build failed: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"Build failed: {_fault(None, error)}", file=sys.stderr)
        return 1
    except Stopped as stopped:
        print(f"Build stopped by {signal.Signals(stopped.signum).name}: workers ended, scratch removed, "
              "earlier pages kept.", file=sys.stderr)
        return 128 + stopped.signum
    return 0


def set_csv_options(dataset: str, threshold: float | None, duplicates: str | None, columns: str | None = None) -> None:
    """Pass ``--csv-threshold``, ``--csv-duplicates`` and ``--csv-columns`` to this process and every page."""
    from recbias.datasets.csvfile import parse_columns

    try:
        mapping = parse_columns(columns) if columns else None
    except ValueError as error:
        raise BuildError(str(error)) from None
    options = {k: v for k, v in (("positive_threshold", threshold), ("duplicates", duplicates), ("columns", mapping))
               if v is not None}
    if options and not dataset.startswith("csv:"):
        raise BuildError(f"--csv-threshold, --csv-duplicates and --csv-columns apply to csv:PATH datasets only, "
                         f"not {dataset!r}")
    os.environ[CSV_OPTIONS_VARIABLE] = json.dumps(options)


def check_requirements(pages: list[Page], ratings: Ratings, dataset: str, seed: int, extra: dict[str, str]) -> None:
    """Refuse, before any page runs, a dataset that a selected chapter cannot use; one line per unmet need."""
    from recbias.bookkit.requirements import unmet

    problems = []
    for page in pages:
        problems += unmet(page.name, ratings, dataset, page_parameters(page, dataset, seed, extra))
    if problems:
        raise BuildError("the dataset does not meet what these chapters need:\n  " + "\n  ".join(problems))


class Stopped(BaseException):
    """The build was asked to stop (SIGINT, SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: Any) -> None:
    """SIGINT and SIGTERM stop the build: its workers and kernels end, earlier pages stay."""
    for stop in (signal.SIGTERM, signal.SIGINT):  # a second signal, of either kind, must not interrupt the cleanup
        signal.signal(stop, signal.SIG_IGN)
    raise Stopped(signum)


if __name__ == "__main__":
    sys.exit(main())

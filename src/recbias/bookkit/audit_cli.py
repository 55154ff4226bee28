"""``python -m recbias audit`` and ``python -m recbias prepare``: audit a dataset and its systems in one command.

``audit`` executes the audit page (``book/09_audit.py``) alone, with the functions of :mod:`recbias.bookkit.pipeline`,
into an output directory of its own (``--out``, by default ``_build/audit/<data>``): the executed notebook, its claims,
provenance and log, ``summary.json`` (described by ``summary.schema.json`` of the chapter package) and, unless
``--no-html``, the page rendered alone in ``html/``.  The built book (``_build/html``, ``_build/results``,
``_build/pages``, ``book/*.ipynb``) is left as it was and the scorecard does not run.  Rendered alone, the page has
no other chapter to link to: each ``{doc}`` reference becomes the chapter's title and number in words, and each link
of its outputs into the book becomes its text.  ``prepare`` writes the splits and the candidates that systems
outside Python score (:func:`recbias.recommenders.scorefiles.prepare_scoring`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml
from tqdm import tqdm

from recbias.bookkit import pipeline
from recbias.bookkit.parameters import ParameterSpec
from recbias.paths import project_root
from recbias.recommenders import Recommender
from recbias.recommenders.external import parse_systems, try_system
from recbias.recommenders.scorefiles import ScoreFile

PAGE = "09_audit"
SUMMARY = "summary.json"
#: the directory of ``--out`` that holds the page rendered alone
HTML = "html"
#: what, under the book's root, an audit never writes into
BOOK_OUTPUTS = (Path("_build") / "html", Path("_build") / "results", Path("_build") / "pages", Path("_build") / "logs",
                Path("_build") / "failed", Path("book"))
#: a reference to another page of the book, ``{doc}`target``` or ``{doc}`text <target>```
DOC_ROLE = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`<>]+)>?`")
#: a link to a page of the book in HTML or Markdown output (a relative ``*.html`` address), keeping its text
HTML_LINK = re.compile(r'<a href="(?![a-z]+:)[^"/]*\.html(?:#[^"]*)?"[^>]*>(.*?)</a>', re.S)
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\((?![a-z]+:)[^)/\s]*\.html(?:#[^)]*)?\)")


def dataset_name(ratings: str) -> str:
    """A registered dataset name as it is, a file as ``csv:ABSOLUTE_PATH``."""
    from recbias import datasets

    if ratings in datasets.names() or ratings.startswith("csv:"):
        return ratings
    path = Path(ratings)
    if not path.exists():
        raise pipeline.BuildError(f"--ratings {ratings!r} is neither a registered dataset "
                                  f"({', '.join(datasets.names())}) nor a file")
    return f"csv:{path.resolve()}"


def system_specs(systems: list[str], scores: list[str]) -> str:
    """The page's ``systems`` parameter: presets and classes as given, files and directories made absolute."""
    specs = []
    for spec in systems:
        module, _, name = spec.rpartition(":")
        specs.append(f"{Path(module).resolve()}:{name}" if module.endswith(".py") else spec)
    specs += [str(Path(directory).resolve()) for directory in scores]
    if not specs:
        raise pipeline.BuildError("name at least one system with --system or --scores")
    return ", ".join(specs)


def positive_integer(text: str) -> int:
    """An ``argparse`` type: a positive integer, or an error saying so."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def audit_metric(metric: str, declared: ParameterSpec) -> str:
    """``--metric`` as the page's ``metric`` parameter spells it (names are case-insensitive), or a
    :class:`~recbias.bookkit.pipeline.BuildError` listing the valid ones."""
    valid = declared.choices or ()
    spelt = {name.lower(): name for name in valid}.get(metric.lower())
    if spelt is None:
        raise pipeline.BuildError(f"--metric {metric!r} is not a metric the audit compares protocols on; "
                                  f"valid: {', '.join(valid)}")
    return spelt


def check_cutoff(cutoff: int, declared: ParameterSpec) -> None:
    """Refuse a ``--cutoff`` beyond the longest list the page's ``cutoff`` parameter admits."""
    if declared.high is not None and cutoff > declared.high:
        raise pipeline.BuildError(f"--cutoff {cutoff} is longer than the audit reads; use at most {declared.high:g}")


def output_directory(root: Path, dataset: str, out: Path | None) -> Path:
    """Where the audit writes: ``out``, or ``<root>/_build/audit/<data>`` (a file by its name without suffix);
    a directory of the built book or of its sources is refused."""
    name = Path(dataset.removeprefix("csv:")).stem if dataset.startswith("csv:") else dataset
    chosen = (out or root / "_build" / "audit" / name).resolve()
    for part in BOOK_OUTPUTS:
        taken = root / part
        if chosen == taken or chosen.is_relative_to(taken) or taken.is_relative_to(chosen):
            raise pipeline.BuildError(f"--out {chosen} would write over the book's {part}; choose a directory of "
                                      "its own (default: _build/audit/<data>)")
    return chosen


def detach(notebook: Any, titles: dict[str, tuple[str, str]]) -> None:
    """Make an executed page readable apart from its book: each ``{doc}`page``` of its Markdown cells becomes
    the page's title and number (``titles``: page -> (title, number)), and each link of its outputs to a page of
    the book (a relative ``*.html`` address) its text."""

    def named(match: re.Match) -> str:
        page = Path(match.group(1).strip()).stem
        title, number = titles.get(page, (page, ""))
        return f"*{title}* [chapter {number} of the book]" if number else f"*{title}* [in the book]"

    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = DOC_ROLE.sub(named, cell.source)
        for output in cell.get("outputs", []):
            for mime, value in output.get("data", {}).items():
                if isinstance(value, str) and ("html" in mime or "markdown" in mime):
                    output["data"][mime] = MARKDOWN_LINK.sub(r"\1", HTML_LINK.sub(r"\1", value))


def render_alone(root: Path, out: Path, page: pipeline.Page) -> Path:
    """Render the executed page in ``out`` as a site of its own in ``out/html`` (strict, as the book), with the
    book's configuration, stylesheet and bibliography; returns the page's HTML file.  The page's one-page project
    lies in the render's scratch directory and goes with it."""
    import nbformat

    scratch = out / f"{pipeline.RENDER_PREFIX}{os.getpid()}"
    project = scratch / "page"
    try:
        project.mkdir(parents=True)
        titles = {other.name: (pipeline.page_title(other), other.number.lstrip("0"))
                  for other in pipeline.notebook_pages(root)}
        notebook = nbformat.read(out / f"{page.name}.ipynb", as_version=4)
        detach(notebook, titles)
        nbformat.write(notebook, project / f"{page.name}.ipynb")
        config = yaml.safe_load((root / "_config.yml").read_text())
        config["title"] = f"{config.get('title', 'recbias')}: audit"
        (project / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        (project / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": page.name}))
        for name in config.get("bibtex_bibfiles", []):
            shutil.copy(root / name, project / name)
        for static in config.get("sphinx", {}).get("config", {}).get("html_static_path", []):
            shutil.copytree(root / static, project / static)
        pipeline.render(project, site=out / HTML, log=out / pipeline.RENDER_LOG)
    except OSError as error:
        raise pipeline.BuildError(f"rendering the audit failed: {error.strerror or error} "
                                  f"({error.filename or out})") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out / HTML / f"{page.name}.html"


def audit(args: argparse.Namespace) -> int:
    """Check the options, the dataset and the systems, execute the audit page alone into its output directory,
    render it there."""
    root = args.root.resolve()
    pages = pipeline.select(pipeline.notebook_pages(root), [PAGE])
    declared = pipeline.declared_parameters(pages[0].source)
    metric = audit_metric(args.metric, declared["metric"])
    check_cutoff(args.cutoff, declared["cutoff"])
    dataset = dataset_name(args.ratings)
    out = output_directory(root, dataset, args.out)
    summary = out / SUMMARY
    # the page's parameters as the build's -p option passes them: text, read by each parameter's declared type
    extra = {"systems": system_specs(args.system, args.scores), "test_ratio": str(args.test_ratio),
             "compare_all": str(not args.alone), "metric": metric, "cutoff": str(args.cutoff),
             "summary": str(summary)}
    for variable, folder in (("RECBIAS_DATA_DIR", "raw"), ("RECBIAS_CACHE_DIR", "cache")):
        os.environ.setdefault(variable, str(project_root(root) / "data" / folder))  # the book being audited
    # a class named module:Class is imported from where the command runs
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path.cwd()), os.environ.get("PYTHONPATH")]))
    steps = ["check", "execute"] + ([] if args.no_html else ["render"])
    with tqdm(total=len(steps), desc="audit", unit="step") as bar:
        pipeline.validate(pages, dataset, args.seed, extra)
        pipeline.set_csv_options(dataset, args.csv_threshold, args.csv_duplicates, args.csv_columns)
        systems = parse_systems(extra["systems"], seed=args.seed)  # a class that cannot be imported fails here
        ratings = pipeline.check_dataset(dataset, args.seed)
        for label, system in systems.items():
            if isinstance(system, Recommender) and not isinstance(system, ScoreFile):
                try_system(label, system, ratings)
        pipeline.check_requirements(pages, ratings, dataset, args.seed, extra)
        bar.update()
        bar.set_postfix_str("executing the audit page")
        pipeline.execute(root, pages, dataset, args.seed, extra, jobs=1, out=out)
        bar.update()
        if not args.no_html:
            bar.set_postfix_str("rendering HTML")
            html = render_alone(root, out, pages[0])
            bar.update()
    print(f"Audit written to {out}: executed page {PAGE}.ipynb, {SUMMARY}"
          + ("" if args.no_html else f", HTML {html.relative_to(out)}"))
    print(f"Summary: {summary}")
    return 0


def prepare(args: argparse.Namespace) -> int:
    from recbias.bookkit.page import load_dataset
    from recbias.recommenders.scorefiles import prepare_scoring

    dataset = dataset_name(args.ratings)
    pipeline.set_csv_options(dataset, args.csv_threshold, args.csv_duplicates, args.csv_columns)
    ratings = load_dataset(dataset, seed=args.seed)
    manifest = prepare_scoring(ratings, args.out, seed=args.seed, test_ratio=args.test_ratio)
    for split, entry in manifest["splits"].items():
        print(f"{split}: {entry['candidates']:,} candidates in {Path(args.out) / split / 'candidates.csv'}; "
              f"write their scores to <DIR>/{split}.csv or .parquet (user,item,score) or <DIR>/{split}.trec")
    print(f"Then: python -m recbias audit --ratings {args.ratings} --scores <DIR> (DIR inside {args.out})")
    return 0


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="python -m recbias", description=__doc__.split("\n\n")[0])
    commands = main.add_subparsers(dest="command", required=True)
    for name, helping in (("audit", "build the audit page of a dataset and its systems"),
                          ("prepare", "write splits and candidates for systems outside Python")):
        command = commands.add_parser(name, help=helping)
        command.add_argument("--ratings", required=True, help="a registered dataset name or a ratings CSV file")
        command.add_argument("--seed", type=int, default=0, help="seed of the splits and samples")
        command.add_argument("--test-ratio", type=float, default=0.2, help="share of ratings held out")
        pipeline.add_csv_arguments(command, "a CSV file only")
    audit_command, prepare_command = commands.choices["audit"], commands.choices["prepare"]
    audit_command.add_argument("--system", action="append", default=[],
                               help="a preset name (mf, item-knn, ...) or module:Class (repeatable)")
    audit_command.add_argument("--scores", action="append", default=[],
                               help="a directory of score files for the prepared candidates (repeatable)")
    audit_command.add_argument("--metric", default="usual",
                               help="the metric family every protocol reads at --cutoff, e.g. P, nDCG or HR "
                                    "(default: usual, each protocol its own: P on target sets, HR sampled, nDCG "
                                    "over the full catalogue); a name the audit cannot use is refused with the list")
    audit_command.add_argument("--cutoff", type=positive_integer, default=10,
                               help="the length of the ranked list every protocol's metric reads (default: 10)")
    audit_command.add_argument("--out", type=Path,
                               help="the directory the audit writes to (default: _build/audit/<data> under --root); "
                                    "the built book is never written to")
    audit_command.add_argument("--root", type=Path, default=Path.cwd(),
                               help="the book's root, holding _toc.yml (default: the current directory)")
    audit_command.add_argument("--alone", action="store_true", help="do not profile the other local datasets")
    audit_command.add_argument("--no-html", action="store_true", help="execute and summarise only")
    prepare_command.add_argument("--out", type=Path, required=True, help="directory to write the candidates to")
    return main


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m recbias audit`` or ``prepare`` with ``argv`` (default: the command line); returns the exit
    code, 1 after one line naming what failed."""
    args = parser().parse_args(argv)
    try:
        return audit(args) if args.command == "audit" else prepare(args)
    except (pipeline.BuildError, ValueError) as error:
        print(f"{args.command} failed: {error}", file=sys.stderr)
        return 1

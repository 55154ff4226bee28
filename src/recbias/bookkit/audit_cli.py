"""``python -m recbias audit`` and ``python -m recbias prepare``: audit a dataset and its systems in one command.

``audit`` builds the audit page (``book/09_audit.py``) alone, with the functions of
:mod:`recbias.bookkit.pipeline`, into HTML and a JSON summary; ``prepare`` writes the splits and the
candidates that systems outside Python score (:func:`recbias.recommenders.scorefiles.prepare_scoring`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tqdm import tqdm

from recbias.bookkit import pipeline
from recbias.paths import project_root
from recbias.recommenders import Recommender
from recbias.recommenders.external import parse_systems, try_system
from recbias.recommenders.scorefiles import ScoreFile

PAGE = "09_audit"


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


def audit(args: argparse.Namespace) -> int:
    """Check the dataset and the parameters, execute the audit page alone (then the scorecard), render it."""
    root = args.root.resolve()
    summary = root / "_build" / "audit" / "summary.json"
    dataset = dataset_name(args.ratings)
    # the page's parameters as the build's -p option passes them: text, read by each parameter's declared type
    extra = {"systems": system_specs(args.system, args.scores), "test_ratio": str(args.test_ratio),
             "compare_all": str(not args.alone), "summary": str(summary)}
    for variable, folder in (("RECBIAS_DATA_DIR", "raw"), ("RECBIAS_CACHE_DIR", "cache")):
        os.environ.setdefault(variable, str(project_root(root) / "data" / folder))  # the book being audited
    # a class named module:Class is imported from where the command runs
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path.cwd()), os.environ.get("PYTHONPATH")]))
    steps = ["check", "execute"] + ([] if args.no_html else ["render"])
    with tqdm(total=len(steps), desc="audit", unit="step") as bar:
        systems = parse_systems(extra["systems"], seed=args.seed)  # a class that cannot be imported fails here
        pages = pipeline.select(pipeline.notebook_pages(root), [PAGE])
        pipeline.validate(pages, dataset, args.seed, extra)
        pipeline.set_csv_options(dataset, None, None)
        ratings = pipeline.check_dataset(dataset, args.seed)
        for label, system in systems.items():
            if isinstance(system, Recommender) and not isinstance(system, ScoreFile):
                try_system(label, system, ratings)
        pipeline.check_requirements(pages, ratings, dataset, args.seed, extra)
        bar.update()
        bar.set_postfix_str("executing the audit page")
        pipeline.execute(root, pages, dataset, args.seed, extra, jobs=1)
        bar.update()
        if not args.no_html:
            bar.set_postfix_str("rendering HTML")
            pipeline.fill_missing(root)
            pipeline.render(root)
            bar.update()
    if not args.no_html:
        print(f"Audit page: {root / '_build' / 'html' / 'book' / f'{PAGE}.html'}")
    print(f"Summary: {summary}")
    return 0


def prepare(args: argparse.Namespace) -> int:
    from recbias.bookkit.page import load_dataset
    from recbias.recommenders.scorefiles import prepare_scoring

    ratings = load_dataset(dataset_name(args.ratings), seed=args.seed)
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
    audit_command, prepare_command = commands.choices["audit"], commands.choices["prepare"]
    audit_command.add_argument("--system", action="append", default=[],
                               help="a preset name (mf, item-knn, ...) or module:Class (repeatable)")
    audit_command.add_argument("--scores", action="append", default=[],
                               help="a directory of score files for the prepared candidates (repeatable)")
    audit_command.add_argument("--root", type=Path, default=Path.cwd(),
                               help="the book's root, holding _toc.yml (default: the current directory)")
    audit_command.add_argument("--alone", action="store_true", help="do not profile the other local datasets")
    audit_command.add_argument("--no-html", action="store_true", help="execute and summarise only")
    prepare_command.add_argument("--out", type=Path, required=True, help="directory to write the candidates to")
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return audit(args) if args.command == "audit" else prepare(args)
    except (pipeline.BuildError, ValueError) as error:
        print(f"{args.command} failed: {error}", file=sys.stderr)
        return 1

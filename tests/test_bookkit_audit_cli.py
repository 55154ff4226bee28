"""The audit command: datasets by name or file, systems by name, class or score directory, the metric, the cutoff and
the CSV options checked before anything runs, and its outputs in a directory of its own, the built book untouched."""

import json
import os
import shutil
from pathlib import Path

import jsonschema
import nbformat
import pandas as pd
import pytest

from recbias import datasets
from recbias.bookkit import audit_cli
from recbias.bookkit.loading import CSV_OPTIONS_VARIABLE
from recbias.bookkit.pipeline import BuildError
from recbias.chapters.c09_audit.report import SUMMARY_SCHEMA
from recbias.paths import cache_dir, data_dir
from test_book_render import snapshot

REPOSITORY = Path(__file__).resolve().parents[1]


def test_a_file_becomes_an_absolute_csv_dataset_and_a_name_stays(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mine.csv").write_text("user,item,rating\n1,2,5\n")
    monkeypatch.chdir(tmp_path)
    assert audit_cli.dataset_name("mine.csv") == f"csv:{tmp_path / 'mine.csv'}"
    assert audit_cli.dataset_name("ml-100k") == "ml-100k"
    with pytest.raises(BuildError, match="neither a registered dataset"):
        audit_cli.dataset_name("nothing.csv")


def test_files_and_directories_are_made_absolute_and_one_system_is_needed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    specs = audit_cli.system_specs(["mf", "pkg.mod:Rec", "ex/item_mean.py:ItemMean"], ["scores"])
    assert specs == f"mf, pkg.mod:Rec, {tmp_path / 'ex/item_mean.py'}:ItemMean, {tmp_path / 'scores'}"
    with pytest.raises(BuildError, match="at least one system"):
        audit_cli.system_specs([], [])


def test_prepare_writes_the_candidates(tmp_path: Path, capsys) -> None:
    assert audit_cli.main(["prepare", "--ratings", "synthetic-small", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "coin" / "candidates.csv").exists() and (tmp_path / "manifest.json").exists()
    assert "candidates" in capsys.readouterr().out


def book_copy(root: Path) -> Path:
    """The book's sources (configuration, bibliography, pages, stylesheet) copied to ``root``, no executed page."""
    root.mkdir()
    for name in ("_config.yml", "_toc.yml", "references.bib"):
        shutil.copy(REPOSITORY / name, root / name)
    shutil.copytree(REPOSITORY / "book", root / "book", ignore=shutil.ignore_patterns("*.ipynb"))
    return root


#: the places of a built book an audit must leave as they are, with a file in each, as a build leaves them
BUILT_BOOK = {"_build/html/index.html": "<html>site</html>", "_build/html/book/09_audit.html": "<html>ch 9</html>",
              "_build/html/_static/recbias.css": "body {}", "_build/results/09_audit.json": "{}",
              "_build/results/provenance/09_audit.json": "{}", "_build/pages/.09_audit.0123456789ab/claims.json": "{}",
              "_build/logs/09_audit.log": "", "book/09_audit.ipynb": "{}"}


def book_state(root: Path) -> dict[str, dict[str, str]]:
    """A digest of every file under each place of :data:`BUILT_BOOK` (files added or removed show too)."""
    return {place: snapshot(root / place) for place in ("_build/html", "_build/results", "_build/pages",
                                                         "_build/logs", "book")}


@pytest.mark.slow
def test_the_audit_writes_a_directory_of_its_own_and_leaves_the_built_book_byte_identical(tmp_path: Path, capsys,
                                                                                           monkeypatch) -> None:
    """End to end, in a copy of the book with a built site: the page runs with the command's metric and cutoff on
    the smallest world and the cheapest system, its notebook, summary and HTML land in ``_build/audit/<data>``,
    the summary validates against its schema, and not one byte of the built book changes."""
    # the command sets these for the process it runs in; monkeypatch gives them back to the other tests afterwards
    monkeypatch.setenv("RECBIAS_DATA_DIR", str(data_dir()))
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(cache_dir()))  # the fit cache every page shares
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv(CSV_OPTIONS_VARIABLE, "{}")
    root = book_copy(tmp_path / "book-root")
    for relative, text in BUILT_BOOK.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    before = book_state(root)
    code = audit_cli.main(["audit", "--ratings", "synthetic-small", "--system",
                           f"{REPOSITORY / 'examples' / 'item_mean.py'}:ItemMean", "--metric", "ndcg", "--cutoff", "5",
                           "--alone", "--root", str(root)])
    assert code == 0
    assert book_state(root) == before
    out = root / "_build" / "audit" / "synthetic-small"
    assert sorted(path.name for path in out.iterdir()) == ["09_audit.ipynb", "09_audit.log", "claims.json", "html",
                                                           "provenance.json", "render.log", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    jsonschema.validate(summary, json.loads(SUMMARY_SCHEMA.read_text()), cls=jsonschema.Draft202012Validator)
    assert (summary["settings"]["metric"], summary["settings"]["cutoff"]) == ("nDCG", 5)
    assert {protocol["metric"] for protocol in summary["protocols"]} == {"nDCG@5"}
    assert [split["name"] for split in summary["splits"] if split["used"]] == ["coin", "uniform"]
    page = (out / "html" / "09_audit.html").read_text()
    assert "{doc}" not in page and "chapter 4 of the book" in page and 'href="04_popularity_bias.html' not in page
    assert "AR TI-AN nDCG@5" in page and str(tmp_path) not in page
    assert "summary.json" in capsys.readouterr().out


def test_the_metric_the_cutoff_and_the_output_directory_are_checked_before_anything_runs(tmp_path: Path, capsys,
                                                                                         monkeypatch) -> None:
    monkeypatch.setattr(audit_cli.pipeline, "check_dataset", lambda *args: pytest.fail("the dataset was loaded"))

    def refused(*options: str) -> str:
        code = audit_cli.main(["audit", "--ratings", "synthetic-small", "--system", "mf", "--root", str(REPOSITORY),
                               "--no-html", *options])
        assert code == 1
        return capsys.readouterr().err.strip().splitlines()[-1]

    assert refused("--metric", "bleu") == ("audit failed: --metric 'bleu' is not a metric the audit compares "
                                           "protocols on; valid: usual, P, Recall, HR, F1, RR, AP, nDCG")
    assert refused("--cutoff", "5000") == "audit failed: --cutoff 5000 is longer than the audit reads; use at most 1000"
    assert "would write over the book's _build/html" in refused("--out", str(REPOSITORY / "_build" / "html" / "x"))
    assert "would write over the book's book" in refused("--out", str(REPOSITORY / "book" / "mine"))
    assert "would write over the book's _build/html" in refused("--out", str(REPOSITORY / "_build"))  # it holds them
    for cutoff in ("0", "-3", "ten"):
        with pytest.raises(SystemExit) as stopped:
            audit_cli.main(["audit", "--ratings", "synthetic-small", "--cutoff", cutoff])
        assert stopped.value.code == 2
        assert f"argument --cutoff: must be a positive integer, got '{cutoff}'" in capsys.readouterr().err


def test_the_csv_options_reach_the_dataset_and_the_page(tmp_path: Path, monkeypatch) -> None:
    """``--csv-threshold``, ``--csv-columns`` and ``--csv-duplicates`` of the audit load the file as the build's do,
    and every page of the audit reads them; the output directory is named after the file."""
    monkeypatch.setenv(CSV_OPTIONS_VARIABLE, "{}")
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    ratings = datasets.load("synthetic-small")
    frame = pd.DataFrame({"who": ratings.user_ids[ratings.users], "what": ratings.item_ids[ratings.items],
                          "stars": ratings.values})
    pd.concat([frame, frame.head(1)]).to_csv(tmp_path / "mine.csv", index=False)  # one pair twice
    seen = {}
    monkeypatch.setattr(audit_cli.pipeline, "check_requirements",
                        lambda pages, loaded, *args: seen.update(ratings=loaded))
    monkeypatch.setattr(audit_cli.pipeline, "execute", lambda *args, **kwargs: seen.update(
        options=json.loads(os.environ[CSV_OPTIONS_VARIABLE]), out=kwargs["out"], extra=args[4]))
    code = audit_cli.main(["audit", "--ratings", str(tmp_path / "mine.csv"), "--csv-threshold", "4", "--csv-columns",
                           "user=who,item=what,rating=stars", "--csv-duplicates", "last", "--system", "plsa",
                           "--root", str(REPOSITORY), "--no-html", "--alone"])
    assert code == 0
    assert seen["ratings"].positive_threshold == 4 and seen["ratings"].n_ratings == ratings.n_ratings
    assert seen["options"] == {"positive_threshold": 4.0, "duplicates": "last",
                               "columns": {"user": "who", "item": "what", "rating": "stars"}}
    assert seen["out"] == REPOSITORY / "_build" / "audit" / "mine"
    assert (seen["extra"]["metric"], seen["extra"]["cutoff"]) == ("usual", "10")
    assert audit_cli.main(["prepare", "--ratings", str(tmp_path / "mine.csv"), "--csv-columns",
                           "user=who,item=what,rating=stars", "--csv-duplicates", "last",
                           "--out", str(tmp_path / "prepared")]) == 0
    assert (tmp_path / "prepared" / "coin" / "candidates.csv").exists()


def test_a_page_rendered_alone_names_the_chapters_it_cannot_link_to() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("As {doc}`04_popularity_bias` and {doc}`the fifth <05_neutralising_designs>` "
                                      "show; see {doc}`appendix_x`."),
        nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("display_data", data={
            "text/html": '<td><a href="04_popularity_bias.html">chapter 4</a></td> <a href="https://x.org/a.html">x</a>',
            "text/markdown": "[datasets appendix](appendix_datasets.html#ml-100k) and [site](https://x.org/b.html)",
            "text/plain": '<a href="04_popularity_bias.html">kept</a>'})])])
    audit_cli.detach(notebook, {"04_popularity_bias": ("The popularity bias", "4"),
                                "05_neutralising_designs": ("Designs that neutralise popularity", "5")})
    assert notebook.cells[0].source == ("As *The popularity bias* [chapter 4 of the book] and *Designs that "
                                        "neutralise popularity* [chapter 5 of the book] show; see *appendix_x* "
                                        "[in the book].")
    data = notebook.cells[1].outputs[0]["data"]
    assert data["text/html"] == '<td>chapter 4</td> <a href="https://x.org/a.html">x</a>'
    assert data["text/markdown"] == "datasets appendix and [site](https://x.org/b.html)"
    assert data["text/plain"] == '<a href="04_popularity_bias.html">kept</a>'


WRONG_SHAPE = '''
import numpy as np
from recbias.recommenders import Recommender

class OneColumn(Recommender):
    def _fit(self, train):
        pass

    def score_users(self, users):
        return np.zeros((len(users), 1))

class NotOne:
    pass
'''


@pytest.mark.parametrize(("system", "message"), [
    ("wrong_shape.py:Missing", "module 'wrong_shape.py' has no 'Missing'"),  # a wrong class name
    ("wrong_shape.py:NotOne", "NotOne must subclass recbias.recommenders.Recommender"),
    ("wrong_shape.py:OneColumn", "system 'OneColumn': score_users returned shape (50, 1) for 50 users"),
])
def test_a_wrong_system_is_refused_in_seconds_naming_the_class_and_the_problem(tmp_path: Path, capsys, monkeypatch,
                                                                               system, message) -> None:
    (tmp_path / "wrong_shape.py").write_text(WRONG_SHAPE)
    monkeypatch.chdir(tmp_path)
    root = Path(__file__).resolve().parents[1]
    monkeypatch.setattr(audit_cli.pipeline, "execute", lambda *args, **kwargs: pytest.fail("a page was executed"))
    code = audit_cli.main(["audit", "--ratings", "synthetic-small", "--system", system, "--root", str(root),
                           "--alone", "--no-html"])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 1 and last.startswith("audit failed: system ")
    assert message.replace("wrong_shape.py", str(tmp_path / "wrong_shape.py")) in last

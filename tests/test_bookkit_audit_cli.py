"""The audit command's arguments: datasets by name or file, systems by name, class or score directory."""

import json
import os
import shutil
from pathlib import Path

import pytest

from recbias.bookkit import audit_cli
from recbias.bookkit.loading import CSV_OPTIONS_VARIABLE
from recbias.bookkit.pipeline import BuildError
from recbias.paths import data_dir


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


@pytest.mark.slow
def test_the_audit_command_executes_the_page_and_writes_its_summary(tmp_path: Path, capsys, monkeypatch) -> None:
    """End to end, in a copy of the book: the page runs with the command's parameters and its summary is written."""
    # the command sets these for the process it runs in; monkeypatch gives them back to the other tests afterwards
    monkeypatch.setenv("RECBIAS_DATA_DIR", str(data_dir()))
    monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv(CSV_OPTIONS_VARIABLE, "{}")
    repository = Path(__file__).resolve().parents[1]
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(repository / name, tmp_path / name)
    shutil.copytree(repository / "book", tmp_path / "book", ignore=shutil.ignore_patterns("*.ipynb"))
    code = audit_cli.main(["audit", "--ratings", "synthetic-small", "--system", "popularity", "--test-ratio", "0.25",
                           "--alone", "--no-html", "--root", str(tmp_path)])
    assert code == 0
    summary = json.loads((tmp_path / "_build" / "audit" / "summary.json").read_text())
    assert summary and "summary.json" in capsys.readouterr().out


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

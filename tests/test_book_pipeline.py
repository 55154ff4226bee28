"""The book pipeline on a tiny throw-away book: parameters, failures, outputs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEADER = "# ---\n# jupyter:\n#   kernelspec:\n#     display_name: Python 3\n#     language: python\n#     name: python3\n# ---\n\n"


def write_book(root: Path, chapters: dict[str, str]) -> None:
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# Intro\n")
    entries = "\n".join(f"  - file: book/{name}" for name in chapters)
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/intro\nchapters:\n{entries}\n")
    for name, body in chapters.items():
        source = HEADER + '# %% tags=["parameters"]\ndataset = "synthetic"\nseed = 0\nn_folds = 5\n\n# %%\n' + body + "\n"
        (root / "book" / f"{name}.py").write_text(source)


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "recbias.bookkit", "--root", str(root), "--no-html", "--dataset", "synthetic-small", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_parameters_are_injected_and_a_failing_chapter_names_itself(tmp_path):
    write_book(
        tmp_path,
        {
            "01_fine": "print(dataset, seed, n_folds)",
            "02_broken": "raise ValueError('the design is impossible')",
        },
    )
    result = run(tmp_path, "--seed", "7", "-p", "n_folds", "3")
    assert result.returncode == 1
    assert "02_broken" in result.stderr
    assert "ValueError: the design is impossible" in result.stderr
    assert "cell" in result.stderr
    assert not (tmp_path / "book" / "02_broken.ipynb").exists(), "a failed page must leave no output"
    executed = json.loads((tmp_path / "book" / "01_fine.ipynb").read_text())
    outputs = [o.get("text", "") for c in executed["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert "synthetic-small 7 3\n" in "".join("".join(t) for t in outputs)
    hidden = [c for c in executed["cells"] if "parameters" in c["metadata"].get("tags", [])]
    assert hidden and all("remove-cell" in c["metadata"]["tags"] for c in hidden)


def test_unknown_parameter_chapter_and_dataset_are_refused(tmp_path):
    write_book(tmp_path, {"01_fine": "pass"})
    unknown_parameter = run(tmp_path, "-p", "n_fold", "3")
    assert unknown_parameter.returncode == 1 and "n_fold" in unknown_parameter.stderr
    unknown_chapter = run(tmp_path, "--chapters", "9")
    assert unknown_chapter.returncode == 1 and "01_fine" in unknown_chapter.stderr
    unknown_dataset = subprocess.run(
        [sys.executable, "-m", "recbias.bookkit", "--root", str(tmp_path), "--no-html", "--dataset", "ml-10m"],
        capture_output=True, text=True, timeout=120,
    )
    assert unknown_dataset.returncode == 1 and "ml-10m" in unknown_dataset.stderr


def test_list_shows_each_chapters_parameters(tmp_path):
    write_book(tmp_path, {"01_fine": "pass", "02_other": "pass"})
    listed = subprocess.run(
        [sys.executable, "-m", "recbias.bookkit", "--root", str(tmp_path), "--list", "--chapters", "2"],
        capture_output=True, text=True, timeout=60,
    )
    assert listed.returncode == 0
    assert listed.stdout.startswith("02_other:") and "n_folds = 5" in listed.stdout and "01_fine" not in listed.stdout

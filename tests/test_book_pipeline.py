"""The book pipeline on a tiny throw-away book: parameters, failures, outputs."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: processor seconds a page's kernel spends before printing (the pipeline must count them)
KERNEL_SECONDS = 3.0
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
            "01_fine": f"import time\nwhile time.process_time() < {KERNEL_SECONDS}:\n    pass\nprint(dataset, seed, n_folds)",
            "02_broken": "raise ValueError('the design is impossible')",
        },
    )
    result = run(tmp_path, "--seed", "7", "-p", "n_folds", "3")
    assert result.returncode == 1
    processor = float(re.search(r"executed 01_fine\s+[\d.]+ s\s+([\d.]+) s CPU", result.stdout).group(1))
    assert processor >= KERNEL_SECONDS, "the page's processor time includes its kernel's"
    assert not list((tmp_path / "book").glob("**/cpu.txt")), "the report of processor time is never delivered"
    assert "02_broken" in result.stderr
    assert "ValueError: the design is impossible" in result.stderr
    assert "cell" in result.stderr
    assert not (tmp_path / "book" / "02_broken.ipynb").exists(), "a failed page must leave no output"
    executed = json.loads((tmp_path / "book" / "01_fine.ipynb").read_text())
    outputs = [o.get("text", "") for c in executed["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert "synthetic-small 7 3\n" in "".join("".join(t) for t in outputs)
    tagged = [c for c in executed["cells"] if {"parameters", "injected-parameters"} & set(c["metadata"].get("tags", []))]
    assert len(tagged) == 2 and all("remove-cell" in c["metadata"]["tags"] for c in tagged)  # the box lists them


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


ANNOTATED = (
    'dataset = "synthetic"\nseed = 0\n'
    "m = 100  # sampled items, int in [1, 10000]\n"
    "ratio = 0.2  # held-out share, float in (0, 1)\n"
    'gain = "linear"  # gain of nDCG, one of linear, exponential\n'
    "users = 400  # users of the sweep, int in [10, 100000] or None\n"
)


def write_annotated(root: Path, body: str = "pass", name: str = "06_sampled") -> None:
    (root / "book").mkdir(exist_ok=True)
    (root / "book" / "intro.md").write_text("# Intro\n")
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/intro\nchapters:\n  - file: book/{name}\n")
    (root / "book" / f"{name}.py").write_text(HEADER + "# %% [markdown]\n# # A chapter\n\n# %% tags=[\"parameters\"]\n"
                                               + ANNOTATED + "\n# %%\n" + body + "\n")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("m", "abc", "m = 'abc' is not admissible; expected an int in [1, 10000]"),
        ("m", "-5", "m = -5 is not admissible; expected an int in [1, 10000]"),
        ("m", "2.5", "m = 2.5 is not admissible"),
        ("ratio", "1", "ratio = 1 is not admissible; expected a number in (0, 1)"),
        ("gain", "cubic", "gain = 'cubic' is not admissible; expected one of linear, exponential"),
        ("users", "5", "users = 5 is not admissible; expected an int in [10, 100000] or None"),
    ],
)
def test_inadmissible_values_are_refused_before_anything_runs(tmp_path, name, value, expected):
    write_annotated(tmp_path, "raise SystemExit('the chapter must not run')")
    result = run(tmp_path, "-p", name, value)
    assert result.returncode == 1
    assert "chapter 06_sampled" in result.stderr and expected in result.stderr
    assert not (tmp_path / "book" / "06_sampled.ipynb").exists()


def test_admissible_values_and_none_pass(tmp_path):
    from recbias.bookkit.parameters import check_value, parse_parameters

    specs = parse_parameters(ANNOTATED)
    assert check_value(specs["users"], None, "x") is None
    assert check_value(specs["m"], 3.0, "x") == 3 and isinstance(check_value(specs["m"], 3.0, "x"), int)
    assert check_value(specs["gain"], "exponential", "x") == "exponential"


def test_every_chapter_default_is_admissible():
    from recbias.bookkit.parameters import check_value
    from recbias.bookkit.pipeline import declared_parameters, notebook_pages

    root = Path(__file__).resolve().parents[1]
    for page in notebook_pages(root):
        for spec in declared_parameters(page.source).values():
            check_value(spec, spec.default, page.name)


def test_a_malformed_csv_fails_once_before_any_chapter(tmp_path):
    write_book(tmp_path, {"01_one": "pass", "02_two": "pass"})
    bad = tmp_path / "bad.csv"
    bad.write_text("user,item,rating\n1,2,5\n1,3,abc\n")
    result = subprocess.run(
        [sys.executable, "-m", "recbias.bookkit", "--root", str(tmp_path), "--no-html", "--dataset", f"csv:{bad}"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.count("line 3") == 1 and "bad.csv" in result.stderr
    assert "Executing" not in result.stdout


def test_list_describes_every_parameter_and_the_csv_options(tmp_path):
    write_annotated(tmp_path)
    listed = subprocess.run([sys.executable, "-m", "recbias.bookkit", "--root", str(tmp_path), "--list"],
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert "    dataset = 'synthetic'  # the build's dataset, set with --dataset" in lines
    assert "    m = 100  # sampled items, int in [1, 10000]" in lines
    assert "--csv-threshold" in listed.stdout and "--csv-duplicates" in listed.stdout


def test_csv_options_reach_the_dataset_and_errors_name_it_once(tmp_path):
    write_book(tmp_path, {"01_one": "pass"})
    doubled = tmp_path / "doubled.csv"
    doubled.write_text("user,item,rating\n1,2,5\n1,2,4\n")
    refused = run(tmp_path, "--dataset", f"csv:{doubled}")
    assert refused.returncode == 1 and refused.stderr.count(f"csv:{doubled}") == 1, refused.stderr
    from recbias.bookkit.loading import CSV_OPTIONS_VARIABLE, load_dataset
    from recbias.bookkit.pipeline import BuildError, set_csv_options

    try:
        set_csv_options(f"csv:{doubled}", 4.0, "mean")
        ratings = load_dataset(f"csv:{doubled}")
        assert ratings.n_ratings == 1 and ratings.values[0] == 4.5 and ratings.positive_threshold == 4.0
        with pytest.raises(BuildError, match="csv:PATH datasets only"):
            set_csv_options("synthetic", 4.0, None)
    finally:
        import os

        os.environ.pop(CSV_OPTIONS_VARIABLE, None)
    help_text = subprocess.run([sys.executable, "-m", "recbias.bookkit", "--help"], capture_output=True, text=True,
                               timeout=60).stdout
    assert "--csv-duplicates {error,last,mean}" in help_text


def test_a_missing_data_directory_is_a_terminal_warning(tmp_path, monkeypatch):
    from recbias.bookkit.pipeline import Page, data_notes

    monkeypatch.setenv("RECBIAS_DATA_DIR", str(tmp_path / "no-such-dir"))
    notes = data_notes([Page("01_cranfield", tmp_path / "01_cranfield.py")], str(tmp_path / "no-such-dir"))
    assert notes[0] == f"RECBIAS_DATA_DIR={tmp_path / 'no-such-dir'} is not a directory: no local dataset file will be found"
    assert notes[1].startswith("chapter 1 uses the IR spreads shipped with recbias") and "cranfield" in notes[1]


def test_a_text_parameter_keeps_the_text_as_typed(tmp_path):
    from recbias.bookkit.pipeline import Page, page_parameters

    (tmp_path / "p.py").write_text(HEADER + '# %% tags=["parameters"]\ndataset = "synthetic"\nseed = 0\n'
                                   'alphas = "0.5, 1.4"  # comma-separated skews\nfolds = 5  # splits, int in [1, 20]\n')
    values = page_parameters(Page("p", tmp_path / "p.py"), "synthetic-small", 3, {"alphas": "0.5", "folds": "2"})
    assert values == {"dataset": "synthetic-small", "seed": 3, "alphas": "0.5", "folds": 2}


def test_pages_built_at_once_share_the_cores_and_reuse_freed_memory():
    from recbias.bookkit.pipeline import ALLOCATOR, THREAD_VARIABLES, page_environment

    assert "NUMBA_NUM_THREADS" in THREAD_VARIABLES
    for jobs, cores, threads in ((2, 2, "1"), (1, 4, "4"), (2, 8, "4"), (8, 2, "1")):
        environment = page_environment(jobs, cores)
        assert {environment[variable] for variable in THREAD_VARIABLES} == {threads}
        assert environment.items() >= ALLOCATOR.items()
    assert ALLOCATOR["MALLOC_MMAP_MAX_"] == "0" and int(ALLOCATOR["MALLOC_TRIM_THRESHOLD_"]) == 2**30


@pytest.mark.parametrize(("name", "value", "message"), [
    ("second_dataset", "nosuch", "parameter second_dataset = 'nosuch' is not a dataset"),
    ("removed", "0, -0.5", "expected comma-separated numbers, each in [0, 1)"),
    ("removed", "0, 1", "expected comma-separated numbers, each in [0, 1)"),
    ("removed", "0, half", "expected comma-separated numbers, each in [0, 1)"),
    ("target_sizes", "100, 2.5", "expected comma-separated integers, each in [2, 100000]"),
])
def test_dataset_and_list_parameters_are_refused_before_any_page_runs(name, value, message):
    from recbias.bookkit.pipeline import BuildError, notebook_pages, validate

    with pytest.raises(BuildError, match=re.escape(message)):
        validate(notebook_pages(ROOT), "synthetic", 0, {name: value})
    validate(notebook_pages(ROOT), "synthetic", 0, {"second_dataset": "", "removed": "0, 0.5",
                                                    "target_sizes": "100, 200"})

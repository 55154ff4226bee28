"""The build under faults: each page's outputs committed as one set, damaged results files named,
failures of the build tool itself reported in one line, leftovers of killed builds removed."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from recbias.bookkit import results
from recbias.bookkit.results import ResultsError
from recbias.bookkit.scorecard import load_claims, load_provenance
from test_book_pipeline import run, write_book

CLAIM = {"kind": "finding", "key": "k", "label": "it holds", "source": "s", "dataset": "toy", "outcome": "holds",
         "evidence": "seen"}


def stage(root: Path, page: str, build: str, seed: int) -> Path:
    """A complete output set of ``page`` as a build stages it."""
    staged = root / "_build" / f".work-{build}" / page
    staged.mkdir(parents=True)
    (staged / f"{page}.ipynb").write_text(f"notebook of seed {seed}")
    (staged / f"{page}.log").write_text(f"log of seed {seed}")
    results.write_json(staged / results.CLAIMS_FILE, {"build": build, "page": page, "claims": [CLAIM | {"key": f"seed {seed}"}]})
    results.write_json(staged / results.PROVENANCE_FILE, {"dataset": "toy", "seed": seed, "commit": "c", "date": "d",
                                                         "build": build})
    return staged


def what_readers_see(root: Path, page: str) -> set[str]:
    """The seed each reader's path shows for ``page`` (one element when the outputs are consistent)."""
    notebook = (root / "book" / f"{page}.ipynb").read_text()
    log = (root / results.LOGS / f"{page}.log").read_text()
    claims = load_claims(root / results.RESULTS)
    provenance = load_provenance(root / results.RESULTS)
    return {notebook.rsplit(" ", 1)[1], log.rsplit(" ", 1)[1], claims[0].key.split()[1], str(provenance["seed"][0])}


def commit(root: Path, page: str, build: str, seed: int) -> None:
    (root / "book").mkdir(exist_ok=True)
    results.commit(root, page, stage(root, page, build, seed), build, root / "book" / f"{page}.ipynb")


def test_a_committed_set_is_what_every_reader_sees(tmp_path):
    commit(tmp_path, "01_a", "b0", seed=0)
    assert what_readers_see(tmp_path, "01_a") == {"0"}
    commit(tmp_path, "01_a", "b3", seed=3)
    assert what_readers_see(tmp_path, "01_a") == {"3"}
    assert [p.name for p in (tmp_path / results.PAGES).iterdir() if not p.is_symlink()] == [".01_a.b3"]


def test_a_set_delivered_apart_from_the_book_replaces_its_files_there_and_touches_no_link(tmp_path):
    """A page built apart from the book (the audit): its set lands in its own directory, a failure is kept there
    and removed by the next success, and the book's pages, links and failures are never written."""
    commit(tmp_path, "09_a", "b0", seed=0)
    out = tmp_path / "_build" / "audit" / "mine"
    failed = tmp_path / "_build" / ".work-b1" / "09_a"
    failed.mkdir(parents=True)
    (failed / "09_a.ipynb").write_text("half-run notebook")
    (failed / "09_a.log").write_text("Traceback")
    notebook, log = results.keep_failure(tmp_path, "09_a", failed / "09_a.ipynb", failed / "09_a.log",
                                         into=out / "failed")
    assert (notebook, log) == (out / "failed" / "09_a.ipynb", out / "failed" / "09_a.log")
    moved = results.deliver(stage(tmp_path, "09_a", "b2", seed=2), out, "09_a")
    assert sorted(path.name for path in moved) == ["09_a.ipynb", "09_a.log", "claims.json", "provenance.json"]
    assert (out / "09_a.ipynb").read_text() == "notebook of seed 2" and not list((out / "failed").iterdir())
    assert what_readers_see(tmp_path, "09_a") == {"0"}  # the book still shows its own build
    assert not (tmp_path / results.FAILED).exists() and not (tmp_path / "_build" / ".work-b2" / "09_a").exists()


class Killed(BaseException):
    """Stands for the build being killed at that point."""


@pytest.mark.parametrize("step", range(10))
def test_a_kill_at_any_step_of_a_commit_leaves_the_old_set_or_the_new_one(tmp_path, monkeypatch, step):
    commit(tmp_path, "01_a", "b0", seed=0)
    calls = []

    def dies(real):
        def call(*args, **kwargs):
            calls.append(real.__name__)
            if len(calls) > step:
                raise Killed
            return real(*args, **kwargs)
        return call

    for name in ("replace", "symlink", "readlink"):
        monkeypatch.setattr(results.os, name, dies(getattr(os, name)))
    monkeypatch.setattr(results.shutil, "rmtree", dies(results.shutil.rmtree))
    with pytest.raises(Killed):
        commit(tmp_path, "01_a", "b3", seed=3)
    monkeypatch.undo()
    assert what_readers_see(tmp_path, "01_a") in ({"0"}, {"3"})
    results.remove_stale(tmp_path, live_builds=set())
    sets = [p.name for p in (tmp_path / results.PAGES).iterdir() if not p.is_symlink()]
    assert sets == [os.readlink(tmp_path / results.PAGES / "01_a")]


def test_a_failed_rename_keeps_the_previous_set_whole(tmp_path, monkeypatch):
    commit(tmp_path, "01_a", "b0", seed=0)

    def full(source, destination):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(destination))

    monkeypatch.setattr(results.os, "replace", full)
    with pytest.raises(OSError):
        commit(tmp_path, "01_a", "b3", seed=3)
    monkeypatch.undo()
    assert what_readers_see(tmp_path, "01_a") == {"0"}


def test_claims_and_provenance_of_different_builds_are_refused_naming_the_pages(tmp_path):
    commit(tmp_path, "01_a", "b0", seed=0)
    commit(tmp_path, "02_b", "b0", seed=0)
    commit(tmp_path, "03_c", "b1", seed=1)
    folder = tmp_path / results.RESULTS
    assert len(load_claims(folder)) == 3
    claims_of_c = (folder / "03_c.json").read_bytes()
    for page in ("01_a", "02_b"):  # claims copied by hand from another build
        (folder / f"{page}.json").unlink()
        (folder / f"{page}.json").write_bytes(claims_of_c)
    with pytest.raises(ResultsError) as refused:
        load_claims(folder)
    message = str(refused.value)
    assert "01_a (claims of build b1, provenance of build b0)" in message and "02_b" in message
    assert "03_c" not in message


DAMAGE = {
    "empty object": ("claims", b"{}", "should be a list, or an object with build, page and claims; found an object"),
    "random bytes": ("claims", bytes(range(256)), "binary content"),
    "truncated": ("claims", b'[{"kind": "finding"', "invalid JSON"),
    "wrong value type": ("claims", json.dumps([CLAIM | {"outcome": True}]).encode(),
                         "claim 1 ('k'): field 'outcome' should be a string, found True"),
    "unknown outcome": ("claims", json.dumps([CLAIM | {"outcome": "yes"}]).encode(),
                        "claim 1 ('k'): outcome 'yes' is none of holds, fails, inconclusive"),
    "number as text": ("claims", json.dumps([CLAIM | {"kind": "number", "ours": "0.3"}]).encode(),
                       "field 'ours' should be a number, found '0.3'"),
    "unknown field": ("claims", json.dumps([CLAIM | {"verdict": "holds"}]).encode(), "unknown field(s) verdict"),
    "missing field": ("claims", json.dumps([{"kind": "finding", "key": "k"}]).encode(),
                      "missing field(s) dataset, label, source"),
    "list for provenance": ("provenance", b"[]", "the provenance should be an object, found a list"),
    "provenance seed as text": ("provenance", json.dumps({"dataset": "d", "seed": "0", "commit": "c", "date": "x"}).encode(),
                                "provenance field 'seed' should be a number, found '0'"),
    "provenance incomplete": ("provenance", b'{"dataset": "d"}', "lacks seed, commit, date"),
    "provenance random bytes": ("provenance", b"\xff\xfe\x00garbage", "binary content"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_each_kind_of_damage_is_one_message_naming_the_file(tmp_path, damage):
    kind, content, expected = DAMAGE[damage]
    commit(tmp_path, "01_a", "b0", seed=0)
    path = tmp_path / (results.RESULTS / "01_a.json" if kind == "claims" else results.PROVENANCE / "01_a.json")
    path.unlink()  # damage the file readers see, not the committed set
    path.write_bytes(content)
    with pytest.raises(ResultsError) as refused:
        load_claims(tmp_path / results.RESULTS)
    assert str(refused.value).startswith(f"{path}: ") and expected in str(refused.value)
    assert "\n" not in str(refused.value)


# ------------------------------------------------------------------------------------------------
# whole builds of a tiny book

FINDING = ("from recbias.bookkit.claims import Finding, is_true, register\n"
           "register([Finding('k', 'it holds', 's', '', is_true('ok', 'it is so'), 'seed {seed}')],\n"
           "         {'ok': True, 'seed': seed}, dataset=dataset)\n")


def build(root: Path, *args: str, patch: str = "", timeout: float = 300) -> subprocess.CompletedProcess:
    """The build tool on ``root``; ``patch`` is Python run first in the build tool's process (a simulated fault)."""
    arguments = ["--root", str(root), "--no-html", "--dataset", "synthetic-small", *args]
    code = f"import sys\nfrom recbias.bookkit import pipeline, results\n{patch}\nsys.exit(pipeline.main({arguments!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=root)


def assert_one_line_failure(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Build failed: "), result.stderr
    assert all(fragment in lines[0] for fragment in fragments), lines[0]


#: the book the tests below break after a good build: two pages registering a claim each (its evidence names the
#: seed) and the scorecard; the first page records damaged claims when built with seed 3 and fails with 9 folds
GOOD_BOOK = {"01_claims": FINDING + "if seed == 3:\n    import json, os\n"
                                    "    path = os.path.join(os.environ['RECBIAS_RESULTS_DIR'], '01_claims.json')\n"
                                    "    json.dump([{'kind': 'finding', 'key': 7}], open(path, 'w'))\n"
                                    "assert n_folds < 9, 'too many folds'\n",
             "02_other": FINDING.replace("'k'", "'k2'")}


@pytest.fixture
def good_build(tmp_path: Path, once) -> Path:
    """``tmp_path`` holding a copy of a good build of :data:`GOOD_BOOK` (seed 0), built once per run."""

    def make(root: Path) -> None:
        write_book(root, GOOD_BOOK)
        (root / "book" / "scorecard.py").write_text((Path(__file__).resolve().parents[1] / "book" / "scorecard.py")
                                                    .read_text())
        (root / "_toc.yml").write_text((root / "_toc.yml").read_text() + "  - file: book/scorecard\n")
        result = build(root)
        assert result.returncode == 0, result.stderr

    shutil.copytree(once("good-build", make), tmp_path, symlinks=True, dirs_exist_ok=True)
    return tmp_path


def what_the_book_shows(root: Path, page: str) -> tuple[str, list[str], int]:
    """The page's notebook text, its claims' evidence and its provenance's seed."""
    notebook = (root / "book" / f"{page}.ipynb").read_text()
    evidence = [c.evidence for c in load_claims(root / results.RESULTS)]
    return notebook, evidence, int(load_provenance(root / results.RESULTS)["seed"][0])


@pytest.mark.slow
def test_a_full_disk_while_committing_fails_in_one_line_and_keeps_the_last_good_page(good_build):
    before = what_the_book_shows(good_build, "01_claims")
    full = ("import errno, os\nreal = results.write_json\n"
            "def full(path, value):\n"
            "    if path.name != 'claims.json':\n"
            "        return real(path, value)\n"
            "    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))\n"
            "results.write_json = full\n")
    result = build(good_build, "--seed", "4", "--chapters", "1", patch=full)
    assert_one_line_failure(result, "page 01_claims", "cannot write", "claims.json", "No space left on device")
    assert what_the_book_shows(good_build, "01_claims") == before
    assert not list((good_build / "_build").glob(".work-*"))


@pytest.mark.slow
def test_a_failed_rebuild_keeps_the_last_good_page_and_its_claims(good_build):
    page = good_build / "book" / "01_claims.ipynb"
    claims = good_build / "_build" / "results" / "01_claims.json"
    before = (page.read_bytes(), claims.read_bytes())
    failed = run(good_build, "-p", "n_folds", "9", "--chapters", "1")
    assert failed.returncode == 1 and "too many folds" in failed.stderr
    assert (page.read_bytes(), claims.read_bytes()) == before
    assert not list((good_build / "_build").glob(".work-*"))
    record = json.loads((good_build / "_build" / "results" / "provenance" / "01_claims.json").read_text())
    assert record["dataset"] == "synthetic-small" and record["parameters"]["n_folds"] == 5
    executed = json.loads(page.read_text())
    assert "How this page was built" in "".join(executed["cells"][0]["source"] + executed["cells"][1]["source"])


@pytest.mark.slow
def test_a_killed_worker_fails_its_page_in_one_line_without_tracebacks(tmp_path):
    kill = "import os, signal\nopen('kernel.pid', 'w').write(str(os.getpid()))\nos.kill(os.getppid(), signal.SIGKILL)"
    write_book(tmp_path, {"01_killed": kill})
    result = build(tmp_path)
    assert_one_line_failure(result, "page 01_killed", "worker process was killed by SIGKILL",
                            "_build/logs/01_killed.log")
    assert "Traceback" not in result.stderr and "resource_tracker" not in result.stderr
    assert gone(int((tmp_path / "kernel.pid").read_text()), within=10)
    assert not (tmp_path / "book" / "01_killed.ipynb").exists()
    kept = tmp_path / "_build" / "failed" / "01_killed.ipynb"  # what papermill saved before the kill, if anything
    assert ("executed notebook" in result.stderr) == kept.exists()
    assert not kept.exists() or json.loads(kept.read_text())["cells"]


@pytest.mark.slow
def test_a_killed_kernel_names_the_cell_it_was_running(tmp_path):
    body = "x = 1\n\n# %%\n# the cell that kills its kernel\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)"
    write_book(tmp_path, {"01_dies": body})
    result = build(tmp_path)
    assert_one_line_failure(result, "page 01_dies failed in cell 3 of book/01_dies.py (`# the cell that kills its "
                            "kernel`)", "DeadKernelError")


@pytest.mark.slow
def test_a_failed_page_keeps_its_notebook_and_traceback_and_names_its_cell(tmp_path):
    body = "x = 1\n\n# %%\n# the cell that fails\nvalues = [1, 2]\nvalues[x + 5]"
    write_book(tmp_path, {"01_broken": body})
    result = build(tmp_path, "--seed", "4")
    assert_one_line_failure(result, "page 01_broken failed in cell 3 of book/01_broken.py (`# the cell that fails`)",
                            "IndexError: list index out of range", "_build/failed/01_broken.ipynb",
                            "_build/logs/01_broken.log")
    log = (tmp_path / "_build" / "logs" / "01_broken.log").read_text()
    assert "values[x + 5]" in log and "IndexError" in log  # the full traceback
    executed = json.loads((tmp_path / "_build" / "failed" / "01_broken.ipynb").read_text())
    assert any(o.get("ename") == "IndexError" for c in executed["cells"] for o in c.get("outputs", []))


def gone(pid: int, within: float) -> bool:
    """Whether process ``pid`` ends (or is left a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def start_slow_build(root: Path) -> tuple[subprocess.Popen, int]:
    """A build whose page sleeps; returns it and its kernel's pid once the kernel runs the page."""
    pid_file, partial = root / "kernel.pid", root / "kernel.pid.partial"
    write_book(root, {"01_slow": "import os, pathlib, time\n"
                                 f"pathlib.Path({str(partial)!r}).write_text(str(os.getpid()))\n"
                                 f"os.replace({str(partial)!r}, {str(pid_file)!r})  # whole or not at all\n"
                                 "time.sleep(300)"})
    command = [sys.executable, "-m", "recbias.bookkit", "--root", str(root), "--no-html", "--dataset", "synthetic-small"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pid_file.exists(), "the kernel never started"
    time.sleep(0.2)
    return process, int(pid_file.read_text())


@pytest.mark.slow
@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_build_ends_its_kernel_and_exits_with_the_signals_code(tmp_path, stop, code):
    process, kernel = start_slow_build(tmp_path)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code
    assert stderr.strip().startswith("Build stopped") and "Traceback" not in stderr
    assert gone(kernel, within=10)
    assert not list((tmp_path / "_build").glob(".work-*"))


@pytest.mark.slow
def test_a_group_kill_takes_the_kernel_along_and_the_next_build_cleans_up(tmp_path, monkeypatch):
    monkeypatch.delenv("RECBIAS_CACHE_DIR")  # the builds use the book's own cache, data/cache
    process, kernel = start_slow_build(tmp_path)
    fits = tmp_path / "data" / "cache" / "fits"
    fits.mkdir(parents=True)
    left_by_killed_writer = fits / f".{'a' * 64}.{process.pid}.0f0f0f0f.tmp"
    left_by_killed_writer.write_bytes(b"partial")
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert gone(kernel, within=10), "the kernel outlived its build"
    assert list((tmp_path / "_build").glob(".work-*")), "a killed build cannot clean up after itself"
    (tmp_path / "book" / "01_slow.py").write_text((tmp_path / "book" / "01_slow.py").read_text()
                                                 .replace("time.sleep(300)", "pass"))
    assert build(tmp_path).returncode == 0
    assert not list((tmp_path / "_build").glob(".work-*"))
    assert not left_by_killed_writer.exists()


@pytest.mark.slow
def test_damaged_claims_fail_the_scorecard_instead_of_dropping_a_chapter(good_build):
    claims = good_build / results.RESULTS / "01_claims.json"
    claims.resolve().write_text("{}")  # the committed set's own file
    result = build(good_build, "--chapters", "2")
    assert_one_line_failure(result, "scorecard: ", f"{claims}: the claims should be a list")


@pytest.mark.slow
def test_deleted_results_links_are_restored_so_no_chapter_drops_off_the_scorecard(good_build):
    shutil.rmtree(good_build / results.RESULTS)
    assert build(good_build, "--chapters", "2").returncode == 0
    assert sorted(c.key for c in load_claims(good_build / results.RESULTS)) == ["k", "k2"]
    shown = json.dumps([c.get("outputs", []) for c in json.loads((good_build / "book" / "scorecard.ipynb")
                                                                 .read_text())["cells"]])
    assert "All 2 built pages come from one setting" in shown and "Pages not built" not in shown


@pytest.mark.slow
def test_cache_events_are_reported_once_at_the_terminal_never_on_the_page_and_files_follow_the_umask(tmp_path):
    event = "from recbias import cache\ncache.report('refitting X: its code changed since its fits were cached')\n"
    write_book(tmp_path, {"01_one": event * 2, "02_two": event})
    result = build(tmp_path, patch="import os\nos.umask(0o027)")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "warning: fit cache: refitting X: its code changed since its fits were cached"]
    for page in ("01_one", "02_two"):
        cells = json.loads((tmp_path / "book" / f"{page}.ipynb").read_text())["cells"]
        outputs = json.dumps([cell.get("outputs", []) for cell in cells])
        assert "refitting" not in outputs and "cache.report" in json.dumps(cells)
    current = (tmp_path / results.PAGES / "01_one").resolve()
    modes = {path.name: path.stat().st_mode & 0o777 for path in current.iterdir()}
    assert modes == {name: 0o640 for name in ("01_one.ipynb", "01_one.log", "claims.json", "provenance.json")}


@pytest.mark.slow
def test_a_page_that_writes_damaged_claims_fails_and_keeps_its_last_good_set(good_build):
    before = what_the_book_shows(good_build, "01_claims")
    result = build(good_build, "--seed", "3", "--chapters", "1")
    assert_one_line_failure(result, "page 01_claims recorded damaged claims: ", "claim 1: missing field(s)",
                            "_build/failed/01_claims.ipynb")
    assert what_the_book_shows(good_build, "01_claims") == before


def test_an_unwritable_build_directory_fails_in_one_line(tmp_path):
    write_book(tmp_path, {"01_one": "pass"})
    denied = ("import errno, os, pathlib\nreal = pathlib.Path.mkdir\n"
              "def mkdir(self, *args, **kwargs):\n"
              "    if self.name.startswith('.work-'):\n"
              "        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))\n"
              "    return real(self, *args, **kwargs)\n"
              "pathlib.Path.mkdir = mkdir\n")
    result = build(tmp_path, patch=denied)
    assert_one_line_failure(result, "cannot write", str(tmp_path / "_build" / ".work-"), "Permission denied")
    assert "Traceback" not in result.stderr

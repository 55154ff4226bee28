"""The build's last steps under faults: the HTML site swapped in whole, workers and kernels that die with the
build, kernels that never collide, executed notebooks that name no local path (two builds of a chapter give the
same notebook: test_book_html)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from recbias.bookkit import pipeline, worker
from test_book_faults import build, gone, start_slow_build
from test_book_pipeline import write_book


def snapshot(site: Path) -> dict[str, str]:
    """Every file under ``site`` with the digest of its bytes."""
    return {str(path.relative_to(site)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site.rglob("*")) if path.is_file()}


def fake_render(script: str) -> str:
    """A patch of the build tool making the render run ``script`` (Python, given the output directory as
    ``out``) instead of jupyter-book."""
    return ("import sys\n"
            "def command(root, output):\n"
            f"    return [sys.executable, '-c', 'import sys, pathlib; out = pathlib.Path(sys.argv[1]); ' + {script!r},"
            " str(output)]\n"
            "pipeline.render_command = command\n")


WRITES_A_PARTIAL_SITE = ("site = out / '_build' / 'html'; site.mkdir(parents=True); "
                         "(site / 'index.html').write_text('partial'); ")


@pytest.fixture(scope="module")
def rendered_book(tmp_path_factory) -> Path:
    """A tiny book, executed and rendered once by the real jupyter-book."""
    root = tmp_path_factory.mktemp("book")
    write_book(root, {"01_page": "print('hello')\n\n# %% [markdown]\n# # A page"})
    (root / "_config.yml").write_text("title: tiny\nexecute:\n  execute_notebooks: 'off'\n")
    assert build(root).returncode == 0
    pipeline.render(root)
    return root


@pytest.mark.slow
def test_the_render_swaps_a_whole_site_in(rendered_book):
    site = rendered_book / "_build" / "html"
    assert (site / "index.html").exists() and (site / "book" / "01_page.html").exists()
    assert not list((rendered_book / "_build").glob(f"{pipeline.RENDER_PREFIX}*"))
    assert (rendered_book / "_build" / "logs" / pipeline.RENDER_LOG).exists()
    local = [str(path.relative_to(site)) for path in site.rglob("*")
             if path.is_file() and str(rendered_book).encode() in path.read_bytes()]
    assert local == [], f"files of the site that name the build's directory: {local}"


@pytest.mark.slow
def test_a_failed_render_is_one_line_naming_its_log_and_keeps_the_site_byte_identical(rendered_book, monkeypatch):
    before = snapshot(rendered_book / "_build" / "html")
    script = WRITES_A_PARTIAL_SITE + "print('\\x1b[31mTraceback ...\\x1b[0m\\n' * 110); sys.exit(1)"
    monkeypatch.setattr(pipeline, "render_command", lambda root, output: [
        sys.executable, "-c", "import sys, pathlib; out = pathlib.Path(sys.argv[1]); " + script, str(output)])
    with pytest.raises(pipeline.BuildError) as failed:
        pipeline.render(rendered_book)
    message = str(failed.value)
    assert "\n" not in message and "previous site is kept" in message and "render.log" in message
    assert "Traceback" in (rendered_book / "_build" / "logs" / pipeline.RENDER_LOG).read_text()
    assert snapshot(rendered_book / "_build" / "html") == before
    assert not list((rendered_book / "_build").glob(f"{pipeline.RENDER_PREFIX}*"))


@pytest.mark.slow
def test_sigint_during_the_render_keeps_the_previous_site_byte_identical(rendered_book):
    site = rendered_book / "_build" / "html"
    before = snapshot(site)
    slow = WRITES_A_PARTIAL_SITE + "import time; time.sleep(120)"
    code = ("import sys\nfrom recbias.bookkit import pipeline\n" + fake_render(slow)
            + f"sys.exit(pipeline.main(['--root', {str(rendered_book)!r}, '--dataset', 'synthetic-small']))")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=rendered_book)
    scratch = rendered_book / "_build" / f"{pipeline.RENDER_PREFIX}{process.pid}" / "_build" / "html" / "index.html"
    deadline = time.monotonic() + 240
    while not scratch.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    assert scratch.exists(), "the render never started"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and stderr.strip().startswith("Build stopped by SIGINT")
    assert snapshot(site) == before
    assert not list((rendered_book / "_build").glob(f"{pipeline.RENDER_PREFIX}*"))


def test_the_swap_exchanges_two_directories_in_one_step(tmp_path):
    new, current = tmp_path / "new", tmp_path / "current"
    new.mkdir()
    (new / "index.html").write_text("new")
    pipeline.swap(new, current)
    assert (current / "index.html").read_text() == "new" and not new.exists()
    new.mkdir()
    (new / "index.html").write_text("newer")
    pipeline.swap(new, current)
    assert (current / "index.html").read_text() == "newer" and (new / "index.html").read_text() == "new"


def test_the_render_reads_the_package_of_the_book_it_renders(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    assert pipeline.render_environment(tmp_path)["PYTHONPATH"] == "/elsewhere"  # a book without its package
    (tmp_path / "src" / "recbias").mkdir(parents=True)
    assert pipeline.render_environment(tmp_path)["PYTHONPATH"] == os.pathsep.join([str(tmp_path / "src"), "/elsewhere"])
    monkeypatch.delenv("PYTHONPATH")
    assert pipeline.render_environment(tmp_path)["PYTHONPATH"] == str(tmp_path / "src")


@pytest.mark.slow
def test_after_sigkill_of_the_build_no_worker_or_kernel_of_it_is_alive_5_s_later(tmp_path):
    process, kernel = start_slow_build(tmp_path)
    worker_pid = psutil.Process(kernel).ppid()
    assert psutil.Process(worker_pid).ppid() == process.pid
    os.kill(process.pid, signal.SIGKILL)  # the build tool alone, not its process group
    process.communicate(timeout=30)
    assert gone(worker_pid, within=5), "the worker outlived its build"
    assert gone(kernel, within=5), "the kernel outlived its build"


@pytest.mark.slow
def test_sigint_then_sigterm_is_reported_as_the_first_signal(tmp_path):
    process, kernel = start_slow_build(tmp_path)
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "SIGINT" in stderr and "SIGTERM" not in stderr
    assert gone(kernel, within=10)


STARTS_TWO_KERNELS = """
import asyncio
from recbias.bookkit.worker import PageKernelManager

async def one():
    manager = PageKernelManager(kernel_name="python3")
    await manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=240)
        reply = await client.kernel_info(reply=True, timeout=240)
        assert reply["content"]["status"] == "ok"
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)

async def main():
    await asyncio.gather(one(), one())
    print("replied")

asyncio.run(main())
"""


@pytest.mark.slow
def test_sixteen_kernels_started_at_once_by_eight_workers_all_reply():
    workers = [subprocess.Popen([sys.executable, "-c", STARTS_TWO_KERNELS], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(8)]
    outputs = [w.communicate(timeout=600) for w in workers]
    assert [w.returncode for w in workers] == [0] * 8, [err[-2000:] for _, err in outputs]
    assert all(out.strip() == "replied" for out, _ in outputs)


def test_an_executed_notebook_keeps_no_time_stamp_path_or_random_id():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('dataset = "csv:/home/someone/private/ratings.csv"\nseed = 0\n'
                                  'systems = "mf, /home/someone/mine.py:Rec, /home/someone/scores"\n'
                                  'summary = "/tmp/x/audit/summary.json"\nsource = "https://example.org/a/b.csv"'),
        nbformat.v4.new_markdown_cell("box"), nbformat.v4.new_code_cell("x = 1")])
    notebook.cells[0].metadata = {"tags": [worker.INJECTED_TAG], "papermill": {"start_time": "t", "duration": 1.0},
                                  "execution": {"iopub.status.busy": "t"}}
    notebook.cells[1]["id"] = "provenance"
    notebook.metadata["papermill"] = {"input_path": "/tmp/x/in.ipynb", "output_path": "/tmp/x/out.ipynb",
                                      "start_time": "t", "end_time": "t", "duration": 3.0,
                                      "parameters": {"dataset": "csv:/home/someone/private/ratings.csv",
                                                     "summary": "/tmp/x/audit/summary.json", "seed": 0}}
    worker.reproducible(notebook)
    text = nbformat.writes(notebook)
    assert "/home/someone" not in text and "/tmp/x" not in text and '"t"' not in text
    assert [cell["id"] for cell in notebook.cells] == ["cell-0", "provenance", "cell-2"]
    assert 'dataset = "csv:ratings.csv"' in notebook.cells[0].source
    assert 'systems = "mf, mine.py:Rec, scores"\nsummary = "summary.json"' in notebook.cells[0].source
    assert 'source = "https://example.org/a/b.csv"' in notebook.cells[0].source  # an address is not a local path
    assert notebook.metadata["papermill"]["parameters"] == {"dataset": "csv:ratings.csv", "summary": "summary.json",
                                                            "seed": 0}


@pytest.mark.slow
def test_the_provenance_covers_every_dataset_a_page_reads(tmp_path):
    ratings = tmp_path / "mine.csv"
    ratings.write_text("user,item\n1,2\n2,2\n")
    write_book(tmp_path, {"01_two": f"from recbias import datasets\nsecond = datasets.load('csv:{ratings}')"})
    assert build(tmp_path).returncode == 0
    record = json.loads((tmp_path / "_build" / "results" / "provenance" / "01_two.json").read_text())
    digest = hashlib.sha256(ratings.read_bytes()).hexdigest()[:12]
    assert record["data"] == {"synthetic-small": "generated, seed 0", "mine.csv": digest}
    box = next(c for c in json.loads((tmp_path / "book" / "01_two.ipynb").read_text())["cells"]
               if c["id"] == "provenance")
    assert f"mine.csv `{digest}`" in "".join(box["source"])


@pytest.mark.slow
def test_two_renders_started_together_leave_the_same_whole_site(rendered_book):
    site = rendered_book / "_build" / "html"
    code = f"from pathlib import Path\nfrom recbias.bookkit import pipeline\npipeline.render(Path({str(rendered_book)!r}))"

    def renders(count: int) -> list[int]:
        started = [subprocess.Popen([sys.executable, "-c", code], cwd=rendered_book,
                                    env=os.environ | {"SOURCE_DATE_EPOCH": "1700000000"}) for _ in range(count)]
        return [render.wait(timeout=600) for render in started]

    assert renders(2) == [0, 0]
    together = snapshot(site)
    assert renders(1) == [0]
    assert snapshot(site) == together  # each render had its own scratch directory; the swap put one whole site
    assert not list((rendered_book / "_build").glob(f"{pipeline.RENDER_PREFIX}*"))

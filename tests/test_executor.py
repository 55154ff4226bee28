"""Experiments on a Dask cluster give the numbers of the in-process run."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from recbias import datasets
from recbias import executor as executors
from recbias.evaluate.experiment import run_experiment

SYSTEMS = {"Popularity": "popularity", "MF": "mf", "user-kNN": "user-knn", "Random": "random"}
DESIGNS = ["AI-AN", "1R TI-NN(49)"]


def test_without_a_scheduler_tasks_run_in_process(monkeypatch) -> None:
    monkeypatch.delenv(executors.SCHEDULER_VARIABLE, raising=False)
    with executors.executor() as runner:
        assert isinstance(runner, executors.InProcess)
        assert runner.gather([runner.submit(divmod, 7, 2)]) == [(3, 1)]
    monkeypatch.setenv(executors.SCHEDULER_VARIABLE, "")
    with executors.executor() as runner:
        assert isinstance(runner, executors.InProcess)


def test_a_bad_scheduler_is_named() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(TypeError, match="address string or a distributed.Client"):
        with executors.executor(8786):
            pass


@pytest.mark.slow
def test_two_worker_cluster_equals_the_in_process_run(monkeypatch) -> None:
    distributed = pytest.importorskip("distributed")
    monkeypatch.delenv(executors.SCHEDULER_VARIABLE, raising=False)
    ratings = datasets.load("synthetic-small", seed=2)
    options = dict(folds=1, metrics=["P@10", "MAP", "bpref"], seed=3, cache=False, block_entries=10_000,
                   score_block=3000)
    local = run_experiment(ratings, DESIGNS, SYSTEMS, **options)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit="1GiB") as cluster, distributed.Client(cluster) as client:
        remote = run_experiment(ratings, DESIGNS, SYSTEMS, scheduler=client, **options)
        # the address form, as the book's --scheduler option passes it through the environment
        monkeypatch.setenv(executors.SCHEDULER_VARIABLE, cluster.scheduler_address)
        by_address = run_experiment(ratings, DESIGNS, SYSTEMS, **options)
        workers = client.run(lambda: 1)
    assert len(workers) == 2
    assert local.blocks == remote.blocks >= 3
    pd.testing.assert_frame_equal(remote.runs, local.runs, check_exact=True)
    pd.testing.assert_frame_equal(remote.reports, local.reports, check_exact=True)
    pd.testing.assert_frame_equal(by_address.runs, local.runs, check_exact=True)


@pytest.mark.slow
def test_the_books_scheduler_option_reaches_every_page(tmp_path, monkeypatch) -> None:
    from test_book_pipeline import run, write_book

    monkeypatch.delenv(executors.SCHEDULER_VARIABLE, raising=False)
    write_book(tmp_path, {"01_where": "from recbias.executor import scheduler_from_environment\n"
                                      "print('scheduler', scheduler_from_environment())"})
    result = run(tmp_path, "--scheduler", "tcp://10.1.2.3:8786")
    assert result.returncode == 0, result.stderr
    executed = json.loads((tmp_path / "book" / "01_where.ipynb").read_text())
    printed = "".join("".join(o.get("text", "")) for c in executed["cells"] if c["cell_type"] == "code"
                      for o in c.get("outputs", []))
    assert "scheduler tcp://10.1.2.3:8786\n" in printed

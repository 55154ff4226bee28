"""A fit made while ``RECBIAS_FIT_LOG`` names a file adds a line to it, which the book benchmark sums per system."""

from __future__ import annotations

import json

from recbias import datasets
from recbias.recommenders import ALS, Popularity
from recbias.recommenders.base import FIT_LOG_VARIABLE
from test_benchmarks import benchmark


def test_each_fit_logs_its_system_ratings_and_processor_seconds_and_the_benchmark_sums_them(tmp_path, monkeypatch):
    train = datasets.load("synthetic-small", seed=0)
    log = tmp_path / "fits.jsonl"
    monkeypatch.setenv(FIT_LOG_VARIABLE, str(log))
    for recommender in (Popularity(), ALS(iterations=2), ALS(iterations=3)):
        recommender.fit(train)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["system"], line["class"], line["ratings"]) for line in lines] == [
        ("Popularity", "Popularity", train.n_ratings), ("MF", "ALS", train.n_ratings), ("MF", "ALS", train.n_ratings)]
    assert all(line["cpu"] >= 0 for line in lines) and lines[1]["cpu"] > 0
    totals = benchmark("bench_book").fits_by_system(log.read_text())
    assert list(totals) == ["MF", "Popularity"] and totals["MF"][0] == 2
    assert totals["MF"][1] == lines[1]["cpu"] + lines[2]["cpu"]


def test_a_log_that_cannot_be_written_loses_the_line_not_the_fit(tmp_path, monkeypatch):
    monkeypatch.setenv(FIT_LOG_VARIABLE, str(tmp_path / "missing" / "fits.jsonl"))
    assert Popularity().fit(datasets.load("synthetic-small", seed=0)).n_users is not None

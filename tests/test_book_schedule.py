"""The build starts the pages its last builds found longest first, and records the times of each build."""

import json
import re

import pytest

from recbias.bookkit import schedule


def test_unknown_pages_first_then_longest_first_equal_times_in_book_order():
    seconds = {"01_a": 3.0, "02_b": 7.0, "04_d": 3.0, "05_e": 12.5}
    order = schedule.order_by_seconds(["01_a", "02_b", "03_c", "04_d", "05_e", "06_f"], seconds)
    assert order == ["03_c", "06_f", "05_e", "02_b", "01_a", "04_d"]
    assert schedule.order_by_seconds(["02_b", "01_a"], {}) == ["02_b", "01_a"]


def test_the_record_keeps_each_datasets_times_and_falls_back_on_the_dataset_built_last(tmp_path):
    assert schedule.recorded_seconds(tmp_path, "ml-100k") == {}
    schedule.record_seconds(tmp_path, "synthetic", {"01_a": 4.04, "02_b": 9.0})
    schedule.record_seconds(tmp_path, "synthetic", {"02_b": 11.0})  # a build of one page keeps the others
    assert schedule.recorded_seconds(tmp_path, "synthetic") == {"01_a": 4.0, "02_b": 11.0}
    assert schedule.recorded_seconds(tmp_path, "ml-100k") == {"01_a": 4.0, "02_b": 11.0}
    schedule.record_seconds(tmp_path, "coat", {"01_a": 2.0})
    assert schedule.recorded_seconds(tmp_path, "ml-100k") == {"01_a": 2.0}
    assert schedule.recorded_seconds(tmp_path, "synthetic") == {"01_a": 4.0, "02_b": 11.0}
    assert [p.name for p in tmp_path.iterdir()] == [schedule.RECORD_FILE], "no temporary file is left behind"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"datasets": {"synthetic": {"01_a": "long"}}}',
                                  '{"datasets": ["synthetic"]}', '{"datasets": {}, "latest": ["synthetic"]}',
                                  '{"datasets": {"synthetic": {"01_a": true}}}',
                                  '{"datasets": {"synthetic": {"01_a": -3}}}'])
def test_an_unreadable_record_is_no_record_and_is_replaced(tmp_path, text):
    (tmp_path / schedule.RECORD_FILE).write_text(text)
    assert schedule.recorded_seconds(tmp_path, "synthetic") == {}
    schedule.record_seconds(tmp_path, "synthetic", {"01_a": 1.0})
    assert schedule.recorded_seconds(tmp_path, "synthetic") == {"01_a": 1.0}


@pytest.mark.slow
def test_a_build_starts_the_longest_recorded_page_first_and_records_its_own_times(tmp_path):
    from test_book_pipeline import run, write_book

    write_book(tmp_path, {"01_short": "pass", "02_long": "pass", "03_new": "pass"})
    schedule.record_seconds(tmp_path / "_build", "synthetic-small", {"01_short": 1.0, "02_long": 50.0})
    result = run(tmp_path, "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert re.findall(r"executed (\S+)", result.stdout) == ["03_new", "02_long", "01_short"]
    times = json.loads((tmp_path / "_build" / schedule.RECORD_FILE).read_text())["datasets"]["synthetic-small"]
    assert set(times) == {"01_short", "02_long", "03_new"} and times["02_long"] < 50.0, "this build's times replace"

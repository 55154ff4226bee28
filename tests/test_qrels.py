"""IR judgments on hand-made files (whitespace quirks, grade readings, malformed lines) and without files."""

from __future__ import annotations

import pytest
from test_datasets_support import isolate, pin

from recbias import datasets
from recbias.datasets import qrels
from recbias.datasets.errors import ChecksumError, MalformedLineError, OfflineError

# the quirks of the real cranqrel: trailing spaces except on -1 lines, one
# double space, CRLF in some copies, no final newline
CRANQREL = b"1 184 2 \r\n1 486 -1\r\n1 12 4 \r\n2 12  1 \r\n2 486 -1"
TREC = b"401 0 FBIS3-10009 0\n401 0 LA010189-0001 1\n402 0 FBIS3-10009 1\n"


def install(monkeypatch, tmp_path, name: str, folder: str, file: str, content: bytes):
    data, _ = isolate(monkeypatch, tmp_path)
    (data / folder).mkdir()
    (data / folder / file).write_bytes(content)
    pin(monkeypatch, name, None, {file: content})
    return data / folder / file


def test_cranfield_quirks_and_readings(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, "cranfield", "cranfield", "cranqrel", CRANQREL)
    judgments = datasets.load_qrels("cranfield")
    assert judgments["query"].tolist() == [1, 1, 1, 2, 2]
    assert judgments["doc"].tolist() == [184, 486, 12, 12, 486]
    assert judgments["grade"].tolist() == [2, -1, 4, 1, -1]
    assert judgments["relevant"].tolist() == [True, False, True, True, False]
    # Cleverdon: 1 = complete answer is the best grade
    assert judgments["gain"].tolist() == [3, 0, 1, 4, 0]
    assert datasets.load_qrels("cranfield", reading="ir_datasets")["gain"].tolist() == [2, 0, 4, 1, 0]


def test_cranfield_grade_outside_the_codes(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, "cranfield", "cranfield", "cranqrel", CRANQREL.replace(b"1 12 4", b"1 12 5"))
    with pytest.raises(MalformedLineError) as caught:
        datasets.load_qrels("cranfield")
    assert caught.value.line == 3 and "grade must be one of -1, 1, 2, 3, 4" in str(caught.value)
    assert caught.value.file.endswith("cranfield/cranqrel")


def test_cranfield_missing_column(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, "cranfield", "cranfield", "cranqrel", CRANQREL.replace(b"2 12  1", b"2 12"))
    with pytest.raises(MalformedLineError, match="line 4: expected 3 fields"):
        datasets.load_qrels("cranfield")


def test_cranfield_changed_file_is_rejected(monkeypatch, tmp_path):
    path = install(monkeypatch, tmp_path, "cranfield", "cranfield", "cranqrel", CRANQREL)
    path.write_bytes(CRANQREL + b"\n")
    with pytest.raises(ChecksumError, match="cranqrel"):
        datasets.load_qrels("cranfield")


def test_trec(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, "trec8-adhoc", "trec8-adhoc-qrels", "qrels.adhoc.401-450.txt", TREC)
    judgments = datasets.load_qrels("trec8-adhoc")
    assert judgments["doc"].tolist() == ["FBIS3-10009", "LA010189-0001", "FBIS3-10009"]
    assert judgments["relevant"].tolist() == [False, True, True]
    assert judgments["gain"].tolist() == [0, 1, 1]
    assert datasets.available("trec8-adhoc")


def test_trec_malformed_line(monkeypatch, tmp_path):
    content = TREC.replace(b"402 0 FBIS3-10009 1", b"402 FBIS3-10009 1")
    install(monkeypatch, tmp_path, "trec8-adhoc", "trec8-adhoc-qrels", "qrels.adhoc.401-450.txt", content)
    with pytest.raises(MalformedLineError, match=r"line 3: expected 4 fields .*'402 FBIS3-10009 1'"):
        datasets.load_qrels("trec8-adhoc")


def test_without_a_local_copy_the_judgments_are_not_available_and_the_error_says_where_files_go(monkeypatch, tmp_path):
    data, _ = isolate(monkeypatch, tmp_path)
    for name, folder, file in (("cranfield", "cranfield", "cranqrel"),
                               ("trec8-adhoc", "trec8-adhoc-qrels", "qrels.adhoc.401-450.txt")):
        assert not datasets.available(name)
        with pytest.raises(OfflineError) as caught:
            datasets.load_qrels(name)
        assert f"{data / folder}/" in str(caught.value) and file in str(caught.value)


def test_the_reader_knows_two_readings_of_the_cranfield_grades_and_refuses_others(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, "cranfield", "cranfield", "cranqrel", CRANQREL)
    gains = {reading: qrels.read_cranfield(reading)["gain"].tolist() for reading in qrels.CRANFIELD_READINGS}
    assert gains == {"cleverdon": [3, 0, 1, 4, 0], "ir_datasets": [2, 0, 4, 1, 0]}
    with pytest.raises(ValueError, match="unknown Cranfield grade reading 'trec'; use one of cleverdon, ir_datasets"):
        qrels.read_cranfield("trec")

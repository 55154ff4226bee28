"""User files that are not plain text in short lines are refused early, in one line, with bounded memory."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from recbias import datasets
from recbias.datasets.errors import DatasetError
from recbias.datasets.textcheck import MAX_LINE_BYTES, check_text_file


def refusal(path: Path) -> str:
    with pytest.raises(DatasetError) as refused:
        datasets.load(f"csv:{path}")
    message = str(refused.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_plain_file_passes(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text("user,item,rating\nü,1,5\n2,1,4")  # no final newline, a character of two bytes
    check_text_file(path, "csv:ok.csv")


def test_an_over_long_line_is_named_by_its_number(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("user,item,rating\n1,1,5\n1," + "x" * (MAX_LINE_BYTES + 5) + ",5\n")
    assert f"line 3: longer than {MAX_LINE_BYTES:,} bytes" in refusal(path)


def test_a_line_exactly_at_the_limit_passes(tmp_path):
    path = tmp_path / "edge.csv"
    path.write_bytes(b"a" * MAX_LINE_BYTES + b"\n" + b"b" * MAX_LINE_BYTES)
    check_text_file(path, "edge")
    path.write_bytes(b"a" * (MAX_LINE_BYTES + 1))
    with pytest.raises(DatasetError, match="line 1: longer than"):
        check_text_file(path, "edge")


def test_a_long_line_across_blocks_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr("recbias.datasets.textcheck.BLOCK_BYTES", 1000)
    path = tmp_path / "blocks.csv"
    path.write_bytes(b"user,item\n" * 150 + b"1," + b"y" * (MAX_LINE_BYTES + 1) + b"\n")
    with pytest.raises(DatasetError, match="line 151: longer than"):
        check_text_file(path, "blocks")


def test_utf16_is_named_by_its_byte_order_mark(tmp_path):
    path = tmp_path / "utf16.csv"
    path.write_text("user,item,rating\n1,1,5\n", encoding="utf-16")
    assert "is UTF-16 (little-endian) text (by its byte-order mark), not UTF-8" in refusal(path)


def test_latin1_is_not_utf8_and_names_its_line(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("user,item,rating\n1,café,5\n".encode("latin-1"))
    assert "line 2: not UTF-8 text" in refusal(path)


def test_nul_bytes_name_their_line_and_hint_at_utf16_without_a_mark(tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(b"user,item\n1,1\n2,2" + b"\0" * 100)
    assert "line 3: a NUL byte, so this is not a text file" in refusal(path)
    path.write_bytes("user,item\n1,1\n".encode("utf-16-le"))
    assert "UTF-16 text?" in refusal(path)


@pytest.mark.slow
def test_a_2_gb_file_cut_mid_row_and_padded_with_nul_is_refused_in_one_line_under_1_gb(tmp_path):
    path = tmp_path / "padded.csv"
    with open(path, "wb") as handle:
        rows = b"".join(b"%d,%d,4,97830%04d\n" % (u, u % 3000, u % 10_000) for u in range(200_000))
        handle.write(b"user,item,rating,timestamp\n" + rows + b"17,20")  # cut mid-row
        handle.truncate(2 * 1024**3)  # the rest reads as NUL bytes
    # the peak of the child's own memory (VmHWM): ru_maxrss would also count the parent's peak, which Linux
    # carries across fork and exec, and a test process that ran pages before may hold more than the limit
    code = ("from recbias import datasets\n"
            f"try:\n    datasets.load('csv:{path}')\nexcept Exception as error:\n    print(error)\n"
            "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    message, peak_kib = result.stdout.strip().splitlines()
    assert "line 200002: a NUL byte, so this is not a text file" in message
    assert int(peak_kib) < 1024**2, f"peak memory {int(peak_kib) / 1024:.0f} MiB"

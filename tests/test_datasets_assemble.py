"""Original ids to codes, attribute tables aligned to them, and a tiny Last.fm read from its files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_datasets_support import isolate, pin

from recbias.datasets import assemble, fetch, lastfm, registry
from recbias.datasets.errors import DatasetError, MalformedLineError


def test_codes_follow_the_sorted_distinct_ids() -> None:
    distinct, codes = assemble.encode(np.array([30, 10, 30, 20]))
    assert distinct.tolist() == [10, 20, 30] and codes.tolist() == [2, 0, 2, 1]
    distinct, codes = assemble.encode(np.array(["b", "a", "b"], dtype=object))
    assert distinct.tolist() == ["a", "b"] and codes.tolist() == [1, 0, 1]


def test_a_table_is_aligned_to_the_codes_and_checked() -> None:
    table = pd.DataFrame({"title": ["ten", "twenty", "unrated"]}, index=[10, 20, 99])
    aligned = assemble.align(table, "movies.dat", np.array([20, 10]), "item")
    assert aligned["title"].tolist() == ["twenty", "ten"] and aligned.index.tolist() == [0, 1]
    assert aligned.index.name == "item"
    with pytest.raises(DatasetError, match="movies.dat: no record for 1 rated item id"):
        assemble.align(table, "movies.dat", np.array([10, 11]), "item")
    with pytest.raises(DatasetError, match="item id 10 appears more than once"):
        assemble.align(pd.DataFrame({"title": ["a", "b"]}, index=[10, 10]), "movies.dat", np.array([10]), "item")


USER_ARTISTS = "userID\tartistID\tweight\r\n2\t51\t13883\r\n2\t7\t2\r\n5\t51\t1\r\n".encode("latin-1")
ARTISTS = "id\tname\turl\tpictureURL\n7\tBjörk\thttp://a\thttp://b\n51\tDuran Duran\thttp://c\thttp://d\n".encode()


def install_lastfm(monkeypatch, tmp_path, user_artists: bytes = USER_ARTISTS) -> registry.DatasetInfo:
    data, _ = isolate(monkeypatch, tmp_path)
    folder = data / "hetrec2011-lastfm-2k"
    folder.mkdir()
    members = {"user_artists.dat": user_artists, "artists.dat": ARTISTS}
    for name, content in members.items():
        (folder / name).write_bytes(content)
    pin(monkeypatch, "lastfm-2k", None, members)
    return registry.DATASETS["lastfm-2k"]


def test_lastfm_play_counts_are_the_values_and_artist_names_the_titles(monkeypatch, tmp_path) -> None:
    info = install_lastfm(monkeypatch, tmp_path)
    ratings = lastfm.read_lastfm_2k(fetch.open_files(info), info, positive_threshold=3.0)
    assert ratings.user_ids.tolist() == [2, 5] and ratings.item_ids.tolist() == [7, 51]
    assert ratings.values.tolist() == [13883.0, 2.0, 1.0] and ratings.scale == (1.0, 13883.0)
    assert ratings.positive.tolist() == [True, False, False] and ratings.timestamps is None
    assert ratings.item_metadata["title"].tolist() == ["Björk", "Duran Duran"]


def test_a_lastfm_play_count_of_zero_names_its_line(monkeypatch, tmp_path) -> None:
    info = install_lastfm(monkeypatch, tmp_path, USER_ARTISTS.replace(b"5\t51\t1", b"5\t51\t0"))
    with pytest.raises(MalformedLineError, match="play count must be a positive integer") as caught:
        lastfm.read_lastfm_2k(fetch.open_files(info), info, positive_threshold=3.0)
    assert caught.value.line == 4

"""Every real loader on the real files, checked against published counts and plain-Python oracles."""

from __future__ import annotations

import csv
import io
import zipfile

import ir_measures
import numpy as np
import pytest
from test_datasets_support import closed_port, real_data_dir

from recbias import datasets
from recbias.datasets.errors import OfflineError

pytestmark = pytest.mark.realdata


@pytest.fixture
def use(monkeypatch, tmp_path):
    """Point the data directory at a real copy of ``folder`` (skip if none); never download."""

    def choose(folder: str):
        directory = real_data_dir(folder)
        monkeypatch.setenv("RECBIAS_DATA_DIR", str(directory))
        monkeypatch.setenv("RECBIAS_CACHE_DIR", str(tmp_path / "cache"))
        monkeypatch.setenv("RECBIAS_DATA_URL", f"http://127.0.0.1:{closed_port()}")
        return directory

    return choose


def assert_matches_rows(ratings, rows: list[tuple[int, int, float]]) -> None:
    """Decoding the codes gives back the file's (user, item, value) rows, in order."""
    expected = np.array(rows, dtype=np.float64)
    np.testing.assert_array_equal(ratings.user_ids[ratings.users], expected[:, 0])
    np.testing.assert_array_equal(ratings.item_ids[ratings.items], expected[:, 1])
    np.testing.assert_array_equal(ratings.values, expected[:, 2])


def assert_codes_follow_sorted_ids(ratings) -> None:
    assert (np.diff(ratings.user_ids) > 0).all() and (np.diff(ratings.item_ids) > 0).all()
    assert ratings.user_counts().min() >= 1 and ratings.item_counts().min() >= 1


def test_ml100k(use):
    directory = use("ml-100k")
    ratings = datasets.load("ml-100k")
    assert (ratings.n_ratings, ratings.n_users, ratings.n_items) == (100_000, 943, 1_682)
    lines = (directory / "ml-100k" / "u.data").read_text().splitlines()
    rows = [tuple(map(int, line.split("\t")[:3])) for line in lines]
    assert_matches_rows(ratings, rows)
    assert_codes_follow_sorted_ids(ratings)
    assert ratings.timestamps.tolist() == [int(line.split("\t")[3]) for line in lines]
    values, counts = np.unique(ratings.values, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist())) == {1: 6110, 2: 11370, 3: 27145, 4: 34174, 5: 21201}
    assert ratings.scale == (1, 5) and ratings.positive_threshold == 5 and ratings.positive.sum() == 21201
    users = ratings.user_attributes
    assert list(users.columns) == ["age", "gender", "occupation"] and len(users) == 943
    assert users["gender"].value_counts().to_dict() == {"M": 670, "F": 273}
    assert users["occupation"].nunique() == 21 and (users["age"].min(), users["age"].max()) == (7, 73)
    assert users.loc[0].tolist() == [24, "M", "technician"]  # user id 1
    items = ratings.item_metadata
    assert items.loc[0, "title"] == "Toy Story (1995)" and items.loc[0, "genres"] == "Animation|Children's|Comedy"
    assert items.loc[266, "genres"] == "unknown"  # movie id 267
    assert datasets.available("ml-100k")


def test_ml_latest_small(use):
    directory = use("ml-latest-small")
    ratings = datasets.load("ml-latest-small")
    assert (ratings.n_ratings, ratings.n_users, ratings.n_items) == (100_836, 610, 9_724)
    with zipfile.ZipFile(directory / "ml-latest-small" / "ml-latest-small.zip") as archive:
        text = archive.read("ml-latest-small/ratings.csv").decode()
    rows = [(int(r["userId"]), int(r["movieId"]), float(r["rating"])) for r in csv.DictReader(io.StringIO(text))]
    assert_matches_rows(ratings, rows)
    assert_codes_follow_sorted_ids(ratings)
    assert set(ratings.values.tolist()) == {k / 2 for k in range(1, 11)}
    assert ratings.scale == (0.5, 5) and ratings.positive_threshold == 5
    assert ratings.user_attributes is None and ratings.timestamps is not None
    assert ratings.item_metadata.loc[0, "title"] == "Toy Story (1995)"
    assert ratings.item_metadata["title"].str.contains(", The (", regex=False).any()  # quoted titles with commas
    assert datasets.available("ml-latest-small")


def test_lastfm_2k(use):
    directory = use("hetrec2011-lastfm-2k")
    ratings = datasets.load("lastfm-2k")
    assert (ratings.n_ratings, ratings.n_users, ratings.n_items) == (92_834, 1_892, 17_632)
    lines = (directory / "hetrec2011-lastfm-2k" / "user_artists.dat").read_text(encoding="latin-1").splitlines()
    assert_matches_rows(ratings, [tuple(map(int, line.split("\t"))) for line in lines[1:]])
    assert_codes_follow_sorted_ids(ratings)
    assert ratings.values.sum() == 69_183_975 and ratings.values.min() >= 1
    assert ratings.timestamps is None and "no timestamps" in ratings.description
    assert ratings.positive_threshold == 3
    assert ratings.positive.sum() == (ratings.values > 2).sum()
    assert ratings.scale == (1, ratings.values.max())
    assert ratings.user_attributes is None and ratings.item_metadata.loc[0, "title"] == "MALICE MIZER"
    assert datasets.load("lastfm-2k", positive_threshold=10).positive.sum() == (ratings.values >= 10).sum()


def test_ml1m_without_ratings_file_is_not_available(use):
    directory = use("ml-1m")
    if (directory / "ml-1m" / "ratings.dat").is_file():
        pytest.skip("a complete ML-1M is present")
    assert not datasets.available("ml-1m")
    with pytest.raises(OfflineError, match="lacks ratings.dat"):
        datasets.load("ml-1m")


def test_ml1m_complete(use):
    directory = use("ml-1m")
    if not (directory / "ml-1m" / "ratings.dat").is_file():
        pytest.skip("ML-1M ratings.dat is not on this machine")
    ratings = datasets.load("ml-1m")
    assert (ratings.n_ratings, ratings.n_users, ratings.n_items) == (1_000_209, 6_040, 3_706)
    assert list(ratings.user_attributes.columns) == ["gender", "age_band", "occupation"]


def test_cranfield(use):
    use("cranfield")
    judgments = datasets.load_qrels("cranfield")
    assert list(judgments.columns) == ["query", "doc", "grade", "relevant", "gain"]
    assert len(judgments) == 1_837
    assert judgments["query"].nunique() == 225 and judgments["doc"].nunique() == 924
    assert judgments["grade"].value_counts().to_dict() == {-1: 225, 1: 128, 2: 387, 3: 734, 4: 363}
    assert (judgments.groupby("query")["grade"].min() == -1).all()
    assert judgments["relevant"].sum() == 1_837 - 225
    cleverdon = dict(zip(judgments["grade"], judgments["gain"]))
    assert cleverdon == {-1: 0, 1: 4, 2: 3, 3: 2, 4: 1}
    flipped = datasets.load_qrels("cranfield", reading="ir_datasets")
    assert dict(zip(flipped["grade"], flipped["gain"])) == {-1: 0, 1: 1, 2: 2, 3: 3, 4: 4}
    assert (flipped["relevant"] == judgments["relevant"]).all()


def test_trec8_adhoc_agrees_with_ir_measures(use):
    directory = use("trec8-adhoc-qrels")
    judgments = datasets.load_qrels("trec8-adhoc")
    assert len(judgments) == 86_830 and judgments["query"].nunique() == 50
    assert (judgments["query"].min(), judgments["query"].max()) == (401, 450)
    assert judgments["relevant"].sum() == 4_728 and judgments["doc"].nunique() == 65_506
    oracle = list(ir_measures.read_trec_qrels(str(directory / "trec8-adhoc-qrels" / "qrels.adhoc.401-450.txt")))
    assert judgments["query"].astype(str).tolist() == [q.query_id for q in oracle]
    assert judgments["doc"].tolist() == [q.doc_id for q in oracle]
    assert judgments["grade"].tolist() == [q.relevance for q in oracle]

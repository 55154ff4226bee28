"""``load("csv:PATH")``: the user's own ratings file."""

from __future__ import annotations

import re
import zipfile

import pytest

from recbias import datasets
from recbias.datasets import csvfile
from recbias.datasets.csvfile import parse_columns
from test_datasets_support import real_data_dir
from recbias.datasets.errors import DatasetError, MalformedLineError, MissingFileError
from recbias.datasets.registry import dataset_label


def write(tmp_path, text: str, name: str = "ratings.csv") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return f"csv:{path}"


def test_explicit_ratings_with_timestamps(tmp_path):
    name = write(tmp_path, "user,item,rating,timestamp\n9,10,4,100\n10,2,5,200\n9,2,2.5,300\n")
    ratings = datasets.load(name)
    assert ratings.name == "csv:ratings.csv"  # the file's name: the reader's directories stay off the page
    assert str(tmp_path) not in ratings.description
    assert ratings.user_ids.tolist() == [9, 10]  # numeric order, not "10" < "9"
    assert ratings.item_ids.tolist() == [2, 10]
    assert ratings.users.tolist() == [0, 1, 0] and ratings.items.tolist() == [1, 0, 0]
    assert ratings.values.tolist() == [4.0, 5.0, 2.5]
    assert ratings.timestamps.tolist() == [100, 200, 300]
    assert ratings.scale == (2.5, 5.0)
    assert ratings.positive_threshold == 5.0  # the highest rating in the file
    assert datasets.load(name, positive_threshold=4).positive.tolist() == [True, True, False]


def test_implicit_feedback_and_text_ids(tmp_path):
    name = write(tmp_path, 'user,item\nbob,"Heat, The"\nalice,x\nbob,x\n')
    ratings = datasets.load(name)
    assert ratings.user_ids.tolist() == ["alice", "bob"]
    assert ratings.item_ids.tolist() == ["Heat, The", "x"]
    assert ratings.values.tolist() == [1.0, 1.0, 1.0]
    assert ratings.positive_threshold == 1.0 and ratings.positive.all()
    assert ratings.timestamps is None
    assert "implicit" in ratings.description


def test_ids_with_leading_zeros_stay_text(tmp_path):
    ratings = datasets.load(write(tmp_path, "user,item\n007,1\n7,1\n"))
    assert ratings.user_ids.tolist() == ["007", "7"]


def test_malformed_line_has_file_and_number(tmp_path):
    name = write(tmp_path, "user,item,rating\n1,2,3\n1,3,4\n2,2,four\n")
    with pytest.raises(MalformedLineError) as caught:
        datasets.load(name)
    error = caught.value
    assert error.line == 4 and error.text == "2,2,four" and error.file == str(tmp_path / "ratings.csv")
    assert "field 'rating' should be number" in str(error)


def test_missing_id_is_malformed(tmp_path):
    with pytest.raises(MalformedLineError, match="line 3"):
        datasets.load(write(tmp_path, "user,item\n1,2\n,3\n"))


def test_bad_header(tmp_path):
    expected = r"line 1: unknown column\(s\) 'uid', 'mid'.*the header user,item or .*user,item,rating,timestamp"
    with pytest.raises(MalformedLineError, match=expected):
        datasets.load(write(tmp_path, "uid,mid,rating\n1,2,3\n"))


def test_header_only_and_missing_file(tmp_path):
    with pytest.raises(DatasetError, match="no ratings"):
        datasets.load(write(tmp_path, "user,item\n"))
    with pytest.raises(MissingFileError, match="does not exist"):
        datasets.load(f"csv:{tmp_path / 'absent.csv'}")
    assert not datasets.available(f"csv:{tmp_path / 'absent.csv'}")
    assert datasets.available(write(tmp_path, "user,item\n1,2\n"))


def test_unknown_option(tmp_path):
    with pytest.raises(ValueError, match="unknown option.*sep.*valid options: columns, duplicates, positive_threshold"):
        datasets.load(write(tmp_path, "user,item\n1,2\n"), sep=";")


def test_a_repeated_pair_is_named_with_its_lines(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("user,item,rating\n1,10,5\n2,10,3\n1,10,1\n2,10,4\n")
    with pytest.raises(DatasetError, match=r"user 1 and item 10 appear on lines 2 and 4 \(1 more repeated line"):
        datasets.load(f"csv:{path}")


def test_duplicate_policies_keep_the_last_line_or_average(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("user,item,rating,timestamp\n1,10,5,100\n2,10,3,50\n1,10,2,300\n")
    last = datasets.load(f"csv:{path}", duplicates="last").to_frame()
    assert sorted(zip(last["user_id"], last["rating"], last["timestamp"])) == [(1, 2.0, 300), (2, 3.0, 50)]
    mean = datasets.load(f"csv:{path}", duplicates="mean").to_frame()
    assert sorted(zip(mean["user_id"], mean["rating"], mean["timestamp"])) == [(1, 3.5, 300), (2, 3.0, 50)]
    with pytest.raises(ValueError, match="duplicates must be one of error, last, mean"):
        datasets.load(f"csv:{path}", duplicates="sum")


def test_a_csv_dataset_is_named_by_its_file_and_keeps_its_path_for_reading(tmp_path):
    name = f"csv:{tmp_path}/sub/my ratings.csv"
    assert dataset_label(name) == "csv:my ratings.csv" and dataset_label("ml-1m") == "ml-1m"
    info = csvfile.csv_info(name)
    assert info.name == "csv:my ratings.csv" and info.url == f"{tmp_path}/sub/my ratings.csv"
    assert info.positive_threshold is None  # set by the file's highest rating when it is read


def test_movielens_own_header_loads_without_a_mapping(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n1,1029,3.0,1260759179\n2,31,4.0,1260759185\n")
    ratings = datasets.load(f"csv:{path}")
    assert ratings.n_ratings == 3 and ratings.timestamps is not None
    assert ratings.positive_threshold == 4.0


def test_a_mapping_names_any_header_and_ignores_the_columns_it_leaves_out(tmp_path):
    path = tmp_path / "orders.csv"
    path.write_text("note,customer,sku,stars\nx,a,p,5\ny,b,p,3\nz,b,q,4\n")
    ratings = datasets.load(f"csv:{path}", columns=parse_columns("user=customer,item=sku,rating=stars"))
    assert ratings.n_ratings == 3 and ratings.n_users == 2 and ratings.n_items == 2
    assert sorted(ratings.values.tolist()) == [3.0, 4.0, 5.0]


@pytest.mark.parametrize(("header", "columns", "message"), [
    ("customer,sku", None, "unknown column(s) 'customer', 'sku'"),
    ("user,item", {"user": "customer", "item": "item"}, "the header has no column 'customer'"),
    ("userId,userID,movieId", None, "must name one user and one item column"),
])
def test_an_unreadable_header_names_the_problem(tmp_path, header, columns, message):
    path = tmp_path / "bad.csv"
    path.write_text(f"{header}\n1,2,3\n")
    with pytest.raises(MalformedLineError, match=re.escape(message)):
        datasets.load(f"csv:{path}", **({"columns": columns} if columns else {}))


def test_column_mappings_are_parsed_strictly():
    assert parse_columns("user=a, item=b ,rating=c") == {"user": "a", "item": "b", "rating": "c"}
    for bad in ("user", "who=a", "user=a,user=b", "user="):
        with pytest.raises(ValueError, match="expected NAME=HEADER pairs"):
            parse_columns(bad)


@pytest.mark.realdata
def test_ml_latest_small_ratings_csv_as_shipped_loads_as_a_csv_file(tmp_path):
    archive = real_data_dir("ml-latest-small") / "ml-latest-small" / "ml-latest-small.zip"
    with zipfile.ZipFile(archive) as opened:
        path = tmp_path / "ratings.csv"
        path.write_bytes(opened.read("ml-latest-small/ratings.csv"))
    ratings = datasets.load(f"csv:{path}", positive_threshold=4.0)
    assert (ratings.n_users, ratings.n_items, ratings.n_ratings) == (610, 9724, 100836)

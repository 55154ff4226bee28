"""Coat: the real files against the counts its authors publish, and tiny hand-made matrices."""

from __future__ import annotations

import numpy as np
import pytest
from test_datasets_support import isolate, load_real, pin

from recbias import datasets
from recbias.datasets import coat
from recbias.datasets.errors import ChecksumError, DatasetError, MalformedLineError

USER_MAP = "gender:men\ngender:women\nage:20-30\nage:over 60\nlocation:urban\nfashioninterest:very"
ITEM_MAP = "gender:men\ngender:women\njackettype:parkas\ncolor:red\ncolor:blue\nonfrontpage:yes"


def matrix_text(rows: np.ndarray) -> bytes:
    return ("\n".join(" ".join(f"{v:g}" for v in row) for row in rows) + "\n").encode()


@pytest.fixture
def tiny(monkeypatch, tmp_path):
    """Write a Coat folder of ``shape`` with the given matrices, pin it, and shrink the reader's shape."""

    def write(train: np.ndarray, test: np.ndarray, users: np.ndarray | None = None, items: np.ndarray | None = None):
        n_users, n_items = train.shape
        monkeypatch.setattr(coat, "N_USERS", n_users)
        monkeypatch.setattr(coat, "N_ITEMS", n_items)
        users = np.tile([1, 0, 1, 0, 1, 1], (n_users, 1)) if users is None else users
        items = np.tile([0, 1, 1, 0, 1, 1], (n_items, 1)) if items is None else items
        files = {
            coat.TRAIN: matrix_text(train),
            coat.TEST: matrix_text(test),
            coat.USER_FEATURES: matrix_text(users),
            coat.USER_MAP: USER_MAP.encode(),
            coat.ITEM_FEATURES: matrix_text(items),
            coat.ITEM_MAP: ITEM_MAP.encode(),
        }
        data, _ = isolate(monkeypatch, tmp_path)
        for name, content in files.items():
            path = data / "coat" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        pin(monkeypatch, "coat", None, files)
        return data / "coat"

    return write


TRAIN = np.array([[5, 0, 1], [0, 4, 0]])
TEST = np.array([[0, 2, 0], [3, 0, 5]])


def test_tiny_matrices_decode_into_ratings_and_an_unbiased_sample(tiny):
    tiny(TRAIN, TEST)
    ratings = datasets.load("coat")
    assert ratings.shape == (2, 3) and ratings.positive_threshold == 4
    assert list(zip(ratings.users, ratings.items, ratings.values)) == [(0, 0, 5), (0, 2, 1), (1, 1, 4)]
    unbiased = ratings.unbiased_test
    assert list(zip(unbiased.users, unbiased.items, unbiased.values)) == [(0, 1, 2), (1, 0, 3), (1, 2, 5)]
    assert ratings.user_attributes.loc[0].tolist() == ["men", "20-30", "urban", "very"]
    assert ratings.item_metadata.loc[2].tolist() == ["women", "parkas", "blue", "yes"]
    assert ratings.with_threshold(3).unbiased_test.positive.sum() == 2


def test_a_changed_file_fails_its_pin(tiny):
    folder = tiny(TRAIN, TEST)
    (folder / coat.TRAIN).write_text("5 0 1\n0 5 0\n")
    with pytest.raises(ChecksumError, match="train.ascii"):
        datasets.load("coat")


@pytest.mark.parametrize(
    ("train", "message", "line"),
    [
        ("5 0 1\n0 4\n", "2 values, expected 3", 2),
        ("5 0 1\n0 x 0\n", "not a number", 2),
        ("5 0 9\n0 4 0\n", "value 9 in column 3", 1),
        ("5 0 1\n0 -1 0\n", "value -1 in column 2", 2),
        ("5 0 1\n0 4.5 0\n", "value 4.5 in column 2", 2),
        ("5 0 1\n", "has 1 rows, expected 2", None),
    ],
)
def test_malformed_matrices_are_named_with_file_and_line(tiny, monkeypatch, train, message, line):
    folder = tiny(TRAIN, TEST)
    (folder / coat.TRAIN).write_text(train)
    pin(monkeypatch, "coat", None, {name: (folder / name).read_bytes() for name in datasets.info("coat").files.pins})
    with pytest.raises(DatasetError, match=message) as caught:
        datasets.load("coat")
    assert "train.ascii" in str(caught.value)
    if line is not None:
        assert isinstance(caught.value, MalformedLineError) and f"line {line}" in str(caught.value)


def test_a_feature_group_that_is_not_one_hot_is_named(tiny):
    users = np.array([[1, 1, 1, 0, 1, 1], [0, 1, 1, 0, 1, 1]])  # user 1 is both men and women
    tiny(TRAIN, TEST, users=users)
    with pytest.raises(MalformedLineError, match="line 1.*'gender' is not one-hot"):
        datasets.load("coat")


@pytest.mark.realdata
def test_real_coat_matches_the_published_counts():
    ratings = load_real("coat")
    unbiased = ratings.unbiased_test
    assert ratings.shape == unbiased.shape == (290, 300)
    assert (ratings.n_ratings, unbiased.n_ratings) == (6_960, 4_640)
    assert (ratings.user_counts() == 24).all() and (unbiased.user_counts() == 16).all()
    values, counts = np.unique(ratings.values, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist())) == {1: 1901, 2: 1437, 3: 1717, 4: 1275, 5: 630}
    values, counts = np.unique(unbiased.values, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist())) == {1: 1879, 2: 899, 3: 1002, 4: 641, 5: 219}
    both = set(zip(ratings.users, ratings.items)) & set(zip(unbiased.users, unbiased.items))
    assert len(both) == 366
    assert list(ratings.user_attributes.columns) == ["gender", "age", "location", "fashion interest"]
    assert set(ratings.user_attributes["fashion interest"]) == {"very", "moderately", "not at all"}
    assert list(ratings.item_metadata.columns) == ["gender", "jacket type", "colour", "on front page"]
    assert ratings.item_metadata["jacket type"].nunique() <= 16

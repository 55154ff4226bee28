"""The ML-1M reader on a tiny archive with the official layout (ratings.dat is not on this machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_datasets_support import ML1M_FILES, isolate, ml1m_archive, pin

from recbias import datasets
from recbias.datasets import fetch, movielens, registry
from recbias.datasets.errors import DatasetError, MalformedLineError


def install(monkeypatch, tmp_path, files=ML1M_FILES):
    data, _ = isolate(monkeypatch, tmp_path)
    archive = ml1m_archive(files)
    pin(monkeypatch, "ml-1m", archive, files)
    (data / "ml-1m.zip").write_bytes(archive)


def test_tiny_ml1m_is_read_completely(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path)
    ratings = datasets.load("ml-1m")
    assert ratings.user_ids.tolist() == [1, 2, 3]  # user 4 never rates
    assert ratings.item_ids.tolist() == [2, 7, 10]  # numeric order; movie 11 never rated
    assert ratings.users.tolist() == [0, 0, 1, 2, 2]
    assert ratings.items.tolist() == [2, 0, 2, 0, 1]
    assert ratings.values.tolist() == [5, 3, 4, 1, 5]
    assert ratings.timestamps.tolist() == [978300760, 978302109, 978301968, 978300275, 978824291]
    assert ratings.scale == (1.0, 5.0) and ratings.positive_threshold == 5.0
    assert ratings.positive.tolist() == [True, False, False, False, True]
    attributes = ratings.user_attributes
    assert list(attributes.columns) == ["gender", "age_band", "occupation"]
    assert attributes["gender"].tolist() == ["F", "M", "M"]
    assert attributes["age_band"].tolist() == ["Under 18", "56+", "25-34"]
    assert attributes["age_band"].cat.ordered and attributes["age_band"].cat.categories[0] == "Under 18"
    assert attributes["occupation"].tolist() == ["K-12 student", "self-employed", "scientist"]
    metadata = ratings.item_metadata
    assert metadata["title"].tolist() == ["Jumanji (1995)", "Café Society (1995)", "GoldenEye (1995)"]
    assert metadata.loc[2, "genres"] == "Action|Adventure|Thriller"
    assert "MovieLens" in ratings.description and "Harper" in ratings.citation
    assert "redistribution" in ratings.licence


def test_threshold_override(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path)
    ratings = datasets.load("ml-1m", positive_threshold=4)
    assert ratings.positive_threshold == 4.0
    assert ratings.positive.tolist() == [True, False, True, False, True]


def test_rating_off_the_scale_names_its_line(monkeypatch, tmp_path):
    bad = ML1M_FILES["ratings.dat"].replace(b"3::7::5::", b"3::7::6::")
    install(monkeypatch, tmp_path, {**ML1M_FILES, "ratings.dat": bad})
    with pytest.raises(MalformedLineError, match=r"ratings\.dat, line 5: rating is not a whole number of stars"):
        datasets.load("ml-1m")


def test_unknown_age_code_names_its_line(monkeypatch, tmp_path):
    bad = ML1M_FILES["users.dat"].replace(b"2::M::56::", b"2::M::57::")
    install(monkeypatch, tmp_path, {**ML1M_FILES, "users.dat": bad})
    with pytest.raises(MalformedLineError, match=r"users\.dat, line 2: unknown age code: '2::M::57::16::70072'"):
        datasets.load("ml-1m")


def test_rated_movie_without_a_record_is_an_error(monkeypatch, tmp_path):
    movies = b"2::Jumanji (1995)::Adventure\n10::GoldenEye (1995)::Action\n"
    install(monkeypatch, tmp_path, {**ML1M_FILES, "movies.dat": movies})
    with pytest.raises(DatasetError, match=r"movies\.dat: no record for 1 rated item id\(s\), e\.g\. 7"):
        datasets.load("ml-1m")


def test_arrays_are_read_only_and_loads_are_identical(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path)
    first, second = datasets.load("ml-1m"), datasets.load("ml-1m")
    for field in ("users", "items", "values", "timestamps", "user_ids", "item_ids"):
        array = getattr(first, field)
        np.testing.assert_array_equal(array, getattr(second, field))
        with pytest.raises(ValueError):
            array[0] = array[0]
    pd.testing.assert_frame_equal(first.user_attributes, second.user_attributes)


def test_every_age_code_and_some_occupation_codes_read_as_the_ml1m_readme_says(monkeypatch, tmp_path):
    ages, occupations = (1, 18, 25, 35, 45, 50, 56), (0, 4, 12, 20, 0, 13, 9)
    users = "".join(f"{u}::F::{a}::{o}::00000\n" for u, (a, o) in enumerate(zip(ages, occupations), start=1))
    ratings = "".join(f"{u}::10::5::978300760\n" for u in range(1, len(ages) + 1))
    files = {**ML1M_FILES, "users.dat": users.encode(), "ratings.dat": ratings.encode()}
    install(monkeypatch, tmp_path, files)
    info = registry.DATASETS["ml-1m"]
    attributes = movielens.read_ml1m(fetch.open_files(info), info, positive_threshold=4.0).user_attributes
    assert attributes["age_band"].tolist() == ["Under 18", "18-24", "25-34", "35-44", "45-49", "50-55", "56+"]
    assert attributes["occupation"].tolist() == ["other", "college/grad student", "programmer", "writer", "other",
                                                 "retired", "homemaker"]

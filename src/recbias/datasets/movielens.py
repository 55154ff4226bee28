"""Readers for the MovieLens releases: 100K, 1M, 10M, 20M and latest-small.

Each reads the ratings, the user demographics (100K, 1M) and the movie titles
and genres, checks that every rating lies on the release's scale, and codes
users and movies by their sorted original ids.  10M keeps the ``::`` layout of 1M
with half stars and no user file; 20M has the CSV layout of latest-small.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.datasets.assemble import build_ratings
from recbias.datasets.errors import DatasetError
from recbias.datasets.fetch import DataFiles
from recbias.datasets.registry import DatasetInfo
from recbias.datasets.tables import DECIMAL, INTEGER, Column, Table, TableFormat, read_table
from recbias.demographics import ML1M_AGE_BANDS, ML1M_OCCUPATIONS
from recbias.ratings import Ratings

_RATING_COLUMNS = (
    Column("user", "int64", INTEGER),
    Column("item", "int64", INTEGER),
    Column("rating", "float64", DECIMAL),
    Column("timestamp", "int64", INTEGER),
)

# ---------------------------------------------------------------- ML-100K
_U_DATA = TableFormat(_RATING_COLUMNS, sep="\t", encoding="latin-1")
_U_USER = TableFormat(
    (Column("user", "int64", INTEGER), Column("age", "int64", INTEGER), Column("gender", "str", "[MF]"),
     Column("occupation", "str"), Column("zip", "str")),
    sep="|", encoding="latin-1",
)
_N_GENRES_100K = 19
_U_ITEM = TableFormat(
    (Column("item", "int64", INTEGER), Column("title", "str"), Column("release_date", "str"),
     Column("video_release_date", "str"), Column("imdb_url", "str"))
    + tuple(Column(f"genre_{k}", "int64", "[01]") for k in range(_N_GENRES_100K)),
    sep="|", encoding="latin-1",
)
_U_GENRE = TableFormat(
    (Column("genre", "str", "[^|]+"), Column("index", "int64", INTEGER)), sep="|", encoding="latin-1"
)

# ------------------------------------------------------------------ ML-1M
_RATINGS_DAT = TableFormat(_RATING_COLUMNS, sep="::", encoding="latin-1")
_USERS_DAT = TableFormat(
    (Column("user", "int64", INTEGER), Column("gender", "str", "[MF]"), Column("age", "int64", INTEGER),
     Column("occupation", "int64", INTEGER), Column("zip", "str")),
    sep="::", encoding="latin-1",
)
_MOVIES_DAT = TableFormat(
    (Column("item", "int64", INTEGER), Column("title", "str"), Column("genres", "str")), sep="::", encoding="latin-1"
)
# ------------------------------------------------------------------ ML-10M
_MOVIES_DAT_10M = TableFormat(
    (Column("item", "int64", INTEGER), Column("title", "str"), Column("genres", "str")), sep="::", encoding="utf-8"
)
# ------------------------------------------------ ML-20M, ml-latest-small
_RATINGS_CSV = TableFormat(
    _RATING_COLUMNS, sep=",", header=("userId", "movieId", "rating", "timestamp"), encoding="utf-8"
)
_MOVIES_CSV = TableFormat(
    (Column("item", "int64", INTEGER), Column("title", "str"), Column("genres", "str")),
    sep=",", header=("movieId", "title", "genres"), encoding="utf-8", quoted=True,
)


def read_ml100k(files: DataFiles, info: DatasetInfo, positive_threshold: float) -> Ratings:
    """MovieLens 100K: ``u.data`` ratings, ``u.user`` age/gender/occupation, ``u.item`` titles and genres."""
    ratings = _read(files, "u.data", _U_DATA)
    _require_scale(ratings, np.arange(1.0, 6.0), "rating is not a whole number of stars from 1 to 5")
    users = _read(files, "u.user", _U_USER).frame.set_index("user")[["age", "gender", "occupation"]]
    items = _read(files, "u.item", _U_ITEM).frame.set_index("item")
    genre_names = _genre_names(_read(files, "u.genre", _U_GENRE), files.label("u.genre"))
    flags = items[[f"genre_{k}" for k in range(_N_GENRES_100K)]].to_numpy(dtype=bool)
    metadata = pd.DataFrame(
        {"title": items["title"], "release_date": items["release_date"], "genres": _join_flags(flags, genre_names)},
        index=items.index,
    )
    return _build(files, info, ratings, (1.0, 5.0), positive_threshold, (users, "u.user"), (metadata, "u.item"))


def read_ml1m(files: DataFiles, info: DatasetInfo, positive_threshold: float) -> Ratings:
    """MovieLens 1M: ``ratings.dat``, ``users.dat`` (gender, age band, occupation), ``movies.dat``."""
    ratings = _read(files, "ratings.dat", _RATINGS_DAT)
    _require_scale(ratings, np.arange(1.0, 6.0), "rating is not a whole number of stars from 1 to 5")
    user_table = _read(files, "users.dat", _USERS_DAT)
    frame = user_table.frame
    user_table.require(frame["age"].isin(list(ML1M_AGE_BANDS)).to_numpy(), "unknown age code")
    user_table.require(frame["occupation"].between(0, len(ML1M_OCCUPATIONS) - 1).to_numpy(), "unknown occupation code")
    bands = list(ML1M_AGE_BANDS.values())
    users = pd.DataFrame(
        {
            "gender": frame["gender"].to_numpy(),
            "age_band": pd.Categorical(frame["age"].map(ML1M_AGE_BANDS), categories=bands, ordered=True),
            "occupation": np.asarray(ML1M_OCCUPATIONS, dtype=object)[frame["occupation"].to_numpy()],
        },
        index=frame["user"].to_numpy(),
    )
    movies = _read(files, "movies.dat", _MOVIES_DAT).frame.set_index("item")
    return _build(files, info, ratings, (1.0, 5.0), positive_threshold, (users, "users.dat"), (movies, "movies.dat"))


def read_ml10m(files: DataFiles, info: DatasetInfo, positive_threshold: float) -> Ratings:
    """MovieLens 10M: ``ratings.dat`` (half stars 0.5-5, ``::`` separated) and ``movies.dat`` titles and genres."""
    ratings = _read(files, "ratings.dat", _RATINGS_DAT)
    _require_half_stars(ratings)
    movies = _read(files, "movies.dat", _MOVIES_DAT_10M).frame.set_index("item")
    return _build(files, info, ratings, (0.5, 5.0), positive_threshold, None, (movies, "movies.dat"))


def read_ml_csv(files: DataFiles, info: DatasetInfo, positive_threshold: float) -> Ratings:
    """MovieLens in CSV (20M, latest-small): ``ratings.csv`` (half stars 0.5-5) and ``movies.csv`` titles
    and genres."""
    ratings = _read(files, "ratings.csv", _RATINGS_CSV)
    _require_half_stars(ratings)
    movies = _read(files, "movies.csv", _MOVIES_CSV).frame.set_index("item")
    return _build(files, info, ratings, (0.5, 5.0), positive_threshold, None, (movies, "movies.csv"))


def _read(files: DataFiles, name: str, layout: TableFormat) -> Table:
    return read_table(files.read(name), layout, files.dataset, files.label(name))


def _require_scale(ratings: Table, allowed: np.ndarray, reason: str) -> None:
    ratings.require(np.isin(ratings.frame["rating"].to_numpy(), allowed), reason)


def _require_half_stars(ratings: Table) -> None:
    _require_scale(ratings, np.arange(1.0, 11.0) / 2, "rating is not a multiple of half a star from 0.5 to 5")


def _genre_names(genres: Table, source: str) -> np.ndarray:
    """Genre names ordered by their column index in ``u.item``; the index must be ``0..18``."""
    frame = genres.frame.sort_values("index")
    if not np.array_equal(frame["index"].to_numpy(), np.arange(_N_GENRES_100K)):
        raise DatasetError(f"dataset '{genres.dataset}': {source} must list genres 0 to {_N_GENRES_100K - 1} once each")
    return frame["genre"].to_numpy(dtype=object)


def _join_flags(flags: np.ndarray, names: np.ndarray) -> np.ndarray:
    """``'Action|Comedy'``-style strings from a boolean item x genre matrix (loops over genres only)."""
    joined = np.full(flags.shape[0], "", dtype=object)
    for k, name in enumerate(names):
        joined = np.where(flags[:, k], joined + (name + "|"), joined)
    return pd.Series(joined, dtype=object).str.removesuffix("|").to_numpy(dtype=object)


def _build(
    files: DataFiles,
    info: DatasetInfo,
    ratings: Table,
    scale: tuple[float, float],
    positive_threshold: float,
    users: tuple[pd.DataFrame, str] | None,
    items: tuple[pd.DataFrame, str],
) -> Ratings:
    frame = ratings.frame

    def labelled(table: tuple[pd.DataFrame, str] | None) -> tuple[pd.DataFrame, str] | None:
        return None if table is None else (table[0], f"dataset '{info.name}': {files.label(table[1])}")

    return build_ratings(
        info,
        users=frame["user"].to_numpy(),
        items=frame["item"].to_numpy(),
        values=frame["rating"].to_numpy(),
        timestamps=frame["timestamp"].to_numpy(),
        scale=scale,
        positive_threshold=positive_threshold,
        user_table=labelled(users),
        item_table=labelled(items),
    )

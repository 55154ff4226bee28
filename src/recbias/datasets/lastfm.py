"""Reader for the HetRec 2011 Last.fm 2K play counts."""

from __future__ import annotations

import numpy as np

from recbias.datasets.assemble import build_ratings
from recbias.datasets.fetch import DataFiles
from recbias.datasets.registry import DatasetInfo
from recbias.datasets.tables import INTEGER, Column, TableFormat, read_table
from recbias.ratings import Ratings

# user_artists.dat is ISO-8859-1 with CRLF line ends; artists.dat is UTF-8 with LF
_USER_ARTISTS = TableFormat(
    (Column("user", "int64", INTEGER), Column("item", "int64", INTEGER), Column("plays", "int64", INTEGER)),
    sep="\t", header=("userID", "artistID", "weight"), encoding="latin-1",
)
_ARTISTS = TableFormat(
    (Column("item", "int64", INTEGER), Column("title", "str"), Column("url", "str"), Column("picture_url", "str")),
    sep="\t", header=("id", "name", "url", "pictureURL"), encoding="utf-8",
)


def read_lastfm_2k(files: DataFiles, info: DatasetInfo, positive_threshold: float) -> Ratings:
    """Play counts from ``user_artists.dat``; ``artists.dat`` names become the item ``title``.

    The values are play counts, so the scale is ``(1, largest count)``; there are no timestamps.
    """
    plays = read_table(files.read("user_artists.dat"), _USER_ARTISTS, info.name, files.label("user_artists.dat"))
    counts = plays.frame["plays"].to_numpy()
    plays.require(counts >= 1, "play count must be a positive integer")
    artists = read_table(files.read("artists.dat"), _ARTISTS, info.name, files.label("artists.dat")).frame
    return build_ratings(
        info,
        users=plays.frame["user"].to_numpy(),
        items=plays.frame["item"].to_numpy(),
        values=counts.astype(np.float64),
        timestamps=None,
        scale=(1.0, float(counts.max(initial=1))),
        positive_threshold=positive_threshold,
        item_table=(artists.set_index("item")[["title"]], f"dataset '{info.name}': {files.label('artists.dat')}"),
    )

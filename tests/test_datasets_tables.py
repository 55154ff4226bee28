"""The delimited-file parser: fast path results and line-accurate errors."""

from __future__ import annotations

import numpy as np
import pytest

from recbias.datasets.errors import MalformedLineError
from recbias.datasets.tables import DECIMAL, INTEGER, Column, TableFormat, read_table

RATINGS = TableFormat(
    (Column("user", "int64", INTEGER), Column("item", "int64", INTEGER), Column("rating", "float64", DECIMAL)),
    sep="\t",
)


def parse(text: str, layout: TableFormat = RATINGS, encoding: str = "utf-8"):
    return read_table(text.encode(encoding), layout, "toy", "toy.tsv")


def error_of(text: str | bytes, layout: TableFormat = RATINGS) -> MalformedLineError:
    raw = text if isinstance(text, bytes) else text.encode()
    with pytest.raises(MalformedLineError) as caught:
        read_table(raw, layout, "toy", "toy.tsv")
    return caught.value


def test_well_formed_file_with_crlf_and_blank_lines():
    table = parse("1\t2\t3.5\r\n\r\n4\t5\t1\r\n")
    assert table.frame["user"].tolist() == [1, 4]
    assert table.frame["rating"].tolist() == [3.5, 1.0]
    assert table.frame["user"].dtype == np.int64


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("1\t2\t3\n4\t5\t6\t7\n", 2, "expected 3 fields"),  # too many fields: pandas fails
        ("1\t2\t3\n4\t5\t6\n7\t8\n", 3, "expected 3 fields"),  # too few: pandas fills NaN
        ("1\t2\t3\n4\tx\t6\n", 2, "field 'item' should be integer, found 'x'"),
        ("1\t2\t3\n4\t5\t\n", 2, "field 'rating' should be number, found ''"),
        ("1\t2\t3\n4\t5\tnan\n", 2, "field 'rating' should be number"),  # pandas would read NaN
    ],
)
def test_malformed_lines_are_reported_with_their_number(text, line, reason):
    error = error_of(text)
    assert error.line == line
    assert reason in str(error)
    assert f"toy.tsv, line {line}" in str(error)
    assert error.text == text.split("\n")[line - 1]


def test_line_numbers_count_blank_lines_and_header():
    layout = TableFormat(RATINGS.columns, sep=",", header=("u", "i", "r"))
    error = error_of("u,i,r\n1,2,3\n\n\n5,6,seven\n", layout)
    assert error.line == 5 and error.text == "5,6,seven"


def test_wrong_header_is_line_one():
    layout = TableFormat(RATINGS.columns, sep=",", header=("u", "i", "r"))
    error = error_of("user,item,rating\n1,2,3\n", layout)
    assert error.line == 1 and "expected the header 'u,i,r'" in str(error)


def test_undecodable_byte_names_its_line():
    error = error_of(b"1\t2\t3\n4\t5\t6\n7\t8\t\xff\n")
    assert error.line == 3 and "not valid utf-8" in str(error)


def test_require_points_at_the_row_line_despite_blank_lines():
    layout = TableFormat(RATINGS.columns, sep=",", header=("u", "i", "r"))
    table = parse("u,i,r\r\n1,2,3\r\n\r\n4,5,9\r\n6,7,1\r\n", layout)
    with pytest.raises(MalformedLineError) as caught:
        table.require(table.frame["rating"].to_numpy() <= 5, "rating above 5")
    assert caught.value.line == 4 and caught.value.text == "4,5,9" and "rating above 5" in str(caught.value)
    table.require(np.ones(3, dtype=bool), "never raised")


def test_multi_character_separator_and_colons_inside_fields():
    layout = TableFormat((Column("item", "int64", INTEGER), Column("title", "str"), Column("genres", "str")), sep="::")
    table = parse("1::Star Wars: Episode IV (1977)::Action|Sci-Fi\n2::M*A*S*H (1970)::Comedy\n", layout)
    assert table.frame["title"].tolist() == ["Star Wars: Episode IV (1977)", "M*A*S*H (1970)"]
    error = error_of("1::A (1990)::Drama\n2::B (1991)\n", layout)
    assert error.line == 2 and error.text == "2::B (1991)" and "separated by '::'" in str(error)


def test_text_columns_are_always_checked_for_missing_fields():
    layout = TableFormat((Column("item", "int64", INTEGER), Column("title", "str"), Column("url", "str")), sep="\t")
    assert parse("1\tA\t\n", layout).frame["url"].tolist() == [""]  # an empty field is fine
    assert error_of("1\tA\t\n2\tB\n", layout).line == 2  # a missing one is not


def test_quoted_csv_fields_keep_commas_and_quotes():
    layout = TableFormat(
        (Column("item", "int64", INTEGER), Column("title", "str"), Column("genres", "str")),
        sep=",", header=("movieId", "title", "genres"), quoted=True,
    )
    text = 'movieId,title,genres\n1,"American President, The (1995)",Comedy\n2,"Say ""Hi"" (2001)",Drama\n'
    table = parse(text, layout)
    assert table.frame["title"].tolist() == ["American President, The (1995)", 'Say "Hi" (2001)']
    assert error_of('movieId,title,genres\n1,"Heat, (1995)",Drama\n2,Heat,Drama,extra\n', layout).line == 3

"""Number formatting of the book's pages: edge values read right."""

import math
import re

import pandas as pd

from recbias.bookkit import tables


def test_p_values_switch_to_scientific_below_a_thousandth():
    assert tables.fmt_p(0.0123) == "0.012"
    assert tables.fmt_p(4.1e-50) == "4.1e-50"
    assert tables.fmt_p(0.0) == "< 1e-300"
    assert tables.fmt_p(math.nan) == "n/a"


def test_p_values_in_sentences_never_read_p_equals_less_than():
    from recbias.text import fmt_p_clause

    assert fmt_p_clause(0.0123) == "p = 0.012"
    assert fmt_p_clause(0.0) == "p < 1e-300"
    assert fmt_p_clause(4.1e-50) == "p = 4.1e-50"


def test_p_values_in_tables_are_powers_of_ten():
    from recbias.text import fmt_p_html, fmt_yes

    assert fmt_p_html(1.4e-4) == "1.4 × 10<sup>\u22124</sup>"
    assert fmt_p_html(0.344) == "0.344" and fmt_p_html(0.0) == "< 1e-300" and fmt_p_html(math.nan) == "n/a"
    assert (fmt_yes(True), fmt_yes(False)) == ("yes", "no")


def test_negative_zero_is_printed_without_its_sign():
    assert tables.fmt_number(-0.00001) == "0.000"
    assert tables.fmt_number(-0.0123, 2) == "-0.01"


def test_ordinals_follow_english_usage():
    assert [tables.ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
    ]


def test_order_text_lists_systems_from_best_to_worst():
    assert tables.order_text({"Random": 0.01, "MF": 0.3, "pLSA": 0.2}) == "MF > pLSA > Random"
    assert tables.order_text({"A": 0.1, "B": 0.1, "C": 0.2}) == "C > A = B"
    assert tables.order_text({"A": 1.0, "B": 1.0 - 1e-15, "C": 1.0}) == "A = B = C"


def test_signed_values_never_show_a_signed_zero():
    assert [tables.fmt_signed(x) for x in (1.46, -0.04, 0.04, -2.0)] == ["+1.5", "0.0", "0.0", "-2.0"]


def test_table_html_hides_the_index_and_marks_missing_values():
    html = tables.table_html(pd.DataFrame({"system": ["MF"], "P@10": [float("nan")]}))
    assert "–" in html and "MF" in html


def test_table_html_aligns_the_named_text_columns_left():
    frame = pd.DataFrame({"system": ["MF"], "P@10": [0.1], "note": ["x"]})
    html = tables.table_html(frame, left=["system", "note"])
    assert html.count("text-align: left;") == 2 and ".col0" in html and ".col2" in html and ".col1 " not in html
    assert "text-align: left;" not in tables.table_html(frame)


def test_long_text_columns_wrap_and_numbers_stay_on_one_line() -> None:
    frame = pd.DataFrame({"statement": ["a statement far longer than thirty-two characters", "short"],
                          "value": [0.5, 0.25], "cell": ["0.5<br><small>± 0.0001</small>", "0.2"]})
    html = tables.table_html(frame)
    wrapped = re.findall(r"td\.(col\d+) \{\s*white-space: normal", html)
    assert wrapped == ["col0"]  # the statement wraps; markup does not count towards a cell's length


def test_an_empty_table_is_glued_as_its_note_and_a_full_one_as_html(monkeypatch) -> None:
    glued = {}
    monkeypatch.setattr(tables, "glue", lambda name, value, display: glued.__setitem__(name, value))
    tables.glue_table("empty", pd.DataFrame(), empty_note="*Not computed here.*")
    tables.glue_table("full", pd.DataFrame({"a": [1]}), empty_note="*Not computed here.*")
    tables.glue_table("empty, no note", pd.DataFrame())
    assert glued["empty"].data == "*Not computed here.*" and type(glued["empty"]).__name__ == "Markdown"
    assert type(glued["full"]).__name__ == "HTML" and "<table" in glued["full"].data
    assert type(glued["empty, no note"]).__name__ == "HTML"

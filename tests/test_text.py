"""The number and list formatters every page and report uses (recbias.text)."""

import math

from recbias import text


def test_p_values_switch_to_scientific_below_a_thousandth():
    assert text.fmt_p(0.0123) == "0.012"
    assert text.fmt_p(4.1e-50) == "4.1e-50"
    assert text.fmt_p(0.0) == "< 1e-300"
    assert text.fmt_p(math.nan) == "n/a"


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
    assert text.fmt_number(-0.00001) == "0.000"
    assert text.fmt_number(-0.0123, 2) == "-0.01"


def test_ordinals_follow_english_usage():
    assert [text.ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
    ]


def test_order_text_lists_systems_from_best_to_worst():
    assert text.order_text({"Random": 0.01, "MF": 0.3, "pLSA": 0.2}) == "MF > pLSA > Random"
    assert text.order_text({"A": 0.1, "B": 0.1, "C": 0.2}) == "C > A = B"
    assert text.order_text({"A": 1.0, "B": 1.0 - 1e-15, "C": 1.0}) == "A = B = C"


def test_signed_values_never_show_a_signed_zero():
    assert [text.fmt_signed(x) for x in (1.46, -0.04, 0.04, -2.0)] == ["+1.5", "0.0", "0.0", "-2.0"]

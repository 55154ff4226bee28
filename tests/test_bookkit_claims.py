"""Claims as data: each criterion decides at its edges, and evidence and verdicts follow from it."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from recbias.bookkit import claims
from recbias.bookkit import scorecard as report
from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE

#: where the bounds of these hand-made criteria come from
ORIGIN = "a hand-made example"


@pytest.mark.parametrize(
    "criterion, values, outcome",
    [
        (claims.at_least("x", 0.95, origin=ORIGIN), {"x": 0.95}, HOLDS),
        (claims.at_least("x", 0.95, origin=ORIGIN), {"x": 0.9499}, FAILS),
        (claims.at_least("x", 0.95, origin=ORIGIN), {"x": np.array([0.96, 0.97])}, HOLDS),
        (claims.at_least("x", 0.95, origin=ORIGIN), {"x": np.array([0.96, 0.94])}, FAILS),
        (claims.above("x", 0, origin=ORIGIN), {"x": 0.0}, FAILS),
        (claims.above("x", 0, origin=ORIGIN), {"x": 1e-9}, HOLDS),
        (claims.above("x", "y"), {"x": 2.0, "y": 2.0}, FAILS),
        (claims.above("x", "y"), {"x": [2.5, 3.0], "y": 2.0}, HOLDS),
        (claims.below("x", 1, origin=ORIGIN), {"x": 1.0}, FAILS),
        (claims.below("x", 1, origin=ORIGIN), {"x": [0.5, 0.99]}, HOLDS),
        (claims.at_most("x", 0.1, origin=ORIGIN), {"x": 0.1}, HOLDS),
        (claims.at_most("x", 0.1, origin=ORIGIN), {"x": 0.1001}, FAILS),
        (claims.between("x", 0, 0.5, open_low=True, origin=ORIGIN), {"x": 0.0}, FAILS),
        (claims.between("x", 0, 0.5, open_low=True, origin=ORIGIN), {"x": 0.5}, HOLDS),
        (claims.between("x", 0.5, 1, open_high=True, origin=ORIGIN), {"x": 1.0}, FAILS),
        (claims.between("x", 0.5, 1, open_high=True, origin=ORIGIN), {"x": 0.5}, HOLDS),
        (claims.is_true("x", "x is true"), {"x": True}, HOLDS),
        (claims.is_true("x", "x is true"), {"x": [True, False]}, FAILS),
        (claims.beyond_noise("d", "p"), {"d": 0.01, "p": 0.049}, HOLDS),
        (claims.beyond_noise("d", "p"), {"d": -0.01, "p": 0.049}, FAILS),
        (claims.beyond_noise("d", "p"), {"d": 0.01, "p": 0.05}, INCONCLUSIVE),
        (claims.beyond_noise("d", "p"), {"d": -0.5, "p": 0.9}, INCONCLUSIVE),
        (claims.beyond_noise("d", "p"), {"d": 0.0, "p": 0.001}, INCONCLUSIVE),
        (claims.beyond_noise("d", "p"), {"d": 0.1, "p": math.nan}, INCONCLUSIVE),
        (claims.beyond_noise("d", "p", level=0.01), {"d": 0.1, "p": 0.02}, INCONCLUSIVE),
        (claims.intervals_apart("a", "b", what="a", than="b"), {"a_low": 0.31, "a_high": 0.5, "b_low": 0.1, "b_high": 0.3}, HOLDS),
        (claims.intervals_apart("a", "b", what="a", than="b"), {"a_low": 0.3, "a_high": 0.5, "b_low": 0.1, "b_high": 0.3}, INCONCLUSIVE),
        (claims.intervals_apart("a", "b", what="a", than="b"), {"a_low": 0.0, "a_high": 0.09, "b_low": 0.1, "b_high": 0.3}, FAILS),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": np.array([0.0, 0.2]), "h": np.array([1.0, 0.5])}, HOLDS),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": np.array([-0.01, 0.2]), "h": np.array([1.0, 0.5])}, INCONCLUSIVE),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": np.array([0.0, 0.2]), "h": np.array([1.01, 0.5])}, INCONCLUSIVE),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": np.array([0.5, -2.0]), "h": np.array([2.0, -0.01])}, FAILS),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": 1.01, "h": 3.0}, FAILS),
        (claims.intervals_apart("a", "b", what="a", than="b"), {"a_low": 0.0, "a_high": 0.1, "b_low": 0.1, "b_high": 0.3}, INCONCLUSIVE),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": 0.0, "h": 1.0}, HOLDS),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": -1.0, "h": 0.0}, INCONCLUSIVE),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": 1.0, "h": 2.0}, INCONCLUSIVE),
        (claims.interval_between("l", "h", 0, 1, what="x", origin=ORIGIN), {"l": -1.0, "h": -1e-12}, FAILS),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": -0.0099, "h": 0.0099}, HOLDS),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": -0.01, "h": 0.005}, INCONCLUSIVE),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": -0.005, "h": 0.01}, INCONCLUSIVE),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": 0.01, "h": 0.02}, FAILS),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": 0.0099, "h": 0.02}, INCONCLUSIVE),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": -0.02, "h": -0.01}, FAILS),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": -0.02, "h": 0.02}, INCONCLUSIVE),
        (claims.equivalent("l", "h", 0.01, what="d", origin="o"), {"l": [-0.001, 0.02], "h": [0.001, 0.03]}, FAILS),
        (claims.measured_only("x", words="no margin"), {"x": 3.0}, claims.MEASURED),
        (claims.all_of(claims.at_least("x", 1, origin=ORIGIN), claims.beyond_noise("d", "p")), {"x": 2, "d": 1, "p": 0.5}, INCONCLUSIVE),
        (claims.all_of(claims.at_least("x", 1, origin=ORIGIN), claims.beyond_noise("d", "p")), {"x": 0, "d": 1, "p": 0.5}, FAILS),
        (claims.all_of(claims.at_least("x", 1, origin=ORIGIN), claims.beyond_noise("d", "p")), {"x": 1, "d": 1, "p": 0.01}, HOLDS),
    ],
)
def test_criteria_decide_at_their_edges(criterion, values, outcome):
    assert criterion(values) == outcome


def test_words_state_the_test():
    assert claims.at_least("r2", 0.95, what="the lowest R²", origin=ORIGIN).words == "the lowest R² at least 0.95"
    assert claims.between("ratio", 0, 0.5, open_low=True, origin=ORIGIN).words == "0 < ratio ≤ 0.5"
    assert "p < 0.01" in claims.beyond_noise("d", "p", level=0.01).words
    both = claims.all_of(claims.at_most("a", 1, origin=ORIGIN), claims.at_least("b", 2, origin=ORIGIN))
    assert both.words == "a at most 1; b at least 2" and both.names == ("a", "b")


def test_an_empty_measurement_is_an_error_not_a_verdict():
    with pytest.raises(ValueError, match="no measured value"):
        claims.at_least("x", 1, origin=ORIGIN)({"x": []})


FINDING = claims.Finding("k", "P@{n} falls with density", "IRJ 2017 Sec. 4", "fig-x",
                         claims.at_least("r2", 0.95, what="R²", origin=ORIGIN), "R² = {r2:.3f}")


def test_a_finding_formats_its_statement_and_derives_its_evidence():
    (claim,) = claims.register([FINDING], {"r2": 0.9, "n": 10}, dataset="d")
    assert claim.label == "P@10 falls with density"
    assert claim.evidence == "R² = 0.900 (criterion: R² at least 0.95 [0.95: a hand-made example])"
    assert claim.outcome == FAILS and claim.verdict == report.FAILS


def test_a_departing_failure_is_not_the_papers_failure():
    departing = claims.Finding("k", "s", "src", "", claims.at_least("x", 1, origin=ORIGIN), "x = {x}", departs="other systems")
    (fails,) = claims.register([departing], {"x": 0}, dataset="d")
    (holds,) = claims.register([departing], {"x": 2}, dataset="d")
    assert fails.verdict == report.DEPARTS and holds.verdict == report.HOLDS


def test_unmeasured_claims_are_not_checked_and_keys_are_unique():
    number = claims.Number("n1", "a number", 0.5, 0.01, "ml-1m", "src", note="needs what no dataset here has")
    unchecked, unmeasured = claims.register([FINDING, number], {"n": 10}, dataset="ml-1m")
    assert (unchecked.key, unchecked.verdict) == (FINDING.key, report.NOT_CHECKED)
    assert (unmeasured.key, unmeasured.verdict, unmeasured.evidence) == ("n1", report.NOT_CHECKED,
                                                                        "needs what no dataset here has")
    assert report.headline_numbers([unmeasured]).iloc[0].to_dict() == {
        "published numbers": "from real data", "checked": 0, "agree": 0, "differ": 0, "not comparable": 0,
        "not checkable here": 1}
    assert "not measured on this build" in claims.evaluate(claims.Number("n2", "b", 1, 0, "x", "s"), {},
                                                           dataset="d").evidence
    assert unchecked.evidence == "not measured on this build: r2" and unchecked.sentence == claims.NOT_CHECKED_SAYS
    departing = claims.evaluate(dataclasses.replace(FINDING, departs="dataset x instead of the paper's y"), {},
                                dataset="x")
    assert departing.evidence == "not measured on this build, which departs from the paper"
    assert departing.departs == "dataset x instead of the paper's y"  # stated beside the evidence, once
    assert claims.evaluate(FINDING, {}, dataset="d").label == "P@… falls with density"
    (checked,) = claims.register([number], {"n1": 0.505}, dataset="ml-1m")
    assert checked.verdict == report.AGREES
    (elsewhere,) = claims.register([number], {"n1": 0.9}, dataset="ml-100k")
    assert elsewhere.verdict == report.NOT_COMPARABLE
    with pytest.raises(ValueError, match="registered twice"):
        claims.register([number, number], {"n1": 0.5}, dataset="d")


def test_published_reads_the_one_schema_and_rejects_others(tmp_path):
    good = tmp_path / "published.csv"
    good.write_text("# a comment\n" + ",".join(claims.PUBLISHED_COLUMNS) + "\n"
                    'fig2/x,"P@10, AR",0.08,0.01,ml-1m,IRJ Fig. 2,fig-a,,read off the figure\n')
    (number,) = claims.published(good)
    assert (number.key, number.statement, number.value, number.tolerance) == ("fig2/x", "P@10, AR", 0.08, 0.01)
    header_only = tmp_path / "empty.csv"
    header_only.write_text(",".join(claims.PUBLISHED_COLUMNS) + "\n")
    assert claims.published(header_only) == []
    bad = tmp_path / "bad.csv"
    bad.write_text("key,value\nx,1\n")
    with pytest.raises(ValueError, match="expected key, statement"):
        claims.published(bad)
    negative = tmp_path / "negative.csv"
    negative.write_text(",".join(claims.PUBLISHED_COLUMNS) + "\nk,s,1,-1,d,src,,,\n")
    with pytest.raises(ValueError, match="row 2"):
        claims.published(negative)


def test_a_finding_says_the_sentence_of_its_outcome_with_the_measured_values():
    finding = claims.Finding("k", "x is large", "src", "", claims.at_least("x", 1, origin=ORIGIN), "x = {x}",
                             says={claims.HOLDS: "x is **{x}**, large enough.", claims.FAILS: "x is only {x}."})
    assert claims.evaluate(finding, {"x": 2}, dataset="d").sentence == "x is **2**, large enough."
    assert claims.evaluate(finding, {"x": 0}, dataset="d").sentence == "x is only 0."


def test_a_finding_without_a_sentence_for_its_outcome_is_an_error():
    finding = claims.Finding("k", "x is large", "src", "", claims.at_least("x", 1, origin=ORIGIN), "x = {x}",
                             says={claims.HOLDS: "x is large."})
    with pytest.raises(ValueError, match="'k' reached 'fails' but has no sentence"):
        claims.evaluate(finding, {"x": 0}, dataset="d")
    with pytest.raises(ValueError, match="unknown outcomes"):
        claims.Finding("k", "s", "src", "", claims.at_least("x", 1, origin=ORIGIN), "e", says={"maybe": "?"})
    silent = claims.Finding("k", "x is large", "src", "", claims.at_least("x", 1, origin=ORIGIN), "x = {x}")
    assert claims.evaluate(silent, {"x": 0}, dataset="d").sentence == ""


def test_a_sentence_naming_an_unmeasured_value_is_an_error_naming_the_finding():
    finding = claims.Finding("k", "s", "src", "", claims.at_least("x", 1, origin=ORIGIN), "e", says={claims.HOLDS: "{y}"})
    with pytest.raises(ValueError, match="'k': its sentence for 'holds' cannot be filled"):
        claims.evaluate(finding, {"x": 2}, dataset="d")


def test_the_level_is_the_one_every_criterion_reads_by_default():
    assert claims.beyond_noise("d", "p")({"d": 1.0, "p": claims.LEVEL}) == claims.INCONCLUSIVE
    assert claims.beyond_noise("d", "p")({"d": 1.0, "p": claims.LEVEL - 1e-9}) == claims.HOLDS
    assert f"{claims.LEVEL:g}" in claims.POLICY


def test_equivalence_states_its_margin_and_where_it_comes_from():
    close = claims.equivalent("l", "h", 0.05, what="AI minus TI", origin="the resolution of the paper's Fig. 3")
    assert "90% interval within ±0.05" in close.words
    assert claims.stated(close).endswith("[0.05: the resolution of the paper's Fig. 3]")
    both = claims.all_of(close, claims.between("x", 0, 1, origin=(claims.BY_WORDS, "o")),
                         claims.at_most("y", 1, origin="o"))
    assert both.origins == f"0.05: the resolution of the paper's Fig. 3; 0: {claims.BY_WORDS}; 1: o"
    with pytest.raises(ValueError, match="the bound 0.3 has no origin"):
        claims.at_least("x", 0.3, origin=" ")


def test_a_finding_says_whose_statement_it_is():
    finding = claims.Finding("k", "s", "IRJ 2017 Eq. 2", "", claims.at_least("x", 1, origin=ORIGIN), "e", origin=claims.CODE)
    assert claims.evaluate(finding, {"x": 2}, dataset="d").origin == claims.CODE
    with pytest.raises(ValueError, match="origin 'theirs' is none of paper, book, code"):
        claims.Finding("k", "s", "src", "", claims.at_least("x", 1, origin=ORIGIN), "e", origin="theirs")
    measured = claims.Finding("m", "s", "src", "", claims.measured_only("x", words="no margin"), "x = {x}",
                              says={claims.MEASURED: "x is {x}."})
    record = claims.evaluate(measured, {"x": 2}, dataset="d")
    assert (record.verdict, record.sentence) == (report.MEASURED, "x is 2.")


def test_an_anchor_is_the_label_of_a_figure_or_table_the_scorecard_can_link_to():
    criterion = claims.at_least("x", 1, origin=ORIGIN)
    assert claims.Finding("k", "s", "IRJ 2017 Sec. 6", "tbl-audit-popularity", criterion, "e").anchor
    assert claims.Number("n", "s", 1.0, 0.1, "ml-1m", "IRJ 2017 Fig. 2", "").anchor == ""
    with pytest.raises(ValueError, match="finding 'k': anchor 'Sec. 6' is not the label of a figure or table"):
        claims.Finding("k", "s", "IRJ 2017", "Sec. 6", criterion, "e")
    with pytest.raises(ValueError, match="number 'n': anchor 'bellogin2017statistical' is not the label"):
        claims.Number("n", "s", 1.0, 0.1, "ml-1m", "IRJ 2017", "bellogin2017statistical")

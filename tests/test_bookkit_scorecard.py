"""The scorecard API: verdicts, persistence per chapter, and rendering."""

import json

import pytest

from recbias.bookkit import claims
from recbias.bookkit import scorecard as report
from recbias.bookkit.pipeline import build_settings


def number(key, ours, *, paper, tolerance, dataset, paper_dataset, source="s", anchor=""):
    """Register one published number through the claims API and return its record."""
    (claim,) = claims.register([claims.Number(key, key, paper, tolerance, paper_dataset, source, anchor)], {key: ours},
                               dataset=dataset)
    return claim


def finding(key, *, label, holds, evidence, dataset, source="s", anchor=""):
    """Register one finding whose criterion reads a flag, and return its record."""
    (claim,) = claims.register([claims.Finding(key, label, source, anchor, claims.is_true("ok", "it is so"), evidence)],
                               {"ok": holds}, dataset=dataset)
    return claim


def test_verdict_follows_tolerance_on_the_papers_dataset():
    close = number("a", 0.081, paper=0.08, tolerance=0.005, source="IRJ Fig. 2", dataset="ml-1m", paper_dataset="ml-1m")
    far = number("b", 0.09, paper=0.08, tolerance=0.005, source="IRJ Fig. 2", dataset="ml-1m", paper_dataset="ml-1m")
    assert close.verdict == report.AGREES
    assert far.verdict == report.DIFFERS


def test_other_dataset_is_not_comparable_rather_than_failing():
    c = number("a", 0.5, paper=0.08, tolerance=0.005, source="x", dataset="ml-100k", paper_dataset="ml-1m")
    assert c.verdict == report.NOT_COMPARABLE


def test_claims_are_written_per_chapter_and_replaced_by_key(tmp_path, monkeypatch):
    monkeypatch.setenv(report.RESULTS_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv(report.CHAPTER_VARIABLE, "02_designs")
    number("k", 1.0, paper=1.0, tolerance=0.0, source="s", dataset="toy", paper_dataset="toy")
    number("k", 2.0, paper=1.0, tolerance=0.0, source="s", dataset="toy", paper_dataset="toy")
    number("j", 3.0, paper=3.0, tolerance=0.0, source="s", dataset="toy", paper_dataset="toy")
    records = json.loads((tmp_path / "02_designs.json").read_text())
    assert [(r["key"], r["ours"]) for r in records] == [("k", 2.0), ("j", 3.0)]
    assert not list(tmp_path.glob("*.tmp"))
    loaded = report.load_claims(tmp_path)
    assert [c.verdict for c in loaded] == [report.DIFFERS, report.AGREES]
    table = report.scorecard(loaded)
    assert list(table["chapter"]) == ["02_designs", "02_designs"]
    assert report.verdict_counts(loaded).to_dict() == {report.AGREES: 1, report.DIFFERS: 1, report.NOT_COMPARABLE: 0, report.HOLDS: 0, report.FAILS: 0, report.INCONCLUSIVE: 0, report.MEASURED: 0, report.DEPARTS: 0, report.NOT_CHECKED: 0}


def test_the_claims_of_one_registration_are_stored_in_one_write_after_those_of_earlier_ones(tmp_path, monkeypatch):
    monkeypatch.setenv(report.RESULTS_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv(report.CHAPTER_VARIABLE, "06_sampled_metrics")
    number("a", 1.0, paper=1.0, tolerance=0.0, dataset="toy", paper_dataset="toy")
    number("b", 1.0, paper=1.0, tolerance=0.0, dataset="toy", paper_dataset="toy")
    writes = []
    real = report.os.replace
    monkeypatch.setattr(report.os, "replace", lambda *paths: writes.append(paths) or real(*paths))
    keys = ["c", "a", "d"]
    stored = claims.register([claims.Number(k, k, 1.0, 0.0, "toy", "s") for k in keys], dict.fromkeys(keys, 2.0),
                             dataset="toy")
    assert len(writes) == 1 and [c.chapter for c in stored] == ["06_sampled_metrics"] * 3
    records = json.loads((tmp_path / "06_sampled_metrics.json").read_text())
    assert [(r["key"], r["ours"]) for r in records] == [("b", 1.0), ("c", 2.0), ("a", 2.0), ("d", 2.0)]


def test_without_a_results_dir_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(report.RESULTS_DIR_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    number("k", 1.0, paper=1.0, tolerance=0.0, source="s", dataset="toy", paper_dataset="toy")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("field", ["ours", "value", "tolerance"])
def test_non_finite_values_are_rejected(field):
    values = {"ours": 1.0, "value": 1.0, "tolerance": 0.1} | {field: float("nan")}
    with pytest.raises(ValueError, match=field):
        number("k", values["ours"], paper=values["value"], tolerance=values["tolerance"], source="s", dataset="a", paper_dataset="a")


def test_corrupt_claims_file_is_named(tmp_path):
    (tmp_path / "03_x.json").write_text("{not json")
    with pytest.raises(ValueError, match="03_x.json"):
        report.load_claims(tmp_path)


def test_a_finding_holds_or_fails_on_any_dataset(tmp_path, monkeypatch):
    monkeypatch.setenv(report.RESULTS_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv(report.CHAPTER_VARIABLE, "03_sparsity_bias")
    yes = finding("f", label="random 1R precision is 1/t", holds=True, evidence="0.0101 vs 0.0100",
                         source="IRJ Sec. 4", dataset="ml-100k")
    no = finding("g", label="popularity is first", holds=False, evidence="second", source="IRJ", dataset="x")
    assert (yes.verdict, no.verdict) == (report.HOLDS, report.FAILS)
    loaded = report.load_claims(tmp_path)
    assert [(c.kind, c.label, c.verdict) for c in loaded] == [
        (report.FINDING, "random 1R precision is 1/t", report.HOLDS),
        (report.FINDING, "popularity is first", report.FAILS),
    ]


def test_a_finding_needs_its_statement_and_evidence():
    with pytest.raises(ValueError, match="evidence"):
        finding("f", label="x", holds=True, evidence="", source="s", dataset="d")
    with pytest.raises(ValueError, match="tolerance"):
        claims.Number("n", "a number", 1.0, -0.1, "d", "s")


def test_summary_counts_verdicts_per_chapter_and_details_link_to_anchors(tmp_path, monkeypatch):
    monkeypatch.setenv(report.RESULTS_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv(report.CHAPTER_VARIABLE, "03_sparsity_bias")
    finding("f", label="random 1R precision is 1/t", holds=True, evidence="0.0101 vs 0.0100",
                   source="IRJ Sec. 4.2", dataset="ml-100k", anchor="fig-sparsity-1r")
    number("n", 0.5, paper=0.08, tolerance=0.01, source="IRJ Fig. 4", dataset="ml-100k", paper_dataset="ml-1m")
    claims = report.load_claims(tmp_path)
    row = report.summary(claims).iloc[0]
    assert row["chapter"] == "03_sparsity_bias"
    assert (row["papers' statements hold"], row["papers' statements fail"], row["numbers not comparable"],
            row["numbers agree"]) == (1, 0, 1, 0)
    html = report.details_html(claims)
    assert 'href="03_sparsity_bias.html#fig-sparsity-1r"' in html and "0.0101 vs 0.0100" in html


def test_mixed_builds_are_named():
    import pandas as pd

    same = pd.DataFrame({"chapter": ["01_a", "02_b"], "dataset": ["ml-100k"] * 2, "seed": [0, 0]})
    assert report.mixed_builds(same) == ""
    mixed = pd.DataFrame({"chapter": ["01_a", "02_b", "scorecard"], "dataset": ["ml-100k", "lastfm-2k", "x"],
                          "seed": [0, 7, 0]})
    notice = report.mixed_builds(mixed)
    assert "lastfm-2k (seed 7): 02_b" in notice and "ml-100k (seed 0): 01_a" in notice and "scorecard" not in notice


def test_chapter_titles_come_from_the_page_heading(tmp_path) -> None:
    (tmp_path / "03_sparsity.py").write_text("# %% [markdown]\n# # The test-sparsity bias\n#\n# text\n")
    assert report.chapter_title("03_sparsity", tmp_path) == "3. The test-sparsity bias"
    assert report.chapter_title("99_missing", tmp_path) == "99_missing"


def test_headline_counts_numbers_by_where_the_paper_measured_them_and_statements_by_paper_and_origin():
    from recbias.bookkit.scorecard import Claim
    claims = [
        Claim(kind="number", key="a", label="a", source="s", dataset="ml-1m", ours=1, paper=1, tolerance=0,
              paper_dataset="ml-1m"),
        Claim(kind="number", key="b", label="b", source="s", dataset="synthetic", ours=1, paper=2, tolerance=0,
              paper_dataset="ml-1m"),
        Claim(kind="number", key="c", label="c", source="s", dataset="toy", ours=1, paper=2, tolerance=0,
              paper_dataset="toy"),
        Claim(kind="number", key="d", label="d", source="s", dataset="preference-free worlds of ML-1M's shape", ours=1, paper=1, tolerance=0.1,
              paper_dataset="preference-free worlds of ML-1M's shape"),
        Claim(kind="finding", key="e", label="e", source="IRJ 2017 Sec. 4", dataset="x", outcome="holds", evidence="."),
        Claim(kind="finding", key="f", label="f", source="IRJ 2017 Sec. 5", dataset="x", outcome="fails", evidence="."),
        Claim(kind="finding", key="g", label="g", source="IRJ 2017 Sec. 5", dataset="x", outcome="fails", evidence=".",
              departs="other systems"),
        Claim(kind="finding", key="h", label="h", source="KDD 2020 Sec. 5", dataset="x", outcome="inconclusive",
              evidence="."),
        Claim(kind="finding", key="i", label="i", source="KDD 2020 Sec. 6", dataset="x", outcome="measured",
              evidence="."),
        Claim(kind="finding", key="j", label="j", source="recbias chapter 8", dataset="x", outcome="holds",
              evidence=".", origin=report.BOOK),
        Claim(kind="finding", key="k", label="k", source="IRJ 2017 Eq. 2", dataset="x", outcome="holds",
              evidence=".", origin=report.CODE),
    ]
    numbers = report.headline_numbers(claims).set_index("published numbers")
    assert numbers.loc["from real data", ["checked", "agree", "not comparable"]].tolist() == [1, 1, 1]
    assert numbers.loc["from toy examples", "differ"] == 1
    assert numbers.loc["from simulations", "agree"] == 1
    table = report.headline_findings(claims).set_index("statements")
    irj = table.loc[f"of {report.PAPERS['IRJ']}"]
    assert irj[["checked", "hold", "fail", "fail where the book departs"]].tolist() == [3, 1, 1, 1]
    kdd = table.loc[f"of {report.PAPERS['KDD 2020']}"]
    assert kdd[["checked", "inconclusive", "no verdict"]].tolist() == [2, 1, 1]
    assert table.loc["statements of this book (not reproductions)", "hold"] == 1
    assert table.loc["checks of our code (not reproductions)", "checked"] == 1
    details = report.chapter_details("02_designs", claims[4:])
    assert ("1 of 5 statements of the papers hold, 1 fail, 1 inconclusive, 1 measured, no verdict, "
            "1 fail where the book departs, 1 statement of this book, 1 check of our code") in details
    assert "Departs: other systems" in details
    assert details.index("<th>statement of a paper</th>") < details.index("<th>statement of this book</th>") \
        < details.index("<th>check of our code</th>")


def test_a_page_lists_the_papers_statements_first_and_says_whose_each_is():
    from recbias.bookkit.scorecard import Claim
    claims = [Claim(kind="finding", key=k, label=k, source="s", dataset="x", outcome="holds", evidence=".", origin=o)
              for k, o in (("code", report.CODE), ("book", report.BOOK), ("paper", report.PAPER))]
    table = report.findings_table(claims)
    assert table["statement"].tolist() == ["paper", "book", "code"]
    assert table["kind"].tolist() == ["statement of a paper", "statement of this book", "check of our code"]

"""Chapter 2's tables, the values its prose quotes and its data-dependent sentences, checked on values worked
out by hand and at the edges where their wording changes."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest
from designs_study import one_dataset, two_datasets

from recbias.bookkit.scorecard import FINDING, NUMBER, Claim
from recbias.chapters.c02_designs.report import prose, tables
from recbias.chapters.c02_designs.study import comparison, toy, truth
from recbias.text import TARGET_SIZE_HTML


@pytest.fixture(scope="module", autouse=True)
def scratch_cache(tmp_path_factory):
    """Fits of this module go to a scratch cache, not to the repository's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


# ---------------------------------------------------------------------- the designs


def test_why_the_second_dataset_is_skipped() -> None:
    assert "is empty" in prose.why_not_second("", "synthetic")
    assert "chapter's own dataset" in prose.why_not_second("ml-100k", "ml-100k")
    assert "not available" in prose.why_not_second("csv:/no/such/file.csv", "synthetic")
    assert prose.why_not_second("synthetic-small", "synthetic") == ""
    with pytest.raises(ValueError, match="no-such-dataset"):
        prose.why_not_second("no-such-dataset", "synthetic")


def test_the_second_note_says_how_the_second_dataset_was_split() -> None:
    assert "no timestamps" in prose.second_note(two_datasets())
    by_time = dataclasses.replace(two_datasets(), second_split="temporal")
    assert prose.second_note(by_time) == ("The second dataset, *other*, was split once by time (the most recent "
                                           "ratings in test), as the papers did on Last.fm.")
    assert prose.second_note(one_dataset(), "skipped") == "skipped"


def test_the_toy_values_name_the_target_sets_of_u() -> None:
    assert prose.toy_values(toy.toy_target_sets(seed=0)) == {"toy_ai_an": "{a, b, c, d, e}", "toy_ti_an": "{b, c, d, e}"}


def test_weight_values_read_a_count_by_hand() -> None:
    said = prose.weight_values(comparison.RelevantWeight(4, 1, 5 / 8))
    assert said == {"weight_users": "4 users", "weight_top": "1 user", "weight_top_share": "25%", "weight_share": "62%"}


def test_settings_are_a_small_table_in_words_that_names_each_systems_set() -> None:
    settings = tables.system_settings(seed=0).set_index("system")
    assert list(settings.index) == ["Popularity", "pLSA", "Random", "rating-MF", "rating-kNN", "implicit MF (top-N)",
                                    "user-kNN (top-N)"]
    assert settings["set"].tolist() == ["both sets"] * 3 + ["papers' set"] * 2 + ["today's top-N set"] * 2
    assert "20 aspects" in settings.loc["pLSA", "settings"] and "seed" not in settings.loc["pLSA", "settings"]
    assert settings.loc["Random", "settings"] == "–"
    assert "predicted rating" in settings.loc["rating-MF", "model"] and "Koren" in settings.loc["rating-MF", "model"]
    assert "implicit feedback" in settings.loc["implicit MF (top-N)", "model"] and "unnormalised" in settings.loc["user-kNN (top-N)", "model"]


def test_the_settings_table_gives_a_reason_for_every_departure() -> None:
    study = two_datasets()
    table = tables.settings_table(study, sweep_users=400).set_index("setting")
    assert table.loc["splits", "this page"] == "2 coin-flip splits, about 20% of the ratings in test"
    assert table.loc["splits", "why it differs"] == "the page's <code>folds</code> and <code>test_ratio</code>"  # 2, not 5
    assert table.loc["1R design", "why it differs"] == "the page's <code>target_size</code>"  # 1R TI-NN(49)
    assert table.loc["AR designs", ["this page", "why it differs"]].tolist() == ["AI-AN and TI-AN", ""]
    assert table.loc["its split", "why it differs"] == "it has no timestamps"
    assert table.loc["its AR design", "this page"] == "TI-NN(100)"
    assert table.loc["users of the size sweep", "this page"] == "at most 400, sampled"
    assert (table["why it differs"] != "").sum() == len(table) - 2  # relevance and AR designs as in the papers
    papers = dataclasses.replace(study, folds=study.folds * 3, choice=dataclasses.replace(study.choice, target_size=100))
    kept = tables.settings_table(papers, sweep_users=None).set_index("setting")["why it differs"]
    assert (kept["1R design"], kept["users of the size sweep"]) == ("", "")
    assert kept["splits"] == "the page's <code>folds</code> and <code>test_ratio</code>"  # 6 splits
    alone = tables.settings_table(one_dataset(), sweep_users=None)
    assert "second dataset" not in alone["setting"].tolist()


# ------------------------------------------------------------------ the comparison


def test_the_size_table_counts_splits_runs_and_candidates() -> None:
    study = two_datasets()
    sizes = tables.size_table(study)
    assert sizes["splits"].tolist() == [2, 2, 2, 1, 1]
    assert sizes.loc[2, "runs"] == pytest.approx(study.main.runs.query("design == '1R TI-NN(49)'")
                                                 .groupby("fold")["run"].nunique().mean())


def test_the_precision_table_shows_each_mean_with_its_half_width_per_system_and_set() -> None:
    study = two_datasets()
    table = tables.precision_table(study)
    row = study.summary.iloc[0]
    cell = table.loc[0, (row["dataset"], row["design"])]
    assert table.loc[0, ("system", "")] == row["system"] and table.loc[0, ("set", "")] == "both sets"
    assert cell.startswith(f"{row['mean']:.4f}<br>") and f"± {(row['ci_high'] - row['ci_low']) / 2:.4f}" in cell
    assert [c for c in table.columns if c[0] not in ("set", "system")] == study.panels
    assert list(zip(table[("set", "")], table[("system", "")], strict=True)) == [
        ("both sets", "Popularity"), ("both sets", "pLSA"), ("both sets", "Random"), ("papers' set", "rating-MF"),
        ("papers' set", "rating-kNN"), ("today's top-N set", "implicit MF (top-N)"), ("today's top-N set", "user-kNN (top-N)")]


def test_the_significance_table_shows_the_counts_and_the_closest_pair_of_each_set() -> None:
    study = two_datasets()
    shown = tables.significance_table(study)
    assert list(zip(shown["dataset"], shown["design"], shown["set"], strict=True)) == [
        (*panel, name) for panel in study.panels for name in ("papers' set", "today's top-N set")]
    for row, which in ((0, comparison.PAPERS), (1, comparison.TOP_N)):
        tests = study.tests(which)
        assert shown["pairs with p < 0.001"].iloc[row] == f"{tests['significant'].iloc[0]} of 10"
        a, b = tests["closest pair"].iloc[0]
        difference = f"{tests['difference'].iloc[0]:+.4f}".replace("-", "\u2212")
        assert shown["closest pair"].iloc[row].startswith(f"{a} vs {b}<br><small>{difference}, p = ")
        assert set(tests["closest pair"].iloc[0]) <= set(comparison.SETS[which])


@pytest.mark.parametrize("p, shown", [(0.25, "p = 0.250"), (1.4e-4, "p = 1.4 × 10<sup>−4</sup>"), (0.0, "p < 1e-300")])
def test_apair_cell_words_its_p_value_at_the_edges(p: float, shown: str) -> None:
    assert tables.pair_cell(("a", "b"), -0.01, p) == f"a vs b<br><small>−0.0100, {shown}</small>"


def test_prose_values_count_1r_runs_and_read_the_study() -> None:
    study = two_datasets()
    said = prose.prose_values(study)
    assert said["runs_1r"] == f"{study.one_r_runs:,}"
    assert said["runs_1r"] in said["map_mrr"] and "of the 2 splits" in said["map_mrr"]
    assert (said["ai_design"], said["ti_design"]) == ("AI-AN", "TI-AN") and said["ceiling"] == "0.100"
    assert said["pairs_significant_papers"] == f"{study.significant_pairs(comparison.PAPERS)[0]} of 50"
    assert said["pairs_significant_top_n"] == f"{study.significant_pairs(comparison.TOP_N)[0]} of 50"
    assert said["ar_order_papers"].count(">") + said["ar_order_papers"].count("=") == 4
    assert "implicit MF (top-N)" in said["one_r_order_top_n"] and "rating-MF" not in said["one_r_order_top_n"]
    assert said["popularity_span"].startswith("Across the designs and datasets of this page, the P@10 of Popularity")
    assert (said["paper_pop_ar"], said["paper_pop_ar_lastfm"]) == ("0.08", "0.35")
    table = tables.metric_table(study)
    assert table.columns.tolist() == ["design", "system", "set", *comparison.METRICS]
    assert table["design"].tolist() == ["TI-AN"] * 7 + ["1R TI-NN(49)"] * 7
    assert table["set"].tolist()[:7] == ["both sets"] * 3 + ["papers' set"] * 2 + ["today's top-N set"] * 2


@pytest.mark.parametrize("low, high, text", [
    (0.05, 0.35, "runs from 0.050 to 0.350, a factor of 7.0."),
    (0.0, 0.35, "runs from 0.000 to 0.350."),
    (0.1231, 0.1234, "stays at 0.123."),  # a range of one printed value reads as that value
])
def test_the_span_of_a_system_reads_right_at_its_edges(low: float, high: float, text: str) -> None:
    assert prose.span_text("Popularity", low, high).endswith(text)


@pytest.mark.parametrize("gap, runs, splits, text", [
    (0.0, 1234, 2, "the two are equal on every one of the 1,234 1R runs of the 2 splits"),
    (1e-12, 10, 1, "over the 10 1R runs of the split they differ by at most 1.0e-12, a rounding error"),
    (1e-9, 10, 1, "yet over the 10 1R runs of the split they differ by up to 1.0e-09, which calls for a look"),
])
def test_map_and_mrr_are_read_at_the_edges(gap: float, runs: int, splits: int, text: str) -> None:
    assert prose.map_mrr_clause(gap, runs, splits).startswith(text)


def test_the_candidates_clause_says_what_ai_adds() -> None:
    assert prose.candidates_clause(0.0049).startswith("almost every item has a test rating in every split (99.5%")
    assert prose.candidates_clause(0.005).startswith("on average 0.5% of the items have no test rating")


def metric_table(**columns: list[float]) -> pd.DataFrame:
    frame = pd.DataFrame({"design": ["AR"] * 3 + ["1R"] * 3, "system": ["a", "b", "c"] * 2})
    return frame.assign(**{"P@10": [3, 2, 1, 3, 2, 1]}, **{m: columns.get(m, [3, 2, 1, 3, 2, 1])
                                                            for m in comparison.METRICS[1:]})


def test_metric_orders_text_names_the_metrics_that_disagree_with_precision() -> None:
    assert prose.metric_orders_text(metric_table()) == ("Within each design, every other metric of the table orders "
                                                         "the systems as P@10 does.")
    assert prose.metric_orders_text(metric_table(MRR=[1, 2, 3, 3, 2, 1])).endswith(
        "7 of the 8 other metric columns order the systems as P@10 does; the exceptions are MRR under AR.")
    reversed_all = dict.fromkeys(comparison.METRICS[1:], [1, 2, 3, 1, 2, 3])
    assert "no other metric" in prose.metric_orders_text(metric_table(**reversed_all))


def finding(outcome: str, departs: str = "", key: str = "fig2/x") -> Claim:
    return Claim(kind=FINDING, key=key, label="s", source="src", dataset="d", outcome=outcome, departs=departs)


@pytest.mark.parametrize("outcomes, text", [
    ([("holds", "")], "Of the 1 statement of the papers checked on their own set of systems, 1 holds."),
    ([("holds", ""), ("fails", "")], "Of the 2 statements of the papers checked on their own set of systems, 1 holds "
                                     "and 1 does not hold."),
    ([("fails", ""), ("fails", ""), ("inconclusive", "")],
     "Of the 3 statements of the papers checked on their own set of systems, 2 do not hold and 1 is inconclusive "
     "(within noise)."),
    ([("fails", "other data"), ("inconclusive", "")],
     "Of the 2 statements of the papers checked on their own set of systems, 1 fails where the book departs from "
     "the papers and 1 is inconclusive (within noise)."),
])
def test_the_outcomes_on_the_papers_set_are_counted_in_words(outcomes: list[tuple[str, str]], text: str) -> None:
    assert prose.outcomes_text([finding(*o) for o in outcomes]) == text


def test_the_twins_on_todays_set_are_counted_apart_as_departures() -> None:
    found = [finding("holds"), finding("fails", "today's systems", "fig2/x/todays-set"),
             finding("holds", "today's systems", "fig2/y/todays-set"),
             Claim(kind=NUMBER, key="n", label="n", source="s", dataset="d", ours=1.0, paper=1.0, tolerance=0.0)]
    assert prose.outcomes_text(found) == (
        "Of the 1 statement of the papers checked on their own set of systems, 1 holds; of the 2 checked again on "
        "today's top-N set, 1 holds and 1 fails where the book departs from the papers, and these count as "
        "departures, not as failures of the papers.")


def test_the_data_text_says_how_the_data_differ_from_the_papers() -> None:
    study = two_datasets()
    assert prose.data_text(study) == (
        "The data differ: the papers used MovieLens 1M, this page a simulated world (synthetic-small) whose systems "
        "need not behave as they do on real ratings, and other stands in for the papers' Last.fm sample; it has no "
        "timestamps, so the papers' temporal split cannot be repeated on it.")
    observed = dataclasses.replace(one_dataset(), ratings=dataclasses.replace(
        one_dataset().ratings, name="ml-100k", true_relevance=None))
    assert prose.data_text(observed) == ("The data differ: the papers used MovieLens 1M, this page MovieLens 100K "
                                          "(1998) (5,000 ratings by 200 users of 300 items).")
    own = dataclasses.replace(one_dataset(), ratings=dataclasses.replace(one_dataset().ratings, name="ml-1m"))
    assert prose.data_text(own).startswith("The main dataset is the papers' own, MovieLens 1M")


def test_the_numbers_table_sets_the_papers_values_against_ours() -> None:
    numbers = [Claim(kind=NUMBER, key="k", label="Popularity P@10, AR", source="s", dataset="ml-1m", ours=0.0812,
                     paper=0.08, tolerance=0.01, paper_dataset="ml-1m"), finding("holds")]
    table = tables.numbers_table(numbers)
    assert table.to_dict("records") == [{"published number": "Popularity P@10, AR", "paper": "0.08",
                                         "paper's dataset": "ml-1m", "ours": "0.081", "our dataset": "ml-1m",
                                         "verdict": "agrees"}]


# ------------------------------------------------------------------------------ lemma


def sweep_frame(rows: list[tuple[str, float, str, float, float, float]]) -> pd.DataFrame:
    """A sweep table as the lemma sweep returns it, from (sweep, x, system, lower, value, upper)."""
    frame = pd.DataFrame(rows, columns=["sweep", "x", "system", "lower", "value", "upper"])
    return frame.assign(runs=100, users=40, holds=(frame["lower"] <= frame["value"]) & (frame["value"] <= frame["upper"]))


def test_the_lemma_values_read_the_sweeps_whatever_they_show() -> None:
    narrowing_absolutely_only = sweep_frame([
        ("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("removed test ratings", 0.9, "a", 0.1, 0.1, 0.1),
        ("target size", 100.0, "a", 0.1, 0.2, 0.3), ("target size", 1000.0, "a", 0.01, 0.02, 0.05),
    ])
    said = prose.lemma_values(narrowing_absolutely_only)
    assert said["lemma_verdict"] == "The bounds hold on all 4 points."
    assert (said["band_full"], said["band_full_relative"], said["band_thin"], said["band_thin_relative"],
            said["band_removed"]) == ("0.2000", "100%", "0.0000", "0%", "90%")
    assert "from 0.2000 (100%) with target sets of 100 items to 0.0400 (200%) with 1,000" in said["band_growth"]
    assert "relative to the 1R value it does not" in said["band_growth"]
    both = sweep_frame([("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("target size", 100.0, "a", 0.1, 0.2, 0.3),
                        ("target size", 200.0, "a", 0.1, 0.15, 0.15)])
    assert "narrows in absolute terms and relative to the 1R value" in prose.lemma_values(both)["band_growth"]
    widening = sweep_frame([
        ("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("target size", 100.0, "a", 0.1, 0.2, 0.2),
        ("target size", 200.0, "a", 0.1, 0.2, 0.3),
    ])
    assert "does not narrow here" in prose.lemma_values(widening)["band_growth"]
    too_small = sweep_frame([("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("removed test ratings", 0.5, "a", 0.3, 0.2, 0.3)])
    said = prose.lemma_values(too_small)
    assert said["lemma_verdict"].startswith("The bounds hold on 1 of the 2 points only")
    assert said["band_growth"] == "The catalogue is too small for the size sweep."


def test_lemma_table_has_a_readable_setting_per_point() -> None:
    sweep = sweep_frame([
        ("removed test ratings", 0.2, "a", 0.1, 0.2, 0.3), ("target size", 1000.0, "a", 0.1, 0.2, 0.3),
    ])
    table = tables.lemma_table(sweep)
    assert table[("setting", "")].tolist() == ["20% removed", f"{TARGET_SIZE_HTML} = 1,000"]
    assert [table[("a", c)].tolist() for c in ("lower", "1R P@10", "upper")] == [["0.1000"] * 2, ["0.2000"] * 2, ["0.3000"] * 2]
    assert table[("runs", "")].tolist() == ["100", "100"]


# ------------------------------------------------------------------------------ truth


def test_the_orders_table_sets_every_design_against_the_truth_of_its_set() -> None:
    study = two_datasets()
    check = truth.truth_check(study)
    orders = tables.orders_table(study, check).set_index(["set", "dataset", "design"])
    assert len(orders) == 2 * (1 + len(study.panels))  # per set: the truth and every design
    for which, name in ((comparison.PAPERS, "papers' set"), (comparison.TOP_N, "today's top-N set")):
        mine = check.among(comparison.SETS[which])
        tau, share, best = mine.agreement("TI-AN")
        assert orders.loc[(name, "synthetic-small", "TI-AN"), "τ"] == f"{tau:.2f}"
        assert orders.loc[(name, "synthetic-small", "TI-AN"), "pairs in true order"] == f"{round(share * 10)} of 10"
        assert orders.loc[(name, "synthetic-small", "true P@10"), "order, best first"].startswith(mine.true.idxmax())
        assert orders.loc[(name, "other", "TI-NN(100)"), "τ"] == "–"
    assert "implicit MF (top-N)" not in orders.loc[("papers' set", "other", "TI-NN(100)"), "order, best first"]
    text = prose.truth_text(check, "synthetic-small")
    assert text.startswith("In the papers' set the true order is **") and "In today's top-N set the true order" in text


def test_observed_data_get_the_measured_orders_only_and_a_caption_that_says_so() -> None:
    table = tables.orders_table(two_datasets())
    assert table.columns.tolist() == ["set", "dataset", "design", "order, best first", "P@10 of the first"]
    assert "cannot be checked" in prose.truth_text(None, "ml-100k")
    caption = prose.orders_caption(None, "ml-100k")
    assert "no true order" in caption and "τ" not in caption and "three columns" not in caption
    with_truth = prose.orders_caption(truth.truth_check(two_datasets()), "synthetic-small")
    assert "the last three columns compare" in with_truth and "Kendall's τ" in with_truth


def test_truth_text_reads_right_at_the_edges() -> None:
    check = truth.TruthCheck(
        "toy", pd.Series({"a": 0.30, "b": 0.29, "c": 0.10}),
        pd.DataFrame({"right": {"a": 0.3, "b": 0.2, "c": 0.1}, "close swap": {"a": 0.2, "b": 0.3, "c": 0.1}}),
    )
    text = prose.truth_text(check, "toy", {"toy set": ("a", "b", "c")})
    assert "only one of the designs orders" in text and "close in truth: the widest, b and a, differ by 3.3%" in text
    assert text.endswith("the best true precision, 0.300, is 1.0 times the best value any design measures here, "
                         "because most relevant items were never rated and count as failures.")
    far = dataclasses.replace(check, measured=pd.DataFrame({"far swap": {"a": 0.2, "b": 0.1, "c": 0.3}}))
    text = prose.truth_text(far, "toy", {"toy set": ("a", "b", "c")})
    assert "no design orders" in text and "c is measured above a, although its true P@10 is 67% lower" in text
    same = dataclasses.replace(check, measured=check.measured[["right"]])
    assert "every design orders the systems as the truth does." in prose.truth_text(same, "toy", {"toy set": "abc"})
    two_of_three = dataclasses.replace(check, measured=pd.DataFrame(
        {"x": check.measured["right"], "y": check.measured["right"], "z": check.measured["close swap"]}))
    assert "2 of the 3 designs order the systems" in prose.truth_text(two_of_three, "toy", {"toy set": "abc"})
    nothing = dataclasses.replace(check, measured=check.measured * 0)
    assert "scale differs" not in prose.truth_text(nothing, "toy", {"toy set": "abc"}) and not math.isnan(check.true.max())
    pair = prose.truth_text(check, "toy", {"first": ("a", "b"), "lonely": ("c",)})
    assert pair.startswith("In first the true order is **a > b**") and "lonely" not in pair

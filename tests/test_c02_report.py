"""Chapter 2's tables, checked on values worked out by hand and against the study they show."""

from __future__ import annotations

import pandas as pd
import pytest
from designs_study import supported, two_datasets

from recbias.bookkit.scorecard import FINDING, NUMBER, Claim
from recbias.bookkit.tables import COLUMN_EM, table_html, table_width
from recbias.chapters.c02_designs import report as tables
from recbias.chapters.c02_designs.study import comparison, support, truth
from recbias.text import TARGET_SIZE_HTML, fmt_p_clause, fmt_p_html


@pytest.fixture(scope="module", autouse=True)
def scratch_cache(tmp_path_factory):
    """Fits of this module go to a scratch cache, not to the repository's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


# ---------------------------------------------------------------------- the designs


def test_the_settings_of_each_preset_are_words_for_its_parameters() -> None:
    settings = tables.system_settings(seed=0)
    assert list(settings) == ["popularity", "plsa", "random", "rating-mf", "rating-user-knn", "mf", "user-knn"]
    assert settings["plsa"].startswith("20 aspects, 100 iterations") and "seed" not in settings["plsa"]
    assert settings["rating-user-knn"] == "50 neighbours" and settings["random"] == "–"
    assert "confidence weight 1" in settings["mf"] and "regularisation 0.1" in settings["rating-mf"]


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


def test_the_support_table_shows_each_system_s_support_with_its_set() -> None:
    found = supported()
    shown = tables.support_display(found)
    assert shown.columns.tolist() == ["set", "system", "median", "≤ 2 ratings", "mean"]
    assert shown["system"].tolist() == found.support["system"].tolist()
    assert shown["set"].tolist() == ["both sets"] * 3 + ["papers' set"] * 2 + ["beside the papers' set"] + [
        "today's top-N set"] * 2
    row = found.support.iloc[4]
    assert shown.iloc[4][["median", "≤ 2 ratings", "mean"]].tolist() == [
        f"{row['median']:g}", f"{row['few_share']:.1%}", f"{row['mean']:.1f}"]


def test_the_knn_table_shows_the_two_knns_and_random_and_the_test_between_the_knns() -> None:
    found, study = supported(), two_datasets()
    shown = tables.knn_table(found)
    assert shown.columns.tolist() == ["system", *study.choice.designs]
    assert shown["system"].tolist() == [*support.KNN_SYSTEMS, "p, rating-kNN (min. 2 neighbours) vs rating-kNN"]
    summary = found.knn.summary(["P@10"]).set_index(["system", "design"])
    mean, low, high = summary.loc[("Random", "TI-AN"), ["mean", "ci_low", "ci_high"]]
    assert shown.loc[2, "TI-AN"] == f"{mean:.4f}<br><small>± {(high - low) / 2:.4f}</small>"
    assert shown.loc[3, "1R TI-NN(49)"] == fmt_p_html(found.pvalue("1R TI-NN(49)"))


def test_the_support_numbers_quote_the_tables() -> None:
    found = supported()
    numbers = tables.support_numbers(found, "TI-AN", "1R TI-NN(49)")
    table = found.support.set_index("system")
    assert numbers["support_knn_median"] == f"{table.loc['rating-kNN', 'median']:g}"
    assert numbers["support_variant_few"] == f"{table.loc['rating-kNN (min. 2 neighbours)', 'few_share']:.1%}"
    assert numbers["support_popularity_median"] == f"{table.loc['Popularity', 'median']:g}"
    assert numbers["catalogue_few"] == f"{found.catalogue_few:.1%}" and numbers["few"] == "2"
    assert numbers["random_1r"] == f"{found.measured('1R TI-NN(49)')['Random']:.4f}"
    assert numbers["variant_ar"] == f"{found.measured('TI-AN')['rating-kNN (min. 2 neighbours)']:.4f}"
    assert numbers["variant_ar_p"] == fmt_p_clause(found.pvalue("TI-AN"))


@pytest.mark.parametrize("p, shown", [(0.25, "p = 0.250"), (1.4e-4, "p = 1.4 × 10<sup>−4</sup>"), (0.0, "p < 1e-300")])
def test_apair_cell_words_its_p_value_at_the_edges(p: float, shown: str) -> None:
    assert tables.pair_cell(("a", "b"), -0.01, p) == f"a vs b<br><small>−0.0100, {shown}</small>"


def test_the_metric_table_has_every_metric_of_both_designs_per_system_and_set() -> None:
    study = two_datasets()
    table = tables.metric_table(study)
    assert table.columns.tolist() == ["design", "system", "set", *comparison.METRICS]
    assert table["design"].tolist() == ["TI-AN"] * 7 + ["1R TI-NN(49)"] * 7
    assert table["set"].tolist()[:7] == ["both sets"] * 3 + ["papers' set"] * 2 + ["today's top-N set"] * 2
    means = study.main.summary(["MRR"]).set_index(["design", "system"])["mean"]
    assert table.set_index(["design", "system"])["MRR"].to_dict() == pytest.approx(
        {key: means[key] for key in zip(table["design"], table["system"], strict=True)})


def finding(outcome: str) -> Claim:
    return Claim(kind=FINDING, key="fig2/x", label="s", source="src", dataset="d", outcome=outcome)


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


def test_observed_data_get_the_measured_orders_only() -> None:
    table = tables.orders_table(two_datasets())
    assert table.columns.tolist() == ["set", "dataset", "design", "order, best first", "P@10 of the first"]


def test_the_widest_tables_fit_the_text_column_as_the_page_glues_them() -> None:
    """Precision per design, the metrics beyond P@10 and the orders against the truth, on two datasets: their set
    column wraps, and each fits the text column (:func:`recbias.bookkit.tables.table_width`)."""
    study = two_datasets()
    glued = {"precision": table_html(tables.precision_table(study), left=[("set", ""), ("system", "")],
                                     wrap=[("set", "")]),
             "metrics": table_html(tables.metric_table(study), dict.fromkeys(comparison.METRICS, "{:.3f}"),
                                   left=["design", "system", "set"], wrap=["set"]),
             "orders": table_html(tables.orders_table(study, truth.truth_check(study)),
                                  left=["set", "dataset", "design", tables.ORDER], wrap=["set"])}
    assert {name: table_width(html) for name, html in glued.items() if table_width(html) > COLUMN_EM} == {}

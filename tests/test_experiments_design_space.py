"""Chapter 2's driver modules: the toy matrix, the designs of the comparison, the lemma sweep and its band,
the comparison's tables and claims, and the order of systems against the truth."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.designs import build_runs
from recbias.evaluate import kendall_tau, true_quality
from recbias.experiments import (
    design_claims,
    design_figures,
    design_lemma,
    design_space,
    design_toy,
    design_truth,
)
from recbias.bookkit.page import design_note
from recbias.evaluate import experiment as runner
from recbias.evaluate.experiment import fit_systems
from recbias.splits import make_folds
from recbias.ratings import Ratings


@pytest.fixture(scope="module", autouse=True)
def scratch_cache(tmp_path_factory):
    """Fits of this module go to a scratch cache, not to the repository's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=0)


@pytest.fixture(scope="module")
def study(small: Ratings) -> design_space.DesignStudy:
    """Two splits of the small world, and a second world without timestamps as the second dataset."""
    other = dataclasses.replace(datasets.load("synthetic-small", seed=1), name="other", timestamps=None)
    return design_space.design_study(small, other, folds=2, target_size=50, second_nonrelevant=100, seed=3)


# ------------------------------------------------------------------------------ lemma


def test_lemma_sweep_bounds_hold_everywhere(small: Ratings) -> None:
    (fold,) = make_folds(small, folds=1, seed=0)
    systems = fit_systems({"pLSA": "plsa", "Popularity": "popularity"}, fold.train, cache=False)
    sweep = design_lemma.lemma_sweep(
        fold.train, fold.test, systems, target_sizes=(20, 50, 100, 250), removed=(0.0, 0.5), base_size=20, max_users=40
    )
    assert sweep["holds"].all()
    assert (sweep["lower"] <= sweep["value"]).all() and (sweep["value"] <= sweep["upper"]).all()
    growth = sweep[sweep["sweep"] == "target size"]
    assert growth["users"].nunique() == 1 and growth["users"].iloc[0] <= 40  # one population along the sweep
    assert growth["x"].max() < 250  # a size beyond most users' candidates is dropped
    removal = sweep[sweep["sweep"] == "removed test ratings"]
    runs_by_x = removal.groupby("x")["runs"].first()
    assert runs_by_x.loc[0.5] < runs_by_x.loc[0.0]


def sweep_frame(rows: list[tuple[str, float, str, float, float, float]]) -> pd.DataFrame:
    """A sweep table as :func:`design_lemma.lemma_sweep` returns it, from (sweep, x, system, lower, value, upper)."""
    frame = pd.DataFrame(rows, columns=["sweep", "x", "system", "lower", "value", "upper"])
    return frame.assign(runs=100, users=40, holds=(frame["lower"] <= frame["value"]) & (frame["value"] <= frame["upper"]))


def test_band_summary_averages_absolute_and_relative_widths_over_systems() -> None:
    sweep = sweep_frame([
        ("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("removed test ratings", 0.0, "b", 0.2, 0.4, 0.4),
        ("removed test ratings", 0.5, "a", 0.1, 0.1, 0.1), ("removed test ratings", 0.5, "b", 0.3, 0.3, 0.4),
        ("target size", 100.0, "a", 0.1, 0.2, 0.2), ("target size", 100.0, "b", 0.1, 0.2, 0.2),
    ])
    bands = design_lemma.band_summary(sweep).set_index(["sweep", "x"])
    assert bands.loc[("removed test ratings", 0.0), "width"] == pytest.approx((0.2 + 0.2) / 2)
    assert bands.loc[("removed test ratings", 0.0), "relative"] == pytest.approx((0.2 / 0.2 + 0.2 / 0.4) / 2)
    assert bands.loc[("removed test ratings", 0.5), "width"] == pytest.approx(0.05)
    assert bands.loc[("target size", 100.0), "relative"] == pytest.approx(0.5)
    assert list(bands.index) == [("removed test ratings", 0.0), ("removed test ratings", 0.5), ("target size", 100.0)]


def test_band_text_reads_the_sweeps_whatever_they_show() -> None:
    narrowing_absolutely_only = sweep_frame([
        ("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("removed test ratings", 0.9, "a", 0.1, 0.1, 0.1),
        ("target size", 100.0, "a", 0.1, 0.2, 0.3), ("target size", 1000.0, "a", 0.01, 0.02, 0.05),
    ])
    text = design_lemma.band_text(narrowing_absolutely_only)
    assert text.startswith("The bounds hold on all 4 points.")
    assert "from 0.2000 (100%) with target sets of 100 items to 0.0400 (200%) with 1,000" in text
    assert "relative to the 1R value it does not" in text
    widening = sweep_frame([
        ("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("target size", 100.0, "a", 0.1, 0.2, 0.2),
        ("target size", 200.0, "a", 0.1, 0.2, 0.3),
    ])
    assert "does not narrow here" in design_lemma.band_text(widening)
    too_small = sweep_frame([("removed test ratings", 0.0, "a", 0.1, 0.2, 0.3), ("removed test ratings", 0.5, "a", 0.3, 0.2, 0.3)])
    text = design_lemma.band_text(too_small)
    assert text.startswith("The bounds hold on 1 of the 2 points only") and text.endswith("too small for the size sweep.")
    assert design_lemma.lemma_finding(too_small)["holds"] is False


def test_lemma_table_has_a_readable_setting_per_point() -> None:
    sweep = sweep_frame([
        ("removed test ratings", 0.2, "a", 0.1, 0.2, 0.3), ("target size", 1000.0, "a", 0.1, 0.2, 0.3),
    ])
    table = design_lemma.lemma_table(sweep)
    assert table[("setting", "")].tolist() == ["20% removed", f"{design_lemma.SIZE} = 1,000"]
    assert [table[("a", c)].tolist() for c in ("lower", "1R P@10", "upper")] == [["0.1000"] * 2, ["0.2000"] * 2, ["0.3000"] * 2]


# ------------------------------------------------------------------------------- toy


def test_fig1_toy_target_sets_of_u() -> None:
    train, test = design_toy.fig1_toy()
    u = design_toy.TOY_USERS.index("u")
    names = design_toy.TOY_ITEMS

    def sets(design: str) -> list[str]:
        runs = build_runs(train, test, design, seed=0)
        return [
            "".join(names[i] for i in runs.items[runs.offsets[k] : runs.offsets[k + 1]])
            for k in np.flatnonzero(runs.users == u)
        ]

    assert sets("AI-AN") == ["abcde"]
    assert sets("TI-AN") == ["bcde"]
    nn = sets("1R TI-NN(1)")
    assert len(nn) == 2 and nn[0][-1] == "d" and nn[1][-1] == "e" and all(s[0] in "bc" for s in nn)
    assert all(s[0] in "abc" for s in sets("1R AI-NN(1)"))


def test_toy_target_sets_label_every_set_of_u_and_its_relevant_items() -> None:
    toy = design_toy.toy_target_sets(seed=0)
    assert [t.label for t in toy] == ["AI-AN", "TI-AN", "AI-NN(1)", "TI-NN(1)", "1R AI-NN(1): $T_u^1$",
                                      "1R AI-NN(1): $T_u^2$", "1R TI-NN(1): $T_u^1$", "1R TI-NN(1): $T_u^2$"]
    d, e = design_toy.TOY_ITEMS.index("d"), design_toy.TOY_ITEMS.index("e")
    assert toy[0].letters == "{a, b, c, d, e}" and toy[1].letters == "{b, c, d, e}"
    assert all(t.relevant == {d, e} for t in toy[:4])
    assert [t.relevant for t in toy[4:]] == [{d}, {e}, {d}, {e}]
    assert all(len(t.items) == 2 for t in toy[4:])  # one relevant item and NN(1)


# --------------------------------------------------------------------- the designs


def test_an_entries_count_users_with_a_liked_item_times_the_catalogue(small: Ratings) -> None:
    users = len(set(small.users[small.values >= small.positive_threshold].tolist()))
    assert runner.an_entries(small) == users * small.n_items


def test_an_designs_give_way_to_nn_only_above_the_limit(small: Ratings) -> None:
    entries = runner.an_entries(small)
    at_limit = runner.choose_designs(small, target_size=100, max_an_entries=entries, n_nonrelevant=50)
    assert at_limit.designs == ["AI-AN", "TI-AN", "1R TI-NN(99)"] and not at_limit.sampled
    assert design_note(at_limit, small) == ""
    above = runner.choose_designs(small, target_size=20, max_an_entries=entries - 1, n_nonrelevant=50)
    assert above.designs == ["AI-NN(50)", "TI-NN(50)", "1R TI-NN(19)"] and above.sampled
    assert above.main_ar == "TI-NN(50)"
    assert f"about {entries:,} items" in design_note(above, small)


def test_impossible_designs_are_refused_early(small: Ratings) -> None:
    with pytest.raises(ValueError, match="target_size = 5000 exceeds"):
        runner.choose_designs(small, target_size=5000, max_an_entries=10**9, n_nonrelevant=50)
    with pytest.raises(ValueError, match="at least 2"):
        runner.choose_designs(small, target_size=1, max_an_entries=10**9, n_nonrelevant=50)
    with pytest.raises(ValueError, match="lower the sample size"):
        runner.choose_designs(small, target_size=20, max_an_entries=1, n_nonrelevant=small.n_items)
    with pytest.raises(ValueError, match="second_nonrelevant = 5000 leaves no run on synthetic-small"):
        design_space.design_study(small, small, folds=1, second_nonrelevant=5000)


def test_the_second_dataset_is_split_by_time_when_it_has_timestamps(small: Ratings) -> None:
    assert small.timestamps is not None and design_space.second_split(small) == "temporal"
    train, _ = design_toy.fig1_toy()
    assert train.timestamps is None and design_space.second_split(train) == "coin"


def test_why_the_second_dataset_is_skipped() -> None:
    assert "is empty" in design_space.why_not_second("", "synthetic")
    assert "chapter's own dataset" in design_space.why_not_second("ml-100k", "ml-100k")
    assert "not available" in design_space.why_not_second("csv:/no/such/file.csv", "synthetic")
    assert design_space.why_not_second("synthetic-small", "synthetic") == ""
    with pytest.raises(ValueError, match="no-such-dataset"):
        design_space.why_not_second("no-such-dataset", "synthetic")


def test_relevant_weight_matches_a_count_by_hand() -> None:
    # relevant test ratings per user: 5, 1, 1, 1 (user 4 has none); the top tenth is one user
    users = np.array([0, 0, 0, 0, 0, 1, 2, 3, 4, 0])
    values = np.array([5, 5, 5, 5, 5, 5, 5, 5, 2, 2], dtype=float)
    test = Ratings.from_codes(users, np.arange(10), values, (5, 10), positive_threshold=5)
    weight = design_space.relevant_weight(test)
    assert (weight.users, weight.top_users, weight.share) == (4, 1, 5 / 8)
    text = design_space.weight_text(weight, "toy")
    assert "4 users have at least one" in text and "The user with the most relevant test items (25% of them) holds 62%" in text
    with pytest.raises(ValueError, match="no relevant rating"):
        design_space.relevant_weight(Ratings.from_codes(users, np.arange(10), values * 0 + 1, (5, 10), positive_threshold=5))


def test_the_1r_ceiling_is_one_over_n(small: Ratings) -> None:
    (fold,) = make_folds(small, folds=1, seed=2)
    assert design_space.one_r_ceiling(fold.train, fold.test, "1R TI-NN(49)", n=10) == pytest.approx(0.1)
    assert design_space.one_r_ceiling(fold.train, fold.test, "1R TI-NN(49)", n=4) == pytest.approx(0.25)


def test_settings_are_a_small_table_in_words() -> None:
    settings = design_space.system_settings(seed=0).set_index("system")
    assert list(settings.index) == ["Popularity", "pLSA", "MF", "user-kNN", "Random"]
    assert "20 aspects" in settings.loc["pLSA", "settings"] and "seed" not in settings.loc["pLSA", "settings"]
    assert settings.loc["Random", "settings"] == "–"


# ------------------------------------------------------------------ the comparison


def test_the_study_runs_every_design_on_both_datasets(study: design_space.DesignStudy, small: Ratings) -> None:
    assert study.choice.designs == ["AI-AN", "TI-AN", "1R TI-NN(49)"]
    assert study.panels == [("synthetic-small", "AI-AN"), ("synthetic-small", "TI-AN"),
                            ("synthetic-small", "1R TI-NN(49)"), ("other", "TI-NN(100)"), ("other", "1R TI-NN(49)")]
    assert study.second_split == "coin" and "no timestamps" in study.second_note
    summary = study.summary
    assert list(zip(summary["dataset"], summary["design"], strict=True))[::5] == study.panels
    assert summary["system"].tolist() == study.systems * len(study.panels)
    sizes = design_space.size_table(study)
    assert sizes["splits"].tolist() == [2, 2, 2, 1, 1]
    assert sizes.loc[2, "runs"] == pytest.approx(study.main.runs.query("design == '1R TI-NN(49)'")
                                                 .groupby("fold")["run"].nunique().mean())
    # the first split of the study is fold 0 of the page's dataset, as every chapter draws it
    first = make_folds(small, folds=1, seed=3)[0]
    assert np.array_equal(study.folds[0].test.items, first.test.items)


def test_the_precision_table_shows_each_mean_with_its_half_width(study: design_space.DesignStudy) -> None:
    table = design_space.precision_table(study)
    row = study.summary.iloc[0]
    cell = table.loc[0, row["system"]]
    assert cell.startswith(f"{row['mean']:.4f}<br>") and f"± {(row['ci_high'] - row['ci_low']) / 2:.4f}" in cell
    assert list(zip(table["dataset"], table["design"], strict=True)) == study.panels


def test_pair_tests_count_the_significant_pairs_of_each_design(study: design_space.DesignStudy) -> None:
    tests = study.tests
    assert (tests["pairs"] == 10).all() and len(tests) == len(study.panels)
    comparison = study.main.comparison("P@10", study.systems)
    on_ti = comparison[comparison["design"] == "TI-AN"]
    row = tests[(tests["dataset"] == "synthetic-small") & (tests["design"] == "TI-AN")].iloc[0]
    assert row["significant"] == (on_ti["wilcoxon_pvalue"] < 1e-3).sum()
    assert row["p"] == on_ti["wilcoxon_pvalue"].max()
    shown = design_space.significance_table(study)
    assert shown["pairs with p < 0.001"].iloc[0] == f"{tests['significant'].iloc[0]} of 10"


def test_claims_follow_the_measured_orders(study: design_space.DesignStudy) -> None:
    checks = {c.key: c for c in design_claims.checks(study)}
    ar_order = study.order("synthetic-small", "TI-AN")
    assert checks["fig2/AR/pLSA-first"].holds == (ar_order[0] == "pLSA")
    assert checks["fig2/AR/pLSA-first"].ours == ar_order[0]
    assert checks["fig2/AR/Popularity-second"].holds == (ar_order.index("Popularity") == 1)
    second_ar = study.order("other", "TI-NN(100)")
    assert checks["fig2/AR-lastfm/Popularity-first"].holds == (second_ar[0] == "Popularity")
    assert checks["fig2/AR-lastfm/Popularity-first"].dataset == "other"
    numbers = {n["key"]: n for n in design_claims.published_numbers(study)}
    assert set(numbers) == set(design_claims.published()["key"])
    assert numbers["fig2/1R/ceiling"]["ours"] == pytest.approx(0.1)
    assert numbers["fig2/AR/Popularity/P@10"]["ours"] == study.measured("synthetic-small", "TI-AN")["Popularity"]
    assert numbers["fig2/AR-lastfm/Popularity/P@10"]["dataset"] == "other"
    assert len(design_claims.paper_table(study)) == len(checks) + len(numbers)
    assert {f["key"] for f in design_claims.findings(study)} == set(checks)


def test_without_a_second_dataset_its_claims_are_left_out(small: Ratings) -> None:
    alone = design_space.design_study(small, folds=1, target_size=50, second_note="skipped", seed=3)
    assert alone.second is None and alone.second_note == "skipped"
    assert not any("lastfm" in c.key for c in design_claims.checks(alone))
    assert {n["key"] for n in design_claims.published_numbers(alone)} == {"fig2/AR/Popularity/P@10", "fig2/1R/ceiling"}


def test_metric_sentences_count_1r_runs_and_map_equals_mrr(study: design_space.DesignStudy) -> None:
    said = design_space.sentences(study)
    one_r = study.main.runs[study.main.runs["design"] == "1R TI-NN(49)"]
    assert said["runs_1r"] == f"{one_r.groupby(['fold', 'run']).ngroups:,}"
    assert said["map_mrr_gap"] == "0" or float(said["map_mrr_gap"]) < 1e-12
    assert said["runs_1r"] in said["map_mrr"] and "of the 2 splits" in said["map_mrr"]
    table = design_space.metric_table(study)
    assert table.columns.tolist() == ["design", "system", *design_space.METRICS]
    assert table["design"].tolist() == ["TI-AN"] * 5 + ["1R TI-NN(49)"] * 5


def test_truth_check_matches_a_direct_computation(study: design_space.DesignStudy, small: Ratings) -> None:
    check = design_truth.truth_check(study)
    per_split = []
    for fold in make_folds(small, folds=2, seed=3):
        fitted = fit_systems(study.presets, fold.train, seed=3, cache=False)
        per_split.append(true_quality(fitted, fold.train, small.true_relevance, n=10, seed=3)["P@10"].mean())
    pd.testing.assert_series_equal(check.true, (per_split[0] + per_split[1]) / 2, check_names=False)
    assert check.measured.columns.tolist() == study.choice.designs
    orders = design_truth.orders_table(study, check).set_index(["dataset", "design"])
    tau = kendall_tau(check.measured["TI-AN"].to_dict(), check.true.to_dict())
    assert orders.loc[("synthetic-small", "TI-AN"), "τ"] == f"{tau:.2f}"
    assert orders.loc[("synthetic-small", "true P@10"), "order, best first"].startswith(check.true.idxmax())
    assert orders.loc[("other", "TI-NN(100)"), "τ"] == "–"
    assert design_truth.truth_text(check, "synthetic-small").startswith("The true order is **")


def test_observed_data_get_the_measured_orders_only(study: design_space.DesignStudy) -> None:
    observed = dataclasses.replace(study, ratings=dataclasses.replace(study.ratings, true_relevance=None))
    assert design_truth.truth_check(observed) is None
    table = design_truth.orders_table(observed)
    assert table.columns.tolist() == ["dataset", "design", "order, best first", "P@10 of the first"]
    assert "cannot be checked" in design_truth.truth_text(None, "ml-100k")


def test_truth_text_reads_right_at_the_edges() -> None:
    check = design_truth.TruthCheck(
        "toy", pd.Series({"a": 0.30, "b": 0.29, "c": 0.10}),
        pd.DataFrame({"right": {"a": 0.3, "b": 0.2, "c": 0.1}, "close swap": {"a": 0.2, "b": 0.3, "c": 0.1}}),
    )
    text = design_truth.truth_text(check, "toy")
    assert "Only one of the designs orders" in text and "close in truth: the widest, b and a, differ by 3.3%" in text
    far = dataclasses.replace(check, measured=pd.DataFrame({"far swap": {"a": 0.2, "b": 0.1, "c": 0.3}}))
    text = design_truth.truth_text(far, "toy")
    assert "No design orders" in text and "c is measured above a, although its true P@10 is 67% lower" in text
    same = dataclasses.replace(check, measured=check.measured[["right"]])
    assert "Every design orders the systems as the truth does." in design_truth.truth_text(same, "toy")


def test_metric_orders_text_names_the_metrics_that_disagree_with_precision(monkeypatch) -> None:
    def table(**columns: list[float]) -> pd.DataFrame:
        frame = pd.DataFrame({"design": ["AR"] * 3 + ["1R"] * 3, "system": ["a", "b", "c"] * 2})
        return frame.assign(**{"P@10": [3, 2, 1, 3, 2, 1]}, **{m: columns.get(m, [3, 2, 1, 3, 2, 1])
                                                                for m in design_space.METRICS[1:]})

    monkeypatch.setattr(design_space, "metric_table", lambda study: table())
    assert design_space.metric_orders_text(None) == ("Within each design, every other metric of the table orders "
                                                     "the systems as P@10 does.")
    monkeypatch.setattr(design_space, "metric_table", lambda study: table(MRR=[1, 2, 3, 3, 2, 1]))
    assert design_space.metric_orders_text(None).endswith("7 of the 8 other metric columns order the systems as "
                                                          "P@10 does; the exceptions are MRR under AR.")
    reversed_all = dict.fromkeys(design_space.METRICS[1:], [1, 2, 3, 1, 2, 3])
    monkeypatch.setattr(design_space, "metric_table", lambda study: table(**reversed_all))
    assert "no other metric" in design_space.metric_orders_text(None)


def test_the_figures_draw_every_panel_and_name_its_dataset(study: design_space.DesignStudy) -> None:
    colours = dict.fromkeys(study.systems, "#333333")
    figure = design_figures.precision_figure(study, colours)
    assert [ax.get_label() for ax in figure.axes] == ["synthetic-small", "other"]
    assert [len(ax.patches) for ax in figure.axes] == [3 * 5, 2 * 5]  # one bar per system and design
    sweep = sweep_frame([("removed test ratings", 0.0, "pLSA", 0.1, 0.2, 0.3), ("target size", 100.0, "pLSA", 0.1, 0.2, 0.3)])
    figure = design_figures.lemma_figure(sweep, {"pLSA": "#1f77b4"}, "toy")
    assert [ax.get_label() for ax in figure.axes] == ["toy", "toy"]
    assert figure.axes[1].get_xlabel() == "target set size $|T_u^r|$"


def test_published_values_are_quoted_from_the_data_file() -> None:
    assert design_claims.published_value("fig2/AR/Popularity/P@10") == "0.08"
    assert design_claims.published_value("fig2/AR-lastfm/Popularity/P@10") == "0.35"
    with pytest.raises(KeyError, match="no published number 'fig9'"):
        design_claims.published_value("fig9")

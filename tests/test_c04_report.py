"""Chapter 4's tables and the numbers its prose quotes, on hand-made studies
(recbias.chapters.c04_popularity_bias.report)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from c04_fixtures import hand_orderings, hand_sweep, small

from recbias.chapters.c04_popularity_bias import report, study
from recbias.chapters.c04_popularity_bias.study import PERSONALISED
from recbias.chapters.c04_popularity_bias.study.skew import fitted_alpha
from recbias.text import fmt_ci, fmt_p_clause

SYSTEMS = ("Popularity", "pLSA", "rating-MF", "rating-kNN", "implicit MF (top-N)", "user-kNN (top-N)", "Random",
           "Mean rating")
AT_RANDOM = {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.009, 0.011), 2.0: (0.01, 0.009, 0.011)}
POPULARITY = {0.0: (0.008, 0.007, 0.009), 1.0: (0.04, 0.03, 0.05), 2.0: (0.08, 0.07, 0.09)}


def sweep_with(preset: str = "synthetic-ml1m", uniform: dict | None = None, **one) -> study.SkewSweep:
    """A hand-made sweep: popularity climbs to 8 times random at alpha = 2 (16 times in AR, where popularity is
    scaled twice as much as random); every other system sits at random unless ``one`` says otherwise."""
    return hand_sweep({"Popularity": POPULARITY, **{s: AT_RANDOM for s in SYSTEMS[1:]}, **one}, preset=preset,
                      uniform=uniform)


# ------------------------------------------------------------------- orderings


def _orderings():
    rng = np.random.default_rng(0)
    popularity = rng.uniform(0.05, 0.15, 40)
    per_user = {"Popularity": popularity, "Positive count": popularity + 0.05 + rng.normal(0, 0.01, 40),
                "Mean rating": popularity + rng.normal(0, 0.02, 40),
                "Mean rating (+10)": popularity - 0.05 + rng.normal(0, 0.01, 40), "Random": np.full(40, 0.01),
                "Test-set oracle": popularity + rng.normal(0, 0.02, 40)}
    bounds = {"Popularity": (0.0, 1.0), "Positive count": (0.0, 1.0), "Mean rating": (0.0, 1.0),
              "Mean rating (+10)": (0.0, 1.0), "Random": (0.0, 0.001), "Test-set oracle": (0.9, 1.0)}
    return hand_orderings(per_user, bounds)


def test_orderings_numbers_quote_the_means_tests_and_bounds() -> None:
    study = _orderings()
    numbers = report.orderings_numbers(study)
    one = study.means(study.one_relevant)
    assert numbers["dataset-name"] == "hand" and numbers["folds-text"] == "1 coin-flip split"
    assert numbers["test-share"] == "20%" and numbers["target-size"] == "100"
    assert numbers["one-relevant-design"] == "1R TI-NN(99)"
    assert numbers["best-ordering"] == "positive count"
    assert numbers["best-ordering-precision"] == numbers["positive-1r"] == f"{one['Positive count']:.4f}"
    assert numbers["shrunk-1r"] == f"{one['Mean rating (+10)']:.4f}" and numbers["mean-1r"] == f"{one['Mean rating']:.4f}"
    p = {pair: study.comparison(study.one_relevant, *pair)["t_pvalue"]
         for pair in (("Positive count", "Popularity"), ("Mean rating (+10)", "Mean rating"))}
    assert numbers["positive-vs-all-p"] == fmt_p_clause(p[("Positive count", "Popularity")])
    assert numbers["shrunk-vs-mean-p"] == fmt_p_clause(p[("Mean rating (+10)", "Mean rating")])
    assert numbers["oracle-share"] == f"{one['Popularity'] / one['Test-set oracle']:.0%}"
    assert numbers["bounds-lower"] == "0.0000" and numbers["bounds-upper"] == "1.0000"
    assert numbers["bounds-expected"] == numbers["popularity-1r"]  # the hand-made expectation is the mean
    # random's interval lies above its bounds and the oracle's below them; the hand-made lemma always holds
    assert (numbers["orderings"], numbers["bounds-met"], numbers["lemma-held"]) == ("6", "4", "6")


def test_a_broken_lemma_is_counted() -> None:
    study = _orderings()
    study.bounds.loc[study.bounds["system"] == "Random", "lemma upper"] = 0.0
    assert report.orderings_numbers(study)["lemma-held"] == "5"


def test_orderings_bounds_table_formats_each_cell() -> None:
    study = _orderings()
    table = report.orderings_bounds_table(study).set_index("ordering")
    summary = study.summary().set_index(["design", "system"]).loc[study.one_relevant]
    row = summary.loc["Popularity"]
    assert table.loc["Popularity", "1R P@10"] == fmt_ci(row["mean"], (row["ci_low"], row["ci_high"]), 4)
    assert table.loc["Random", "closed-form bounds"] == "0.0000 –<br>0.0010"
    assert list(table["interval against them"]) == ["inside"] * 4 + ["above", "below"]
    assert table.loc["Random", "exact expectation"] == "0.0100"
    assert table.loc["Mean rating", "exact expectation"] == "–"
    assert table.loc["Random", "first split: lemma bounds"] == "0.0000 –<br>0.0200"
    assert table.loc["Random", "first split: 1R P@10"] == "0.0100"


# ----------------------------------------------------------------------- sweep


def test_sweep_numbers_on_the_papers_shape() -> None:
    mean_rating = {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.009, 0.011), 2.0: (0.005, 0.004, 0.0099)}
    numbers = report.sweep_numbers(sweep_with(**{"Mean rating": mean_rating}), small())
    assert (numbers["sweep-users"], numbers["sweep-items"], numbers["sweep-ratings"]) == ("6,040", "3,706",
                                                                                          "1,000,209")
    assert numbers["sweep-preset"] == "synthetic-ml1m" and numbers["sweep-train-share"] == "80%"
    assert (numbers["sweep-c1"], numbers["sweep-c2"], numbers["sweep-shift"]) == ("0", "296.5", "8%")
    assert numbers["sweep-nonrelevant"] == "1,700" and numbers["sweep-ar-design"] == "TI-NN(1700)"
    assert numbers["sweep-count"] == "3" and numbers["sweep-alphas"] == "0, 1 and 2" and numbers["sweep-top"] == "2"
    assert numbers["sweep-lift"] == "8.0" and numbers["sweep-lift-ar"] == "8.0"
    assert numbers["sweep-expectation-gap"] == "0%" and numbers["random-top"] == "0.0100"
    assert numbers["mean-rating-top"] == "0.0050 [0.0040, 0.0099]" and numbers["mean-rating-p"] == "p = 0.500"
    assert numbers["alpha-here"] == f"{fitted_alpha(small()):.2f}"
    assert (numbers["mf-top"], numbers["user-knn-top"], numbers["user-knn-p"]) == ("0.0100", "0.0100", "p = 0.500")


def test_sweep_numbers_on_a_smaller_world() -> None:
    numbers = report.sweep_numbers(sweep_with("synthetic-small"), small())
    assert (numbers["sweep-users"], numbers["sweep-items"], numbers["sweep-ratings"]) == ("200", "300", "5,000")
    assert numbers["sweep-ar-design"] == "TI-NN(150)" and numbers["sweep-nonrelevant"] == "150"


def test_metrics_table_sets_popularity_against_random_on_every_metric() -> None:
    table = report.metrics_table(sweep_with()).set_index("metric")
    assert list(table.index) == list(study.SWEEP_METRICS)
    assert table.loc["nDCG@10", "α = 2"] == "0.0800 / 0.0100<br><small>8.0×</small>"
    assert table.loc["RR", "α = 0"] == "0.0080 / 0.0100<br><small>0.8×</small>"


def _uniform(popularity: float, p: float, loose_p: float = 0.5, loose_popularity: float = 0.0099) -> dict:
    return {"exact": {"Popularity": popularity, "Random": 0.01, "p (Popularity vs Random)": p,
                      "Popularity expected": 0.0079, "training shift": -0.8},
            "in expectation": {"Popularity": loose_popularity, "Random": 0.0101, "p (Popularity vs Random)": loose_p,
                               "item count variance / mean": 0.891, "training shift": -0.09}}


def test_uniform_numbers_quote_both_worlds_and_the_paper() -> None:
    numbers = report.uniform_numbers(sweep_with(uniform=_uniform(0.0082, 1e-20)))
    assert numbers["paper-popularity"] == "0.0077" and numbers["paper-tolerance"] == "0.0005"
    assert numbers["uniform-popularity"] == "0.0082" and numbers["uniform-closed-form"] == "0.0079"
    assert numbers["loose-variance"] == "0.89" and numbers["loose-shift"] == "0.09" and numbers["exact-shift"] == "0.80"
    assert (numbers["loose-popularity"], numbers["loose-random"]) == ("0.0099", "0.0101")
    assert numbers["loose-p"] == "p = 0.500"


def test_sweep_tables_show_the_worlds_and_the_papers_values() -> None:
    sweep = sweep_with(uniform=_uniform(0.0081, 0.0004))
    worlds = report.worlds_table(sweep)
    assert list(worlds["α"]) == ["0", "1", "2"] and worlds["c₂"].iloc[0] == "296.5"
    assert worlds["ratings of the most rated item"].iloc[0] == "300"
    assert worlds["top 10% of items' share of ratings"].iloc[0] == "10%"
    table = report.sweep_table(sweep).set_index("α")
    assert list(table.columns) == list(SYSTEMS) and table.loc["2", "Popularity"] == "0.0800"
    uniform = report.uniform_table(sweep)
    assert list(uniform.iloc[0][["Random", "Popularity", "closed form"]]) == ["0.0100", "0.0077", "–"]
    assert uniform.iloc[1]["Popularity"].startswith("0.0081<br>") and uniform.iloc[1]["p"] == "4.0e-04"
    assert uniform.iloc[2]["V / μ"] == "0.89" and uniform.iloc[2]["shift"] == "-0.09"


# ------------------------------------------------------------------- ratio


def _curves() -> pd.DataFrame:
    def curve(name, head, tail, rho, p):
        ratios = [head] * 2 + [0.5 * (head + tail)] * 16 + [tail] * 2
        return pd.DataFrame({"segment": np.arange(1, 21), "positive_ratio": ratios, "dataset": name, "spearman": rho,
                             "p": p, "rank_share": np.linspace(0.05, 1, 20)})

    return pd.concat([curve("a", 0.3, 0.1, -0.8, 0.0499), curve("b", 0.2, 0.2, -0.8, 0.05),
                      curve("c", 0.1, 0.3, 0.5, 0.001), curve("d", 0.4, 0.05, -0.2, 0.01)], ignore_index=True)


def test_ratio_numbers_read_both_ends_of_the_page_dataset() -> None:
    assert report.ratio_numbers(_curves(), "d") == {"ratio-tail": "5.0%", "ratio-head": "40.0%"}


def test_ratio_table_marks_the_page_and_names_a_trend_below_the_level() -> None:
    table = report.ratio_table(_curves(), "a").set_index("dataset")
    assert list(table.index) == ["a (this page)", "b", "c", "d"]
    assert list(table["trend"]) == ["grows with popularity", "shows no clear trend", "falls with popularity",
                                    "grows with popularity"]
    assert list(table["p"]) == ["0.050", "0.050", "0.001", "0.010"]
    assert table.loc["a (this page)", "most popular tenth"] == "30.0%"
    assert table.loc["d", "least popular tenth"] == "5.0%" and table.loc["a (this page)", "Spearman"] == "-0.80"


# -------------------------------------------------------------------- grid


def _grid(shares: dict[tuple[float, float], dict[str, float]]) -> pd.DataFrame:
    """Popularity at ``shares[world][measure]`` of the personalised system's 0.4, and random at 0.04."""
    return pd.DataFrame([{"alpha": a, "selection": s, "system": system, "measure": m, "mean": v}
                         for (a, s), by_measure in shares.items() for m, share in by_measure.items()
                         for system, v in (("Popularity", 0.4 * share), (PERSONALISED, 0.4), ("Random", 0.04))])


def test_grid_numbers_read_the_lifts_the_shares_and_the_gaps() -> None:
    numbers = report.grid_numbers(_grid({(1.0, 0.0): {"1R": 0.5, "AR": 0.4, "true": 0.4},
                                         (2.0, 3.0): {"1R": 0.75, "AR": 0.31, "true": 0.25}}))
    assert numbers["grid-worlds"] == "2"
    assert numbers["grid-lift-1r"] == "5.0 to 7.5" and numbers["grid-lift-true"] == "2.5 to 4.0"
    assert numbers["grid-lift-ar"] == "3.1 to 4.0"
    assert (numbers["grid-strongest-alpha"], numbers["grid-strongest-selection"]) == ("2", "3")
    assert numbers["grid-share-1r"] == "75%" and numbers["grid-share-true"] == "25%"
    assert (numbers["grid-gap-1r"], numbers["grid-gap-ar"]) == ("0.30", "0.03")
    assert report.grid_numbers(_grid({(1.0, 0.0): {"1R": 0.4, "AR": 0.5, "true": 0.4}}))["grid-lift-1r"] == "4.0"


def test_grid_table_shows_lifts_and_shares() -> None:
    table = report.grid_table(_grid({(1.0, 1.5): {"1R": 0.5, "AR": 0.4, "true": 0.25}}))
    row = table.iloc[0]
    assert (row["α"], row["observation bias"]) == ("1", "1.5")
    assert row["1R, over random"] == "5.0×" and row[f"true, over {PERSONALISED}"] == "25%"


# -------------------------------------------------------------- mainstream


def _mainstream(popularity: tuple, knn: tuple, wins: tuple = (0.0, 0.0), true: bool = False) -> pd.DataFrame:
    """Groups 1 and 5: ``popularity`` and ``knn`` as ((mean, low, high) of group 1, the same of group 5)."""
    rows = [{"group": g, "system": s, "measure": m, "mean": v[0] / (2 if m == "true" else 1), "ci_low": v[1],
             "ci_high": v[2], "wins": w if s == "Popularity" else 0.5}
            for m in (("measured", "true") if true else ("measured",))
            for s, ends in (("Popularity", popularity), (PERSONALISED, knn))
            for g, v, w in zip((1, 5), ends, wins, strict=True)]
    return pd.DataFrame(rows)


def test_mainstream_numbers_quote_both_ends_measured_and_true() -> None:
    numbers = report.mainstream_numbers(_mainstream(((0.1, 0.05, 0.15), (0.3, 0.2, 0.4)),
                                                    ((0.3, 0.25, 0.35), (0.1, 0.05, 0.2)), (0.004, 0.1), true=True))
    assert numbers["popularity-first"] == "0.100 [0.050, 0.150]" and numbers["popularity-last"] == "0.300 [0.200, 0.400]"
    assert numbers["personalised-first"] == "0.300 [0.250, 0.350]"
    assert numbers["personalised-last-true"] == "0.050 [0.050, 0.200]"
    assert (numbers["wins-first"], numbers["wins-last"]) == ("0%", "10%")
    measured_only = report.mainstream_numbers(_mainstream(((0.1, 0.05, 0.15), (0.3, 0.2, 0.4)),
                                                          ((0.3, 0.25, 0.35), (0.1, 0.05, 0.2))))
    assert len(measured_only) == 6 and "popularity-first-true" not in measured_only

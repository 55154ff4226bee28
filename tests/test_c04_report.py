"""Chapter 4's tables and glued phrases, with their values, on hand-made studies at the edges of what the
page says (recbias.chapters.c04_popularity_bias.report)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from c04_fixtures import hand_orderings, hand_sweep, small

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE
from recbias.chapters.c04_popularity_bias import report, study
from recbias.chapters.c04_popularity_bias.report import phrases
from recbias.chapters.c04_popularity_bias.study import PERSONALISED
from recbias.text import fmt_ci, fmt_p_clause

SYSTEMS = ("Popularity", "pLSA", "rating-MF", "rating-kNN", "implicit MF (top-N)", "user-kNN (top-N)", "Random",
           "Mean rating")
AT_RANDOM = {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.009, 0.011), 2.0: (0.01, 0.009, 0.011)}
POPULARITY = {0.0: (0.008, 0.007, 0.009), 1.0: (0.04, 0.03, 0.05), 2.0: (0.08, 0.07, 0.09)}


def sweep_with(preset: str = "synthetic-ml1m", uniform: dict | None = None, **one) -> object:
    """A hand-made sweep: popularity climbs to 8 times random at alpha = 2; every other system sits at random
    unless ``one`` says otherwise."""
    return hand_sweep({"Popularity": POPULARITY, **{s: AT_RANDOM for s in SYSTEMS[1:]}, **one}, preset=preset,
                      uniform=uniform)


# ------------------------------------------------------------------- orderings


def _orderings(oracle_shift: float = 0.0):
    rng = np.random.default_rng(0)
    popularity = rng.uniform(0.05, 0.15, 40)
    per_user = {"Popularity": popularity, "Positive count": popularity + 0.05 + rng.normal(0, 0.01, 40),
                "Mean rating": popularity + rng.normal(0, 0.02, 40),
                "Mean rating (+10)": popularity - 0.05 + rng.normal(0, 0.01, 40), "Random": np.full(40, 0.01),
                "Test-set oracle": popularity + oracle_shift + rng.normal(0, 0.02, 40)}
    bounds = {"Popularity": (0.0, 1.0), "Positive count": (0.0, 1.0), "Mean rating": (0.0, 1.0),
              "Mean rating (+10)": (0.0, 1.0), "Random": (0.0, 0.001), "Test-set oracle": (0.9, 1.0)}
    return hand_orderings(per_user, bounds)


def test_orderings_phrases_word_each_paired_test_by_its_outcome() -> None:
    study = _orderings()
    glued = report.orderings_phrases(study)
    one = study.means(study.one_relevant)
    assert glued["dataset-name"] == "hand" and glued["folds-text"] == "1 coin-flip split (20% held out)"
    assert glued["target-size"] == "100" and glued["one-relevant-design"] == "1R TI-NN(99)"
    assert glued["best-ordering"] == "positive count"
    assert glued["best-ordering-precision"] == f"{one['Positive count']:.4f}"
    assert glued["positive-vs-all"] == "beats" and glued["shrunk-vs-mean"] == "falls behind"
    assert glued["mean-vs-popularity"] == "is within noise of" and glued["oracle-gap"] == "within noise"
    assert glued["positive-vs-all-p"] == fmt_p_clause(study.p_value(study.one_relevant, "Positive count", "Popularity"))
    assert glued["oracle-share"] == f"{one['Popularity'] / one['Test-set oracle']:.0%}"
    assert report.orderings_phrases(_orderings(oracle_shift=0.05))["oracle-gap"] == "beyond noise"


@pytest.mark.parametrize("difference, p, outcome", [(0.01, 0.0499, HOLDS), (0.01, 0.05, INCONCLUSIVE),
                                                    (-0.01, 0.0499, FAILS), (0.0, 0.001, INCONCLUSIVE)])
def test_comparisons_are_worded_from_the_beyond_noise_test(difference, p, outcome) -> None:
    assert phrases.compared(difference, p) == outcome
    assert phrases.VERSUS[outcome] in {"beats", "falls behind", "is within noise of"}


def test_bounds_phrases_place_every_ordering_and_check_the_lemma() -> None:
    study = _orderings()
    glued = report.bounds_phrases(study)
    assert glued["bounds-lower"] == "0.0000" and glued["bounds-upper"] == "1.0000"
    assert glued["bounds-expected"] == glued["bounds-measured"]  # the hand-made expectation is the mean
    positions = glued["bounds-positions"]
    assert positions.startswith("The 95% interval of the measured value meets the closed-form bounds for popularity, "
                                "positive count, mean rating and mean rating (+10). For random the interval lies above")
    assert "For the test-set oracle the interval lies below the bounds" in positions
    assert glued["lemma-verdict"] == "hold for every ordering, as they must"
    everywhere = replace(study, bounds=study.bounds.assign(**{"closed-form lower": 0.0, "closed-form upper": 1.0}))
    assert report.bounds_phrases(everywhere)["bounds-positions"] == (
        "The 95% interval of the measured value meets the closed-form bounds for every ordering.")
    broken = study.bounds.copy()
    broken.loc[broken["system"] == "Random", "lemma upper"] = 0.0
    assert report.bounds_phrases(replace(study, bounds=broken))["lemma-verdict"].startswith("fail for random, which")


def test_orderings_bounds_table_formats_each_cell() -> None:
    study = _orderings()
    table = report.orderings_bounds_table(study).set_index("ordering")
    summary = study.summary().set_index(["design", "system"]).loc[study.one_relevant]
    row = summary.loc["Popularity"]
    assert table.loc["Popularity", "1R P@10"] == fmt_ci(row["mean"], (row["ci_low"], row["ci_high"]), 4)
    assert table.loc["Random", "closed-form bounds"] == "0.0000 –<br>0.0010"
    assert table.loc["Random", "exact expectation"] == "0.0100"
    assert table.loc["Mean rating", "exact expectation"] == "–"
    assert table.loc["Random", "first split: lemma bounds"] == "0.0000 –<br>0.0200"
    assert table.loc["Random", "first split: 1R P@10"] == "0.0100"


# ----------------------------------------------------------------------- sweep


def test_sweep_phrases_on_the_papers_shape() -> None:
    glued = report.sweep_phrases(sweep_with(), small())
    assert glued["sweep-shape"] == "6,040 users, 3,706 items and 1,000,209 ratings, as MovieLens 1M"
    assert glued["sweep-nonrelevant"] == "1,700" and glued["sweep-ar-design"] == "TI-NN(1700)"
    assert glued["sweep-count"] == "3" and glued["sweep-alphas"] == "0, 1 and 2" and glued["sweep-top"] == "2"
    assert glued["sweep-lift"] == "8.0" and glued["sweep-lift-ar"] == "8.0"
    assert glued["sweep-start"] == "the level of random"  # hand-made p = 0.5
    assert glued["sweep-climbers"] == "No personalised system climbs with it."
    assert glued["knn-mf-verdict"] == ("at α = 2, against random's 0.0100 and popularity's 0.0800, rating-MF ends at "
                                       "random's level (0.0100) and rating-kNN ends at random's level (0.0100)")
    assert glued["top-n-verdict"] == "neither climbs above random here"
    assert glued["climbing"].startswith("None of the personalised systems climbed")
    assert glued["sweep-mean-rating"] == "stays near random" and glued["sweep-expectation-gap"] == "0%"
    assert glued["plsa-verdict"] == "does not track popularity as closely as the papers observed"
    assert glued["alpha-here"] == f"{phrases.fitted_alpha(small()):.2f}"


def test_sweep_phrases_on_a_smaller_world_with_climbers() -> None:
    above = {0.0: (0.01, 0.009, 0.011), 1.0: (0.03, 0.02, 0.04), 2.0: (0.06, 0.0101, 0.07)}
    glued = report.sweep_phrases(sweep_with("synthetic-small", **{"implicit MF (top-N)": above}), small())
    assert glued["sweep-shape"] == "200 users, 300 items and 5,000 ratings, fewer than MovieLens 1M"
    assert glued["sweep-ar-design"] == "TI-NN(150)"
    assert glued["sweep-climbers"] == "implicit MF (top-N) climbs with it, although no user prefers any item to another."
    assert glued["top-n-verdict"] == "implicit MF (top-N) climbs above random with the skew"
    assert glued["climbing"] == "Here implicit MF (top-N) climbs with the skew on data without any preference"
    both = report.sweep_phrases(sweep_with(**{"implicit MF (top-N)": above, "user-kNN (top-N)": above,
                                              "pLSA": above}), small())
    assert both["sweep-climbers"].startswith("pLSA, implicit MF (top-N) and user-kNN (top-N) climb with it")


def test_a_rating_predictor_below_random_is_said_with_its_reason() -> None:
    below = {0.0: (0.01, 0.009, 0.011), 1.0: (0.008, 0.006, 0.01), 2.0: (0.005, 0.004, 0.006)}
    hand = hand_sweep({"Popularity": POPULARITY, **{s: AT_RANDOM for s in SYSTEMS[1:]}, "rating-kNN": below},
                      p={("Random", "rating-kNN"): 0.001})
    glued = report.sweep_phrases(hand, small())
    assert "rating-MF ends at random's level (0.0100) and rating-kNN ends below random (0.0050)." in \
        glued["knn-mf-verdict"]
    assert "the items rated by many get predictions close to the global mean" in glued["knn-mf-verdict"]


def test_metrics_table_sets_popularity_against_random_on_every_metric() -> None:
    table = report.metrics_table(sweep_with()).set_index("metric")
    assert list(table.index) == list(study.SWEEP_METRICS)
    assert table.loc["nDCG@10", "α = 2"] == "0.0800 / 0.0100<br><small>8.0×</small>"
    assert table.loc["RR", "α = 0"] == "0.0080 / 0.0100<br><small>0.8×</small>"


def test_sweep_settings_table_names_each_departure() -> None:
    table = report.sweep_settings_table(sweep_with()).set_index("setting")
    assert table.loc["users, items, ratings", "why it differs"] == "–"
    assert table.loc["α", "here"] == "0, 1, 2" and table.loc["α", "why it differs"].startswith("time")
    assert "not available" in table.loc["c₁, c₂ of the law", "why it differs"]
    small_world = report.sweep_settings_table(sweep_with("synthetic-small")).set_index("setting")
    assert small_world.loc["users, items, ratings", "why it differs"].startswith("the preset chosen")


@pytest.mark.parametrize("plsa_top, verdict",
                         [(0.092, "tracks popularity closely, as the papers observed"),
                          (0.09201, "does not track popularity as closely as the papers observed")])
def test_plsa_is_said_to_follow_popularity_within_the_claims_tolerance(plsa_top, verdict) -> None:
    plsa = {0.0: (0.01, 0.0, 0.02), 1.0: (0.04, 0.0, 0.05), 2.0: (plsa_top, 0.0, 0.1)}
    assert report.sweep_phrases(sweep_with(pLSA=plsa), small())["plsa-verdict"] == verdict


@pytest.mark.parametrize("interval, words", [((0.005, 0.004, 0.0099), "ends below random"),
                                             ((0.01, 0.009, 0.011), "stays near random"),
                                             ((0.012, 0.0101, 0.013), "ends above random")])
def test_the_mean_rating_ends_by_its_interval_against_random(interval, words) -> None:
    mean_rating = {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.009, 0.011), 2.0: interval}
    glued = report.sweep_phrases(sweep_with(**{"Mean rating": mean_rating}), small())
    assert glued["sweep-mean-rating"].startswith(words)


def test_sweep_phrases_need_the_ar_design() -> None:
    sweep = sweep_with()
    one_relevant = replace(sweep, precision=sweep.precision[sweep.precision["design"] == sweep.one_relevant])
    with pytest.raises(ValueError, match="1R only"):
        report.sweep_phrases(one_relevant, small())


def _uniform(popularity: float, p: float, loose_p: float = 0.5, loose_popularity: float = 0.0099) -> dict:
    return {"exact": {"Popularity": popularity, "Random": 0.01, "p (Popularity vs Random)": p,
                      "Popularity expected": 0.0079, "training shift": -0.8},
            "in expectation": {"Popularity": loose_popularity, "Random": 0.01, "p (Popularity vs Random)": loose_p,
                               "item count variance / mean": 0.891, "training shift": -0.09}}


def test_uniform_phrases_agree_with_the_paper_within_its_tolerance() -> None:
    glued = report.uniform_phrases(sweep_with(uniform=_uniform(0.0077 + 0.0005 * 0.999, 1e-20)))
    assert glued["uniform-verdict"] == "measures below random, as the papers found"
    assert glued["uniform-match"] == "ours agrees with it within sampling noise"
    assert glued["paper-popularity"] == "0.0077" and glued["uniform-popularity"] == "0.0082"
    assert glued["uniform-p"] == "p = 1.0e-20" and glued["uniform-closed-form"] == "0.0079"
    assert glued["loose-variance"] == "0.89" and glued["loose-shift"] == "0.09" and glued["exact-shift"] == "0.80"
    assert glued["loose-verdict"] == "sits at random" and glued["loose-p"] == "p = 0.500"
    assert glued["uniform-lesson"].startswith("The papers' result therefore rests on a detail of their simulation")
    differs = report.uniform_phrases(sweep_with(uniform=_uniform(0.0077 + 0.0005 * 1.001, 1e-20)))
    assert differs["uniform-match"] == "ours is further from it than sampling noise allows"


def test_uniform_phrases_elsewhere_and_without_the_contrast() -> None:
    elsewhere = report.uniform_phrases(sweep_with("synthetic-small", uniform=_uniform(0.0077, 0.05, loose_p=0.01)))
    assert elsewhere["uniform-match"] == ("they simulated worlds of ML-1M's shape, which this build did not "
                                         "(sweep_preset = \"synthetic-small\")")
    assert elsewhere["uniform-verdict"] == "does not measure below random beyond noise here"
    assert elsewhere["loose-verdict"] == "stays below random"
    assert elsewhere["uniform-lesson"].startswith("Here the two ways of fixing the item counts")
    above = report.uniform_phrases(sweep_with(uniform=_uniform(0.012, 0.01, loose_p=0.01, loose_popularity=0.02)))
    assert above["uniform-verdict"] == "measures above random, unlike the papers"
    assert above["loose-verdict"] == "rises above random"
    assert report.sweep_phrases(sweep_with(uniform=_uniform(0.012, 0.01)), small())["sweep-start"] == "above random"
    assert report.sweep_phrases(sweep_with(uniform=_uniform(0.008, 0.0499)), small())["sweep-start"] == "below random"


def test_sweep_tables_show_the_worlds_and_the_papers_values() -> None:
    sweep = sweep_with(uniform=_uniform(0.0081, 0.0004))
    worlds = report.worlds_table(sweep)
    assert list(worlds["α"]) == ["0", "1", "2"] and worlds["c₂"].iloc[0] == "296.5"
    assert worlds["ratings of the most rated item"].iloc[0] == "300"
    assert worlds["share of ratings on the top 10% of items"].iloc[0] == "10%"
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


def test_ratio_phrases_group_the_datasets_by_trend() -> None:
    glued = report.ratio_phrases(_curves(), "b")
    assert glued["ratio-trends"] == ("grows with popularity on a and d; it shows no clear trend on b; it falls with "
                                     "popularity on c")
    assert glued["ratio-tail"] == "20.0%" and glued["ratio-head"] == "20.0%"


def test_ratio_table_marks_the_page_and_names_a_trend_below_the_level() -> None:
    table = report.ratio_table(_curves(), "a").set_index("dataset")
    assert list(table.index) == ["a (this page)", "b", "c", "d"]
    assert list(table["trend"]) == ["grows with popularity", "shows no clear trend", "falls with popularity",
                                    "grows with popularity"]
    assert table.loc["a (this page)", "most popular tenth"] == "30.0%"
    assert table.loc["d", "least popular tenth"] == "5.0%" and table.loc["a (this page)", "Spearman"] == "-0.80"


# -------------------------------------------------------------------- grid


def _grid(shares: dict[tuple[float, float], dict[str, float]]) -> pd.DataFrame:
    """Popularity at ``shares[world][measure]`` of the personalised system's 0.4, and random at 0.04."""
    return pd.DataFrame([{"alpha": a, "selection": s, "system": system, "measure": m, "mean": v}
                         for (a, s), by_measure in shares.items() for m, share in by_measure.items()
                         for system, v in (("Popularity", 0.4 * share), (PERSONALISED, 0.4), ("Random", 0.04))])


def test_grid_phrases_read_the_lifts_the_shares_and_the_closer_design() -> None:
    glued = report.grid_phrases(_grid({(1.0, 0.0): {"1R": 0.5, "AR": 0.4, "true": 0.4},
                                       (2.0, 3.0): {"1R": 0.75, "AR": 0.31, "true": 0.25}}), "synthetic")
    assert glued["grid-worlds"] == "2" and glued["grid-preset"] == "synthetic"
    assert glued["grid-lift-1r"] == "5.0 to 7.5" and glued["grid-lift-true"] == "2.5 to 4.0"
    assert glued["grid-lift-ar"] == "3.1 to 4.0"
    assert glued["grid-overstates"] == "overstates popularity in every world"
    assert (glued["grid-strongest-alpha"], glued["grid-strongest-selection"]) == ("2", "3")
    assert glued["grid-share-1r"] == "75%" and glued["grid-share-true"] == "25%"
    assert (glued["grid-closer"], glued["grid-closer-gap"], glued["grid-other-gap"]) == ("AR", "0.03", "0.30")
    level = report.grid_phrases(_grid({(1.0, 0.0): {"1R": 0.4, "AR": 0.5, "true": 0.4}}), "synthetic")
    assert level["grid-overstates"] == "does not overstate popularity in every world"
    assert level["grid-lift-1r"] == "4.0" and level["grid-closer"] == "1R"  # equal gaps: 1R named


def test_grid_table_shows_lifts_and_shares() -> None:
    table = report.grid_table(_grid({(1.0, 1.5): {"1R": 0.5, "AR": 0.4, "true": 0.25}}))
    row = table.iloc[0]
    assert (row["α"], row["observation bias"]) == ("1", "1.5")
    assert row["1R, over random"] == "5.0×" and row[f"true, over {PERSONALISED}"] == "25%"


# -------------------------------------------------------------- mainstream


def _mainstream(popularity: tuple, knn: tuple, wins: tuple = (0.0, 0.0), true: bool = False) -> pd.DataFrame:
    """Groups 1 and 5: ``popularity`` and ``knn`` as ((mean, low, high) of group 1, the same of group 5)."""
    rows = [{"group": g, "system": s, "measure": m, "mean": v[0], "ci_low": v[1], "ci_high": v[2],
             "wins": w if s == "Popularity" else 0.5}
            for m in (("measured", "true") if true else ("measured",))
            for s, ends in (("Popularity", popularity), (PERSONALISED, knn))
            for g, v, w in zip((1, 5), ends, wins, strict=True)]
    return pd.DataFrame(rows)


def test_mainstream_phrases_at_the_edges() -> None:
    flat = ((0.15, 0.1, 0.2), (0.16, 0.11, 0.2))
    glued = report.mainstream_phrases(_mainstream(flat, flat))
    assert glued["mainstream-measured"] == ("neither popularity's nor user-kNN (top-N)'s AR precision changes beyond "
                                            "noise (popularity 0.150 to 0.160, user-kNN (top-N) 0.150 to 0.160)")
    assert glued["mainstream-wins"] == ("Popularity beats user-kNN (top-N) for none of the users of these two "
                                        "groups.")
    assert glued["mainstream-true"] == "This dataset has no complete relevance to set the groups against."
    moving = report.mainstream_phrases(_mainstream(((0.1, 0.05, 0.15), (0.3, 0.1501, 0.4)),
                                                   ((0.3, 0.25, 0.35), (0.1, 0.05, 0.2499)), (0.05, 0.05), true=True))
    assert moving["mainstream-measured"] == ("popularity's AR precision rises (0.100 to 0.300) and user-kNN (top-N)'s "
                                             "falls (0.300 to 0.100)")
    assert moving["mainstream-wins"] == ("Popularity beats user-kNN (top-N) for 5% of the users of each of the two "
                                         "groups.")
    assert moving["mainstream-true"].startswith("On the world's complete relevance, popularity's true precision rises")
    apart = report.mainstream_phrases(_mainstream(flat, flat, (0.004, 0.1)))
    assert apart["mainstream-wins"] == ("Popularity beats user-kNN (top-N) for 0% of the least mainstream users and "
                                        "10% of the most mainstream.")

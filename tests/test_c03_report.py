"""Chapter 3's tables and the words its prose quotes, with their values, at the edges where the words change."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from c03_inputs import check_frame, density_fits, elasticities, lift_frame, orders, size_fits, statistics, summary

from recbias import datasets
from recbias.chapters.c03_sparsity_bias.report import readings, tables
from recbias.chapters.c03_sparsity_bias.study.fits import ORDER_KEPT, ORDER_UNCLEAR
from recbias.chapters.c03_sparsity_bias.study.sweeps import AR_REMOVAL, ONE_R_REMOVAL, Sweep, point_key


@pytest.fixture(scope="module")
def small():
    return datasets.load("synthetic-small", seed=0)


def sweep(followed=(60, 106), sizes=(23, 226)) -> Sweep:
    """A sweep with the bookkeeping the readings quote: 1R pools of 244 and 114 candidates, and of the four
    users of the full AR test set one has more than 10 relevant test items."""
    points = pd.DataFrame({"fold": 0, "sweep": ONE_R_REMOVAL, "x": [0.0, 0.8, 0.95], "candidates": [244, 114, 50]})
    targets = pd.DataFrame({"point": point_key(AR_REMOVAL, 0.0), "run": [0, 1, 2, 3, -1],
                            "relevant": [11.0, 10.0, 2.0, 1.0, 0.0]})
    return Sweep(dataset="tiny", systems=["A", "B", "Random"], metrics=[], n=10, designs=("TI-AN", "1R TI-NN(99)"),
                 runs=pd.DataFrame(), targets=targets, points=points, truth=None, sizes=list(sizes), size_users=54,
                 followed=followed)


# ------------------------------------------------------------------------ tables


def test_settings_table(small) -> None:
    table = tables.settings_table(small, ["A", "B"], "TI-AN", 5, 0.2, 10, [0.0, 0.5], [100, 1000], 100, None, 200, False)
    rows = dict(zip(table["setting"], table["value"], strict=True))
    assert rows["systems"] == "A, B: the papers' five, MF and kNN predicting ratings"
    assert rows["splits"] == "5 coin-flip splits, σ = 0.2"  # the papers' number: no departure to state
    assert rows["test ratings removed, f"] == "0%, 50% (lines fitted up to 90%)"
    assert rows["1R target sizes asked for"] == "100, 1,000" and rows["users followed"] == "all, as the papers"
    assert rows["1R on an ML-1M-shaped world"] == "not measured (world_check off)"
    assert rows["1R designs"].startswith("1R TI-NN(99) and 1R AI-NN(99): target sets of 100 items")
    assert rows["relevant"] == f"a test rating ≥ {small.positive_threshold:g}"
    many = tables.settings_table(small, ["A"], "TI-AN", 2, 0.2, 10, [0.0], [100], 100, 1000, 20, True)
    rows = dict(zip(many["setting"], many["value"], strict=True))
    assert rows["splits"] == "2 coin-flip splits, σ = 0.2 (departs from the papers' 5, to keep the page within its " \
        "time budget)"
    assert rows["users followed"] == "at most 1,000 per sweep, sampled (departs from the papers' all users, to keep " \
        "the page within its time budget)"
    assert rows["1R on an ML-1M-shaped world"].startswith("synthetic-ml1m, all users, one split")


def test_check_table_counts_per_design() -> None:
    table = tables.check_table(check_frame()).set_index("design")
    assert table.loc["TI-AN", "configurations"] == 2 and table.loc["TI-AN", "closed form"] == "σ(1−f)·|PR|/(t·|U|)"
    assert table.loc["TI-AN", "in band of closed form"] == "50%" and table.loc["TI-AN", "in band of ρ"] == "50%"
    assert table.loc["TI-AN", "measured / closed form (median)"] == "0.56"  # median of 1.125 and 0
    assert table.loc["1R AI-NN(99)", "closed form"] == "1/t" and table.loc["1R AI-NN(99)", "in band of ρ"] == "100%"


def test_fit_tables() -> None:
    ar = tables.ar_fits_table(density_fits()).set_index("system")
    assert list(ar.index) == ["A", "B", "Random"]
    assert ar.loc["A", "slope b"] == "14.0<br><small>[13.0, 15.0]</small>" and ar.loc["B", "R²"] == "1.000"
    assert ar.loc["A", "change, 0 to 90% removed"] == "-90%<br><small>[-95%, -85%]</small>"
    assert ar.loc["A", "intercept a"] == "-0.0007<br><small>[-0.0010, -0.0005]</small>"
    one_r = tables.one_r_fits_table(density_fits(), size_fits()).set_index("system")
    assert one_r.loc["B", "TI-NN: change, 0 to 90% removed"] == "-18%<br><small>[-23%, -13%]</small>"
    assert one_r.loc["A", "exponent e of t"] == "-0.63<br><small>[-0.70, -0.60]</small>"
    without_sizes = tables.one_r_fits_table(density_fits(), size_fits().iloc[:0])
    assert "exponent e of t" not in without_sizes.columns


def test_elasticity_and_metric_claims_tables() -> None:
    table = tables.elasticity_table(elasticities())
    assert list(table.columns) == ["metric", "A", "B"]  # Random is left out
    assert table["metric"].tolist()[:2] == ["P@10<br><small>with a relevant item</small>", "Recall@10"]
    assert "P@10<br><small>all users</small>" in table["metric"].tolist()
    assert table.set_index("metric").loc["Recall@10", "A"] == "0.05<br><small>[-0.05, 0.15]</small>"
    claims = tables.metric_claims_table(elasticities(), 10, "tiny")
    assert claims["verdict"].tolist() == ["holds", "holds", "does not hold", "holds"]
    assert claims["statement"].tolist()[2] == "nDCG@10 is clearly sensitive, with a slope slightly flatter than P@10's"
    assert claims["evidence"].tolist()[0] == ("elasticity over P@10's: 0.06 (95% intervals from 0.06 up to 0.07) "
                                              "(criterion: every 95% interval of the ratio within [-0.2, 0.2] "
                                              "(inconclusive when one straddles an end))")


def test_order_table_shows_the_truth_only_when_there_is_one() -> None:
    plain = tables.order_table(orders())
    assert plain["removed"].tolist() == ["0%", "50%", "90%", "99%"] and "AR: τ, truth" not in plain.columns
    assert plain.loc[2, "AR: users"] == "40" and plain.loc[2, "AR: τ, full test set"].startswith("0.33<br>")
    assert "1R: τ, truth" in tables.order_table(orders(truth=True)).columns


def test_lift_and_spread_tables() -> None:
    table = tables.lift_table(lift_frame())
    assert table["dataset, design"].tolist() == ["a<br><small>TI-AN</small>", "b<br><small>TI-AN</small>",
                                                "a<br><small>1R TI-NN(99)</small>", "b<br><small>1R TI-NN(99)</small>"]
    assert table["ρ"].tolist() == ["0.0010", "0.0020", "0.0100", "0.0100"]
    assert table.loc[1, "B"] == "0.0800<br><small>40.0×</small>"  # 0.02 x 4 over ρ = 0.002
    spread = tables.spread_table(lift_frame(), 10).set_index("system")
    assert spread.loc["A", "AR P@10"] == "4.0×" and spread.loc["A", "1R P@10"] == "1.2×"
    assert spread.loc["A", "AR lift"] == "2.0×" and spread.loc["A", "P@10, all designs"] == "12.0×"


# ---------------------------------------------------------------------- readings


def test_check_phrases_and_note() -> None:
    phrases = readings.check_phrases(summary(users=(10, 10)))
    assert phrases["check_sample"] == "" and phrases["check_within"] == "93%" and phrases["check_max_z"] == "3.1"
    assert (phrases["all_users_low"], phrases["all_users_high"]) == ("50%", "90%")
    assert readings.check_phrases(summary(users=(1000, 1500)))["check_sample"] == \
        " (the runs of a uniform sample of 1,000 of its 1,500 users)"
    assert readings.check_note(summary()) == ""
    assert readings.check_note(summary(skipped=1)).startswith("1 more configuration of the grid had no run")
    assert readings.check_note(summary(skipped=1)).endswith("and is left out.")
    both = readings.check_note(summary(skipped=10, unshown=1))
    assert "are left out." in both and both.endswith("1 configuration measured no relevant item at all in the random "
                                                     "top lists and cannot be shown on the log scale of the figure.")


def test_sweep_phrases() -> None:
    phrases = readings.sweep_phrases(sweep())
    assert phrases["folds_text"] == "1 coin-flip split of tiny" and phrases["size_range"] == "23 to 226 items"
    assert phrases["followed_text"] == ("a uniform sample of 60 of the 106 users with a relevant test item "
                                        "(parameter sweep_users)")
    everyone = readings.sweep_phrases(sweep(followed=(106, 106), sizes=()))
    assert everyone["followed_text"] == "all 106 users with a relevant test item"
    assert everyone["size_range"] == "larger sizes (none fits this catalogue)"
    assert (phrases["n"], phrases["fit_max_removed"], phrases["size_sample"]) == ("10", "90%", " of the first split")


@pytest.mark.parametrize("r2, scatter, intercepts, slope_ci, headline, negative, reading", [
    ((0.95, 0.96, 0.1), (9.0, 9.0, 9.0), ((-1, -0.001),) * 3, (0.7, 1.0), "AR precision is a line in the density.",
     "all 2", "in line with"),
    ((0.9499, 0.96, 0.1), (2.5, 1.0, 1.0), ((-1, 0.0),) * 3, (1.01, 2), "AR precision follows the density, but not "
     "along a straight line for every system.", "none of the 2", "away from"),
    ((0.9499, 0.96, 0.1), (1.2, 1.0, 1.0), ((-1, 0.0),) * 3, (1.01, 2), "AR precision follows the density; for the "
     "weakest systems the sampling noise hides whether it does so along a line.", "none of the 2", "away from"),
    ((0.99, 0.99, 0.1), (1.0, 1.0, 1.0), ((-1, -0.001), (-1, 0.001), (-1, 0.0)), (0.9, 1.1),
     "AR precision is a line in the density.", "1 of the 2", "in line with"),
])
def test_ar_phrases(r2, scatter, intercepts, slope_ci, headline, negative, reading) -> None:
    fits = density_fits(ar_r2=r2, scatter=scatter, intercept_ci=intercepts, random_slope_ci=slope_ci)
    phrases = readings.ar_phrases(fits, size_fits())
    assert (phrases["ar_headline"], phrases["ar_negative_intercepts"], phrases["ar_random_reading"]) == \
        (headline, negative, reading)
    assert phrases["ar_loss"] == "90% to 91%" and phrases["ar_slopes"] == "14.0 to 32.0"


def test_ar_phrases_without_fits() -> None:
    phrases = readings.ar_phrases(density_fits().iloc[:0], size_fits())
    assert phrases["ar_headline"] == "Too few removal levels had AR runs to fit a line on this dataset."
    assert phrases["ar_r2"] == phrases["ar_loss"] == phrases["ar_random_slope"] == "n/a"


@pytest.mark.parametrize("ti, ai, headline, ti_reading, ai_flat", [
    # every fixture interval is the change ± 0.05: within ±10% holds, straddling a bound cannot tell
    ((-0.05, 0.05, 0.5), (0.0, 0.0, 0.0), "1R precision does not follow the test data.", "barely", True),
    ((-0.1, 0.1, 0.5), (0.0, 0.0, 0.0), "Whether 1R precision follows the test data is within the noise here.",
     "look like changes", True),
    ((-0.25, -0.11, 0.5), (-0.05, 0.05, 0.5), "1R precision is set by the design, as long as the candidates stay the "
     "same.", "every system loses", True),
    ((-0.25, 0.11, 0.5), (-0.1001, 0.0, 0.0), "1R precision moves less than AR precision, but it moves.",
     "look like changes", False),
])
def test_one_r_phrases(ti, ai, headline, ti_reading, ai_flat) -> None:
    phrases = readings.one_r_phrases(sweep(), density_fits(one_r=ti, one_r_ai=ai), size_fits())
    assert phrases["one_r_headline"] == headline and ti_reading in phrases["one_r_ti_reading"]
    assert phrases["one_r_ai_reading"].endswith("stays where it was") == ai_flat
    # the pool at the full test set and at the sparsest fitted level (95% is beyond the fitted range)
    assert (phrases["pool_full"], phrases["pool_thin"], phrases["pool_thin_level"]) == ("244", "114", "80%")


@pytest.mark.parametrize("exponents, cis, headline, reading, excluded", [
    ((-0.6, -0.4, -0.92), ((-0.7, -0.5), (-0.5, -0.3), (-1.1, -0.8)), "1R precision falls with the size of the "
     "target sets, but more slowly than 1/t.", "in line with", "every one of them"),
    ((-1.0, -0.4, -0.86), ((-1.1, -0.9), (-0.5, -0.3), (-0.9, -0.8)), "1R precision falls with the size of the "
     "target sets.", "close to", "1 of them"),
    ((-1.0, -1.2, -0.84), ((-1.1, -0.9), (-1.3, -1.0), (-0.9, -0.8)), "1R precision falls with the size of the "
     "target sets.", "away from", "none of them"),
])
def test_size_phrases(exponents, cis, headline, reading, excluded) -> None:
    phrases = readings.size_phrases(size_fits(exponents, cis))
    assert (phrases["size_headline"], phrases["size_random_reading"], phrases["size_excluded"]) == \
        (headline, reading, excluded)
    assert readings.size_phrases(size_fits().iloc[:0])["size_headline"] == \
        "The catalogue is too small for a size sweep of three or more points."


def test_metric_phrases_follow_the_verdicts() -> None:
    calm = readings.metric_phrases(elasticities(), sweep())
    assert calm["elasticity_p_all"] == "1.40 to 1.68" and calm["elasticity_recall"] == "0.05 to 0.06"
    assert calm["recall_reading"] == "stays near 0" and calm["map_ndcg_reading"] == "keep a small part of the trend"
    assert calm["ndcg_at_n_reading"] == "sits with them rather than with precision"
    assert calm["many_relevant"] == "25%"  # one of the four users of the full test set has more than 10
    lively = readings.metric_phrases(elasticities(scale_ratios=4.0), sweep())
    assert lively["recall_reading"] == "does not stay near 0" and lively["map_ndcg_reading"] == "keep much of it"
    assert lively["ndcg_at_n_reading"] == "follows the density more closely, as the papers describe"


def test_the_closing_sentence_on_metrics_names_only_the_calm_ones() -> None:
    # ratios 0.0625 (recall), 0.25 and 0.31 (MAP, nDCG), 0.375 (nDCG@10); x 1.5: nDCG@10 at 0.5625 is no longer calm
    text = readings.exposure_sentence(elasticities(scale_ratios=1.5), 10)
    assert text.startswith("Here Recall@10, MAP and nDCG without a cut-off react") and "nDCG@10" not in text
    assert readings.exposure_sentence(elasticities(scale_ratios=1.0), 10).startswith(
        "Here Recall@10, MAP, nDCG without a cut-off and nDCG@10 react")
    assert readings.exposure_sentence(elasticities(scale_ratios=9.0), 10).startswith(
        "Here recall, MAP and nDCG follow")
    assert readings.exposure_sentence(elasticities(scale_ratios=2.0), 10).startswith("Here Recall@10 reacts to")


def test_order_sentences_say_where_the_order_gives_way() -> None:
    table = orders()
    text = readings.order_sentences(table)
    assert text.startswith("Under AR, the order of the full test set holds up to 50% removed; at 90% removed, with 40 "
                           "users left, B moves above A (τ = 0.33 [0.13, 1.00]). At 99% removed the interval of τ stays "
                           "below 1: there the order changed beyond the noise of the users. Under 1R")
    assert text.endswith("Under 1R, the order of the full test set holds at every level, down to 12 users at 99% "
                         "removed. At every level the interval of τ reaches 1 and stays above 0: the order is kept "
                         "within the noise of the users.")
    assert readings.order_kept(table) == \
        "here the AR order was kept up to 90% of the test ratings removed and changed at 99%"
    assert readings.order_kept(table[table["sweep"] == ONE_R_REMOVAL].assign(sweep=AR_REMOVAL)) == \
        "here the AR order was kept, within noise, down to 99% of the test ratings removed"
    early = table.assign(tau=np.where(table["x"] > 0, 0.0, 1.0),
                         verdict=np.where(table["x"] > 0, ORDER_UNCLEAR, ORDER_KEPT))
    assert readings.order_kept(early) == "here the AR order could no longer be told from noise at the first removal level"
    assert "changes at the first removal level" in readings.order_sentences(early)
    assert "At 50%, 90% and 99% removed the interval reaches 1 but also 0 or below, too wide to tell" in \
        readings.order_sentences(early)


def test_the_caption_of_the_order_figure_names_the_dashed_lines_only_when_drawn() -> None:
    assert readings.order_truth_caption(orders(truth=True)) == "Dashed: τ against the true order of the simulated world."
    assert readings.order_truth_caption(orders()) == "No true order is drawn: the dataset has no complete truth."


def test_world_sentences_and_table() -> None:
    world = pd.DataFrame({"system": ["A", "B", "Random"], "full": [0.06, 0.07, 0.01], "thinned": [0.057, 0.066, 0.0101],
                          "change": [-0.05, -0.06, 0.01], "change_ci": [(-0.08, -0.02), (-0.09, -0.03), (-0.1, 0.1)],
                          "users": 5000, "pool_full": 3700, "pool_thinned": 3330})
    text = readings.world_sentences(world, "synthetic-ml1m", "tiny", sweep())
    assert text.startswith("On synthetic-ml1m the 1R P@n of the systems other than Random changes by -6% to -5% "
                           "(5,000 users followed), and the statement holds there: every interval lies within ±10%. "
                           "Its TI pool keeps 90% of its items at 90% removed, against 47% on tiny.")
    assert "the test cannot tell" in readings.world_sentences(
        world.assign(change_ci=[(-0.12, -0.02), (-0.09, -0.03), (0, 0)]), "w", "tiny", sweep())
    assert readings.world_sentences(None, "w", "tiny", sweep()).startswith("The check was not run")
    table = tables.world_table(world)
    assert table["change"].tolist()[0] == "-5%<br><small>[-8%, -2%]</small>"
    assert table["TI pool (items)"].tolist() == ["3,700 → 3,330"] * 3
    assert tables.world_table(None).columns.tolist() == ["note"]


def test_truth_and_population() -> None:
    assert readings.truth_sentence(orders(truth=True), "tiny", True).startswith(
        "Against the true order of the simulated world, AR on the full test set has τ = 1.00, and τ against the truth "
        "stays between 0.60 and 1.00 at every level")
    assert readings.truth_sentence(orders(truth=True), "tiny", True).endswith("already gets right.")
    assert readings.truth_sentence(orders(), "ml-100k", False).startswith("*ml-100k* is observed data")
    assert readings.truth_sentence(orders(), "tiny", True) == ""
    phrases = readings.one_r_population_phrases(statistics().levels)
    assert phrases == {"one_r_users_full": "50", "one_r_users_last": "50", "one_r_last_level": "99%"}


def test_lift_sentences() -> None:
    text = readings.lift_sentences(lift_frame(), 10)
    assert text.startswith("Across the datasets, ρ under AR ranges from 0.0010 (a) to 0.0020 (b); under 1R it is "
                           "1/100 everywhere. For the systems other than Random, AR P@10 spreads by a factor of 4.0 "
                           "across the datasets and 1R P@10 by 1.2: with t fixed by the design, 1R values are the more "
                           "comparable")
    assert "Dividing by ρ narrows the spread of AR values to 2.0;" in text
    assert text.endswith("the lift spreads by 2.0 against 12.0 for P@10 itself.")
    alone = readings.lift_sentences(lift_frame(("a",)), 10)
    assert alone.startswith("Only this page's dataset is available to this build (2 designs)")

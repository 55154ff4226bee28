"""Chapter 4's claims as data: every criterion decides at its edges, the measured values come from the
studies, and each claim is recorded on the data it was checked on (recbias.chapters.c04_popularity_bias.claims)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from c04_fixtures import curves, grid_study, hand_sweep, mainstream, orderings, sweep

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, NOT_CHECKED, PUBLISHED_COLUMNS, register
from recbias.bookkit.scorecard import NOT_COMPARABLE
from recbias.chapters.c04_popularity_bias import claims
from recbias.chapters.c04_popularity_bias.study import PERSONALISED, ObservationGrid

GROUPS = (claims.ORDERINGS, claims.SWEEP, claims.RATIO, claims.GRID, claims.MAINSTREAM)
FINDINGS = {finding.key: finding for group in GROUPS for finding in group}
PAGE = Path(__file__).resolve().parents[1] / "book" / "04_popularity_bias.py"

#: (finding, measured values, outcome): each criterion on both sides of its edge
EDGES = [
    ("popularity-count-is-the-best-trained-ordering", {"count_margin": 0.001, "count_p": 0.0499}, HOLDS),
    ("popularity-count-is-the-best-trained-ordering", {"count_margin": 0.001, "count_p": 0.05}, INCONCLUSIVE),
    ("popularity-count-is-the-best-trained-ordering", {"count_margin": -0.001, "count_p": 0.01}, FAILS),
    ("popularity-close-to-oracle", {"oracle_gap_low": -0.0999, "oracle_gap_high": 0.05}, HOLDS),
    ("popularity-close-to-oracle", {"oracle_gap_low": -0.1, "oracle_gap_high": 0.05}, INCONCLUSIVE),
    ("popularity-close-to-oracle", {"oracle_gap_low": -0.2, "oracle_gap_high": -0.1}, FAILS),
    ("popularity-close-to-oracle", {"oracle_gap_low": 0.1, "oracle_gap_high": 0.2}, FAILS),
    ("closed-form-bounds-contain-popularity", {"above_lower_bound": 0.0, "below_upper_bound": 0.0}, HOLDS),
    ("closed-form-bounds-contain-popularity", {"above_lower_bound": -1e-12, "below_upper_bound": 0.01}, FAILS),
    ("closed-form-bounds-contain-popularity", {"above_lower_bound": 0.01, "below_upper_bound": -1e-12}, FAILS),
    ("popularity-grows-with-alpha", {"popularity_step": 0.001, "popularity_step_p": 0.0499}, HOLDS),
    ("popularity-grows-with-alpha", {"popularity_step": 0.001, "popularity_step_p": 0.05}, INCONCLUSIVE),
    ("popularity-grows-with-alpha", {"popularity_step": -0.001, "popularity_step_p": 0.01}, FAILS),
    ("popularity-below-random-at-uniform", {"uniform_random_margin": 0.001, "uniform_p": 0.0499}, HOLDS),
    ("popularity-below-random-at-uniform", {"uniform_random_margin": 0.001, "uniform_p": 0.05}, INCONCLUSIVE),
    ("popularity-below-random-at-uniform", {"uniform_random_margin": -0.001, "uniform_p": 0.01}, FAILS),
    # every α's 90% interval inside ±a tenth holds; one touching a margin cannot tell; one wholly beyond, either side,
    # fails: the equivalence is two-sided
    ("plsa-follows-popularity", {"plsa_gap_low": np.array([-0.0999, 0.0]), "plsa_gap_high": np.array([0.0, 0.0999])},
     HOLDS),
    ("plsa-follows-popularity", {"plsa_gap_low": np.array([-0.1, 0.0]), "plsa_gap_high": np.array([0.0, 0.05])},
     INCONCLUSIVE),
    ("plsa-follows-popularity", {"plsa_gap_low": np.array([0.1, 0.0]), "plsa_gap_high": np.array([0.3, 0.05])}, FAILS),
    ("knn-mf-near-random", {"near_random_low": np.array([-0.05] * 4), "near_random_high": np.array([0.0999] * 4)},
     HOLDS),
    ("knn-mf-near-random", {"near_random_low": np.array([-0.05] * 4), "near_random_high": np.array([0.05] * 3 + [0.1])},
     INCONCLUSIVE),
    ("knn-mf-near-random", {"near_random_low": np.array([-0.05] * 3 + [-0.8]),
                            "near_random_high": np.array([0.05] * 3 + [-0.1])}, FAILS),  # wholly below random
    ("knn-mf-near-random", {"near_random_low": np.array([-0.05] * 3 + [0.1]),
                            "near_random_high": np.array([0.05] * 3 + [0.4])}, FAILS),  # wholly above random
    ("popularity-bias-on-other-metrics", {"other_metrics_margin": 0.001, "other_metrics_p": 0.0499}, HOLDS),
    ("popularity-bias-on-other-metrics", {"other_metrics_margin": 0.001, "other_metrics_p": 0.05}, INCONCLUSIVE),
    ("popularity-bias-on-other-metrics", {"other_metrics_margin": -0.001, "other_metrics_p": 0.01}, FAILS),
    ("positive-ratio-grows-with-popularity", {"movielens_spearman": np.array([-0.01, -0.7]),
                                              "movielens_p": np.array([0.0499, 1e-9])}, HOLDS),
    ("positive-ratio-grows-with-popularity", {"movielens_spearman": np.array([0.0, -0.7]),
                                              "movielens_p": np.array([0.01, 1e-9])}, FAILS),
    ("positive-ratio-grows-with-popularity", {"movielens_spearman": np.array([-0.3, -0.7]),
                                              "movielens_p": np.array([0.05, 1e-9])}, FAILS),
    ("one-relevant-overstates-popularity", {"overstatement_gap": 0.2, "overstatement_p": 0.0499}, HOLDS),
    ("one-relevant-overstates-popularity", {"overstatement_gap": 0.2, "overstatement_p": 0.05}, INCONCLUSIVE),
    ("one-relevant-overstates-popularity", {"overstatement_gap": -0.2, "overstatement_p": 0.01}, FAILS),
    ("popularity-serves-the-mainstream", {"most_mainstream_low": 0.031, "most_mainstream_high": 0.04,
                                          "least_mainstream_low": 0.02, "least_mainstream_high": 0.03}, HOLDS),
    ("popularity-serves-the-mainstream", {"most_mainstream_low": 0.03, "most_mainstream_high": 0.04,
                                          "least_mainstream_low": 0.02, "least_mainstream_high": 0.03}, INCONCLUSIVE),
    ("popularity-serves-the-mainstream", {"most_mainstream_low": 0.01, "most_mainstream_high": 0.019,
                                          "least_mainstream_low": 0.02, "least_mainstream_high": 0.03}, FAILS),
]


@pytest.mark.parametrize("key, values, outcome", EDGES)
def test_every_criterion_decides_at_its_edge(key, values, outcome) -> None:
    assert FINDINGS[key].criterion(values) == outcome


def test_every_finding_is_checked_at_its_edges_and_shown_on_the_page() -> None:
    assert {key for key, _, _ in EDGES} == set(FINDINGS)
    assert {(key, outcome) for key, _, outcome in EDGES} >= {(key, o) for key in FINDINGS for o in (HOLDS, FAILS)}
    page = PAGE.read_text()
    assert all(f":name: {claim.anchor}\n" in page for claim in [*FINDINGS.values(), *claims.PUBLISHED])
    assert all(f"{{glue:md}}`says-{key}`" in page for key, finding in FINDINGS.items() if finding.says)


@pytest.mark.parametrize("key, values, outcome", [edge for edge in EDGES if FINDINGS[edge[0]].says])
def test_a_finding_that_speaks_says_every_outcome_it_reaches(key, values, outcome, measured) -> None:
    """Each edge's outcome, with the measured values of the small studies for the rest of the sentence."""
    (claim,) = register([FINDINGS[key]], measured | values, dataset="d")
    assert claim.outcome == outcome and claim.sentence.endswith(".") and "{" not in claim.sentence


def test_the_published_numbers_follow_the_one_schema() -> None:
    header = next(line for line in Path(claims.__file__).with_name("published.csv").read_text().splitlines()
                  if not line.startswith("#"))
    assert tuple(header.split(",")) == PUBLISHED_COLUMNS
    assert {n.key: n.value for n in claims.PUBLISHED} == {"fig5/alpha-0/Popularity/1R-P@10": 0.0077,
                                                          "fig5/alpha-0/Random/1R-P@10": 0.0100}
    assert set(claims.PUBLISHED_SYSTEMS) == {n.key for n in claims.PUBLISHED}
    assert claims.paper_number("Random").value == 0.01
    assert all(n.paper_dataset == "preference-free worlds of ML-1M's shape" for n in claims.PUBLISHED)


@pytest.fixture(scope="module")
def measured() -> dict:
    return (claims.orderings_values(orderings()) | claims.sweep_values(sweep()) | claims.ratio_values(curves())
            | claims.grid_values(grid_study()) | claims.mainstream_values(mainstream()))


def test_measured_values_come_from_the_studies(measured) -> None:
    study = orderings()
    one = study.means(study.one_relevant)
    assert measured["best_1r"] == study.best_trained(study.one_relevant)
    rivals = claims.count_against_rivals(study)
    assert set(rivals["rival"]) == {"Mean rating", "Mean rating (+10)", "Random"} and len(rivals) == 6
    assert set(rivals["count"]) <= set(claims.COUNTS)
    decisive = rivals.iloc[claims.deciding(rivals["difference"].to_numpy(), rivals["p"].to_numpy())]
    assert (measured["count_rival"], measured["count_margin"], measured["count_p"]) == (
        decisive["rival"], decisive["difference"], decisive["p"])
    design = {"1R": study.one_relevant, "AR": "TI-AN"}[measured["count_design"]]
    row = study.comparison(design, measured["count"], measured["count_rival"])
    assert measured["count_margin"] == row["difference"]  # count minus rival, paired by user
    assert measured["oracle_share"] == pytest.approx(one["Popularity"] / one["Test-set oracle"])
    bounds = study.bounds.set_index("system").loc["Popularity"]
    assert measured["above_lower_bound"] == pytest.approx(one["Popularity"] - bounds["closed-form lower"])
    uniform = sweep().uniform()
    assert measured["fig5/alpha-0/Popularity/1R-P@10"] == uniform["Popularity"]
    assert measured["fig5/alpha-0/Random/1R-P@10"] == uniform["Random"]
    assert measured["uniform_random_margin"] == pytest.approx(uniform["Random"] - uniform["Popularity"])
    assert measured["popularity_by_alpha"].startswith("α = 0: ") and ", α = 1: " in measured["popularity_by_alpha"]
    step = sweep().steps("Popularity").iloc[0]  # one step, from α = 0 to 1: it decides
    assert (measured["popularity_step"], measured["popularity_step_p"]) == (step["difference"], step["p"])
    assert measured["popularity_steps"].startswith("α = 0 to 1: +")
    assert len(measured["near_random_low"]) == len(measured["near_random_high"]) == 2 * len(sweep().alphas)
    assert np.all(measured["near_random_low"] < measured["near_random_high"])
    assert len(measured["plsa_gap_low"]) == len(sweep().skewed)
    shares = grid_study().shares
    assert measured["worlds"] == 2 and measured["overstatement_gap"] in set(shares["difference"])
    assert measured["overstatement_by_world"].startswith("α = 1, selection 0: ")
    assert measured["movielens"] == "" and "movielens_spearman" not in measured  # synthetic-small alone
    assert measured["rating_predictors_at_top"].startswith("rating-MF ") and " against random) and rating-kNN" in \
        measured["rating_predictors_at_top"]


def test_the_groups_register_on_the_sweep_and_on_the_movielens_data(measured) -> None:
    checked = register([*claims.PUBLISHED, *claims.SWEEP], measured, dataset=sweep().dataset)
    assert [claim.key for claim in checked] == [c.key for c in [*claims.PUBLISHED, *claims.SWEEP]]
    numbers = checked[:len(claims.PUBLISHED)]
    assert all(n.verdict == NOT_COMPARABLE and n.dataset != n.paper_dataset for n in numbers)  # not the papers' shape
    assert all(claim.evidence.endswith(f"(criterion: {claim.criterion})") for claim in checked[len(numbers):])
    by_key = {claim.key: claim for claim in checked}
    # on a small world the rating predictors' intervals reach past a tenth of random's precision: cannot tell
    assert by_key["knn-mf-near-random"].outcome == INCONCLUSIVE
    assert np.max(np.abs(np.r_[measured["near_random_low"], measured["near_random_high"]])) > 0.1
    assert {c.outcome for c in register(claims.RATIO, measured, dataset="")} == {NOT_CHECKED}  # no MovieLens curve
    movielens = pd.concat([curves(), curves().assign(dataset="ml-x")], ignore_index=True)
    (claim,) = register(claims.RATIO, claims.ratio_values(movielens), dataset=claims.ratio_values(movielens)["movielens"])
    assert claim.dataset == "ml-x" and claim.evidence.startswith("ml-x: head ")


def _mainstream_table(least: tuple[float, float], most: tuple[float, float]) -> pd.DataFrame:
    rows = [{"group": g, "system": s, "measure": "measured", "mean": (lo + hi) / 2, "ci_low": lo, "ci_high": hi}
            for g, (lo, hi) in ((1, least), (5, most)) for s in ("Popularity", PERSONALISED)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("most, outcome", [((0.2001, 0.3), HOLDS), ((0.2, 0.3), INCONCLUSIVE),
                                           ((0.05, 0.0999), FAILS)])
def test_the_mainstream_finding_reads_intervals_apart(most, outcome, measured) -> None:
    values = measured | claims.mainstream_values(_mainstream_table((0.1, 0.2), most))
    (claim,) = register([FINDINGS["popularity-serves-the-mainstream"]], values, dataset="d")
    assert claim.outcome == outcome
    assert claim.evidence.startswith(f"most mainstream fifth {(most[0] + most[1]) / 2:.3f} [{most[0]:.3f}, "
                                     f"{most[1]:.3f}], least 0.150 [0.100, 0.200]")


def test_claims_on_a_sweep_with_only_uniform_worlds_are_left_out() -> None:
    one = {s: {0.0: (0.008, 0.007, 0.009)} for s in ("Popularity", "pLSA", "rating-kNN", "Random", "Mean rating")}
    uniform = hand_sweep(one | {"rating-MF": {0.0: (0.01, 0.0081, 0.011)}}, p={("Random", "rating-MF"): 1e-6})
    values = claims.sweep_values(uniform)
    assert "popularity_step" not in values and "plsa_gap_low" not in values
    checked = register([FINDINGS[k] for k in ("popularity-grows-with-alpha", "plsa-follows-popularity",
                                              "popularity-bias-on-other-metrics")], values, dataset="d")
    assert {claim.outcome for claim in checked} == {NOT_CHECKED}
    # at α = 0 alone, the rating predictors are still compared with random: rating-MF sits a quarter above it
    (near,) = register([FINDINGS["knn-mf-near-random"]], values, dataset="d")
    assert near.outcome == FAILS and near.evidence.startswith("90% intervals of 1R P@10 over random's, minus 1: "
                                                              "rating-MF α = 0: +")


def test_rating_predictors_read_the_paired_tests_of_a_hand_made_sweep() -> None:
    """The closer rating predictor to popularity at the largest skew decides the margin, with its own p."""
    at = {0.0: (0.01, 0.009, 0.011), 1.0: (0.01, 0.009, 0.011)}
    one = {"Popularity": {0.0: (0.008, 0.007, 0.009), 1.0: (0.05, 0.04, 0.06)}, "Random": at,
           "rating-MF": {0.0: (0.01, 0.009, 0.011), 1.0: (0.02, 0.01, 0.03)},
           "rating-kNN": {0.0: (0.01, 0.009, 0.011), 1.0: (0.005, 0.004, 0.006)}}
    hand = hand_sweep(one, p={("Popularity", "rating-MF"): 0.03, ("Popularity", "rating-kNN"): 1e-6,
                              ("Random", "rating-kNN"): 0.001})
    values = claims.rating_predictor_values(hand)
    # rating-kNN at half of random's precision at α = 1, beyond noise: more than a tenth below random fails
    assert values["near_random_high"][-1] < -0.1 and FINDINGS["knn-mf-near-random"].criterion(values) == FAILS
    # the relative interval is centred on the relative difference, with the half-width the t statistic gives
    low, high = values["near_random_low"][-1], values["near_random_high"][-1]
    assert (low + high) / 2 == pytest.approx(0.005 / 0.01 - 1)
    assert (high - low) / 2 == pytest.approx(0.005 / stats.t.isf(0.0005, 999) * stats.t.ppf(0.95, 999) / 0.01)
    lifts = claims.other_metrics_values(hand)
    assert lifts["other_metrics_margin"] == pytest.approx(0.04) and lifts["other_metrics_p"] == 0.5


@pytest.mark.parametrize("differences, p, chosen", [
    ([0.01, 0.02, 0.03], [0.01, 0.04, 0.001], 1),  # every one beyond noise: the one of largest p
    ([0.01, -0.02, 0.03], [0.01, 0.5, 0.001], 1),  # the first within noise
    ([0.01, -0.02, -0.03], [0.5, 0.5, 0.001], 2),  # a fall beyond noise comes before any step within noise
    ([0.0, 0.02], [0.01, 0.01], 0),  # no change is within noise whatever its p
])
def test_the_deciding_comparison(differences, p, chosen) -> None:
    assert claims.deciding(np.array(differences), np.array(p)) == chosen


@pytest.mark.parametrize("means, outcome", [
    ((0.010, 0.030, 0.050), HOLDS),  # each step far beyond the intervals' half-width of 0.002
    ((0.010, 0.030, 0.0305), INCONCLUSIVE),  # the last step within noise
    ((0.010, 0.030, 0.020), FAILS),  # the last step falls beyond noise
])
def test_popularity_grows_with_alpha_on_a_hand_made_sweep(means, outcome) -> None:
    one = {"Popularity": {a: (m, m - 0.002, m + 0.002) for a, m in zip((0.0, 1.0, 2.0), means, strict=True)},
           "Random": {a: (0.01, 0.009, 0.011) for a in (0.0, 1.0, 2.0)}}
    one |= {s: one["Popularity"] for s in ("pLSA", "rating-kNN", "rating-MF")}
    (claim,) = register([FINDINGS["popularity-grows-with-alpha"]], claims.sweep_values(hand_sweep(one)), dataset="d")
    assert claim.outcome == outcome
    assert "gain from the α before, p of Welch's t over the two worlds' users: α = 0 to 1: +0.0200 (p " in \
        claim.evidence


def _grid(differences: tuple[float, float], p: tuple[float, float]) -> ObservationGrid:
    """A grid of two worlds whose true share is 0.4, the 1R share 0.4 plus ``differences``."""
    shares = pd.DataFrame({"alpha": 1.0, "selection": [0.0, 2.0], "1R": np.add(0.4, differences), "true": 0.4,
                           "difference": differences, "p": p})
    return ObservationGrid(pd.DataFrame(), shares)


@pytest.mark.parametrize("differences, p, outcome", [
    ((0.2, 0.1), (0.001, 0.01), HOLDS),
    ((0.2, 0.1), (0.001, 0.3), INCONCLUSIVE),
    ((0.2, -0.1), (0.001, 0.01), FAILS),
])
def test_overstated_compares_the_measured_and_true_shares_world_by_world(differences, p, outcome) -> None:
    values = claims.grid_values(_grid(differences, p))
    (claim,) = register([FINDINGS["one-relevant-overstates-popularity"]], values, dataset="d")
    assert claim.outcome == outcome
    assert values["overstatement_max"] == pytest.approx(0.6 / 0.4) and values["worlds"] == 2
    assert values["overstatement_by_world"].startswith("α = 1, selection 0: +20% (p = 0.001); α = 1, selection 2: ")
"""Tests of the simulated world in recbias.synthetic."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2_contingency, rankdata, spearmanr

from recbias import datasets
from recbias.demographics import ML1M_AGE_BANDS, ML1M_OCCUPATIONS
from recbias.synthetic import (
    MAX_PAIRS,
    OBSERVED_ONLY,
    PREFERENCE_FREE,
    PRESETS,
    fit_popularity_curve,
    generate,
    popularity_curve,
    resolve_parameters,
    simulate,
)
from recbias.synthetic import demographics, timeline
from recbias.synthetic.observation import fit_propensity, sample_observations
from recbias.synthetic.observed import successive_sample
from recbias.synthetic.parameters import ML100K_RATING_COUNTS
from recbias.synthetic.popularity import apportion, user_targets
from recbias.synthetic.preferences import rating_cut_points, ratings_from_affinity


@pytest.fixture(scope="module")
def world():
    return simulate(seed=1)


@pytest.fixture(scope="module")
def small():
    return simulate(seed=0, preset="synthetic-small")


# ----------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    "preset, overrides",
    [("synthetic", {}), ("synthetic-small", {}), ("synthetic-small", {"n_users": 300, "n_items": 250, "n_ratings": 9000})],
)
def test_sizes_and_density_match_parameters(preset, overrides):
    ratings = generate(seed=2, preset=preset, **overrides)
    p = {**PRESETS[preset], **overrides}
    assert ratings.name == preset
    assert ratings.shape == (p["n_users"], p["n_items"])
    assert ratings.n_ratings == p["n_ratings"]
    assert ratings.density == pytest.approx(p["n_ratings"] / (p["n_users"] * p["n_items"]))
    assert ratings.true_relevance.shape == ratings.shape
    assert ratings.user_counts().min() >= p["min_user_ratings"]
    # no pair is rated twice
    assert len(np.unique(ratings.users.astype(np.int64) * ratings.n_items + ratings.items)) == ratings.n_ratings


def test_default_preset_is_movielens_like(world):
    r = world.ratings
    assert 100_000 <= r.n_ratings <= 150_000
    users = r.user_counts()
    # long-tailed activity, as in ML-100K (mean/median 1.6, max/median 11)
    assert users.mean() / np.median(users) > 1.3
    assert users.max() / np.median(users) > 5
    # the head item is rated by a large share of users but not by nearly all
    assert 0.15 < r.item_counts().max() / r.n_users < 0.9


def test_user_counts_are_the_activity_targets(world):
    assert np.array_equal(world.ratings.user_counts(), world.expected_user_ratings)


def test_unrated_items_are_as_many_as_the_model_predicts(small):
    """Tail items may stay unrated; their number must match sum_i prod_u (1 - pi_ui)."""
    unrated = small.ratings.item_counts() == 0
    expected = np.prod(1.0 - small.propensity.astype(np.float64), axis=0).sum()
    assert abs(unrated.sum() - expected) <= 4 * math.sqrt(expected) + 1
    # and they are tail items
    if unrated.any():
        assert small.expected_item_ratings[unrated].max() < np.median(small.expected_item_ratings)


# ------------------------------------------------------------ determinism


def test_same_seed_same_world_and_different_seed_differs():
    a, b, c = (generate(seed=s, preset="synthetic-small") for s in (7, 7, 8))
    for field in ("users", "items", "values", "timestamps", "true_relevance"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert a.user_attributes.equals(b.user_attributes)
    assert not np.array_equal(a.items, c.items)
    assert not np.array_equal(a.true_relevance, c.true_relevance)


def test_world_arrays_are_read_only(small):
    with pytest.raises(ValueError):
        small.true_ratings[0, 0] = 1
    with pytest.raises(ValueError):
        small.propensity[0, 0] = 0.5


# ------------------------------------------------------------- popularity


def test_popularity_curve_hand_example():
    # c2 = 0, alpha = 1: the curve is beta / k; 1 + 1/2 + 1/3 = 11/6, so beta = 6
    curve = popularity_curve(n_items=3, n_ratings=11, alpha=1.0, floor=0.0, shift=0.0)
    assert curve.beta == pytest.approx(6.0)
    assert curve.expected(np.array([1, 2, 3])) == pytest.approx([6.0, 3.0, 2.0])
    # floor 0.5 of the mean 11/3: c1 = 11/6 and beta = (11 - 3 c1) / (11/6) = 3
    curve = popularity_curve(n_items=3, n_ratings=11, alpha=1.0, floor=0.5, shift=0.0)
    assert curve.c1 == pytest.approx(11 / 6)
    assert curve.expected(np.array([1, 2, 3])) == pytest.approx(11 / 6 + np.array([3.0, 1.5, 1.0]))
    # alpha = 0 is uniform popularity
    assert popularity_curve(4, 100, 0.0, 0.0, 0.08).expected(np.arange(1, 5)) == pytest.approx([25.0] * 4)


def _fitted_alpha(counts: np.ndarray, c1: float, c2: float, min_count: float = 20) -> float:
    """Least-squares slope of log(|R(i_k)| - c1) on log(c2 + k), ranks k by observed counts."""
    ordered = np.sort(counts)[::-1].astype(np.float64)
    ranks = np.arange(1, len(ordered) + 1)
    keep = ordered - c1 >= min_count
    slope, _ = np.polyfit(np.log(c2 + ranks[keep]), np.log(ordered[keep] - c1), 1)
    return -slope


@pytest.mark.parametrize("alpha", [1.0, 1.4, 2.0])
def test_power_law_exponent_is_recovered(alpha):
    """With c1 and c2 known, the log-log slope over items with at least 20 ratings
    recovers alpha within 0.03.  Counts are binomial around the curve (relative
    noise <= 1/sqrt(20)); ranking items by their noisy counts steepens a flat
    curve a little (about +0.01 at alpha = 1, +0.04 at alpha = 0.5), and the
    seed-to-seed sd of the estimate is about 0.005 at this size."""
    w = simulate(seed=3, alpha=alpha)
    estimate = _fitted_alpha(w.ratings.item_counts(), w.popularity.c1, w.popularity.c2)
    assert estimate == pytest.approx(alpha, abs=0.03)


def test_item_counts_scatter_around_the_curve_like_bernoulli_sums(world):
    """Each count is a sum of independent-ish Bernoulli draws with mean m_i, so its
    variance is at most m_i: the dispersion index must be below 1 and not tiny."""
    counts = world.ratings.item_counts()
    m = world.expected_item_ratings
    dispersion = np.mean((counts - m) ** 2 / m)
    assert 0.6 < dispersion < 1.1
    assert np.corrcoef(np.log1p(counts), np.log(m))[0, 1] > 0.97


def test_propensities_meet_both_margins(world):
    pi = world.propensity.astype(np.float64)
    assert np.all((pi > 0) & (pi <= 1))
    assert pi.sum(axis=1) == pytest.approx(world.expected_user_ratings, rel=1e-3)
    assert pi.sum(axis=0) == pytest.approx(world.expected_item_ratings, rel=1e-3)


# ----------------------------------------------------------- observation


def test_fit_propensity_uniform_hand_example():
    # all weights 1, every margin 1 on a 2 x 2 grid: pi = 1/2 everywhere
    x, y, pi = fit_propensity(np.ones((2, 2), np.float32), np.ones(2), np.ones(2))
    assert pi == pytest.approx(np.full((2, 2), 0.5), abs=1e-6)
    assert x[0] * y[0] == pytest.approx(math.log(2), rel=1e-5)


def test_fit_propensity_has_the_cloglog_form_and_margins():
    rng = np.random.default_rng(0)
    weights = np.exp(rng.normal(size=(40, 60))).astype(np.float32)
    rows, columns = rng.uniform(2, 20, 40), rng.uniform(1, 10, 60)
    columns *= rows.sum() / columns.sum()
    x, y, pi = fit_propensity(weights, rows, columns)
    pi = pi.astype(np.float64)
    assert pi.sum(axis=1) == pytest.approx(rows, rel=1e-3)
    assert pi.sum(axis=0) == pytest.approx(columns, rel=1e-3)
    assert pi == pytest.approx(1 - np.exp(-np.outer(x, y) * weights), abs=1e-5)


def test_fit_propensity_refuses_impossible_margins():
    # rows 0 and 1 need 5.8 observations but columns 0 and 1 can give them at most
    # 2 each and column 2 only 0.2 in total
    margins = np.array([2.9, 2.9, 0.2])
    with pytest.raises(RuntimeError, match="margins"):
        fit_propensity(np.ones((3, 3), np.float32), margins, margins)
    with pytest.raises(ValueError, match="below"):
        fit_propensity(np.ones((3, 3), np.float32), np.full(3, 2.9), np.array([8.0, 0.35, 0.35]))


@pytest.mark.parametrize("count", [1, 2])
def test_exponential_race_inclusion_probabilities(count):
    """Brute-force oracle for sampling without replacement proportional to rates p:
    P(i first) = p_i and P(i among first two) = p_i + sum_{j != i} p_j p_i / (1 - p_j)."""
    rates = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    n_rows = 40_000
    rows, columns = sample_observations(
        np.random.default_rng(1), np.ones((n_rows, 4), np.float32), rates, np.full(n_rows, count)
    )
    assert np.array_equal(np.bincount(rows), np.full(n_rows, count))
    frequency = np.bincount(columns, minlength=4) / n_rows
    p = rates / rates.sum()
    if count == 1:
        expected = p
    else:
        expected = np.array([p[i] + sum(p[j] * p[i] / (1 - p[j]) for j in range(4) if j != i) for i in range(4)])
    sd = np.sqrt(expected * (1 - expected) / n_rows)
    assert np.all(np.abs(frequency - expected) < 4 * sd)


def test_exponential_race_breaks_ties_at_the_cut_by_column():
    class FixedArrivals:
        def standard_exponential(self, shape, dtype):
            return np.array([[3.0, 1.0, 1.0, 1.0, 0.5], [2.0, 2.0, 2.0, 2.0, 2.0]], dtype=dtype)

    rows, columns = sample_observations(FixedArrivals(), np.ones((2, 5), np.float32), np.ones(5), np.array([3, 2]))
    assert rows.tolist() == [0, 0, 0, 1, 1]
    assert columns.tolist() == [1, 2, 4, 0, 1]


def test_observation_rate_falls_with_popularity_rank(world):
    observed = world.ratings.matrix("binary").toarray() > 0
    by_rank = observed.mean(axis=0)[np.argsort(world.item_rank)]
    deciles = by_rank.reshape(10, -1).mean(axis=1)
    assert np.all(np.diff(deciles) < 0)
    assert deciles[0] > 5 * deciles[-1]


def test_observation_rate_rises_with_true_rating(world):
    observed = world.ratings.matrix("binary").toarray() > 0
    rate = np.array([observed[world.true_ratings == r].mean() for r in range(1, 6)])
    assert np.all(np.diff(rate) > 0)
    assert rate[4] > 3 * rate[0]


def _within_item_selection_gap(w) -> float:
    """Mean affinity of observed pairs minus the item's mean affinity, in affinity sd."""
    observed = w.ratings.matrix("binary").toarray() > 0
    affinity = w.affinity.astype(np.float64)
    centred = affinity - affinity.mean(axis=0)
    return (centred[observed]).mean() / affinity.std()


def test_people_rate_what_they_like_and_selection_zero_is_ignorable(world):
    assert _within_item_selection_gap(world) > 0.3
    assert abs(_within_item_selection_gap(simulate(seed=1, selection=0.0))) < 0.03


# ---------------------------------------------------------------- ratings


def test_rating_histogram_follows_the_prior(world):
    counts = np.bincount(world.ratings.values.astype(int), minlength=6)[1:]
    prior = np.array(ML100K_RATING_COUNTS) / sum(ML100K_RATING_COUNTS)
    assert np.all(np.abs(counts - prior * world.ratings.n_ratings) <= 1)


@pytest.mark.parametrize(
    "prior, expected",
    [((1, 1, 1, 1, 1), [1, 3, 2, 5, 4]), ((0, 1, 1, 1, 2), [2, 4, 3, 5, 5]), ((1, 1, 1, 2, 0), [1, 3, 2, 4, 4])],
)
def test_rating_cut_points_hand_examples(prior, expected):
    observed = np.array([0.1, 0.5, 0.2, 0.9, 0.7], np.float32)
    cut_points = rating_cut_points(observed, prior)
    assert ratings_from_affinity(observed, cut_points).tolist() == expected
    # an unobserved pair below every observed one gets the lowest level the prior allows
    assert ratings_from_affinity(np.array([-5.0], np.float32), cut_points)[0] == (1 if prior[0] else 2)


def test_custom_prior_is_honoured():
    ratings = generate(seed=0, preset="synthetic-small", rating_prior=(1, 1, 1, 1, 1))
    counts = np.bincount(ratings.values.astype(int), minlength=6)[1:]
    assert np.all(np.abs(counts - ratings.n_ratings / 5) <= 1)


def test_observed_values_are_the_true_ratings(world):
    r = world.ratings
    assert np.array_equal(r.values, world.true_ratings[r.users, r.items])
    assert np.array_equal(r.positive, r.true_relevance[r.users, r.items])
    assert np.array_equal(r.true_relevance, world.true_ratings >= 5)
    assert set(np.unique(world.true_ratings)) <= {1, 2, 3, 4, 5}


def test_true_ratings_are_monotone_in_affinity(small):
    order = np.argsort(small.affinity, axis=None)
    assert np.all(np.diff(small.true_ratings.ravel()[order].astype(int)) >= 0)


def test_unobserved_pairs_are_rated_lower_than_observed_ones(world):
    """Missing not at random: the complete matrix has fewer 5s than the observed sample."""
    observed_five = np.mean(world.ratings.values == 5)
    assert world.true_relevance.mean() < 0.6 * observed_five


def test_popular_items_are_more_often_relevant(world):
    rho, _ = spearmanr(world.item_rank, world.true_relevance.mean(axis=0))
    assert rho < -0.3


def test_positive_threshold_sets_true_relevance():
    w = simulate(seed=0, preset="synthetic-small", positive_threshold=4)
    assert w.ratings.positive_threshold == 4
    assert np.array_equal(w.true_relevance, w.true_ratings >= 4)


# -------------------------------------------------------------- CF signal


def _mean_user_auc(scores: np.ndarray, excluded: np.ndarray, relevant: np.ndarray) -> float:
    """Mean over users of the AUC of ``scores`` separating relevant from non-relevant
    items among those not ``excluded`` (Mann-Whitney with average ranks)."""
    ranks = rankdata(np.where(excluded, -np.inf, scores), axis=1) - excluded.sum(axis=1, keepdims=True)
    positive = relevant & ~excluded
    n_pos = positive.sum(axis=1)
    n_neg = (~excluded).sum(axis=1) - n_pos
    ok = (n_pos > 0) & (n_neg > 0)
    auc = ((ranks * positive).sum(axis=1) - n_pos * (n_pos + 1) / 2)[ok] / (n_pos * n_neg)[ok]
    return float(auc.mean())


def _item_knn_vs_popularity(w) -> tuple[float, float]:
    """AUC on true relevance of unseen items: item-kNN (cosine on training positives)
    and training popularity, trained on a random 80 % of the observed ratings."""
    train = w.ratings.subset(np.random.default_rng(0).random(w.ratings.n_ratings) < 0.8)
    seen = train.matrix("binary").toarray() > 0
    liked = train.matrix("positive")
    norms = np.sqrt(np.asarray(liked.sum(axis=0)).ravel())
    norms[norms == 0] = 1
    similarity = (liked.T @ liked).toarray() / np.outer(norms, norms)
    np.fill_diagonal(similarity, 0)
    knn = np.asarray(liked @ similarity)
    popularity = np.broadcast_to(train.item_counts().astype(np.float64), seen.shape)
    return _mean_user_auc(knn, seen, w.true_relevance), _mean_user_auc(popularity, seen, w.true_relevance)


def test_collaborative_filtering_finds_truly_relevant_unseen_items(world):
    knn, popularity = _item_knn_vs_popularity(world)
    assert knn > 0.7
    assert knn > popularity + 0.05


def test_no_cf_signal_when_noise_swamps_taste():
    knn, _ = _item_knn_vs_popularity(simulate(seed=1, preset="synthetic-small", noise=6.0, item_effect=0.0))
    assert knn < 0.56


# ------------------------------------------------------------- attributes


def _attribute_taste_p_values(w) -> dict[str, float]:
    """Chi-square p-value of each attribute against the sign of the first taste dimension."""
    sign = (w.user_factors[:, 0] > 0).astype(int)
    out = {}
    for column in ("gender", "age", "occupation"):
        codes = w.ratings.user_attributes[column].cat.codes.to_numpy()
        table = np.zeros((codes.max() + 1, 2))
        np.add.at(table, (codes, sign), 1)
        out[column] = chi2_contingency(table[table.sum(axis=1) > 0])[1]
    return out


def test_attributes_correlate_with_tastes(world):
    p_values = _attribute_taste_p_values(world)
    assert p_values["gender"] < 0.01 and p_values["age"] < 0.01


def test_attributes_independent_of_tastes_without_attribute_effect():
    p_values = _attribute_taste_p_values(simulate(seed=1, attribute_effect=0.0))
    assert min(p_values.values()) > 0.01


def test_attribute_frequencies_follow_movielens_1m(world):
    table = world.ratings.user_attributes
    assert list(table.columns) == ["gender", "age", "occupation"]
    share_male = np.mean(table["gender"] == "M")
    assert share_male == pytest.approx(4331 / 6040, abs=4 * math.sqrt(0.72 * 0.28 / len(table)))
    # the joint draw keeps K-12 students young
    students = table["occupation"] == "K-12 student"
    assert np.mean(table["age"][students].isin(["Under 18", "18-24"])) > 0.8


# -------------------------------------------------------------- timestamps


def test_timestamps_in_window_and_non_decreasing_per_user(world):
    r = world.ratings
    start = PRESETS["synthetic"]["start"]
    assert r.timestamps.min() >= start
    assert r.timestamps.max() <= start + PRESETS["synthetic"]["days"] * 86_400
    assert np.all(np.diff(r.users) >= 0)
    same_user = np.diff(r.users) == 0
    assert np.all(np.diff(r.timestamps)[same_user] >= 0)
    # like MovieLens: most users rate within a few days, some come back for months
    first = np.minimum.reduceat(r.timestamps, np.flatnonzero(np.r_[True, np.diff(r.users) > 0]))
    last = np.maximum.reduceat(r.timestamps, np.flatnonzero(np.r_[True, np.diff(r.users) > 0]))
    span_days = (last - first) / 86_400
    assert np.median(span_days) < 3
    assert np.quantile(span_days, 0.9) > 10


# ----------------------------------------------------------- parameters


@pytest.mark.parametrize(
    "overrides, name",
    [
        ({"colour": 3}, "colour"),
        ({"n_users": 1}, "n_users"),
        ({"n_users": True}, "n_users"),
        ({"n_items": 2.5}, "n_items"),
        ({"n_ratings": 100}, "n_ratings"),
        ({"alpha": -0.1}, "alpha"),
        ({"alpha": float("nan")}, "alpha"),
        ({"selection": 6.0}, "selection"),
        ({"attribute_effect": 1.5}, "attribute_effect"),
        ({"quality_popularity": -2.0}, "quality_popularity"),
        ({"activity_shape": 0.0}, "activity_shape"),
        ({"days": -1.0}, "days"),
        ({"positive_threshold": 6}, "positive_threshold"),
        ({"rating_prior": (1, 2, 3, 4)}, "rating_prior"),
        ({"rating_prior": (1, 2, -3, 4, 5)}, "rating_prior"),
        ({"rating_prior": "12345"}, "rating_prior"),
        ({"rating_prior": (1, 2, 3, 4, 0)}, "rating_prior"),
        ({"popularity_floor": -5.0}, "popularity_floor"),
        ({"alpha": 2.0}, "alpha"),  # the head item would need more raters than exist
        ({"n_ratings": 40_000}, "n_ratings"),  # the most active user would need most items
        ({"n_users": 6000, "n_items": 6000, "n_ratings": 200_000}, "n_users"),
    ],
)
def test_invalid_parameters_raise_naming_the_parameter(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        generate(seed=0, preset="synthetic-small", **overrides)


def test_unknown_preset_and_bad_seed_raise():
    with pytest.raises(ValueError, match="preset"):
        generate(preset="synthetic-huge")
    with pytest.raises(ValueError, match="'seed'"):
        generate(seed=-1, preset="synthetic-small")


def test_presets_validate_and_cover_every_parameter():
    for name, preset in PRESETS.items():
        assert resolve_parameters(name) == {**preset, "rating_prior": tuple(map(float, preset["rating_prior"]))}


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=30).filter(lambda w: sum(w) > 0), st.integers(0, 10**6))
def test_apportion_adds_up_and_stays_within_one(weights, total):
    counts = apportion(np.array(weights), total)
    exact = np.array(weights) / sum(weights) * total
    assert counts.sum() == total
    assert np.all(np.abs(counts - exact) < 1)


# ------------------------------------------------- defaults vs MovieLens 100K


@pytest.mark.realdata
def test_defaults_match_movielens_100k():
    """The documented reasons for the defaults, rechecked on the ML-100K ratings file."""
    from scipy.optimize import minimize_scalar
    from test_datasets_support import real_data_dir

    table = np.loadtxt(real_data_dir("ml-100k") / "ml-100k" / "u.data", dtype=np.int64)
    users, items, values = table[:, 0], table[:, 1], table[:, 2]
    defaults = PRESETS["synthetic"]
    assert tuple(np.bincount(values, minlength=6)[1:]) == ML100K_RATING_COUNTS
    # gamma shape of activity above the floor of 20, by the method of moments
    excess = np.bincount(users)[1:] - 20
    assert (excess.mean() / excess.std()) ** 2 == pytest.approx(defaults["activity_shape"], abs=0.05)
    # c2 (as a share of the items) of the least-squares curve at alpha = 1.4 with c1 = 0
    counts = np.sort(np.bincount(items)[1:])[::-1]
    n_items, n_ratings = len(counts), counts.sum()

    def squared_error(shift: float) -> float:
        curve = popularity_curve(n_items, n_ratings, defaults["alpha"], 0.0, shift)
        return float(np.sum((curve.expected(np.arange(1, n_items + 1)) - counts) ** 2))

    fitted = minimize_scalar(squared_error, bounds=(0.001, 1.0), method="bounded").x
    assert fitted == pytest.approx(defaults["popularity_shift"], abs=0.01)


# -------------------------------------------- exact item counts, preference-free worlds


def test_exact_item_counts_follow_the_rounded_curve():
    w = simulate(seed=4, preset="synthetic-small", alpha=1.0, exact_counts="items")
    counts = w.ratings.item_counts()
    expected = apportion(w.popularity.expected(np.arange(1, w.ratings.n_items + 1)), w.ratings.n_ratings)
    assert np.array_equal(np.sort(counts)[::-1], expected)
    assert np.array_equal(counts, w.expected_item_ratings)
    assert w.ratings.n_ratings == PRESETS["synthetic-small"]["n_ratings"]
    # users now only meet their activity on average
    users = w.ratings.user_counts()
    assert not np.array_equal(users, w.expected_user_ratings)
    assert np.corrcoef(users, w.expected_user_ratings)[0, 1] > 0.9
    assert len(np.unique(w.ratings.users.astype(np.int64) * w.ratings.n_items + w.ratings.items)) == w.ratings.n_ratings


def test_uniform_exact_counts_leave_no_spread_between_items():
    counts = generate(seed=0, preset="synthetic-small", alpha=0.0, exact_counts="items").item_counts()
    assert counts.max() - counts.min() <= 1
    # with exact user counts instead, item counts scatter like sums of Bernoulli draws
    loose = generate(seed=0, preset="synthetic-small", alpha=0.0).item_counts()
    assert 0.6 < loose.var() / loose.mean() < 1.1


def test_zero_count_rows_take_no_column():
    weights, counts = np.ones((3, 5), np.float32), np.array([0, 2, 5])
    rows, columns = sample_observations(np.random.default_rng(0), weights, np.ones(5), counts)
    assert np.array_equal(np.bincount(rows, minlength=3), [0, 2, 5])
    assert np.array_equal(columns[rows == 2], np.arange(5))


def test_preference_free_ratings_ignore_users_items_and_observation():
    w = simulate(seed=2, preset="synthetic-small", alpha=1.0, exact_counts="items", **PREFERENCE_FREE)
    r = w.ratings
    histogram = np.bincount(r.values.astype(int), minlength=6)[1:]
    assert np.array_equal(histogram, apportion(np.array(ML100K_RATING_COUNTS), r.n_ratings))
    # rating values independent of the item's popularity decile and of the user's activity
    for codes in (r.items, r.users):
        side_counts = np.bincount(codes)
        cuts = np.quantile(side_counts[codes], np.linspace(0.1, 0.9, 9))
        decile = np.searchsorted(cuts, side_counts[codes], side="right")
        table = np.zeros((decile.max() + 1, 5))
        np.add.at(table, (decile, r.values.astype(int) - 1), 1)
        assert chi2_contingency(table[table.sum(axis=1) > 0])[1] > 0.001
    # unobserved pairs are as often relevant as observed ones
    observed = np.zeros(r.shape, dtype=bool)
    observed[r.users, r.items] = True
    assert r.true_relevance[observed].mean() == pytest.approx(r.true_relevance[~observed].mean(), abs=0.02)


def test_invalid_choice_and_all_zero_effects_raise():
    with pytest.raises(ValueError, match="'exact_counts'"):
        generate(seed=0, preset="synthetic-small", exact_counts="both")
    with pytest.raises(ValueError, match="'noise'"):
        generate(seed=0, preset="synthetic-small", **PREFERENCE_FREE, noise=0.0)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 1.4, 2.0])
def test_fitted_alpha_is_recovered_from_generated_worlds(alpha):
    """The least-squares fit of the cumulative share gives back the generator's exponent:
    exactly on exact item counts (shift fixed or free), and within the scatter of the
    counts when only user counts are exact (sorting noisy counts adds a little skew,
    most on flat curves)."""
    exact = simulate(seed=5, alpha=alpha, exact_counts="items", **PREFERENCE_FREE)
    shift = exact.parameters["popularity_shift"]
    assert fit_popularity_curve(exact.ratings.item_counts(), shift=shift).alpha == pytest.approx(alpha, abs=0.01)
    if alpha > 0:  # a flat curve has no shift to recover
        free = fit_popularity_curve(exact.ratings.item_counts())
        assert (free.alpha, free.c2) == pytest.approx((alpha, exact.popularity.c2), rel=0.02)
    loose = generate(seed=5, alpha=alpha, **PREFERENCE_FREE)
    tolerance = 0.05 if alpha > 0 else 0.25
    assert fit_popularity_curve(loose.item_counts(), shift=shift).alpha == pytest.approx(alpha, abs=tolerance)


def test_fit_popularity_curve_rejects_degenerate_counts():
    with pytest.raises(ValueError, match="item counts"):
        fit_popularity_curve(np.array([0, 0, 0]))


# ------------------------------------------------------- observed ratings only (ML-10M/20M scale)


def test_successive_sampling_follows_its_law() -> None:
    # two distinct of four columns: P({a, b}) = p_a p_b / (1 - p_a) + p_b p_a / (1 - p_b)
    weights = np.array([5.0, 3.0, 1.5, 0.5])
    p = weights / weights.sum()
    n = 100_000
    rows, columns = successive_sample(np.random.default_rng(1), weights, np.full(n, 2))
    assert np.array_equal(rows, np.repeat(np.arange(n), 2))
    pairs = columns.reshape(n, 2)
    assert np.all(pairs[:, 0] < pairs[:, 1])  # distinct, sorted within a row
    for a, b in itertools.combinations(range(4), 2):
        exact = p[a] * p[b] / (1 - p[a]) + p[b] * p[a] / (1 - p[b])
        observed = np.mean((pairs[:, 0] == a) & (pairs[:, 1] == b))
        assert abs(observed - exact) < 5 * np.sqrt(exact * (1 - exact) / n)
    # a row may take every column with a positive weight, and no more
    rows, columns = successive_sample(np.random.default_rng(2), np.array([1.0, 0.0, 1e-6, 1.0]), np.array([3, 1]))
    assert rows.tolist() == [0, 0, 0, 1] and columns[:3].tolist() == [0, 2, 3]
    with pytest.raises(ValueError, match="more distinct columns"):
        successive_sample(np.random.default_rng(2), np.array([1.0, 0.0, 1.0]), np.array([3]))


def test_observed_only_presets_draw_ratings_without_the_truth() -> None:
    small = {"n_users": 3000, "n_items": 800, "n_ratings": 150_000, "popularity_shift": 0.05}
    ratings = generate(seed=3, preset="synthetic-ml20m", **small)
    assert ratings.true_relevance is None and ratings.shape == (3000, 800) and ratings.n_ratings == 150_000
    p = resolve_parameters("synthetic-ml20m", **small)
    expected_users = user_targets(3000, 800, 150_000, p["min_user_ratings"], p["activity_shape"])
    assert np.array_equal(np.sort(ratings.user_counts())[::-1], expected_users)  # user counts are exact
    keys = ratings.users.astype(np.int64) * 800 + ratings.items
    assert len(np.unique(keys)) == ratings.n_ratings  # one rating per pair
    histogram = np.bincount(ratings.values.astype(int), minlength=6)[1:]
    assert np.array_equal(histogram, apportion(np.asarray(p["rating_prior"]), 150_000))
    # popular items are rated more: the curve's head against its tail
    counts = np.sort(ratings.item_counts())[::-1]
    assert counts[:80].sum() > 5 * counts[-80:].sum()
    again = generate(seed=3, preset="synthetic-ml20m", **small)
    assert np.array_equal(again.items, ratings.items) and np.array_equal(again.values, ratings.values)
    # the latent affinity shows in the ratings: generous users, and better items among the popular ones
    user_means = np.bincount(ratings.users, weights=ratings.values) / ratings.user_counts()
    shuffled = np.random.default_rng(0).permutation(ratings.values)
    shuffled_means = np.bincount(ratings.users, weights=shuffled) / ratings.user_counts()
    assert user_means.var() > 2 * shuffled_means.var()
    rated = ratings.item_counts() > 0
    item_means = np.bincount(ratings.items, weights=ratings.values, minlength=800)[rated] / ratings.item_counts()[rated]
    assert spearmanr(ratings.item_counts()[rated], item_means).statistic > 0.2
    assert ratings.user_attributes is not None and len(ratings.user_attributes) == 3000


def test_observed_only_presets_say_they_have_no_truth() -> None:
    assert set(OBSERVED_ONLY) == {"synthetic-ml10m", "synthetic-ml20m"}
    assert PRESETS["synthetic-ml20m"]["n_users"] * PRESETS["synthetic-ml20m"]["n_items"] > MAX_PAIRS
    with pytest.raises(ValueError, match="no complete truth"):
        simulate(seed=0, preset="synthetic-ml10m")
    with pytest.raises(ValueError, match="'selection' must be 0.0"):
        generate(seed=0, preset="synthetic-ml10m", n_users=300, n_items=200, n_ratings=9000, selection=1.0)
    with pytest.raises(ValueError, match="exceed the in-memory limit"):
        generate(seed=0, preset="synthetic", n_users=138_493, n_items=26_744, n_ratings=20_000_263)
    assert "no complete true relevance" in datasets.info("synthetic-ml20m").description


def test_the_ml1m_cross_table_counts_the_6040_users_over_the_ml1m_codes():
    assert demographics.AGE_OCCUPATION_COUNTS.shape == (len(ML1M_AGE_BANDS), len(ML1M_OCCUPATIONS))
    assert demographics.AGE_OCCUPATION_COUNTS.sum() == sum(demographics.GENDER_COUNTS) == 6040
    assert demographics.AGE_BANDS[0] == "Under 18" and demographics.OCCUPATIONS[12] == "programmer"


def test_simulated_users_follow_the_ml1m_margins_and_never_get_an_absent_pair():
    n_users = 200_000
    table, codes = demographics.sample_demographics(np.random.default_rng(0), n_users)
    assert table["gender"].cat.codes.tolist() == codes[:, 0].tolist()
    assert table["occupation"].cat.codes.tolist() == codes[:, 2].tolist() and table["age"].cat.ordered
    assert abs((codes[:, 0] == 0).mean() - 1709 / 6040) < 0.005  # sd of the share: 0.001
    counts = demographics.AGE_OCCUPATION_COUNTS
    drawn = np.zeros(counts.size)
    np.add.at(drawn, codes[:, 1] * counts.shape[1] + codes[:, 2], 1)
    assert drawn[counts.ravel() == 0].sum() == 0  # e.g. no retired 18-24 year old in ML-1M, none drawn
    assert 0.5 * np.abs(drawn / n_users - counts.ravel() / counts.sum()).sum() < 0.01


def test_rating_times_stay_in_the_window_and_most_users_rate_within_a_day():
    rng, n_users, per_user, start, days = np.random.default_rng(1), 4000, 50, 1_000_000, 730.0
    users = np.repeat(np.arange(n_users), per_user)
    times = timeline.rating_times(rng, users, n_users, start, days)
    assert times.dtype == np.int64 and times.min() >= start and times.max() <= start + days * 86_400
    spans = np.ptp(times.reshape(n_users, per_user), axis=1)
    # active periods are log-normal with a median of one day: half the users rate within about a day
    assert 0.45 < (spans < 86_400).mean() < 0.6 and (spans > 30 * 86_400).mean() > 0.05
    assert np.array_equal(times, timeline.rating_times(np.random.default_rng(1), users, n_users, start, days))

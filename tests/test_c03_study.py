"""Chapter 3's computations: the theory check, the sweeps of the papers' Fig. 4, their statistics and fits,
and the lift over random, against direct evaluations and constructed data with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c03_sparsity_bias.study import fits, lift, sweeps, theory_check, world_check
from recbias.designs import build_runs
from recbias.evaluate import evaluate_runs
from recbias.evaluate.experiment import choose_designs, fit_systems, largest_target_size
from recbias.ratings import Ratings
from recbias.splits import fold_seed, make_folds, remove_test_ratings
from recbias.theory import relevance_ratios, target_size

SYSTEMS = {"Popularity": "popularity", "Random": "random"}


@pytest.fixture(scope="module")
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=0)


@pytest.fixture(scope="module")
def sweep(small: Ratings) -> sweeps.Sweep:
    return sweeps.sparsity_sweep(small, SYSTEMS, folds=2, removed=(0.0, 0.5, 0.9), sizes=(20, 40, 80), base_size=30,
                                 n=5, seed=3, cache=False)


# ------------------------------------------------------------------- theory check


def test_random_precision_check_against_its_closed_forms(small: Ratings) -> None:
    choice = choose_designs(small, target_size=30, max_an_entries=10**9, n_nonrelevant=50)
    check = theory_check.random_precision_check(small, theory_check.check_designs(choice), n=5, seed=1)
    # ratios x thresholds x removed shares x designs, less those left without runs
    assert len(check) + check.attrs["skipped"] == 2 * 2 * 3 * 5 and check.attrs["skipped"] <= 5
    one_r, ar = check[check["kind"] == "1R"], check[check["kind"] == "AR"]
    np.testing.assert_allclose(one_r["theory"], 1 / one_r["t"])  # Eq. 5
    np.testing.assert_allclose(one_r["rho"], one_r["theory"])  # exact when all sets have one size
    positives = ar["threshold"].map(lambda th: int(np.count_nonzero(small.values >= th)))
    eq4 = ar["test ratio"] * (1 - ar["removed"]) * positives / (ar["t"] * ar["users"])
    np.testing.assert_allclose(ar["theory"], eq4)
    assert np.all(ar["eq4_all_users"] <= ar["theory"] + 1e-15)  # more users in the denominator
    # every measurement lies within four simulation standard deviations of its exact expectation
    assert check["z"].abs().max() < 4
    assert (check["z"].abs() <= 1.96).mean() >= 0.8
    summary = theory_check.check_summary(check)
    assert summary.configurations == len(check) and 0 <= summary.within <= 1
    assert summary.skipped == check.attrs["skipped"] and (summary.users, summary.users_total) == (small.n_users,) * 2


def test_the_check_summary_counts_by_hand() -> None:
    check = pd.DataFrame({"kind": ["AR", "AR", "1R", "1R"], "z": [0.0, 1.96, -2.0, 0.5],
                          "z_theory": [1.96, -1.97, 0.1, 3.0], "measured": [0.01, 0.0, 0.02, 0.03],
                          "rho": [0.02, 0.04, 0.01, 0.01], "eq4_all_users": [0.01, 0.03, np.nan, np.nan]})
    check.attrs |= {"skipped": 3, "users": (40, 50)}
    summary = theory_check.check_summary(check)
    assert (summary.configurations, summary.skipped, summary.unshown, summary.users, summary.users_total) == \
        (4, 3, 1, 40, 50)
    assert summary.within_rho == 0.75 and summary.within == 0.5  # |z| <= 1.96 counts as within
    assert summary.within_ar == 0.5 and summary.within_1r == 0.5 and summary.max_z == 3.0
    assert (summary.all_users_low, summary.all_users_high) == (0.5, 0.75)
    only_ar = theory_check.check_summary(check[check["kind"] == "AR"])
    assert np.isnan(only_ar.within_1r)


def test_one_configuration_of_the_check_is_a_direct_measurement(small: Ratings) -> None:
    designs = ["TI-AN", "1R TI-NN(29)"]
    check = theory_check.random_precision_check(small, designs, test_ratios=(0.3,), removed=(0.5,), n=5, seed=2)
    (fold,) = make_folds(small, folds=1, test_ratio=0.3, seed=2)
    test = remove_test_ratings(fold.test, 0.5, seed=fold.seed)
    runs = build_runs(fold.train, test, "1R TI-NN(29)", on_shortage="exclude", seed=fold_seed(2, 1))
    row = check[(check["design"] == "1R TI-NN(29)") & (check["threshold"] == small.positive_threshold)].iloc[0]
    assert row["runs"] == runs.n_runs and row["t"] == pytest.approx(target_size(runs))
    scores = np.random.default_rng(fold_seed(2, 1)).random(len(runs.items))
    assert row["measured"] == pytest.approx(evaluate_runs(runs, scores, ["P@5"])["P@5"].mean())


def test_thresholds_are_the_positive_one_and_the_value_below(small: Ratings) -> None:
    below = small.values[small.values < small.positive_threshold].max()
    assert theory_check.thresholds(small) == [small.positive_threshold, below]


# ------------------------------------------------------------------------ sweeps


def test_removal_is_nested_and_ar_keeps_its_population(sweep: sweeps.Sweep, small: Ratings) -> None:
    points = sweep.points
    for fold, part in points.groupby("fold"):
        ar = part[part["sweep"] == sweeps.AR_REMOVAL].sort_values("x")
        assert list(ar["x"]) == [0.0, 0.5, 0.9]
        assert ar["test ratings"].is_monotonic_decreasing and ar["relevant"].is_monotonic_decreasing
        ai = part[part["sweep"] == sweeps.ONE_R_AI_REMOVAL]
        assert np.all(ai["candidates"] == small.n_items)
        # the population of the full test set stays in every AR point, once per system
        runs = sweep.runs[(sweep.runs["fold"] == fold)]
        population = set(runs.loc[runs["point"] == ar["point"].iloc[0], "user"])
        for point in ar["point"]:
            for _, rows in runs[runs["point"] == point].groupby("system"):
                assert sorted(rows["user"]) == sorted(population)
    padded = sweep.runs[sweep.runs["run"] < 0]
    assert len(padded) and np.all(padded["P@5"] == 0) and np.all(padded["MRR"] == 0)
    assert padded[["Recall@5", "nDCG@5", "nDCG", "MAP"]].isna().all().all()
    assert np.all(sweep.targets.loc[sweep.targets["run"] < 0, "rho"] == 0)


def test_size_sweep_measures_one_population(sweep: sweeps.Sweep) -> None:
    sized = sweep.points[sweep.points["sweep"] == sweeps.ONE_R_SIZE]
    assert sorted(sized["x"].unique()) == sweep.sizes == [20, 40, 80]
    np.testing.assert_allclose(sized["t"], sized["x"])
    for _, part in sweep.targets[sweep.targets["point"].isin(sized["point"])].groupby("fold"):
        users = part.groupby("point")["user"].apply(frozenset)
        assert users.nunique() == 1


def test_sweep_rows_equal_a_direct_evaluation(sweep: sweeps.Sweep, small: Ratings) -> None:
    fold = make_folds(small, folds=2, seed=3)[1]
    test = remove_test_ratings(fold.test, 0.5, seed=fold.seed)
    runs = build_runs(fold.train, test, "1R TI-NN(29)", on_shortage="exclude", seed=fold_seed(3, 1000 + 10 * 1 + 1))
    fitted = fit_systems(SYSTEMS, fold.train, key_extra=fold.key, seed=3, cache=False)
    point = f"{sweeps.ONE_R_REMOVAL} | 0.5"
    measured = sweep.runs[(sweep.runs["fold"] == 1) & (sweep.runs["point"] == point)]
    for system, recommender in fitted.items():
        scores = recommender.score(np.repeat(runs.users, runs.sizes), runs.items)
        direct = evaluate_runs(runs, scores, sweep.metrics, seed=fold_seed(3, 1))
        mine = measured[measured["system"] == system]
        np.testing.assert_allclose(mine[sweep.metrics].to_numpy(), direct[sweep.metrics].to_numpy())
    targets = sweep.targets[(sweep.targets["fold"] == 1) & (sweep.targets["point"] == point)]
    np.testing.assert_allclose(targets["rho"], relevance_ratios(runs))


def test_sweep_is_deterministic(sweep: sweeps.Sweep, small: Ratings) -> None:
    again = sweeps.sparsity_sweep(small, SYSTEMS, folds=2, removed=(0.0, 0.5, 0.9), sizes=(20, 40, 80), base_size=30,
                                  n=5, seed=3, cache=False)
    pd.testing.assert_frame_equal(sweep.runs, again.runs)
    pd.testing.assert_frame_equal(sweep.points, again.points)


def test_statistics_full_sample_is_the_pooled_mean(sweep: sweeps.Sweep) -> None:
    stats = fits.sweep_statistics(sweep, n_boot=30, seed=0)
    point = f"{sweeps.AR_REMOVAL} | 0.5"
    rows = sweep.runs[(sweep.runs["point"] == point) & (sweep.runs["system"] == "Popularity")]
    assert stats.metric["P@5"].loc[(point, "Popularity"), 0] == pytest.approx(rows["P@5"].mean())
    evaluated = rows[rows["run"] >= 0]
    assert stats.among_relevant["P@5"].loc[(point, "Popularity"), 0] == pytest.approx(evaluated["P@5"].mean())
    targets = sweep.targets[sweep.targets["point"] == point]
    delta = targets["relevant"].mean() * targets["inverse_size"].mean()
    assert stats.density.loc[point, 0] == pytest.approx(delta)
    one_r = f"{sweeps.ONE_R_REMOVAL} | 0.5"
    np.testing.assert_allclose(stats.density.loc[one_r], stats.density.loc[point])
    assert stats.truth is not None and set(stats.truth.index) == set(SYSTEMS)


# -------------------------------------------------------------------------- fits


def constructed(values, sweep_kind: str, xs, density, systems=("A",), n_boot: int = 40) -> fits.SweepStatistics:
    """Statistics whose metric and density are given functions of the level, plus small noise in the draws."""
    rng = np.random.default_rng(0)
    points = [f"{sweep_kind} | {x:g}" for x in xs]
    levels = pd.DataFrame({"point": points, "sweep": sweep_kind, "x": xs, "design": "d", "runs": 100, "users": 50,
                           "relevant": 10, "t": 100.0, "rho": 0.01})
    noise = 1 + 0.01 * rng.standard_normal((len(xs), n_boot))
    dens = pd.DataFrame(np.column_stack([density, density[:, None] * noise]), index=points)
    frames = {}
    for metric, function in values.items():
        rows = {}
        for k, system in enumerate(systems):
            base = function(np.asarray(density), k)
            draws = np.column_stack([base, base[:, None] * (1 + 0.01 * rng.standard_normal((len(xs), n_boot)))])
            for point, row in zip(points, draws, strict=True):
                rows[(point, system)] = row
        frames[metric] = pd.DataFrame.from_dict(rows, orient="index")
        frames[metric].index = pd.MultiIndex.from_tuples(frames[metric].index, names=["point", "system"])
    return fits.SweepStatistics(levels=levels, metric=frames, among_relevant=frames, density=dens, truth=None)


def test_line_fit_against_numpy_polyfit() -> None:
    x = np.array([0.0, 1.0, 2.0, 4.0])
    y = np.column_stack([1 + 2 * x, np.array([1.0, 0.0, 3.0, 2.0])])
    slope, intercept, r2 = fits.line_fit(x[:, None].repeat(2, axis=1), y)
    for column in range(2):
        b, a = np.polyfit(x, y[:, column], 1)
        assert slope[column] == pytest.approx(b) and intercept[column] == pytest.approx(a)
    assert r2[0] == pytest.approx(1) and r2[1] == pytest.approx(np.corrcoef(x, y[:, 1])[0, 1] ** 2)


def test_density_fit_recovers_a_line() -> None:
    xs = [0.0, 0.2, 0.4, 0.6, 0.8, 0.95]
    density = np.array([0.010, 0.008, 0.006, 0.004, 0.002, 0.0005])
    stats = constructed({"P@10": lambda d, k: 0.001 + 20 * d}, sweeps.AR_REMOVAL, xs, density)
    fit = fits.density_fits(stats, ["A"], "P@10").iloc[0]
    assert fit["slope"] == pytest.approx(20) and fit["intercept"] == pytest.approx(0.001)
    assert fit["r2"] == pytest.approx(1)
    assert fit["slope_ci"][0] < 20 < fit["slope_ci"][1]
    # the level beyond FIT_MAX_REMOVED is not fitted: change runs from the densest to the 80% level
    assert fit["change"] == pytest.approx(20 * (0.002 - 0.010) / (0.001 + 20 * 0.010))
    flat = constructed({"P@10": lambda d, k: np.full_like(d, 0.05)}, sweeps.ONE_R_REMOVAL, xs, density)
    assert fits.density_fits(flat, ["A"], "P@10").iloc[0]["change"] == pytest.approx(0, abs=1e-12)


def test_size_fit_and_elasticity_recover_exponents() -> None:
    sizes = np.array([100.0, 200, 400, 800])
    stats = constructed({"P@10": lambda d, k: 0.5 * d**-0.5}, sweeps.ONE_R_SIZE, sizes, sizes)
    fit = fits.size_fits(stats, ["A"], "P@10").iloc[0]
    assert fit["exponent"] == pytest.approx(-0.5) and fit["r2"] == pytest.approx(1)
    assert fit["exponent_ci"][0] < -0.5 < fit["exponent_ci"][1]
    density = np.array([0.01, 0.005, 0.0025, 0.001])
    stats = constructed({"P@10": lambda d, k: 3 * d**0.3, "Recall@10": lambda d, k: 0.2 + 0 * d},
                        sweeps.AR_REMOVAL, [0.0, 0.5, 0.75, 0.9], density)
    table = fits.elasticities(stats, ["A"], ["P@10", "Recall@10"]).set_index(["metric", "users"])
    assert table.loc[("P@10", "all"), "elasticity"] == pytest.approx(0.3)
    assert table.loc[("P@10", "with relevant"), "elasticity"] == pytest.approx(0.3)
    assert table.loc[("Recall@10", "with relevant"), "elasticity"] == pytest.approx(0, abs=1e-12)


def test_order_stability_sees_a_swap() -> None:
    density = np.array([0.01, 0.005, 0.001])
    # three systems; the last two swap at the sparsest level
    quality = {0: (3, 3, 3), 1: (2, 2, 0.5), 2: (1, 1, 1)}
    stats = constructed({"P@10": lambda d, k: np.array(quality[k], float) * d}, sweeps.AR_REMOVAL,
                        [0.0, 0.5, 0.9], density, systems=("A", "B", "C"))
    orders = fits.order_stability(stats, ["A", "B", "C"], "P@10").set_index("x")
    assert orders.loc[0.0, "tau"] == 1 and orders.loc[0.5, "tau"] == 1
    assert orders.loc[0.9, "tau"] == pytest.approx(1 / 3)  # one of three pairs reversed
    assert orders.loc[0.9, "swapped"] == [("C", "B")] and orders.loc[0.0, "swapped"] == []
    assert np.isnan(orders.loc[0.9, "tau_truth"])


# -------------------------------------------------------------------------- lift


def test_spread_factors_are_largest_over_smallest_by_hand() -> None:
    frame = pd.DataFrame({"dataset": ["a", "b", "a", "b"], "design": ["TI-AN", "TI-AN", "1R TI-NN(99)", "1R TI-NN(99)"],
                          "system": "S", "P": [0.1, 0.4, 0.2, 0.25], "lift": [10.0, 20.0, 20.0, 25.0]})
    spread = lift.spread_factors(frame).loc["S"]
    assert spread[("AR", "P")] == pytest.approx(4) and spread[("1R", "P")] == pytest.approx(1.25)
    assert spread[("AR", "lift")] == pytest.approx(2) and spread[("all", "P")] == pytest.approx(4)
    assert spread[("all", "lift")] == pytest.approx(2.5)
    assert list(lift.ordered(frame.iloc[[2, 0, 3, 1]])["design"]) == ["TI-AN", "TI-AN", "1R TI-NN(99)", "1R TI-NN(99)"]


def test_the_share_of_resamples_with_the_smaller_1r_spread_counts_every_system_by_hand() -> None:
    # resamples (after the full sample, column 0) of P@n on datasets a and b; 1R spreads 1.5, 1.5, 3, 1.5 for S and
    # 1.5, 1.5, 1.5, 6 for T; AR spreads 2 throughout: S and T both below AR in resamples 1 and 2 only
    one_r = {"S": ([1, 2, 2, 1, 2], [1, 3, 3, 3, 3]), "T": ([1, 2, 2, 2, 1], [1, 3, 3, 3, 6])}
    rows = [{"dataset": d, "design": "1R TI-NN(99)", "system": s, "P_draws": np.array(v[k], float)}
            for s, v in one_r.items() for k, d in enumerate("ab")]
    rows += [{"dataset": d, "design": "TI-AN", "system": s, "P_draws": np.full(5, 1.0 + k)}
             for s in one_r for k, d in enumerate("ab")]
    frame = pd.DataFrame(rows)
    assert lift.spread_below_share(frame, ["S", "T"]) == 0.5
    assert lift.spread_below_share(frame, ["S"]) == 0.75 and lift.spread_below_share(frame, ["T"]) == 0.75


def test_lift_is_precision_over_rho_on_the_same_runs(small: Ratings) -> None:
    table = lift.lift_study([small], SYSTEMS, max_an_entries=10**9, an_nonrelevant=50, base_size=30, n=5, n_boot=20,
                            seed=2, cache=False)
    assert set(table["design"]) == {"TI-AN", "1R TI-NN(29)"} and set(table["system"]) == set(SYSTEMS)
    np.testing.assert_allclose(table["lift"], table["P"] / table["rho"])
    one_r = table[table["design"] == "1R TI-NN(29)"]
    np.testing.assert_allclose(one_r["rho"], 1 / 30)  # one relevant item among 30
    assert all(low <= p <= high for p, (low, high) in zip(table["P"], table["P_ci"], strict=True))
    assert all(len(d) == 21 and d[0] == p for p, d in zip(table["P"], table["P_draws"], strict=True))
    assert lift.lift_datasets(small, 0, compare_all=False) == [small]


# ------------------------------------------------------------------- parameters


def test_target_size_grid_scales_down_on_small_catalogues(small: Ratings) -> None:
    (fold,) = make_folds(small, folds=1, seed=0)
    largest = largest_target_size(fold.train, fold.test)
    grid = sweeps.target_size_grid(fold.train, fold.test, [100, 200, 400, 600, 800, 1000])
    assert largest < 400 and len(grid) == 6 and max(grid) <= largest
    assert sweeps.target_size_grid(fold.train, fold.test, [10, 20, 40, 5000]) == [10, 20, 40]


def test_parameters_are_checked(small: Ratings) -> None:
    assert sweeps.parse_grid("0.5, 0, 0.2", "removed", 0, 0.999) == [0.0, 0.2, 0.5]
    assert sweeps.parse_grid("100, 20", "target_sizes", 2, 1000, integer=True) == [20, 100]
    with pytest.raises(ValueError, match="removed must list numbers in"):
        sweeps.parse_grid("0, 1.5", "removed", 0, 0.999)
    with pytest.raises(ValueError, match="integers"):
        sweeps.parse_grid("10.5", "target_sizes", 2, 1000, integer=True)
    with pytest.raises(ValueError, match="comma-separated"):
        sweeps.parse_grid("a, b", "removed", 0, 1)
    with pytest.raises(ValueError, match="include 0"):
        sweeps.sparsity_sweep(small, SYSTEMS, removed=(0.5,), cache=False)
    assert theory_check.check_designs(choose_designs(small, target_size=30, max_an_entries=10, n_nonrelevant=50)) \
        == ["AI-NN(50)", "TI-NN(50)", "1R AI-NN(29)", "1R TI-NN(29)", "1R TI-NN(59)"]


def test_sweeps_and_check_follow_a_sample_of_users(small: Ratings) -> None:
    sampled = sweeps.sparsity_sweep(small, SYSTEMS, folds=1, removed=(0.0, 0.5), sizes=(20, 40, 80), base_size=30,
                                    n=5, max_users=40, seed=3, cache=False)
    assert sampled.followed[0] == 40 < sampled.followed[1]
    for _, part in sampled.runs[sampled.runs["system"] == "Random"].groupby("point"):
        assert part["user"].nunique() <= 40
    ar = sampled.runs[sampled.runs["point"].str.startswith(sweeps.AR_REMOVAL) & (sampled.runs["system"] == "Random")]
    assert ar.groupby("point")["user"].nunique().eq(40).all()  # the sample is the AR population at every level
    check = theory_check.random_precision_check(small, ["TI-AN", "1R TI-NN(29)"], test_ratios=(0.2,), removed=(0.0,),
                                                n=5, max_users=50, seed=1)
    assert check.attrs["users"] == (50, small.n_users) and (check["users"] <= 50).all()


def test_helpers_by_hand() -> None:
    assert sweeps.personalised(["A", "Random", "B"]) == ["A", "B"]
    assert sweeps.metric_names(5) == ["P@5", "Recall@5", "nDCG@5", "nDCG", "MAP", "MRR"]
    assert sweeps.point_key(sweeps.AR_REMOVAL, 0.5) == "AR, test ratings removed | 0.5"
    users = np.arange(10)
    assert sweeps.user_sample(users, None, 0) is users and sweeps.user_sample(users, 10, 0) is users
    sample = sweeps.user_sample(users, 4, 0)
    assert len(sample) == 4 and np.all(np.diff(sample) > 0) and np.array_equal(sample, sweeps.user_sample(users, 4, 0))


# ------------------------------------------------------------------- world check


def test_one_r_change_is_the_ratio_of_two_direct_evaluations(small: Ratings) -> None:
    world = world_check.one_r_removal_change(small, SYSTEMS, removed=0.5, base_size=30, n=5, n_boot=30, seed=4,
                                             cache=False)
    (fold,) = make_folds(small, folds=1, test_ratio=0.2, seed=4)
    fitted = fit_systems(SYSTEMS, fold.train, key_extra=fold.key, seed=4, cache=False)
    rated = np.flatnonzero(np.bincount(fold.test.users[fold.test.positive], minlength=fold.test.n_users))
    direct = {}
    for k, fraction in enumerate((0.0, 0.5)):
        test = remove_test_ratings(fold.test, fraction, seed=fold.seed) if fraction else fold.test
        runs = build_runs(fold.train, test, "1R TI-NN(29)", on_shortage="exclude", users=rated,
                          seed=fold_seed(4, 10 * k))
        for system, recommender in fitted.items():
            scores = recommender.score(np.repeat(runs.users, runs.sizes), runs.items)
            direct[(fraction, system)] = evaluate_runs(runs, scores, ["P@5"], seed=fold_seed(4, 0))["P@5"].mean()
        assert world["pool_full" if fraction == 0 else "pool_thinned"].iloc[0] == runs.report.n_candidates
    for row in world.itertuples():
        assert row.full == pytest.approx(direct[(0.0, row.system)])
        assert row.thinned == pytest.approx(direct[(0.5, row.system)])
        assert row.change == pytest.approx(row.thinned / row.full - 1)
        assert row.change_ci[0] <= row.change <= row.change_ci[1]
    assert world["pool_thinned"].iloc[0] < world["pool_full"].iloc[0]  # the TI pool shrinks on a small catalogue
    with pytest.raises(ValueError, match="removed must lie in"):
        world_check.one_r_removal_change(small, SYSTEMS, removed=0.0)


def test_the_scatter_about_a_line_is_measured_in_units_of_the_points_noise() -> None:
    rng = np.random.default_rng(0)
    x = np.linspace(0.01, 0.05, 9)
    noise = 0.002
    draws = (2 * x)[:, None] + rng.normal(0, noise, (9, 2001))  # column 0 is the full sample
    slope, intercept, _ = fits.line_fit(x, draws[:, 0])
    on_a_line = fits.scatter_over_noise(x, draws, float(slope), float(intercept))
    assert 0.5 < on_a_line < 1.5  # a line up to noise: about 1
    bent = draws + (40 * (x - 0.03) ** 2 / 0.0004 * noise)[:, None]  # a parabola several noise units deep
    slope, intercept, _ = fits.line_fit(x, bent[:, 0])
    assert fits.scatter_over_noise(x, bent, float(slope), float(intercept)) > 2

"""Per-run tables, the explicit averaging of runs (IRJ Eq. 1), confidence intervals and paired tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from runs_factory import FactorModel, make_ratings, random_runs
from scipy import stats

from recbias import metrics as M
from recbias.evaluate import (
    UserBootstrap,
    compare,
    evaluate_runs,
    mean_confidence_interval,
    percentile_interval,
    rank_runs,
    score_runs,
    summarize,
)
from recbias.evaluate.statistics import _codes
from recbias.runs import Runs


def table(users: list[int], **metrics: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"run": np.arange(len(users)), "user": users, "group": -1} | metrics)


def test_evaluate_runs_ranks_then_measures() -> None:
    rng = np.random.default_rng(0)
    runs = random_runs(rng, n_runs=80, max_size=15, n_items=50)
    model = FactorModel(rng.normal(size=(80, 4)), rng.normal(size=(50, 4))).fit(make_ratings([0], [0], (80, 50)))
    scores = score_runs(model, runs)
    expected = np.sum(model.user_factors[runs.run_of_entry] * model.item_factors[runs.items], axis=1)
    np.testing.assert_allclose(scores, expected)
    frame = evaluate_runs(runs, scores, ["P@5", "nDCG", "AUC"], seed=2)
    assert list(frame.columns) == ["run", "user", "group", "P@5", "nDCG", "AUC"]
    ranked = rank_runs(runs, scores, seed=2)
    np.testing.assert_array_equal(frame["AUC"], M.auc(ranked))
    np.testing.assert_array_equal(frame["user"], runs.users)
    # a better scorer: the labels themselves
    perfect = evaluate_runs(runs, runs.labels.astype(float), ["AUC"], ties="pessimistic")
    with_relevant = (M.auc(ranked) > 0) | (perfect["AUC"] > 0)
    assert np.all(perfect["AUC"][with_relevant] == 1)


def test_one_r_average_is_irj_equation_1() -> None:
    """1R: one run per positive test rating; Eq. (1) divides the sum over all runs by |PR_test|."""
    # user 0 has three test ratings (runs 0-2), user 1 has one (run 3)
    per_run = {"s": table([0, 0, 0, 1], P=[0.1, 0.1, 0.1, 0.5])}
    by_run = summarize(per_run, average="run").iloc[0]
    by_user = summarize(per_run, average="user").iloc[0]
    assert by_run["mean"] == pytest.approx((0.1 + 0.1 + 0.1 + 0.5) / 4)  # Eq. (1): 0.2
    assert (by_run["runs"], by_run["users"]) == (4, 2)
    assert by_user["mean"] == pytest.approx((0.1 + 0.5) / 2)  # per-user average: 0.3
    assert (by_user["runs"], by_user["users"]) == (4, 2)


def test_ar_average_per_user_is_the_run_average() -> None:
    per_run = {"s": table([3, 1, 2], P=[0.2, 0.4, 0.9])}
    assert summarize(per_run, average="user")["mean"].iloc[0] == pytest.approx(summarize(per_run)["mean"].iloc[0])


def test_summary_interval_is_students_t() -> None:
    values = [0.1, 0.4, 0.35, 0.8, 0.2]
    row = summarize({"s": table([0, 1, 2, 3, 4], P=values)}, confidence=0.9).iloc[0]
    low, high = stats.t.interval(0.9, df=4, loc=np.mean(values), scale=stats.sem(values))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    assert np.isnan(mean_confidence_interval(np.array([0.3]))[1])


def test_confidence_interval_covers_the_true_mean_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(1)
    samples = rng.normal(0.3, 0.2, size=(2000, 25))
    covered = [low <= 0.3 <= high for _, low, high in (mean_confidence_interval(s) for s in samples)]
    # binomial(2000, 0.95): sd = 0.0049; 4 sd bounds
    assert 0.93 < np.mean(covered) < 0.97


def test_paired_tests_pair_by_run_and_agree_with_scipy() -> None:
    rng = np.random.default_rng(2)
    a_values, b_values = rng.random(60), rng.random(60) * 0.8
    a = table(list(range(60)), P=a_values)  # one run per user: clustering changes nothing
    b = table(list(range(60)), P=b_values).sample(frac=1, random_state=0)  # rows in another order
    t, w = stats.ttest_rel(a_values, b_values), stats.wilcoxon(a_values, b_values)
    for average in ("run", "user"):
        row = compare({"A": a, "B": b}, average=average).iloc[0]
        assert (row["system_a"], row["system_b"], row["users"]) == ("A", "B", 60)
        assert row["difference"] == pytest.approx(a_values.mean() - b_values.mean())
        assert row["t_pvalue"] == pytest.approx(t.pvalue, rel=1e-9)
        assert row["t_statistic"] == pytest.approx(t.statistic, rel=1e-9)
        assert row["wilcoxon_pvalue"] == pytest.approx(w.pvalue, rel=1e-9)
        assert row["wilcoxon_statistic"] == pytest.approx(w.statistic)
    # pairing by row position instead of by run would give another answer
    assert stats.ttest_rel(a_values, b["P"].to_numpy()).pvalue != pytest.approx(t.pvalue)


def test_user_average_pairs_the_means_of_each_users_runs() -> None:
    rng = np.random.default_rng(3)
    users = rng.integers(0, 30, size=90).tolist()
    a, b = table(users, P=rng.random(90)), table(users, P=rng.random(90) * 0.8)
    row = compare({"A": a, "B": b}).iloc[0]
    means_a, means_b = a.groupby("user")["P"].mean(), b.groupby("user")["P"].mean()
    assert row["users"] == len(means_a)
    assert row["t_pvalue"] == pytest.approx(stats.ttest_rel(means_a, means_b).pvalue, rel=1e-12)


def test_cluster_robust_interval_matches_a_hand_computation() -> None:
    values, users = np.array([0.1, 0.3, 0.2, 0.9, 0.5]), np.array([0, 0, 1, 2, 2])
    mean = values.mean()
    sums = np.array([0.4 - 2 * mean, 0.2 - mean, 1.4 - 2 * mean])
    se = np.sqrt(3 / 2 * np.sum(sums**2)) / 5
    _, low, high = mean_confidence_interval(values, 0.9, clusters=users)
    assert (low, high) == pytest.approx((mean - stats.t.ppf(0.95, 2) * se, mean + stats.t.ppf(0.95, 2) * se))


def test_treating_a_users_runs_as_independent_overstates_significance() -> None:
    """Two equally good systems, each user favouring one of them in all her runs: the run-level
    t-test rejects far more often than its 5 % level, the user-level tests do not."""
    rng = np.random.default_rng(4)
    n_users, runs_per_user, trials = 40, 20, 300
    users = np.repeat(np.arange(n_users), runs_per_user)
    rejected = {"independent runs": 0, "user": 0, "run, clustered": 0}
    for _ in range(trials):
        preference = rng.normal(0, 0.1, n_users)[users]  # shared by a user's runs
        a = 0.5 + preference + rng.normal(0, 0.1, len(users))
        b = 0.5 + rng.normal(0, 0.1, len(users))
        rejected["independent runs"] += stats.ttest_rel(a, b).pvalue < 0.05
        per_run = {"A": table(users.tolist(), P=a), "B": table(users.tolist(), P=b)}
        rejected["user"] += compare(per_run)["t_pvalue"].iloc[0] < 0.05
        rejected["run, clustered"] += compare(per_run, average="run")["t_pvalue"].iloc[0] < 0.05
    rate = {k: v / trials for k, v in rejected.items()}
    assert rate["independent runs"] > 0.4  # about 0.5 with this correlation
    assert rate["user"] < 0.09 and rate["run, clustered"] < 0.09  # 5 % level, binomial sd 0.013


def test_summarize_groups_a_tidy_table() -> None:
    frame = pd.concat([
        table([0, 0, 1], P=[0.2, 0.4, 0.9]).assign(system="A", design="AR"),
        table([0, 1, 1], P=[0.1, 0.3, 0.5]).assign(system="A", design="1R"),
    ])
    summary = summarize(frame, by=("design", "system")).set_index("design")["mean"]
    assert summary["AR"] == pytest.approx((0.3 + 0.9) / 2) and summary["1R"] == pytest.approx((0.1 + 0.4) / 2)


def test_compare_with_a_baseline_and_identical_systems() -> None:
    a = table([0, 1, 2], P=[0.1, 0.2, 0.3])
    frame = compare({"base": a, "same": a.copy(), "other": table([0, 1, 2], P=[0.3, 0.1, 0.6])}, baseline="base")
    assert list(zip(frame["system_a"], frame["system_b"], strict=True)) == [("base", "same"), ("base", "other")]
    same = frame.iloc[0]
    assert (same["t_pvalue"], same["wilcoxon_pvalue"], same["difference"]) == (1.0, 1.0, 0.0)


def test_compare_refuses_unpaired_systems() -> None:
    a = table([0, 1, 2], P=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="same users"):
        compare({"A": a, "B": table([0, 1], P=[0.1, 0.2])})
    with pytest.raises(ValueError, match="same runs"):
        compare({"A": a, "B": table([0, 1], P=[0.1, 0.2])}, average="run")
    with pytest.raises(ValueError, match="different users"):
        compare({"A": a, "B": table([0, 1, 5], P=[0.1, 0.2, 0.3])}, average="run")
    with pytest.raises(ValueError, match="baseline"):
        compare({"A": a, "B": a}, baseline="C")
    with pytest.raises(ValueError, match="not in the per-run table"):
        summarize({"A": a}, metrics=["nDCG"])
    with pytest.raises(ValueError, match="average"):
        summarize({"A": a}, average="item")


@pytest.mark.filterwarnings("ignore:Precision loss occurred")  # constant differences: scipy's t is infinite
def test_per_run_table_feeds_summary_and_comparison() -> None:
    runs = Runs.from_arrays([0, 3, 6], [0, 1], [0, 1, 2, 0, 1, 2], labels=[1, 0, 0, 0, 0, 1])
    good = evaluate_runs(runs, np.array([3.0, 2, 1, 1, 2, 3]), ["P@1", "MAP"])
    bad = evaluate_runs(runs, np.array([1.0, 2, 3, 3, 2, 1]), ["P@1", "MAP"])
    summary = summarize({"good": good, "bad": bad}).set_index(["system", "metric"])["mean"]
    assert summary[("good", "P@1")] == 1 and summary[("bad", "P@1")] == 0
    assert summary[("bad", "MAP")] == pytest.approx(1 / 3)  # the relevant item is third in both runs
    assert compare({"good": good, "bad": bad})["difference"].tolist() == pytest.approx([1, 2 / 3])


def test_group_average_is_the_mean_of_group_means_with_a_linearised_clustered_interval() -> None:
    """P1R's average (IRJ Sec. 6.1): the mean of the per-percentile run averages; one group gives the run average."""
    rng = np.random.default_rng(11)
    n = 400
    table = pd.DataFrame({"run": np.arange(n), "user": rng.integers(0, 60, n), "group": rng.choice(3, n, p=[0.7, 0.2, 0.1])})
    table["P@10"] = rng.random(n) * (1 + table["group"])
    row = summarize(table, ["P@10"], by=(), average="group").iloc[0]
    group_means = table.groupby("group")["P@10"].mean()
    assert row["mean"] == pytest.approx(group_means.mean())
    # brute force: residual w_j (x_j - mean of its group), summed per user
    w = 1 / (3 * table.groupby("group")["P@10"].transform("size"))
    residual = (w * (table["P@10"] - table.groupby("group")["P@10"].transform("mean"))).groupby(table["user"]).sum()
    g = len(residual)
    se = np.sqrt(g / (g - 1) * (residual**2).sum())
    half = stats.t.ppf(0.975, g - 1) * se
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((row["mean"] - half, row["mean"] + half))
    single = table.assign(group=-1)
    by_group = summarize(single, ["P@10"], by=(), average="group").iloc[0]
    by_run = summarize(single, ["P@10"], by=(), average="run").iloc[0]
    assert by_group[["mean", "ci_low", "ci_high"]].tolist() == pytest.approx(by_run[["mean", "ci_low", "ci_high"]].tolist())
    with pytest.raises(ValueError, match="paired"):
        compare(table.assign(system="a"), ["P@10"], average="group")


# ------------------------------------------------------------------ user bootstrap


def bootstrap_table() -> pd.DataFrame:
    """Two systems, user 0 with three runs, users 1-3 with one; user 3 only evaluated for system a."""
    return pd.DataFrame({
        "system": ["a", "a", "a", "a", "a", "a", "b", "b", "b", "b", "b"],
        "run": [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4],
        "user": [0, 0, 0, 1, 2, 3, 0, 0, 0, 1, 2],
        "P": [0.1, 0.1, 0.4, 0.5, 0.9, np.nan, 0.0, 0.3, 0.3, 0.2, 0.8],
    })


@pytest.mark.parametrize("average", ["run", "user"])
def test_user_bootstrap_full_sample_is_the_summary_mean(average: str) -> None:
    frame = bootstrap_table().dropna()
    boot = UserBootstrap(frame["user"], n_boot=50, seed=1)
    means = boot.means(frame, "P", ("system",), average=average)
    expected = summarize(frame, ["P"], ("system",), average=average).set_index("system")["mean"]
    np.testing.assert_allclose(means[0].to_numpy(), expected.reindex(means.index).to_numpy())
    assert means.shape == (2, 51)


def test_user_bootstrap_resamples_users_with_all_their_runs() -> None:
    frame = bootstrap_table()
    boot = UserBootstrap(frame["user"], n_boot=400, seed=7)
    assert np.all(boot.weights.sum(axis=1) == 4) and np.all(boot.weights[0] == 1)
    means = boot.means(frame, "P", ("system",))
    # a resample is a weighted mean with the user's weight on each of her runs (NaN runs absent)
    w = boot.weights[5]
    values = frame[frame["system"] == "a"]
    weights = w[values["user"].to_numpy()] * values["P"].notna()
    assert means.loc["a", 5] == pytest.approx(np.nansum(weights * values["P"]) / weights.sum())
    # the same seed draws the same users; another seed does not
    again = UserBootstrap(frame["user"], n_boot=400, seed=7).means(frame, "P", ("system",))
    pd.testing.assert_frame_equal(means, again)
    assert not np.array_equal(UserBootstrap(frame["user"], n_boot=400, seed=8).weights, boot.weights)
    low, high = percentile_interval(means.loc["b"].to_numpy()[1:])
    assert low < means.loc["b", 0] < high


def test_user_bootstrap_interval_covers_a_known_mean() -> None:
    # 200 users with 3 correlated runs each: the 90% interval of the run mean covers 0.5 in ~90% of samples
    rng = np.random.default_rng(0)
    covered = 0
    for k in range(60):
        level = rng.normal(0.5, 0.2, 200)
        frame = pd.DataFrame({"system": "s", "user": np.repeat(np.arange(200), 3),
                              "P": np.repeat(level, 3) + rng.normal(0, 0.05, 600)})
        draws = UserBootstrap(frame["user"], n_boot=300, seed=k).means(frame, "P", ("system",)).to_numpy()[0]
        low, high = percentile_interval(draws[1:], confidence=0.9)
        covered += low <= 0.5 <= high
    assert 45 <= covered <= 60


def test_user_bootstrap_refuses_unknown_users_and_bad_sizes() -> None:
    frame = bootstrap_table()
    with pytest.raises(ValueError, match="outside"):
        UserBootstrap([0, 1], n_boot=5).means(frame, "P", ("system",))
    with pytest.raises(ValueError, match="n_boot"):
        UserBootstrap([0, 1], n_boot=0)
    with pytest.raises(ValueError, match="two users"):
        UserBootstrap([3], n_boot=5)


def test_the_resampled_pvalue_counts_the_draws_on_the_smaller_side_of_zero():
    from recbias.evaluate import resampled_pvalue

    assert resampled_pvalue(np.arange(1.0, 200.0)) == pytest.approx(2 * 1 / 200)  # 199 draws, none at or below 0
    assert resampled_pvalue(-np.arange(1.0, 10.0)) == pytest.approx(2 * 1 / 10)  # the sign does not matter
    # 3 of 19 draws below zero, one at zero (counted on both sides): 2 (4 + 1) / 20
    draws = np.array([-0.3, -0.2, -0.1, 0.0] + [0.1] * 15)
    assert resampled_pvalue(draws) == pytest.approx(0.5)
    assert resampled_pvalue(np.array([-1.0, 1.0] * 50)) == 1.0  # balanced: capped at 1
    assert resampled_pvalue(np.array([np.nan, 1.0, 2.0])) == pytest.approx(2 / 3)  # NaN draws are left out
    assert np.isnan(resampled_pvalue(np.array([np.nan])))


@pytest.mark.parametrize("average", ["user", "run", "group"])
def test_columns_a_summary_does_not_read_change_nothing(average) -> None:
    rng = np.random.default_rng(4)
    users = list(np.tile(rng.integers(0, 12, 30), 3))  # the same runs of the same users for each system
    base = table(users, **{"P@10": list(rng.random(90)), "MAP": list(rng.random(90))})
    base = base.assign(run=np.tile(np.arange(30), 3), system=np.repeat(["a", "b", "c"], 30),
                       group=np.tile(rng.integers(0, 3, 30), 3))
    wide = base.assign(note="unread", other=rng.random(90), design=pd.Categorical(["x"] * 90))
    pd.testing.assert_frame_equal(summarize(wide, ["P@10"], ("system",), average),
                                  summarize(base, ["P@10"], ("system",), average))
    if average != "group":
        pd.testing.assert_frame_equal(compare(wide, ["P@10"], baseline="a", average=average),
                                      compare(base, ["P@10"], baseline="a", average=average))


@pytest.mark.parametrize("labels", [
    np.array([5, 3, 5, 0, 3], dtype=np.int32),  # small non-negative codes, with gaps
    np.array([10**9, 3, 10**9]),  # large codes
    np.array([-2, 4, -2]),  # negative codes
    np.array(["b", "a", "b"]),  # not integers
])
def test_unit_codes_are_the_ranks_of_the_sorted_distinct_labels(labels):
    np.testing.assert_array_equal(_codes(labels, len(labels), each=True),
                                  np.unique(labels, return_inverse=True)[1].reshape(-1))

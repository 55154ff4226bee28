"""The experiment runner: folds, per-run tables, summaries and tests; chapter 2 end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.evaluate import experiment as runner
from recbias.designs import build_runs, nonrelevant_pool_sizes
from recbias.evaluate import evaluate_runs, mean_confidence_interval
from recbias.ratings import Ratings
from recbias.splits import fold_seed, make_folds, remove_test_ratings
from recbias.recommenders import make
from smoke_pages import RESULTS


@pytest.fixture(scope="module")
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=0)


def run_small(small: Ratings) -> runner.Experiment:
    """Three systems, two designs, two folds: the experiment every test below inspects."""
    return runner.run_experiment(
        small,
        ["TI-AN", "1R TI-NN(49)"],
        {"Popularity": "popularity", "pLSA": "plsa", "Random": "random"},
        folds=2,
        metrics=["P@10", "MAP", "MRR", "MAP(normalise=candidates)"],
        seed=3,
        cache=False,
    )


@pytest.fixture(scope="module")
def experiment(small: Ratings) -> runner.Experiment:
    return run_small(small)


# ------------------------------------------------------------------------------ folds


def test_coin_folds_are_independent_deterministic_splits(small: Ratings) -> None:
    folds = make_folds(small, method="coin", folds=3, test_ratio=0.2, seed=1)
    again = make_folds(small, method="coin", folds=3, test_ratio=0.2, seed=1)
    assert [f.index for f in folds] == [0, 1, 2]
    for fold, same in zip(folds, again, strict=True):
        assert fold.train.n_ratings + fold.test.n_ratings == small.n_ratings
        assert np.array_equal(fold.test.items, same.test.items) and np.array_equal(fold.test.users, same.test.users)
        assert abs(fold.test.n_ratings / small.n_ratings - 0.2) < 0.03
    keys = [set(zip(f.test.users.tolist(), f.test.items.tolist(), strict=True)) for f in folds]
    assert keys[0] != keys[1] != keys[2]
    assert len({f.seed for f in folds}) == 3


def test_kfold_folds_partition_the_ratings(small: Ratings) -> None:
    folds = make_folds(small, method="kfold", folds=4, seed=0)
    tested = np.concatenate([f.test.users.astype(np.int64) * small.n_items + f.test.items for f in folds])
    everything = small.users.astype(np.int64) * small.n_items + small.items
    assert np.array_equal(np.sort(tested), np.sort(everything))


def test_temporal_fold_and_bad_arguments(small: Ratings) -> None:
    (fold,) = make_folds(small, method="temporal", folds=1, test_ratio=0.2)
    assert fold.train.timestamps.max() <= fold.test.timestamps.min()
    with pytest.raises(ValueError, match="single fold"):
        make_folds(small, method="temporal", folds=2)
    with pytest.raises(ValueError, match="unknown split method"):
        make_folds(small, method="bootstrap")
    with pytest.raises(ValueError, match="positive integer"):
        make_folds(small, folds=0)


# ------------------------------------------------------------------------ experiments


def test_experiment_table_shape_and_content(experiment: runner.Experiment) -> None:
    runs = experiment.runs
    assert list(runs.columns[:7]) == ["dataset", "fold", "design", "system", "run", "user", "group"]
    assert set(experiment.metrics) == {"P@10", "MAP", "MRR", "MAP(normalise=candidates)"}
    assert list(runs["design"].cat.categories) == ["TI-AN", "1R TI-NN(49)"]
    counts = runs.groupby(["fold", "design", "system"], observed=True).size().unstack("system")
    assert (counts.nunique(axis=1) == 1).all()  # every system is evaluated on the same runs
    reports = experiment.reports.set_index(["fold", "design"])
    for (fold, design), row in reports.iterrows():
        assert counts.loc[(fold, design)].iloc[0] == row["n_runs"]
    one_r = runs[runs["design"] == "1R TI-NN(49)"]
    assert one_r["P@10"].max() <= 0.1 + 1e-12  # the 1R ceiling 1/n
    assert np.allclose(one_r["MAP"], one_r["MRR"])  # MAP = MRR in 1R (IRJ Sec. 6)
    assert np.allclose(one_r["MAP(normalise=candidates)"], one_r["MRR"])
    assert set(experiment.seconds) == {"fit", "design", "score", "rank", "metrics"}


def test_experiment_is_reproducible(small: Ratings, experiment: runner.Experiment) -> None:
    again = run_small(small)
    pd.testing.assert_frame_equal(experiment.runs, again.runs)


def test_experiment_rows_equal_a_direct_evaluation(small: Ratings, experiment: runner.Experiment) -> None:
    fold = make_folds(small, folds=2, seed=3)[1]
    model = make("popularity", seed=3).fit(fold.train)
    runs = build_runs(fold.train, fold.test, "1R TI-NN(49)", seed=fold_seed(3, 1000 + 1), on_shortage="exclude")
    direct = evaluate_runs(runs, model.score(np.repeat(runs.users, runs.sizes), runs.items), ["P@10", "MRR"],
                           seed=fold_seed(3, 1))
    mine = experiment.runs.query("fold == 1 and design == '1R TI-NN(49)' and system == 'Popularity'")
    np.testing.assert_allclose(mine["P@10"].to_numpy(), direct["P@10"].to_numpy())
    np.testing.assert_allclose(mine["MRR"].to_numpy(), direct["MRR"].to_numpy())


def test_random_precision_matches_its_expectation(experiment: runner.Experiment) -> None:
    summary = experiment.summary(["P@10"]).set_index(["design", "system"])
    row = summary.loc[("1R TI-NN(49)", "Random")]
    assert row["ci_low"] - 0.005 <= 1 / 50 <= row["ci_high"] + 0.005  # E[1R P@n] = 1/|T_u^r| (IRJ Eq. 5)


def test_summary_pools_runs_of_all_folds_with_users_as_clusters(experiment: runner.Experiment) -> None:
    summary = experiment.summary(["P@10"])
    for _, row in summary.iterrows():
        rows = experiment.runs.query("design == @row.design and system == @row.system")
        mean, low, high = mean_confidence_interval(rows["P@10"].to_numpy(), clusters=rows["user"].to_numpy())
        assert (row["runs"], row["users"]) == (len(rows), rows["user"].nunique())
        assert row["mean"] == pytest.approx(mean) and row["ci_low"] == pytest.approx(low)
        assert row["ci_high"] == pytest.approx(high)


def test_comparison_pairs_runs_across_folds_per_design(experiment: runner.Experiment) -> None:
    tests = experiment.comparison("P@10")
    runs = experiment.runs[experiment.runs["design"] == "TI-AN"]
    on_ti = tests[tests["design"] == "TI-AN"]
    assert len(on_ti) == 3
    first = on_ti.iloc[0]
    assert first["mean_a"] == pytest.approx(runs[runs["system"] == first["system_a"]]["P@10"].mean())
    assert first["users"] == runs["user"].nunique()
    assert on_ti.set_index(["system_a", "system_b"]).loc[("pLSA", "Random"), "wilcoxon_pvalue"] < 1e-3


# ---------------------------------------------------------------------- chapter smoke


@pytest.mark.slow
def test_chapter_2_executes_on_the_small_world(executed_page) -> None:
    """Chapter 2, executed on synthetic-small (the run's one execution of the page), registers its claims."""
    from recbias.bookkit.scorecard import load_claims

    claims = load_claims(executed_page("02_designs") / RESULTS)
    keys = {c.key for c in claims}
    assert {"fig2/AR/Popularity/P@10", "fig2/1R/ceiling", "fig3/lemma-holds"} <= keys
    lemma = next(c for c in claims if c.key == "fig3/lemma-holds")
    assert lemma.kind == "finding" and lemma.outcome == "holds"


# --------------------------------------------------------------- sweeps of one fold


def test_evaluate_fold_scores_every_runs_object_as_a_direct_evaluation(small: Ratings) -> None:
    (fold,) = make_folds(small, folds=1, seed=2)
    fitted = runner.fit_systems({"Popularity": "popularity", "Random": "random"}, fold.train, cache=False, seed=2)
    runs = {"TI-AN": build_runs(fold.train, fold.test, "TI-AN"),
            "thinned": build_runs(fold.train, remove_test_ratings(fold.test, 0.5, seed=1), "1R TI-NN(20)", seed=1)}
    table = runner.evaluate_fold(fold, fitted, runs, ["P@5", "MRR"], seed=4)
    assert set(table["design"]) == {"TI-AN", "thinned"} and set(table["system"]) == set(fitted)
    for (design, system), part in table.groupby(["design", "system"]):
        scores = fitted[system].score(np.repeat(runs[design].users, runs[design].sizes), runs[design].items)
        direct = evaluate_runs(runs[design], scores, ["P@5", "MRR"], seed=fold_seed(4, fold.index))
        np.testing.assert_allclose(part[["P@5", "MRR"]].to_numpy(), direct[["P@5", "MRR"]].to_numpy())


def test_growing_target_sets_keep_one_population(small: Ratings) -> None:
    (fold,) = make_folds(small, folds=1, seed=0)
    largest = runner.largest_target_size(fold.train, fold.test)
    grown = runner.growing_target_sets(fold.train, fold.test, [20, 60, largest, largest + 1], seed=3)
    assert list(grown) == [20, 60, largest]  # the size above the largest is dropped
    users = [np.unique(runs.users) for runs in grown.values()]
    assert all(np.array_equal(users[0], u) for u in users)
    assert all(np.all(runs.sizes == size) for size, runs in grown.items())
    rated = np.unique(fold.test.users[fold.test.positive])
    assert len(users[0]) >= 0.5 * len(rated)
    # one more item and fewer than half of the users could hold it
    pool = nonrelevant_pool_sizes(fold.train, fold.test)[rated]
    assert np.count_nonzero(pool >= largest) < 0.5 * len(rated) <= np.count_nonzero(pool >= largest - 1)
    sampled = runner.growing_target_sets(fold.train, fold.test, [20, 60], max_users=25, seed=3)
    assert all(len(np.unique(runs.users)) == 25 for runs in sampled.values())
    with pytest.raises(ValueError, match="integers >= 2"):
        runner.growing_target_sets(fold.train, fold.test, [1, 20])

"""Chapter 8's computation: the second truth, the two sets of systems, the grid and how the fidelity tables of
several truths compare.  The protocols, their measurement and the stand-in world are tested with the core
(tests/test_protocol_study.py, tests/test_synthetic_stand_in.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c08_protocol_fidelity import study
from recbias.ratings import Ratings


@pytest.fixture(scope="module")
def world() -> Ratings:
    return datasets.load("synthetic-small", seed=1)


# ---------------------------------------------------------------------------- truths


def test_the_second_truth_is_skipped_missing_or_the_default_world(world):
    assert study.second_truth("", world) is None
    assert study.second_truth("csv:/no/such/ratings.csv", world) is None
    default = study.second_truth(world.name, world, seed=2)
    assert default.name == "synthetic" and default.true_relevance is not None


# --------------------------------------------------------------------------- systems


def test_the_two_sets_of_systems():
    assert len(study.system_sets()[study.FIELD]) == 14
    papers = study.system_sets(3, [study.PAPERS])
    assert list(papers) == [study.PAPERS]
    assert list(papers[study.PAPERS]) == ["Popularity", "pLSA", "rating-MF", "rating-kNN", "Random"]
    assert {type(r).__name__ for r in papers[study.PAPERS].values()} == {"Random", "Popularity", "PLSA", "RatingMF",
                                                                         "RatingUserKNN"}
    assert all(r.seed == 3 for r in papers[study.PAPERS].values())
    with pytest.raises(ValueError, match="unknown sets of systems \\['mine'\\]"):
        study.system_sets(names=["mine"])


# -------------------------------------------------------------------- fidelity tables


def table(taus: dict[str, tuple[float, float, float]], behind: dict[str, float] | None = None) -> pd.DataFrame:
    """A fidelity table: protocol -> (tau, tau_low, tau_high), most faithful first."""
    rows = [{"protocol": p, "tau": t, "tau_low": lo, "tau_high": hi, "behind_best": (behind or {}).get(p, 0.0)}
            for p, (t, lo, hi) in taus.items()]
    return pd.DataFrame(rows).sort_values("tau", ascending=False, ignore_index=True)


def test_two_truths_part_only_where_each_tau_is_outside_the_others_interval():
    main = table({"a": (0.9, 0.8, 1.0), "b": (0.8, 0.7, 0.9), "c": (0.5, 0.4, 0.6), "d": (0.4, 0.3, 0.5)})
    second = table({"a": (0.3, 0.2, 0.4), "b": (0.75, 0.5, 0.95), "c": (0.55, 0.1, 0.7), "e": (0.1, 0.0, 0.2)})
    assert list(study.joined(main, second).index) == ["a", "b", "c"]
    assert list(study.apart(main, second).index) == ["a"]  # b and c lie within each other's intervals


def test_the_agreement_of_two_truths_by_hand():
    main = table({"a": (0.9, 0.85, 0.95), "b": (0.8, 0, 1), "c": (0.5, 0, 1), "d": (0.4, 0, 1), "e": (0.3, 0, 1),
                  "f": (0.2, 0, 1)})
    second = table({"a": (0.2, 0.1, 0.3), "b": (0.8, 0, 1), "c": (0.7, 0, 1), "d": (0.6, 0, 1), "e": (0.5, 0, 1),
                    "f": (0.4, 0, 1)})
    found = study.agreement(main, second, ("world", "coat"))
    ranks_second = [6, 1, 2, 3, 4, 5]
    expected_rho = np.corrcoef([1, 2, 3, 4, 5, 6], ranks_second)[0, 1]
    assert found["truths_n"] == 6 and found["truths_rho"] == pytest.approx(expected_rho)
    assert found["truths_top"] == "b"  # top third: a, b on the first; b, c on the second
    assert (found["truths_furthest"], found["truths_rank_first"], found["truths_rank_second"]) == ("a", "1st", "6th")
    # only a is apart (its intervals 0.85 to 0.95 and 0.1 to 0.3 hold neither tau), with the higher tau on world
    assert (found["truths_apart"], found["truths_higher_first"], found["truths_higher_second"]) == (1, 1, 0)
    assert found["truths_noisier"] == "coat"  # mean width 5.2 / 6 against 5.1 / 6 on world
    same = study.agreement(main, main, ("world", "coat"))
    assert same["truths_rho"] == pytest.approx(1.0) and same["truths_top"] == "a and b" and same["truths_apart"] == 0
    reversed_ = table({p: (t, 0, 1) for p, t in zip("abcdef", [0.1, 0.2, 0.3, 0.4, 0.5, 0.9], strict=True)})
    assert study.agreement(main, reversed_, ("world", "coat"))["truths_top"] == "none"
    assert study.agreement(main.head(2), second.head(2), ("world", "coat")) == {}


def test_the_halves_put_a_protocol_in_the_upper_half_at_or_above_each_median():
    main = table({"a": (0.9, 0, 1), "b": (0.7, 0, 1), "c": (0.5, 0, 1), "d": (0.3, 0, 1)})
    second = table({"a": (0.9, 0, 1), "b": (0.1, 0, 1), "c": (0.5, 0, 1), "d": (0.3, 0, 1)})
    grid = pd.DataFrame({"protocol": list("abcdabcd"), "tau": [0.9, 0.8, 0.1, 0.2, 0.7, 0.8, 0.3, 0.2]})
    halves = study.halves(main, second, grid, ("world", "coat"))
    # medians: world 0.6, coat 0.4, grid means a 0.8 b 0.8 c 0.2 d 0.2 -> 0.5
    assert halves["upper"].to_dict() == {"a": 3, "b": 2, "c": 1, "d": 0} and set(halves["truths"]) == {3}
    assert halves.loc["b", "simulation grid tau"] == pytest.approx(0.8) and halves.loc["b", "coat rank"] == 4
    assert halves.loc["c", "simulation grid rank"] == 3  # ties share their lowest rank
    alone = study.halves(main, None, grid, ("world", ""))
    assert alone["upper"].to_dict() == {"a": 2, "b": 2, "c": 0, "d": 0} and set(alone["truths"]) == {2}
    tie = table({"a": (0.5, 0, 1), "b": (0.5, 0, 1)})
    flat = pd.DataFrame({"protocol": ["a", "b"], "tau": [0.4, 0.4]})
    assert set(study.halves(tie, None, flat, ("world", ""))["upper"]) == {2}  # at the median counts as upper


# ---------------------------------------------------------------------------------- grid


def grid_frame() -> pd.DataFrame:
    rows = [{"protocol": p, "alpha": a, "selection": s, "seed": seed, "tau": tau + 0.1 * seed - 0.2 * (a > 1) + s / 10}
            for p, tau in (("AR TI-AN P@10", 0.5), ("UAR P@10", 0.7), ("bpref", 0.3))
            for a in (0.5, 1.4) for s in (0.0, 2.0) for seed in (0, 1)]
    return pd.DataFrame(rows)


def test_the_grid_means_by_protocol_axis_and_kind():
    grid = grid_frame()
    # each world adds 0.05 on average over its seeds, a skew of 1.4 takes 0.2 and a bias of 2 adds 0.2
    assert study.means_by(grid, "protocol").to_dict() == pytest.approx({"AR TI-AN P@10": 0.55, "UAR P@10": 0.75,
                                                                        "bpref": 0.35})
    assert study.means_by(grid, "alpha").to_dict() == pytest.approx({0.5: 0.65, 1.4: 0.45})
    assert study.means_by(grid, "selection").to_dict() == pytest.approx({0.0: 0.45, 2.0: 0.65})
    kinds = study.family_means(grid[grid["selection"] == 2.0], study.families())
    assert kinds.to_dict() == pytest.approx({"standard": 0.65, "neutralising": 0.85, "incomplete judgments": 0.45})


def test_grid_cells_average_the_worlds_of_a_cell_in_the_order_given():
    cells = study.grid_cells(grid_frame(), ["UAR P@10", "missing", "bpref", "AR TI-AN P@10"])
    assert list(cells.index) == ["UAR P@10", "bpref", "AR TI-AN P@10"]
    assert list(cells.columns) == [(0.5, 0.0), (0.5, 2.0), (1.4, 0.0), (1.4, 2.0)]
    assert cells.loc["bpref", (1.4, 2.0)] == pytest.approx(0.3 + 0.05 - 0.2 + 0.2)


def draws_table(taus: dict[str, list[float]]) -> pd.DataFrame:
    """A fidelity table whose first value of each protocol is its full-sample tau and the rest its resamples."""
    return pd.DataFrame([{"protocol": p, "tau": t[0], "tau_draws": np.array(t[1:])} for p, t in taus.items()])


def test_the_median_margin_takes_the_median_within_each_resample():
    table = draws_table({"a": [0.9, 0.9, 0.1], "b": [0.5, 0.2, 0.5], "c": [0.1, 0.3, 0.9]})
    # medians: full 0.5, first resample 0.3, second 0.5
    np.testing.assert_allclose(study.median_margin(table, "a"), [0.4, 0.6, -0.4])
    np.testing.assert_allclose(study.median_margin(table, "b"), [0.0, -0.1, 0.0])


def test_the_family_gap_pairs_the_resamples_of_every_protocol():
    families = {"a": "standard", "b": "standard", "u": "neutralising"}
    table = draws_table({"a": [0.6, 0.5, 0.7], "b": [0.4, 0.5, 0.1], "u": [0.8, 0.4, 0.6]})
    np.testing.assert_allclose(study.family_gap(table, families, "neutralising", "standard"), [0.3, -0.1, 0.2])


def test_the_grid_gain_and_the_change_along_an_axis_average_the_worlds_draw_by_draw():
    rows = [{"protocol": p, "alpha": a, "selection": 2.0, "seed": seed, "tau": t[0], "tau_draws": np.array(t[1:])}
            for (p, a, seed), t in {
                ("AR TI-AN P@10", 0.5, 0): [0.5, 0.4, 0.6], ("UAR P@10", 0.5, 0): [0.7, 0.7, 0.5],
                ("AR TI-AN P@10", 1.4, 0): [0.3, 0.3, 0.3], ("UAR P@10", 1.4, 0): [0.2, 0.4, 0.2],
                ("AR TI-AN P@10", 1.4, 1): [0.5, 0.5, 0.5], ("UAR P@10", 1.4, 1): [0.6, 0.6, 0.4]}.items()]
    grid = pd.DataFrame(rows)
    # gains per world: (0.2, 0.3, -0.1), (-0.1, 0.1, -0.1), (0.1, 0.1, -0.1): their means
    np.testing.assert_allclose(study.family_gain(grid, study.families(), 2.0, "neutralising", "standard"),
                               [0.2 / 3, 0.5 / 3, -0.1])
    # least skew: one world, mean (0.6, 0.55, 0.55); most skew: two worlds, (0.4, 0.45, 0.35)
    np.testing.assert_allclose(study.change_along(grid, "alpha"), [-0.2, -0.1, -0.2])
    weak = grid.assign(selection=np.where(grid["alpha"] == 0.5, 0.0, 2.0))
    np.testing.assert_allclose(study.change_along(weak, "selection"), [-0.2, -0.1, -0.2])


def test_the_mean_tau_of_each_kind_of_protocol():
    main = table({"UAR P@10": (0.9, 0, 1), "P1R(10) P@10": (0.7, 0, 1), "AR TI-AN P@10": (0.6, 0, 1),
                  "1R P@10": (0.2, 0, 1), "bpref": (0.1, 0, 1)})
    means = study.family_means(main, study.families())
    assert means.to_dict() == pytest.approx({"neutralising": 0.8, "standard": 0.4, "incomplete judgments": 0.1})

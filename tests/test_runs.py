"""The compact run arrays: selecting whole runs."""

from __future__ import annotations

import numpy as np

from recbias import datasets, splits
from recbias.designs import build_runs


def test_subset_keeps_whole_runs_in_their_order() -> None:
    world = datasets.load("synthetic-small", seed=0)
    train, test = splits.random_split(world, 0.2, seed=0)
    runs = build_runs(train, test, "1R TI-NN(10)", seed=0, on_shortage="exclude")
    keep = np.arange(runs.n_runs) % 3 == 0
    part = runs.subset(keep)
    assert part.n_runs == keep.sum() and part.design == runs.design
    kept = np.flatnonzero(keep)
    for new, old in ((0, kept[0]), (part.n_runs - 1, kept[-1])):
        a, b = slice(part.offsets[new], part.offsets[new + 1]), slice(runs.offsets[old], runs.offsets[old + 1])
        assert np.array_equal(part.items[a], runs.items[b]) and np.array_equal(part.labels[a], runs.labels[b])
    assert np.array_equal(part.n_relevant, runs.n_relevant[keep])
    assert np.array_equal(part.users, runs.users[keep])


def test_marked_entries_are_the_relevant_judged_or_graded_ones_and_are_found_once() -> None:
    world = datasets.load("synthetic-small", seed=0)
    train, test = splits.random_split(world, 0.2, seed=0)
    runs = build_runs(train, test, "TI-NN(20)", seed=0)
    expected = [e for e in range(len(runs.items)) if runs.labels[e] or runs.judged[e] or runs.grades[e] != 0]
    assert np.array_equal(runs.marked_entries, expected) and len(expected) < len(runs.items)
    owner = [int(np.flatnonzero(runs.offsets <= e)[-1]) for e in expected]
    assert np.array_equal(runs.run_of_marked, owner)
    assert runs.marked_entries is runs.marked_entries  # found once, read by every system that ranks the runs
    part = runs.block(1, 4)
    assert np.array_equal(part.marked_entries, np.flatnonzero(part.labels | part.judged | (part.grades != 0)))

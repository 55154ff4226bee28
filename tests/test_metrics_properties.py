"""Property tests: ranges, invariance to reshuffling non-relevant candidates, monotonicity."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from runs_factory import random_runs

from recbias import metrics as M
from recbias.runs import Runs

SPECS = ["P@3", "Recall@3", "F1@3", "HR@3", "Rprec", "RR", "MAP", "AP@3", "nDCG", "nDCG@3", "AUC", "bpref", "infAP"]


@st.composite
def some_runs(draw: st.DrawFn) -> Runs:
    seed = draw(st.integers(0, 2**32 - 1))
    return random_runs(
        np.random.default_rng(seed),
        n_runs=draw(st.integers(1, 6)),
        max_size=draw(st.integers(1, 12)),
        relevant_share=draw(st.floats(0.05, 0.95)),
        judged_share=draw(st.floats(0, 1)),
    )


def reorder(runs: Runs, order: np.ndarray) -> Runs:
    return replace(
        runs, items=runs.items[order], labels=runs.labels[order], grades=runs.grades[order], judged=runs.judged[order]
    )


@settings(max_examples=60, deadline=None)
@given(some_runs())
def test_values_lie_in_the_unit_interval(runs: Runs) -> None:
    for label, values in M.compute_metrics(runs, SPECS).items():
        assert np.all((values >= 0) & (values <= 1 + 1e-12)), label


@settings(max_examples=60, deadline=None)
@given(some_runs(), st.integers(0, 2**32 - 1))
def test_shuffling_non_relevant_candidates_changes_nothing(runs: Runs, seed: int) -> None:
    """Permute non-relevant entries within each run among themselves, keeping judged ones
    on judged slots (bpref and infAP tell judged from unjudged non-relevant items)."""
    rng = np.random.default_rng(seed)
    order = np.arange(len(runs.items))
    run = runs.run_of_entry
    for judged in (False, True):
        slots = np.flatnonzero(~runs.labels & (runs.judged == judged))
        shuffled = slots[np.lexsort((rng.random(len(slots)), run[slots]))]
        order[slots] = shuffled
    before, after = M.compute_metrics(runs, SPECS), M.compute_metrics(reorder(runs, order), SPECS)
    for label in SPECS:
        np.testing.assert_allclose(after[label], before[label], rtol=0, atol=1e-12, err_msg=label)


@settings(max_examples=80, deadline=None)
@given(some_runs(), st.integers(0, 2**32 - 1))
def test_moving_a_relevant_item_up_never_hurts(runs: Runs, seed: int) -> None:
    """Swap one relevant entry with the non-relevant entry right above it."""
    above = np.flatnonzero(~runs.labels[:-1] & runs.labels[1:] & (runs.run_of_entry[:-1] == runs.run_of_entry[1:]))
    if above.size == 0:
        return
    k = int(np.random.default_rng(seed).choice(above))
    order = np.arange(len(runs.items))
    order[[k, k + 1]] = [k + 1, k]
    before, after = M.compute_metrics(runs, SPECS), M.compute_metrics(reorder(runs, order), SPECS)
    for label in SPECS:
        assert np.all(after[label] >= before[label] - 1e-12), label
    run = runs.run_of_entry[k]
    assert after["AUC"][run] > before["AUC"][run]  # one more pair in the right order

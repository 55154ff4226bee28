"""Where the relevant entries of ranked runs are: the index sets every metric reads."""

from __future__ import annotations

import numpy as np
import pytest

from recbias.metrics._view import RankedView, as_view, check_cutoff, safe_divide
from recbias.runs import Runs

# run 0 ranks items 5, 6, 7 with 6 and 7 relevant; run 1 ranks items 8, 9 with none relevant
RUNS = Runs.from_arrays([0, 3, 5], users=[0, 1], items=[5, 6, 7, 8, 9], labels=[0, 1, 1, 0, 0])


def test_relevant_entries_by_run_position_and_count_above() -> None:
    view = as_view(RUNS)
    assert view.relevant.tolist() == [1, 2] and view.relevant_items.tolist() == [6, 7]
    assert view.relevant_run.tolist() == [0, 0] and view.relevant_position.tolist() == [1, 2]
    assert view.relevant_through.tolist() == [1, 2] and view.relevant_in_run.tolist() == [2, 0]
    assert view.hits(2).tolist() == [1.0, 0.0] and view.run_of(np.array([0, 3, 4])).tolist() == [0, 1, 1]
    assert as_view(view) is view


def test_a_run_with_more_relevant_candidates_than_it_counts_is_refused() -> None:
    short = Runs.from_arrays([0, 2], users=[0], items=[1, 2], labels=[1, 1], n_relevant=[1])
    with pytest.raises(ValueError, match="run 0 has more relevant candidates than n_relevant = 1"):
        RankedView(short).relevant_run
    with pytest.raises(TypeError, match="expected a Ranking or Runs in rank order, got list"):
        as_view([])


def test_cutoffs_and_division_by_zero() -> None:
    assert check_cutoff(3) == 3 and check_cutoff(None, optional=True) > 10**18
    for bad in (0, True, 2.0, None):
        with pytest.raises(ValueError, match="cutoff n must be a positive integer"):
            check_cutoff(bad)
    assert safe_divide(np.array([1.0, 2.0]), np.array([4.0, 0.0])).tolist() == [0.25, 0.0]

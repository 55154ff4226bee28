"""New-user splits (Bobrikov et al. 2016, Sec. 8.1): disjoint groups that reveal their first ratings in time order."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import datasets
from recbias.splits import new_user_splits


def test_new_user_groups_are_disjoint_and_reveal_the_first_ratings_in_time_order():
    world = datasets.load("synthetic-small", seed=1, positive_threshold=4)
    splits = new_user_splits(world, groups=2, max_known=5, min_test=3, seed=4)
    eligible = np.flatnonzero(world.user_counts() >= 8)
    assert sorted(np.concatenate([s.new_users for s in splits]).tolist()) == eligible.tolist()
    split = splits[0]
    user = int(split.new_users[0])
    times = np.sort(world.timestamps[world.users == user], kind="stable")
    known = split.train(2)
    assert np.sort(known.timestamps[known.users == user]).tolist() == times[:2].tolist()
    assert split.test.n_ratings == sum(int(world.user_counts()[u]) - 5 for u in split.new_users)
    other = int(np.setdiff1d(np.arange(world.n_users), split.new_users)[0])
    assert (known.users == other).sum() == world.user_counts()[other]
    with pytest.raises(ValueError, match="known must be an integer in"):
        split.train(6)
    with pytest.raises(ValueError, match="groups of new users need at least"):
        new_user_splits(world, groups=world.n_users + 1, max_known=5, min_test=3)

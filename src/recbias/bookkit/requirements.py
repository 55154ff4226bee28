"""What each chapter needs of its dataset, checked by the build right after loading it.

Every page declares, keyed by its stem in :data:`NEEDS`, a list of :class:`Need`: a count the
dataset must reach (users with enough positive ratings, rated items, ratings per user, ratings
below the positive threshold, ...), possibly set by the page's parameters (a 1R target set of
``target_size`` items needs that many rated items).  :func:`unmet` returns one sentence per need
the dataset misses, e.g. "chapter 5 needs at least 10 users with 2 or more positive ratings;
csv:ratings.csv has 3", so that a dataset too small for a chapter is refused before any page
runs instead of failing deep inside it.  The needs were found by building each chapter on small
CSV files (3 users; implicit feedback; 10 to 40 users just above and below each need).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from recbias.datasets.registry import dataset_label
from recbias.ratings import Ratings

Parameters = dict[str, Any]
#: a need's bound: a number, or one read from the page's parameters and the dataset
Bound = int | Callable[[Ratings, Parameters], int]


@dataclass(frozen=True)
class Need:
    """At least ``at_least`` of ``what`` in the dataset, as counted by ``count``."""

    what: str
    count: Callable[[Ratings, Parameters], int]
    at_least: Bound
    #: why the chapter needs it, or what to change when it is unmet
    hint: str = ""

    def wanted(self, ratings: Ratings, parameters: Parameters) -> int:
        return self.at_least if isinstance(self.at_least, int) else self.at_least(ratings, parameters)


def one_r_users(at_least: int, *, test_items: bool = False) -> Need:
    """Users who can have a 1R run (IRJ Sec. 3.2): 2 or more positive ratings (so that a split can leave one
    on each side) and ``target_size - 1`` items they never rated to draw beside the held-out one.  With
    ``test_items`` (TI designs) those items must be in the test set of a ``test_ratio`` coin-flip split:
    item ``i`` with ``c_i`` ratings is there with probability ``1 - (1 - test_ratio)^c_i``, and the user's
    pool is the expected number of such items she never rated."""

    def count(ratings: Ratings, parameters: Parameters) -> int:
        positives = np.bincount(ratings.users[ratings.positive], minlength=ratings.n_users)
        chance = (ratings.item_counts() > 0).astype(float)
        if test_items:
            chance = 1 - (1 - parameters["test_ratio"]) ** ratings.item_counts()
        pool = chance.sum() - np.bincount(ratings.users, weights=chance[ratings.items], minlength=ratings.n_users)
        return int(((positives >= 2) & (pool >= parameters["target_size"] - 1)).sum())

    items = "test-set items" if test_items else "items"
    return Need(f"users with 2 or more positive ratings and target_size - 1 or more {items} they never rated"
                + (" (expected)" if test_items else ""),
                count, at_least, f"a 1R run draws target_size - 1 {items} the user never rated beside a held-out "
                                 "positive one; lower -p target_size")


def users_with_ratings(at_least: Bound, ratings: int) -> Need:
    """Users with ``ratings`` or more ratings."""
    return Need(f"users with {ratings} or more ratings",
                lambda r, p: int((np.bincount(r.users, minlength=r.n_users) >= ratings).sum()), at_least,
                "one rating of each is held out")


def rated_items(at_least: Bound, hint: str) -> Need:
    """Items with at least one rating (the catalogue target sets and samples draw from)."""
    return Need("rated items", lambda r, p: int(np.unique(r.items).size), at_least, hint)


def rating_values(at_least: int, hint: str) -> Need:
    """Distinct rating values (implicit feedback has one)."""
    return Need("distinct rating values", lambda r, p: int(np.unique(r.values).size), at_least, hint)


def uniform_split() -> Need:
    """A uniform split (IRJ Sec. 6.2) that holds out at least 1 % of the ratings: counted in percent, the
    largest test ratio that keeps ``min_train_ratio`` of every target item's ratings for training."""
    from recbias import splits

    def percent(ratings: Ratings, parameters: Parameters) -> int:
        largest = splits.largest_uniform_ratio(ratings.item_counts(), parameters["min_train_ratio"])
        return int(math.floor(100 * largest))

    return Need("% of the ratings in the test set of a uniform split", percent, 1,
                "its items have too few ratings each; lower -p min_train_ratio")


def world_of_its_size() -> Need:
    """A dataset without a ground truth that a simulated world of its size can stand in for: the generator's
    own checks accept its numbers of users, items and ratings (no world is drawn)."""

    def accepted(ratings: Ratings, parameters: Parameters) -> int:
        if ratings.true_relevance is not None or ratings.unbiased_test is not None:
            return 1
        from recbias.synthetic import world_size
        from recbias.synthetic.parameters import resolve_parameters
        from recbias.synthetic.popularity import item_targets, popularity_curve, user_targets

        size = world_size(ratings)
        n_users, n_items, n_ratings = size["n_users"], size["n_items"], size["n_ratings"]
        try:
            p = resolve_parameters("synthetic", **size)
            item_targets(popularity_curve(n_items, n_ratings, p["alpha"], p["popularity_floor"],
                                          p["popularity_shift"]), n_items, n_users)
            user_targets(n_users, n_items, n_ratings, p["min_user_ratings"], p["activity_shape"])
        except ValueError:
            return 0
        return 1

    return Need("simulated world of the dataset's size", accepted, 1,
                "without a ground truth the chapter studies a simulated world with the dataset's users, items and "
                "ratings, and the generator refuses these: too few users for the ratings of the most popular "
                "items, or fewer than 20 ratings per user")


def parameter(name: str, plus: int = 0) -> Callable[[Ratings, Parameters], int]:
    """A bound set by the page's parameter ``name`` (``None`` sets none)."""
    return lambda ratings, parameters: 0 if parameters.get(name) is None else int(parameters[name]) + plus


TARGET_SIZE_HINT = "a 1R target set holds target_size items; lower -p target_size"

#: page stem -> what the page needs of its dataset (nothing: it ran on a file of 3 users and 6 ratings)
NEEDS: dict[str, list[Need]] = {
    "01_cranfield": [],
    "02_designs": [rated_items(parameter("target_size"), TARGET_SIZE_HINT), one_r_users(10, test_items=True)],
    "03_sparsity_bias": [rated_items(parameter("target_size"), TARGET_SIZE_HINT), one_r_users(10)],
    "04_popularity_bias": [rated_items(parameter("target_size"), TARGET_SIZE_HINT), one_r_users(10, test_items=True),
                           rating_values(2, "the mainstream study correlates each user's ratings with the crowd's; "
                                            "implicit feedback has none to correlate")],
    "05_neutralising_designs": [rated_items(parameter("target_size"), TARGET_SIZE_HINT), one_r_users(10),
                                uniform_split()],
    "06_sampled_metrics": [users_with_ratings(10, 2),
                           rated_items(parameter("m", plus=1), "each held-out item is ranked among m sampled items; "
                                                               "lower -p m")],
    "07_discounted_auc": [],
    "08_protocol_fidelity": [world_of_its_size()],
    "09_audit": [users_with_ratings(10, 2)],
    "appendix_datasets": [],
}


def chapter(page: str) -> str:
    """``"chapter 5"`` for ``05_neutralising_designs``; other pages by their name."""
    prefix = page.split("_", 1)[0]
    return f"chapter {int(prefix)}" if prefix.isdigit() else page


def unmet(page: str, ratings: Ratings, dataset: str, parameters: Parameters) -> list[str]:
    """One sentence per need of ``page`` that ``ratings`` misses."""
    problems = []
    for need in NEEDS.get(page, []):
        wanted, have = need.wanted(ratings, parameters), need.count(ratings, parameters)
        if have < wanted:
            hint = f" ({need.hint})" if need.hint else ""
            problems.append(f"{chapter(page)} needs at least {wanted:,} {need.what}; {dataset_label(dataset)} has {have:,}{hint}")
    return problems

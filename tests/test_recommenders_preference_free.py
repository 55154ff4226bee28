"""Without preferences the papers' rating predictors have nothing to find (IRJ 2017, Section 5.2).

On the papers' artificial data (no tastes, rating values drawn independently of the
item, item counts on a steep power law), 1R TI-NN(99) P@10 puts Popularity far above
random, while the papers' MF and kNN, which predict rating values, do not rise above
random: whatever they pick up from the popularity curve does not favour the test
items.  Today's top-N learners, which learn which items get rated, do rise (a control
that the world does reward popularity learning).
"""

from __future__ import annotations

import numpy as np
import pytest

from recbias.designs import build_runs
from recbias.evaluate import Candidates, evaluate_runs
from recbias.recommenders import make
from recbias.splits import random_split
from recbias.synthetic import PREFERENCE_FREE, generate

SYSTEMS = ("random", "popularity", "rating-mf", "rating-user-knn", "mf", "user-knn")


@pytest.fixture(scope="module")
def precision() -> dict[str, np.ndarray]:
    """Per-run 1R TI-NN(99) P@10 of every system on one preference-free world (alpha = 1.75)."""
    world = generate(preset="synthetic", seed=3, alpha=1.75, n_users=1000, n_items=1000, n_ratings=60_000,
                     exact_counts="items", **PREFERENCE_FREE)
    train, test = random_split(world, 0.2, seed=3)
    runs = build_runs(train, test, "1R TI-NN(99)", seed=3, on_shortage="exclude")
    candidates = Candidates([runs])
    out = {}
    for name in SYSTEMS:
        scores = candidates.score(make(name).fit(train))[0]
        out[name] = evaluate_runs(runs, scores, ["P@10"], seed=3)["P@10"].to_numpy()
    return out


def standard_error(values: np.ndarray) -> float:
    return float(values.std(ddof=1) / np.sqrt(len(values)))


def test_random_sits_at_one_in_ten_of_one_in_ten(precision):
    random = precision["random"]
    assert len(random) > 2000
    assert abs(random.mean() - 0.01) < 3 * standard_error(random)


def test_popularity_is_far_above_random(precision):
    assert precision["popularity"].mean() > 4 * precision["random"].mean()


@pytest.mark.parametrize("name", ["rating-mf", "rating-user-knn"])
def test_the_papers_rating_predictors_do_not_rise_above_random(precision, name):
    gap = precision[name].mean() - precision["random"].mean()
    noise = np.hypot(standard_error(precision[name]), standard_error(precision["random"]))
    assert gap < 2 * noise, (name, precision[name].mean(), precision["random"].mean())
    assert precision[name].mean() < precision["popularity"].mean() / 4


@pytest.mark.parametrize("name", ["mf", "user-knn"])
def test_todays_top_n_learners_rise_with_popularity(precision, name):
    assert precision[name].mean() > 3 * precision["random"].mean()

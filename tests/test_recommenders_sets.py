"""The two sets of systems: one label per system on every page, a preset and a fixed colour for each."""

from __future__ import annotations

from recbias.bookkit.plotting import RECOMMENDER_COLOURS, palette
from recbias.recommenders import PRESETS, make
from recbias.recommenders.sets import (
    PAPERS_PERSONALISED,
    PAPERS_SET,
    RATING_PREDICTORS,
    SUPPORTED_KNN,
    TOP_N_LEARNERS,
    TOP_N_SET,
)


def test_the_sets_differ_only_in_their_mf_and_knn() -> None:
    assert set(PAPERS_SET) - set(TOP_N_SET) == set(RATING_PREDICTORS)
    assert set(TOP_N_SET) - set(PAPERS_SET) == set(TOP_N_LEARNERS)
    assert set(PAPERS_PERSONALISED) == set(PAPERS_SET) - {"Random", "Popularity"}


def test_every_label_names_a_preset_whose_display_name_it_is() -> None:
    for label, preset in {**PAPERS_SET, **TOP_N_SET, **SUPPORTED_KNN}.items():
        assert preset in PRESETS
        assert make(preset).name == label


def test_the_supported_knn_is_the_papers_knn_with_a_minimum_of_neighbours() -> None:
    (preset,) = SUPPORTED_KNN.values()
    papers, variant = make(PAPERS_SET["rating-kNN"]), make(preset)
    assert type(variant) is type(papers) and (papers.min_support, variant.min_support) == (1, 2)
    assert variant.k == papers.k


def test_every_system_of_both_sets_has_its_own_fixed_colour() -> None:
    labels = list(dict.fromkeys([*PAPERS_SET, *TOP_N_SET]))
    colours = palette(labels)
    assert all(label in RECOMMENDER_COLOURS for label in labels)
    assert len(set(colours.values())) == len(labels)

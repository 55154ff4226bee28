"""Chapter 1's tables, the values its prose quotes and its data-dependent notes, on hand-made collections
whose every statistic is worked out by hand."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from recbias import datasets
from recbias.chapters.c01_cranfield import report
from recbias.chapters.c01_cranfield import study as spread
from recbias.judgments import Spread
from recbias.ratings import Ratings

#: Cranfield: 10 queries, one document relevant to two of them, three to one: s1 = 75%, reach 20%
CRANFIELD = Spread("cranfield", "IR", n_queries=10, n_judgments=30, counts=np.array([2, 1, 1, 1]))
#: TREC-8: 20 topics, ten documents relevant to one each: s1 = 100%, reach 5%, the top tenth holds 10%
TREC = Spread("trec8-adhoc", "IR", n_queries=20, n_judgments=100, counts=np.ones(10, dtype=int))
#: (user, item, stars) of a four-user toy; 5 stars are positive, so items 0 and 1 are liked by 2 users each
TOY = np.array([(0, 0, 5), (0, 1, 5), (1, 0, 5), (1, 2, 3), (2, 0, 4), (3, 1, 5)])
#: what the toy's users would truly like: four of these six pairs are rated 5 stars
TRUTH = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=bool)


def toy(name: str = "toy", truth: np.ndarray | None = None) -> Ratings:
    return Ratings.from_codes(TOY[:, 0], TOY[:, 1], TOY[:, 2].astype(float), (4, 3), positive_threshold=5, name=name,
                              true_relevance=truth)


def plays(name: str = "lastfm-2k") -> Ratings:
    """Two users' play counts; more than two plays is positive, so both like item 0 and 2 of 3 rows count."""
    return Ratings.from_codes(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([10.0, 3.0, 1.0]), (2, 2),
                              positive_threshold=3, name=name, scale=(1.0, 10.0))


def hand_study(*rating_sets: Ratings, **notes) -> spread.SpreadStudy:
    return spread.collect([CRANFIELD, TREC], list(rating_sets), cutoff=2, **notes)


def test_prose_values_read_the_statistics_worked_out_by_hand() -> None:
    said = report.prose_values(hand_study(toy()))
    assert said["here"] == "toy" and said["cutoff"] == "2"
    assert (said["ir_head"], said["ir_reach"], said["ir_fixed"]) == ("10.0%", "20.0%", "0.150")  # (2 + 1) / (2 * 10)
    assert (said["rated_head"], said["rated_reach"]) == ("0.0%", "50.0%")  # one dataset: one value, not a span
    assert (said["here_gini"], said["here_fixed"]) == ("0.00", "0.500")
    assert said["single_query_ir"] == "75.0% on Cranfield and 100.0% on TREC-8"
    assert (said["cranfield_queries"], said["cranfield_max"]) == ("10", "2")
    assert (said["trec_single"], said["trec_max"], said["trec_reach"], said["trec_topics"]) == ("100.0%", "1", "5.0%", "20")
    # every rating positive (3 stars up): item 0 reaches 3 of 4 users, Gini of (3, 2, 1) is 2/9
    assert (said["loose_reach"], said["own_threshold"], said["own_share"], said["own_reach"]) == (
        "75.0%", "5", "66.7%", "50.0%")
    assert (said["loose_gini"], said["own_gini"]) == ("0.22", "0.00")
    assert said["threshold_effect"] == ('On toy, the only rating dataset of this page, moving from "every rating is '
                                        'positive" to its own threshold lowers the reach of the top item by 33.3% of '
                                        'its value, and changes the Gini coefficient by 0.22.')
    assert said["lastfm_threshold"] == ""


def test_spans_cover_every_rating_dataset_of_the_page() -> None:
    said = report.prose_values(hand_study(toy(), plays()))
    assert said["rated_reach"] == "50.0% to 100.0%"
    # Last.fm's own threshold keeps its top item's reach
    assert "lowers the reach of the top item by 0.0% to 33.3% of its value" in said["threshold_effect"]
    assert said["threshold_effect"].startswith("Across the 2 rating datasets of this page")


def effect(drops: list[float], gini: list[float]) -> pd.DataFrame:
    """The threshold effect of one dataset per value of ``drops`` (relative drops of the top reach)."""
    return pd.DataFrame({"reach drop": drops, "gini change": gini}, index=[f"d{k}" for k in range(len(drops))])


@pytest.mark.parametrize("drops, gini, expected", [
    ([0.324], [0.11], "On d0, the only rating dataset of this page, moving from \"every rating is positive\" to its "
                      "own threshold lowers the reach of the top item by 32.4% of its value, and changes the Gini "
                      "coefficient by 0.11."),
    ([0.3241, 0.3244], [0.11, 0.02], "lowers the reach of the top item by 32.4% of its value, and changes the Gini "
                                     "coefficient by at most 0.11."),  # a span of one printed value: one value
    ([0.0, 0.5], [0.0, 0.1], "by 0.0% to 50.0% of its value"),
    ([0.0, 0.0], [0.0, 0.0], "leaves the reach of the top item unchanged, and changes the Gini coefficient by at most "
                             "0.00."),
])
def test_the_threshold_sentence_reads_right_at_its_edges(drops, gini, expected) -> None:
    text = report.threshold_effect_text(effect(drops, gini))
    assert expected in text and " to 32.4%" not in text


@pytest.mark.parametrize("rating_sets, head, reach", [
    (lambda: [toy()], "0.0%", "50.0%"),  # one dataset: one value
    (lambda: [toy(), toy("again")], "0.0%", "50.0%"),  # two datasets with the same values: one value, not "x to x"
    (lambda: [toy(), plays()], "0.0%", "50.0% to 100.0%"),  # each tenth holds no item: 0% on both
])
def test_every_span_of_the_prose_reads_as_one_value_when_its_ends_print_alike(rating_sets, head, reach) -> None:
    said = report.prose_values(hand_study(*rating_sets()))
    assert (said["rated_head"], said["rated_reach"]) == (head, reach)
    spans = [text for text in said.values() if " to " in text]
    for text in spans:
        for low, high in re.findall(r"(\d[\d.,]*%?) to (\d[\d.,]*%?)", text):
            assert low != high, text


def test_the_lastfm_note_says_how_much_its_threshold_keeps() -> None:
    assert report.lastfm_threshold_note(hand_study(toy())) == ""
    alone = report.lastfm_threshold_note(hand_study(plays()))
    assert alone.endswith("still counts 66.7% of its rows as positive.")
    beside = report.lastfm_threshold_note(hand_study(toy(), plays()))
    assert beside.endswith("66.7% of its rows as positive, against 66.7% of the ratings of the other dataset.")
    two = report.lastfm_threshold_note(hand_study(toy(), toy("again"), plays()))
    assert two.endswith("against 66.7% of the ratings of the other datasets.")  # equal ends: one value


def test_the_availability_note_names_what_is_missing() -> None:
    study = hand_study(toy())
    assert report.availability_note(study, compare_all=True) == ""
    shipped = dataclasses.replace(study, shipped=["cranfield", "trec8-adhoc"], skipped=["ml-1m", "coat"])
    note = report.availability_note(shipped, compare_all=True)
    assert note.startswith("The judgment files of Cranfield and TREC-8 are not on the machine")
    assert "hence left out: `ml-1m`, `coat`." in note
    assert report.availability_note(study, compare_all=False).startswith("This page was built with `compare_all = False`")


def test_the_truth_text_reads_the_world_or_says_there_is_none() -> None:
    assert "no simulated world" in report.truth_text(hand_study(toy())).lower()
    text = report.truth_text(hand_study(toy("world", TRUTH)))
    assert "In the simulated world `world`, only 66.7% of the truly relevant user-item pairs" in text
    assert "truly like is liked by 50.0% of them, whereas the most-liked item among the observed ratings reaches 50.0%" in text
    assert text.endswith("The Gini coefficient is 0.00 for the true relevance and 0.00 for the observed likes.")


@pytest.mark.parametrize("names, opening", [
    (["ml-1m"], "MovieLens 1M is available here: its most-liked movie is liked by 50.0% of the users, against 32.7% "
                "published."),
    (["ml-100k"], "MovieLens 1M is not available on the machine that built this page. On `ml-100k` the most-liked "
                  "movie is liked by 50.0% of the users, against 32.7% published for MovieLens 1M;"),
    (["toy"], "No MovieLens dataset was loaded for this page."),
])
def test_dataset_notes_compare_the_movielens_release_at_hand(names: list[str], opening: str) -> None:
    notes = report.dataset_notes(hand_study(*(toy(name) for name in names)))
    assert notes.startswith(opening)
    assert notes.endswith("The HetRec Last.fm release was not loaded for this page.")


def test_dataset_notes_describe_the_lastfm_release() -> None:
    notes = report.dataset_notes(hand_study(toy(), plays()))
    assert ("the most-played artist is liked by 100.0% of its 2 users, against the published 73%. The release lists "
            "1.5 artists per user on average, and 66.7% of these pairs count as positive.") in notes


def test_tables_show_every_collection_under_the_chapters_names() -> None:
    study = hand_study(toy())
    sizes = report.size_table(study)
    assert sizes["collection"].tolist() == ["cranfield", "trec8-adhoc", "toy (this page)"]
    assert sizes["per query"].tolist() == [0.5, 0.5, 1.0]  # 5 of 10, 10 of 20, 4 of 4
    shown = report.spread_table(study).set_index("collection")
    assert list(shown.columns) == [*report.SPREAD_HEADERS.values(), "fixed-list P@2"]
    assert shown.loc["trec8-adhoc", report.SPREAD_HEADERS["head share"]] == pytest.approx(0.1)
    assert shown.loc["cranfield", report.SPREAD_HEADERS["max positives per document"]] == 2
    sweep = report.threshold_table(study)
    assert sweep["threshold"].tolist() == [3, 4, 5] and sweep["share of ratings positive"].tolist()[-1] == 4 / 6


def test_the_published_table_sets_each_number_against_the_collections_it_applies_to() -> None:
    table = report.published_table(hand_study(toy("ml-100k")))
    trec = table.iloc[:2]
    assert trec["ours on"].tolist() == ["trec8-adhoc", "cranfield"] and trec["ours"].tolist() == ["100.0%", "75.0%"]
    assert trec["published"].tolist() == ["87.2%", ""]  # the published side on the first row only
    maximum = table[table["published statistic"].str.startswith("max positives on one document (")].iloc[0]
    assert (maximum["published"], maximum["ours"]) == ("25", "1")
    movielens = table[table["ours on"] == "ml-100k (this page)"]
    assert movielens["ours"].tolist() == ["50.0%"] and movielens["published"].tolist() == ["32.7%"]
    missing = table[table["published statistic"].str.contains("Last.fm|Netflix")]
    assert (missing["ours on"] == "–").all() and (missing["ours"] == "–").all()


def test_a_page_without_the_papers_datasets_shows_none_of_their_values() -> None:
    study = spread.spread_study(datasets.load("synthetic-small", seed=0), seed=0, cutoff=5, compare_all=False)
    shown = report.published_table(study)
    assert (shown.loc[shown["published statistic"].str.startswith("users who like the most-liked item"),
                      "ours on"] == "–").all()
    assert report.prose_values(study)["here"] == "synthetic-small"
    assert f"{study.stats.loc['cranfield', 'queries']:,}" == report.prose_values(study)["cranfield_queries"]
    assert "synthetic-small" in report.truth_text(study)
    assert len(report.threshold_table(study)) == len(study.sweeps)


def test_the_settings_table_gives_a_reason_for_every_departure() -> None:
    table = report.settings_table(hand_study(toy("ml-100k"), toy("world", TRUTH))).set_index("setting")
    assert table.loc["IR collections", "this page"] == "Cranfield and TREC-8"
    assert table.loc["rating datasets", ["this page", "why it differs"]].tolist() == ["ml-100k", "those on this machine"]
    assert table.loc["simulated worlds", "this page"] == "world"
    assert table.loc["positive rating", "this page"] == "≥ 5 on ml-100k, ≥ 5 on world"
    assert table.loc["positive rating", "why it differs"] == ""
    assert "fixed-list P@2" in table.loc["statistics", "this page"]
    shipped = dataclasses.replace(hand_study(toy()), shipped=["cranfield", "trec8-adhoc"], skipped=["ml-1m", "coat"])
    table = report.settings_table(shipped).set_index("setting")
    assert table.loc["IR collections", "this page"].endswith("(from the shipped summary)")
    assert table.loc["rating datasets", "why it differs"] == "those on this machine; not here: ml-1m, coat"
    assert table.loc["simulated worlds", "this page"] == "none"

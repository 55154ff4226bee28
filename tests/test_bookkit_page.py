"""What a page shows first: its dataset in one paragraph, linked to the full card of the appendix."""

from __future__ import annotations

from pathlib import Path

from recbias import datasets
from recbias.bookkit.page import card_summary


def test_the_summary_gives_size_scale_and_what_else_the_data_hold() -> None:
    ratings = datasets.load("synthetic-small", seed=0)
    card = ratings.card()
    text = card_summary(ratings)
    assert text.startswith("**Dataset synthetic-small**: ")
    for row in ("users", "items", "ratings", "density", "rating scale", "positive ratings"):
        assert str(card[row]) in text
    assert "user attributes: " in text and "[datasets appendix](appendix_datasets.html#synthetic-small)" in text
    assert "\n" not in text  # one paragraph, not the thirteen rows of the appendix's card


def test_a_csv_is_summarised_without_a_link_to_the_appendix(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text("user,item,rating\n1,1,5\n1,2,3\n2,1,4\n")
    text = card_summary(datasets.load(f"csv:{path}"))
    assert text.startswith("**Dataset csv:mine.csv**: 2 users, 2 items, 3 ratings") and "appendix" not in text
    assert str(tmp_path) not in text

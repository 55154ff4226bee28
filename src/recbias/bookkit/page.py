"""What every chapter does first: load its dataset, apply the theme, say which data the page reads."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from recbias import datasets
from recbias.bookkit.claims import LEVEL, POLICY
from recbias.bookkit.loading import load_dataset
from recbias.bookkit.scorecard import FINDING, Claim
from recbias.bookkit.plotting import use_theme
from recbias.evaluate.experiment import DesignChoice
from recbias.ratings import Ratings

__all__ = ["card_html", "card_summary", "load_dataset", "open_dataset", "say", "say_findings", "show_text"]


def card_html(ratings: Ratings) -> str:
    """The dataset card as a two-column HTML table."""
    card = ratings.card()
    frame = pd.DataFrame({"": card.index, ratings.name: card.to_numpy()})
    return frame.to_html(index=False, classes="dataset-card", border=0)


def card_summary(ratings: Ratings) -> str:
    """The dataset card in one Markdown paragraph: its size, scale and what it holds beside the ratings; the
    full card of a registered dataset (what a rating is, licence, citation) is linked in the datasets appendix."""
    card = ratings.card()
    extras = [f"{row}: {card[row]}" for row in ("timestamps", "user attributes") if row in card.index]
    text = (f"**Dataset {ratings.name}**: {card['users']} users, {card['items']} items, {card['ratings']} ratings "
            f"(density {card['density']}); rating scale {card['rating scale']}; positive when "
            f"{card['positive threshold']}: {card['positive ratings']} of the ratings")
    text += "; " + "; ".join(extras) + "." if extras else "."
    if ratings.name in datasets.names():
        text += f" What a rating is, the licence and the citation: [datasets appendix](appendix_datasets.html#{ratings.name})."
    return text


def open_dataset(dataset: str, seed: int = 0) -> Ratings:
    """Load the chapter's dataset, set the book's figure theme and show the dataset in one paragraph
    (:func:`card_summary`; the appendix keeps the full cards)."""
    ratings = load_dataset(dataset, seed)
    use_theme()
    display(Markdown(card_summary(ratings)))
    return ratings


def say(name: str, text: str) -> None:
    """Make ``text`` available to the prose as {glue:text}`name`, without showing it here."""
    glue(name, text, display=False)


def say_findings(found: Sequence[Claim]) -> None:
    """Make what each finding says of its outcome available to the prose as {glue:md}`says-<key>`, and the
    book's significance level and multiple-comparison policy as {glue:text}`level` and {glue:md}`policy`."""
    for claim in found:
        if claim.kind == FINDING:
            glue(f"says-{claim.key}", Markdown(claim.sentence), display=False)
    glue("level", f"{LEVEL:g}", display=False)
    glue("policy", Markdown(POLICY), display=False)


def show_text(markdown: str) -> None:
    """Display ``markdown`` as a paragraph of the page; nothing at all when it is empty (a note that
    only some datasets call for)."""
    if markdown.strip():
        display(Markdown(markdown))


def design_note(choice: DesignChoice, ratings: Ratings) -> str:
    """Why the AR designs sample their non-relevant items, or "" when they take all of them."""
    if not choice.sampled:
        return ""
    return (
        f"*{ratings.name}* has {ratings.n_items:,} items: the AN target sets would hold about {choice.an_entries:,} "
        f"items, above `max_an_entries` = {choice.max_an_entries:,}. As the papers did on Last.fm, the AR designs "
        f"sample {choice.n_nonrelevant:,} non-relevant items per user instead (AI-NN and TI-NN)."
    )

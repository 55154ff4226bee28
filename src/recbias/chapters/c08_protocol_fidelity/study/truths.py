"""The chapter's second truth: Coat's ratings of random items by default, or another dataset with a truth.

The truths themselves are read by :mod:`recbias.protocol_study` (a simulated world's complete relevance,
or Coat's random items); a dataset with neither is replaced by a simulated world of its size
(:func:`recbias.synthetic.world_with_truth`).
"""

from __future__ import annotations

from recbias import datasets
from recbias.ratings import Ratings


def second_truth(requested: str, world: Ratings, seed: int = 0) -> Ratings | None:
    """The dataset of the page's second truth: ``requested`` (Coat by default), or the default simulated
    world when ``requested`` is the build's own dataset; None when ``requested`` is empty or its files
    are not available."""
    if not requested:
        return None
    if requested == world.name:
        return datasets.load("synthetic", seed=seed)
    return datasets.load(requested) if datasets.available(requested) else None

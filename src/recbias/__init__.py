"""recbias: biases of offline recommender evaluation, measured and corrected."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recbias.lazy import first_use

if TYPE_CHECKING:
    from recbias.ratings import Ratings
    from recbias.runs import Runs

__version__ = "0.1.0"
__all__ = ["Ratings", "Runs", "__version__"]

# on first use, so that ``import recbias`` alone, as the book's page workers do, loads neither pandas nor scipy
__getattr__, __dir__ = first_use(__name__, {"Ratings": "recbias.ratings", "Runs": "recbias.runs"})

"""recbias: biases of offline recommender evaluation, measured and corrected."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recbias.ratings import Ratings
    from recbias.runs import Runs

__version__ = "0.1.0"
__all__ = ["Ratings", "Runs", "__version__"]


def __getattr__(name: str) -> Any:
    """``Ratings`` and ``Runs`` on first use (PEP 562), so that ``import recbias`` alone, as the book's page
    workers do, loads neither pandas nor scipy."""
    if name == "Ratings":
        from recbias.ratings import Ratings

        return Ratings
    if name == "Runs":
        from recbias.runs import Runs

        return Runs
    raise AttributeError(f"module 'recbias' has no attribute {name!r}")

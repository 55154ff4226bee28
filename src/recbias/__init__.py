"""recbias: biases of offline recommender evaluation, measured and corrected."""

from recbias.ratings import Ratings
from recbias.runs import Runs

__version__ = "0.1.0"
__all__ = ["Ratings", "Runs", "__version__"]

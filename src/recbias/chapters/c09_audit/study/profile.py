"""The bias profile of a dataset: how skewed its popularity is, how positive ratings follow it, how dense it is."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from recbias import datasets, judgments
from recbias.ratings import Ratings
from recbias.synthetic import fit_popularity_curve
from recbias.synthetic.popularity import ALPHA_RANGE
from recbias.synthetic.stand_in import preference_moments

#: profile column -> the page that explains it
EXPLAINED_BY = {"Gini": "04_popularity_bias", "fitted α": "04_popularity_bias", "top-10% share": "04_popularity_bias",
                "positive ratio": "03_sparsity_bias", "positive head/tail": "05_neutralising_designs",
                "density": "03_sparsity_bias", "activity–positive ρ": "08_protocol_fidelity",
                "popularity–positive ρ": "05_neutralising_designs"}


def bias_profile(ratings: Ratings) -> dict[str, float | int | str]:
    """One row: size, density, Gini of the item counts, the exponent α of the shifted power law fitted to them, the
    share of ratings on the most rated tenth of the items, the share of positive ratings, and the positive ratio of
    the most rated tenth of the items over that of the least rated tenth, and the rank correlations between the
    number of ratings and the share of positive ones over users and over items
    (:func:`recbias.synthetic.stand_in.preference_moments`)."""
    users_rho, items_rho = preference_moments(ratings)
    counts = ratings.item_counts()
    ordered = np.sort(counts)[::-1]
    ratio = judgments.positive_ratio_by_popularity(ratings, segments=10)["positive_ratio"].to_numpy()
    return {"dataset": ratings.name, "users": ratings.n_users, "items": ratings.n_items, "ratings": ratings.n_ratings,
            "density": ratings.density, "Gini": judgments.gini(counts), "fitted α": (alpha := fit_popularity_curve(
                counts).alpha), "α at a bound": bool(np.isclose(alpha, ALPHA_RANGE).any()),
            "top-10% share": ordered[: max(1, len(ordered) // 10)].sum() / ordered.sum(),
            "positive ratio": float(ratings.positive.mean()),
            "positive head/tail": ratio[0] / ratio[-1] if ratio[-1] > 0 else float("nan"),
            "activity–positive ρ": float(users_rho), "popularity–positive ρ": float(items_rho)}


def profiles(ratings: Ratings, *, others: bool = True, load: Callable[[str], Ratings] = datasets.load) -> pd.DataFrame:
    """The profile of ``ratings`` and, with ``others``, of every other real dataset at hand
    (:func:`recbias.datasets.available_real`: the simulated presets, up to 20 M ratings, are not drawn)."""
    names = datasets.available_real(besides=ratings.name) if others else []
    return pd.DataFrame([bias_profile(ratings)] + [bias_profile(load(name)) for name in names])

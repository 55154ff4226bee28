"""How much memory an experiment will need at its peak, told from the data's shape before it starts.

An experiment holds, at its peak: the ratings and one fold's training and test sets, the
fitted systems of the fold, the target sets of its sampled (NN) designs, which are drawn
whole, and one user block of every design with its scores, tie-break draws and ranking
work (:func:`recbias.evaluate.experiment.run_experiment` streams the blocks).  Each part
is estimated from sizes known before anything is fitted or built (users, items, ratings,
relevant test ratings, the systems' parameters), with the bytes per element of the
arrays the code allocates, so that a run that cannot fit stops with
:class:`InsufficientMemoryError` at once instead of being killed hours later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recbias.designs import DesignSpec
from recbias.evaluate.scoring import SCORE_BLOCK
from recbias.recommenders import Recommender
from recbias.recommenders._pairs import BLOCK_BUDGET
from recbias.recommenders.als import ALS, IALS
from recbias.recommenders.baselines import ItemScores, Random
from recbias.recommenders.knn import ItemKNN, UserKNN
from recbias.recommenders.plsa import PLSA
from recbias.recommenders.rating_knn import PREDICT_ALL_BUDGET, RatingUserKNN

#: bytes per rating of a Ratings object (user and item codes, value, timestamp)
RATING_BYTES = 4 + 4 + 8 + 8
#: bytes per rating of a cached sparse matrix (value, column index) and of sorted pair keys
CSR_BYTES = 8 + 4
#: bytes per candidate entry of runs: item code, label, grade, judged
RUNS_ENTRY_BYTES = 4 + 1 + 8 + 1
#: bytes per candidate entry while a block is evaluated: its runs, one system's scores, the two
#: tie keys, and the candidates of a design while they are enumerated (int64 items, merge buffers)
BLOCK_ENTRY_BYTES = RUNS_ENTRY_BYTES + 8 + 16 + 16


class InsufficientMemoryError(MemoryError):
    """The estimated peak memory of an experiment exceeds the memory available."""


@dataclass(frozen=True)
class MemoryEstimate:
    """Estimated bytes of each part of an experiment at its peak; ``total`` is their sum."""

    parts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    def describe(self) -> str:
        """``part 1.2 GiB, part 0.3 GiB, ...`` largest first."""
        ordered = sorted(self.parts.items(), key=lambda item: -item[1])
        return ", ".join(f"{label} {gib(size)}" for label, size in ordered)


def gib(size: float) -> str:
    """Bytes written in GiB with one decimal (``"3.5 GiB"``)."""
    return f"{size / 2**30:.1f} GiB"


def model_bytes(recommender: Recommender, n_users: int, n_items: int, n_ratings: int) -> int:
    """Bytes a fitted ``recommender`` keeps (and, for the kNN and EM fits, works with) on
    ``n_ratings`` training ratings of ``n_users`` x ``n_items``.

    Factor models keep float64 factors plus implicit's float32 copies and the confidence
    matrix; pLSA keeps its two aspect matrices and three per-rating arrays during EM;
    user-kNN keeps ``k`` neighbours per user and the rating matrix; the rating-kNN predictor three
    copies of the ratings (centred by user and by item, deviations) and, when they fit
    :data:`~recbias.recommenders.rating_knn.PREDICT_ALL_BUDGET`, every prediction; item-kNN its (at most
    dense) item-item weights; baselines one score per item.  Other systems count as a copy
    of the ratings.
    """
    if isinstance(recommender, (ALS, IALS)):
        return (n_users + n_items) * recommender.factors * (8 + 4) + n_ratings * (CSR_BYTES + 4)
    if isinstance(recommender, PLSA):
        return 4 * (n_users + n_items) * recommender.n_aspects * 8 + n_ratings * (CSR_BYTES + 3 * 8)
    if isinstance(recommender, UserKNN):
        neighbours = n_users if recommender.k is None else min(recommender.k, n_users)
        return n_users * neighbours * CSR_BYTES + n_ratings * 2 * CSR_BYTES + 4 * BLOCK_BUDGET * 8
    if isinstance(recommender, ItemKNN):
        neighbours = n_items if recommender.k_prime is None else min(recommender.k_prime, n_items)
        return 2 * n_items * neighbours * CSR_BYTES + n_ratings * 2 * CSR_BYTES + 4 * BLOCK_BUDGET * 8
    if isinstance(recommender, RatingUserKNN):
        kept = n_users * n_items * 8 if n_users * n_items <= PREDICT_ALL_BUDGET else 0
        return n_ratings * 3 * CSR_BYTES + kept + (n_users + n_items) * 8 + 4 * BLOCK_BUDGET * 8
    if isinstance(recommender, (ItemScores, Random)):
        return n_items * 8
    return n_ratings * RATING_BYTES + (n_users + n_items) * 8


def nn_entries(spec: DesignSpec, relevant_ratings: int, users_with_relevant: int) -> int:
    """Candidate entries of a sampled design: ``k + 1`` per relevant test rating (1R), or ``k`` per
    user with a relevant test rating plus the relevant items (AR); 0 for AN designs, built per block."""
    k = spec.n_nonrelevant
    if k is None:
        return 0
    if spec.relevant == "1R":
        return relevant_ratings * (k + 1)
    return users_with_relevant * k + relevant_ratings


def estimate_experiment(
    shape: tuple[int, int],
    n_ratings: int,
    n_test: int,
    relevant_test: int,
    users_with_relevant: int,
    specs: Sequence[DesignSpec],
    systems: Mapping[str, Recommender],
    block_entries: int,
) -> MemoryEstimate:
    """The peak of :func:`~recbias.evaluate.experiment.run_experiment` on one fold of a dataset of
    ``shape`` and ``n_ratings`` ratings whose test set holds ``n_test`` ratings, ``relevant_test``
    of them relevant, spread over ``users_with_relevant`` users; blocks of ``block_entries``."""
    n_users, n_items = shape
    n_train = n_ratings - n_test
    sampled = sum(nn_entries(spec, relevant_test, users_with_relevant) for spec in specs)
    # each design's plan sorts the split's pair keys and its excluded candidates (int64 each)
    planning = 4 * n_ratings * 8
    return MemoryEstimate({
        "ratings and fold": 2 * n_ratings * RATING_BYTES + n_train * 2 * CSR_BYTES,
        "fitted systems": sum(model_bytes(r, n_users, n_items, n_train) for r in systems.values()),
        "sampled target sets": sampled * RUNS_ENTRY_BYTES,
        "one user block": min(block_entries, n_users * n_items * len(specs)) * BLOCK_ENTRY_BYTES
        + SCORE_BLOCK * 8 + planning,
    })


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (``MemAvailable`` on Linux)."""
    import psutil  # a dependency of the pinned environment (and of dask.distributed)

    return int(psutil.virtual_memory().available)


def check_memory(estimate: MemoryEstimate, available: int | None = None, where: str = "this machine") -> None:
    """Raise :class:`InsufficientMemoryError` when ``estimate`` exceeds ``available`` bytes (default:
    :func:`available_memory`), naming the parts and what would make the run fit."""
    available = available_memory() if available is None else int(available)
    if estimate.total > available:
        raise InsufficientMemoryError(
            f"the experiment would need about {gib(estimate.total)} at its peak ({estimate.describe()}), "
            f"but {where} has {gib(available)} available; lower block_entries, sample fewer non-relevant "
            f"items (NN), drop the largest systems, or run it on a Dask cluster (scheduler=...)"
        )


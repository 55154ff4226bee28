"""What the studies of chapter 4 share: the cut-off, the two designs, the personalised reference system."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from recbias.evaluate import summarize

#: cut-off of P@n throughout, as in the papers, and the metric
N = 10
METRIC = f"P@{N}"

#: the personalised system of the measured-vs-true and per-user studies: today's top-N user-kNN
#: (unnormalised, it sums its neighbours' ratings), not the papers' rating predictor
PERSONALISED = "user-kNN (top-N)"

#: pseudo-ratings of the shrunk mean-rating ordering, and its label
SHRINKAGE = 10.0
SHRUNK_MEAN_RATING = "Mean rating (+{:g})".format(SHRINKAGE)

#: the AR design of the chapter: all test items as candidates, all of them judged
ALL_RELEVANT_DESIGN = "TI-AN"


def one_relevant_design(target_size: int) -> str:
    """The 1R design with ``|T_u^r| = target_size``: the held-out item and ``target_size - 1`` others."""
    return f"1R TI-NN({int(target_size) - 1})"


def precision_summary(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean P@n per group with the papers' run average (IRJ Eq. 1), intervals clustered by user."""
    return summarize(runs, [METRIC], by, average="run")

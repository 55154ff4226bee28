"""Chapter 4 ("The popularity bias"): why popularity wins offline, how skewness drives it, how much is real.

Bellogín, Castells and Cantador (IRJ 2017, Section 5; thesis Section 4.5) explain the strength of
recommending popular items by the split itself: on a random split ``E|PR_test(i)| = sigma |PR(i)|``,
so ranking by training popularity maximises the expected precision of any non-personalised order
(Eq. 3, and in 1R the bounds of :func:`recbias.theory.nonpersonalised_bounds_1r`).  The chapter's
driver is split by job:

* :mod:`~recbias.experiments.popularity_orderings`: popularity against other non-personalised
  orderings on the page's dataset, with the lemma's bounds and the closed forms;
* :mod:`~recbias.experiments.popularity_skew`: the papers' Fig. 5 (left and centre), preference-free
  worlds of growing popularity skew, and the published numbers at ``alpha = 0``;
* :mod:`~recbias.experiments.popularity_ratio`: the papers' Fig. 7, the share of positive ratings
  along the popularity ranking of every real dataset;
* :mod:`~recbias.experiments.popularity_truth`: beyond the papers, measured against true precision on
  simulated worlds, and per-user precision by how mainstream a user's taste is;
* :mod:`~recbias.experiments.popularity_findings`: the scorecard claims;
* this module: what they share (the cut-off, the designs, the personalised reference system).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from recbias.evaluate import summarize

#: where the papers state what this chapter checks
SOURCE = "IRJ 2017 Sec. 5; thesis Sec. 4.5"


#: cut-off of P@n throughout, as in the papers
N = 10


METRIC = f"P@{N}"


#: the personalised system of the measured-vs-true and per-user studies
PERSONALISED = "user-kNN"


#: pseudo-ratings of the shrunk mean-rating ordering
SHRINKAGE = 10.0


def one_relevant_design(target_size: int) -> str:
    """The 1R design with ``|T_u^r| = target_size``: the held-out item and ``target_size - 1`` others."""
    return f"1R TI-NN({int(target_size) - 1})"


#: the AR design of the chapter: all test items as candidates, all of them judged
ALL_RELEVANT_DESIGN = "TI-AN"


def precision_summary(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean P@n per group with the papers' run average (IRJ Eq. 1), intervals clustered by user."""
    return summarize(runs, [METRIC], by, average="run")


def times_text(x: float, reference: float) -> str:
    return f"{x / reference:.1f} times" if reference > 0 else "n/a"

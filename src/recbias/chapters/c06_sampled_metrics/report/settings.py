"""The page's settings against the papers': Krichene and Rendle's toy example and real-data protocol, and the
1R design of IRJ 2017 that the bridge reads, each departure with its reason."""

from __future__ import annotations

import pandas as pd

from recbias.chapters.c06_sampled_metrics.study.bridge import BRIDGE_SIZE, PAPERS_SET
from recbias.chapters.c06_sampled_metrics.study.real_data import (
    LEAVE_LAST_OUT, PAPER_PROTOCOL, SampledStudy, departures,
)
from recbias.chapters.c06_sampled_metrics.study.toy import TOY_M
from recbias.text import fmt_pct

#: the paper's repetitions of its toy example (Table 2)
PAPER_TOY_REPETITIONS = 1000

#: the relevance threshold of IRJ 2017 on MovieLens (a rating of 5)
IRJ_THRESHOLD = 5.0

SAME = "none"
UNSTATED = "not stated by the paper; the choice of this book"
TOY = "toy example (Krichene and Rendle, Table 2)"
KR = "real data (Krichene and Rendle, Sec. 6)"
IRJ = "1R bridge (IRJ 2017, Sec. 3.3)"

REASONS = {
    "dataset": "the dataset of this build (the paper's data: --dataset ml-1m)",
    "split": "this dataset has no timestamps",
    "repetitions": "the parameter repetitions",
}
M_ASKED = "the parameter m"
M_SHRUNK = "fewer than 10 pools hold m = {asked} items, so m is the size of the smallest pool"


def _m_reason(study: SampledStudy) -> str:
    return M_SHRUNK.format(asked=study.m_requested) if study.m != study.m_requested else M_ASKED


def settings_table(study: SampledStudy, toy_repetitions: int, threshold: float) -> pd.DataFrame:
    """One row per (experiment, setting) of the three experiments the page repeats: the paper's value, this
    build's, and the departure with its reason (``none`` where they agree)."""
    departs = departures(study)
    law = "with replacement (binomial)" if study.replace else "without replacement (hypergeometric)"
    split = "each user's last event" if study.split == LEAVE_LAST_OUT else "one event per user, at random"
    rows = [
        (TOY, "sampling", f"m = {TOY_M}, with replacement, {PAPER_TOY_REPETITIONS:,} repetitions",
         f"m = {TOY_M}, with replacement, {toy_repetitions:,} repetitions",
         SAME if toy_repetitions == PAPER_TOY_REPETITIONS else "the parameter toy_repetitions"),
        (KR, "data", "MovieLens 1M, every rating an event", f"{study.dataset}, every rating an event",
         REASONS["dataset"] if "dataset" in departs else SAME),
        (KR, "held-out item", "each user's last event", split, REASONS["split"] if "split" in departs else SAME),
        (KR, "pool", "the items without a training event of the user", "the same", SAME),
        (KR, "systems", "X (iALS), Y and Z (item-kNN), the appendix's settings", "the same settings, the package's "
         "implementations", SAME),
        (KR, "sampled items m", f"{PAPER_PROTOCOL['m']}", f"{study.m}", _m_reason(study) if "m" in departs else SAME),
        (KR, "sampling law", "not stated", law, UNSTATED),
        (KR, "repetitions", f"{PAPER_PROTOCOL['repetitions']}", f"{study.repetitions:,}",
         REASONS["repetitions"] if "repetitions" in departs else SAME),
        (KR, "ties in scores", "not stated", "one random order of the items per user, shared by X, Y and Z", UNSTATED),
        (KR, "n of the corrections", "not stated (n differs per user)",
         f"one per group of users whose n lie within {fmt_pct(study.n_tolerance, 0)}, at the group's median", UNSTATED),
        (IRJ, "splits", "5 coin-flip 80/20 splits", "the first of them", "the bridge reads one draw of the runs, "
         "whose spread over draws it computes exactly"),
        (IRJ, "1R target set", "TI-NN, |T_u| = 100 (99 sampled)", f"TI-NN, |T_u| = {BRIDGE_SIZE + 1} ({BRIDGE_SIZE} "
         "sampled)", f"m = {BRIDGE_SIZE}, as in Krichene and Rendle, so that their corrections apply unchanged"),
        (IRJ, "relevant", f"a test rating of {IRJ_THRESHOLD:g} (MovieLens)", f"a test rating ≥ {threshold:g}",
         SAME if threshold == IRJ_THRESHOLD else "the positive threshold of this dataset"),
        (IRJ, "systems", "Random, Popularity, pLSA, rating-prediction MF and user-kNN", ", ".join(PAPERS_SET), SAME),
    ]
    table = pd.DataFrame(rows, columns=["experiment", "setting", "paper's value", "this build", "departure"])
    return table.set_index(["experiment", "setting"]).rename_axis([None, None])

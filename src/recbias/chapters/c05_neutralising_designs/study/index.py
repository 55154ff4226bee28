"""Where each design and metric puts popularity: ``index = (M_pop - M_rnd) / (max_s M_s - M_rnd)``, ``s`` over
the personalised systems of one set, is 0 at random's level and 1 at the best personalised system's.

:func:`popularity_index` computes it for the designs of the papers' Fig. 8, the metrics of their Fig. 9 and the
later IPS and SNIPS estimators, :func:`sweep_index` over the exponent of stratified recall and of the
propensities.  :func:`mean_draws`, :func:`index_draws` and :func:`lead_draws` average every design and system
again on the same resamples of users, so that two designs (on different splits of the same users) or two
systems are compared draw by draw.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.chapters.c05_neutralising_designs.study.designs import PAPERS, PERSONALISED, DatasetStudy, design_summary
from recbias.evaluate.popularity_index import popularity_index as index_value
from recbias.evaluate.statistics import UserBootstrap

#: the metric and design behind every row of the popularity-index figure: (row, design label, metric)
INDEX_ROWS: tuple[tuple[str, str, str], ...] = (
    ("AR, P@10", "AR TI-AN", "P@10"),
    ("1R, P@10", "1R", "P@10"),
    ("1R -10% head, P@10", "1R -head", "P@10"),
    ("P1R, P@10", "P1R", "P@10"),
    ("U1R, P@10", "U1R", "P@10"),
    ("UAR, P@10", "UAR", "P@10"),
    ("AI-UAR, P@10", "AI-UAR", "P@10"),
    ("AR, bpref", "AR TI-AN", "bpref"),
    ("AR, infAP", "AR TI-AN", "infAP"),
    ("1R, infAP", "1R -NR", "infAP"),
    ("AR, stratified recall (γ = 1)", "AR TI-AN", "PSR@10(gamma=1)"),
    ("1R, stratified recall (γ = 1)", "1R -NR", "PSR@10(gamma=1)"),
    ("AR, IPS-P@10 (β = 0.5)", "AR TI-AN", "IPS-P@10(power=0.5)"),
    ("AR, SNIPS-P@10 (β = 0.5)", "AR TI-AN", "SNIPS-P@10(power=0.5)"),
    ("AR, SNIPS-Recall@10 (β = 0.5)", "AR TI-AN", "SNIPS-Recall@10(power=0.5)"),
)
#: the metrics of the papers' Fig. 9
FIG9 = ("bpref", "infAP", "PSR@10(gamma=1)")
#: the estimator families of the sweep, in the order they are drawn, with their display names
FAMILIES = {"PSR": "stratified recall", "IPS-P": "IPS-P@10", "SNIPS-P": "SNIPS-P@10", "IPS-Recall": "IPS-Recall@10",
            "SNIPS-Recall": "SNIPS-Recall@10"}


def popularity_index(studies: Sequence[DatasetStudy], rows: Sequence[tuple[str, str, str]] = INDEX_ROWS,
                     sets: dict[str, tuple[str, ...]] = PERSONALISED) -> pd.DataFrame:
    """Where each design and metric puts Popularity between Random (0) and the best personalised system (1)
    of each set of systems, on each study in turn.

    ``index = (M_pop - M_rnd) / (max_s M_s - M_rnd)`` over the personalised systems ``s`` of a set (``sets``:
    its name -> its systems, the ``set`` column); negative below random, above 1 when popularity beats every
    personalised system.  ``best system`` names the best personalised system, or reads "tie" when several
    share the best value.  Rows follow ``rows`` within each set, the sets in their order.
    """
    metrics = list(dict.fromkeys(m for _, _, m in rows))
    out = []
    for study in studies:
        designs = {study.designs[label] for _, label, _ in rows}
        means = design_summary(study.runs, metrics, study.runs["design"].isin(designs))
        means = means.set_index(["design", "metric", "system"])["mean"].sort_index()
        for (name, systems), (row, label, metric) in ((s, r) for s in sets.items() for r in rows):
            cell = means.loc[(study.designs[label], metric)]
            personalised = cell[list(systems)]
            best = personalised.max()
            out.append({"dataset": study.name, "set": name, "method": row, "design": study.designs[label],
                        "metric": metric, "Popularity": cell["Popularity"], "Random": cell["Random"],
                        "best personalised": best,
                        "best system": personalised.idxmax() if (personalised == best).sum() == 1 else "tie",
                        "index": index_value(cell["Popularity"], cell["Random"], best)})
    return pd.DataFrame(out)


def sweep_index(studies: Sequence[DatasetStudy], gammas: Sequence[float], powers: Sequence[float]) -> pd.DataFrame:
    """The popularity index of stratified recall over ``gamma`` and of IPS/SNIPS over the power (AR TI-AN) on
    each study, against the papers' set, with each row's ``family``, ``parameter`` and propensity exponent
    ``beta``."""
    rows = [(f"PSR γ={g:g}", "AR TI-AN", f"PSR@10(gamma={g:g})") for g in gammas]
    rows += [(f"{e}-{m} β={b:g}", "AR TI-AN", f"{e}-{m}@10(power={b:g})")
             for e in ("IPS", "SNIPS") for m in ("P", "Recall") for b in powers]
    table = popularity_index(studies, rows, {PAPERS: PERSONALISED[PAPERS]})
    table["family"] = [m.split("@")[0] for m in table["metric"]]
    table["parameter"] = [float(m.split("=")[1].rstrip(")")) for m in table["metric"]]
    # stratified recall's weight |PR(i)|^(-gamma/(gamma+1)) is a propensity weight with beta = gamma/(gamma+1)
    strata = table["family"] == "PSR"
    table["beta"] = np.where(strata, table["parameter"] / (table["parameter"] + 1), table["parameter"])
    table.loc[strata & np.isinf(table["parameter"]), "beta"] = 1.0
    return table



def mean_draws(study: DatasetStudy, metric: str = "P@10", *, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """Mean ``metric`` per (design label, system): column 0 the full sample, columns ``1..n_boot`` the user
    resamples.  P1R averages its percentiles and every other design its runs, as :func:`.designs.design_summary`
    does (a single group is its run average)."""
    boot = UserBootstrap(study.runs["user"].to_numpy(), n_boot, seed)
    cells = boot.means(study.runs, metric, ["label", "system", "group"], average="run")
    return cells.groupby(level=["label", "system"], sort=False, observed=True).mean()


def index_draws(means: pd.DataFrame, labels: Sequence[str], personalised: Sequence[str]) -> pd.DataFrame:
    """The popularity index ``(M_pop - M_rnd) / (max_s M_s - M_rnd)`` of each design label (rows) in every
    column of ``means`` (:func:`mean_draws`), ``s`` over ``personalised``."""
    rows = {}
    for label in labels:
        cell = means.loc[label]
        random = cell.loc["Random"].to_numpy()
        best = cell.loc[list(personalised)].to_numpy().max(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            rows[label] = (cell.loc["Popularity"].to_numpy() - random) / (best - random)
    return pd.DataFrame(rows, index=means.columns).T


def lead_draws(means: pd.DataFrame, labels: Sequence[str], leader: str, rivals: Sequence[str]) -> pd.DataFrame:
    """``leader``'s mean minus the best of ``rivals`` under each design label (rows), in every column of
    ``means``."""
    return pd.DataFrame({label: means.loc[(label, leader)].to_numpy()
                         - means.loc[label].loc[list(rivals)].to_numpy().max(axis=0) for label in labels},
                        index=means.columns).T

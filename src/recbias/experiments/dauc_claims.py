"""Chapter 7 ("The user-behaviour discounted AUC"): the paper's numbers and claims, checked on the build.

:func:`published_numbers` sets the paper's two numbers that our data can estimate (the short head's
share of the unpenalised metric, the ratings that gender and age are worth) against ours, and
:func:`findings` checks its qualitative claims, and on a simulated world the chapter's own question
of agreement with the truth; both go to the book's scorecard.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.experiments.dauc_new_users import NewUserStudy
from recbias.experiments.dauc_short_head import SensitivitySearch
from recbias.experiments.dauc_systems import mishits_matter
from recbias.experiments.discounted_auc import SOURCE, published
from recbias.text import fmt_pct


def published_table(shares: pd.DataFrame | None, new_users: NewUserStudy | None) -> pd.DataFrame:
    """Each published number next to ours on this build (``–`` where this build has no estimate)."""
    ours = {row["key"]: row["ours"] for row in published_numbers(shares, new_users, "")}
    table = published()
    shown = {key: (lambda v: fmt_pct(v, 0)) if key.endswith("share") else (lambda v: f"{v:g}") for key in table["key"]}
    return pd.DataFrame({
        "statistic": table["statistic"], "paper (Imhonet)": [shown[k](v) for k, v in zip(table["key"], table["value"])],
        "this build": [shown[k](ours[k]) if k in ours else "–" for k in table["key"]],
    })


def published_numbers(shares: pd.DataFrame | None, new_users: NewUserStudy | None, dataset: str) -> list[dict]:
    """Scorecard arguments for the published numbers we have an estimate of on this build."""
    headline = None if new_users is None else new_users.headline
    ours = {
        "short-head-share": (None if shares is None else
                             float(shares[shares["system"] != "Random"]["short-head share"].median())),
        "demographics-worth-ratings": None if headline is None else float(headline["crossing"]),
    }
    return [
        {"key": row.key, "label": row.statistic, "ours": ours[row.key], "paper": row.value, "tolerance": row.tolerance,
         "source": row.source, "dataset": dataset, "paper_dataset": row.paper_dataset, "note": row.note}
        for row in published().itertuples()
        if ours.get(row.key) is not None and np.isfinite(ours[row.key])
    ]


def findings(
    effect: pd.DataFrame,
    search: SensitivitySearch | None,
    shares: pd.DataFrame | None,
    new_users: NewUserStudy | None,
    agreement: pd.DataFrame | None = None,
) -> list[dict]:
    """The claims checked on this build: ``key``, ``label``, ``holds``, ``evidence``, ``anchor`` and ``source``
    (the paper's claims, and on a simulated world the chapter's question of agreement with the truth)."""
    checked = []
    reorders, large, worst = mishits_matter(effect)
    checked.append({
        "key": "mishits-are-negligible", "anchor": "tbl-dauc-mishits",
        "label": "mishits (recommended items rated negatively) are too rare to change the metric much",
        "holds": not (reorders or large),
        "evidence": f"counting each mishit as −1 lowers {worst['system']}'s value by {-worst['change']:.0%} and "
                    + ("reorders" if reorders else "keeps the order of") + " the systems; the claim holds if no "
                    "personalised system moves by more than 10% and the order stays",
    })
    if search is not None:
        curve = search.curve.set_index("s")
        checked.append({
            "key": "step-increases-sensitivity", "anchor": "fig-dauc-search",
            "label": "the short-head step increases the metric's sensitivity to user information",
            "holds": bool(search.chosen > 0 and curve.loc[search.chosen, "sensitivity"] > curve.loc[0, "sensitivity"]),
            "evidence": f"mean increase over its resampling standard deviation: {curve.loc[0, 'sensitivity']:.1f} "
                        f"without the step, {curve.loc[search.chosen, 'sensitivity']:.1f} at s = {search.chosen}",
        })
    if shares is not None:
        personal_shares = shares[shares["system"] != "Random"]
        checked.append({
            "key": "short-head-dominates", "anchor": "tbl-dauc-head",
            "label": "the short head supplies most of the unpenalised rating-sum metric",
            "holds": bool((personal_shares["short-head share"] > 0.5).all()),
            "evidence": "share from the step's items: " + ", ".join(
                f"{system} {share:.0%}" for system, share in zip(personal_shares["system"],
                                                                 personal_shares["short-head share"], strict=True)),
        })
    if new_users is not None and new_users.headline is not None:
        row = new_users.headline
        checked.append({
            "key": "demographics-worth-a-handful", "anchor": "fig-dauc-new-users",
            "label": "for new users, gender and age are worth a handful of ratings (the paper: about 5)",
            "holds": bool(2 <= row["crossing"] <= 10),
            "evidence": (f"{row['system']} overtakes the demographic list from k = {row['crossing']:g} known "
                         f"rating{'s' if row['crossing'] > 1 else ''}"
                         if np.isfinite(row["crossing"]) else f"{row['system']} never overtakes the demographic list")
                        + f" ({row['metric']}); a handful counts as 2 to 10",
        })
    checked = [claim | {"source": SOURCE} for claim in checked]
    if agreement is not None:
        tau = agreement.groupby("observed metric", sort=False)["tau"].mean()
        baseline = tau[["P@10", "nDCG@10"]].max()
        for name in [n for n in tau.index if n.startswith("behavioural AUC")]:
            checked.append({
                "key": "closer-to-truth-" + ("with-step" if "step at" in name else "no-step"),
                "anchor": "tbl-dauc-truth", "source": "recbias chapter 7",
                "label": f"the {name} orders systems closer to their true order than P@10 and nDCG@10",
                "holds": bool(tau[name] > baseline),
                "evidence": f"mean Kendall's τ over three truths: {tau[name]:.2f}, against {baseline:.2f} for the "
                            "better of P@10 and nDCG@10",
            })
    return checked

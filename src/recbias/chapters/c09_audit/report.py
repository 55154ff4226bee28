"""The audit page's tables, the values its advice and its protocol card quote, and its JSON summary."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

import recbias
from recbias.chapters.c09_audit.study.measure import Measured
from recbias.chapters.c09_audit.study.profile import EXPLAINED_BY
from recbias.chapters.c09_audit.study.protocols import EXPLAINED_IN
from recbias.chapters.c09_audit.study.recommend import Recommendation, StandInFidelity
from recbias.protocol_study import Protocol
from recbias.text import and_list, fmt_ci, fmt_number, fmt_pct, fmt_yes


def doc_link(page: str) -> str:
    """An HTML link to a chapter of the book (tables are glued as HTML, where MyST roles do not apply)."""
    return f'<a href="{page}.html">chapter {int(page[:2])}</a>'


#: how each number of the profile is written
PROFILE_FORMATS = {"users": "{:,}", "items": "{:,}", "ratings": "{:,}", "density": "{:.4f}", "Gini": "{:.3f}",
                   "fitted α": "{:.2f}", "top-10% share": "{:.3f}", "positive ratio": "{:.3f}",
                   "positive head/tail": "{:.2f}"}


def profile_table(profiles: pd.DataFrame) -> pd.DataFrame:
    """One row per number, one column per dataset (the audited one first, in bold), and the chapter that explains
    each number."""
    columns = [f"<b>{name}</b> (audited)" if k == 0 else name for k, name in enumerate(profiles["dataset"])]
    rows = {number: [fmt.format(v) if pd.notna(v) else "–" for v in profiles[number]]
            for number, fmt in PROFILE_FORMATS.items() if number in profiles.columns}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=columns).rename_axis("number").reset_index()
    table["explained in"] = [doc_link(EXPLAINED_BY[n]) if n in EXPLAINED_BY else "" for n in table["number"]]
    return table


def scores_table(measured: Measured) -> pd.DataFrame:
    """Protocol x system: ``mean [ci_low, ci_high]``, with the protocol's share of relevant candidates."""
    summary = measured.summary()
    cells = summary.assign(cell=[f"{m:.4f}<br><small>[{lo:.4f}, {hi:.4f}]</small>" for m, lo, hi in
                                 zip(summary["mean"], summary["ci_low"], summary["ci_high"], strict=True)])
    table = cells.pivot(index="protocol", columns="system", values="cell").reindex(
        index=measured.relevant_share.index, columns=pd.unique(summary["system"])).rename_axis("protocol")
    table.insert(0, "relevant share", measured.relevant_share.map("{:.4f}".format))
    return table.reset_index()


def protocols_table(plan: list[Protocol], measured: Measured) -> pd.DataFrame:
    """What each protocol is: design, metric, split, correction and the chapter that explains it."""
    return pd.DataFrame([{"protocol": p.label, "design": p.design, "metric": p.metric, "split": p.split,
                          "correction": p.correction or "", "explained in": doc_link(EXPLAINED_IN[p.label])}
                         for p in measured.kept(plan)])


def commit() -> str:
    """The short commit of the package's checkout, or ``"unknown"``."""
    try:
        return subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=Path(recbias.__file__).parent,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def card_values(plan: list[Protocol], measured: Measured, *, dataset: str, seed: int, test_ratio: float,
                systems: list[str]) -> dict[str, str]:
    """The values of the evaluation protocol card, which the page quotes in its card and its paragraph."""
    kept = measured.kept(plan)
    splits = ", ".join(f"{name} ({len(fold.train):,} training / {len(fold.test):,} test ratings)"
                       for name, fold in measured.splits.items())
    return {"data": dataset, "systems": ", ".join(systems),
            "designs": "; ".join(f"{p.label}: {p.design}" + (f" ({p.correction})" if p.correction else "")
                                 for p in kept),
            "metrics": ", ".join(dict.fromkeys(p.metric for p in kept)), "split": splits,
            "split-names": and_list(list(measured.splits)), "test-ratio": f"{test_ratio:g}",
            "held-out": f"{test_ratio:.0%}", "seed": str(seed), "protocol-count": str(len(kept)),
            "protocols": and_list([p.label for p in kept]), "users": f"{measured.summary()['users'].max():,}",
            "software": f"recbias {recbias.__version__}, commit {commit()}"}


def fidelity_table(fidelity: StandInFidelity, recommendation: Recommendation | None) -> pd.DataFrame:
    """Each protocol's Kendall τ with the true order on the stand-in world (95% interval over users below it), its
    rank, whether the paired resamples tell it from the most faithful one, and the protocol to report in bold."""
    table = fidelity.table
    tied, chosen = (recommendation.tied, recommendation.protocol) if recommendation is not None else ([], None)
    taus = [fmt_ci(t, (lo, hi)) for t, lo, hi in zip(table["tau"], table["tau_low"], table["tau_high"], strict=True)]
    return pd.DataFrame({"protocol": [f"<b>{p}</b>" if p == chosen else p for p in table["protocol"]],
                         "τ with the truth": taus, "rank": table["rank"].astype(str).tolist(),
                         "within noise of the best": [fmt_yes(p in tied) for p in table["protocol"]]})


def _named(protocols: Sequence[str]) -> str:
    """Protocol labels in italics, joined as a list (the labels hold commas of their own); "none" for no label."""
    return and_list([f"*{p}*" for p in protocols]) if protocols else "none"


def advice_values(recommendation: Recommendation | None, fidelity: StandInFidelity, share: pd.DataFrame,
                  caveats: dict[str, Any]) -> dict[str, str]:
    """The values the page's advice quotes, in Markdown, from the recommendation, its caveats (:mod:`.study.recommend`)
    and its row of the popularity ``share``; "none" or "–" where there is nothing to name."""
    values = dict.fromkeys(["closest", "tied", "behind", "report", "furthest", "companion", "lifts"], "none")
    values |= dict.fromkeys(["closest-tau", "furthest-tau", "popularity-index", "reversed-count"], "–")
    values["world"] = fidelity.world or "none"
    if recommendation is not None:
        table = fidelity.table
        values |= {"closest": _named(table.loc[table["rank"] == 1, "protocol"].tolist()),
                   "closest-tau": fmt_number(table["tau"].iloc[0], 2), "tied": _named(recommendation.tied[1:]),
                   "behind": _named([p for p in table["protocol"] if p not in recommendation.tied]),
                   "report": _named([recommendation.protocol])}
    if caveats:
        row = share.loc[recommendation.protocol]
        lifts = [f"{name.removesuffix(' / Popularity')} {fmt_number(lift, 2)}×" for name, lift in row.drop(
            "popularity index").items()]
        values |= {"reversed-count": str(len(caveats["reversed_pairs"])),
                   "popularity-index": fmt_pct(row["popularity index"], 0), "lifts": and_list(lifts) if lifts else
                   "none audited", "companion": _named([caveats["companion"]] if caveats["companion"] else [])}
        if caveats["furthest"] is not None:
            other, tau = caveats["furthest"]
            values |= {"furthest": _named([other]), "furthest-tau": fmt_number(tau, 2)}
    return values


def reversals_table(caveats: dict[str, Any]) -> pd.DataFrame:
    """The pairs of systems the protocol to report orders and other protocols reverse, with those protocols."""
    pairs = caveats.get("reversed_pairs", pd.DataFrame(columns=["above", "below", "reversed under"]))
    return pairs.assign(**{"reversed under": [", ".join(others) for others in pairs["reversed under"]]})


def write_summary(path: str | Path, measured: Measured, profiles: pd.DataFrame, share: pd.DataFrame,
                  tau: pd.DataFrame, flips: pd.DataFrame, card: dict[str, str], fidelity: StandInFidelity,
                  recommendation: Recommendation | None) -> None:
    """The audit's numbers as JSON, written atomically to ``path``."""
    path = Path(path)
    stand_in = {"world": fidelity.world, "shape": fidelity.shape, "refused": fidelity.refused,
                "truth": fidelity.truth_metric, "systems": fidelity.systems,
                "fidelity": fidelity.table.drop(columns=["tau_draws"], errors="ignore").to_dict(orient="records"),
                "recommended": None if recommendation is None else recommendation.protocol,
                "within_noise_of_best": [] if recommendation is None else recommendation.tied}
    content = {"summary": measured.summary().to_dict(orient="records"),
               "relevant_share": measured.relevant_share.to_dict(), "profiles": profiles.to_dict(orient="records"),
               "popularity": share.reset_index().to_dict(orient="records"), "kendall_tau": tau.to_dict(),
               "flipped_pairs": flips.to_dict(orient="records"), "card": card, "stand_in": stand_in}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(content, indent=1, default=float))
    os.replace(temporary, path)

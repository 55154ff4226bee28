"""The audit page's tables, its protocol card and its JSON summary."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

import recbias
from recbias.chapters.c09_audit.study.measure import Measured
from recbias.chapters.c09_audit.study.profile import EXPLAINED_BY
from recbias.chapters.c09_audit.study.protocols import AuditProtocol
from recbias.text import and_list


def doc_link(page: str) -> str:
    """An HTML link to a chapter of the book (tables are glued as HTML, where MyST roles do not apply)."""
    return f'<a href="{page}.html">chapter {int(page[:2])}</a>'


def explained_by() -> pd.DataFrame:
    """Each number of the profile with the chapter that explains it."""
    return pd.DataFrame({"number": list(EXPLAINED_BY), "explained in": [doc_link(p) for p in EXPLAINED_BY.values()]})


def profile_table(profiles: pd.DataFrame) -> pd.DataFrame:
    """The profiles, the audited dataset first and marked."""
    table = profiles.copy()
    table.loc[0, "dataset"] = f"<b>{table.loc[0, 'dataset']}</b> (audited)"
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


def protocols_table(plan: list[AuditProtocol], measured: Measured) -> pd.DataFrame:
    """What each protocol is: design, metric, split, correction and the chapter that explains it."""
    kept = [p for p in plan if p.label in measured.relevant_share.index]
    return pd.DataFrame({"protocol": [p.label for p in kept], "design": [p.design for p in kept],
                         "metric": [p.metric for p in kept], "split": [p.split for p in kept],
                         "correction": [p.correction or "" for p in kept],
                         "explained in": [doc_link(p.chapter) for p in kept]})


def commit() -> str:
    """The short commit of the package's checkout, or ``"unknown"``."""
    try:
        return subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=Path(recbias.__file__).parent,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def card_table(plan: list[AuditProtocol], measured: Measured, *, dataset: str, seed: int, test_ratio: float,
               systems: list[str]) -> pd.DataFrame:
    """The evaluation protocol card as a two-column table ready to paste."""
    kept = [p for p in plan if p.label in measured.relevant_share.index]
    designs = "; ".join(f"{p.label}: {p.design}" + (f" ({p.correction})" if p.correction else "") for p in kept)
    splits = ", ".join(f"{name} ({len(fold.train):,} training / {len(fold.test):,} test ratings)"
                       for name, fold in measured.splits.items())
    rows = {"data": dataset, "systems": ", ".join(systems), "designs": designs,
            "candidate policy": "test items (TI) or all items (AI) not rated in training; NN(k) samples k per run",
            "metrics": ", ".join(dict.fromkeys(p.metric for p in kept)),
            "split": f"{splits}; test ratio {test_ratio:g}", "seeds": f"{seed} (splits, samples, ties)",
            "intervals": "95%, users as the unit", "software": f"recbias {recbias.__version__}, commit {commit()}"}
    return pd.DataFrame({"field": list(rows), "value": list(rows.values())})


def card_paragraph(plan: list[AuditProtocol], measured: Measured, *, dataset: str, seed: int,
                   test_ratio: float) -> str:
    """The protocol card as one paragraph."""
    kept = [p.label for p in plan if p.label in measured.relevant_share.index]
    users = measured.summary()["users"].max()
    return (f"We evaluate on {dataset} with a random split holding out {test_ratio:.0%} of the ratings "
            f"(seed {seed}){' and a split with uniform test item profiles' if 'uniform' in measured.splits else ''}. "
            f"Each system ranks its candidates under {len(kept)} protocols ({and_list(kept)}); "
            f"we report means over runs with 95% intervals that treat the user as the unit (up to {users:,} users), "
            f"beside Random and Popularity, computed with recbias {recbias.__version__} (commit {commit()}).")


def flips_sentence(flips: pd.DataFrame) -> str:
    """How many pairs of systems some protocols reverse."""
    if flips.empty:
        return "Every protocol orders the systems the same way."
    pairs = and_list([f"{a} and {b}" for a, b in zip(flips["first"], flips["second"], strict=True)])
    return f"{len(flips)} pair(s) of systems change order with the protocol: {pairs}."


def write_summary(path: str | Path, measured: Measured, profiles: pd.DataFrame, share: pd.DataFrame,
                  tau: pd.DataFrame, flips: pd.DataFrame, card: pd.DataFrame) -> None:
    """The audit's numbers as JSON, written atomically to ``path``."""
    path = Path(path)
    content = {"summary": measured.summary().to_dict(orient="records"),
               "relevant_share": measured.relevant_share.to_dict(),
               "profiles": profiles.to_dict(orient="records"), "popularity": share.reset_index().to_dict(orient="records"),
               "kendall_tau": tau.to_dict(), "flipped_pairs": flips.to_dict(orient="records"),
               "card": dict(zip(card["field"], card["value"], strict=True))}
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        json.dump(content, stream, indent=1, default=float)
    os.replace(temporary, path)

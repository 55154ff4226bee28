"""The audit page's tables, the values its advice and its protocol card quote, and its JSON summary (whose fields
``summary.schema.json`` beside this module describes, :data:`SUMMARY_SCHEMA`)."""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import recbias
from recbias.chapters.c09_audit.claims import WORLD_AT_BOUND
from recbias.chapters.c09_audit.study.measure import Measured
from recbias.chapters.c09_audit.study.profile import EXPLAINED_BY
from recbias.chapters.c09_audit.study.protocols import explained_in
from recbias.chapters.c09_audit.study.recommend import Recommendation, TruthFidelity
from recbias.evaluate.fidelity import paired_pvalue
from recbias.protocol_study import LABEL_SEPARATOR, Protocol
from recbias.splits import SPLITS
from recbias.synthetic.stand_in import at_bound
from recbias.text import and_list, fmt_number, fmt_pct, fmt_span, fmt_yes

#: the JSON Schema of the summary the audit writes; its ``version`` is the one :func:`write_summary` writes
SUMMARY_SCHEMA = Path(__file__).with_name("summary.schema.json")
SUMMARY_VERSION: int = json.loads(SUMMARY_SCHEMA.read_text())["properties"]["version"]["const"]


def doc_link(page: str) -> str:
    """An HTML link to a chapter of the book (tables are glued as HTML, where MyST roles do not apply)."""
    return f'<a href="{page}.html">chapter {int(page[:2])}</a>'


#: how each number of the profile is written
PROFILE_FORMATS = {"users": "{:,}", "items": "{:,}", "ratings": "{:,}", "density": "{:.4f}", "Gini": "{:.3f}",
                   "fitted α": "{:.2f}", "top-10% share": "{:.3f}", "positive ratio": "{:.3f}",
                   "positive head/tail": "{:.2f}", "activity–positive ρ": "{:.2f}", "popularity–positive ρ": "{:.2f}"}


def profile_table(profiles: pd.DataFrame) -> pd.DataFrame:
    """One row per number, one column per dataset (the audited one first, in bold), and the chapter that explains
    each number; empty for no profile."""
    if profiles.empty:
        return pd.DataFrame()
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
    pages = explained_in(plan)
    return pd.DataFrame([{"protocol": p.label, "design": p.design, "metric": p.metric, "split": p.split,
                          "correction": p.correction or "", "explained in": doc_link(pages[p.label])}
                         for p in measured.kept(plan)])


def commit() -> str:
    """The short commit of the package's checkout, or ``"unknown"``."""
    try:
        return subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=Path(recbias.__file__).parent,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def split_rows(measured: Measured) -> list[dict[str, Any]]:
    """Every split the package offers (:data:`recbias.splits.SPLITS`): ``name``, ``words``, the ``function`` that
    draws it, whether the audit ``used`` it, and then its ``train_ratings`` and ``test_ratings`` (else None)."""
    rows = []
    for name, (words, function) in SPLITS.items():
        fold = measured.splits.get(name)
        rows.append({"name": name, "words": words, "function": f"{function.__module__}.{function.__name__}",
                     "used": fold is not None, "train_ratings": None if fold is None else len(fold.train),
                     "test_ratings": None if fold is None else len(fold.test)})
    return rows


def card_values(plan: list[Protocol], measured: Measured, *, dataset: str, seed: int, test_ratio: float,
                systems: list[str]) -> dict[str, str]:
    """The values of the evaluation protocol card, which the page quotes in its card and its paragraph; its
    ``split`` names the splits the data were evaluated with among every split the package offers."""
    kept = measured.kept(plan)
    splits = split_rows(measured)
    used, unused = [row for row in splits if row["used"]], [row["words"] for row in splits if not row["used"]]
    sizes = [f"{row['words']} ({row['train_ratings']:,} training / {row['test_ratings']:,} test ratings)"
             for row in used]
    split = f"used: {and_list(sizes)}" + (f"; offered, not used: {and_list(unused)}" if unused else "")
    return {"data": dataset, "systems": ", ".join(systems),
            "designs": "; ".join(f"{p.label}: {p.design}" + (f" ({p.correction})" if p.correction else "")
                                 for p in kept),
            "metrics": ", ".join(dict.fromkeys(p.metric for p in kept)), "split": split,
            "split-names": and_list([row["words"] for row in used]), "test-ratio": f"{test_ratio:g}",
            "held-out": f"{test_ratio:.0%}", "seed": str(seed), "protocol-count": str(len(kept)),
            "protocols": and_list([p.label for p in kept]), "users": f"{measured.summary()['users'].max():,}",
            "software": f"recbias {recbias.__version__}, commit {commit()}"}


#: what each parameter of a stand-in world fitted to the data copies from them
FITTED_COPIES = {"alpha": "the popularity skew", "selection": "the observation bias",
                 "quality_popularity": "the tie between quality and popularity"}


def world_bounds(shape: dict[str, Any]) -> str:
    """The page's sentence on the parameters of a stand-in world's ``shape`` fitted at an end of their range
    (:func:`recbias.synthetic.stand_in.at_bound`), or ``""`` when none is."""
    if not (names := at_bound(shape)):
        return ""
    return WORLD_AT_BOUND.format(listed=and_list([f"{FITTED_COPIES[name]} ({name} = {shape[name]:.2f})"
                                                  for name in names]))


def fidelity_table(fidelity: TruthFidelity, recommendation: Recommendation | None) -> pd.DataFrame:
    """Each protocol's Kendall τ with the true order (on the data's own truth or the stand-in world), the middle 95% of its τ over resampled
    users (a spread, not an interval centred on τ: resampling blurs close systems and pulls τ down), its rank,
    whether the paired resamples tell it from the most faithful one, and the protocol to report in bold."""
    table = fidelity.table
    tied, chosen = (recommendation.tied, recommendation.protocol) if recommendation is not None else ([], None)
    return pd.DataFrame({"protocol": [f"<b>{p}</b>" if p == chosen else p for p in table["protocol"]],
                         "τ with the truth": [fmt_number(t, 2) for t in table["tau"]],
                         "τ over users (95%)": [fmt_span(lo, hi) if pd.notna(lo) else "–" for lo, hi in
                                                zip(table["tau_low"], table["tau_high"], strict=True)],
                         "rank": table["rank"].astype(str).tolist(),
                         "within noise of the best": [fmt_yes(p in tied) for p in table["protocol"]]})


def _named(protocols: Sequence[str]) -> str:
    """Protocol labels in italics, joined as a list (the labels hold commas of their own); "none" for no label."""
    return and_list([f"*{p}*" for p in protocols]) if protocols else "none"


def advice_values(recommendation: Recommendation | None, fidelity: TruthFidelity, share: pd.DataFrame,
                  caveats: dict[str, Any]) -> dict[str, str]:
    """The values the page's advice quotes, in Markdown, from the recommendation, its caveats (:mod:`.study.recommend`)
    and its row of the popularity ``share``; "none" or "–" where there is nothing to name."""
    values = dict.fromkeys(["closest", "tied", "behind", "report", "furthest", "companion", "lifts"], "none")
    values |= dict.fromkeys(["closest-tau", "furthest-tau", "popularity-index", "reversed-count"], "–")
    values["world"] = ("no world" if not fidelity.world else f"the truth of *{fidelity.world}*"
                       if fidelity.own_truth else f"the {fidelity.world}")
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


def flips_table(flips: pd.DataFrame) -> pd.DataFrame:
    """The pairs of systems some protocols reverse (:func:`.study.compare.flipped_pairs`), each list of protocols
    joined for display by :data:`recbias.protocol_study.LABEL_SEPARATOR`."""
    return flips.assign(**{column: [LABEL_SEPARATOR.join(labels) for labels in flips[column]]
                           for column in ("first above under", "second above under")})


def reversals_table(caveats: dict[str, Any]) -> pd.DataFrame:
    """The pairs of systems the protocol to report orders and other protocols reverse, with those protocols."""
    pairs = caveats.get("reversed_pairs", pd.DataFrame(columns=["above", "below", "reversed under"]))
    return pairs.assign(**{"reversed under": [LABEL_SEPARATOR.join(others) for others in pairs["reversed under"]]})


def _plain(value: Any) -> Any:
    """``value`` with numpy and pandas scalars made plain Python and every undefined number (NaN, infinite, NA)
    made ``None``, so that it is strict JSON."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return None if value is None or value is pd.NA else value


def fidelity_rows(fidelity: TruthFidelity) -> list[dict[str, Any]]:
    """The rows of the fidelity table as the summary gives them: with ``behind_best_share`` (the share of
    resamples in which the protocol's τ is below the most faithful one's, also under its former name
    ``behind_best``) and ``p_value_vs_best`` (:func:`recbias.evaluate.fidelity.paired_pvalue`)."""
    table = fidelity.table
    if table.empty:
        return []
    best = table["protocol"].iloc[0]
    pvalues = [paired_pvalue(table, best, protocol) for protocol in table["protocol"]]
    shown = table.drop(columns=["tau_draws"]).assign(behind_best_share=table["behind_best"], p_value_vs_best=pvalues)
    return shown.to_dict(orient="records")


def summary_content(measured: Measured, plan: list[Protocol], profiles: pd.DataFrame, share: pd.DataFrame,
                    tau: pd.DataFrame, flips: pd.DataFrame, card: dict[str, str], fidelity: TruthFidelity,
                    recommendation: Recommendation | None, settings: dict[str, Any]) -> dict[str, Any]:
    """The audit's numbers as plain JSON values, in the form :data:`SUMMARY_SCHEMA` describes; ``settings`` are the
    parameters it ran with (dataset, seed, test ratio, metric, cutoff, systems)."""
    stand_in = {"own_truth": fidelity.own_truth, "world": fidelity.world, "shape": fidelity.shape,
                "at_bound": at_bound(fidelity.shape), "refused": fidelity.refused, "truth": fidelity.truth_metric, "systems": fidelity.systems, "fidelity": fidelity_rows(fidelity),
                "recommended": None if recommendation is None else recommendation.protocol,
                "within_noise_of_best": [] if recommendation is None else recommendation.tied}
    protocols = [{"label": p.label, "design": p.design, "metric": p.metric, "split": p.split, "family": p.family,
                  "correction": p.correction} for p in measured.kept(plan)]
    return _plain({"version": SUMMARY_VERSION, "settings": settings, "protocols": protocols,
                   "summary": measured.summary().to_dict(orient="records"),
                   "relevant_share": measured.relevant_share.to_dict(), "profiles": profiles.to_dict(orient="records"),
                   "popularity": share.reset_index().to_dict(orient="records"), "kendall_tau": tau.to_dict(),
                   "flipped_pairs": [joined | {"first_above": listed["first above under"],
                                               "second_above": listed["second above under"]} for listed, joined in
                                     zip(flips.to_dict(orient="records"),
                                         flips_table(flips).to_dict(orient="records"), strict=True)],
                   "splits": split_rows(measured), "card": card,
                   "stand_in": stand_in})


def write_summary(path: str | Path, content: dict[str, Any]) -> None:
    """Write the summary ``content`` (:func:`summary_content`) as strict JSON to ``path``, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(content, indent=1, allow_nan=False))
    os.replace(temporary, path)

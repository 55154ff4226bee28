"""The audit page's tables, its protocol card, what to report with its caveats, and its JSON summary."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from collections.abc import Sequence

import pandas as pd

import recbias
from recbias.chapters.c09_audit.study.measure import Measured
from recbias.chapters.c09_audit.study.profile import EXPLAINED_BY
from recbias.chapters.c09_audit.study.protocols import EXPLAINED_IN
from recbias.chapters.c09_audit.study.recommend import Caveats, Recommendation, StandInFidelity
from recbias.protocol_study import Protocol
from recbias.text import and_list, fmt_ci, fmt_count, fmt_number, fmt_pct, fmt_yes


def doc_link(page: str) -> str:
    """An HTML link to a chapter of the book (tables are glued as HTML, where MyST roles do not apply)."""
    return f'<a href="{page}.html">chapter {int(page[:2])}</a>'


#: how each number of the profile is written
PROFILE_FORMATS = {"users": "{:,}", "items": "{:,}", "ratings": "{:,}", "density": "{:.4f}", "Gini": "{:.3f}",
                   "fitted α": "{:.2f}", "top-10% share": "{:.3f}", "positive ratio": "{:.3f}",
                   "positive head/tail": "{:.2f}"}


def profile_table(profiles: pd.DataFrame) -> pd.DataFrame:
    """The profiles with one row per number and one column per dataset, the audited one first and in bold,
    and the chapter that explains each number last (narrow enough for the page however many datasets)."""
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
    kept = measured.kept(plan)
    return pd.DataFrame({"protocol": [p.label for p in kept], "design": [p.design for p in kept],
                         "metric": [p.metric for p in kept], "split": [p.split for p in kept],
                         "correction": [p.correction or "" for p in kept],
                         "explained in": [doc_link(EXPLAINED_IN[p.label]) for p in kept]})


def commit() -> str:
    """The short commit of the package's checkout, or ``"unknown"``."""
    try:
        return subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=Path(recbias.__file__).parent,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def card_table(plan: list[Protocol], measured: Measured, *, dataset: str, seed: int, test_ratio: float,
               systems: list[str]) -> pd.DataFrame:
    """The evaluation protocol card as a two-column table ready to paste."""
    kept = measured.kept(plan)
    designs = "; ".join(f"{p.label}: {p.design}" + (f" ({p.correction})" if p.correction else "") for p in kept)
    splits = ", ".join(f"{name} ({len(fold.train):,} training / {len(fold.test):,} test ratings)"
                       for name, fold in measured.splits.items())
    rows = {"data": dataset, "systems": ", ".join(systems), "designs": designs,
            "candidate policy": "test items (TI) or all items (AI) not rated in training; NN(k) samples k per run",
            "metrics": ", ".join(dict.fromkeys(p.metric for p in kept)),
            "split": f"{splits}; test ratio {test_ratio:g}", "seeds": f"{seed} (splits, samples, ties)",
            "intervals": "95%, users as the unit", "software": f"recbias {recbias.__version__}, commit {commit()}"}
    return pd.DataFrame({"field": list(rows), "value": list(rows.values())})


def card_paragraph(plan: list[Protocol], measured: Measured, *, dataset: str, seed: int,
                   test_ratio: float) -> str:
    """The protocol card as one paragraph."""
    kept = [p.label for p in measured.kept(plan)]
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


def world_table(fidelity: StandInFidelity) -> pd.DataFrame:
    """The audited data beside its stand-in world: size, popularity skew and positive ratio."""
    rows = ["users", "items", "ratings", "Gini", "fitted α", "top-10% share", "positive ratio"]
    profiles = fidelity.profiles.set_index("dataset")[rows].T
    formats = {"users": "{:,.0f}", "items": "{:,.0f}", "ratings": "{:,.0f}", "positive ratio": "{:.1%}"}
    cells = {column: [formats.get(row, "{:.2f}").format(value) for row, value in profiles[column].items()]
             for column in profiles.columns}
    return pd.DataFrame({"": rows} | cells)


def fidelity_table(fidelity: StandInFidelity, recommendation: Recommendation | None) -> pd.DataFrame:
    """Each protocol's Kendall τ with the true order on the stand-in world (95% interval over users below it), its
    rank, whether the paired resamples tell it from the most faithful one, and the protocol to report in bold."""
    table = fidelity.table
    tied = recommendation.tied if recommendation is not None else []
    chosen = recommendation.protocol if recommendation is not None else None
    return pd.DataFrame({
        "protocol": [f"<b>{p}</b>" if p == chosen else p for p in table["protocol"]],
        "τ with the truth": [fmt_ci(t, (lo, hi)) for t, lo, hi in
                             zip(table["tau"], table["tau_low"], table["tau_high"], strict=True)],
        "rank": table["rank"].astype(str).tolist(),
        "within noise of the best": [fmt_yes(p in tied) for p in table["protocol"]],
    })


def _named(protocols: Sequence[str]) -> str:
    """Protocol labels in italics, joined as a list (the labels hold commas of their own)."""
    return and_list([f"*{p}*" for p in protocols])


def recommendation_text(recommendation: Recommendation | None, fidelity: StandInFidelity,
                        plan: Sequence[Protocol]) -> str:
    """What the stand-in world says about the protocols and which one to report, with its reasons."""
    if fidelity.refused:
        return (f"No world could be drawn in the shape of this data ({fidelity.refused}), so this audit cannot say "
                "which protocol is most faithful here; chapter 8's results on its simulated worlds are the guide.")
    if recommendation is None:
        return ("On the stand-in world the truth does not order the systems, so no protocol's fidelity is "
                "defined; chapter 8's results on its simulated worlds are the guide.")
    tau = fidelity.table.set_index("protocol")["tau"]
    best, others, behind = recommendation.best, recommendation.tied[1:], recommendation.behind
    level = fmt_pct(recommendation.level, 0)
    firsts = fidelity.table.loc[fidelity.table["rank"] == 1, "protocol"].tolist()
    text = (f"On the {fidelity.world}, {_named(firsts)} {'comes' if len(firsts) == 1 else 'tie for'} closest to "
            f"the true order of the {len(fidelity.systems)} systems (τ = {fmt_number(tau[best], 2)}). ")
    if not behind:
        text += (f"No other protocol is clearly behind it: the paired resamples of users do not tell {_named(others)} "
                 f"from it at the {level} level. " if others else "")
    elif not others:
        text += f"Every other protocol is clearly behind it at the {level} level over paired resamples of users. "
    else:
        text += (f"The paired resamples of users do not tell {_named(others)} from it at the {level} level; "
                 f"{_named(behind)} {'is' if len(behind) == 1 else 'are'} clearly behind. ")
    corrected = {p.label for p in plan if p.correction is not None}
    chosen = recommendation.protocol
    if chosen != best:
        reason = f"it is as faithful as {_named([best])} within noise and, unlike it, needs no correction"
    elif chosen in corrected:
        reason = "it is the most faithful here, and every protocol as faithful needs a correction too: name it"
    else:
        reason = "it is the most faithful here and needs no correction"
    return text + f"**Report {_named([chosen])}**: {reason}."


def caveats_text(caveats: Caveats | None) -> str:
    """The caveats of the recommended protocol on the audited data (:func:`.study.recommend.caveats`), as a
    Markdown list: the orders of systems other protocols reverse, and how much of its scale popularity takes."""
    if caveats is None:
        return ""
    chosen, pairs = caveats.protocol, caveats.reversed_pairs
    items = []
    if pairs.empty:
        items.append(f"No other protocol reverses {_named([chosen])}'s order of any pair of systems on your data.")
    else:
        listed = "; ".join(f"{a} above {b} (reversed under {_named(others)})" for a, b, others in
                           zip(pairs["above"], pairs["below"], pairs["reversed under"], strict=True))
        items.append(f"On your data, other protocols reverse {_named([chosen])}'s order of "
                     f"{fmt_count(len(pairs), 'pair', 'pairs')} of systems: {listed}. Report both orders of "
                     f"{'this pair' if len(pairs) == 1 else 'these pairs'}.")
    if caveats.furthest is not None:
        other, tau = caveats.furthest
        items.append(f"Of the other protocols, {_named([other])} orders your systems least like {_named([chosen])} "
                     f"does (τ = {fmt_number(tau, 2)}).")
    lifts = [f"{system} {fmt_number(lift, 2)}×" for system, lift in caveats.lifts.items()]
    popularity = (f"Under {_named([chosen])}, Popularity reaches {fmt_pct(caveats.popularity_index, 0)} of the way "
                  "from Random to the best audited system; lift over Popularity: "
                  f"{and_list(lifts) if lifts else 'none audited'}.")
    if caveats.companion is not None:
        popularity += (f" Report beside it the lift over Popularity under {_named([caveats.companion])}, the most "
                       "faithful neutralising protocol on the stand-in world, so that a reader sees how much of the "
                       "gain popularity explains.")
    items.append(popularity)
    return "\n".join(f"- {item}" for item in items)


def write_summary(path: str | Path, measured: Measured, profiles: pd.DataFrame, share: pd.DataFrame,
                  tau: pd.DataFrame, flips: pd.DataFrame, card: pd.DataFrame, fidelity: StandInFidelity,
                  recommendation: Recommendation | None) -> None:
    """The audit's numbers as JSON, written atomically to ``path``."""
    path = Path(path)
    stand_in = {"world": fidelity.world, "shape": fidelity.shape, "refused": fidelity.refused,
                "truth": fidelity.truth_metric, "systems": fidelity.systems,
                "fidelity": fidelity.table.drop(columns=["tau_draws"], errors="ignore").to_dict(orient="records"),
                "recommended": None if recommendation is None else recommendation.protocol,
                "within_noise_of_best": [] if recommendation is None else recommendation.tied}
    content = {"summary": measured.summary().to_dict(orient="records"),
               "relevant_share": measured.relevant_share.to_dict(),
               "profiles": profiles.to_dict(orient="records"), "popularity": share.reset_index().to_dict(orient="records"),
               "kendall_tau": tau.to_dict(), "flipped_pairs": flips.to_dict(orient="records"),
               "card": dict(zip(card["field"], card["value"], strict=True)), "stand_in": stand_in}
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        json.dump(content, stream, indent=1, default=float)
    os.replace(temporary, path)

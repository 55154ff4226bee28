"""Chapter 8's tables: the field of systems, the protocols, their fidelity on one truth or two, on how many
truths each protocol is in the upper half, and the cells of the grid of worlds for its heatmap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from recbias.chapters.c08_protocol_fidelity.study import Protocol, apart
from recbias.evaluate.fidelity import FIELD
from recbias.recommenders import PopularityBlend, Recommender
from recbias.text import fmt_span, ordinal

#: the parameters that set systems of the field apart, in words
SETTING_WORDS = {"n_aspects": "{:g} aspects", "factors": "{:g} factors", "regularization": "regularisation {:g}"}


def field_table(systems: Mapping[str, Recommender]) -> pd.DataFrame:
    """The field of systems with their class and the parameters that set them apart."""
    rows = []
    for label, recommender in systems.items():
        if isinstance(recommender, PopularityBlend):
            what = f"{recommender.weight:.0%} popularity rank + {1 - recommender.weight:.0%} MF rank"
        else:
            what = ", ".join(SETTING_WORDS[k].format(v) for k, v in FIELD[label][1].items()) or "preset parameters"
        rows.append({"system": label, "kind": type(recommender).__name__, "setting": what})
    return pd.DataFrame(rows)


def protocol_table(protocol_list: Sequence[Protocol]) -> pd.DataFrame:
    """The protocols as the page lists them: kind, name, design (with its split when not the coin flip) and metric."""
    return pd.DataFrame({
        "kind": [p.family for p in protocol_list],
        "protocol": [p.label for p in protocol_list],
        "design": [p.design + (" (uniform split)" if p.split == "uniform" else "") for p in protocol_list],
        "metric": [p.metric for p in protocol_list],
    })


def fidelity_table(main: pd.DataFrame, n_splits: int) -> pd.DataFrame:
    """:func:`recbias.evaluate.fidelity.fidelity_over_seeds` as the page shows it, most faithful first:
    tau (mean over splits, its range over splits below), its interval over users, the share of pairs in
    the true order and how often the truly best system comes first."""
    splits = n_splits > 1
    return pd.DataFrame({
        "protocol": main["protocol"],
        "Kendall τ": [f"{t:.2f}" + (f"<br><small>{fmt_span(lo, hi)}</small>" if splits else "")
                      for t, lo, hi in zip(main["tau"], main["tau_seed_min"], main["tau_seed_max"], strict=True)],
        "τ over users (95%)": [fmt_span(lo, hi) for lo, hi in zip(main["tau_low"], main["tau_high"], strict=True)],
        "pairs in the true order": main["pairs"],
        "best system first: splits": [f"{round(b * n_splits):d} of {n_splits}" if splits else
                                      ("yes" if b == 1 else "no") for b in main["best"]],
        "best system first: resamples": [f"{s:.0%}" for s in main["best_share"]],
    })


def comparison_table(main: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str]) -> pd.DataFrame:
    """Kendall's tau-b of every protocol on the two truths with their intervals over users, in the order of
    the first, and whether the two part beyond resampling noise
    (:func:`recbias.chapters.c08_protocol_fidelity.study.apart`)."""
    table = pd.DataFrame({"protocol": main["protocol"], f"τ, {names[0]}": main["tau"],
                          f"{names[0]}, over users (95%)": [fmt_span(lo, hi) for lo, hi in
                                                            zip(main["tau_low"], main["tau_high"], strict=True)]})
    if second is None:
        return table
    other = second.set_index("protocol")
    parted = apart(main, second)
    spans = [fmt_span(other.loc[p, "tau_low"], other.loc[p, "tau_high"]) if p in other.index else "–"
             for p in table["protocol"]]
    return table.assign(**{f"τ, {names[1]}": table["protocol"].map(other["tau"]),
                           f"{names[1]}, over users (95%)": spans,
                           "apart beyond noise": ["yes" if p in parted.index else "" for p in table["protocol"]]})


def halves_table(halves: pd.DataFrame) -> pd.DataFrame:
    """:func:`recbias.chapters.c08_protocol_fidelity.study.halves` as the page shows it: each protocol's tau and
    rank on every truth, and on how many truths it is in the upper half."""
    truths = [column.removesuffix(" tau") for column in halves.columns if column.endswith(" tau")]
    table = pd.DataFrame({"protocol": halves.index})
    for truth in truths:
        table[f"τ on {truth} (rank)"] = [f"{tau:.2f} ({ordinal(int(rank))})" if rank == rank else "–"
                                         for tau, rank in zip(halves[f"{truth} tau"], halves[f"{truth} rank"],
                                                              strict=True)]
    table["upper half on"] = [f"{upper} of {n}" for upper, n in zip(halves["upper"], halves["truths"], strict=True)]
    return table


def grid_table(cells: pd.DataFrame) -> pd.DataFrame:
    """:func:`recbias.chapters.c08_protocol_fidelity.study.grid_cells` with its columns named by skew and
    observation bias, for the heatmap."""
    return cells.set_axis([f"α = {a:g}\nbias {b:g}" for a, b in cells.columns], axis=1)

"""Chapter 8 ("Which protocol recovers the true order of systems?"): the answer, as tables and sentences.

The measurements come from :mod:`recbias.experiments.truth` (the protocols, the truths, the
simulation grid) and :mod:`recbias.evaluate.fidelity` (Kendall's tau-b with the true order, with
intervals over users).  This module turns them into what the page shows:

* :func:`protocol_table`, :func:`fidelity_table` and :func:`comparison_table`: the protocols, their
  fidelity on the build's truth, and on the two truths side by side;
* :func:`leaders`: the protocols that resampling cannot tell from the most faithful one;
* :func:`agreement_text` and :func:`disagreement_text`: where the simulation and Coat agree and where
  they part beyond resampling noise;
* :func:`recommendations`: protocols sorted into the consistently better half, mixed evidence and
  the consistently worse half by stated rules, as far as the evidence of the build goes;
* :func:`findings`: the chapter's claims for the scorecard.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.evaluate.fidelity import higher_share
from recbias.experiments.truth import Protocol, families
from recbias.ratings import Ratings
from recbias.text import and_list, fmt_number, fmt_span, ordinal

#: a protocol is clearly behind the most faithful one when its tau is lower in this share of user resamples
CLEARLY_BEHIND = 0.95
#: what each verdict of :func:`recommendations` advises
ADVICE = {
    "in the better half on every truth": "a sound choice to rank systems with; report its interval over users",
    "mixed evidence": "use beside a protocol of the first row, and report the pairs of systems on which they disagree",
    "in the worse half on every truth": "avoid for choosing between systems",
}


def world_note(ratings: Ratings, world: Ratings) -> str:
    """What the page studies when the build's dataset has no ground truth (empty when it has one)."""
    if world is ratings:
        return ""
    start = f"The dataset of this build, {ratings.name}, has no ground truth, so this page studies a simulated world"
    if world.n_items < ratings.n_items:
        return (f"{start} with its {world.n_users:,} users and {world.n_ratings:,} ratings but "
                f"{world.n_items:,} of its {ratings.n_items:,} items, the most the generator holds in memory "
                "for that many users.")
    return f"{start} of the same size ({world.n_users:,} users, {world.n_items:,} items, {world.n_ratings:,} ratings)."


def protocol_table(protocol_list: Sequence[Protocol]) -> pd.DataFrame:
    """The protocols as the page lists them: kind, name, design (with its split when not the coin flip) and metric."""
    return pd.DataFrame({
        "kind": [p.family for p in protocol_list],
        "protocol": [p.label for p in protocol_list],
        "design": [p.design + (" (uniform split)" if p.split == "uniform" else "") for p in protocol_list],
        "metric": [p.metric for p in protocol_list],
    })


def leaders(main: pd.DataFrame) -> list[str]:
    """The protocols not clearly behind the most faithful one: lower in fewer than :data:`CLEARLY_BEHIND` of
    the user resamples (mean over splits)."""
    return list(main.loc[main["behind_best"] < CLEARLY_BEHIND, "protocol"])


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
    the first, and whether the two part beyond resampling noise (:func:`apart`)."""
    table = pd.DataFrame({"protocol": main["protocol"], f"τ, {names[0]}": main["tau"],
                          f"{names[0]}, over users (95%)": [fmt_span(lo, hi) for lo, hi in
                                                            zip(main["tau_low"], main["tau_high"], strict=True)]})
    if second is None:
        return table
    other = second.set_index("protocol")
    parted = apart(main, second)
    return table.assign(**{
        f"τ, {names[1]}": table["protocol"].map(other["tau"]),
        f"{names[1]}, over users (95%)": [
            fmt_span(other.loc[p, "tau_low"], other.loc[p, "tau_high"]) if p in other.index else "–"
            for p in table["protocol"]
        ],
        "apart beyond noise": ["yes" if p in parted.index else "" for p in table["protocol"]],
    })


def _both(main: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    first = main.set_index("protocol")[["tau", "tau_low", "tau_high"]]
    other = second.set_index("protocol")[["tau", "tau_low", "tau_high"]].add_suffix(" second")
    return first.join(other, how="inner")


def agreement_text(main: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str]) -> str:
    """Whether the two truths rank the protocols alike: rank correlation, and the protocols they place apart."""
    if second is None:
        return ""
    both = _both(main, second)
    if len(both) < 3:
        return ""
    rho = both[["tau", "tau second"]].rank().corr(method="pearson").iloc[0, 1]
    third = max(1, len(both) // 3)
    top = [p for p in both.nlargest(third, "tau").index if p in both.nlargest(third, "tau second").index]
    gap = (both["tau"].rank(ascending=False) - both["tau second"].rank(ascending=False)).abs().sort_values()
    furthest = gap.index[-1]
    shared = (f"{and_list(top)} {'is' if len(top) == 1 else 'are'} in the top third on both" if top else
              "no protocol is in the top third on both")
    return (
        f"The two truths rank the protocols {'alike' if rho >= 0.5 else 'differently'}: over the {len(both)} "
        f"protocols, the rank correlation between their τ on the one and on the other is {fmt_number(rho, 2)}. "
        f"{shared[0].upper() + shared[1:]}. They "
        f"disagree most on {furthest} ({ordinal(int(both['tau'].rank(ascending=False, method='min')[furthest]))} of "
        f"{len(both)} on {names[0]}, {ordinal(int(both['tau second'].rank(ascending=False, method='min')[furthest]))} "
        f"on {names[1]})."
    )


def apart(main: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """The protocols on which two truths part beyond resampling noise: the tau on each truth lies outside the
    other's 95% interval over users (columns ``tau`` and ``tau second``)."""
    both = _both(main, second)
    outside = ((both["tau"] < both["tau_low second"]) | (both["tau"] > both["tau_high second"])) & (
        (both["tau second"] < both["tau_low"]) | (both["tau second"] > both["tau_high"]))
    return both[outside]


def disagreement_text(main: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str]) -> str:
    """How many protocols the two truths part on beyond resampling noise, in which direction, and the likeliest
    reason when the second truth is the noisier one."""
    if second is None:
        return ""
    parted, n = apart(main, second), len(_both(main, second))
    if parted.empty:
        return (f"On no protocol do the two truths part beyond resampling noise: no protocol's τ on one lies outside "
                f"its interval over users on the other. Where their orders of the protocols differ, the intervals say "
                f"the difference may be noise, and {names[1]} cannot settle the finer distinctions of {names[0]}.")
    higher = int((parted["tau"] > parted["tau second"]).sum())
    direction = (f"on all of them {names[0]} gives the higher τ" if higher == len(parted) else
                 f"on all of them {names[1]} gives the higher τ" if higher == 0 else
                 f"{names[0]} gives the higher τ on {higher} of them and {names[1]} on {len(parted) - higher}")
    wider = (second["tau_high"] - second["tau_low"]).mean() > (main["tau_high"] - main["tau_low"]).mean()
    noisier = names[1] if wider else names[0]
    return (
        f"The two truths part beyond resampling noise on {len(parted)} of the {n} protocols (marked in the table), "
        f"and {direction}. Part of such a gap is the truth's own noise rather than the protocols': a truth that is "
        f"itself an estimate, as {noisier}'s is with its wider intervals, orders the systems less firmly, and "
        "every protocol's τ against it shrinks. A gap in the order of the protocols is the firmer sign of a real "
        "disagreement, which the rank correlation above measures."
    )


def grid_means(grid: pd.DataFrame) -> pd.Series:
    """Mean Kendall tau-b of every protocol over the cells and worlds of the simulation grid."""
    return grid.groupby("protocol")["tau"].mean()


def recommendations(main: pd.DataFrame, second: pd.DataFrame | None, grid: pd.DataFrame) -> pd.DataFrame:
    """The protocols sorted by the evidence of the build into three verdicts, with what each verdict advises.

    A protocol is judged on up to three truths: the build's, the second one and the simulation grid (its
    mean over cells); on each, it is in the better half when its tau is at least the median over the
    protocols.  In the better half on every truth, in the worse half on every truth, or mixed.
    """
    signals = pd.DataFrame(index=main["protocol"])
    signals["build"] = main.set_index("protocol")["tau"] >= main["tau"].median()
    if second is not None:
        tau = second.set_index("protocol")["tau"]
        signals["second"] = signals.index.map(tau) >= tau.median()
    tau = grid_means(grid)
    signals["grid"] = signals.index.map(tau) >= tau.median()
    share = signals.mean(axis=1)
    verdict = np.where(share == 1, "in the better half on every truth",
                       np.where(share == 0, "in the worse half on every truth", "mixed evidence"))
    rows = []
    for name, advice in ADVICE.items():
        members = list(signals.index[verdict == name])
        rows.append({"verdict": name, "protocols": ", ".join(members) if members else "none", "what to do": advice})
    return pd.DataFrame(rows)


def grid_table(grid: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Mean Kendall tau-b over the worlds of each grid cell: one row per protocol (in ``order``), one column
    per (skew, observation bias)."""
    cells = grid.groupby(["protocol", "alpha", "selection"])["tau"].mean().unstack(["alpha", "selection"])
    cells.columns = [f"α = {a:g}\nbias {b:g}" for a, b in cells.columns]
    return cells.reindex([p for p in order if p in cells.index])


def grid_trend(grid: pd.DataFrame) -> str:
    """One sentence on how mean fidelity over protocols moves with observation bias in ``grid``."""
    by_selection = grid.groupby("selection")["tau"].mean()
    if len(by_selection) < 2:
        return (f"The grid has one strength of observation bias ({by_selection.index[0]:g}), so it cannot show how "
                "fidelity moves with it; widen `grid_selections` to see.")
    low, high = by_selection.iloc[0], by_selection.iloc[-1]
    values = (
        f"mean Kendall's τ over protocols {low:.2f} at strength {by_selection.index[0]:g} and "
        f"{high:.2f} at {by_selection.index[-1]:g}"
    )
    if high > low:
        return (
            f"In this grid fidelity rises with observation bias ({values}). Under strong selection users "
            "rate what they like, so their observed ratings say more about their taste and separate good "
            "systems from weak ones more clearly; without it, which items get rated says nothing about "
            "taste, and every protocol is left mostly with popularity and noise."
        )
    return (
        f"In this grid fidelity does not rise with observation bias ({values}): the missing-not-at-random "
        "observation distorts the protocols more than it informs them."
    )


def findings(main: pd.DataFrame, grid: pd.DataFrame, dataset: str, second: pd.DataFrame | None = None,
             second_name: str = "") -> list[dict]:
    """The chapter's findings, each checked on the build's truth, the second truth or the simulation grid.

    ``main`` (and ``second``) are :func:`recbias.evaluate.fidelity.fidelity_over_seeds` on the build's
    truth (and the second one), ``grid`` the output of :func:`recbias.experiments.truth.simulation_grid`.
    A comparison of two protocols holds when the first has the higher tau on the full sample; its evidence
    gives the share of paired user resamples in which it is higher.  Returns dicts with ``key``, ``label``,
    ``holds``, ``evidence``, ``dataset`` and ``anchor`` for :func:`recbias.bookkit.scorecard.finding`.
    """
    family = families()
    tau = main.set_index("protocol")["tau"]
    best = main.set_index("protocol")["best"]
    standard = [p for p in tau.index if family.get(p) == "standard"]
    grid_name = "simulation grid"

    def better(key: str, label: str, first: str, second_protocol: str) -> dict:
        return {"key": key, "label": label, "holds": bool(tau[first] > tau[second_protocol]), "dataset": dataset,
                "anchor": "tbl-truth-main",
                "evidence": f"τ {tau[first]:.2f} ({first}) against {tau[second_protocol]:.2f} ({second_protocol}); "
                            f"higher in {higher_share(main, first, second_protocol):.0%} of paired user resamples"}

    checked = []
    strongest = grid["selection"].max()
    if strongest > 0:
        biased = grid[grid["selection"] == strongest].assign(family=lambda f: f["protocol"].map(family))
        by_family = biased.groupby("family")["tau"].mean()
        checked.append({
            "key": "neutralising-beats-standard-under-strong-bias", "anchor": "fig-truth-grid", "dataset": grid_name,
            "label": "on worlds with strong observation bias, popularity-neutralising designs recover the true "
                     "order better than the standard AR/1R protocols",
            "holds": bool(by_family.get("neutralising", np.nan) > by_family.get("standard", np.nan)),
            "evidence": f"mean Kendall's τ at bias strength {strongest:g}: neutralising "
                        f"{by_family.get('neutralising', np.nan):.2f}, "
                        f"standard {by_family.get('standard', np.nan):.2f}",
        })
    skew = grid.groupby("alpha")["tau"].mean()
    if len(skew) > 1:
        checked.append({
            "key": "skew-hurts-fidelity", "anchor": "fig-truth-grid", "dataset": grid_name,
            "label": "protocols recover the true order less well on worlds with more skewed popularity",
            "holds": bool(skew.iloc[-1] < skew.iloc[0]),
            "evidence": "mean τ over protocols: " + ", ".join(f"α {a:g}: {t:.2f}" for a, t in skew.items()),
        })
    checked += [
        better("full-catalogue-beats-sampled", "full-catalogue nDCG@10 orders systems closer to the truth than "
               "the uncorrected sampled metric", "full-catalogue nDCG@10", "sampled HR@10"),
        better("correction-helps-sampled", "correcting the sampled metric (bias-variance, γ = 0.1) brings its "
               "order closer to the truth", "sampled HR@10, corrected (BV 0.1)", "sampled HR@10"),
        better("snips-beats-plain", "self-normalised propensity weighting orders systems closer to the truth than "
               "the same precision unweighted", "SNIPS-P@10 (power 0.5)", "AR TI-AN P@10"),
        better("step-hurts-discounted-auc", "switching off the short head in the discounted AUC moves its order "
               "away from the truth", "discounted AUC", "discounted AUC, 2% short head off"),
        {
            "key": "standard-protocols-pick-the-best", "anchor": "tbl-truth-main", "dataset": dataset,
            "label": "a standard protocol (AR or 1R) puts the truly best system first",
            "holds": bool(best[standard].max() == 1.0),
            "evidence": ("truly best system first under " + and_list([p for p in standard if best[p] == 1.0])
                         if (best[standard] == 1.0).any() else "no standard protocol puts it first on every split"),
        },
        {
            "key": "no-protocol-is-exact", "anchor": "tbl-truth-main", "dataset": dataset,
            "label": "no protocol reproduces the true order of the field exactly",
            "holds": bool(tau.max() < 1.0),
            "evidence": f"highest mean τ {tau.max():.2f} ({tau.idxmax()})",
        },
    ]
    if second is not None:
        other = second.set_index("protocol")["tau"]
        top = [p for p in leaders(main) if p in other.index]
        below = [p for p in top if other[p] < other.median()]
        checked.append({
            "key": "leaders-hold-on-second-truth", "anchor": "tbl-truth-second", "dataset": second_name,
            "label": f"the protocols that are most faithful on {dataset} are at least median on {second_name}",
            "holds": not below,
            "evidence": (f"below the median τ ({other.median():.2f}) on {second_name}: " + and_list(below)
                         if below else
                         f"all of {and_list(top)} reach the median τ ({other.median():.2f}) on {second_name}"),
        })
    return checked

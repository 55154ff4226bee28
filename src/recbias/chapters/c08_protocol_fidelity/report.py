"""Chapter 8's tables, and the sentences whose structure depends on the data, as short templates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from recbias.chapters.c08_protocol_fidelity.study import VERDICTS, Protocol, agreement, apart, joined, verdicts
from recbias.evaluate.fidelity import FIELD
from recbias.ratings import Ratings
from recbias.recommenders import PopularityBlend, Recommender
from recbias.text import and_list, fmt_number, fmt_span, ordinal

#: the parameters that set systems of the field apart, in words
SETTING_WORDS = {"n_aspects": "{:g} aspects", "factors": "{:g} factors", "regularization": "regularisation {:g}"}
#: each verdict of :func:`recbias.chapters.c08_protocol_fidelity.study.verdicts` in words, and what it advises
ADVICE = {
    "better": ("in the better half on every truth",
               "a sound choice to rank systems with; report its interval over users"),
    "mixed": ("mixed evidence",
              "use beside a protocol of the first row, and report the pairs of systems on which they disagree"),
    "worse": ("in the worse half on every truth", "avoid for choosing between systems"),
}
WORLD = "The dataset of this build, {name}, has no ground truth, so this page studies a simulated world"
WORLD_SIZE = WORLD + " of the same size ({users:,} users, {items:,} items, {ratings:,} ratings)."
WORLD_CUT = (WORLD + " with its {users:,} users and {ratings:,} ratings but {items:,} of its {all_items:,} items, the "
             "most the generator holds in memory for that many users.")
SECOND_MISSING = ("The second dataset, {requested}, is not available on this machine, so the table below shows the "
                  "book's dataset only; the datasets appendix says where to put its files.")
SECOND_IS_DEFAULT = "The build's own dataset is {name}, so the second truth here is the default simulated world."
AGREEMENT = ("The two truths rank the protocols {alike}: over the {n} protocols, the rank correlation between their τ "
             "on the one and on the other is {rho}. {shared}. They disagree most on {furthest} ({rank_first} of {n} on "
             "{first}, {rank_second} on {second}).")
SHARED = {True: "{top} {verb} in the top third on both", False: "No protocol is in the top third on both"}
NOT_APART = ("On no protocol do the two truths part beyond resampling noise: no protocol's τ on one lies outside its "
             "interval over users on the other. Where their orders of the protocols differ, the intervals say the "
             "difference may be noise, and {second} cannot settle the finer distinctions of {first}.")
APART = ("The two truths part beyond resampling noise on {parted} of the {n} protocols (marked in the table), and "
         "{direction}. Part of such a gap is the truth's own noise rather than the protocols': a truth that is itself "
         "an estimate, as {noisier}'s is with its wider intervals, orders the systems less firmly, and every "
         "protocol's τ against it shrinks. A gap in the order of the protocols is the firmer sign of a real "
         "disagreement, which the rank correlation above measures.")
DIRECTION = {"first": "on all of them {first} gives the higher τ",
             "second": "on all of them {second} gives the higher τ",
             "both": "{first} gives the higher τ on {higher} of them and {second} on {lower}"}
GRID_VALUES = "mean Kendall's τ over protocols {low:.2f} at strength {weakest:g} and {high:.2f} at {strongest:g}"
GRID_TREND = {
    "one": ("The grid has one strength of observation bias ({weakest:g}), so it cannot show how fidelity moves with "
            "it; widen `grid_selections` to see."),
    "rises": ("In this grid fidelity rises with observation bias ({values}). Under strong selection users rate what "
              "they like, so their observed ratings say more about their taste and separate good systems from weak "
              "ones more clearly; without it, which items get rated says nothing about taste, and every protocol is "
              "left mostly with popularity and noise."),
    "flat": ("In this grid fidelity does not rise with observation bias ({values}): the missing-not-at-random "
             "observation distorts the protocols more than it informs them."),
}


def world_note(ratings: Ratings, world: Ratings) -> str:
    """What the page studies when the build's dataset has no ground truth (empty when it has one)."""
    if world is ratings:
        return ""
    template = WORLD_CUT if world.n_items < ratings.n_items else WORLD_SIZE
    return template.format(name=ratings.name, users=world.n_users, items=world.n_items, ratings=world.n_ratings,
                           all_items=ratings.n_items)


def second_note(requested: str, world: Ratings, second: Ratings | None) -> str:
    """Why the second truth is missing, or that it is the default simulated world; empty otherwise."""
    if requested and second is None:
        return SECOND_MISSING.format(requested=requested)
    return SECOND_IS_DEFAULT.format(name=world.name) if second is not None and requested == world.name else ""


def leaders_words(leading: Sequence[str], n: int) -> str:
    """How many protocols resampling cannot tell from the most faithful one, the most faithful one included."""
    return f"{len(leading)} of the {n} protocols" if len(leading) > 1 else "no other protocol"


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
    return table.assign(**{
        f"τ, {names[1]}": table["protocol"].map(other["tau"]),
        f"{names[1]}, over users (95%)": [
            fmt_span(other.loc[p, "tau_low"], other.loc[p, "tau_high"]) if p in other.index else "–"
            for p in table["protocol"]
        ],
        "apart beyond noise": ["yes" if p in parted.index else "" for p in table["protocol"]],
    })


def agreement_text(main: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str]) -> str:
    """Whether the two truths rank the protocols alike: rank correlation, the protocols in the top third on both,
    and the one they place furthest apart; empty without a second truth or with fewer than three protocols."""
    found = agreement(main, second) if second is not None else None
    if found is None:
        return ""
    shared = SHARED[bool(found.top)].format(top=and_list(found.top) if found.top else "",
                                           verb="is" if len(found.top) == 1 else "are")
    return AGREEMENT.format(alike="alike" if found.rho >= 0.5 else "differently", n=found.n,
                            rho=fmt_number(found.rho, 2), shared=shared[0].upper() + shared[1:],
                            furthest=found.furthest, rank_first=ordinal(found.rank_first),
                            rank_second=ordinal(found.rank_second), first=names[0], second=names[1])


def disagreement_text(main: pd.DataFrame, second: pd.DataFrame | None, names: tuple[str, str]) -> str:
    """How many protocols the two truths part on beyond resampling noise, in which direction, and the likeliest
    reason when the second truth is the noisier one."""
    if second is None:
        return ""
    parted, n = apart(main, second), len(joined(main, second))
    if parted.empty:
        return NOT_APART.format(first=names[0], second=names[1])
    higher = int((parted["tau"] > parted["tau second"]).sum())
    direction = "first" if higher == len(parted) else "second" if higher == 0 else "both"
    wider = (second["tau_high"] - second["tau_low"]).mean() > (main["tau_high"] - main["tau_low"]).mean()
    return APART.format(parted=len(parted), n=n, noisier=names[1] if wider else names[0],
                        direction=DIRECTION[direction].format(first=names[0], second=names[1], higher=higher,
                                                              lower=len(parted) - higher))


def recommendations(main: pd.DataFrame, second: pd.DataFrame | None, grid: pd.DataFrame) -> pd.DataFrame:
    """The protocols sorted by the evidence of the build into the three verdicts of
    :func:`recbias.chapters.c08_protocol_fidelity.study.verdicts`, with what each verdict advises."""
    verdict = verdicts(main, second, grid)
    rows = []
    for name in VERDICTS:
        members = list(verdict.index[verdict == name])
        words, advice = ADVICE[name]
        rows.append({"verdict": words, "protocols": ", ".join(members) if members else "none", "what to do": advice})
    return pd.DataFrame(rows)


def grid_table(cells: pd.DataFrame) -> pd.DataFrame:
    """:func:`recbias.chapters.c08_protocol_fidelity.study.grid_cells` with its columns named by skew and
    observation bias, for the heatmap."""
    return cells.set_axis([f"α = {a:g}\nbias {b:g}" for a, b in cells.columns], axis=1)


def grid_trend(by_selection: pd.Series) -> str:
    """How mean fidelity over protocols moves with observation bias (``by_selection``: mean tau by strength)."""
    if len(by_selection) < 2:
        return GRID_TREND["one"].format(weakest=by_selection.index[0])
    low, high = by_selection.iloc[0], by_selection.iloc[-1]
    values = GRID_VALUES.format(low=low, high=high, weakest=by_selection.index[0], strongest=by_selection.index[-1])
    return GRID_TREND["rises" if high > low else "flat"].format(values=values)


def settings_table(protocol_list: Sequence[Protocol], *, splits: int, n_boot: int, level: float) -> pd.DataFrame:
    """The page's setting against the papers' whose designs and metrics it measures (IRJ 2017, Krichene and
    Rendle 2020), one row per setting, with the reason for every departure ("" where the page keeps theirs)."""
    design = {p.label: p.design for p in protocol_list}
    one_r, sampled = design["1R P@10"], design["sampled HR@10"]
    rows = [
        ("truth", "complete relevance of a simulated world, or Coat's ratings of random items", "none",
         "the question of the chapter needs a truth"),
        ("systems", "today's field (14 systems) and the papers' set (5)", "the papers' set: Random, Popularity, "
         "pLSA, MF and kNN predicting ratings", "the field tests an order on many more pairs of systems"),
        ("splits", f"{splits} coin-flip {'split' if splits == 1 else 'splits'} and as many uniform ones, σ = 0.2",
         "5 coin-flip splits, σ = 0.2; uniform σ = ε = 0.2", "" if splits == 5 else "the page's `split_seeds`"),
        ("1R target sets", one_r, "1R TI-NN(99)", "" if one_r == "1R TI-NN(99)" else
         "P1R's ten percentiles must hold the sampled items of a small catalogue"),
        ("sampled metric", f"HR@10 over {sampled}, on the coin-flip split", "HR@10 with m = 100, leave-last-out split "
         "(Krichene and Rendle)", "the held-out ratings of the other protocols" + (
             "" if sampled == "1R AI-NN(100)" else "; m at most a third of the catalogue")),
        ("averaging", "each user's runs first, then over users", "over runs (1R: one per held-out rating)",
         "an order of systems is compared on the same users, each counted once"),
        ("comparisons", f"paired resamples of users ({n_boot}), two-sided p < {level:g}", "none",
         "a comparison counts only where it stands out of noise"),
    ]
    return pd.DataFrame(rows, columns=["setting", "this page", "the papers", "why it differs"])


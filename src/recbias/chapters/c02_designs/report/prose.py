"""The values chapter 2's prose quotes and the few sentences whose wording depends on the data: why the
second dataset is skipped or how it was split, what AI adds to TI, MAP against MRR under 1R, which metrics
order the systems as P@10 does, how the papers' statements fare on each set of systems, the lemma's band,
the orders against the truth and what the table of orders shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from recbias import datasets
from recbias.bookkit.scorecard import DEPARTS, FAILS, FINDING, HOLDS, INCONCLUSIVE, Claim
from recbias.chapters.c02_designs.claims import TWIN, published_value
from recbias.chapters.c02_designs.study.comparison import (
    METRICS,
    N,
    PAPERS,
    SETS,
    TOP_N,
    DesignStudy,
    RelevantWeight,
    relevant_weight,
)
from recbias.chapters.c02_designs.study.lemma import GROWTH, REMOVAL, band_summary
from recbias.chapters.c02_designs.study.toy import ToyTargetSet
from recbias.chapters.c02_designs.study.truth import TruthCheck, swaps
from recbias.text import and_list, fmt_count, fmt_number, fmt_pct, fmt_span, order_text


def why_not_second(second: str, dataset: str) -> str:
    """Why the second dataset is not run on this page, or "" when it is."""
    if not second:
        return "No second dataset was requested (`second_dataset` is empty)."
    if second == dataset:
        return f"The second dataset, *{second}*, is the chapter's own dataset: it is not repeated."
    if not datasets.available(second):
        return f"The second dataset, *{second}*, is not available on the machine that built this page."
    return ""


def second_note(study: DesignStudy, skipped: str = "") -> str:
    """How the second dataset was split, or (``skipped``) why it was not run."""
    if study.second is None:
        return skipped
    how = ("by time (the most recent ratings in test), as the papers did on Last.fm." if study.second_split == "temporal"
           else "by a coin flip per rating: it has no timestamps, so the temporal split of the papers cannot be "
                "reproduced on it.")
    return f"The second dataset, *{study.second_name}*, was split once {how}"


def toy_values(target_sets: Sequence[ToyTargetSet]) -> dict[str, str]:
    """The target sets of ``u`` under AI-AN and TI-AN, as the prose names them."""
    letters = {target.design: target.letters for target in target_sets}
    return {"toy_ai_an": letters["AI-AN"], "toy_ti_an": letters["TI-AN"]}


def candidates_clause(untested: float) -> str:
    """What AI adds to TI when a share ``untested`` of the items has no test rating in a split (on average):
    (almost) no item, or those items."""
    if untested < 0.005:
        return (f"almost every item has a test rating in every split ({fmt_pct(1 - untested)} on average), so AI "
                "and TI draw from nearly the same candidates")
    return (f"on average {fmt_pct(untested)} of the items have no test rating in a split, and only AI can draw them "
            "as non-relevant items")


def map_mrr_clause(gap: float, runs: int, splits: int) -> str:
    """How far MAP and MRR are apart (at most ``gap``) over ``runs`` 1R runs of ``splits`` splits."""
    where = f"{runs:,} 1R runs of the " + (f"{splits} splits" if splits > 1 else "split")
    if gap == 0:
        return f"the two are equal on every one of the {where}"
    if gap < 1e-9:
        return f"over the {where} they differ by at most {gap:.1e}, a rounding error"
    return f"yet over the {where} they differ by up to {gap:.1e}, which calls for a look at the metrics"


def weight_values(weight: RelevantWeight) -> dict[str, str]:
    """The weight of the heavy users in 1R precision as the prose quotes it: the users of AR precision, the
    tenth with the most relevant test ratings, and their shares of the users and of those ratings."""
    return {"weight_users": fmt_count(weight.users, "user", "users"),
            "weight_top": fmt_count(weight.top_users, "user", "users"),
            "weight_top_share": fmt_pct(weight.top_users / weight.users, 0), "weight_share": fmt_pct(weight.share, 0)}


def span_text(system: str, low: float, high: float) -> str:
    """How far ``system``'s P@10 moves across the designs and datasets of the page (from ``low`` to ``high``)."""
    shown = fmt_span(low, high, "{:.3f}")
    if " to " not in shown:
        return f"Across the designs and datasets of this page, the P@10 of {system} stays at {shown}."
    factor = f", a factor of {high / low:.1f}" if low > 0 else ""
    return f"Across the designs and datasets of this page, the P@10 of {system} alone runs from {shown}{factor}."


def prose_values(study: DesignStudy) -> dict[str, str]:
    """The values the page's prose quotes, formatted, by glue name: the weight of heavy users in 1R on the
    first split, each set's order under the main AR and the 1R design, the AI-TI gap and the 1R ceiling,
    Popularity's span of precision over the designs and datasets, the metrics under 1R, each set's
    significant pairs, and the papers' AR precision of popularity."""
    ai, ti = study.choice.ar
    here, ar, one_r = study.ratings.name, study.choice.main_ar, study.choice.one_r
    values = {
        "here": here, **weight_values(relevant_weight(study.folds[0].test)),
        "ai_design": ai, "ti_design": ti, "ai_ti_gap": fmt_number(study.ai_ti_gap, 4),
        "candidates": candidates_clause(study.untested_share), "best_one_r": fmt_number(study.best_one_r()),
        "ceiling": fmt_number(study.ceiling), "popularity_span": span_text("Popularity", *study.spread("Popularity")),
        "runs_1r": f"{study.one_r_runs:,}", "map_mrr": map_mrr_clause(study.map_mrr_gap, study.one_r_runs,
                                                                      len(study.folds)),
        "paper_pop_ar": f"{published_value('fig2/AR/Popularity/P@10'):g}",
        "paper_pop_ar_lastfm": f"{published_value('fig2/AR-lastfm/Popularity/P@10'):g}",
    }
    for which, name in ((PAPERS, "papers"), (TOP_N, "top_n")):
        significant, pairs = study.significant_pairs(which)
        values |= {f"pairs_significant_{name}": f"{significant} of {pairs}",
                   f"ar_order_{name}": order_text(study.measured(here, ar, which)),
                   f"one_r_order_{name}": order_text(study.measured(here, one_r, which))}
    return values


def metric_orders_text(table: pd.DataFrame) -> str:
    """Whether, within each design of a metric table (columns ``design``, ``system`` and the
    :data:`~.study.comparison.METRICS`), every metric orders the systems as P@10 does."""
    indexed = table.set_index(["design", "system"])
    disagree = []
    for design, part in indexed.groupby(level="design", sort=False):
        values = part.droplevel("design")
        reference = order_text(values["P@10"].to_dict())
        disagree += [f"{m} under {design}" for m in METRICS[1:] if order_text(values[m].to_dict()) != reference]
    cases = indexed.index.get_level_values("design").nunique() * (len(METRICS) - 1)
    if not disagree:
        return "Within each design, every other metric of the table orders the systems as P@10 does."
    if len(disagree) == cases:
        return "Within each design, no other metric of the table orders the systems exactly as P@10 does."
    return (f"Within each design, {cases - len(disagree)} of the {cases} other metric columns order the systems "
            f"as P@10 does; the exceptions are {', '.join(disagree)}.")


def _title(name: str) -> str:
    try:
        return datasets.info(name).title
    except ValueError:
        return name


#: set -> how a sentence names it
THE_SET = {PAPERS: "the papers' set", TOP_N: "today's top-N set"}
#: verdict of a finding -> how :func:`outcomes_text` words one and several of them
VERDICT_WORDS = {
    HOLDS: ("holds", "hold"),
    FAILS: ("does not hold", "do not hold"),
    DEPARTS: ("fails where the book departs from the papers", "fail where the book departs from the papers"),
    INCONCLUSIVE: ("is inconclusive (within noise)", "are inconclusive (within noise)"),
}


def _outcome_counts(verdicts: Sequence[str]) -> str:
    """How many of ``verdicts`` hold, fail, fail where the book departs, or are inconclusive, in words."""
    parts = [f"{verdicts.count(v)} {one if verdicts.count(v) == 1 else many}"
             for v, (one, many) in VERDICT_WORDS.items() if verdicts.count(v)]
    return and_list(parts)


def outcomes_text(found: Sequence[Claim]) -> str:
    """How the papers' statements fare on the papers' set of systems (findings without the :data:`TWIN`
    suffix), and how their twins fare on today's top-N set."""
    findings = [c for c in found if c.kind == FINDING]
    papers = [c.verdict for c in findings if not c.key.endswith(TWIN)]
    todays = [c.verdict for c in findings if c.key.endswith(TWIN)]
    text = (f"Of the {fmt_count(len(papers), 'statement', 'statements')} of the papers checked on their own set of "
            f"systems, {_outcome_counts(papers)}")
    if todays:
        text += (f"; of the {len(todays)} checked again on today's top-N set, {_outcome_counts(todays)}, and these "
                 "count as departures, not as failures of the papers")
    return f"{text}."


def data_text(study: DesignStudy) -> str:
    """How this build's data differ from the papers' MovieLens 1M and Last.fm."""
    here = study.ratings
    if here.name == "ml-1m":
        data = "The main dataset is the papers' own, MovieLens 1M, but the splits are our own draws"
    elif here.true_relevance is not None:
        data = (f"The data differ: the papers used MovieLens 1M, this page a simulated world ({here.name}) whose "
                "systems need not behave as they do on real ratings")
    else:
        data = (f"The data differ: the papers used MovieLens 1M, this page {_title(here.name)} "
                f"({here.n_ratings:,} ratings by {here.n_users:,} users of {here.n_items:,} items)")
    if study.second is not None:
        data += (f", and {_title(study.second_name)} stands in for the papers' Last.fm sample"
                 + ("; it has no timestamps, so the papers' temporal split cannot be repeated on it"
                    if study.second_split == "coin" else ""))
    return f"{data}."


def lemma_values(sweep: pd.DataFrame) -> dict[str, str]:
    """The values the prose quotes about the lemma's sweeps: whether the bounds hold (``lemma_verdict``), the
    band's width on the full and on the thinnest test set, and what the size sweep shows (``band_growth``)."""
    holds, points = int(sweep["holds"].sum()), len(sweep)
    bands = band_summary(sweep)
    removal = bands[bands["sweep"] == REMOVAL]
    first, last = removal.iloc[0], removal.iloc[-1]
    verdict = (f"The bounds hold on all {points} points." if holds == points else
               f"The bounds hold on {holds} of the {points} points only: a violation means the lemma's conditions "
               "were broken (shared non-relevant items, one order of items per user).")
    return {"lemma_verdict": verdict, "band_full": fmt_number(first["width"], 4),
            "band_full_relative": fmt_pct(first["relative"], 0), "band_thin": fmt_number(last["width"], 4),
            "band_thin_relative": fmt_pct(last["relative"], 0), "band_removed": fmt_pct(last["x"], 0),
            "band_growth": band_growth(bands[bands["sweep"] == GROWTH])}


def band_growth(growth: pd.DataFrame) -> str:
    """What the size sweep does to the band (rows of :func:`~.study.lemma.band_summary`), or why it is missing."""
    if not len(growth):
        return "The catalogue is too small for the size sweep."
    small, big = growth.iloc[0], growth.iloc[-1]
    text = (f"Along the size sweep, on a fixed population of {int(small['users']):,} users, it goes from "
            f"{fmt_number(small['width'], 4)} ({fmt_pct(small['relative'], 0)}) with target sets of {small['x']:,.0f} "
            f"items to {fmt_number(big['width'], 4)} ({fmt_pct(big['relative'], 0)}) with {big['x']:,.0f}.")
    if big["width"] < small["width"] and big["relative"] >= small["relative"]:
        return text + (" In absolute terms it narrows, as the papers observed; relative to the 1R value it does not, "
                       "because precision itself falls faster than the band as the target sets grow.")
    if big["width"] < small["width"]:
        return text + " It narrows in absolute terms and relative to the 1R value, as the papers observed."
    return text + " Unlike in the papers, it does not narrow here."


def truth_text(check: TruthCheck | None, dataset: str, sets: Mapping[str, Sequence[str]] = SETS) -> str:
    """What the comparison with the true order shows within each of ``sets`` (set -> its systems; those
    with fewer than two systems of the check are left out), or why it cannot be made on ``dataset``."""
    if check is None:
        return (f"*{dataset}* is observed data, without the relevance of the pairs nobody rated, so the orders "
                "cannot be checked against a truth here: the table gives the measured orders only. Build the "
                "chapter on `synthetic` to see the check.")
    texts = []
    for which, members in sets.items():
        systems = [s for s in check.true.index if s in members]
        if len(systems) < 2:
            continue
        mine = check.among(systems)
        found = swaps(mine)
        verdict = ("every design orders" if found.right == found.designs else "no design orders" if found.right == 0
                   else "only one of the designs orders" if found.right == 1 else
                   f"{found.right} of the {found.designs} designs order")
        text = (f"In {THE_SET.get(which, which)} the true order is **{order_text(mine.true.to_dict())}**, and {verdict} "
                "the systems as the truth does.")
        if found.widest is not None:
            text += " " + _swap_text(mine, found.widest, found.gap, found.close)
        texts.append(text)
    best_true, best_measured = float(check.true.max()), float(check.measured.to_numpy().max())
    if best_measured > 0:
        texts.append(f"The scale differs too: the best true precision, {fmt_number(best_true)}, is "
                     f"{best_true / best_measured:.1f} times the best value any design measures here, because most "
                     "relevant items were never rated and count as failures.")
    return " ".join(texts)


def orders_caption(check: TruthCheck | None, dataset: str) -> str:
    """The part of the caption of :func:`~.tables.orders_table` that depends on what the table holds: the
    true orders and the columns that compare with them on a simulated world, or why there are none (plain
    text: a glued caption shows no Markdown)."""
    if check is None:
        return (f"The dataset {dataset} is observed data: no true order can be shown, and the orders are compared "
                "with each other only.")
    return (f"On the simulated world {check.dataset}, each set's block opens with the order by true P@{N} "
            "(complete relevance, mean over users and splits), and the last three columns compare each design of "
            "that world with it: Kendall's τ, the pairs of systems in the true order, and whether the truly best "
            "system comes first.")


def _swap_text(check: TruthCheck, pair: tuple[str, str], gap: float, close: bool) -> str:
    """The widest swapped pair: close in truth (noise can swap it) or not (the design moves the order)."""
    (a, b), true = pair, check.true
    values = f"({fmt_number(true[a], 4)} against {fmt_number(true[b], 4)})"
    if close:
        return (f"Every pair a design swaps is close in truth: the widest, {a} and {b}, differ by {fmt_pct(gap)} of "
                f"their true P@10 {values}, so a small measured difference says little about the true order.")
    return (f"The swapped pairs are not only close ones: {a} is measured above {b}, although its true P@10 is "
            f"{fmt_pct(gap, 0)} lower {values}. The design itself, not only noise, moves the order; the chapters on "
            "popularity bias return to this.")

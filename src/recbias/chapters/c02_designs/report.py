"""What chapter 2 shows: its display tables (the systems' settings, the size and the precision of each
evaluation, the paired tests, the metrics beyond P@10, the lemma's points, the orders of systems, the
published numbers), the values its prose quotes, and the few sentences whose wording depends on the data
(why the second dataset is skipped or how it was split, what AI adds to TI, MAP against MRR under 1R,
which metrics order the systems as P@10 does, how the papers' statements fare, the lemma's band, the true
order)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from recbias import datasets
from recbias.bookkit.scorecard import DEPARTS, FAILS, FINDING, INCONCLUSIVE, NUMBER, Claim
from recbias.cache import recommender_params
from recbias.chapters.c02_designs.claims import published_value
from recbias.chapters.c02_designs.study.comparison import (
    ALPHA,
    METRICS,
    N,
    DesignStudy,
    RelevantWeight,
    relevant_weight,
)
from recbias.chapters.c02_designs.study.lemma import GROWTH, REMOVAL, band_summary
from recbias.chapters.c02_designs.study.toy import ToyTargetSet
from recbias.chapters.c02_designs.study.truth import TruthCheck, swaps
from recbias.evaluate.experiment import PAPER_SYSTEMS
from recbias.recommenders import make
from recbias.text import and_list, fmt_count, fmt_number, fmt_p_html, fmt_pct, fmt_signed, fmt_yes, order_text

#: recommender class -> what the model is, in words
MODELS = {
    "Popularity": "number of training ratings of the item, the same for every user",
    "PLSA": "probabilistic latent semantic analysis fitted by EM (Hofmann 2004)",
    "ALS": "matrix factorisation for implicit feedback, alternating least squares (Hu et al. 2008)",
    "UserKNN": "user-based nearest neighbours, cosine similarity (Cremonesi et al. 2010)",
    "Random": "scores drawn uniformly at random",
}
#: parameter of a recommender -> how the settings table words it (parameters not listed are left out)
SETTING_WORDS = {
    "n_aspects": lambda v: f"{v} aspects",
    "factors": lambda v: f"{v} factors",
    "k": lambda v: f"{v} neighbours",
    "iterations": lambda v: f"{v} iterations",
    "regularization": lambda v: f"regularisation {v:g}",
    "alpha": lambda v: f"confidence weight {v:g}",
    "beta": lambda v: f"tempering {v:g}",
    "tol": lambda v: f"tolerance {v:g}",
    "feedback": lambda v: "rating values as input" if v == "values" else f"{v} input",
    "positive_only": lambda v: "positive ratings only" if v else "every rating counts",
}
#: |T_u^r| in HTML, as tables write the size of a 1R target set
SIZE = "|<i>T</i><sub><i>u</i></sub><sup><i>r</i></sup>|"
#: columns of :func:`orders_table`
ORDER, TOP = "order, best first", f"P@{N} of the first"


def system_settings(systems: Mapping[str, str] = PAPER_SYSTEMS, seed: int = 0) -> pd.DataFrame:
    """The systems of the comparison: what each model is and its settings, in words."""
    rows = []
    for label, preset in systems.items():
        recommender = make(preset, seed=seed)
        settings = [SETTING_WORDS[k](v) for k, v in recommender_params(recommender).items() if k in SETTING_WORDS]
        rows.append({"system": label, "model": MODELS.get(type(recommender).__name__, type(recommender).__name__),
                     "settings": ", ".join(settings) or "–"})
    return pd.DataFrame(rows)


def size_table(study: DesignStudy) -> pd.DataFrame:
    """Size of the evaluation per dataset and design, means over splits: runs (users in AR, relevant test
    ratings in 1R), their users, the candidate items, the items ranked by each system in all (``items
    ranked``) and the runs left out over all splits because a user had too few candidates."""
    reports = pd.concat([e.reports for e in study.experiments], ignore_index=True)
    return (
        reports.groupby(["dataset", "design"], sort=False)
        .agg(splits=("fold", "nunique"), runs=("n_runs", "mean"), users=("n_users", "mean"),
             candidates=("n_candidates", "mean"), entries=("candidates", "mean"), excluded=("shortage_runs", "sum"))
        .reset_index()
        .rename(columns={"candidates": "candidate items", "entries": "items ranked", "excluded": "runs left out"})
    )


def precision_table(study: DesignStudy) -> pd.DataFrame:
    """Mean P@10 with the half-width of its 95% interval per (dataset, design) and system (cells as HTML)."""
    s = study.summary
    cells = s.assign(cell=[f"{fmt_number(m, 4)}<br><small>± {fmt_number((h - lo) / 2, 4)}</small>"
                           for m, lo, h in zip(s["mean"], s["ci_low"], s["ci_high"], strict=True)])
    wide = cells.pivot_table(index=["dataset", "design"], columns="system", values="cell", aggfunc="first",
                             observed=True, sort=False)
    wide = wide.reindex(columns=study.systems).reindex(pd.MultiIndex.from_tuples(study.panels))
    return wide.rename_axis(["dataset", "design"]).rename_axis(columns=None).reset_index()


def significance_table(study: DesignStudy) -> pd.DataFrame:
    """The paired tests of the study as the page shows them: significant pairs per design, and the closest
    pair with its difference (first minus second system) and p-value."""
    tests = study.tests
    return pd.DataFrame({
        "dataset": tests["dataset"], "design": tests["design"],
        f"pairs with p < {ALPHA:g}": [f"{k} of {n}" for k, n in zip(tests["significant"], tests["pairs"], strict=True)],
        "closest pair": [f"{a} vs {b}" for a, b in tests["closest pair"]],
        f"difference in P@{N}": [fmt_signed(d, 4).replace("-", "\u2212") for d in tests["difference"]],
        "p-value": [fmt_p_html(p) for p in tests["p"]],
    })


def metric_table(study: DesignStudy) -> pd.DataFrame:
    """Mean of every metric per system under the main AR and the 1R design of the page's dataset."""
    designs = [study.choice.main_ar, study.choice.one_r]
    summary = study.main.summary(list(METRICS))
    summary = summary[summary["design"].isin(designs)]
    table = summary.pivot_table(index=["design", "system"], columns="metric", values="mean", observed=True, sort=False)
    table = table.reindex([(d, s) for d in designs for s in study.systems])[list(METRICS)]
    return table.rename_axis(columns=None).reset_index()


def lemma_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """One row per point of the sweeps: its ``setting``, ``runs`` and ``users``, and for each system the lower
    bound, 1R P@10 and the upper bound (columns ``(system, "lower" | "1R P@10" | "upper")``), as text."""
    points = sweep.assign(setting=[f"{x:.0%} removed" if s == REMOVAL else f"{SIZE} = {x:,.0f}"
                                   for s, x in zip(sweep["sweep"], sweep["x"], strict=True)])
    for column in ("lower", "value", "upper"):
        points[column] = [fmt_number(v, 4) for v in points[column]]
    table = points.pivot_table(index=["setting", "runs", "users"], columns="system", values=["lower", "value", "upper"],
                               aggfunc="first", sort=False)
    systems = list(dict.fromkeys(sweep["system"]))
    table = table.swaplevel(axis=1).reindex(columns=[(s, c) for s in systems for c in ("lower", "value", "upper")])
    table = table.rename(columns={"value": f"1R P@{N}"}, level=1).reset_index()
    for column in ("runs", "users"):
        table[(column, "")] = [f"{k:,}" for k in table[(column, "")]]
    return table


def orders_table(study: DesignStudy, check: TruthCheck | None = None) -> pd.DataFrame:
    """The systems from best to worst by P@10 and the P@10 of the first, one row per (dataset, design); with
    a :class:`~.study.truth.TruthCheck`, a first row with the true order and, for each design of the world,
    its agreement with it (Kendall's tau-b, pairs in the true order, truly best system first)."""
    orders = {}
    if check is not None:
        orders[(check.dataset, f"true P@{N}")] = check.true.to_dict()
    for dataset, design in study.panels:
        orders[(dataset, design)] = study.measured(dataset, design)
    rows = []
    pairs = len(study.systems) * (len(study.systems) - 1) // 2
    for (dataset, design), values in orders.items():
        row = {"dataset": dataset, "design": design, ORDER: order_text(values),
               TOP: fmt_number(max(values.values()), 4)}
        if check is not None:
            compared = dataset == check.dataset and design in check.measured
            tau, share, best = check.agreement(design) if compared else (None, None, None)
            row |= {"τ": "–", "pairs in true order": "–", "truly best first": "–"} if not compared else {
                "τ": fmt_number(tau, 2), "pairs in true order": f"{round(share * pairs)} of {pairs}",
                "truly best first": fmt_yes(best)}
        rows.append(row)
    return pd.DataFrame(rows)


def numbers_table(checked: Sequence[Claim]) -> pd.DataFrame:
    """The published numbers among ``checked``: the paper's value and dataset, ours and the dataset it was
    computed on, and the verdict."""
    numbers = [c for c in checked if c.kind == NUMBER]
    return pd.DataFrame({"published number": [c.label for c in numbers], "paper": [f"{c.paper:.2f}" for c in numbers],
                         "paper's dataset": [c.paper_dataset for c in numbers],
                         "ours": [fmt_number(c.ours) for c in numbers], "our dataset": [c.dataset for c in numbers],
                         "verdict": [c.verdict for c in numbers]})


# ------------------------------------------------------------------- the prose


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


def prose_values(study: DesignStudy) -> dict[str, str]:
    """The values the page's prose quotes, formatted, by glue name: the weight of heavy users in 1R on the
    first split, the AI-TI gap and the 1R ceiling, the spread of precision, the metrics under 1R, and the
    papers' AR precision of popularity."""
    spread, (significant, pairs) = study.precision_spread(), study.significant_pairs
    ai, ti = study.choice.ar
    return {
        "here": study.ratings.name, **weight_values(relevant_weight(study.folds[0].test)),
        "ai_design": ai, "ti_design": ti, "ai_ti_gap": fmt_number(study.ai_ti_gap, 4),
        "candidates": candidates_clause(study.untested_share), "best_one_r": fmt_number(study.best_one_r),
        "ceiling": fmt_number(study.ceiling),
        "spread_system": spread.system, "spread_low": fmt_number(spread.low), "spread_high": fmt_number(spread.high),
        "spread_within": fmt_number(spread.within),
        "runs_1r": f"{study.one_r_runs:,}", "map_mrr": map_mrr_clause(study.map_mrr_gap, study.one_r_runs,
                                                                      len(study.folds)),
        "pairs_significant": f"{significant} of {pairs}",
        "paper_pop_ar": f"{published_value('fig2/AR/Popularity/P@10'):g}",
        "paper_pop_ar_lastfm": f"{published_value('fig2/AR-lastfm/Popularity/P@10'):g}",
    }


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


#: verdict of a finding -> how :func:`outcomes_text` words one and several of them
VERDICT_WORDS = {
    FAILS: ("does not hold", "do not hold"),
    DEPARTS: ("fails where the book departs from the papers", "fail where the book departs from the papers"),
    INCONCLUSIVE: ("is inconclusive (within noise)", "are inconclusive (within noise)"),
}


def outcomes_text(found: Sequence[Claim]) -> str:
    """How many of the papers' statements fail, fail where the book departs, or stay inconclusive on this build."""
    verdicts = [c.verdict for c in found if c.kind == FINDING]
    parts = [f"{verdicts.count(v)} {one if verdicts.count(v) == 1 else many}"
             for v, (one, many) in VERDICT_WORDS.items() if verdicts.count(v)]
    if not parts:
        return "Every statement of the papers in the table holds on this build."
    return f"Of the {len(verdicts)} statements of the papers in the table, {and_list(parts)} on this build."


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


def truth_text(check: TruthCheck | None, dataset: str) -> str:
    """What the comparison with the true order shows, or why it cannot be made on ``dataset``."""
    if check is None:
        return (f"*{dataset}* is observed data, without the relevance of the pairs nobody rated, so the orders "
                "cannot be checked against a truth here: the table gives the measured orders only. Build the "
                "chapter on `synthetic` to see the check.")
    found = swaps(check)
    verdict = ("Every design orders" if found.right == found.designs else "No design orders" if found.right == 0 else
               "Only one of the designs orders" if found.right == 1 else
               f"{found.right} of the {found.designs} designs order")
    text = f"The true order is **{order_text(check.true.to_dict())}**. {verdict} the systems as the truth does."
    if found.widest is not None:
        text += " " + _swap_text(check, found.widest, found.gap, found.close)
    best_true, best_measured = float(check.true.max()), float(check.measured.to_numpy().max())
    if best_measured > 0:
        text += (f" The scale differs too: the best true precision, {fmt_number(best_true)}, is "
                 f"{best_true / best_measured:.1f} times the best value any design measures here, because most "
                 "relevant items were never rated and count as failures.")
    return text


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

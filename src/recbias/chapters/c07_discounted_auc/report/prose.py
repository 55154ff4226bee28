"""Chapter 7's notes, the values its prose quotes, and the sentences whose structure depends on the
data (which parts the dataset allows, which system moves where); a part the dataset lacks gives ""
(the page shows the note of :func:`missing_notes` instead)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recbias.bookkit.claims import FAILS, HOLDS
from recbias.bookkit.scorecard import Claim
from recbias.chapters.c07_discounted_auc.report.tables import list_name, metric_name, observed_names
from recbias.chapters.c07_discounted_auc.study import Capabilities, NewUserStudy, SensitivitySearch, Setting
from recbias.chapters.c07_discounted_auc.study import new_users, short_head, systems
from recbias.chapters.c07_discounted_auc.study.setting import MIN_TEST, NON_PERSONALISED
from recbias.ratings import Ratings
from recbias.text import and_list, fmt_count, fmt_number, fmt_pct, fmt_span, ordinal, order_text

#: per capability a dataset may lack: what is missing, and what that takes from the page
MISSING = {
    "threshold": ("ratings up to {threshold:g}",
                  "Its ratings go up to {high:g} only, so the page keeps its own positive threshold, {own:g}, instead "
                  "of {threshold:g}."),
    "attributes": ("user attributes",
                   "Without them there are no segment lists: the short-head search, its resampling intervals and the "
                   "demographic list of the new-user study do not apply, and the metric is used without a step "
                   "(s = 0). Rebuild the chapter on synthetic, ml-100k or coat to see them."),
    "demographics": ("gender and age",
                     "There is no demographic list to compare with; the new-user figure shows how fast the "
                     "recommendations improve with the ratings a newcomer gives."),
    "timestamps": ("timestamps",
                   "Each newcomer reveals her ratings in a random order instead of the order she gave them."),
    "new users": ("users with enough ratings to play newcomers",
                  "Too few users have more than {min_test} ratings, so the new-user study does not apply."),
    "truth": ("complete relevance",
              "Only a simulated world knows whether every user likes every item, so this part does not apply; "
              "rebuild the chapter on synthetic to see it."),
}
#: the verdict of the finding that mishits are negligible, as the page's prose says it
MISHIT_VERDICTS = {
    HOLDS: "the paper's choice is harmless: counting mishits moves no personalised system by more than a tenth "
           "and keeps the order of the systems",
    FAILS: "mishits are not rare enough to ignore: counting them moves a personalised system by more than a tenth "
           "or reorders the systems",
}


def missing_notes(able: Capabilities, ratings: Ratings, threshold: float | None) -> dict[str, str]:
    """One note per capability of :data:`MISSING` the dataset lacks, ``""`` for those it has (a note
    that follows from another missing capability is left out)."""
    lacks = {"threshold": not able.threshold_fits, "attributes": not able.segmentations,
             "demographics": bool(able.segmentations and able.known and not able.demographics),
             "timestamps": bool(able.known and not able.timestamps), "new users": not able.known,
             "truth": not able.truth}
    fields = {"high": ratings.scale[1], "own": ratings.positive_threshold,
              "threshold": np.nan if threshold is None else threshold, "min_test": MIN_TEST}
    return {key: "**Not in {name}: {what}.** {consequence}".format(name=ratings.name, what=what.format(**fields),
                                                                   consequence=consequence.format(**fields))
            if lacks[key] else "" for key, (what, consequence) in MISSING.items()}


def threshold_note(original: Ratings, judged: Ratings) -> str:
    """A sentence when the page judges ratings with another threshold than the dataset card shows."""
    if judged.positive_threshold == original.positive_threshold:
        return ""
    return (f"The card above shows the dataset's own threshold, {original.positive_threshold:g}; this page counts "
            f"ratings of {judged.positive_threshold:g} and above as positive, "
            f"{fmt_pct(judged.positive.mean())} of them.")


def attention_numbers(summary: pd.DataFrame) -> dict[str, str]:
    """The values the prose quotes about the smallest and largest ``Q`` of the attention table."""
    low, high = summary.iloc[0], summary.iloc[-1]
    return {"dauc-q-low": f"{low['Q']:g}", "dauc-read-low": fmt_number(low["read"], 1),
            "dauc-page-low": fmt_pct(low["page"], 0), "dauc-q-high": f"{high['Q']:g}",
            "dauc-read-high": fmt_number(high["read"], 1), "dauc-page-high": fmt_pct(high["page"], 0)}


def discount_numbers(discounts: pd.DataFrame, setting: Setting) -> dict[str, str]:
    """The setting and the weights the prose quotes at the end of the first page, and how the behavioural discount's
    second rank compares (the clause's structure depends on which discount is steepest there)."""
    at = discounts.pivot(index="k", columns="discount", values="weight")
    own, rbp, ndcg = at["behavioural"], at["rbp"], at["ndcg"]
    k = min(setting.m, len(at))
    second = (f"is the steepest of the three at the very top: rank 2 keeps only {fmt_pct(own.loc[2], 0)} of the "
              "weight of rank 1, because the readers who stop after the first item give all their weight to it"
              if own.loc[2] < min(rbp.loc[2], ndcg.loc[2]) else
              f"keeps {fmt_pct(own.loc[2], 0)} of the weight of rank 1 at rank 2, against {fmt_pct(rbp.loc[2], 0)} "
              f"under rank-biased precision and {fmt_pct(ndcg.loc[2], 0)} under nDCG")
    return {"dauc-Q": f"{setting.Q:g}", "dauc-m": f"{setting.m}", "dauc-k": f"{k}",
            "dauc-own-k": fmt_pct(own.loc[k], 0), "dauc-rbp-k": fmt_pct(rbp.loc[k], 0),
            "dauc-ndcg-k": fmt_pct(ndcg.loc[k], 0), "dauc-second-rank": second}


def cases_numbers(cases: pd.DataFrame, effect: pd.DataFrame, m: int) -> dict[str, str]:
    """The values the prose quotes about mishits on the first page and what counting them does."""
    page = cases[cases["list"] == m].set_index("system")["mishits per hit"]
    personal = page.drop(index=[s for s in NON_PERSONALISED if s in page.index])
    verdict = systems.mishit_verdict(effect)
    return {"dauc-mishits-personal": fmt_span(personal.min(), personal.max()),
            "dauc-mishits-random": fmt_number(page["Random"], 2), "dauc-mishit-system": verdict.system,
            "dauc-mishit-drop": fmt_pct(-verdict.change, 0),
            "dauc-mishit-order": "changes the order of the systems" if verdict.reorders else
            "leaves the order of the systems as it was"}


def mishit_verdict(checked: Sequence[Claim]) -> str:
    """The verdict of the finding ``mishits-are-negligible`` among the registered claims, as a clause."""
    outcome = next(claim.outcome for claim in checked if claim.key == "mishits-are-negligible")
    return MISHIT_VERDICTS[outcome]


def q_text(sweep: pd.DataFrame) -> str:
    """How the order of the systems moves between the smallest and largest ``Q`` of the sweep."""
    orders = [order_text(sweep[Q].to_dict()) for Q in sweep.columns]
    first, last = sweep.columns[0], sweep.columns[-1]
    if len(set(orders)) == 1:
        return (f"The order of the systems is {orders[0]} for every Q from {first:g} to {last:g}: on these data, "
                "attention does not change which system comes first.")
    change = next(Q for Q, order in zip(sweep.columns, orders, strict=True) if order != orders[0])
    count = len(set(orders))
    return (f"At Q = {first:g}, where only the first item counts, the order is {orders[0]}; at Q = {last:g}, where "
            f"every item of the list counts alike, it is {orders[-1]}. The first change comes at Q = {change:g}, "
            + ("and these are the only two orders of the sweep." if count == 2 else
               f"and {count} different orders appear along the sweep."))


def segments_note(ratings: Ratings, segments: Sequence[tuple[str, ...]]) -> str:
    """Which segmentations the search uses ("" without any: :func:`missing_notes` says why)."""
    singles = [g[0] for g in segments if len(g) == 1]
    if not singles:
        return ""
    if len(singles) == 1:
        return f"The users of {ratings.name} carry one attribute, {singles[0]}, the only segmentation of the search."
    return (f"The users of {ratings.name} carry {and_list(singles)}; the search uses each attribute alone and every "
            f"pair of them, {len(segments)} segmentations in all.")


def _increase(share: float) -> str:
    """A relative increase as prose: one decimal below 10%, none above ("7.1%", "317%")."""
    return fmt_pct(share, 1 if abs(share) < 0.1 else 0)


def _small_share(share: float) -> str:
    """A small share as prose: "0.3%", or "less than 0.1%"."""
    return "less than 0.1%" if 0 < share < 0.001 else fmt_pct(share)


def search_text(search: SensitivitySearch | None, n_items: int) -> str:
    """The outcome of the short-head search in words."""
    if search is None:
        return ""
    curve = search.curve.set_index("s")
    chosen, plain = curve.loc[search.chosen], curve.loc[0]
    wins = search.cells[search.cells["s"] == search.chosen]["wins"].min()
    increase = plain["relative increase"]
    return (
        f"Without the step, the segment lists {'beat' if increase > 0 else 'trail'} the global list by "
        f"{_increase(abs(increase))} on average ({fmt_number(abs(plain['sensitivity']), 1)} resampling standard "
        f"deviations). The search settles on s = {search.chosen} ({fmt_pct(search.chosen / n_items)} of the "
        f"catalogue), where the increase is {_increase(chosen['relative increase'])} "
        f"({fmt_number(chosen['sensitivity'], 1)} standard deviations) and every segment list beats the global list "
        + ("in every resample" if wins == 1 else f"in at least {fmt_pct(wins, 0)} of the resamples")
        + f". Taken literally, the paper's criterion would pick s = {search.literal_choice}, where the global list "
        f"keeps {_small_share(curve.loc[search.literal_choice, 'global'] / plain['global'])} of its unpenalised value."
    )


def _intervals(rows: pd.DataFrame) -> str:
    """How many resampling intervals contain zero, and how many lie below it."""
    contain, below, n = int(((rows["low"] <= 0) & (rows["high"] >= 0)).sum()), int((rows["high"] < 0).sum()), len(rows)
    text = ("no interval contains zero" if contain == 0 else "the interval contains zero" if n == 1 else
            f"all {n} intervals contain zero" if contain == n else f"{contain} of the {n} intervals contain zero")
    return text + (f" and {below} {'lies' if below == 1 else 'lie'} entirely below it (the segment lists lose)"
                   if below else "")


def instability_text(search: SensitivitySearch | None) -> str:
    """How the resampling intervals of the segment lists' increases change with the step."""
    if search is None:
        return ""
    table = short_head.intervals(search)
    plain, stepped = table[table["s"] == 0], table[table["s"] == search.chosen]
    return f"Without the step, {_intervals(plain)}; at s = {search.chosen}, {_intervals(stepped)}."


def head_text(search: SensitivitySearch | None, shares: pd.DataFrame | None, n_items: int, paper: float) -> str:
    """How much of the unpenalised metric the short head supplies, against the paper's share ``paper``."""
    if search is None:
        return ""
    if shares is None:
        return "The search chose no step (s = 0), so there is no short head to measure."
    personal = shares[shares["system"] != "Random"].set_index("system")["short-head share"]
    spread = (fmt_pct(personal.iloc[0], 0) if len(personal) == 1 else
              f"between {fmt_pct(personal.min(), 0)} ({personal.idxmin()}) and {fmt_pct(personal.max(), 0)} "
              f"({personal.idxmax()})")
    return (f"The {search.chosen} most-rated items, {fmt_pct(search.chosen / n_items)} of the catalogue, supply "
            f"{spread} of the unpenalised metric of the non-random systems, {fmt_pct(personal.median(), 0)} in the "
            f"median. The paper puts the short head's contribution on Imhonet at about {fmt_pct(paper, 0)}, "
            "without saying where its head ends.")


def new_user_setup_text(study: NewUserStudy | None, max_known: int) -> str:
    """How many new users the cold-start study has, how many ratings they reveal (and why fewer than
    ``max_known``, if so) and which systems learn from them."""
    if study is None:
        return ""
    most, groups, names = study.known[-1], len(study.splits), list(study.curves["system"].unique())
    reason = ("" if most >= max_known else
              f" (at most {most}, so that enough users keep {MIN_TEST} ratings for the test)")
    learners = "system that learns from them is" if len(names) == 1 else "systems that learn from them are"
    return (f"Here {study.n_users:,} users play the newcomers, in {fmt_count(groups, 'group', 'groups')}; they reveal "
            f"up to {most} ratings{reason}. The {learners} {' and '.join(names)}.")


def crossing_text(study: NewUserStudy | None) -> str:
    """From how many known ratings each system stays above the demographic list, one sentence per metric
    ("" without demographics: :func:`missing_notes` says why)."""
    if study is None or not study.attributes:
        return ""
    demographic = list_name(study, new_users.DEMOGRAPHIC)
    sentences = []
    for metric, rows in study.crossings.groupby("metric", sort=False):
        parts = [f"{row.system} stays above {demographic} from k = "
                 f"{fmt_count(int(row.crossing), 'known rating', 'known ratings')} on" if np.isfinite(row.crossing) else
                 f"{row.system} does not stay above {demographic} at any k up to {study.known[-1]}"
                 for row in rows.itertuples()]
        label = "Without the step" if metric == new_users.NO_STEP else f"With the {metric_name(metric, study.step)}"
        sentences.append(f"{label}, {and_list(parts)}.")
    return " ".join(sentences)


def heads_text(study: NewUserStudy | None, m: int) -> str:
    """How many of the step's head items each list of the new-user study spends its first page on."""
    if study is None or not study.step:
        return ""
    names = [list_name(study, row.list) if np.isnan(row.k) else
             f"{row.list} with {fmt_count(int(row.k), 'known rating', 'known ratings')}"
             for row in study.heads.itertuples()]
    shown = ", ".join(f"{name} shows {fmt_number(count, 1)}" for name, count in zip(names, study.heads["count"],
                                                                                   strict=True))
    return (f"The step's {study.step} items are not spread evenly over the lists. On the first page of {m} items, "
            f"{shown} of them on average, and every such slot is worth nothing under the step.")


def step_effect_text(study: NewUserStudy | None) -> str:
    """What the step does to the crossing of the headline system ("" without a step or without demographics)."""
    headline = None if study is None else study.headline
    if headline is None:
        return ""
    system, stepped = headline["system"], headline["crossing"]
    plain = study.crossings.set_index(["system", "metric"]).loc[(system, new_users.NO_STEP), "crossing"]
    if np.isnan(stepped):
        return (f"Even with the step, {system} does not stay above the demographic list within the {study.known[-1]} "
                "ratings of the study: on these data, gender and age are worth more than the ratings a newcomer "
                "gives at first.")
    if np.isnan(plain) or plain > stepped:
        before = "no k of the study" if np.isnan(plain) else f"k = {plain:g}"
        return f"On these data the step brings the crossing of {system} forward, from {before} to k = {stepped:g}."
    return (f"On these data the step does not bring the crossing of {system} forward: the short head is not what "
            "holds the demographic list up here.")


def ranking_text(means: pd.DataFrame) -> str:
    """Where the step moves the systems, Popularity above all (without a step, their order)."""
    if systems.STEP not in means.columns:
        return f"Without a step, the metric orders the systems {order_text(means[systems.NO_STEP].to_dict())}."
    ranks = means.rank(ascending=False, method="min").astype(int)
    plain, stepped = ranks[systems.NO_STEP], ranks[systems.STEP]
    moved = [f"{system} from {ordinal(plain[system])} to {ordinal(stepped[system])} place" for system in ranks.index
             if plain[system] != stepped[system]]
    text = f"The step moves {', '.join(moved)}." if moved else "The step moves no system."
    if {"Popularity", "Random"} <= set(ranks.index):
        below = ", below Random" if stepped["Popularity"] > stepped["Random"] else ""
        text += f" Popularity ends {ordinal(stepped['Popularity'])} of {len(ranks)}{below}."
    return text


def truth_text(agreement: pd.DataFrame | None, s: int) -> str:
    """Which observed metric comes closest to the true orders, ranked by its mean tau over the truths."""
    if agreement is None:
        return ""
    spans = agreement.assign(**{"observed metric": observed_names(agreement, s)}).groupby(
        "observed metric", sort=False)["tau"].agg(["mean", "min", "max"]).sort_values("mean", ascending=False)
    text = {name: fmt_span(row["min"], row["max"]) for name, row in spans.iterrows()}
    best, *others = text
    return (f"On this world, {best} orders the systems closest to the truth (Kendall's τ {text[best]} over the "
            f"three true orders), followed by {and_list([f'{name} ({text[name]})' for name in others])}.")

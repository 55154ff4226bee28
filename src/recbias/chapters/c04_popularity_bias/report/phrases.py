"""The phrases chapter 4's prose glues in: numbers as the page prints them, and the few clauses
whose wording depends on what the build measured (short templates keyed by an outcome).

Each function returns ``{glue name: text}`` for one section of the page.  Comparisons of two systems
are worded from the same beyond-noise test the chapter's claims use
(:func:`recbias.bookkit.claims.beyond_noise`), and agreement with a published number from the
same check the scorecard makes (:func:`recbias.bookkit.claims.evaluate`).
"""

from __future__ import annotations

import pandas as pd

from recbias.bookkit.claims import FAILS, HOLDS, INCONCLUSIVE, beyond_noise, evaluate
from recbias.bookkit.scorecard import AGREES, DIFFERS, NOT_COMPARABLE
from recbias.chapters.c04_popularity_bias.claims import paper_number
from recbias.chapters.c04_popularity_bias.study.orderings import ABOVE, BELOW, INSIDE, ORACLE, OrderingStudy
from recbias.chapters.c04_popularity_bias.study.orderings import bounds_table
from recbias.chapters.c04_popularity_bias.study.ratio import ratio_trends
from recbias.chapters.c04_popularity_bias.study.setup import PERSONALISED, SHRUNK_MEAN_RATING
from recbias.chapters.c04_popularity_bias.study.skew import (
    EXACT,
    IN_EXPECTATION,
    PAPERS_PRESET,
    PLSA_TOLERANCE,
    RATING_PREDICTORS,
    TOP_N_LEARNERS,
    SkewSweep,
    climbing,
    expectation_gap,
    fitted_alpha,
    plsa_gap,
)
from recbias.chapters.c04_popularity_bias.study.truth import (
    FALLS as GROUP_FALLS,
    RISES,
    WITHIN_NOISE,
    direction,
    overstated,
    popularity_over,
)
from recbias.chapters.c04_popularity_bias.report.tables import TREND_WORDS
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS
from recbias.text import and_list, fmt_count, fmt_number, fmt_p_clause, fmt_pct, fmt_span

#: one system against another, by the outcome of the beyond-noise test of their difference
VERSUS = {HOLDS: "beats", FAILS: "falls behind", INCONCLUSIVE: "is within noise of"}

#: a group mean from the least to the most mainstream users
MOVES = {RISES: "rises", GROUP_FALLS: "falls", WITHIN_NOISE: "changes within noise"}


def compared(difference: float, p: float) -> str:
    """The outcome of :func:`recbias.bookkit.claims.beyond_noise` on one difference and its paired p-value."""
    return beyond_noise("difference", "p")({"difference": difference, "p": p})


def ordering_name(system: str) -> str:
    """An ordering as the prose names it: ``"positive count"``, ``"the test-set oracle"``."""
    return "the test-set oracle" if system == ORACLE else system.lower()


def _versus(study: OrderingStudy, system: str, other: str) -> tuple[str, str]:
    """The outcome of ``system`` against ``other`` in 1R (:func:`compared`), and the p-value as a clause."""
    one, p = study.means(study.one_relevant), study.p_value(study.one_relevant, system, other)
    return compared(one[system] - one[other], p), fmt_p_clause(p)


def orderings_phrases(study: OrderingStudy) -> dict[str, str]:
    """The comparison of the non-personalised orderings in 1R: the best trained ordering, and the paired
    tests of positive count and mean rating against popularity, of the shrunk against the raw mean and
    of popularity against the oracle."""
    one = study.means(study.one_relevant)
    best = study.best_trained(study.one_relevant)
    phrases = {"dataset-name": study.dataset, "target-size": str(study.target_size),
               "one-relevant-design": study.one_relevant, "best-ordering": ordering_name(best),
               "best-ordering-precision": fmt_number(one[best], 4),
               "folds-text": f"{fmt_count(study.folds, 'coin-flip split', 'coin-flip splits')} "
                             f"({fmt_pct(study.test_ratio, 0)} held out)",
               "oracle-share": fmt_pct(one["Popularity"] / one[ORACLE], 0)}
    pairs = {"positive-vs-all": ("Positive count", "Popularity"), "mean-vs-popularity": ("Mean rating", "Popularity"),
             "shrunk-vs-mean": (SHRUNK_MEAN_RATING, "Mean rating")}
    for name, (system, other) in pairs.items():
        outcome, phrases[f"{name}-p"] = _versus(study, system, other)
        phrases[name] = VERSUS[outcome]
    outcome, phrases["oracle-p"] = _versus(study, "Popularity", ORACLE)
    phrases["oracle-gap"] = "within noise" if outcome == INCONCLUSIVE else "beyond noise"
    return phrases


#: where the measured 1R precision of some orderings lies against their closed-form bounds, and why
POSITIONS = {
    INSIDE: "The 95% interval of the measured value meets the closed-form bounds for {names}.",
    ABOVE: "For {names} the interval lies above the bounds: the bounds take the order of items as given, while "
           "these orders are learned from ratings of the same users (or read from the test set), so that an item "
           "ranked high tends to hold more of the held-out ratings than its |PR(i)| alone predicts.",
    BELOW: "For {names} the interval lies below the bounds: the closed form treats each target set as a random "
           "subset of the candidates, while a real one always holds the user's relevant items and excludes her "
           "training items.",
}


def bounds_phrases(study: OrderingStudy) -> dict[str, str]:
    """Popularity's closed-form bounds, measured value and exact expectation; where every ordering's
    interval lies against its bounds; whether the lemma's bounds hold on the first split."""
    table = bounds_table(study).set_index("system")
    popularity = table.loc["Popularity"]
    groups = {position: [ordering_name(s) for s in table.index[table["position"] == position]]
              for position in POSITIONS}
    if len(groups[INSIDE]) == len(table):
        groups[INSIDE] = ["every ordering"]
    broken = [ordering_name(s) for s, row in table.iterrows()
              if not row["lemma lower"] <= row["first split"] <= row["lemma upper"]]
    return {
        "bounds-lower": fmt_number(popularity["closed-form lower"], 4),
        "bounds-upper": fmt_number(popularity["closed-form upper"], 4),
        "bounds-measured": fmt_number(popularity["1R P@10"], 4),
        "bounds-expected": fmt_number(popularity["exact expectation"], 4),
        "bounds-positions": " ".join(POSITIONS[position].format(names=and_list(names))
                                     for position, names in groups.items() if names),
        "lemma-verdict": f"fail for {and_list(broken)}, which points to a fault in the design's shared non-relevant "
                         "items" if broken else "hold for every ordering, as they must",
    }


def _times(value: float, reference: float) -> str:
    """``value`` as a multiple of ``reference``, one decimal (``"n/a"`` when the reference is zero)."""
    return fmt_number(value / reference, 1) if reference > 0 else "n/a"


def _climb(names: list[str]) -> str:
    """``"climbs"`` after one name, ``"climb"`` after several."""
    return "climbs" if len(names) == 1 else "climb"


def _below_random(row: pd.Series) -> str:
    """Whether popularity lies below random on one world of :attr:`SkewSweep.expected`, beyond noise."""
    return compared(row["Random"] - row["Popularity"], row["p (Popularity vs Random)"])


def _mean_rating(sweep: SkewSweep) -> str:
    """Where the mean-rating ordering ends at the largest skew, against random's mean (by its interval)."""
    random = sweep.series("Random")[sweep.top]
    if sweep.series("Mean rating", "ci_high")[sweep.top] < random:
        return ("ends below random: with popularity skewed, the items with extreme means are the rarely rated ones, "
                "which hold few test ratings")
    return "ends above random" if sweep.series("Mean rating", "ci_low")[sweep.top] > random else "stays near random"


#: where a system ends against random, by :func:`compared` on its paired difference
AGAINST_RANDOM = {HOLDS: "above random", FAILS: "below random", INCONCLUSIVE: "at random's level"}


def _rating_predictors(sweep: SkewSweep) -> str:
    """Where the papers' rating predictors end against random at the largest skew (paired test), with the
    reason when one of them ends below it."""
    top = sweep.top
    outcomes = {s: compared(*sweep.difference("Random", s).loc[top]) for s in RATING_PREDICTORS}
    ends = and_list([f"{s} ends {AGAINST_RANDOM[o]} ({fmt_number(sweep.series(s)[top], 4)})"
                     for s, o in outcomes.items()])
    text = (f"at α = {top:g}, against random's {fmt_number(sweep.series('Random')[top], 4)} and popularity's "
            f"{fmt_number(sweep.series('Popularity')[top], 4)}, {ends}")
    if FAILS in outcomes.values():
        text += (". A rating predictor sits below random here for the reason the mean rating does: the items "
                 "rated by many get predictions close to the global mean, so the extreme predictions, high ones "
                 "included, go to rarely rated items, which hold few test ratings")
    return text


def sweep_phrases(sweep: SkewSweep, ratings: Ratings) -> dict[str, str]:
    """The set-up of the sweep (its worlds, designs and skews, and where ``ratings`` sit on the skew axis),
    how the systems move along it, and which personalised systems climb with the skew."""
    if sweep.all_relevant is None:
        raise ValueError("the page reads a sweep run in 1R and AR; this one was run in 1R only")
    shape = PRESETS[sweep.preset]
    top, at = sweep.top, {s: sweep.series(s)[sweep.top] for s in ("Popularity", "Random")}
    ar = {s: sweep.series(s, design=sweep.all_relevant)[top] for s in ("Popularity", "Random")}
    climbers, top_n = climbing(sweep), climbing(sweep, tuple(TOP_N_LEARNERS))
    return {
        "sweep-shape": f"{shape['n_users']:,} users, {shape['n_items']:,} items and {shape['n_ratings']:,} ratings"
                       + (", as MovieLens 1M" if sweep.preset == PAPERS_PRESET else ", fewer than MovieLens 1M"),
        "sweep-nonrelevant": f"{int(sweep.all_relevant[len('TI-NN('):-1]):,}", "sweep-ar-design": sweep.all_relevant,
        "alpha-here": fmt_number(fitted_alpha(ratings), 2), "sweep-count": str(len(sweep.alphas)),
        "sweep-alphas": and_list([f"{a:g}" for a in sweep.alphas]), "sweep-top": f"{top:g}",
        "sweep-start": {HOLDS: "below random", FAILS: "above random", INCONCLUSIVE: "the level of random"}[
            _below_random(sweep.uniform(EXACT))],
        "sweep-lift": _times(at["Popularity"], at["Random"]), "sweep-lift-ar": _times(ar["Popularity"], ar["Random"]),
        "sweep-climbers": f"{and_list(climbers)} {_climb(climbers)} with it, although no user prefers any item to "
                          "another." if climbers else "No personalised system climbs with it.",
        "sweep-expectation-gap": fmt_pct(expectation_gap(sweep), 0), "sweep-mean-rating": _mean_rating(sweep),
        "plsa-verdict": "tracks popularity closely, as the papers observed" if plsa_gap(sweep) <= PLSA_TOLERANCE
                        else "does not track popularity as closely as the papers observed",
        "knn-mf-verdict": _rating_predictors(sweep),
        "top-n-verdict": (f"{and_list(top_n)} {_climb(top_n)} above random with the skew" if top_n
                          else "neither climbs above random here"),
        "climbing": f"Here {and_list(climbers)} {_climb(climbers)} with the skew on data without any preference"
                    if climbers else "None of the personalised systems climbed with the skew on the preference-free "
                                     "worlds here, but a system that learns from which items are rated can",
    }


#: how our popularity at alpha = 0 stands against the paper's, by the scorecard's verdict on the number
MATCH = {AGREES: "ours agrees with it within sampling noise",
         DIFFERS: "ours is further from it than sampling noise allows",
         NOT_COMPARABLE: "they simulated worlds of ML-1M's shape, which this build did not "
                         "(sweep_preset = \"{preset}\")"}


def uniform_phrases(sweep: SkewSweep) -> dict[str, str]:
    """The worlds at alpha = 0: popularity against random and against the paper's value with item counts
    fixed exactly, and what changes when they are fixed only in expectation."""
    exact, loose = sweep.uniform(EXACT), sweep.uniform(IN_EXPECTATION)
    paper = paper_number("Popularity")
    match = evaluate(paper, {paper.key: exact["Popularity"]}, dataset=sweep.dataset).verdict
    below, loose_below = _below_random(exact), _below_random(loose)
    return {
        "uniform-verdict": {HOLDS: "measures below random, as the papers found",
                            FAILS: "measures above random, unlike the papers",
                            INCONCLUSIVE: "does not measure below random beyond noise here"}[below],
        "uniform-popularity": fmt_number(exact["Popularity"], 4), "uniform-random": fmt_number(exact["Random"], 4),
        "uniform-p": fmt_p_clause(exact["p (Popularity vs Random)"]), "paper-popularity": fmt_number(paper.value, 4),
        "uniform-match": MATCH[match].format(preset=sweep.preset),
        "uniform-closed-form": fmt_number(exact["Popularity expected"], 4),
        "loose-variance": fmt_number(loose["item count variance / mean"], 2),
        "loose-shift": fmt_number(-loose["training shift"], 2), "exact-shift": fmt_number(-exact["training shift"], 2),
        "loose-verdict": {HOLDS: "stays below random", FAILS: "rises above random",
                          INCONCLUSIVE: "sits at random"}[loose_below],
        "loose-p": fmt_p_clause(loose["p (Popularity vs Random)"]),
        "uniform-lesson": "The papers' result therefore rests on a detail of their simulation, which fixes each "
                          "item's number of ratings exactly, as our reproduction does; the default generator of "
                          "recbias.synthetic fixes it only in expectation."
                          if below == HOLDS and loose_below == INCONCLUSIVE else
                          "Here the two ways of fixing the item counts do not give the clean contrast the "
                          "derivation predicts.",
    }


def ratio_phrases(curves: pd.DataFrame, here: str) -> dict[str, str]:
    """Where the share of positive ratings grows with popularity, where not, and its two ends on ``here``."""
    trends = ratio_trends(curves).set_index("dataset")
    groups = trends.groupby("trend", sort=False).groups
    own = trends.loc[here]
    return {"ratio-trends": "; it ".join(f"{TREND_WORDS[trend]} on {and_list(list(names))}"
                                         for trend, names in groups.items()),
            "ratio-tail": fmt_pct(own["tail ratio"]), "ratio-head": fmt_pct(own["head ratio"])}


def grid_phrases(grid: pd.DataFrame, preset: str) -> dict[str, str]:
    """How far the offline lift over random and the offline share of the personalised system's precision
    are from the true ones across the grid, and at its strongest observation bias."""
    lift, share = popularity_over(grid, "Random"), popularity_over(grid, PERSONALISED)
    gaps = share[["1R", "AR"]].sub(share["true"], axis=0).abs().mean()
    closer = "AR" if gaps["AR"] < gaps["1R"] else "1R"
    strongest = share.index.max()
    return {
        "grid-worlds": str(len(share)), "grid-preset": preset,
        **{f"grid-lift-{measure.lower()}": fmt_span(lift[measure].min(), lift[measure].max(), "{:.1f}")
           for measure in lift.columns},
        "grid-overstates": "overstates popularity in every world" if overstated(grid).all()
                           else "does not overstate popularity in every world",
        "grid-strongest-alpha": f"{strongest[0]:g}", "grid-strongest-selection": f"{strongest[1]:g}",
        "grid-share-1r": fmt_pct(share.loc[strongest, "1R"], 0),
        "grid-share-true": fmt_pct(share.loc[strongest, "true"], 0),
        "grid-closer": closer, "grid-closer-gap": fmt_number(gaps[closer], 2),
        "grid-other-gap": fmt_number(gaps.drop(closer).iloc[0], 2),
    }


def _moves(frame: pd.DataFrame, first: int, last: int, what: str) -> str:
    """How popularity's and the personalised system's ``what`` move from group ``first`` to group ``last``."""
    ends = {system: (frame.loc[(first, system)], frame.loc[(last, system)]) for system in ("Popularity", PERSONALISED)}
    values = {system: f"{fmt_number(a['mean'], 3)} to {fmt_number(b['mean'], 3)}" for system, (a, b) in ends.items()}
    moves = {system: direction(a, b) for system, (a, b) in ends.items()}
    if set(moves.values()) == {WITHIN_NOISE}:
        return (f"neither popularity's nor {PERSONALISED}'s {what} changes beyond noise (popularity "
                f"{values['Popularity']}, {PERSONALISED} {values[PERSONALISED]})")
    return (f"popularity's {what} {MOVES[moves['Popularity']]} ({values['Popularity']}) and {PERSONALISED}'s "
            f"{MOVES[moves[PERSONALISED]]} ({values[PERSONALISED]})")


def _wins(measured: pd.DataFrame, first: int, last: int) -> str:
    """For how many users of the two end groups popularity beats the personalised system."""
    wins = [fmt_pct(measured.loc[(group, "Popularity"), "wins"], 0) for group in (first, last)]
    if wins == ["0%", "0%"]:
        return f"Popularity beats {PERSONALISED} for none of the users of these two groups."
    if wins[0] == wins[1]:
        return f"Popularity beats {PERSONALISED} for {wins[0]} of the users of each of the two groups."
    return (f"Popularity beats {PERSONALISED} for {wins[0]} of the least mainstream users and {wins[1]} of the "
            "most mainstream.")


def mainstream_phrases(table: pd.DataFrame) -> dict[str, str]:
    """Popularity and the personalised system from the least to the most mainstream group, measured and,
    on a simulated world, true."""
    measured = table[table["measure"] == "measured"].set_index(["group", "system"])
    first, last = measured.index.get_level_values("group").min(), measured.index.get_level_values("group").max()
    true = table[table["measure"] == "true"].set_index(["group", "system"])
    return {"mainstream-measured": _moves(measured, first, last, "AR precision"),
            "mainstream-wins": _wins(measured, first, last),
            "mainstream-true": f"On the world's complete relevance, {_moves(true, first, last, 'true precision')}."
                               if len(true) else "This dataset has no complete relevance to set the groups against."}

"""Chapter 2 ("Experimental design alternatives"): the papers' statements and numbers on the comparison.

IRJ 2017 Sec. 3.3 and Fig. 2 state which system leads under AR and 1R, where
popularity stands, that AI and TI give nearly the same precision and that every pair
of systems differs significantly; they also print a few values
(``published/design_space.csv``).  :func:`checks` tests each statement on this
build's :class:`~recbias.experiments.design_space.DesignStudy`, and the other
functions turn them into scorecard entries, a table and the page's sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

from recbias import datasets
from recbias.experiments.design_space import PERSONALISED, DesignStudy
from recbias.text import fmt_number, fmt_pct, fmt_yes, ordinal

@dataclass(frozen=True)
class Check:
    """A statement of the papers about the comparison, checked on this build.

    Attributes:
        key: scorecard key.
        statement: the statement in a few words, as the comparison table shows it.
        label: the statement in full, as the scorecard shows it.
        paper: what the papers found; ours: what we found.
        holds: whether ours bears the statement out.
        evidence: the numbers behind the verdict.
        dataset: our dataset; paper_dataset: the papers'.
    """

    key: str
    statement: str
    label: str
    paper: str
    ours: str
    holds: bool
    evidence: str
    dataset: str
    paper_dataset: str


def checks(study: DesignStudy) -> list[Check]:
    """The papers' statements about the comparison (IRJ 2017 Sec. 3.3) on this build's datasets."""
    here, ar, one_r = study.ratings.name, study.choice.main_ar, study.choice.one_r
    ar_order, one_r_order = study.order(here, ar), study.order(here, one_r)
    ar_p, one_r_p = study.measured(here, ar), study.measured(here, one_r)
    place = ar_order.index("Popularity") + 1
    gap = max(abs(study.measured(here, study.choice.ar[0])[s] - ar_p[s]) for s in study.systems)
    tests = study.tests[study.tests["dataset"] == here]
    significant, pairs = int(tests["significant"].sum()), int(tests["pairs"].sum())

    def mf_above_knn(design: str, values: dict[str, float], order: list[str]) -> Check:
        above = order.index("MF") < order.index("user-kNN")
        return Check(f"fig2/{design}/MF-above-kNN", f"MF above kNN, {design}", f"MF beats user-kNN under {design}",
                     "yes", fmt_yes(above), above,
                     f"{design} P@10: MF {fmt_number(values['MF'], 4)}, user-kNN {fmt_number(values['user-kNN'], 4)}",
                     here, "ml-1m")

    found = [
        Check("fig2/AR/pLSA-first", "best system, AR", "pLSA has the best AR precision of the five systems", "pLSA",
              ar_order[0], ar_order[0] == "pLSA", f"AR {ar} order: {' > '.join(ar_order)}", here, "ml-1m"),
        Check("fig2/1R/pLSA-first", "best system, 1R", "pLSA has the best 1R precision of the five systems", "pLSA",
              one_r_order[0], one_r_order[0] == "pLSA", f"1R order: {' > '.join(one_r_order)}", here, "ml-1m"),
        Check("fig2/AR/Popularity-second", "Popularity's place, AR",
              "Popularity comes second under AR, ahead of two personalised systems", ordinal(2), ordinal(place),
              place == 2, f"Popularity is {ordinal(place)} under AR", here, "ml-1m"),
        mf_above_knn("AR", ar_p, ar_order),
        mf_above_knn("1R", one_r_p, one_r_order),
        Check("fig2/AI-TI-alike", f"largest |{study.choice.ar[0]} − {ar}| gap in P@10",
              "AI and TI candidate sets give almost the same AR precision (gap below 0.01)", "almost none",
              fmt_number(gap, 4), gap < 0.01, f"largest |{study.choice.ar[0]} - {ar}| P@10 gap: {fmt_number(gap, 4)}",
              here, "ml-1m"),
        Check("fig2/all-pairs-significant", "pairs of systems with p < 0.001",
              "every pair of systems differs with Wilcoxon p < 0.001 in every design", "all",
              f"{significant} of {pairs}", significant == pairs, f"{significant} of {pairs} pairs", here, "ml-1m"),
    ]
    if study.second is not None:
        other, second_ar = study.second_name, study.second_ar
        other_ar, other_1r = study.order(other, second_ar), study.order(other, one_r)
        found += [
            Check("fig2/AR-lastfm/Popularity-first", "best system, AR (Last.fm)",
                  "on Last.fm, Popularity has the best AR precision", "Popularity", other_ar[0],
                  other_ar[0] == "Popularity", f"AR {second_ar} order: {' > '.join(other_ar)}", other, "lastfm-1k"),
            Check("fig2/lastfm/AR-1R-disagree", "AR and 1R order some systems differently (Last.fm)",
                  "on Last.fm, AR and 1R order some pairs of systems differently", "yes", fmt_yes(other_ar != other_1r),
                  other_ar != other_1r, f"AR: {' > '.join(other_ar)}; 1R: {' > '.join(other_1r)}", other, "lastfm-1k"),
        ]
    return found


def findings(study: DesignStudy) -> list[dict]:
    """Arguments of :func:`recbias.bookkit.scorecard.finding` for each of :func:`checks`
    (``key``, ``label``, ``holds``, ``evidence``, ``dataset``)."""
    return [{"key": c.key, "label": c.label, "holds": bool(c.holds), "evidence": c.evidence, "dataset": c.dataset}
            for c in checks(study)]


def published() -> pd.DataFrame:
    """The published numbers this chapter recomputes (``published/design_space.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/design_space.csv").open() as handle:
        return pd.read_csv(handle, comment="#", keep_default_na=False)


def published_value(key: str) -> str:
    """A published number of :func:`published` as the prose quotes it (``"0.08"``)."""
    values = published().set_index("key")["value"]
    if key not in values.index:
        raise KeyError(f"no published number {key!r}; known: {', '.join(values.index)}")
    return f"{float(values[key]):g}"


def _ours(study: DesignStudy, row: pd.Series) -> tuple[float, str, str] | None:
    """Our value of a published number, the dataset it was computed on and the design; None when not run."""
    if row["measure"] == "ceiling":
        return study.ceiling, study.ratings.name, study.choice.one_r
    if row["on"] == "second" and study.second is None:
        return None
    dataset, design = ((study.ratings.name, study.choice.main_ar) if row["on"] == "main"
                       else (study.second_name, study.second_ar))
    return float(study.means.loc[(dataset, design, "Popularity")]), dataset, design


def published_numbers(study: DesignStudy) -> list[dict]:
    """Arguments of :func:`recbias.bookkit.scorecard.number` for each published number this build recomputes."""
    claims = []
    for _, row in published().iterrows():
        ours = _ours(study, row)
        if ours is None:
            continue
        value, dataset, design = ours
        claims.append({"key": row["key"], "ours": value, "paper": float(row["value"]), "tolerance": float(row["tolerance"]),
                       "source": row["source"], "dataset": dataset, "paper_dataset": row["paper_dataset"],
                       "label": row["statement"], "note": f"{design}; {row['note']}"})
    return claims


def paper_table(study: DesignStudy) -> pd.DataFrame:
    """The papers' statements and numbers next to ours, with the dataset each refers to."""
    rows = [{"statement": c.statement, "paper": c.paper, "our dataset": c.dataset, "ours": c.ours,
             "paper's dataset": c.paper_dataset} for c in checks(study)]
    for claim in published_numbers(study):
        rows.append({"statement": claim["label"], "paper": f"{claim['paper']:.2f}", "our dataset": claim["dataset"],
                     "ours": fmt_number(claim["ours"]), "paper's dataset": claim["paper_dataset"]})
    table = pd.DataFrame(rows)
    return table.iloc[np.argsort(table["our dataset"] != study.ratings.name, kind="stable")].reset_index(drop=True)


def found_text(study: DesignStudy) -> str:
    """What the comparison shows about AI against TI and about the 1R ceiling on the page's dataset."""
    here, (ai, ti), one_r = study.ratings.name, study.choice.ar, study.choice.one_r
    gap = max(abs(study.measured(here, ai)[s] - study.measured(here, ti)[s]) for s in study.systems)
    reports = study.main.reports[study.main.reports["design"] == ti]
    untested = float(1 - reports["n_candidates"].mean() / study.ratings.n_items)
    items = (f"almost every item has a test rating in every split ({fmt_pct(1 - untested)} on average), so AI and TI "
             "draw from nearly the same candidates" if untested < 0.005 else
             f"on average {fmt_pct(untested)} of the items have no test rating in a split, and only AI can draw them "
             "as non-relevant items")
    best = max(study.measured(here, one_r).values())
    return (
        f"On *{here}* the largest gap between {ai} and {ti} over the systems is {fmt_number(gap, 4)}: {items}. "
        f"The best 1R precision, {fmt_number(best)}, stays under the ceiling of {fmt_number(study.ceiling)} that a "
        "perfect ranking attains."
    )


def _title(name: str) -> str:
    try:
        return datasets.info(name).title
    except ValueError:
        return name


def differences_text(study: DesignStudy) -> str:
    """How many of the papers' statements hold here, and how this build's data differ from the papers'."""
    found = checks(study)
    failed = sum(not c.holds for c in found)
    opening = ("Every qualitative statement of the table holds on this build." if not failed else
               f"On this build, {failed} of the {len(found)} qualitative statements of the table "
               f"{'does' if failed == 1 else 'do'} not hold.")
    here = study.ratings
    if here.name == "ml-1m":
        data = "The main dataset is the papers' own, MovieLens 1M, but the splits are our own draws"
    elif here.true_relevance is not None:
        data = (f"The data differ: the papers used MovieLens 1M, this page a simulated world (*{here.name}*) whose "
                "systems need not behave as they do on real ratings")
    else:
        data = (f"The data differ: the papers used MovieLens 1M, this page *{_title(here.name)}* "
                f"({here.n_ratings:,} ratings by {here.n_users:,} users of {here.n_items:,} items)")
    if study.second is not None:
        data += (f", and *{_title(study.second_name)}* stands in for the papers' Last.fm sample"
                 + ("; it has no timestamps, so the papers' temporal split cannot be repeated on it"
                    if study.second_split == "coin" else ""))
    return f"{opening} {data}."


def range_text(study: DesignStudy) -> str:
    """How far one system's P@10 moves across designs and datasets, against the spread of systems within a design."""
    per_panel = study.summary.pivot_table(index=["dataset", "design"], columns="system", values="mean",
                                          observed=True, sort=False)[list(PERSONALISED)]
    low, high = per_panel.min(), per_panel.max()
    widest = (high / low).idxmax()
    spread = float((per_panel.max(axis=1) - per_panel.min(axis=1)).max())
    return (
        f"Across the designs and datasets of this page, the P@10 of {widest} alone runs from "
        f"{fmt_number(low[widest])} to {fmt_number(high[widest])}, while within any one design the three "
        f"personalised systems are never more than {fmt_number(spread)} apart."
    )

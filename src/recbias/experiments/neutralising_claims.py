"""Chapter 5 ("Designs that neutralise popularity"): the papers' claims checked on the build's data.

:func:`findings` checks the qualitative statements of IRJ 2017 Sec. 6.3 and 7 on the page's
datasets, :func:`published_numbers` recomputes the numbers the papers give for MovieLens 1M
(``published/neutralising.csv``), and :func:`fig8_text` says in words what the page's Fig. 8
shows, so that the prose matches every dataset.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from recbias.evaluate import compare
from recbias.experiments.neutralising import FIG8, NEUTRALISING, PERSONALISED, DatasetStudy, fig8_summary
from recbias.experiments.neutralising_index import index_of
from recbias.text import fmt_number, fmt_p_clause, fmt_pct

#: a popularity index at most this large counts as random's level
RANDOM_LEVEL = 0.15


def fig8_text(main: DatasetStudy, indices: pd.DataFrame) -> str:
    """Where the neutralising designs put popularity relative to random and the personalised systems, on
    the main dataset, read from the popularity index (Markdown)."""
    index = {m: index_of(indices, main.name, m) for m in
             ("1R, P@10", "P1R, P@10", "U1R, P@10", "AR, P@10", "UAR, P@10", "1R -10% head, P@10")}

    def level(value: float) -> str:
        return "random's level" if value <= RANDOM_LEVEL else "above random's level"

    p1r, u1r, head = index["P1R, P@10"], index["U1R, P@10"], index["1R -10% head, P@10"]
    text = (f"On {main.name}, popularity's index falls from {fmt_number(index['1R, P@10'], 2)} in 1R to "
            f"{fmt_number(p1r, 2)} under P1R ({level(p1r)}) and {fmt_number(u1r, 2)} under U1R ({level(u1r)}). ")
    uar, ar = index["UAR, P@10"], index["AR, P@10"]
    text += (f"UAR {'lowers' if uar < ar else 'does not lower'} it, from {fmt_number(ar, 2)} in AR to "
             f"{fmt_number(uar, 2)}. ")
    if head < min(p1r, u1r):
        return text + f"Removing the head does better than both here, to {fmt_number(head, 2)}."
    if head < max(p1r, u1r):
        return text + f"Removing the head, at {fmt_number(head, 2)}, falls between the two."
    return text + f"Removing the head leaves more of it than either, {fmt_number(head, 2)}."


def bpref_below_one(study: DatasetStudy) -> tuple[int, int]:
    """How many 1R runs (one per system and run) have bpref below 1, and how many were scored: a sampled
    item the user rated below the threshold is ranked above the relevant one."""
    bpref = study.runs.loc[study.runs["label"] == "1R", "bpref"]
    return int((bpref < 1).sum()), len(bpref)


def bpref_text(study: DatasetStudy) -> str:
    """The sentence the prose quotes about :func:`bpref_below_one`."""
    below, scored = bpref_below_one(study)
    if below == 0:
        return "On this page no such item is ranked above the relevant one, so 1R bpref is 1 throughout."
    return (f"On this page such an item is ranked above the relevant one in {below:,} of the {scored:,} scored "
            f"1R runs ({fmt_pct(below / scored, 2)}), which sets their bpref to 0.")


def findings(main: DatasetStudy, indices: pd.DataFrame, second: DatasetStudy | None = None) -> list[dict]:
    """The qualitative claims of IRJ 2017 Sec. 6.3 and 7 checked on this build (``key``, ``label``, ``holds``,
    ``evidence``, ``dataset``, ``anchor``), a popularity index of at most :data:`RANDOM_LEVEL` counting as
    random's level."""
    name = main.name
    index = {m: index_of(indices, name, m) for m in indices[indices["dataset"] == name]["method"]}
    p10 = fig8_summary(main, ["P@10"]).set_index(["label", "system"])["mean"]
    leaders = {d: p10.loc[d][list(PERSONALISED)].idxmax() for d in FIG8}
    one_r = main.runs[main.runs["label"] == "1R"]
    n_runs = len(one_r) // one_r["system"].nunique()
    below, scored = bpref_below_one(main)
    level = f"popularity index at most {RANDOM_LEVEL:g}"
    claims = [
        ("p1r-random-level", f"P1R brings popularity to the level of random, relative to the personalised systems "
         f"({level})", index["P1R, P@10"] <= RANDOM_LEVEL,
         f"popularity index {index['P1R, P@10']:.2f} under P1R (1R: {index['1R, P@10']:.2f})", "fig-neutralising-index"),
        ("u1r-random-level", f"U1R brings popularity to the level of random, relative to the personalised systems "
         f"({level})", index["U1R, P@10"] <= RANDOM_LEVEL,
         f"popularity index {index['U1R, P@10']:.2f} under U1R (1R: {index['1R, P@10']:.2f})", "fig-neutralising-index"),
        ("uar-reduces", "UAR reduces popularity's advantage over AR", index["UAR, P@10"] < index["AR, P@10"],
         f"popularity index {index['UAR, P@10']:.2f} (UAR) vs {index['AR, P@10']:.2f} (AR)", "fig-neutralising-index"),
        ("ai-uar-more-bias", "AI-UAR leaves more popularity bias than TI-UAR", index["AI-UAR, P@10"] > index["UAR, P@10"],
         f"popularity index {index['AI-UAR, P@10']:.2f} (AI-UAR) vs {index['UAR, P@10']:.2f} (UAR)",
         "fig-neutralising-index"),
        ("head-less-effective", "removing the 10% head is less effective than P1R and U1R",
         index["1R -10% head, P@10"] > max(index["P1R, P@10"], index["U1R, P@10"]),
         f"popularity index {index['1R -10% head, P@10']:.2f} (-10% head) vs {index['P1R, P@10']:.2f} (P1R) and "
         f"{index['U1R, P@10']:.2f} (U1R)", "fig-neutralising-index"),
        ("best-keeps-lead", "one personalised system leads under every neutralising design, ahead of popularity",
         len({leaders[d] for d in NEUTRALISING}) == 1 and all(
             p10[(d, leaders[d])] > p10[(d, "Popularity")] for d in NEUTRALISING),
         "best personalised system per design: " + ", ".join(f"{d} {leaders[d]}" for d in FIG8)
         + " (1R and AR for reference)", "fig-neutralising-fig8"),
        ("bpref-constant-1r", "bpref is 1 for every system in 1R", below == 0,
         f"1R bpref is below 1 in {below:,} of the {scored:,} scored runs ({n_runs:,} runs, each scored for every "
         f"system), mean {one_r['bpref'].mean():.3f}; those runs drew an item the user rated below the threshold, "
         "a judgment that the papers' 1R drops", "tbl-neutralising-fig9"),
    ]
    out = [{"key": k, "label": label, "holds": bool(holds), "evidence": evidence, "dataset": name, "anchor": anchor}
           for k, label, holds, evidence, anchor in claims]
    if second is not None:
        u1r = second.runs[(second.runs["label"] == "U1R") & second.runs["system"].isin(["Popularity", "Random"])]
        test = compare(u1r, ["P@10"], systems=["Popularity", "Random"], average="run").iloc[0]
        out.append({"key": "all-positive-u1r-random", "label": "on data where every rating is positive, U1R makes "
                    "popularity exactly random (no significant difference)", "holds": bool(test["t_pvalue"] > 0.05),
                    "evidence": f"{second.name}: U1R P@10 {test['mean_a']:.4f} (Popularity) vs {test['mean_b']:.4f} "
                    f"(Random), {fmt_p_clause(test['t_pvalue'])}", "dataset": second.name, "anchor": "fig-neutralising-fig8"})
    return out


def published() -> pd.DataFrame:
    """The published numbers this chapter recomputes (``published/neutralising.csv``)."""
    with resources.files("recbias.experiments").joinpath("published/neutralising.csv").open() as handle:
        return pd.read_csv(handle, comment="#")


def published_numbers(study: DatasetStudy, percentiles: int, dataset: str) -> list[dict]:
    """Arguments of one scorecard number per published value, computed on the page's dataset."""
    ours = {"size": study.plan.size, "eta": study.plan.eta, "items / m": study.plan.n_items / percentiles}
    return [{"key": p["key"], "ours": float(ours[p["column"]]), "paper": float(p["value"]),
             "tolerance": float(p["tolerance"]), "source": "IRJ 2017 Sec. 6.1-6.2", "dataset": dataset,
             "paper_dataset": p["paper_dataset"], "label": p["statistic"], "note": p["note"]}
            for _, p in published().iterrows()]

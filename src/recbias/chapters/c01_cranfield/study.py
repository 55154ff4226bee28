"""How positive judgments spread over documents, in IR collections and in rating datasets.

:func:`spread_study` loads the IR judgments (Cranfield, TREC-8) and the rating datasets available, and measures for
each collection the statistics of :func:`recbias.judgments.summary`: the share of documents relevant to a single
query ``s_1``, the reach of the top document, the Gini coefficient and the precision of one fixed list shown to
everybody (IRJ 2017 Sec. 5.3; Bellogín 2012, Table 4.1), with the sweep of each rating dataset's positive threshold
(:func:`recbias.judgments.threshold_sweep`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from recbias import datasets, judgments
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS

#: suffix of the collections built from a simulated world's complete relevance
TRUTH = " (true relevance)"
#: the IR collection the papers' TREC statistics are compared with
TREC = "trec8-adhoc"
#: share of the judged-relevant documents that makes the head of :attr:`SpreadStudy.head_share`
HEAD = 0.1
#: how the page names the IR collections
IR_NAMES = {"cranfield": "Cranfield", "trec8-adhoc": "TREC-8"}


@dataclass(frozen=True)
class SpreadStudy:
    """The collections of the chapter and their statistics.

    Attributes:
        here: name of the page's dataset.
        cutoff: list length ``n`` of the fixed-list precision.
        ratings: the rating datasets, the page's first.
        stats: one row per collection (:func:`recbias.judgments.summary`), indexed by name,
            with a ``label`` column that marks the page's dataset.
        curves: the cumulative share and reach curves of every collection.
        sweeps: the threshold sweep of every rating dataset (:func:`recbias.judgments.threshold_sweep`),
            with its ``collection``.
        skipped: registered rating datasets not available on this machine.
        shipped: IR collections whose judgment files are not on this machine, read from the
            spreads shipped with the package (:data:`recbias.judgments.SHIPPED_SPREADS`).
    """

    here: str
    cutoff: int
    ratings: list[Ratings]
    stats: pd.DataFrame
    curves: pd.DataFrame
    sweeps: pd.DataFrame
    skipped: list[str]
    shipped: list[str]

    @property
    def fixed(self) -> str:
        """Name of the fixed-list precision column."""
        return f"fixed-list P@{self.cutoff}"

    @property
    def ir(self) -> pd.DataFrame:
        return self.stats[self.stats["kind"] == "IR"]

    @property
    def rated(self) -> pd.DataFrame:
        """The observed rating collections (neither IR nor a simulated truth)."""
        return self.stats[(self.stats["kind"] != "IR") & ~self.stats.index.str.endswith(TRUTH)]

    @property
    def mine(self) -> pd.Series:
        """The statistics of the page's dataset."""
        return self.stats.loc[self.here]

    @property
    def world(self) -> Ratings | None:
        """The first simulated world of the study (the one whose true relevance is known), if any."""
        return next((r for r in self.ratings if r.true_relevance is not None), None)

    @property
    def truth(self) -> dict[str, Any] | None:
        """The first simulated world's name (``world``), the share of its truly relevant pairs rated positive
        (``coverage``), and the top reach and Gini of both (``true_*``, ``observed_*``); None without a world."""
        if self.world is None:
            return None
        observed, truth = self.stats.loc[self.world.name], self.stats.loc[f"{self.world.name}{TRUTH}"]
        return {"world": self.world.name, "coverage": judgments.truth_coverage(self.world),
                "true_reach": truth["top reach"], "observed_reach": observed["top reach"], "true_gini": truth["gini"],
                "observed_gini": observed["gini"]}

    @property
    def head_share(self) -> pd.Series:
        """Share of positive judgments held by the tenth of documents most often judged relevant,
        ``F(floor(m / 10))`` of the cumulative share (0 when that tenth holds no document)."""
        head = self.curves[self.curves["rank_share"] <= HEAD].groupby("collection", sort=False)["cumulative_share"]
        return head.max().reindex(self.stats.index, fill_value=0.0)

    @property
    def threshold_effect(self) -> pd.DataFrame:
        """What each rating dataset's own threshold does against the loosest (every rating positive), one row per
        collection: ``threshold``, ``positive share`` of ratings, ``loose reach``, ``own reach``, ``loose gini``,
        ``own gini``, the ``reach drop`` ``1 - own/loose`` and the absolute ``gini change``."""
        own = self.sweeps[self.sweeps["default"]].set_index("collection")
        loose = self.sweeps.groupby("collection", sort=False).first().reindex(own.index)
        return pd.DataFrame({
            "threshold": own["threshold"], "positive share": own["positive share of ratings"],
            "loose reach": loose["top reach"], "own reach": own["top reach"],
            "loose gini": loose["gini"], "own gini": own["gini"],
            "reach drop": 1 - own["top reach"] / loose["top reach"], "gini change": (own["gini"] - loose["gini"]).abs(),
        })


def _others(here: str, seed: int) -> list[Ratings]:
    """Every other available registered rating dataset (simulated presets at the page's scale only)."""
    chosen = []
    for name in datasets.names():
        if name == here or (name in PRESETS and name != "synthetic"):
            continue
        if datasets.available(name):
            chosen.append(datasets.load(name, **({"seed": seed} if name in PRESETS else {})))
    return chosen


def collect(ir: list[judgments.Spread], rating_sets: list[Ratings], cutoff: int = 10, *,
            skipped: list[str] | tuple[str, ...] = (), shipped: list[str] | tuple[str, ...] = ()) -> SpreadStudy:
    """The study of the IR spreads ``ir`` and the rating datasets ``rating_sets`` (the page's first), with
    the complete relevance of every simulated world among them."""
    here = rating_sets[0].name
    spreads = [*ir, *(judgments.from_ratings(r) for r in rating_sets)]
    spreads += [judgments.from_truth(r, f"{r.name}{TRUTH}") for r in rating_sets if r.true_relevance is not None]
    stats = judgments.summary_table(spreads, n=cutoff).set_index("collection", drop=False)
    stats["label"] = [f"{c} (this page)" if c == here else c for c in stats["collection"]]
    curves = pd.concat([judgments.cumulative_share(s) for s in spreads], ignore_index=True)
    sweeps = pd.concat([judgments.threshold_sweep(r, n=cutoff).assign(collection=r.name) for r in rating_sets],
                       ignore_index=True)
    return SpreadStudy(here, cutoff, list(rating_sets), stats, curves, sweeps, list(skipped), list(shipped))


def spread_study(ratings: Ratings, seed: int = 0, cutoff: int = 10, compare_all: bool = True) -> SpreadStudy:
    """Spread statistics of the IR collections, ``ratings`` and (``compare_all``) every other dataset here."""
    rating_sets = [ratings, *(_others(ratings.name, seed) if compare_all else [])]
    skipped = [n for n in datasets.names() if n not in PRESETS and not datasets.available(n)] if compare_all else []
    shipped = [n for n in datasets.qrels_names() if not datasets.available(n)]
    return collect([judgments.ir_spread(n) for n in datasets.qrels_names()], rating_sets, cutoff,
                   skipped=skipped, shipped=shipped)


def registry_order(name: str) -> tuple[int, str]:
    """Sort key that keeps the registry's order of collections (truth after its world), so that a
    collection keeps its colour whatever the page's dataset."""
    order = [*datasets.qrels_names(), *datasets.names()]
    base = name.removesuffix(TRUTH)
    return (order.index(base) if base in order else len(order), name)


def kinds(study: SpreadStudy) -> dict[str, list[str]]:
    """Collections by kind (IR, recommendation, simulation), each in registry order."""
    grouped: dict[str, list[str]] = {}
    for name in sorted(study.stats.index, key=registry_order):
        grouped.setdefault(study.stats.loc[name, "kind"], []).append(name)
    return grouped

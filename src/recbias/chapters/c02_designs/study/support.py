"""Why the papers' kNN can rank below random: the support (training ratings) of the items at the top of every
system's lists on the first split (:func:`recbias.evaluate.support.support_table`), and the papers' kNN beside
its variant that predicts an item only from two neighbours or more (:data:`~recbias.recommenders.SUPPORTED_KNN`)
and random, on every split and design of the page's dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recbias.chapters.c02_designs.study.comparison import N, DesignStudy
from recbias.evaluate.experiment import Experiment, fit_systems, run_experiment
from recbias.evaluate.support import support_table
from recbias.recommenders import PAPERS_SET, SUPPORTED_KNN

#: a training count at most this is little support: one or two ratings
FEW = 2
#: the papers' kNN, the variant that needs two neighbours, and random
KNN_SYSTEMS = {"rating-kNN": PAPERS_SET["rating-kNN"], **SUPPORTED_KNN, "Random": PAPERS_SET["Random"]}


@dataclass(frozen=True)
class SupportStudy:
    """The ``support`` of every system's top :data:`N` on the first split (:func:`support_table`), the share of
    the catalogue with at most :data:`FEW` training ratings there (``catalogue_few``), and the P@10 of
    :data:`KNN_SYSTEMS` under the page's designs on every split (``knn``)."""

    support: pd.DataFrame
    catalogue_few: float
    knn: Experiment

    def measured(self, design: str) -> dict[str, float]:
        """Mean P@10 of each system of :data:`KNN_SYSTEMS` under ``design``."""
        summary = self.knn.summary(["P@10"])
        mine = summary[summary["design"] == design]
        return dict(zip(mine["system"].astype(str), mine["mean"], strict=True))

    def pvalue(self, design: str) -> float:
        """Wilcoxon p-value of the variant against the papers' kNN under ``design``, the user as the unit."""
        tests = self.knn.comparison("P@10", list(KNN_SYSTEMS)[:2])
        return float(tests.loc[tests["design"] == design, "wilcoxon_pvalue"].iloc[0])


def support_study(study: DesignStudy) -> SupportStudy:
    """The support of the study's systems and of the variant (after the papers' kNN) on the first split, and
    :data:`KNN_SYSTEMS` measured on the study's splits and designs, whose target sets are the same draws."""
    fold = study.folds[0]
    presets: dict[str, str] = {}
    for label, preset in study.presets.items():
        presets |= {label: preset} | (SUPPORTED_KNN if label == "rating-kNN" else {})
    fitted = fit_systems(presets, fold.train, key_extra=fold.key, seed=study.seed)
    knn = run_experiment(study.ratings, study.choice.designs, KNN_SYSTEMS, folds=study.folds, metrics=["P@10"],
                         seed=study.seed)
    return SupportStudy(support_table(fitted, fold.train, n=N, few=FEW, seed=study.seed),
                        float(np.mean(fold.train.item_counts() <= FEW)), knn)

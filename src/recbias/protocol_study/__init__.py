"""How faithfully offline protocols order a field of systems where the truth is known (chapters 8 and 9).

:mod:`.protocols` lists the protocols (a design on a split, read with one metric), :mod:`.random_items`
reads Coat's truth on items drawn at random, and :mod:`.measure` measures every protocol and the truth
on the splits of a dataset (:func:`truth_study`) and reads the fidelity of each protocol over several
splits (:func:`protocol_fidelity`), keeping what each system gave on each split in the cache
(:mod:`.stored`).  Fidelity itself (Kendall's tau-b with the true order, with
resamples of users) is :mod:`recbias.evaluate.fidelity`; a simulated world that stands in for data
without a truth is :mod:`recbias.synthetic.stand_in`.
"""

from recbias.protocol_study.measure import (
    FoldRuns,
    fidelity_by_set,
    fold_runs,
    headline_truth,
    measure_fold,
    merge_sets,
    protocol_fidelity,
    truth_kind,
    truth_study,
)
from recbias.protocol_study.protocols import LABEL_SEPARATOR, Protocol, draw_seed, families, protocols
from recbias.protocol_study.random_items import random_item_runs, random_item_values

__all__ = ["LABEL_SEPARATOR", "FoldRuns", "Protocol", "draw_seed", "families", "fidelity_by_set", "fold_runs",
           "headline_truth", "measure_fold", "merge_sets", "protocol_fidelity", "protocols", "random_item_runs",
           "random_item_values", "truth_kind", "truth_study"]

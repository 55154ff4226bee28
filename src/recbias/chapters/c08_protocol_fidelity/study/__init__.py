"""Chapter 8's computation: the two sets of systems, today's field and the papers' five (:mod:`.systems`),
the second truth and how the truths compare (:mod:`.truths`), the grid of simulated worlds and the
comparisons of kinds of protocols (:mod:`.grid`).
The protocols under test and their measurement against a truth are :mod:`recbias.protocol_study`, shared
with chapter 9; fidelity itself (Kendall's tau-b with the true order, with resamples of users) is
:mod:`recbias.evaluate.fidelity`, shared with chapter 7; the world of a dataset's size that stands in for
a dataset without a truth is :func:`recbias.synthetic.world_with_truth`.
"""

from recbias.chapters.c08_protocol_fidelity.study.grid import (change_along, family_gain, family_gap, family_means,
                                                               grid_cells, means_by, simulation_grid)
from recbias.chapters.c08_protocol_fidelity.study.systems import FIELD, PAPERS, SYSTEM_SETS, system_sets
from recbias.chapters.c08_protocol_fidelity.study.truths import (agreement, apart, halves, joined, median_margin,
                                                                 second_truth)
from recbias.evaluate.fidelity import leaders, system_field
from recbias.protocol_study import Protocol, families, fidelity_by_set, protocol_fidelity, protocols
from recbias.synthetic import world_with_truth

__all__ = ["FIELD", "PAPERS", "SYSTEM_SETS", "Protocol", "agreement", "apart", "change_along", "families",
           "family_gain", "family_gap", "family_means", "fidelity_by_set", "grid_cells", "halves",
           "joined", "leaders", "means_by", "median_margin", "protocol_fidelity", "protocols", "second_truth",
           "simulation_grid", "system_field", "system_sets", "world_with_truth"]

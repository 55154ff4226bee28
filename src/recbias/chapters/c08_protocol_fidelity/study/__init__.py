"""Chapter 8's computation: the two sets of systems, today's field and the papers' five (:mod:`.systems`),
the second truth (:mod:`.truths`), the grid of simulated worlds (:mod:`.grid`) and what the fidelity
tables say side by side (:mod:`.verdicts`).
The protocols under test and their measurement against a truth are :mod:`recbias.protocol_study`, shared
with chapter 9; fidelity itself (Kendall's tau-b with the true order, with resamples of users) is
:mod:`recbias.evaluate.fidelity`, shared with chapter 7; the world of a dataset's size that stands in for
a dataset without a truth is :func:`recbias.synthetic.world_with_truth`.
"""

from recbias.chapters.c08_protocol_fidelity.study.grid import (
    family_gain,
    grid_cells,
    grid_means,
    means_by,
    simulation_grid,
    skew_loss,
)
from recbias.chapters.c08_protocol_fidelity.study.systems import (
    FIELD,
    PAPERS,
    PAPERS_SET,
    SYSTEM_SETS,
    system_sets,
    systems_of,
)
from recbias.chapters.c08_protocol_fidelity.study.truths import second_truth
from recbias.chapters.c08_protocol_fidelity.study.verdicts import (
    VERDICTS,
    Agreement,
    agreement,
    apart,
    family_gap,
    family_means,
    joined,
    median_margin,
    verdicts,
)
from recbias.bookkit.claims import LEVEL
from recbias.evaluate.fidelity import fidelity_over_seeds, leaders, system_field
from recbias.protocol_study import Protocol, families, fidelity_by_set, protocol_fidelity, protocols
from recbias.synthetic import world_with_truth

__all__ = ["FIELD", "LEVEL", "PAPERS", "PAPERS_SET", "SYSTEM_SETS", "VERDICTS", "Agreement", "Protocol", "agreement",
           "apart", "families", "family_gain", "family_gap", "family_means", "fidelity_by_set",
           "fidelity_over_seeds", "grid_cells", "grid_means", "joined", "leaders", "means_by", "median_margin",
           "protocol_fidelity", "protocols", "second_truth", "simulation_grid", "skew_loss", "system_field",
           "system_sets", "systems_of", "verdicts", "world_with_truth"]

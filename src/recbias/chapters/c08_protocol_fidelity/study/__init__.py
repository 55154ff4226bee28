"""Chapter 8's computation: the protocols under test (:mod:`.protocols`), the sources of truth
(:mod:`.truths`), the two sets of systems, today's field and the papers' five (:mod:`.systems`), every
protocol and the truth measured on a split (:mod:`.measure`), the grid of simulated worlds (:mod:`.grid`)
and what the fidelity tables say side by side (:mod:`.verdicts`).
Fidelity itself (Kendall's tau-b with the true order, with resamples of users) is
:mod:`recbias.evaluate.fidelity`, shared with chapter 7."""

from recbias.chapters.c08_protocol_fidelity.study.grid import (
    family_gain,
    grid_cells,
    grid_means,
    means_by,
    simulation_grid,
    skew_loss,
)
from recbias.chapters.c08_protocol_fidelity.study.measure import (
    FoldRuns,
    fold_runs,
    measure_fold,
    protocol_fidelity,
    truth_study,
)
from recbias.chapters.c08_protocol_fidelity.study.protocols import Protocol, families, protocols
from recbias.chapters.c08_protocol_fidelity.study.systems import FIELD, PAPERS, PAPERS_SET, SYSTEM_SETS, systems_of
from recbias.chapters.c08_protocol_fidelity.study.truths import (
    headline_truth,
    random_item_quality,
    random_item_runs,
    random_item_values,
    second_truth,
    world_with_truth,
)
from recbias.chapters.c08_protocol_fidelity.study.verdicts import (
    LEVEL,
    VERDICTS,
    Agreement,
    agreement,
    apart,
    family_gap,
    family_means,
    joined,
    leaders,
    median_margin,
    verdicts,
)
from recbias.evaluate.fidelity import fidelity_over_seeds, system_field

__all__ = ["FIELD", "LEVEL", "PAPERS", "PAPERS_SET", "SYSTEM_SETS", "VERDICTS", "Agreement", "FoldRuns",
           "Protocol", "agreement", "apart", "families", "family_gain", "family_gap", "family_means",
           "fidelity_over_seeds", "fold_runs", "grid_cells", "grid_means", "headline_truth", "joined", "leaders",
           "means_by", "measure_fold", "median_margin", "protocol_fidelity", "protocols", "random_item_quality",
           "random_item_runs", "random_item_values", "second_truth", "simulation_grid", "skew_loss", "system_field",
           "systems_of", "truth_study", "verdicts", "world_with_truth"]

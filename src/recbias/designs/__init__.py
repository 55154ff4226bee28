"""Experimental designs: which items each run asks a recommender to rank.

``build_runs(train, test, "1R TI-NN(100)", seed=0)`` forms the target sets of
Bellogín, Castells and Cantador (IRJ 2017, Table 3 and Section 6) for every user
at once and returns them as compact :class:`~recbias.runs.Runs`.
"""

from recbias.designs.build import DesignedRuns, DesignReport, RunsPlan, build_runs, nonrelevant_pool_sizes, plan_runs
from recbias.designs.spec import GRAMMAR, DesignSpec, parse_design

__all__ = [
    "GRAMMAR",
    "DesignReport",
    "DesignSpec",
    "DesignedRuns",
    "RunsPlan",
    "build_runs",
    "nonrelevant_pool_sizes",
    "parse_design",
    "plan_runs",
]

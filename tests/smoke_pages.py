"""The book's pages executed on the small simulated world, as the tests read them: each page once per run
(the ``executed_page`` fixture of ``conftest.py``), its notebook and the claims it registered."""

from __future__ import annotations

from pathlib import Path

import jupytext
import papermill
import pytest

from recbias.bookkit.pipeline import page_environment
from recbias.bookkit.scorecard import CHAPTER_VARIABLE, RESULTS_DIR_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
#: the executed notebook and the directory of the claims it registered, in a page's directory
NOTEBOOK, RESULTS = "executed.ipynb", "results"

#: page -> parameters that keep its smoke run short (beyond dataset and seed); chapter 3's check on an
#: ML-1M-shaped world (1M ratings) runs in every book build and on a small world in test_c03_study
FAST_PARAMETERS: dict[str, dict] = {
    "01_cranfield": {"compare_all": True},
    "02_designs": {"folds": 2, "second_dataset": "", "sweep_users": 60},
    "03_sparsity_bias": {"folds": 1, "bootstrap": 20, "sweep_users": 60, "compare_all": False, "world_check": False},
    "04_popularity_bias": {"folds": 2, "sweep_alphas": "0, 1", "sweep_preset": "synthetic-small", "grid_alphas": "1",
                           "grid_selections": "0, 2", "grid_preset": "synthetic-small"},
    "05_neutralising_designs": {"folds": 1, "target_size": 30, "percentiles": 4, "second_dataset": ""},
    "06_sampled_metrics": {"repetitions": 20, "toy_repetitions": 100, "fig6_max_m": 60},
    "07_discounted_auc": {"bootstrap": 30, "max_known": 10, "new_user_groups": 2},
    "08_protocol_fidelity": {"split_seeds": 1, "bootstrap": 30, "second_dataset": "", "grid_alphas": "0.5",
                             "grid_selections": "0, 2"},
    "09_audit": {"systems": "mf, examples/item_mean.py:ItemMean", "compare_all": False, "bootstrap": 30},
    "appendix_datasets": {},
}


def execute(page: str, folder: Path) -> None:
    """Execute ``page`` with papermill on synthetic-small, seed 1 and its fast parameters, in the project's root
    and the environment the book pipeline gives a page: its notebook to ``folder/NOTEBOOK``, the claims it
    registers to ``folder/RESULTS`` (never to the scorecard of a real build)."""
    source = folder / f"{page}.ipynb"
    jupytext.write(jupytext.read(ROOT / "book" / f"{page}.py"), source)
    environment = page_environment(jobs=2, cores=2) | {RESULTS_DIR_VARIABLE: str(folder / RESULTS),
                                                       CHAPTER_VARIABLE: page}
    with pytest.MonkeyPatch.context() as patch:  # the kernel inherits this process's environment
        for variable, value in environment.items():
            patch.setenv(variable, value)
        papermill.execute_notebook(
            str(source),
            str(folder / NOTEBOOK),
            parameters={"dataset": "synthetic-small", "seed": 1, **FAST_PARAMETERS[page]},
            kernel_name="python3",
            progress_bar=False,
            cwd=str(ROOT),
        )

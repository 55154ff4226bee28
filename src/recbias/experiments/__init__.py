"""Experiment drivers: the generic runner and one module per chapter of the book.

:mod:`recbias.experiments.runner` draws folds, fits systems and evaluates them under
designs; each chapter's page calls the functions of its own driver module.
"""

from recbias.experiments.runner import *  # noqa: F403
from recbias.experiments.runner import __all__  # noqa: F401

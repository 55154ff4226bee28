"""Experiment drivers, one module per chapter of the book (the shared runner is :mod:`recbias.evaluate.experiment`)."""

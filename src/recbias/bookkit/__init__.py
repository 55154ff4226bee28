"""Book support: the build pipeline, page helpers, the figure theme and the scorecard.

Nothing in the evaluation core imports this package; it needs the ``book`` extra
(Jupyter Book, papermill, Jupytext, IPython, matplotlib, seaborn).
"""

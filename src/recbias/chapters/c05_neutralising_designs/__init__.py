"""Chapter 5 ("Designs that neutralise popularity: P1R, U1R, UAR"): the percentile and uniform designs of
Bellogín, Castells and Cantador (IRJ 2017 Sec. 6; thesis Sec. 4.6) measured on a dataset, set against
removing the most popular items, metrics for incomplete judgments and inverse-propensity estimators.
:mod:`.study` measures, :mod:`.figures` and :mod:`.report` show, :mod:`.claims` checks the papers' findings
and ``published.csv`` holds the numbers they publish for MovieLens 1M.
"""
